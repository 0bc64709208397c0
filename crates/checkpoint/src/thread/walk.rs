//! The messages read once (issue 51): the dialogue ([`read_dialogue`]) and, beside each of its
//! lines, what the passes take from the message's JSON (its tool calls, the result it returns, its
//! text blocks and reasoning, when it was sent, why the agent stopped). Every pass reads this; no
//! pass reads the raw messages again.

use super::*;

/// A `toolCall` block of a message.
pub(super) struct Call<'m> {
    /// The call's `id`.
    pub id: Option<&'m str>,
    /// The tool's `name`.
    pub name: Option<&'m str>,
    /// Its `arguments` (`null` when it has none).
    pub args: &'m Value,
}

/// A tool result (a `toolResult` message).
pub(super) struct Outcome<'m> {
    /// Its visible text ([`context_state::message_text`]).
    pub text: Cow<'m, str>,
    /// What it says of a failure ([`context_state::result_failure`]); `None` when it succeeded.
    pub failure: Option<String>,
}

/// What the passes take from one message besides its [`Line`].
pub(super) struct Message<'m> {
    /// Its tool calls, in order (an agent's; any role's blocks are kept as they stand).
    pub calls: Vec<Call<'m>>,
    /// The id of the call it answers (`toolCallId`).
    pub answers: Option<&'m str>,
    /// Its result, when it is a tool result.
    pub result: Option<Outcome<'m>>,
    /// Its text blocks as OpenClaw's `extractMessageText` reads them: a string content, or its
    /// blocks' `text`, each trimmed, the empty ones left out, joined by newlines.
    pub text: Cow<'m, str>,
    /// Its thinking blocks, joined by newlines, the channel's directives removed.
    pub thinking: String,
    /// When it was sent ([`context_state::sent_at`]).
    pub sent_at: Option<u64>,
    /// Why the agent stopped (`stopReason`: `stop`, `toolUse`, `aborted`, `error`).
    pub stop: Option<&'m str>,
}

/// The messages read once: one [`Line`] and one [`Message`] per message, in order.
pub(super) struct Walk<'m> {
    /// The dialogue ([`read_dialogue`]).
    pub lines: Vec<Line>,
    /// What each message holds besides its line.
    pub messages: Vec<Message<'m>>,
}

/// The `toolCall` blocks of a message.
pub(crate) fn tool_calls(m: &Value) -> impl Iterator<Item = &Value> {
    m.get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
}

/// The texts of a message's blocks whose `key` is a string, of the blocks `keep` accepts.
fn block_texts<'m>(m: &'m Value, key: &str, keep: impl Fn(&Value) -> bool) -> Vec<&'m str> {
    let blocks = m.get("content").and_then(Value::as_array).into_iter();
    blocks
        .flatten()
        .filter(|b| keep(b))
        .filter_map(|b| b.get(key).and_then(Value::as_str))
        .collect()
}

/// The one text of `texts`, borrowed, if there is one; else `whole` of them.
fn borrowed_or<'m>(
    texts: Vec<&'m str>,
    whole: impl FnOnce(Vec<&'m str>) -> String,
) -> Cow<'m, str> {
    match texts[..] {
        [one] => Cow::Borrowed(one),
        _ => Cow::Owned(whole(texts)),
    }
}

impl<'m> Walk<'m> {
    /// Reads `messages` (redacted already) once.
    pub fn new(messages: &'m [Value]) -> Self {
        let is = |kind: &'static str| {
            move |b: &Value| b.get("type").and_then(Value::as_str) == Some(kind)
        };
        let read = |m: &'m Value| Message {
            calls: tool_calls(m)
                .map(|c| Call {
                    id: c.get("id").and_then(Value::as_str),
                    name: c.get("name").and_then(Value::as_str),
                    args: c.get("arguments").unwrap_or(&Value::Null),
                })
                .collect(),
            answers: m.get("toolCallId").and_then(Value::as_str),
            result: (m.get("role").and_then(Value::as_str) == Some("toolResult")).then(|| {
                Outcome {
                    text: borrowed_or(block_texts(m, "text", is("text")), |_| {
                        context_state::message_text(m)
                    }),
                    failure: context_state::result_failure(m),
                }
            }),
            text: match m.get("content") {
                Some(Value::String(s)) => Cow::Borrowed(s.trim()),
                _ => {
                    let mut texts = block_texts(m, "text", |_| true);
                    texts.iter_mut().for_each(|t| *t = t.trim());
                    texts.retain(|t| !t.is_empty());
                    borrowed_or(texts, |texts| texts.join("\n"))
                }
            },
            // a reply drafted in the thinking carries the channel's directives too
            thinking: context_state::wrappers::strip_directive_tags(
                &block_texts(m, "thinking", is("thinking")).join("\n"),
            )
            .into_owned(),
            sent_at: context_state::sent_at(m),
            stop: m.get("stopReason").and_then(Value::as_str),
        };
        Walk {
            lines: read_dialogue(messages),
            messages: messages.iter().map(read).collect(),
        }
    }

    /// The number of messages.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// The named tool calls of the agent's messages, with the message index.
    pub fn calls(&self) -> impl Iterator<Item = (usize, &'m str, &'m Value)> + '_ {
        let agents = self.lines.iter().zip(&self.messages).enumerate();
        agents
            .filter(|(_, (line, _))| matches!(line, Line::Agent { .. }))
            .flat_map(|(at, (_, m))| {
                m.calls
                    .iter()
                    .filter_map(move |c| Some((at, c.name?, c.args)))
            })
    }

    /// The text of message `at` as the walk read it: a user's own words (without the host's
    /// envelope) and an agent's visible text from its line, any other message's text blocks.
    pub fn text(&self, at: usize) -> &str {
        match &self.lines[at] {
            Line::User { text, .. } | Line::Agent { text, .. } => text,
            Line::Other => &self.messages[at].text,
        }
    }
}
