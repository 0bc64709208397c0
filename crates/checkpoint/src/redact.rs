//! The last guard before a checkpoint is written (issue 27 part 4): every text it holds passes
//! through [`context_state::secrets::redact`] once more, whoever supplied it (the extraction, the
//! state files of an earlier version, the host's own input). An identifier that held a credential
//! is dropped: a name that is a secret names nothing.

use crate::model::Checkpoint;
use context_state::secrets::{redact, redact_owned, REDACTED};

fn text(s: &mut String) {
    if let std::borrow::Cow::Owned(r) = redact(s) {
        *s = r;
    }
}

fn opt(s: &mut Option<String>) {
    if let Some(s) = s {
        text(s);
    }
}

fn list(v: &mut [String]) {
    for s in v.iter_mut() {
        text(s);
    }
}

/// Redacts every credential value in the checkpoint's texts, in place.
pub fn redact_checkpoint(cp: &mut Checkpoint) {
    let w = &mut cp.working;
    opt(&mut w.topic);
    opt(&mut w.task);
    opt(&mut w.next_action);
    if let Some(call) = &mut w.last_tool_call {
        opt(&mut call.params_summary);
    }
    for d in &mut cp.decisions {
        text(&mut d.what);
    }
    let r = &mut cp.resources;
    list(&mut r.files_read);
    list(&mut r.files_modified);
    list(&mut r.active_files);
    list(&mut r.commands);
    r.identifiers.retain(|id| {
        let kept = redact(id);
        matches!(kept, std::borrow::Cow::Borrowed(_)) && !id.contains(REDACTED)
    });
    opt(&mut cp.thread.summary);
    for e in &mut cp.thread.key_exchanges {
        e.gist = redact_owned(std::mem::take(&mut e.gist));
    }
    list(&mut cp.open_items);
    list(&mut cp.learnings);
}

/// The string values inside `v` redacted; `None` when none held a credential.
fn redact_value(v: &serde_json::Value) -> Option<serde_json::Value> {
    use serde_json::Value;
    match v {
        Value::String(s) => match redact(s) {
            std::borrow::Cow::Owned(r) => Some(Value::String(r)),
            std::borrow::Cow::Borrowed(_) => None,
        },
        Value::Array(items) => {
            let changed: Vec<Option<Value>> = items.iter().map(redact_value).collect();
            changed.iter().any(Option::is_some).then(|| {
                Value::Array(
                    changed
                        .into_iter()
                        .zip(items)
                        .map(|(c, old)| c.unwrap_or_else(|| old.clone()))
                        .collect(),
                )
            })
        }
        Value::Object(map) => {
            let changed: Vec<(&String, Option<Value>)> =
                map.iter().map(|(k, v)| (k, redact_value(v))).collect();
            changed.iter().any(|(_, c)| c.is_some()).then(|| {
                Value::Object(
                    changed
                        .into_iter()
                        .map(|(k, c)| (k.clone(), c.unwrap_or_else(|| map[k].clone())))
                        .collect(),
                )
            })
        }
        _ => None,
    }
}

/// The messages with every credential in their texts and tool-call arguments redacted, so no
/// extraction pass sees one (borrowed when none holds a credential; only the messages that do
/// are copied). Linear in the size of the messages.
pub fn redact_messages(
    messages: &[serde_json::Value],
) -> std::borrow::Cow<'_, [serde_json::Value]> {
    let mut out: Option<Vec<serde_json::Value>> = None;
    for (i, m) in messages.iter().enumerate() {
        let changed = m.get("content").and_then(redact_value);
        if let Some(content) = changed {
            let v = out.get_or_insert_with(|| messages[..i].to_vec());
            let mut m = m.clone();
            m["content"] = content;
            v.push(m);
        } else if let Some(v) = &mut out {
            v.push(m.clone());
        }
    }
    match out {
        Some(v) => std::borrow::Cow::Owned(v),
        None => std::borrow::Cow::Borrowed(messages),
    }
}
