//! The text of a history entry: one line per line of each message kept, each led by the message's
//! stable index, role and time, so a `grep` match says by itself whose message it is and when:
//!
//! ```text
//! [#12 user 2026-12-06T07:31Z] Start the API on port 8443
//! [#13 agent 2026-12-06T07:31Z] call exec {"command":"node api.js --port 8443"}
//! [#14 tool exec error 2026-12-06T07:31Z] Error: listen EADDRINUSE: address already in use :::8443
//! ```
//!
//! What a message says is read as the restore reads it ([`context_state::dialogue::read_dialogue`]):
//! the user's own words without the package's injections and the host's wrappers (envelopes,
//! heartbeats, cron and session prompts), the agent's text without no-op replies, credentials
//! redacted across messages ([`context_checkpoint::redact::redact_messages`]) in text, tool-call
//! arguments and tool results alike. A message left with nothing (host text only) is left out. A
//! tool result already parked in the store is kept as its pointer (`scratchpad_id`, name, size)
//! and its head and tail, not copied again.

use context_state::dialogue::{read_dialogue, Line};
use context_state::{message_text, sent_at};
use serde_json::Value;

/// Longest line of an entry, in characters: a longer line of a message (a minified JSON result) is
/// wrapped, each piece led by the message's prefix, so a grep match stays a readable size.
pub const MAX_LINE_CHARS: usize = 2000;

/// One message of the dialogue rendered, with the fingerprint it is recognised by later.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// Position in the messages given.
    pub position: usize,
    /// Stable across compactions and processes ([`fingerprint`]).
    pub fingerprint: String,
    /// The role shown: `user`, `agent`, `tool <name>` (`tool <name> error` for a failure).
    pub role: String,
    /// The time shown (`2026-12-06T07:31Z`), `-` when the message has none.
    pub time: String,
    /// The message's lines (never empty; none of them blank).
    pub lines: Vec<String>,
}

/// A message's fingerprint: its role, time and content as sent (before redaction, so the same
/// message is recognised whatever other messages it is compacted with).
pub fn fingerprint(m: &Value) -> String {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    let time = sent_at(m).map(|t| t.to_string()).unwrap_or_default();
    let content = m.get("content").map(Value::to_string).unwrap_or_default();
    let call = m.get("toolCallId").and_then(Value::as_str).unwrap_or("");
    context_state::fingerprint(&[role, &time, call, &content])
}

/// `2026-12-06T07:31Z` (minutes: enough to place a message, short on every line).
pub fn minute(ms: u64) -> String {
    let t = context_fsio::rfc3339(ms);
    format!("{}Z", &t[..16])
}

fn push_text(out: &mut Vec<String>, text: &str) {
    for line in text.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            continue;
        }
        let mut rest = line;
        while rest.chars().count() > MAX_LINE_CHARS {
            let cut = rest
                .char_indices()
                .nth(MAX_LINE_CHARS)
                .map_or(rest.len(), |(i, _)| i);
            out.push(rest[..cut].to_string());
            rest = &rest[cut..];
        }
        if !rest.is_empty() {
            out.push(rest.to_string());
        }
    }
}

/// The tool calls of an assistant message: `call <name> <arguments as JSON>`.
fn calls(m: &Value, out: &mut Vec<String>) {
    let Some(blocks) = m.get("content").and_then(Value::as_array) else {
        return;
    };
    for b in blocks {
        if b.get("type").and_then(Value::as_str) != Some("toolCall") {
            continue;
        }
        let name = b.get("name").and_then(Value::as_str).unwrap_or("?");
        let args = b
            .get("arguments")
            .map(Value::to_string)
            .unwrap_or_else(|| "{}".into());
        push_text(out, &format!("call {name} {args}"));
    }
}

/// A parked result's pointer: seed 003's synthetic observation (`scratchpad_id`, `_note`).
fn parked(text: &str) -> Option<String> {
    let t = text.trim();
    if !t.starts_with('{') || !t.contains("scratchpad_id") {
        return None;
    }
    let v: Value = serde_json::from_str(t).ok()?;
    let id = v.get("scratchpad_id")?.as_str()?;
    v.get("_note")?;
    let name = v.get("name").and_then(Value::as_str).unwrap_or(id);
    let size = v.get("size_bytes").and_then(Value::as_u64).unwrap_or(0);
    let summary = v.get("summary").and_then(Value::as_str).unwrap_or("");
    Some(format!(
        "(parked result: scratchpad_read {{\"name\": \"{name}\"}} reads it whole, {size} bytes; its head and tail:)\n{summary}"
    ))
}

/// A tool result's text (images as `[image]`), or its parked pointer.
fn result_text(m: &Value) -> String {
    let mut text = String::new();
    match m.get("content") {
        Some(Value::Array(blocks)) => {
            for b in blocks {
                let piece = match b.get("type").and_then(Value::as_str) {
                    Some("text") => b.get("text").and_then(Value::as_str).unwrap_or(""),
                    Some("image") => "[image]",
                    _ => "",
                };
                if !piece.is_empty() {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(piece);
                }
            }
        }
        _ => text = message_text(m),
    }
    parked(&text).unwrap_or(text)
}

/// The messages rendered, in order (those with nothing left out).
pub fn render_messages(messages: &[Value]) -> Vec<Rendered> {
    let redacted = context_checkpoint::redact::redact_messages(messages);
    let dialogue = read_dialogue(&redacted);
    let mut out = Vec::new();
    for (i, (m, line)) in redacted.iter().zip(&dialogue).enumerate() {
        let mut lines = Vec::new();
        let role = match (line, m.get("role").and_then(Value::as_str)) {
            (Line::User { text, .. }, _) => {
                push_text(&mut lines, text);
                "user".to_string()
            }
            (Line::Agent { text, .. }, _) => {
                push_text(&mut lines, text);
                calls(m, &mut lines);
                "agent".to_string()
            }
            (Line::Other, Some("toolResult")) => {
                push_text(&mut lines, &result_text(m));
                let tool = m.get("toolName").and_then(Value::as_str).unwrap_or("?");
                let failed = context_state::result_failure(m).is_some();
                format!("tool {tool}{}", if failed { " error" } else { "" })
            }
            // (a compaction summary, a custom or bash-execution message: not the dialogue)
            _ => continue,
        };
        if lines.is_empty() {
            continue;
        }
        out.push(Rendered {
            position: i,
            fingerprint: fingerprint(&messages[i]),
            role,
            time: sent_at(m).map_or_else(|| "-".into(), minute),
            lines,
        });
    }
    out
}

/// Appends a rendered message under its index: every line led by `[#<index> <role> <time>] `.
pub fn write_message(out: &mut String, index: u64, r: &Rendered) {
    for l in &r.lines {
        out.push_str(&format!("[#{index} {} {}] {l}\n", r.role, r.time));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(messages: &[Value]) -> String {
        let mut s = String::new();
        for (k, r) in render_messages(messages).iter().enumerate() {
            write_message(&mut s, k as u64 + 1, r);
        }
        s
    }

    #[test]
    fn each_line_names_its_message_role_and_time() {
        let t = 1_796_542_260_000u64; // 2026-12-06T07:31:00Z
        let msgs = vec![
            json!({"role": "user", "content": "Start the API on port 8443\nand watch the log", "timestamp": t}),
            json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "private"},
                {"type": "text", "text": "Starting it."},
                {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "node api.js --port 8443"}}
            ], "timestamp": t}),
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "exec", "isError": true,
                   "content": [{"type": "text", "text": "Error: listen EADDRINUSE: address already in use :::8443"}], "timestamp": t}),
        ];
        let d = doc(&msgs);
        assert_eq!(
            d,
            "[#1 user 2026-12-06T07:31Z] Start the API on port 8443\n\
             [#1 user 2026-12-06T07:31Z] and watch the log\n\
             [#2 agent 2026-12-06T07:31Z] Starting it.\n\
             [#2 agent 2026-12-06T07:31Z] call exec {\"command\":\"node api.js --port 8443\"}\n\
             [#3 tool exec error 2026-12-06T07:31Z] Error: listen EADDRINUSE: address already in use :::8443\n"
        );
        assert!(!d.contains("private"), "thinking is not the dialogue");
    }

    #[test]
    fn credentials_are_redacted_in_text_arguments_and_results() {
        let key = "sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678";
        let msgs = vec![
            json!({"role": "user", "content": format!("my key is {key}")}),
            json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": format!("export OPENAI_API_KEY={key}")}}
            ]}),
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "exec", "content": [{"type": "text", "text": format!("set {key}")}]}),
        ];
        let d = doc(&msgs);
        assert!(!d.contains(key), "{d}");
        assert_eq!(d.matches("[redacted]").count(), 3, "{d}");
    }

    #[test]
    fn host_text_is_left_out_as_the_restore_leaves_it_out() {
        let msgs = vec![
            json!({"role": "user", "content": "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK."}),
            json!({"role": "assistant", "content": "HEARTBEAT_OK"}),
            json!({"role": "user", "content": "Conversation info (untrusted metadata):\n```json\n{\"message_id\": \"42\", \"sender\": \"ann\"}\n```\n\nDeploy the staging branch"}),
            json!({"role": "compactionSummary", "summary": "earlier work"}),
        ];
        let d = doc(&msgs);
        assert_eq!(d, "[#1 user -] Deploy the staging branch\n", "{d}");
    }

    #[test]
    fn a_parked_result_is_kept_as_its_pointer_and_long_lines_are_wrapped() {
        let obs = json!({"ok": true, "scratchpad_id": "737e68b7b9143c11", "name": "exec_1", "size_bytes": 79889,
                         "kind": "text", "summary": "line 0\n[... 78889 characters omitted ...]\nline 2999", "_note": "Large observation saved"});
        let long = "x".repeat(MAX_LINE_CHARS * 2 + 5);
        let msgs = vec![
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "exec", "content": [{"type": "text", "text": obs.to_string()}]}),
            json!({"role": "toolResult", "toolCallId": "c2", "toolName": "read", "content": [{"type": "text", "text": long}, {"type": "image", "data": "AAAA"}]}),
        ];
        let d = doc(&msgs);
        assert!(d.starts_with("[#1 tool exec -] (parked result: scratchpad_read {\"name\": \"exec_1\"} reads it whole, 79889 bytes"), "{d}");
        assert!(d.contains("[#1 tool exec -] line 2999\n"), "{d}");
        assert!(!d.contains("Large observation saved"), "{d}");
        let wrapped: Vec<&str> = d.lines().filter(|l| l.starts_with("[#2 ")).collect();
        assert_eq!(wrapped.len(), 4, "three pieces and the image");
        assert_eq!(wrapped[3], "[#2 tool read -] [image]");
    }

    #[test]
    fn the_fingerprint_ignores_what_other_messages_make_redacted() {
        let m = json!({"role": "user", "content": "deploy it", "timestamp": 5});
        assert_eq!(fingerprint(&m), fingerprint(&m.clone()));
        let other = json!({"role": "user", "content": "deploy it", "timestamp": 6});
        assert_ne!(fingerprint(&m), fingerprint(&other));
    }
}
