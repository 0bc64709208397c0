//! Text as the passes read it: paragraphs, prose, plain text, fold keys, code spans.

use super::*;

/// The paragraphs of a message (separated by blank lines), trimmed, without empty ones.
pub fn paragraphs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut end = 0;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        if blank {
            if let Some(s) = start.take() {
                out.push(text[s..end].trim());
            }
        } else {
            if start.is_none() {
                start = Some(pos);
            }
            end = pos + line.len();
        }
        pos += line.len();
    }
    if let Some(s) = start {
        out.push(text[s..end].trim());
    }
    out.retain(|p| !p.is_empty());
    out
}

/// Fewest letters (alphabetic characters of any script) of a paragraph a decision may quote: a
/// horizontal rule (`---`, `***`), a table rule, an emoji line or a bare number says nothing.
pub const PROSE_MIN_LETTERS: usize = 2;

/// The letters (alphabetic characters of any script, CJK included) in a text.
pub fn letters(text: &str) -> usize {
    text.chars().filter(|c| c.is_alphabetic()).count()
}

/// The paragraphs of a message's prose, in order: fenced code left out (its fence lines and its
/// body, blank lines inside it too), each trimmed; paragraphs with fewer than
/// [`PROSE_MIN_LETTERS`] letters (`---`, `***`, `|---|---|`, an emoji line) left out.
pub fn prose_paragraphs(text: &str) -> Vec<&str> {
    fn flush<'a>(text: &'a str, start: &mut Option<usize>, end: usize, out: &mut Vec<&'a str>) {
        if let Some(s) = start.take() {
            let p = text[s..end].trim();
            if letters(p) >= PROSE_MIN_LETTERS {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    let (mut start, mut end, mut pos) = (None::<usize>, 0, 0);
    let mut in_fence = false;
    for line in text.split_inclusive('\n') {
        let fence = is_fence(line);
        if fence {
            in_fence = !in_fence;
        }
        if fence || in_fence || line.trim().is_empty() {
            flush(text, &mut start, end, &mut out);
        } else {
            if start.is_none() {
                start = Some(pos);
            }
            end = pos + line.len();
        }
        pos += line.len();
    }
    flush(text, &mut start, end, &mut out);
    out
}

/// A paragraph as a decision quotes it: heading marks (`#`, `>`) and bold (`**`, `__`) left out,
/// a table as its rows' cells (`a, b; c, d`; its rule row gone), whitespace squashed.
pub fn plain(paragraph: &str) -> String {
    let lines: Vec<String> = paragraph
        .lines()
        .map(|l| l.trim().trim_start_matches(['#', '>']).trim())
        .filter(|l| letters(l) > 0 || l.chars().any(|c| c.is_ascii_digit()))
        .map(|l| {
            // a table row: its cells, without the pipes (a rule row has no letters: gone above)
            if l.starts_with('|') {
                l.split('|')
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .collect::<Vec<_>>()
                    .join(", ")
                    + ";"
            } else {
                l.to_string()
            }
        })
        .collect();
    let text = squash(&lines.join(" ").replace("**", "").replace("__", ""));
    text.strip_suffix(';').map(str::to_string).unwrap_or(text)
}

/// Lower-cased text without markup (bullets, numbering, bold, backticks, quotes) or whitespace
/// differences: two entries with the same key are near-duplicates.
pub fn fold_key(text: &str) -> String {
    let s = squash(text);
    let mut t = s.as_str();
    loop {
        let before = t;
        t = t.trim_start_matches(['-', '*', '+', '•', '>', ' ', '#']);
        // numbering: "1." "2)"
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && t[digits..].starts_with(['.', ')']) {
            t = &t[digits + 1..];
        }
        if t == before {
            break;
        }
    }
    let mut out = String::with_capacity(t.len());
    for c in t.chars() {
        if matches!(c, '*' | '_' | '`' | '"' | '“' | '”' | '\'' | '’') {
            continue;
        }
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
    let out = squash(&out);
    out.trim_end_matches(['.', '!', '。', ' ']).to_string()
}

/// The lines of a text outside its code fences (```), in order: its prose and inline code.
pub fn lines_outside_fences(text: &str) -> impl Iterator<Item = &str> {
    let mut in_fence = false;
    text.lines().filter(move |line| {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            return false;
        }
        !in_fence
    })
}

/// The inline code spans (single backticks, on one line) of a text, in order. In a text that
/// escapes its backticks (markdown in a template literal: ``Include \`outputType\` …``) the
/// backslash before the closing one is the escape, not the span's.
pub fn code_spans(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in lines_outside_fences(text) {
        let mut rest = line;
        while let Some(i) = rest.find('`') {
            let after = &rest[i + 1..];
            match after.find('`') {
                Some(j) => {
                    let span = &after[..j];
                    let span = span.strip_suffix('\\').unwrap_or(span).trim();
                    if !span.is_empty() {
                        out.push(span);
                    }
                    rest = &after[j + 1..];
                }
                None => break,
            }
        }
    }
    out
}
