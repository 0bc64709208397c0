//! The last guard before a checkpoint is written (issue 27 part 4): every text it holds passes
//! through [`context_state::secrets::redact`] once more, whoever supplied it (the extraction, the
//! state files of an earlier version, the host's own input). An identifier that held a credential
//! is dropped: a name that is a secret names nothing.

use crate::model::Checkpoint;
use context_state::secrets::{redact, redact_owned, secret_values, REDACTED};

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
    opt(&mut w.replaced_task);
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
    for names in [&mut r.identifiers, &mut r.recent_values] {
        names.retain(|id| {
            let kept = redact(id);
            matches!(kept, std::borrow::Cow::Borrowed(_)) && !id.contains(REDACTED)
        });
    }
    opt(&mut cp.thread.summary);
    for e in &mut cp.thread.key_exchanges {
        e.gist = redact_owned(std::mem::take(&mut e.gist));
    }
    list(&mut cp.open_items);
    list(&mut cp.learnings);
}

/// Shortest credential value replaced wherever it appears once a rule recognised it.
const MIN_KNOWN_CHARS: usize = 8;

/// The credential values the rules recognise in the strings inside `v`, added to `known` (those
/// of at least [`MIN_KNOWN_CHARS`]); whether the rules found any at all.
fn collect_secrets(v: &serde_json::Value, known: &mut Vec<String>) -> bool {
    use serde_json::Value;
    match v {
        Value::String(s) => {
            let found = secret_values(s);
            for f in &found {
                if f.chars().count() >= MIN_KNOWN_CHARS && !known.iter().any(|k| k == f) {
                    known.push(f.to_string());
                }
            }
            !found.is_empty()
        }
        Value::Array(items) => items
            .iter()
            .fold(false, |any, x| collect_secrets(x, known) | any),
        Value::Object(map) => map
            .values()
            .fold(false, |any, x| collect_secrets(x, known) | any),
        _ => false,
    }
}

/// The credentials found in the messages, and those of them that are random tokens (whose pieces
/// are redacted too: [`without_fragments`]), sorted out once for all the messages.
struct Known {
    values: Vec<String>,
    tokens: Vec<String>,
}

impl Known {
    fn new(values: Vec<String>) -> Known {
        let tokens = values.iter().filter(|k| random_token(k)).cloned().collect();
        Known { values, tokens }
    }
}

/// A credential that is a random token: at least 16 letters, digits, `_-/+=`, with a digit and a
/// letter (not a code expression a rule took for a value).
fn random_token(k: &str) -> bool {
    k.len() >= 16
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/' | '+' | '='))
        && k.chars().any(|c| c.is_ascii_digit())
        && k.chars().any(|c| c.is_ascii_alphabetic())
}

/// `s` redacted, and every `known` credential in it replaced: `None` when nothing changed.
fn redact_str(s: &str, known: &Known) -> Option<String> {
    let mut out = match redact(s) {
        std::borrow::Cow::Owned(r) => Some(r),
        std::borrow::Cow::Borrowed(_) => None,
    };
    for k in &known.values {
        let cur = out.as_deref().unwrap_or(s);
        if cur.contains(k.as_str()) {
            out = Some(cur.replace(k.as_str(), REDACTED));
        }
    }
    if let Some(r) = without_fragments(out.as_deref().unwrap_or(s), &known.tokens) {
        out = Some(r);
    }
    out
}

/// Fewest characters of a piece of a known credential redacted on its own.
const FRAGMENT_CHARS: usize = 6;

/// `s` with every word that is a piece of one of the `tokens` redacted (`*"nErJUE"*`, the start
/// of a token a script checks for), `None` when there is none. Only a [`random_token`] has
/// pieces; a piece is a run of letters, digits, `_` and `-` of at least [`FRAGMENT_CHARS`] that
/// does not read as a word or a name: it has a digit and a letter, or two capitals after a small
/// letter (`rJU`; never `Password` nor `resolveApiKey`).
fn without_fragments(s: &str, tokens: &[String]) -> Option<String> {
    if tokens.is_empty() {
        return None;
    }
    let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let random = |w: &str| {
        let b = w.as_bytes();
        (b.iter().any(u8::is_ascii_digit) && b.iter().any(u8::is_ascii_alphabetic))
            || b.windows(3).any(|p| {
                p[0].is_ascii_lowercase() && p[1].is_ascii_uppercase() && p[2].is_ascii_uppercase()
            })
    };
    let mut out = String::new();
    let mut last = 0;
    let mut start: Option<usize> = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        if i < s.len() && word_char(c) {
            start.get_or_insert(i);
            continue;
        }
        let Some(b) = start.take() else { continue };
        let w = &s[b..i];
        if w.len() >= FRAGMENT_CHARS
            && random(w)
            && tokens.iter().any(|k| k.len() > w.len() && k.contains(w))
        {
            out.push_str(&s[last..b]);
            out.push_str(REDACTED);
            last = i;
        }
    }
    (last > 0).then(|| {
        out.push_str(&s[last..]);
        out
    })
}

/// The string values inside `v` redacted; `None` when none held a credential.
fn redact_value(v: &serde_json::Value, known: &Known) -> Option<serde_json::Value> {
    use serde_json::Value;
    match v {
        Value::String(s) => redact_str(s, known).map(Value::String),
        Value::Array(items) => {
            let changed: Vec<Option<Value>> =
                items.iter().map(|x| redact_value(x, known)).collect();
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
            let changed: Vec<(&String, Option<Value>)> = map
                .iter()
                .map(|(k, v)| (k, redact_value(v, known)))
                .collect();
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
/// are copied). A value a rule recognises in one message (`Gitee 令牌: <v>` from the user) is
/// redacted in every other too (the agent writing it to a file, quoting it back). Linear in the
/// size of the messages, times the few credentials found.
pub fn redact_messages(
    messages: &[serde_json::Value],
) -> std::borrow::Cow<'_, [serde_json::Value]> {
    let mut known: Vec<String> = Vec::new();
    let mut any = false;
    for m in messages {
        if let Some(content) = m.get("content") {
            any |= collect_secrets(content, &mut known);
        }
    }
    // no rule found a credential anywhere: nothing to redact (the rules ran once, not twice)
    if !any {
        return std::borrow::Cow::Borrowed(messages);
    }
    let known = Known::new(known);
    let mut out: Option<Vec<serde_json::Value>> = None;
    for (i, m) in messages.iter().enumerate() {
        let changed = m.get("content").and_then(|c| redact_value(c, &known));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_credential_recognised_once_is_redacted_everywhere() {
        let key = "Xy3/2bCEGv96OAhb6FOBYThbqh+FzKmzXoT2pt=";
        let hex = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d";
        let msgs = vec![
            json!({"role": "user", "content": format!("Gitee 令牌:{hex} edgeone toke : {key}")}),
            json!({"role": "user", "content": format!("**EdgeOne 令牌:** `{key}`")}),
            json!({"role": "assistant", "content": [
                {"type": "text", "text": format!("Saved `{hex}` to ~/.git-credentials")},
                {"type": "toolCall", "name": "write", "arguments": {"path": "TOKENS.md", "content": format!("- {key}\n- {hex}")}}
            ]}),
        ];
        let out = redact_messages(&msgs);
        let text = serde_json::to_string(&*out).unwrap();
        assert!(!text.contains(key) && !text.contains(hex), "{text}");
        assert!(
            text.contains("Saved `[redacted]` to ~/.git-credentials"),
            "{text}"
        );
        // a piece of it a script checks for is redacted too; a word that reads as one stays
        let msgs = vec![
            json!({"role": "user", "content": format!("**EdgeOne 令牌:** `{key}`")}),
            json!({"role": "assistant", "content": [
                {"type": "toolCall", "name": "write", "arguments": {"path": "check.sh", "content": "[[ \"$EDGEONE_TOKEN\" == *\"Xy3\"* || \"$T\" == *\"2bCEGv96OAhb\"* ]] && echo Password ok"}}
            ]}),
        ];
        let text = serde_json::to_string(&*redact_messages(&msgs)).unwrap();
        assert!(!text.contains("2bCEGv96OAhb"), "{text}");
        assert!(
            text.contains("Password ok") && text.contains("*\\\"Xy3\\\"*"),
            "{text}"
        );
        // a password the user typed (short, no credential's shape: read by its label) is redacted
        // where the agent types it again
        let msgs = vec![
            json!({"role": "user", "content": "这是github的账号信息：账号：ann\n密码：kaitou@2015 帮我登录clawhub"}),
            json!({"role": "assistant", "content": [
                {"type": "toolCall", "name": "exec", "arguments": {"command": "agent-browser fill @e2 \"ann\" && agent-browser fill @e3 \"kaitou@2015\""}}
            ]}),
        ];
        let text = serde_json::to_string(&*redact_messages(&msgs)).unwrap();
        assert!(!text.contains("kaitou@2015"), "{text}");
        assert!(text.contains("帮我登录clawhub"), "{text}");
        // code that passes a credential by name is no credential: the name is not redacted where
        // the session says it (a restore read `[redacted]ForModel`)
        let msgs = vec![
            json!({"role": "assistant", "content": [
                {"type": "toolCall", "name": "edit", "arguments": {"path": "main.ts", "newText": "\t\tresolveApiKey: getApiKey,\n\t});"}}
            ]}),
            json!({"role": "user", "content": "well, getApiKeyForModel is called in various places"}),
        ];
        assert!(matches!(
            redact_messages(&msgs),
            std::borrow::Cow::Borrowed(_)
        ));
        // nothing to redact: the messages are borrowed as they are
        let plain =
            vec![json!({"role": "user", "content": "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d"})];
        assert!(matches!(
            redact_messages(&plain),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
