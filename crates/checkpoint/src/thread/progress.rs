//! Progress: the status at the last message, the tools used, the last tool call, and the files
//! read, modified and most active.

use super::*;

/// From the last message: tools running or a user message pending = in progress, a final agent
/// reply = waiting for the user, an aborted one = idle.
pub(super) fn status(walk: &Walk) -> Option<Status> {
    let mut said = walk.lines.iter().zip(&walk.messages).rev();
    said.find_map(|(line, m)| match line {
        Line::User { .. } | Line::Agent { worked: true, .. } => Some(Status::InProgress),
        Line::Agent { .. } if matches!(m.stop, Some("aborted" | "error")) => Some(Status::Idle),
        Line::Agent { .. } => Some(Status::WaitingForUser),
        Line::Other => m.result.as_ref().map(|_| Status::InProgress),
    })
}

/// Tools used, the last tool call, files read and modified, and every file ranked by activity.
pub(super) fn tool_use(walk: &Walk, out: &mut Extracted) {
    let n = walk.lines.len();
    let mut files = Tally::default();
    let mut changed: HashSet<String> = HashSet::new();
    let (mut tools, mut read, mut modified) =
        (Recency::default(), Recency::default(), Recency::default());
    let mut last = None;
    for (at, name, args) in walk.calls() {
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
        last = Some((name, args));
    }
    // (the last call only: redacting every call's arguments to keep one cost a long session
    // its arguments' size again)
    out.last_tool_call = last.map(|(name, args)| ToolCall {
        name: name.to_string(),
        params_summary: match args {
            Value::Null => None,
            a => Some(gist(
                &context_state::secrets::redact(&a.to_string()),
                PARAMS_SUMMARY_CHARS,
            )),
        },
    });
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

/// Most commits the progress names (the newest).
pub const MAX_COMMITS: usize = 3;
/// How a commit's key exchange starts: `committed 1a2b3c4 on main: Fix the parser`.
const COMMITTED: &str = "committed ";

/// Whether a key exchange is a commit [`commits`] wrote (`committed <hash> on <branch>:
/// <subject>`): what a later checkpoint carries of the progress before a compaction.
pub fn is_commit(e: &Exchange) -> bool {
    e.role == Role::Agent
        && e.gist.strip_prefix(COMMITTED).is_some_and(|rest| {
            rest.split_once(" on ")
                .is_some_and(|(hash, branch)| is_commit_hash(hash) && branch.contains(": "))
        })
}

/// The commit a line of git's output reports: `[main 1a2b3c4] Fix the parser` (also
/// `[main (root-commit) 1a2b3c4] …`, `[detached HEAD 1a2b3c4] …`) as (branch, hash, subject).
fn commit_line(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.trim_start().strip_prefix('[')?;
    let (inside, subject) = rest.split_once("] ")?;
    let subject = subject.trim();
    let (branch, hash) = inside.rsplit_once(' ')?;
    let branch = branch.trim_end_matches(" (root-commit)").trim();
    (is_commit_hash(hash)
        && !branch.is_empty()
        && !branch.contains(['[', ']'])
        && !subject.is_empty())
    .then_some((branch, hash, subject))
}

/// The commits the agent made, as git reported them in a tool result: (message index, `committed
/// 1a2b3c4 on main: Fix the parser`), oldest first, at most [`MAX_COMMITS`] (the newest). What
/// the agent committed is done, in its own words (issue 27, "progress"); a commit made again
/// under the same subject (amended, rebased) once, its latest. Structure only: git's output line.
pub(super) fn commits(walk: &Walk) -> Vec<(usize, String)> {
    // (message index, subject, gist)
    let mut out: Vec<(usize, String, String)> = Vec::new();
    for (at, _, result) in walk.results() {
        for (branch, hash, subject) in result.text.lines().filter_map(commit_line) {
            out.retain(|(_, s, _)| s != subject);
            let gist = format!("{COMMITTED}{hash} on {branch}: {subject}");
            out.push((at, subject.to_string(), gist));
        }
    }
    let skip = out.len().saturating_sub(MAX_COMMITS);
    out.into_iter()
        .skip(skip)
        .map(|(at, _, gist)| (at, gist))
        .collect()
}

/// The extensions of prose documents: markdown and plain text (a memory file, a diary, a
/// changelog, a README, a skill's description).
const PROSE_DOCUMENTS: &[&str] = &[".md", ".markdown", ".mdx", ".txt", ".rst"];

/// Most characters read of the text one write adds to a prose document: the briefing ranks the
/// latest 800 sentences (`briefing::rank::MAX_POOL`), which one long document must not fill.
pub const WRITTEN_PROSE_CHARS: usize = 8_000;

/// What the agent wrote of its work with a tool that succeeded, besides its replies, at the
/// result of each (message index): the bodies of its commits' messages
/// ([`context_state::substance::command_messages`]: `Bumped to 30s, consistent with
/// content-load timeouts`) and the text it added to a prose document ([`PROSE_DOCUMENTS`]: the
/// day's entry of a memory file, a changelog's, at most [`WRITTEN_PROSE_CHARS`]: an edit's lines
/// that are no line of the text it replaced, a write's no line of the file as the agent last
/// wrote it: [`added_lines`]). While it works, its replies say what it does next; these say what it did and why,
/// for the people who read the history.
pub(super) fn writings(walk: &Walk) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // the text each prose document was last written with whole
    let mut written: HashMap<String, String> = HashMap::new();
    for (at, _, result) in walk.results() {
        let Some((name, args)) = result.call.filter(|_| result.failure.is_none()) else {
            continue;
        };
        if let Some(command) = args.get("command").and_then(Value::as_str) {
            let messages = context_state::substance::command_messages(command);
            out.extend(messages.into_iter().map(|m| (at, m)));
            continue;
        }
        let prose = |p: &String| {
            let p = p.to_ascii_lowercase();
            PROSE_DOCUMENTS.iter().any(|e| p.ends_with(e))
        };
        let paths = extract_paths(args);
        if classify_tool(name) != Access::Write || !paths.iter().any(prose) {
            continue;
        }
        for (new, old) in edit_texts(args) {
            let before = match (old.is_empty(), paths.first()) {
                (true, Some(path)) => written.insert(path.clone(), new.to_string()),
                _ => None,
            };
            let old = before.as_deref().unwrap_or(&old);
            let text = added_lines(&new, old);
            let text = head_bytes(text.trim(), WRITTEN_PROSE_CHARS).trim_end();
            if !text.is_empty() {
                out.push((at, text.to_string()));
            }
        }
    }
    out
}

/// The lines of `new` that are no line of `old`, blank lines kept (they part its paragraphs),
/// up to about [`WRITTEN_PROSE_CHARS`]: one pass over each text, whatever their sizes (a line
/// looked up in the whole old text took time in proportion to both).
fn added_lines(new: &str, old: &str) -> String {
    let old: HashSet<&str> = old.lines().collect();
    let mut text = String::new();
    for line in new.lines() {
        if text.len() > WRITTEN_PROSE_CHARS {
            break;
        }
        let blank = line.trim().is_empty();
        // (the blank lines before the first added one are none of it)
        if (blank && !text.is_empty()) || (!blank && !old.contains(line)) {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thread::goal::tests::{agent, user};
    use serde_json::json;

    fn bash(id: &str, command: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "bash", "arguments": {"command": command}}], "stopReason": "toolUse"})
    }
    fn output(id: &str, text: &str) -> Value {
        json!({"role": "toolResult", "toolCallId": id, "toolName": "bash", "content": [{"type": "text", "text": text}], "isError": false})
    }

    #[test]
    fn the_lines_a_write_adds_are_those_no_line_of_the_old_text_is() {
        let old = "# Notes\n\n- Karma rose from 4586 to 4695.\n- Replied to six comments.\n";
        // a line cut short is a changed line, not one the old text holds; a blank line parts the
        // added paragraphs, and those before the first added line are none of it
        let new =
            "# Notes\n\n- Karma rose from 4586\n- Replied to six comments.\n\n- Posted v4.9.0.\n";
        assert_eq!(
            added_lines(new, old),
            "- Karma rose from 4586\n\n- Posted v4.9.0.\n"
        );
        // a long text is read up to about the cap, in one pass
        let long: String = (0..100_000).map(|i| format!("line {i}\n")).collect();
        let added = added_lines(&long, &long[..long.len() / 2]);
        assert!(added.starts_with("line 5"), "{}", &added[..20]);
        assert!(added.len() <= WRITTEN_PROSE_CHARS + 20);
    }

    #[test]
    fn what_the_agent_adds_to_a_prose_document_is_its_word_on_its_work() {
        let call = |id: &str, name: &str, args: Value| json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": name, "arguments": args}], "stopReason": "toolUse"});
        let ok = |id: &str| output(id, "Successfully wrote the file.");
        let day1 = "# 2026-04-08\n\n- Replied to six new comments on the security post.\n";
        let day2 = format!("{day1}- Karma rose from 4586 to 4695, over the day's target.\n");
        let messages = vec![
            user("run the forum routine"),
            call(
                "w1",
                "write",
                json!({"path": "memory/2026-04-08.md", "content": day1}),
            ),
            ok("w1"),
            // the file written again whole: only its new line is what the agent added
            call(
                "w2",
                "write",
                json!({"path": "memory/2026-04-08.md", "content": day2}),
            ),
            ok("w2"),
            // an edit's new lines, not those it kept
            call(
                "e1",
                "edit",
                json!({"path": "CHANGELOG.md", "oldText": "## v4.9.0", "newText": "## v4.9.0\n\nMerged the four requests of the users into one release."}),
            ),
            ok("e1"),
            // code is no prose document; a failed edit added nothing
            call(
                "e2",
                "write",
                json!({"path": "src/routine.ts", "content": "// Replied to everyone in the routine today."}),
            ),
            ok("e2"),
            call(
                "e3",
                "edit",
                json!({"path": "NOTES.md", "oldText": "x", "newText": "x\nThe edit that never happened."}),
            ),
            json!({"role": "toolResult", "toolCallId": "e3", "toolName": "edit", "content": [{"type": "text", "text": "Could not find the exact text"}], "isError": true}),
        ];
        let w = writings(&Walk::new(&messages));
        let texts: Vec<&str> = w.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            [
                day1.trim_end(),
                "- Karma rose from 4586 to 4695, over the day's target.",
                "Merged the four requests of the users into one release.",
            ]
        );
        // said where the write succeeded
        assert_eq!(w.iter().map(|(at, _)| *at).collect::<Vec<_>>(), [2, 4, 6]);
    }

    #[test]
    fn a_commits_body_is_the_agents_word_on_what_it_did_and_why() {
        let commit = "git commit -am \"$(cat <<'EOF'\nfix(e2e): raise the breadcrumb timeout\n\nThe helper waited 15s, too little for a cold IPNS resolve in CI.\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\"";
        let messages = vec![
            user("the e2e job times out on the runners, fix it"),
            bash("c1", commit),
            output(
                "c1",
                "[main 1a2b3c4] fix(e2e): raise the breadcrumb timeout",
            ),
            agent("Pushed."),
        ];
        let said: Vec<String> = extract(&messages)
            .key_exchanges
            .into_iter()
            .map(|x| x.gist)
            .collect();
        assert!(
            said.iter()
                .any(|g| g == "The helper waited 15s, too little for a cold IPNS resolve in CI."),
            "{said:?}"
        );
        // the subject is the commit's own line, the signature nobody's
        assert_eq!(
            said.iter()
                .filter(|g| g.contains("raise the breadcrumb"))
                .count(),
            1
        );
        assert!(
            !said.iter().any(|g| g.contains("Co-Authored-By")),
            "{said:?}"
        );
        // a commit that failed (a hook refused it) wrote nothing
        let mut refused = messages.clone();
        refused[2] = json!({"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": [{"type": "text", "text": "pre-commit failed"}], "isError": true});
        assert!(!extract(&refused)
            .key_exchanges
            .iter()
            .any(|x| x.gist.contains("cold IPNS")));
    }

    #[test]
    fn git_reports_a_commit_as_branch_hash_and_subject() {
        assert_eq!(
            commit_line("[spotter-gqc ceff8c3] feat: add annotation state (spotter-gqc.4)"),
            Some((
                "spotter-gqc",
                "ceff8c3",
                "feat: add annotation state (spotter-gqc.4)"
            ))
        );
        assert_eq!(
            commit_line("[main (root-commit) 1a2b3c4] Initial commit"),
            Some(("main", "1a2b3c4", "Initial commit"))
        );
        assert_eq!(
            commit_line("[detached HEAD 0123456789abcdef] fix: 修复登录"),
            Some(("detached HEAD", "0123456789abcdef", "fix: 修复登录"))
        );
        // not a commit: a log line, a markdown link, a checkbox, a short or upper-case hash
        for line in [
            "ceff8c3 feat: add annotation state",
            "[docs](https://example.com) see here",
            "[x] done",
            "[main abc12] too short",
            "[main ABCDEF1] upper case",
            "[main ceff8c3]",
        ] {
            assert_eq!(commit_line(line), None, "{line}");
        }
    }

    #[test]
    fn the_newest_commits_are_progress_in_the_turn_they_were_made_in() {
        let mut messages = vec![
            user("Implement the review page, one commit per task"),
            agent("Starting with task 1."),
        ];
        for (i, subject) in ["task 1", "task 2", "task 3", "task 4"].iter().enumerate() {
            let id = format!("c{i}");
            messages.push(bash(&id, &format!("git commit -m '{subject}'")));
            messages.push(output(
                &id,
                &format!("lint ok\n[review 00000{i}a] feat: {subject}\n 2 files changed, 10 insertions(+)"),
            ));
        }
        // amended: the same subject once, with its latest hash
        messages.push(bash("c9", "git commit --amend --no-edit"));
        messages.push(output(
            "c9",
            "[review 99999ab] feat: task 4\n 2 files changed",
        ));
        messages.push(agent("All four tasks are committed."));
        messages.push(user("now open the pull request"));
        let e = extract(&messages);
        let gists: Vec<&str> = e.key_exchanges.iter().map(|x| x.gist.as_str()).collect();
        assert_eq!(
            gists,
            [
                "Implement the review page, one commit per task",
                "Starting with task 1.",
                "committed 000001a on review: feat: task 2",
                "committed 000002a on review: feat: task 3",
                "committed 99999ab on review: feat: task 4",
                "All four tasks are committed.",
                "now open the pull request",
            ],
            "{:?}",
            e.key_exchanges
        );
        assert!(e.key_exchanges[1..5].iter().all(|x| x.role == Role::Agent));
    }

    #[test]
    fn commits_leave_the_task_and_the_latest_pairs_their_places() {
        // many long agent answers each followed by a reply (pivots), and three commits: the
        // exchanges stay within MAX_EXCHANGES and keep the task and the last pairs
        let long = "x ".repeat(context_state::LONG_AGENT_CHARS);
        let mut messages = vec![user("Build the importer for the CSV exports")];
        for i in 0..6 {
            messages.push(agent(&format!("{long} proposal {i}")));
            messages.push(user(&format!("go with proposal {i}, keep the old parser")));
            let id = format!("c{i}");
            messages.push(bash(&id, "git commit -am wip"));
            messages.push(output(&id, &format!("[main 1234a{i}f] step {i}")));
        }
        messages.push(agent("Done with step 5."));
        let e = extract(&messages);
        assert!(
            e.key_exchanges.len() <= MAX_EXCHANGES,
            "{:?}",
            e.key_exchanges
        );
        assert_eq!(
            e.key_exchanges[0].gist,
            "Build the importer for the CSV exports"
        );
        assert_eq!(e.key_exchanges.last().unwrap().gist, "Done with step 5.");
        let commits = e
            .key_exchanges
            .iter()
            .filter(|x| x.gist.starts_with("committed "))
            .count();
        assert_eq!(commits, MAX_COMMITS);
    }
}
