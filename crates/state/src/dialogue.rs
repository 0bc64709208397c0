//! One walk over pi agent messages that every extraction pass reads (issue 21): user text without
//! the package's own injections and the host's wrappers ([`crate::wrappers`]), agent text, and what
//! each user message is by where it stands in the dialogue, not by its length:
//!
//! - the first user message of its own (not a slash command) is a request, however short
//!   (`Fix the bug`, `バグを直して`): it is the task;
//! - a message with content of its own ([`substance`]) is a request;
//! - a short message (under 50 characters, the decision-like length) right after the agent asked
//!   something is an answer (an acknowledgement or a decision: `minor, this is a big change`,
//!   `Postgres`), never the topic, whatever it holds;
//! - a short message elsewhere (after finished work) is a request when the agent went to work on
//!   it (called tools before the next user message) and it has more than one word; otherwise an
//!   acknowledgement (`thanks`, `continue`).
//!
//! Structure only (roles, order, tool calls, question marks of any script): no keywords.

use crate::capture::{message_text, role};
use crate::secrets::redact_owned;
use crate::substance::{is_question, paragraphs, substance, Substance};
use crate::wrappers::{strip_injections, strip_no_op_replies};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// What a user message is, by its place in the dialogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Said {
    /// Nothing of the user's own (only injections or wrappers), or a slash command.
    Noise,
    /// A short reply to the agent's question, or a short message the agent did not act on.
    Ack,
    /// A request (or a statement with content of its own).
    Request,
}

/// One message as the passes see it.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    User {
        /// The user's own text (injections and wrappers removed), not squashed.
        text: String,
        said: Said,
        /// The agent's message before it ended with a question.
        after_question: bool,
    },
    Agent {
        /// What the agent said: its text blocks, then the texts it sent the user with the
        /// [`MESSAGE_TOOL`].
        text: String,
        /// It called tools other than the [`MESSAGE_TOOL`].
        worked: bool,
    },
    /// A tool result, or any other role (kept so indices match the messages).
    Other,
}

/// OpenClaw's message tool: what the agent sends a channel with `message(action=send)` is what
/// it says to the user. In a room whose replies go through the tool (`messages.visibleReplies:
/// "message_tool"`), and whenever the agent answers that way, its own text is `NO_REPLY` or
/// nothing: the words are in the call.
pub const MESSAGE_TOOL: &str = "message";

/// The prefix Claude Code gives OpenClaw's tools under the `claude-cli` runtime (tools through
/// MCP: `mcp__openclaw__message` is the [`MESSAGE_TOOL`]).
const MCP_PREFIX: &str = "mcp__openclaw__";

/// Whether tool `name` is the [`MESSAGE_TOOL`], by its own name or through MCP.
fn is_message_tool(name: &str) -> bool {
    name.strip_prefix(MCP_PREFIX).unwrap_or(name) == MESSAGE_TOOL
}

/// The arguments of the message tool that the user reads (its text and a media's caption).
const SENT_TEXT_KEYS: [&str; 2] = ["message", "caption"];

fn tool_calls(m: &Value) -> impl Iterator<Item = &Value> {
    let blocks = m.get("content").and_then(Value::as_array).into_iter();
    blocks
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
}

/// The texts a call of tool `name` with `args` sends the user: the [`MESSAGE_TOOL`]'s text and
/// caption; nothing for another tool.
pub fn sent_by<'a>(name: &str, args: &'a Value) -> impl Iterator<Item = &'a str> {
    let keys = if is_message_tool(name) {
        &SENT_TEXT_KEYS[..]
    } else {
        &[]
    };
    keys.iter()
        .filter_map(|k| args[k].as_str())
        .filter(|t| !t.trim().is_empty())
}

/// The texts the agent sent the user in message `m` with the [`MESSAGE_TOOL`], in order.
fn sent_texts(m: &Value) -> impl Iterator<Item = &str> {
    tool_calls(m).flat_map(|c| {
        let name = c.get("name").and_then(Value::as_str).unwrap_or("");
        sent_by(name, &c["arguments"])
    })
}

/// The agent worked: it called a tool other than the [`MESSAGE_TOOL`] (sending the user a
/// message is speaking, not working).
fn worked(m: &Value) -> bool {
    tool_calls(m).any(|c| {
        !c.get("name")
            .and_then(Value::as_str)
            .is_some_and(is_message_tool)
    })
}

/// What the agent said in message `m`: its text blocks, then what it sent with the
/// [`MESSAGE_TOOL`].
fn agent_said(m: &Value) -> String {
    let mut text = message_text(m);
    for sent in sent_texts(m) {
        if !text.trim().is_empty() {
            text.push('\n');
        }
        text.push_str(sent);
    }
    text
}

/// True when the agent's text ends by asking something (its last paragraph's last line).
pub fn ends_with_question(agent_text: &str) -> bool {
    paragraphs(agent_text)
        .last()
        .and_then(|p| p.lines().last())
        .is_some_and(is_question)
}

/// More than one word, or more than 3 characters of a script written without spaces.
pub fn more_than_a_word(text: &str) -> bool {
    let s = crate::capture::squash(text);
    s.split(' ').count() >= 2 || s.chars().filter(|c| crate::substance::unspaced(*c)).count() > 3
}

/// Times a message arrives word for word before it is a schedule's rather than the user's.
pub const REPEATED_PROMPT_TIMES: usize = 3;
/// Fewest characters of such a message (`ok` or `continue` is said again and again).
pub const REPEATED_PROMPT_CHARS: usize = 40;

/// Empties the user messages that arrive [`REPEATED_PROMPT_TIMES`] times or more word for word
/// with [`REPEATED_PROMPT_CHARS`] characters or more: a heartbeat prompt the user configured,
/// which an earlier release sent without its current-time block
/// ([`crate::wrappers::ends_with_current_time`]), or a reminder, every quarter of an hour. A person
/// does not type the same long message three times; a schedule does.
fn forget_repeated_prompts(lines: &mut [Line]) {
    let mut times: HashMap<&str, usize> = HashMap::new();
    for line in lines.iter() {
        if let Line::User { text, .. } = line {
            let t = text.trim();
            if t.chars().count() >= REPEATED_PROMPT_CHARS {
                *times.entry(t).or_default() += 1;
            }
        }
    }
    let repeated: HashSet<String> = times
        .into_iter()
        .filter(|(_, n)| *n >= REPEATED_PROMPT_TIMES)
        .map(|(t, _)| t.to_string())
        .collect();
    if repeated.is_empty() {
        return;
    }
    for line in lines.iter_mut() {
        if let Line::User { text, .. } = line {
            if repeated.contains(text.trim()) {
                text.clear();
            }
        }
    }
}

/// The messages read once: one [`Line`] per message, in order.
pub fn read_dialogue(messages: &[Value]) -> Vec<Line> {
    let mut lines: Vec<Line> = messages
        .iter()
        .map(|m| match role(m) {
            // (credentials redacted where the text is captured: issue 27)
            Some("user") => Line::User {
                text: redact_owned(strip_injections(&message_text(m))),
                said: Said::Noise,
                after_question: false,
            },
            // a heartbeat acknowledgement or a silent turn (`HEARTBEAT_OK`, `NO_REPLY`) says nothing
            Some("assistant") => Line::Agent {
                text: redact_owned(strip_no_op_replies(&agent_said(m))),
                worked: worked(m),
            },
            _ => Line::Other,
        })
        .collect();
    forget_repeated_prompts(&mut lines);
    // whether the agent worked between each user message and the next one of the user's own
    let n = lines.len();
    let mut worked_after = vec![None::<bool>; n];
    let mut acc: Option<bool> = None;
    for i in (0..n).rev() {
        match &lines[i] {
            Line::User { text, .. } => {
                worked_after[i] = acc;
                if substance(text) != Substance::Noise {
                    acc = None;
                }
            }
            Line::Agent { worked, .. } => acc = Some(acc.unwrap_or(false) || *worked),
            Line::Other => {}
        }
    }
    let mut first = true;
    let mut last_agent_asked = false;
    for (i, line) in lines.iter_mut().enumerate() {
        match line {
            Line::Agent { text, .. } => {
                if !text.trim().is_empty() {
                    last_agent_asked = ends_with_question(text);
                }
            }
            Line::User {
                text,
                said,
                after_question,
            } => {
                let kind = substance(text);
                *after_question = last_agent_asked;
                *said = match kind {
                    Substance::Noise => Said::Noise,
                    _ if first => Said::Request,
                    // a short reply to a question answers it (a decision), whatever it holds
                    _ if last_agent_asked
                        && crate::capture::squash(text).chars().count()
                            < crate::DECISION_USER_MAX_CHARS =>
                    {
                        Said::Ack
                    }
                    Substance::Content => Said::Request,
                    Substance::Ack if last_agent_asked => Said::Ack,
                    Substance::Ack => {
                        if worked_after[i] == Some(true) && more_than_a_word(text) {
                            Said::Request
                        } else {
                            Said::Ack
                        }
                    }
                };
                if *said != Said::Noise {
                    first = false;
                    last_agent_asked = false;
                }
            }
            Line::Other => {}
        }
    }
    lines
}

/// The user's requests in `messages`, in order: each the user's own words ([`read_dialogue`]:
/// this package's injections and the host's text removed, credentials redacted), of the messages
/// read as a [`Said::Request`] (no slash command, no short answer or acknowledgement). What a
/// checkpoint's task is chosen from; measures compare a restore with these, not with raw messages.
pub fn user_requests(messages: &[Value]) -> Vec<String> {
    read_dialogue(messages)
        .into_iter()
        .filter_map(|l| match l {
            Line::User {
                text,
                said: Said::Request,
                ..
            } => Some(text.trim().to_string()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user(t: &str) -> Value {
        json!({"role": "user", "content": t})
    }
    fn agent(t: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "text", "text": t}]})
    }
    fn work() -> Value {
        json!({"role": "assistant", "content": [{"type": "toolCall", "name": "bash", "arguments": {"command": "ls"}}]})
    }
    fn saids(msgs: &[Value]) -> Vec<Said> {
        read_dialogue(msgs)
            .into_iter()
            .filter_map(|l| match l {
                Line::User { said, .. } => Some(said),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn position_not_length_decides() {
        use Said::*;
        // a short first request, in several scripts, is a request
        for first in [
            "Fix the bug",
            "bump version",
            "バグを直して",
            "修复错误",
            "Deploy to prod",
        ] {
            assert_eq!(saids(&[user(first), work()]), [Request], "{first}");
        }
        // after a question a short reply is an answer; after finished work a short request the
        // agent acts on is a request, a one-word nudge or thanks is not
        let msgs = [
            user("refactor the storage layer"),
            agent("Plan: move it to SQLite.\n\nShall I proceed?"),
            user("yes"),
            work(),
            agent("Done, all tests pass."),
            user("bump version"),
            work(),
            agent("Bumped."),
            user("thanks"),
            agent("You're welcome. Patch or minor release?"),
            user("minor, this is a big change"),
            work(),
            agent("Released."),
            user("thanks"),
            agent("You're welcome."),
            user("continue"),
            work(),
        ];
        assert_eq!(saids(&msgs), [Request, Ack, Request, Ack, Ack, Ack, Ack]);
        // the package's own injection is nothing of the user's
        let restore =
            "[Post-compaction checkpoint restore]\n<checkpoint-data>\nTask: x\n</checkpoint-data>";
        assert_eq!(
            saids(&[user(restore), user("デプロイして"), work()]),
            [Noise, Request]
        );
        assert_eq!(saids(&[user("/compact"), user("ok")]), [Noise, Request]);
    }

    #[test]
    fn heartbeat_turns_are_no_user_turns() {
        use Said::*;
        let hb = "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK.";
        let env = |t: &str| {
            format!("Conversation info (untrusted metadata):\n```json\n{{\"sender\": \"Ann\"}}\n```\n\n[Telegram Ann +2m 2026-01-05 10:00 UTC] Ann: {t}")
        };
        let msgs = [
            user(hb),
            agent("HEARTBEAT_OK"),
            user(&env("réserve un vol pour Lisbonne le 12 mai")),
            work(),
            agent("Which airline do you prefer?"),
            user(hb),
            agent("NO_REPLY"),
            user(&env("TAP")),
            work(),
        ];
        assert_eq!(saids(&msgs), [Noise, Request, Noise, Ack]);
        let lines = read_dialogue(&msgs);
        assert!(matches!(&lines[1], Line::Agent { text, .. } if text.is_empty()));
        assert!(
            matches!(&lines[2], Line::User { text, .. } if text == "réserve un vol pour Lisbonne le 12 mai")
        );
        // the answer after the heartbeat still answers the agent's question
        assert!(matches!(
            &lines[7],
            Line::User {
                after_question: true,
                ..
            }
        ));
    }

    #[test]
    fn user_requests_are_the_users_own_words_of_requests() {
        let msgs = [
            user("/model sonnet"),
            user("Fix the login bug in `src/auth.ts` please"),
            work(),
            agent("Done. Anything else?"),
            user("yes"),
            user("<system-reminder>ignore</system-reminder>"),
        ];
        assert_eq!(
            user_requests(&msgs),
            vec!["Fix the login bug in `src/auth.ts` please".to_string()]
        );
        assert!(user_requests(&[]).is_empty());
    }

    #[test]
    fn a_long_message_that_arrives_three_times_word_for_word_is_a_schedules() {
        let hb = "If you are doing something now, reply with your progress. Otherwise read HEARTBEAT.md file, follow it strictly.";
        let mut msgs = vec![user(
            "draft the launch post for Friday, 200 words, friendly tone",
        )];
        for _ in 0..3 {
            msgs.push(user(hb));
            msgs.push(agent("Still drafting."));
        }
        // a short message said again and again (`continue`) is the user's
        msgs.push(user("continue"));
        msgs.push(user("continue"));
        msgs.push(user("continue"));
        let lines = read_dialogue(&msgs);
        let texts: Vec<&str> = lines
            .iter()
            .filter_map(|l| match l {
                Line::User { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            texts[0],
            "draft the launch post for Friday, 200 words, friendly tone"
        );
        assert!(texts[1..4].iter().all(|t| t.is_empty()), "{texts:?}");
        assert_eq!(&texts[4..], ["continue"; 3]);
        // twice is not a schedule
        let twice = read_dialogue(&msgs[..5]);
        assert!(matches!(&twice[1], Line::User { text, .. } if text == hb));
    }

    #[test]
    fn what_the_agent_sends_with_the_message_tool_is_what_it_said() {
        use Said::*;
        let send = |t: &str| {
            json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": "m1", "name": "message", "arguments": {"action": "send", "channel": "telegram", "to": "723773246", "message": t}}
            ]})
        };
        let said = "Sponsor follow-up: DeMarcus and David have not replied since the Jan 14 emails. Shall I send the reminder today?";
        let msgs = [
            user("check the sponsor replies every morning"),
            work(),
            send(said),
            agent("NO_REPLY"),
            user("yes, today"),
            // a caption is read too; a call of another tool with a `message` is not a send
            json!({"role": "assistant", "content": [
                {"type": "toolCall", "name": "message", "arguments": {"action": "send", "media": "/tmp/chart.png", "caption": "The replies so far."}},
                {"type": "toolCall", "name": "sessions_send", "arguments": {"message": "internal note"}}
            ]}),
        ];
        let lines = read_dialogue(&msgs);
        // the send is the agent's text, and speaking is not working
        assert!(
            matches!(&lines[2], Line::Agent { text, worked: false } if text == said),
            "{:?}",
            lines[2]
        );
        // so the user's short reply answers the question the agent sent
        assert_eq!(saids(&msgs), [Request, Ack]);
        assert!(matches!(
            &lines[4],
            Line::User {
                after_question: true,
                ..
            }
        ));
        assert!(
            matches!(&lines[5], Line::Agent { text, worked: true } if text == "The replies so far."),
            "{:?}",
            lines[5]
        );
        // under the claude-cli runtime the tool comes through MCP, by another name
        let mcp = json!({"role": "assistant", "content": [
            {"type": "toolCall", "name": "mcp__openclaw__message", "arguments": {"action": "send", "message": "Deployed to staging."}}
        ]});
        let lines = read_dialogue(&[user("deploy it"), mcp]);
        assert!(
            matches!(&lines[1], Line::Agent { text, worked: false } if text == "Deployed to staging."),
            "{:?}",
            lines[1]
        );
        // a message with text and a send says both, in that order
        let both = json!({"role": "assistant", "content": [
            {"type": "text", "text": "Sending the digest."},
            {"type": "toolCall", "name": "message", "arguments": {"action": "send", "message": "Digest: 3 overdue."}}
        ]});
        let lines = read_dialogue(&[user("digest please"), both]);
        assert!(
            matches!(&lines[1], Line::Agent { text, .. } if text == "Sending the digest.\nDigest: 3 overdue."),
            "{:?}",
            lines[1]
        );
    }
}
