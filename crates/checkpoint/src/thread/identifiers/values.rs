//! Exact values (URLs, ports, ids, hashes, versions), the ids tool results return, the files they
//! name, and the texts of a tool call's arguments.

use super::*;

/// Longest exact value kept (a longer URL is mostly its query).
pub(in crate::thread) const EXACT_VALUE_CHARS: usize = 80;
/// Weight of an exact value each time it is written.
pub(in crate::thread) const EXACT_VALUE_WEIGHT: f64 = 0.5;

/// The literal values of a text a continuation needs as they are, each once, in order: URLs,
/// addresses with a port (`localhost:3000`, `10.0.0.5:8080`), UUIDs, commit hashes (7 to 40
/// hex digits with a digit and a letter), package versions (`react@18.2.0`) and release
/// versions ([`is_version`]: `4.6.2`, `v4.9.0`). OpenClaw's own
/// compaction summary keeps them in its `## Exact identifiers` section.
pub fn exact_values(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let delimiter = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '`' | '<' | '>' | '(' | ')' | '[' | ']' | '{' | '}' | ',' | ';' | '|'
            )
    };
    for raw in text.split(delimiter) {
        // (a JSON escape's backslash before the quote is not the value's: `…/a.png\"`, nor is
        // full-width punctuation after it: `https://discord.gg/clawd（活発）`)
        let raw = raw
            .find(crate::names::wide_punctuation)
            .map_or(raw, |i| &raw[..i]);
        let t = raw.trim_end_matches(['.', ':', '!', '?', '*', '\\']);
        if out.contains(&t) {
            continue;
        }
        if is_version(t) {
            out.push(t);
            continue;
        }
        if t.len() < 7 {
            continue;
        }
        if t.chars().count() <= EXACT_VALUE_CHARS && is_exact_value(t) {
            out.push(t);
        }
        // the ids a URL or a path holds (`/skills/<uuid>/download?ref=<uuid>`): what the agent
        // uses again, and what a long value, or one cut to its shown length, would lose
        if t.contains(['/', '=']) {
            for piece in t.split(['/', '?', '&', '=', '#']) {
                if piece.len() >= 7 && piece != t && !out.contains(&piece) && is_id_value(piece) {
                    out.push(piece);
                }
            }
        }
    }
    out
}

/// A release's version as people write it: three numbers joined by dots, `4.6.2`, `v4.9.0`,
/// `2026.4.8` (a version in two parts, `v1.2`, is too often a section or a decimal).
pub(in crate::thread) fn is_version(t: &str) -> bool {
    let t = t.strip_prefix('v').unwrap_or(t);
    let parts: Vec<&str> = t.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| (1..=4).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit()))
}

/// A UUID or a commit hash (see [`is_exact_value`]).
pub(in crate::thread) fn is_id_value(t: &str) -> bool {
    !t.contains([':', '@', '/']) && !t.starts_with("http") && is_exact_value(t)
}

/// The shape of a git commit hash: 7 to 40 lower-case hex digits (where git prints one, any such
/// run is one; in free text [`is_exact_value`] also asks for a digit and a letter).
pub(in crate::thread) fn is_commit_hash(t: &str) -> bool {
    (7..=40).contains(&t.len())
        && t.chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

pub(in crate::thread) fn is_exact_value(t: &str) -> bool {
    let hex = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit());
    if let Some(rest) = t
        .strip_prefix("https://")
        .or_else(|| t.strip_prefix("http://"))
    {
        return rest.contains(|c: char| c.is_ascii_alphanumeric());
    }
    // a UUID: 8-4-4-4-12 hex digits
    let parts: Vec<&str> = t.split('-').collect();
    if parts.len() == 5
        && parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts.iter().all(|p| hex(p))
    {
        return true;
    }
    // a commit hash: lower-case hex with a digit and a letter
    if is_commit_hash(t)
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars().any(|c| c.is_ascii_alphabetic())
    {
        return true;
    }
    // an address with a port: a host name or IPv4 address, a colon, digits
    if let Some((host, port)) = t.rsplit_once(':') {
        let ipv4 = host.split('.').count() == 4
            && host
                .split('.')
                .all(|o| !o.is_empty() && o.len() <= 3 && o.chars().all(|c| c.is_ascii_digit()));
        let named = host == "localhost" || host.ends_with(".local") || host.ends_with(".internal");
        if (ipv4 || named)
            && (2..=5).contains(&port.len())
            && port.chars().all(|c| c.is_ascii_digit())
        {
            return true;
        }
    }
    // a package at a version: `name@1.2.3`, `@scope/name@1.2.3`
    if let Some((name, version)) = t.rsplit_once('@') {
        let bare = name.strip_prefix('@').unwrap_or(name);
        let numbered = version.split('.').count() >= 2
            && version.split('.').all(|p| !p.is_empty())
            && version.starts_with(|c: char| c.is_ascii_digit());
        return bare.len() >= 2 && !bare.contains('@') && numbered;
    }
    is_opaque_id(t)
}

/// An id a service hands out, its kind in a short prefix before an underscore and a random body
/// after it: `PRRT_kwDORICdSM5u-f_t` (a GitHub review thread), `cus_NffrFeUfNV2Hib`,
/// `ou_f70eb837…`, `asst_abc123…`. The body has digits and letters, in mixed case or with at
/// least four digits: never a snake_case name (`total_reward`, `e2e_test_1`). A credential of
/// that shape is redacted before the names are read ([`crate::redact`]).
pub(in crate::thread) fn is_opaque_id(t: &str) -> bool {
    let Some((prefix, body)) = t.split_once('_') else {
        return false;
    };
    let b = body.as_bytes();
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let mixed = b.iter().any(u8::is_ascii_lowercase) && b.iter().any(u8::is_ascii_uppercase);
    (1..=8).contains(&prefix.len())
        && prefix.bytes().all(|c| c.is_ascii_alphabetic())
        && (8..=64).contains(&body.len())
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
        && b.iter().any(u8::is_ascii_alphabetic)
        && ((mixed && digits >= 1) || digits >= 4)
}

/// Fewest hex digits of an id the agent abbreviates ([`abbreviated_ids`]).
pub(in crate::thread) const ABBREVIATED_ID_DIGITS: usize = 6;

/// The ids the agent's text names by their first digits and an ellipsis (`ID: b1918bcf...`,
/// `31f9c941…`, as agents shorten UUIDs and hashes in a table or a report), each as the one full
/// id (a UUID or a commit hash, [`is_exact_value`]) the conversation states that starts with
/// them: (the index of the message that abbreviates it, the prefix, the full id). A prefix two
/// ids share names neither.
pub(in crate::thread) fn abbreviated_ids(walk: &Walk) -> Vec<(usize, String, String)> {
    let mut prefixes: Vec<(usize, &str)> = Vec::new();
    for (at, line) in walk.lines.iter().enumerate() {
        let Line::Agent { text, .. } = line else {
            continue;
        };
        for (i, _) in text.match_indices(['.', '…']) {
            let before = &text[..i];
            let digits = before
                .bytes()
                .rev()
                .take_while(u8::is_ascii_hexdigit)
                .count();
            let start = i - digits;
            let bounded = !before[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '-');
            let ellipsis = text[i..].starts_with("...") || text[i..].starts_with('…');
            let prefix = &before[start..];
            if ellipsis
                && bounded
                && digits >= ABBREVIATED_ID_DIGITS
                && prefix.bytes().any(|b| b.is_ascii_digit())
            {
                prefixes.push((at, prefix));
            }
        }
    }
    if prefixes.is_empty() {
        return Vec::new();
    }
    // the full ids each prefix starts (only those: the conversation's other ids are not kept)
    let mut matching: Vec<HashSet<String>> = vec![HashSet::new(); prefixes.len()];
    for at in 0..walk.lines.len() {
        let text = walk.text(at);
        for v in exact_values(text).into_iter().filter(|v| is_id_value(v)) {
            for (ids, (_, prefix)) in matching.iter_mut().zip(&prefixes) {
                if v.len() > prefix.len() && v.starts_with(prefix) {
                    ids.insert(v.to_string());
                }
            }
        }
    }
    prefixes
        .into_iter()
        .zip(matching)
        .filter(|(_, ids)| ids.len() == 1)
        .filter_map(|((at, prefix), ids)| Some((at, prefix.to_string(), ids.into_iter().next()?)))
        .collect()
}

/// Weight of an id a short tool result returns (a fifth of a value the agent wrote).
pub(in crate::thread) const RETURNED_ID_WEIGHT: f64 = EXACT_VALUE_WEIGHT / 5.0;
/// Longest tool result whose ids are read ([`returned_ids`]).
pub(in crate::thread) const RETURNED_ID_CHARS: usize = 2000;

/// Fields that hold a tool call's or a turn's id: the host's and the provider's plumbing (a parked
/// result's `metadata.toolCallId`, a Claude `tool_use_id`, an OpenAI `call_id`, the `turnId` of
/// an entry the scratchpad tools list).
pub(in crate::thread) const TOOL_CALL_ID_KEYS: &[&str] = &[
    "toolCallId",
    "tool_call_id",
    "toolUseId",
    "tool_use_id",
    "callId",
    "call_id",
    "turnId",
    "turn_id",
];

/// The ids a tool result states: UUIDs and commit hashes ([`exact_values`]), and the value of a
/// field named like an id (`"messageId": "1473212038577782817"`, `runId: 1b18…`, `"id": 42017`)
/// when it has at least 6 characters with a digit. Each once, in order.
pub(in crate::thread) fn returned_ids(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = exact_values(text)
        .into_iter()
        .filter(|v| is_id_value(v))
        .collect();
    let mut plumbing: Vec<&str> = Vec::new();
    for (i, _) in text.match_indices(':') {
        let key = text[..i].trim_end().trim_end_matches('"');
        let name = key
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        // (and a session's key, as OpenClaw's `sessions_spawn` returns its child's: the handle its
        // `sessions_send` and `sessions_history` take; never another `*Key`, which may be a secret)
        let idish = name == "id"
            || name.ends_with("Id")
            || name.ends_with("_id")
            || name.ends_with("ID")
            || name == "sessionKey"
            || name.ends_with("SessionKey")
            || name.ends_with("session_key");
        if !idish {
            continue;
        }
        let rest = text[i + 1..].trim_start().trim_start_matches('"');
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')))
            .unwrap_or(rest.len());
        let v = rest[..end].trim_end_matches(['.', ':']);
        // a tool call's own id (`"toolCallId": "call_2_0"`, `tool_use_id`) is the host's plumbing,
        // not a value of the work
        if TOOL_CALL_ID_KEYS.contains(&name) {
            plumbing.push(v);
            continue;
        }
        if v.len() >= 6
            && v.len() <= EXACT_VALUE_CHARS
            && v.chars().any(|c| c.is_ascii_digit())
            && !out.contains(&v)
        {
            out.push(v);
        }
    }
    out.retain(|v| !plumbing.contains(v));
    out
}

/// The file name a path ends with, without a `:line` after it.
pub(in crate::thread) fn file_name_of(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split(':').next().unwrap_or(name)
}

/// The file of a place in it, `path:line` or `path:line:column` (`src/db.js:135` ->
/// `src/db.js`): a path with a directory, or a file name with one dot (`encrypt.ts:55`; not a
/// host's port, `bill.tail8b4599.ts.net:8737`, nor a URL's).
pub(in crate::thread) fn file_of_place(name: &str) -> Option<&str> {
    let number = |s: &str| !s.is_empty() && s.len() <= 6 && s.chars().all(|c| c.is_ascii_digit());
    let (mut file, last) = name.rsplit_once(':')?;
    if !number(last) {
        return None;
    }
    // (a column after the line)
    if let Some((f, line)) = file.rsplit_once(':') {
        if !number(line) {
            return None;
        }
        file = f;
    }
    let base = file.rsplit('/').next().unwrap_or(file);
    let has_ext = base.rsplit_once('.').is_some_and(|(n, e)| {
        !n.is_empty()
            && (1..=8).contains(&e.len())
            && e.starts_with(|c: char| c.is_ascii_alphabetic())
            && e.chars().all(|c| c.is_ascii_alphanumeric())
    });
    let one_dot = base.trim_start_matches('.').matches('.').count() == 1;
    (has_ext && !file.contains(':') && (file.contains('/') || one_dot)).then_some(file)
}

/// A file path as a tool result prints one (`apps/web/src/auth.ts`, `.github/workflows/ci.yml`):
/// directories without a dot inside their names, a last name with a short extension. Not
/// `JSON.stringify/JSON.parse`, `keygen.ts/sign.ts`.
pub(in crate::thread) fn is_result_file(t: &str) -> bool {
    let mut parts: Vec<&str> = t.split('/').filter(|p| !p.is_empty()).collect();
    let Some(last) = parts.pop() else {
        return false;
    };
    let ext_ok = last.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
    });
    t.contains('/')
        && ext_ok
        && parts
            .iter()
            .all(|p| *p == "." || *p == ".." || !p.trim_start_matches('.').contains('.'))
}

/// Deepest nesting of a tool call's arguments read for their texts.
pub(in crate::thread) const ARG_DEPTH: usize = 4;

/// The string values of a tool call's arguments, nested objects and arrays included (to
/// [`ARG_DEPTH`]), except `command` (read with the messages).
pub(crate) fn arg_texts(args: &Value) -> Vec<&str> {
    fn walk<'a>(v: &'a Value, key: Option<&str>, depth: usize, out: &mut Vec<&'a str>) {
        match v {
            Value::String(s) if key != Some("command") => out.push(s),
            Value::Array(items) if depth < ARG_DEPTH => {
                for item in items {
                    walk(item, key, depth + 1, out);
                }
            }
            Value::Object(map) if depth < ARG_DEPTH => {
                for (k, item) in map {
                    walk(item, Some(k), depth + 1, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(args, None, 0, &mut out);
    out
}
