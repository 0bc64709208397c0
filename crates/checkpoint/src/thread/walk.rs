//! The messages read once (issue 51): the dialogue ([`read_dialogue`]) and, beside each of its
//! lines, what the passes take from the message's JSON (its tool calls, the result it returns, its
//! text blocks and reasoning, when it was sent, why the agent stopped). Every pass reads this; no
//! pass reads the raw messages again.

use super::*;

/// A `toolCall` block: its `id`, its tool's `name` and its `arguments` (`null` when none).
pub(super) struct Call<'m> {
    pub id: Option<&'m str>,
    pub name: Option<&'m str>,
    pub args: &'m Value,
}

/// A tool result: its visible text ([`context_state::message_text`]), what it says of a failure
/// ([`context_state::result_failure`], `None` when it succeeded), and the call it answers (the
/// tool's name and arguments) when the messages show it.
pub(super) struct Outcome<'m> {
    pub text: Cow<'m, str>,
    pub failure: Option<String>,
    pub call: Option<(&'m str, &'m Value)>,
}

/// What the passes take from one message besides its [`Line`]: its `toolCall` blocks in order,
/// the id of the call it answers (`toolCallId`), its result when it is a tool result, its text
/// blocks as OpenClaw's `extractMessageText` reads them (a string content, or its blocks' `text`,
/// each trimmed, the empty ones left out, joined by newlines), its thinking blocks joined by
/// newlines without the channel's directives, when it was sent ([`context_state::sent_at`]) and
/// why the agent stopped (`stopReason`: `stop`, `toolUse`, `aborted`, `error`).
pub(super) struct Message<'m> {
    pub calls: Vec<Call<'m>>,
    pub answers: Option<&'m str>,
    pub result: Option<Outcome<'m>>,
    pub text: Cow<'m, str>,
    pub thinking: String,
    pub sent_at: Option<u64>,
    pub stop: Option<&'m str>,
    /// Who sent a user message on a channel, as the host's metadata in its text says
    /// ([`context_state::wrappers::sender`]); `None` for the other messages.
    pub sender: Option<context_state::wrappers::Sender>,
}

/// The messages read once: one [`Line`] and one [`Message`] per message, in order.
pub(super) struct Walk<'m> {
    /// The dialogue ([`read_dialogue`]).
    pub lines: Vec<Line>,
    pub messages: Vec<Message<'m>>,
    /// The index of the user's latest request (the turn under way starts there), `None` when the
    /// messages hold none (one long turn, or its start compacted away).
    pub request: Option<usize>,
}

/// The content blocks of a message, of type `kind` (`toolCall`, `text`, `thinking`) when given.
pub(crate) fn blocks<'m>(
    m: &'m Value,
    kind: Option<&'static str>,
) -> impl Iterator<Item = &'m Value> {
    let all = m.get("content").and_then(Value::as_array).into_iter();
    all.flatten()
        .filter(move |b| kind.is_none() || b.get("type").and_then(Value::as_str) == kind)
}

/// The one of `texts`, borrowed, or `whole` of them.
fn one_or<'m>(texts: Vec<&'m str>, whole: impl FnOnce(Vec<&'m str>) -> String) -> Cow<'m, str> {
    match texts[..] {
        [one] => Cow::Borrowed(one),
        _ => Cow::Owned(whole(texts)),
    }
}

impl<'m> Walk<'m> {
    /// Reads `messages` (redacted already) once.
    pub fn new(messages: &'m [Value]) -> Self {
        let lines = read_dialogue(messages);
        // the agent's calls not answered yet, by id
        let mut open: HashMap<&str, (&str, &Value)> = HashMap::new();
        let read = |(m, line): (&'m Value, &Line)| {
            let calls: Vec<Call> = blocks(m, Some("toolCall"))
                .map(|c| Call {
                    id: c.get("id").and_then(Value::as_str),
                    name: c.get("name").and_then(Value::as_str),
                    args: c.get("arguments").unwrap_or(&Value::Null),
                })
                .collect();
            for c in calls.iter().filter(|_| matches!(line, Line::Agent { .. })) {
                if let (Some(id), Some(name)) = (c.id, c.name) {
                    open.insert(id, (name, c.args));
                }
            }
            let answers = m.get("toolCallId").and_then(Value::as_str);
            let role = m.get("role").and_then(Value::as_str);
            let texts = |kind, key| blocks(m, kind).filter_map(move |b| b.get(key)?.as_str());
            let trimmed = texts(None, "text").map(str::trim).filter(|t| !t.is_empty());
            let thinking = texts(Some("thinking"), "thinking")
                .collect::<Vec<_>>()
                .join("\n");
            let is_result = role == Some("toolResult");
            // (a result's text without OpenClaw's wrapper of fetched content: its notice, and
            // markers whose random ids are no value of the conversation's)
            let unwrapped = |t: Cow<'m, str>| match (is_result, t) {
                (true, Cow::Borrowed(b)) => context_state::wrappers::strip_external_content(b),
                // (a text joined from blocks is kept, not copied, when it has no wrapper)
                (true, Cow::Owned(o)) => {
                    match context_state::wrappers::strip_external_content(&o) {
                        Cow::Borrowed(_) => Cow::Owned(o),
                        Cow::Owned(stripped) => Cow::Owned(stripped),
                    }
                }
                (false, t) => t,
            };
            let text = unwrapped(match m.get("content") {
                Some(Value::String(s)) => Cow::Borrowed(s.trim()),
                _ => one_or(trimmed.collect(), |t| t.join("\n")),
            });
            let sender = match line {
                Line::User { .. } => context_state::wrappers::sender(&text),
                _ => None,
            };
            Message {
                result: is_result.then(|| Outcome {
                    text: unwrapped(one_or(texts(Some("text"), "text").collect(), |_| {
                        context_state::message_text(m)
                    })),
                    failure: context_state::result_failure(m),
                    call: answers.and_then(|id| open.remove(id)),
                }),
                calls,
                answers,
                text,
                // a reply drafted in the thinking carries the channel's directives too
                thinking: context_state::wrappers::strip_directive_tags(&thinking).into_owned(),
                sent_at: context_state::sent_at(m),
                stop: m.get("stopReason").and_then(Value::as_str),
                sender,
            }
        };
        Walk {
            messages: messages.iter().zip(&lines).map(read).collect(),
            request: lines
                .iter()
                .rposition(|l| matches!(l, Line::User { said, .. } if *said == Said::Request)),
            lines,
        }
    }

    /// The turn of each message: how many user messages came before it or are it (a turn starts
    /// at each message of the user's, a request, a reply or a host's prompt: a cron run, a
    /// heartbeat).
    pub fn turns(&self) -> Vec<usize> {
        let mut turn = 0;
        let next = |l: &Line| {
            turn += usize::from(matches!(l, Line::User { .. }));
            turn
        };
        self.lines.iter().map(next).collect()
    }

    /// The named tool calls of the agent's messages, with the message index.
    pub fn calls(&self) -> impl Iterator<Item = (usize, &'m str, &'m Value)> + '_ {
        let agent = |&(at, _): &(usize, _)| matches!(self.lines[at], Line::Agent { .. });
        let agents = self.messages.iter().enumerate().filter(agent);
        agents.flat_map(|(at, m)| {
            m.calls
                .iter()
                .filter_map(move |c| Some((at, c.name?, c.args)))
        })
    }

    /// The tool results, with the message index.
    pub fn results(&self) -> impl Iterator<Item = (usize, &Message<'m>, &Outcome<'m>)> {
        let all = self.messages.iter().enumerate();
        all.filter_map(|(at, m)| Some((at, m, m.result.as_ref()?)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_message_is_read_once_and_each_result_meets_its_call() {
        let msgs = vec![
            json!({"role": "user", "content": "  fix the parser  ", "timestamp": 5}),
            json!({"role": "assistant", "stopReason": "toolUse", "content": [
                {"type": "thinking", "thinking": "look first"},
                {"type": "text", "text": " Reading it. "},
                {"type": "toolCall", "id": "a", "name": "read", "arguments": {"path": "p.rs"}},
                {"type": "toolCall", "id": "b"}]}),
            json!({"role": "toolResult", "toolCallId": "a", "isError": true, "content": [
                {"type": "text", "text": ""}, {"type": "text", "text": "no such file"},
                {"type": "note", "text": " aside "}]}),
            json!({"role": "toolResult", "toolCallId": "a", "content": [{"type": "text", "text": "again"}]}),
        ];
        let walk = Walk::new(&msgs);
        assert_eq!(walk.request, Some(0));
        assert_eq!(walk.messages[0].sent_at, Some(5));
        assert_eq!(walk.messages[1].stop, Some("toolUse"));
        assert_eq!(walk.messages[1].thinking, "look first");
        assert!(matches!(
            walk.messages[1].text,
            Cow::Borrowed("Reading it.")
        ));
        // a call without a name is a block of the message, not a call of the agent's
        assert_eq!(walk.messages[1].calls.len(), 2);
        let calls: Vec<_> = walk.calls().map(|(at, name, _)| (at, name)).collect();
        assert_eq!(calls, [(1, "read")]);
        // the visible text is git's and the failure's reading, the text blocks OpenClaw's
        let results: Vec<_> = walk.results().collect();
        let (at, m, first) = results[0];
        assert_eq!(at, 2);
        assert_eq!(first.text, context_state::message_text(&msgs[2]));
        assert_eq!(m.text, "no such file\naside");
        assert_eq!(first.failure.as_deref(), Some("no such file"));
        assert_eq!(first.call.map(|(name, _)| name), Some("read"));
        // a call is answered once
        assert!(results[1].2.call.is_none());
        assert_eq!(walk.text(0), "fix the parser");
        assert_eq!(walk.text(2), "no such file\naside");
    }
}
