//! Exact values of the latest messages: the URLs, absolute paths, `host:port`s, decimal numbers and
//! ids (a run of 8 hex digits or 6 digits) the last [`RECENT_MESSAGES`] messages' text blocks hold,
//! the first [`MAX_RECENT_VALUES`] of them. OpenClaw 2026.9.6's compaction safeguard requires the
//! same values, read the same way (`extractOpaqueIdentifiers` over the last 10 messages), in a
//! summary's `## Exact identifiers` for its quality audit to pass; they also are what the agent was
//! handling when the compaction came. A value that looks like a credential is never taken.

use super::*;

/// Messages at the end of the compacted ones read (OpenClaw's `oracleMessages.slice(-10)`).
pub const RECENT_MESSAGES: usize = 10;
/// Most values taken (OpenClaw's `MAX_EXTRACTED_IDENTIFIERS`).
pub const MAX_RECENT_VALUES: usize = 12;
/// Shortest value (OpenClaw's `value.length >= 4`).
const MIN_CHARS: usize = 4;
/// Longest value kept (a longer one is output, not a name).
const MAX_CHARS: usize = 200;

/// OpenClaw's `sanitizeExtractedIdentifier`: opening marks off the start, closing marks and
/// sentence punctuation off the end.
fn sanitize(v: &str) -> &str {
    v.trim()
        .trim_start_matches(['(', '"', '\'', '`', '[', '{', '<'])
        .trim_end_matches([
            ')', ']', '"', '\'', '`', ',', ';', ':', '.', '!', '?', '<', '>',
        ])
}

fn is_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// A run of 8 hex digits or of 6 digits.
fn has_id_run(w: &str) -> bool {
    let (mut hex, mut dig) = (0, 0);
    for c in w.chars() {
        hex = if c.is_ascii_hexdigit() { hex + 1 } else { 0 };
        dig = if c.is_ascii_digit() { dig + 1 } else { 0 };
        if hex >= 8 || dig >= 6 {
            return true;
        }
    }
    false
}

/// A credential, not an id: a known token prefix, or a long string mixing upper case, lower case
/// and digits (an API key). Hashes (hex), UUIDs and numbers are ids.
pub fn looks_secret(w: &str) -> bool {
    const PREFIXES: [&str; 8] = [
        "sk-",
        "sk_",
        "ghp_",
        "gho_",
        "github_pat_",
        "xox",
        "AKIA",
        "AIza",
    ];
    if PREFIXES.iter().any(|p| w.starts_with(p)) {
        return true;
    }
    let upper = w.chars().any(|c| c.is_ascii_uppercase());
    let lower = w.chars().any(|c| c.is_ascii_lowercase());
    let digit = w.chars().any(|c| c.is_ascii_digit());
    w.len() >= 20 && upper && lower && digit
}

/// The exact values of one word (whitespace-separated), as OpenClaw's pattern finds them.
fn values_in(word: &str, out: &mut Vec<String>) {
    if let Some(i) = word.find("https://").or_else(|| word.find("http://")) {
        // a URL ends at a character no URL holds: the escaped quote and markup after it in a
        // tool result's JSON (`…/dark.png\"><source`), full-width punctuation after it in CJK
        // prose (`https://discord.gg/clawd（活発）`) are not part of it; nor is the parenthesis
        // that closes a markdown link around it (`[post](https://x.com/a/status/1)[next](…)`),
        // one it opened itself is (`https://en.wikipedia.org/wiki/Rust_(language)_book`); nor the
        // bracket that closes a link's text (`[https://x.site/skill.md](https://x.site/skill.md)`),
        // one it opened is (`http://[::1]:8080/`)
        let url = &word[i..];
        // (how deep the URL's own parentheses and brackets are open)
        let mut depth = [0usize; 2];
        let end = url
            .find(|c: char| {
                for (k, (open, close)) in [('(', ')'), ('[', ']')].into_iter().enumerate() {
                    if c == open {
                        depth[k] += 1;
                        return false;
                    }
                    if c == close {
                        if depth[k] == 0 {
                            return true;
                        }
                        depth[k] -= 1;
                        return false;
                    }
                }
                matches!(c, '\\' | '"' | '<' | '>' | '`') || crate::names::wide_punctuation(c)
            })
            .unwrap_or(url.len());
        out.push(sanitize(&url[..end]).to_string());
        return;
    }
    // a value ends where a code span, emphasis or full-width punctuation starts (`/api/x`)：**…**`)
    let w = sanitize(crate::names::cut_at_markup(word));
    let segments = w.split('/').filter(|s| !s.is_empty()).count();
    if w.starts_with('/') && segments >= 2 && w.split('/').nth(1).is_some_and(|s| s.len() >= 2) {
        // (not a shell expression cut at a space: `/tmp/shot-$(date +%s).png`)
        if !crate::thread::identifiers::source_fragment(w) {
            out.push(w.to_string());
        }
        return;
    }
    // host.tld:port
    if let Some((host, port)) = w.rsplit_once(':') {
        if host.contains('.')
            && !host.starts_with('.')
            && host.chars().all(|c| is_id_char(c) || c == '.' || c == '/')
            && (1..=5).contains(&port.len())
            && port.chars().all(|c| c.is_ascii_digit())
        {
            out.push(w.to_string());
            return;
        }
    }
    // decimal numbers (`10.99`, `2026.9`) and ids (runs of hex or digits) inside the word
    let mut rest = w;
    while !rest.is_empty() {
        let start = rest.find(|c: char| is_id_char(c)).unwrap_or(rest.len());
        rest = &rest[start..];
        let end = rest.find(|c: char| !is_id_char(c)).unwrap_or(rest.len());
        let piece = &rest[..end];
        let after = &rest[end..];
        // a number with a point: digits '.' digits, whole however many parts it has (a version
        // `4.6.2`, an address `127.0.0.1`: not `4.6` and `127.0`), but not the seconds of a clock
        // time (`05:07:39.024` in a log line: when, not what)
        if piece.chars().all(|c| c.is_ascii_digit()) && after.starts_with('.') {
            let dotted = dotted_len(after);
            if dotted > 0 {
                let n = &rest[..end + dotted];
                if !clock_seconds(w, rest) {
                    out.push(n.to_string());
                }
                rest = &rest[end + dotted..];
                continue;
            }
        }
        if has_id_run(piece) {
            out.push(piece.to_string());
        }
        rest = after;
    }
}

/// Bytes of the `.digits` parts at the start of `after` (`.0.0.1` of `127.0.0.1`), 0 when none.
fn dotted_len(after: &str) -> usize {
    let mut len = 0;
    let b = after.as_bytes();
    while b.get(len) == Some(&b'.') {
        let digits = b[len + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 {
            break;
        }
        len += 1 + digits;
    }
    len
}

/// Whether the number at `rest` (a suffix of `word`) follows `HH:MM:`: the seconds of a clock
/// time.
fn clock_seconds(word: &str, rest: &str) -> bool {
    let head = &word.as_bytes()[..word.len() - rest.len()];
    head.len() >= 5
        && head.ends_with(b":")
        && head[head.len() - 3..head.len() - 1]
            .iter()
            .all(u8::is_ascii_digit)
        && head[head.len() - 4] == b':'
}

/// The ids of the tool calls in the messages (`toolCall` blocks' `id`, results' `toolCallId`): a
/// call's id names an exchange that is gone after the compaction, nothing the agent uses again.
fn call_ids<'m>(walk: &Walk<'m>) -> HashSet<&'m str> {
    let ids = walk.messages.iter().flat_map(|m| {
        let calls = m.calls.iter().filter_map(|c| c.id);
        m.answers.into_iter().chain(calls)
    });
    ids.collect()
}

/// A value without a trailing `:line` / `:line:col` (the key values are compared by): the frames
/// of a pasted stack trace (`http://localhost:3000/chunk.js:30815:13`, `...:31375:23`,
/// `chunk.js:2338`, `chunk.js:2322`) are one value.
fn place_free(v: &str) -> &str {
    let mut t = v;
    for _ in 0..2 {
        match t.rsplit_once(':') {
            Some((head, n))
                if !n.is_empty()
                    && n.chars().all(|c| c.is_ascii_digit())
                    && head.contains(['/', '.'])
                    && !head.ends_with(['/', '.']) =>
            {
                t = head
            }
            _ => break,
        }
    }
    t
}

/// The exact values of the last [`RECENT_MESSAGES`] messages, first found first, each once, at
/// most [`MAX_RECENT_VALUES`]. A user's message is read as the walk read it ([`Walk::text`]):
/// their own words, not the host's envelope around them (a channel's message and sender ids in
/// its metadata block, `System:` event lines), which is never an identifier (issue 27).
pub(super) fn recent_values(walk: &Walk) -> Vec<String> {
    let mut found = Vec::new();
    for at in walk.lines.len().saturating_sub(RECENT_MESSAGES)..walk.lines.len() {
        for word in walk.text(at).split_whitespace() {
            values_in(word, &mut found);
        }
    }
    let calls = call_ids(walk);
    let mut seen = HashSet::new();
    found
        .into_iter()
        .filter(|v| {
            let n = v.chars().count();
            (MIN_CHARS..=MAX_CHARS).contains(&n) && !looks_secret(v) && !calls.contains(v.as_str())
        })
        .filter(|v| seen.insert(place_free(v).to_uppercase()))
        .take(MAX_RECENT_VALUES)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_url_in_escaped_markup_ends_where_the_markup_starts() {
        let msgs = vec![
            json!({"role": "toolResult", "content": [{"type": "text", "text":
            "{\"body\": \"<img src=\\\"https://cursor.com/assets/fix-dark.png\\\"><source> see https://x.dev/a<b> https://discord.gg/clawd（活発）\"}"}]}),
        ];
        assert_eq!(
            recent_values(&Walk::new(&msgs)),
            [
                "https://cursor.com/assets/fix-dark.png",
                "https://x.dev/a",
                "https://discord.gg/clawd"
            ]
        );
    }

    #[test]
    fn urls_paths_ports_numbers_and_ids_of_the_last_ten_messages() {
        let mut msgs = vec![json!({"role": "user", "content": "old https://old.example.com/x"})];
        for _ in 0..9 {
            msgs.push(json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}]}));
        }
        msgs.push(
            json!({"role": "toolResult", "content": [{"type": "text", "text":
            "Deployed (see https://ci.example.com/run/42). Listening on api.internal:8443, \
             config /etc/app/config.yaml, commit 3f9a2c1d7e, order 1234567, price 10.99."}]}),
        );
        assert_eq!(
            recent_values(&Walk::new(&msgs)),
            [
                "https://ci.example.com/run/42",
                "api.internal:8443",
                "/etc/app/config.yaml",
                "3f9a2c1d7e",
                "1234567",
                "10.99",
            ]
        );
    }

    #[test]
    fn the_frames_of_a_stack_trace_are_one_value() {
        let trace: String = (0..12)
            .map(|i| {
                format!("at fn{i} (http://localhost:3000/chunk-36jrqfj4.js:3{i}815:13) chunk-36jrqfj4.js:2{i}38\n")
            })
            .collect();
        let msgs = vec![json!({"role": "user", "content": trace + "and api.internal:8443"})];
        assert_eq!(
            recent_values(&Walk::new(&msgs)),
            [
                "http://localhost:3000/chunk-36jrqfj4.js:30815:13",
                "chunk-36jrqfj4.js:2038",
                "api.internal:8443"
            ]
        );
    }

    #[test]
    fn versions_and_addresses_whole_clock_seconds_and_call_ids_never() {
        // a log tail as the exec tool returns it, and the call it answers
        let msgs = vec![
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": "call_b4a50a37302649089548d7e6", "name": "exec", "arguments": {"command": "tail log"}}]}),
            json!({"role": "toolResult", "toolCallId": "call_b4a50a37302649089548d7e6", "content": [{"type": "text", "text":
            "2026-02-05T05:07:39.024Z gateway 4.6.2 listening on 127.0.0.1 (call_b4a50a37302649089548d7e6) 05:07:39.026 retry in 22.22 s"}]}),
        ];
        assert_eq!(
            recent_values(&Walk::new(&msgs)),
            ["4.6.2", "127.0.0.1", "22.22"]
        );
    }

    #[test]
    fn the_hosts_envelope_of_a_user_message_holds_no_value() {
        // a Feishu message as OpenClaw 2026.9.6 delivers it: the metadata block, then the user's words
        let msgs = vec![json!({"role": "user", "content":
            "Conversation info (untrusted metadata):\n```json\n{\n  \"message_id\": \"om_x100b54223b429ca8c393aa0d4dea8ae\",\n  \"sender_id\": \"ou_cadc2c270c8e9803d8f069eb8ce19b75\"\n}\n```\n\ndeploy build 20260311 to test.clawish.com:8443"})];
        assert_eq!(
            recent_values(&Walk::new(&msgs)),
            ["20260311", "test.clawish.com:8443"]
        );
    }

    #[test]
    fn credentials_are_never_taken() {
        let msgs = vec![json!({"role": "user", "content":
            "token sk-proj-AbC123dEf456GhI789 and ghp_1234567890abcdefABCDEF and AbCdEf1234567890XyZw9 but id 550e8400-e29b-41d4-a716-446655440000"})];
        let v = recent_values(&Walk::new(&msgs));
        assert!(
            v.iter()
                .all(|x| !x.starts_with("sk-") && !x.starts_with("ghp_") && !x.starts_with("AbCd")),
            "{v:?}"
        );
        assert!(v.iter().any(|x| x.contains("550e8400")), "{v:?}");
    }

    #[test]
    fn a_value_ends_at_markup_and_full_width_punctuation() {
        let mut out = Vec::new();
        values_in("(`/api/auth/register`)：**已停用**", &mut out);
        assert_eq!(out, vec!["/api/auth/register".to_string()]);
        // a markdown link's closing parenthesis is not its URL's; one the URL opened is
        let mut out = Vec::new();
        values_in(
            "here\"](https://x.com/jonahships_/status/2010605025844723765)[\"Tried",
            &mut out,
        );
        values_in(
            "(https://en.wikipedia.org/wiki/Rust_(language)_book).",
            &mut out,
        );
        // a link whose text is its URL: the text ends at its bracket; a bracket the URL opened
        // is its own
        values_in(
            "[https://travel.coze.site/skill.md](https://travel.coze.site/skill.md)",
            &mut out,
        );
        values_in("http://[::1]:8080/health", &mut out);
        // a shell expression cut at a space is no path
        values_in("/tmp/screenshot-$(date", &mut out);
        assert_eq!(
            out,
            vec![
                "https://x.com/jonahships_/status/2010605025844723765".to_string(),
                "https://en.wikipedia.org/wiki/Rust_(language)_book".to_string(),
                "https://travel.coze.site/skill.md".to_string(),
                "http://[::1]:8080/health".to_string()
            ]
        );
    }
}
