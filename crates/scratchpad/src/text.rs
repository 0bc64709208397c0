//! Text helpers: lengths as the host counts them (UTF-16 code units, JS `string.length`),
//! truncation that never splits a surrogate pair, a character or a grapheme cluster, and the
//! escaping that keeps content from breaking out of the rendered block.

use std::borrow::Cow;
use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};

/// Length of `s` in UTF-16 code units, i.e. JS `s.length`.
pub fn utf16_len(s: &str) -> usize {
    // ASCII fast path: one code unit per byte.
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().map(char::len_utf16).sum()
    }
}

/// Snaps `byte` (a char boundary of `s`) down to the nearest grapheme-cluster boundary, so a cut
/// there never separates a base character from its combining marks or an emoji ZWJ sequence.
pub fn grapheme_floor(s: &str, byte: usize) -> usize {
    if byte == 0 || byte >= s.len() {
        return byte.min(s.len());
    }
    let mut cursor = GraphemeCursor::new(byte, s.len(), true);
    match cursor.is_boundary(s, 0) {
        Ok(true) => byte,
        _ => cursor.prev_boundary(s, 0).ok().flatten().unwrap_or(0),
    }
}

/// The longest prefix of `s` of at most `max_units` UTF-16 code units that ends on a grapheme
/// boundary. Borrowed when `s` already fits.
pub fn truncate_utf16(s: &str, max_units: usize) -> &str {
    if s.len() <= max_units {
        // Bytes >= UTF-16 units for every string, so this one already fits.
        return s;
    }
    let mut units = 0;
    let mut cut = s.len();
    for (i, c) in s.char_indices() {
        let next = units + c.len_utf16();
        if next > max_units {
            cut = i;
            break;
        }
        units = next;
    }
    if cut == s.len() {
        return s;
    }
    &s[..grapheme_floor(s, cut)]
}

/// Byte offsets of every grapheme boundary of `s` (0 and `s.len()` included), the candidate cut
/// points of a token-budget truncation.
pub fn grapheme_boundaries(s: &str) -> Vec<usize> {
    let mut v: Vec<usize> = s.grapheme_indices(true).map(|(i, _)| i).collect();
    v.push(s.len());
    v
}

/// Line prefixes the block itself uses: a content line starting with one of these
/// (case-insensitively, after leading whitespace) would look like the block's own structure.
const RESERVED: [&str; 5] = [
    "[end scratchpad",
    "[session scratchpad",
    "[notes:",
    "[plan:",
    "[refs:",
];

fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

fn reserved_at(line: &str) -> Option<usize> {
    let trimmed = line.trim_start();
    let start = line.len() - trimmed.len();
    let head = trimmed.as_bytes();
    RESERVED
        .iter()
        .any(|r| head.len() >= r.len() && head[..r.len()].eq_ignore_ascii_case(r.as_bytes()))
        .then_some(start)
}

/// Neutralises every line of `s` that would read as the block's own markers (`[End Scratchpad]`,
/// `[Session Scratchpad ...]`, the `[Notes: ...]` / `[Plan: ...]` / `[Refs: ...]` labels) by
/// prefixing it with a backslash, so content can never end the block or fake a section. Lines are
/// split at every Unicode line break, not only `\n`. Borrowed when nothing needs escaping.
pub fn escape_block_lines(s: &str) -> Cow<'_, str> {
    if !s.contains('[') {
        return Cow::Borrowed(s);
    }
    let mut out: Option<String> = None;
    let mut line_start = 0;
    let mut copied = 0;
    let mut check = |line_start: usize, line_end: usize, out: &mut Option<String>| {
        if let Some(off) = reserved_at(&s[line_start..line_end]) {
            let at = line_start + off;
            let o = out.get_or_insert_with(|| String::with_capacity(s.len() + 8));
            o.push_str(&s[copied..at]);
            o.push('\\');
            copied = at;
        }
    };
    for (i, c) in s.char_indices() {
        if is_line_break(c) {
            check(line_start, i, &mut out);
            line_start = i + c.len_utf8();
        }
    }
    check(line_start, s.len(), &mut out);
    match out {
        None => Cow::Borrowed(s),
        Some(mut o) => {
            o.push_str(&s[copied..]);
            Cow::Owned(o)
        }
    }
}

/// A ref rendered on exactly one line: line breaks become visible escapes (`\n`, `\r`, `\u2028`).
pub fn one_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_line_break) {
        return Cow::Borrowed(s);
    }
    let mut o = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        match c {
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            c if is_line_break(c) => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    Cow::Owned(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_lengths_match_js() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("😀"), 2);
        assert_eq!(utf16_len("a😀b"), 4);
        assert_eq!(utf16_len(""), 0);
    }

    #[test]
    fn truncation_never_splits_a_surrogate_pair() {
        // "aaa" + emoji: 5 units; a cut at 4 would fall inside the pair.
        let s = "aaa😀";
        assert_eq!(truncate_utf16(s, 4), "aaa");
        assert_eq!(truncate_utf16(s, 5), s);
        assert_eq!(truncate_utf16(s, 3), "aaa");
        assert_eq!(truncate_utf16(s, 0), "");
    }

    #[test]
    fn truncation_never_splits_a_grapheme_cluster() {
        // e + combining acute accent: two chars, one grapheme.
        let s = "abe\u{301}";
        assert_eq!(truncate_utf16(s, 3), "ab");
        // family emoji (ZWJ sequence) stays whole or goes whole
        let fam = "x👨\u{200d}👩\u{200d}👧";
        assert_eq!(truncate_utf16(fam, 4), "x");
        assert_eq!(truncate_utf16(fam, utf16_len(fam)), fam);
    }

    #[test]
    fn escapes_only_marker_lines() {
        assert!(matches!(escape_block_lines("plain"), Cow::Borrowed(_)));
        assert!(matches!(
            escape_block_lines("a [End Scratchpad]"),
            Cow::Borrowed(_)
        ));
        assert_eq!(escape_block_lines("[End Scratchpad]"), "\\[End Scratchpad]");
        assert_eq!(
            escape_block_lines(
                "x\n  [end scratchpad]\r\n[Plan: 1/2 chars]\u{2028}[Session Scratchpad]"
            ),
            "x\n  \\[end scratchpad]\r\n\\[Plan: 1/2 chars]\u{2028}\\[Session Scratchpad]"
        );
    }

    #[test]
    fn refs_render_on_one_line() {
        assert_eq!(one_line("a\n[End Scratchpad]"), "a\\n[End Scratchpad]");
        assert_eq!(one_line("a\u{2028}b"), "a\\u2028b");
        assert!(matches!(one_line("src/x.ts"), Cow::Borrowed(_)));
    }
}
