//! Seed 003's measure of an observation, its head + tail summary and the synthetic observation.

use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Characters kept from the start (and from the end) of a text in its summary.
pub const SUMMARY_HEAD_CHARS: usize = 500;
/// Characters kept from the end of a text in its summary.
pub const SUMMARY_TAIL_CHARS: usize = 500;

/// What an entry holds: UTF-8 text (offsets count characters) or raw bytes (offsets count bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Text,
    Binary,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Binary => "binary",
        }
    }
}

/// The content of an observation as the host hands it over.
#[derive(Debug, Clone, Copy)]
pub enum Content<'a> {
    /// A string (always `text`).
    Text(&'a str),
    /// Bytes: `text` when they are valid UTF-8, `binary` otherwise.
    Bytes(&'a [u8]),
}

impl<'a> Content<'a> {
    /// The kind and the bytes to store.
    pub fn classify(self) -> (Kind, &'a [u8]) {
        match self {
            Content::Text(s) => (Kind::Text, s.as_bytes()),
            Content::Bytes(b) if std::str::from_utf8(b).is_ok() => (Kind::Text, b),
            Content::Bytes(b) => (Kind::Binary, b),
        }
    }
}

/// The length in bytes of `text` serialised as a JSON string (`JSON.stringify` escapes: quotes,
/// backslash, and control characters; everything else is its UTF-8 bytes).
pub fn json_string_len(text: &[u8]) -> u64 {
    // Extra bytes per input byte: `\"`, `\\`, `\b` `\f` `\n` `\r` `\t` add 1, other controls
    // (`\u00XX`) add 5. A table lookup per byte runs at memory speed on 100 MB.
    const EXTRA: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 0x20 {
            t[i] = 5;
            i += 1;
        }
        t[0x08] = 1;
        t[0x0c] = 1;
        t[b'\n' as usize] = 1;
        t[b'\r' as usize] = 1;
        t[b'\t' as usize] = 1;
        t[b'"' as usize] = 1;
        t[b'\\' as usize] = 1;
        t
    };
    let extra: u64 = text
        .chunks(1 << 16)
        .map(|c| c.iter().map(|&b| EXTRA[b as usize] as u32).sum::<u32>() as u64)
        .sum();
    text.len() as u64 + 2 + extra
}

/// The length of `n` bytes in base64 (how binary content travels inside JSON).
pub fn base64_len(n: u64) -> u64 {
    n.div_ceil(3) * 4
}

/// Seed 003's `len(json.dumps(observation))`: the UTF-8 length of the JSON text of
/// `{"content": <content>, "metadata": <metadata>}` (no `metadata` key when there is none), as
/// `JSON.stringify` writes it; binary content counts as its base64 string.
pub fn measure(kind: Kind, bytes: &[u8], metadata: Option<&serde_json::Value>) -> u64 {
    let content = match kind {
        Kind::Text => json_string_len(bytes),
        Kind::Binary => base64_len(bytes.len() as u64) + 2,
    };
    let meta = metadata
        .map(|m| serde_json::to_string(m).map_or(0, |s| s.len() as u64) + 12)
        .unwrap_or(0);
    // {"content": ... [,"metadata": ...] }
    11 + content + meta + 1
}

/// Seed 003's smart truncation: the first 500 characters, a line with the exact number of
/// characters omitted, the last 500. A text of at most 1,000 characters is its own summary.
pub fn text_summary(text: &str) -> String {
    let head_end = text.char_indices().nth(SUMMARY_HEAD_CHARS).map(|(i, _)| i);
    let tail_start = text.char_indices().rev().nth(SUMMARY_TAIL_CHARS - 1);
    match (head_end, tail_start) {
        (Some(h), Some((t, _))) if t > h => {
            let omitted = text[h..t].chars().count();
            let head = &text[..h];
            let sep = if head.ends_with('\n') { "" } else { "\n" };
            format!(
                "{head}{sep}[... {omitted} characters omitted ...]\n{}",
                &text[t..]
            )
        }
        _ => text.to_string(),
    }
}

/// The lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The summary of a binary observation: `[BINARY: N bytes, sha256=<hex>]`.
pub fn binary_summary(size: u64, sha256: &str) -> String {
    format!("[BINARY: {size} bytes, sha256={sha256}]")
}

/// The `_note` of a synthetic observation, telling the model how to explore the entry.
pub fn note(kind: Kind, id: &str, name: &str) -> String {
    let unit = match kind {
        Kind::Text => "characters",
        Kind::Binary => "bytes",
    };
    format!(
        "Large observation saved in scratchpad. To read it in full or partially, use the \
         scratchpad_read tool with scratchpad_id \"{id}\" (or name \"{name}\"): mode head/tail/range \
         (offsets in {unit}), lines, grep (regex); mode full only for small entries. To pass the \
         whole content to another tool, write {{{{observation:{id}}}}} in its argument."
    )
}

/// Seed 003's synthetic observation, put in the history instead of an offloaded result. Fields
/// serialise in this order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SyntheticObservation {
    pub ok: bool,
    pub scratchpad_id: String,
    /// The entry's name (seed 004), e.g. `read_3`.
    pub name: String,
    pub size_bytes: u64,
    pub kind: Kind,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Value>,
    pub _note: String,
}

/// An observation under the threshold, returned whole: exactly the object that was measured
/// (binary content as base64, with `encoding: "base64"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WholeObservation {
    pub content: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn measure_equals_the_json_text_length() {
        let text = "a \"quoted\" \\ path\n\ttab \u{1} é 日本 🎉";
        let meta = json!({"path": "/tmp/x", "bytes": 12, "nested": {"a": [1, 2]}});
        let expected = serde_json::to_string(&json!({"content": text, "metadata": meta}))
            .unwrap()
            .len() as u64;
        assert_eq!(measure(Kind::Text, text.as_bytes(), Some(&meta)), expected);
        let expected = serde_json::to_string(&json!({ "content": text }))
            .unwrap()
            .len() as u64;
        assert_eq!(measure(Kind::Text, text.as_bytes(), None), expected);
        let bin = [0u8, 255, 1, 2];
        let expected = serde_json::to_string(&json!({ "content": base64(&bin) }))
            .unwrap()
            .len() as u64;
        assert_eq!(measure(Kind::Binary, &bin, None), expected);
    }

    #[test]
    fn summary_keeps_500_plus_500_characters_and_counts_the_rest() {
        let text: String = (0..3000)
            .map(|i| if i % 2 == 0 { 'é' } else { '🎉' })
            .collect();
        let s = text_summary(&text);
        let head: String = text.chars().take(500).collect();
        let tail: String = text.chars().skip(2500).collect();
        assert_eq!(
            s,
            format!("{head}\n[... 2000 characters omitted ...]\n{tail}")
        );
        // A head that ends its line gets no blank line.
        let text = format!("{}\n{}", "a".repeat(499), "b".repeat(1000));
        assert!(text_summary(&text).contains("a\n[... 500 characters omitted ...]\nbbb"));
        // 1,000 characters or fewer: the text itself; 1,001: one character omitted.
        let t = "x".repeat(1000);
        assert_eq!(text_summary(&t), t);
        let t = "x".repeat(1001);
        assert!(text_summary(&t).contains("[... 1 characters omitted ...]"));
        assert_eq!(text_summary(""), "");
    }

    #[test]
    fn classify_and_binary_summary() {
        assert_eq!(Content::Bytes(b"hello").classify().0, Kind::Text);
        assert_eq!(Content::Bytes(&[0xff, 0xfe]).classify().0, Kind::Binary);
        assert_eq!(Content::Text("").classify().0, Kind::Text);
        assert_eq!(
            binary_summary(3, &sha256_hex(b"abc")),
            "[BINARY: 3 bytes, sha256=ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad]"
        );
    }
}
