//! What the model's context already holds after a compaction: OpenClaw's own summary and the
//! messages it kept. A restore appended to them (default mode) need not say a name again that
//! they state; its budget goes to the names they lack.

use context_state::substance::occurs;
use serde_json::Value;

/// The text the model reads in `messages` (pi / OpenClaw agent messages): each message's text
/// ([`message_text`](context_state::message_text): a tool result's too) and its tool
/// calls' command and argument values (not their keys, not JSON-escaped: `src/auth.ts` as the
/// call wrote it), one piece per line. For an [`InContext`] of the messages a compaction kept.
pub fn messages_text(messages: &[Value]) -> String {
    let mut out: Vec<String> = Vec::new();
    for m in messages {
        out.push(context_state::message_text(m));
        for args in crate::thread::blocks(m, Some("toolCall")).filter_map(|c| c.get("arguments")) {
            out.extend(
                args.get("command")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            );
            out.extend(
                crate::thread::arg_texts(args)
                    .into_iter()
                    .map(str::to_string),
            );
        }
    }
    out.retain(|t| !t.is_empty());
    out.join("\n")
}

/// Text the model's context holds, folded to lowercase once for every lookup.
pub struct InContext {
    lower: String,
}

/// A character that continues a name: a match flanked by one is part of a longer name
/// (`id` in `pid`, `auth.ts` in `oauth.ts`), not a mention.
fn continues_name(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether the characters next to a match, nearest first, continue the name: a name character,
/// or one of `joiners` followed by one (`7f3a` in `7f3a-9c`, `touch` in `Registry.touch`, `src`
/// in `src/auth.ts`; a sentence's final `.` ends it).
fn continued(mut next: impl Iterator<Item = char>, joiners: &[char]) -> bool {
    match next.next() {
        Some(c) if continues_name(c) => true,
        Some(c) if joiners.contains(&c) => next.next().is_some_and(continues_name),
        _ => false,
    }
}

/// Joiners after a match: `src` is not said by `src/auth.ts`.
const AFTER: &[char] = &['.', '-', '/', ':'];
/// Joiners before a match: a directory before a file still says the file (`auth.ts` in
/// `src/auth.ts`).
const BEFORE: &[char] = &['.', '-', ':'];

/// A function's name without what marks it one (`load()`, `load/2` -> `load`): a context that
/// names the function says it, however it writes it.
fn bare_function(name: &str) -> &str {
    crate::names::function_name(name)
        .filter(|b| b.chars().any(char::is_alphabetic) && !b.contains(char::is_whitespace))
        .unwrap_or(name)
}

impl InContext {
    /// The context `text` (any size; it is searched, not parsed).
    pub fn new(text: &str) -> InContext {
        InContext {
            lower: text.to_lowercase(),
        }
    }

    /// Whether the context mentions `name` as a whole: case-insensitive, and not as a piece of a
    /// longer name (the characters around the match do not continue it when the name's own
    /// first or last character is a name character).
    pub fn mentions(&self, name: &str) -> bool {
        let name = bare_function(name.trim()).to_lowercase();
        let Some(first) = name.chars().next() else {
            return false;
        };
        let last = name.chars().next_back().unwrap_or(first);
        occurs(&self.lower, &name, |before, after| {
            (!continues_name(first) || !continued(before.chars().rev(), BEFORE))
                && (!continues_name(last) || !continued(after.chars(), AFTER))
        })
    }

    /// The items the context does not mention, in their order.
    pub fn unsaid(&self, items: &[String]) -> Vec<String> {
        items
            .iter()
            .filter(|x| !self.mentions(x))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_mentioned_whole_and_in_any_case() {
        let c = InContext::new("Fixed `parseConfig` in src/Auth.ts; see PR #12 and job 7f3a-9c.");
        assert!(c.mentions("parseconfig"));
        assert!(c.mentions("src/auth.ts"));
        assert!(c.mentions("auth.ts"));
        assert!(c.mentions("#12"));
        assert!(c.mentions("7f3a-9c"));
        // a piece of a longer name is not a mention
        assert!(!c.mentions("parse"));
        assert!(!c.mentions("config"));
        assert!(!c.mentions("uth.ts"));
        assert!(!c.mentions("7f3a"));
        assert!(!c.mentions("src"));
        assert!(c.mentions("job"));
        assert!(!c.mentions(""));
        assert!(!c.mentions("lexer.rs"));
        // a function however it is written: `parseConfig()`, `parseConfig/2`
        assert!(c.mentions("parseConfig()"));
        assert!(c.mentions("parseconfig/2"));
        assert!(!c.mentions("parse()"));
    }

    #[test]
    fn a_later_whole_mention_counts_after_a_partial_one() {
        let c = InContext::new("pid 4 then id 5");
        assert!(c.mentions("id"));
        let c = InContext::new("令牌文件 .env.mingox 已写入");
        assert!(c.mentions(".env.mingox"));
        assert!(c.mentions("令牌文件"));
    }

    #[test]
    fn the_text_of_kept_messages_is_what_the_model_reads() {
        let messages = vec![
            serde_json::json!({"role": "user", "content": "watch `ops/rollback.sh`"}),
            serde_json::json!({"role": "assistant", "content": [
                {"type": "text", "text": "Tailing it."},
                {"type": "thinking", "thinking": "secretPlan"},
                {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "tail -f logs/deploy.log", "env": {"MODE": "\tprod"}}}
            ]}),
            serde_json::json!({"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "started worker_pool"}]}),
            serde_json::json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c2", "name": "edit", "arguments": {"file_path": "/w/panel.ts"}}]}),
        ];
        let text = messages_text(&messages);
        let c = InContext::new(&text);
        for said in [
            "rollback.sh",
            "deploy.log",
            "worker_pool",
            "panel.ts",
            "prod",
        ] {
            assert!(c.mentions(said), "{said}");
        }
        // argument keys and reasoning are not what the model reads as the conversation
        assert!(!c.mentions("file_path"));
        assert!(!c.mentions("secretPlan"));
        assert_eq!(messages_text(&[]), "");
    }

    #[test]
    fn unsaid_keeps_the_order_of_what_is_left() {
        let c = InContext::new("the summary names a.rs and `run()`");
        let items: Vec<String> = ["b.rs", "a.rs", "run()", "c.rs"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(c.unsaid(&items), vec!["b.rs", "c.rs"]);
    }
}
