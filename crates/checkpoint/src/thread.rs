//! Thread extraction (seed 001, section 11.2) and the other facts a checkpoint takes from the pi
//! agent messages: topic, summary, key exchanges, status, the last tool call, tools and files used.
//! No LLM and no keywords: only structure (roles, lengths, order), so it works in any language.

use crate::model::{Exchange, Role, Status, ToolCall};
use context_state::{classify_tool, extract_paths, gist, message_text, Access};
use serde_json::Value;

/// Characters of a key-exchange gist.
pub const GIST_CHARS: usize = 120;
/// Characters of the topic and of each half of the summary.
pub const TOPIC_CHARS: usize = 100;
/// An agent response longer than this (in characters) makes the next user message a pivot.
pub const LONG_AGENT_CHARS: usize = 500;
/// Most key exchanges kept.
pub const MAX_EXCHANGES: usize = 8;
/// Exchange pairs always kept at the end of the thread.
pub const LAST_PAIRS: usize = 2;
/// Characters of a tool call's `params_summary`.
pub const PARAMS_SUMMARY_CHARS: usize = 120;

/// What the messages say.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extracted {
    /// Gist (100 chars) of the last user message.
    pub topic: Option<String>,
    /// First user message (100) + " ... " + last user message (100).
    pub summary: Option<String>,
    pub key_exchanges: Vec<Exchange>,
    /// From the last message: tools running or a user message pending = in progress, a final
    /// agent reply = waiting for the user.
    pub status: Option<Status>,
    /// The last tool call the agent made.
    pub last_tool_call: Option<ToolCall>,
    /// Tool names called, deduplicated, least recently used first.
    pub tools_used: Vec<String>,
    pub files_read: Vec<String>,
    pub files_modified: Vec<String>,
}

fn tool_calls(m: &Value) -> impl Iterator<Item = &Value> {
    m.get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
}

/// Moves `item` to the end of `list` (deduplicated, least recently used first).
pub(crate) fn touch(list: &mut Vec<String>, item: &str) {
    if let Some(i) = list.iter().position(|x| x == item) {
        list.remove(i);
    }
    list.push(item.to_string());
}

/// One user message and the agent's response to it.
struct Turn {
    /// Squashed user text; `None` for agent output before the first user message.
    user: Option<String>,
    /// Characters of all agent text in the turn.
    agent_chars: usize,
    /// The agent's last text in the turn (its final word).
    agent_last: Option<String>,
}

/// Extracts everything from pi agent messages (`role` `user` / `assistant` / `toolResult`; other
/// roles and malformed entries are skipped).
pub fn extract(messages: &[Value]) -> Extracted {
    let mut out = Extracted::default();
    let mut turns: Vec<Turn> = Vec::new();
    for m in messages {
        let role = m.get("role").and_then(Value::as_str);
        match role {
            Some("user") => {
                out.status = Some(Status::InProgress);
                let text = message_text(m);
                if text.trim().is_empty() {
                    continue;
                }
                turns.push(Turn {
                    user: Some(text),
                    agent_chars: 0,
                    agent_last: None,
                });
            }
            Some("assistant") => {
                let text = message_text(m);
                let mut called = false;
                for call in tool_calls(m) {
                    let Some(name) = call.get("name").and_then(Value::as_str) else {
                        continue;
                    };
                    called = true;
                    touch(&mut out.tools_used, name);
                    let args = call.get("arguments").unwrap_or(&Value::Null);
                    let list = match classify_tool(name) {
                        Access::Read => &mut out.files_read,
                        Access::Write => &mut out.files_modified,
                    };
                    for p in extract_paths(args) {
                        touch(list, &p);
                    }
                    out.last_tool_call = Some(ToolCall {
                        name: name.to_string(),
                        params_summary: match args {
                            Value::Null => None,
                            a => Some(gist(&a.to_string(), PARAMS_SUMMARY_CHARS)),
                        },
                    });
                }
                let stop = m.get("stopReason").and_then(Value::as_str);
                out.status = Some(if called {
                    Status::InProgress
                } else if matches!(stop, Some("aborted") | Some("error")) {
                    Status::Idle
                } else {
                    Status::WaitingForUser
                });
                if text.trim().is_empty() {
                    continue;
                }
                if turns.is_empty() {
                    turns.push(Turn {
                        user: None,
                        agent_chars: 0,
                        agent_last: None,
                    });
                }
                let t = turns.last_mut().expect("a turn was pushed");
                t.agent_chars += text.chars().count();
                t.agent_last = Some(text);
            }
            Some("toolResult") => out.status = Some(Status::InProgress),
            _ => {}
        }
    }

    let users: Vec<usize> = (0..turns.len())
        .filter(|&i| turns[i].user.is_some())
        .collect();
    let (Some(&first), Some(&last)) = (users.first(), users.last()) else {
        return out;
    };
    let user_text = |i: usize| turns[i].user.as_deref().unwrap_or_default();
    out.topic = Some(gist(user_text(last), TOPIC_CHARS));
    out.summary = Some(if first == last {
        gist(user_text(first), TOPIC_CHARS)
    } else {
        format!(
            "{} ... {}",
            gist(user_text(first), TOPIC_CHARS),
            gist(user_text(last), TOPIC_CHARS)
        )
    });

    // Entries are (turn, role); the agent entry of a turn sorts after its user entry.
    let mut must: Vec<(usize, Role)> = vec![(first, Role::User)];
    for &i in &users[users.len().saturating_sub(LAST_PAIRS)..] {
        must.push((i, Role::User));
        if turns[i].agent_last.is_some() {
            must.push((i, Role::Agent));
        }
    }
    // Pivots: a user message right after a long agent response, newest first.
    let pivots = users
        .iter()
        .rev()
        .copied()
        .filter(|&i| i > 0 && turns[i - 1].agent_chars > LONG_AGENT_CHARS)
        .map(|i| (i, Role::User));
    let mut chosen = must;
    chosen.sort_by_key(|&(i, r)| (i, r == Role::Agent));
    chosen.dedup();
    for p in pivots {
        if chosen.len() >= MAX_EXCHANGES {
            break;
        }
        if !chosen.contains(&p) {
            chosen.push(p);
        }
    }
    chosen.sort_by_key(|&(i, r)| (i, r == Role::Agent));
    out.key_exchanges = chosen
        .into_iter()
        .map(|(i, role)| {
            let text = match role {
                Role::User => user_text(i),
                Role::Agent => turns[i].agent_last.as_deref().unwrap_or_default(),
            };
            Exchange {
                role,
                gist: gist(text, GIST_CHARS),
            }
        })
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user(t: &str) -> Value {
        json!({"role": "user", "content": t, "timestamp": 1})
    }
    fn agent(t: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": t}], "stopReason": "stop"})
    }
    fn call(name: &str, path: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "t", "name": name, "arguments": {"path": path}}], "stopReason": "toolUse"})
    }
    fn result() -> Value {
        json!({"role": "toolResult", "toolCallId": "t", "toolName": "read", "content": [{"type": "text", "text": "file body"}]})
    }

    #[test]
    fn first_pivots_last_two_pairs_capped_at_eight() {
        let long = "x".repeat(501);
        let mut msgs = vec![user("first question"), agent(&long)];
        for i in 0..12 {
            msgs.push(user(&format!("pivot {i}")));
            msgs.push(agent(if i % 2 == 0 { &long } else { "short" }));
        }
        msgs.push(user("second to last"));
        msgs.push(agent("answer a"));
        msgs.push(user("last one"));
        msgs.push(agent("answer b"));
        let e = extract(&msgs);
        let gists: Vec<_> = e.key_exchanges.iter().map(|x| x.gist.as_str()).collect();
        assert_eq!(e.key_exchanges.len(), 8);
        assert_eq!(gists[0], "first question");
        assert_eq!(
            &gists[4..],
            ["second to last", "answer a", "last one", "answer b"]
        );
        // pivots follow a long agent response (even turns), newest kept: pivot 11 follows the
        // long reply of turn 10; "second to last" follows turn 11's short one.
        assert_eq!(&gists[1..4], ["pivot 7", "pivot 9", "pivot 11"]);
        assert_eq!(e.topic.as_deref(), Some("last one"));
        assert_eq!(e.summary.as_deref(), Some("first question ... last one"));
        assert_eq!(e.status, Some(Status::WaitingForUser));
        assert_eq!(e.key_exchanges[5].role, Role::Agent);
    }

    #[test]
    fn pivot_is_structural_and_exactly_over_500_chars() {
        let msgs = vec![
            user("q"),
            agent(&"é".repeat(500)),
            user("not a pivot"),
            agent(&"日".repeat(501)),
            user("はい"),
            agent("a"),
            user("x"),
            agent("b"),
            user("y"),
        ];
        let e = extract(&msgs);
        let gists: Vec<_> = e.key_exchanges.iter().map(|x| x.gist.as_str()).collect();
        assert_eq!(gists, ["q", "はい", "x", "b", "y"]);
        assert_eq!(e.status, Some(Status::InProgress));
    }

    #[test]
    fn gists_are_cut_on_char_boundaries_and_never_drop_the_newest() {
        let text = "😀".repeat(300);
        let e = extract(&[user(&text), agent(&"字".repeat(700))]);
        assert_eq!(e.key_exchanges.len(), 2);
        for x in &e.key_exchanges {
            assert!(x.gist.chars().count() <= GIST_CHARS);
        }
        assert_eq!(e.topic.as_ref().unwrap().chars().count(), TOPIC_CHARS);
        assert_eq!(e.summary.as_ref().unwrap().chars().count(), TOPIC_CHARS);
        assert_eq!(e.key_exchanges[1].role, Role::Agent);
    }

    #[test]
    fn tools_files_status_and_last_call() {
        let msgs = vec![
            user("fix it"),
            call("read", "src/a.rs"),
            result(),
            call("edit", "src/a.rs"),
            result(),
            call("read", "src/b.rs"),
        ];
        let e = extract(&msgs);
        assert_eq!(e.tools_used, ["edit", "read"]);
        assert_eq!(e.files_read, ["src/a.rs", "src/b.rs"]);
        assert_eq!(e.files_modified, ["src/a.rs"]);
        assert_eq!(e.status, Some(Status::InProgress));
        let lc = e.last_tool_call.unwrap();
        assert_eq!(lc.name, "read");
        assert_eq!(lc.params_summary.as_deref(), Some(r#"{"path":"src/b.rs"}"#));
        assert_eq!(extract(&[]), Extracted::default());
        // malformed entries are skipped, not fatal
        let e = extract(&[
            json!(1),
            json!({"role": 5}),
            json!({"role": "user", "content": 7}),
        ]);
        assert_eq!(e.key_exchanges, vec![]);
    }
}
