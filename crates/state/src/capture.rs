//! Pure extraction helpers: file paths from tool params, read vs write tools, message text, gists.

use serde_json::Value;
use std::collections::HashSet;

/// Param keys whose string value (or array of strings) is a file path.
pub const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "filePath",
    "filepath",
    "file",
    "filename",
    "fileName",
    "target_file",
    "targetFile",
    "notebook_path",
    "notebookPath",
    "old_path",
    "new_path",
    "source",
    "destination",
];

/// Param keys whose value is an array of paths (or of objects with a path key, e.g. multi-file edits).
pub const PATHS_KEYS: &[&str] = &[
    "paths",
    "file_paths",
    "filePaths",
    "files",
    "edits",
    "changes",
];

/// Words in a tool name that mark it as changing files.
const WRITE_WORDS: &[&str] = &[
    "write",
    "edit",
    "multiedit",
    "create",
    "patch",
    "apply",
    "replace",
    "delete",
    "remove",
    "rm",
    "move",
    "mv",
    "rename",
    "mkdir",
    "append",
    "insert",
    "save",
    "update",
    "modify",
    "touch",
    "copy",
    "cp",
    "overwrite",
    "put",
];

/// Longest path kept; longer strings are not paths but content that happened to sit in a `path` key.
pub const MAX_PATH_LEN: usize = 1024;

/// How a tool touches the files in its params.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// Splits a tool name into lowercase words at `_`, `-`, `.`, `:`, spaces and camelCase humps.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Read-ish unless a word of the tool name says it writes (`write`, `edit`, `create`, `patch`,
/// `delete`, `move`, ...): `read`, `view`, `grep`, `ls` and unknown tools count as reads, the
/// weaker claim.
pub fn classify_tool(tool_name: &str) -> Access {
    if words(tool_name)
        .iter()
        .any(|w| WRITE_WORDS.contains(&w.as_str()))
    {
        Access::Write
    } else {
        Access::Read
    }
}

fn push_path<'a>(out: &mut Vec<String>, seen: &mut HashSet<&'a str>, v: &'a Value) {
    if let Value::String(s) = v {
        let s = s.trim();
        if !s.is_empty() && s.len() <= MAX_PATH_LEN && !s.contains('\n') && seen.insert(s) {
            out.push(s.to_string());
        }
    }
}

/// The file paths named by a tool call's params: the string values of [`PATH_KEYS`], and the
/// strings (or objects' path keys) inside the arrays of [`PATHS_KEYS`]. Deduplicated, in order.
/// Linear in the number of paths (issue 12: a scan per path made 100,000 paths take 25 s).
pub fn extract_paths(params: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let Value::Object(map) = params else {
        return out;
    };
    for key in PATH_KEYS {
        if let Some(v) = map.get(*key) {
            push_path(&mut out, &mut seen, v);
        }
    }
    for key in PATHS_KEYS {
        if let Some(Value::Array(items)) = map.get(*key) {
            for item in items {
                match item {
                    Value::String(_) => push_path(&mut out, &mut seen, item),
                    Value::Object(inner) => {
                        for k in PATH_KEYS {
                            if let Some(v) = inner.get(*k) {
                                push_path(&mut out, &mut seen, v);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// The role of a pi message (`user`, `assistant`, `toolResult`, ...), if any.
pub fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

/// The visible text of a user or assistant message: the string content, or its `text` blocks
/// joined by newlines (thinking, tool calls and images are not what the other side reads).
pub fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let mut out = String::new();
            for b in blocks {
                if b.get("type").and_then(Value::as_str) == Some("text") {
                    if let Some(t) = b.get("text").and_then(Value::as_str) {
                        if !out.is_empty() {
                            out.push('\n');
                        }
                        out.push_str(t);
                    }
                }
            }
            out
        }
        _ => String::new(),
    }
}

/// What a tool result message (pi / OpenClaw `toolResult`) says of a failure: `None` when the
/// call succeeded, else its text ([`failure_text`] of its `isError`, its `details` and its text).
/// A message without `details` (a host's context for the model may leave them out) says a
/// command's exit code as its text's last line does (`(Command exited with code 2)`, OpenClaw's
/// exec; `Command exited with code 2`, pi's bash).
pub fn result_failure(message: &Value) -> Option<String> {
    failure_text(
        message.get("isError").and_then(Value::as_bool) == Some(true),
        message
            .get("details")
            .is_none()
            .then(|| stated_exit_code(message))
            .flatten(),
        message.get("details"),
        || message_text(message),
    )
}

/// The exit code a tool result's last text block ends by stating (`(Command exited with code
/// 2)`), read from its end only.
fn stated_exit_code(message: &Value) -> Option<i64> {
    let last = message
        .get("content")?
        .as_array()?
        .iter()
        .rev()
        .find_map(|p| p.get("text").and_then(Value::as_str))?;
    exit_code_line(last.trim_end().rsplit('\n').next()?)
}

/// The exit code a line says and nothing else: `(Command exited with code 2)` (OpenClaw's exec),
/// `Command exited with code 2` (pi's bash), `Exit code 2` (Claude Code's Bash), `exit status 2`;
/// any case, a trailing `.`.
pub fn exit_code_line(line: &str) -> Option<i64> {
    let line = line.trim().trim_end_matches('.');
    let line = line.strip_prefix('(').unwrap_or(line);
    let line = line.strip_suffix(')').unwrap_or(line);
    let lower = line.to_ascii_lowercase();
    ["command exited with code ", "exit code ", "exit status "]
        .iter()
        .find_map(|p| lower.strip_prefix(p))?
        .parse()
        .ok()
}

/// The `status` values of a failed result's `details` in OpenClaw's rule (`isToolResultError`,
/// its dist's tool-result-error-*.mjs).
const FAILED_STATUSES: &[&str] = &[
    "error",
    "failed",
    "failure",
    "timeout",
    "timed_out",
    "blocked",
    "denied",
    "forbidden",
    "unavailable",
    "approval-unavailable",
    "disabled",
    "aborted",
    "cancelled",
    "canceled",
    "killed",
    "invalid",
];

/// Whether a tool result's `details` say it failed, by OpenClaw's own rule (`isToolResultError`,
/// its dist's tool-result-error-*.mjs): `ok` or `success` false; a failure `status` (`error`,
/// `failed`, `timeout`, `denied`, …) unless `ok` or `success` is true; `timedOut`; an `error`.
/// OpenClaw's tools report what they throw so (`{status: "error", tool, error}`: unflagged in the
/// sessions of earlier releases, flagged by 2026.9.6 with that JSON as the text), and so do
/// `web_search` (`{error, message}`) and `process` (`{status: "failed"}`). A non-zero `exitCode`
/// is read by [`failure_text`].
pub fn details_failed(details: &Value) -> bool {
    let Some(d) = details.as_object() else {
        return false;
    };
    let flag = |key: &str| d.get(key).and_then(Value::as_bool);
    if flag("ok") == Some(false) || flag("success") == Some(false) {
        return true;
    }
    let succeeded = flag("ok") == Some(true) || flag("success") == Some(true);
    let status = d
        .get("status")
        .and_then(Value::as_str)
        .map(|s| s.trim().to_ascii_lowercase());
    if !succeeded && status.is_some_and(|s| FAILED_STATUSES.contains(&s.as_str())) {
        return true;
    }
    // (JavaScript's truthiness: an empty string, `false`, `0` or `null` is no error)
    let error = match d.get("error") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(_) => true,
    };
    flag("timedOut") == Some(true) || error
}

/// What failed `details` say of the failure: their `error` text, or the `message` that explains
/// an error code with the code after it (`web_search needs a Brave Search API key…
/// (missing_brave_api_key)`: not `code: message`, which reads as a key and its value).
fn details_error(details: &Value) -> Option<String> {
    let error = details.get("error").and_then(Value::as_str)?.trim();
    let message = details
        .get("message")
        .and_then(Value::as_str)
        .map(str::trim);
    match message {
        Some(m) if !m.is_empty() && !error.contains(char::is_whitespace) => {
            Some(format!("{m} ({error})"))
        }
        _ => (!error.is_empty()).then(|| error.to_string()),
    }
}

/// What a tool result says of a failure: `None` when the call succeeded, else its text. A failure
/// is a result flagged as an error, one whose `details` say it failed ([`details_failed`]), or a
/// command that exited non-zero (`exit_code`, else the `details`' `exitCode`): OpenClaw's `exec`
/// reports a completed command's exit code (`details.exitCode`) with `isError` false, and its
/// text is then followed by `Command exited with code N`, as pi's bash tool says it. The text is the `details`' error where they hold one
/// (the result's text is then the same as JSON), else the result's; it is read only for a failure
/// (a result can be megabytes, and most succeed).
pub fn failure_text(
    is_error: bool,
    exit_code: Option<i64>,
    details: Option<&Value>,
    text: impl FnOnce() -> String,
) -> Option<String> {
    // what a fetch failed on, not OpenClaw's notice around it
    let unwrapped = |t: String| match crate::wrappers::strip_external_content(&t) {
        std::borrow::Cow::Borrowed(_) => t,
        std::borrow::Cow::Owned(o) => o.trim().to_string(),
    };
    let text = || unwrapped(text());
    if is_error || details.is_some_and(details_failed) {
        return Some(details.and_then(details_error).map_or_else(text, unwrapped));
    }
    // (a JavaScript number may arrive as a float: `1.0`)
    let code = exit_code
        .or_else(|| {
            let c = details?.get("exitCode")?;
            c.as_i64()
                .or_else(|| c.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
        })
        .filter(|&c| c != 0)?;
    let text = text();
    // (the output may say so already: OpenClaw's exec writes `(Command exited with code N)`)
    Some(if text.contains(&format!("exited with code {code}")) {
        text
    } else {
        format!("{text}\nCommand exited with code {code}")
    })
}

/// When a message was sent: its `timestamp` in milliseconds since the epoch (pi, OpenClaw; a
/// JavaScript number arrives as a float), or an RFC 3339 time.
pub fn sent_at(m: &Value) -> Option<u64> {
    match m.get("timestamp")? {
        Value::Number(n) => n
            .as_f64()
            .filter(|t| t.is_finite() && *t >= 1.0)
            .map(|t| t as u64),
        Value::String(s) => context_fsio::parse_rfc3339(s),
        _ => None,
    }
}

/// Collapses whitespace runs to one space and trims.
pub fn squash(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The first `max` characters of the squashed text; when cut, the last one is `…`.
pub fn gist(text: &str, max: usize) -> String {
    let s = squash(text);
    if s.chars().count() <= max {
        return s;
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// Cuts `text` to at most `max` characters (no squashing: decisions and items keep their form).
pub fn cap_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => text[..i].to_string(),
        None => text.to_string(),
    }
}

/// A 64-bit FNV-1a fingerprint, hex: stable across processes and versions (unlike `DefaultHasher`).
pub fn fingerprint(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_are_classified_by_words() {
        for w in [
            "write",
            "edit",
            "multi_edit",
            "MultiEdit",
            "apply_patch",
            "createFile",
            "fs.delete",
            "str_replace",
            "notebook-edit",
        ] {
            assert_eq!(classify_tool(w), Access::Write, "{w}");
        }
        for r in [
            "read",
            "Read",
            "view_file",
            "grep",
            "ls",
            "bash",
            "web_search",
            "format",
            "terminal",
        ] {
            assert_eq!(classify_tool(r), Access::Read, "{r}");
        }
    }

    #[test]
    fn paths_come_from_path_like_params() {
        let p = json!({"path": " src/a.rs ", "file_path": "src/a.rs", "filePath": "b.ts",
            "paths": ["c", "", 3, "c"], "edits": [{"path": "d"}, {"text": "x"}], "content": "src/e"});
        assert_eq!(extract_paths(&p), vec!["src/a.rs", "b.ts", "c", "d"]);
        assert!(extract_paths(&json!("path")).is_empty());
        assert!(extract_paths(&json!({"path": "a\nb"})).is_empty());
        assert!(extract_paths(&json!({"path": "x".repeat(MAX_PATH_LEN + 1)})).is_empty());
    }

    #[test]
    fn gists_and_text() {
        assert_eq!(gist("  a \n b  ", 10), "a b");
        assert_eq!(gist("abcdefghijk", 5), "abcd…");
        assert_eq!(gist("日本語のテキスト", 4), "日本語…");
        assert_eq!(cap_chars("héllo", 2), "hé");
        let m = json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "x"},
            {"type": "text", "text": "one"}, {"type": "toolCall", "name": "read"}, {"type": "text", "text": "two"}]});
        assert_eq!(message_text(&m), "one\ntwo");
        assert_eq!(
            message_text(&json!({"role": "user", "content": "hi"})),
            "hi"
        );
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
    }
}
