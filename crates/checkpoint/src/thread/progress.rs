//! Progress: the status at the last message, the tools used, the last tool call, and the files
//! read, modified and most active.

use super::*;

/// From the last message: tools running or a user message pending = in progress, a final agent
/// reply = waiting for the user, an aborted one = idle.
pub(super) fn status(messages: &[Value]) -> Option<Status> {
    let mut status = None;
    for m in messages {
        match m.get("role").and_then(Value::as_str) {
            Some("user") | Some("toolResult") => status = Some(Status::InProgress),
            Some("assistant") => {
                let stop = m.get("stopReason").and_then(Value::as_str);
                status = Some(if tool_calls(m).next().is_some() {
                    Status::InProgress
                } else if matches!(stop, Some("aborted") | Some("error")) {
                    Status::Idle
                } else {
                    Status::WaitingForUser
                });
            }
            _ => {}
        }
    }
    status
}

/// Tools used, the last tool call, files read and modified, and every file ranked by activity.
pub(super) fn tool_use(messages: &[Value], out: &mut Extracted) {
    let n = messages.len();
    let mut files = Tally::default();
    let mut changed: HashSet<String> = HashSet::new();
    let (mut tools, mut read, mut modified) =
        (Recency::default(), Recency::default(), Recency::default());
    for (at, name, args) in calls(messages) {
        tools.touch(name);
        let access = classify_tool(name);
        let list: &mut Recency = match access {
            Access::Read => &mut read,
            Access::Write => &mut modified,
        };
        for p in extract_paths(args) {
            list.touch(&p);
            let weight = if access == Access::Write { 2.0 } else { 1.0 };
            files.add(&p, weight, at, n);
            if access == Access::Write {
                changed.insert(p);
            }
        }
        out.last_tool_call = Some(ToolCall {
            name: name.to_string(),
            params_summary: match args {
                Value::Null => None,
                a => Some(gist(
                    &context_state::secrets::redact(&a.to_string()),
                    PARAMS_SUMMARY_CHARS,
                )),
            },
        });
    }
    out.tools_used = tools.into_vec();
    out.files_read = read.into_vec();
    out.files_modified = modified.into_vec();
    let ranked = files.ranked(usize::MAX);
    out.active_files = ranked
        .iter()
        .filter(|p| changed.contains(*p))
        .chain(ranked.iter().filter(|p| !changed.contains(*p)))
        .cloned()
        .collect();
}
