//! What a message says on its own, read from its structure only (seed 001, 11.2: no English
//! keywords, so it works in any language): slash commands and short acknowledgements are told
//! apart from requests with content, a question from a statement, a proposal from the question
//! that asks for it, and the key of a tool call for deduplicating its failures.
//!
//! Text as the passes read it is in `text.rs`, proposals and the user's choices among them in
//! `choice.rs`, shell commands in `shell.rs`; their functions are this module's.

mod choice;
mod shell;
#[cfg(test)]
mod tests;
mod text;

pub use choice::*;
pub use shell::*;
pub use text::*;

use crate::capture::squash;
use serde_json::Value;

/// How much a user message carries on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Substance {
    /// Empty, or a slash command (`/mode`, `/compact keep it short`): an instruction to the host,
    /// never the topic, a key exchange or a decision.
    Noise,
    /// A short reply with nothing of its own (`ok`, `yes, do it`, `はい`, `weiter`): it accepts or
    /// steers what the agent said, so its meaning is the agent's message before it.
    Ack,
    /// A request or statement with content of its own.
    Content,
}

/// Fewest words (whitespace-separated) of a message with content of its own...
pub const CONTENT_MIN_WORDS: usize = 3;
/// ...and fewest characters: `yeah, do it all` (4 words, 15 characters) is an acknowledgement.
pub const CONTENT_MIN_CHARS: usize = 16;
/// Fewest characters of a message written without spaces (CJK scripts) with content of its own.
pub const CONTENT_MIN_CHARS_UNSPACED: usize = 6;

/// True for a token that names a file, a path or a URL: a slash or backslash inside it, or a
/// `name.ext` with a letter-led extension.
pub fn is_path_like(token: &str) -> bool {
    let t = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '.' && c != '~');
    if t.len() < 3 {
        return false;
    }
    if t.chars().skip(1).any(|c| c == '/') || t.contains('\\') {
        return true;
    }
    match t.rsplit_once('.') {
        Some((name, ext)) => {
            !name.is_empty()
                && !ext.is_empty()
                && ext.len() <= 8
                && ext.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        }
        None => false,
    }
}

/// A script written without spaces between words (Han, Kana, Hangul, Thai, ...).
pub fn unspaced(c: char) -> bool {
    matches!(c as u32, 0x0E00..=0x0EFF | 0x1100..=0x11FF | 0x2E80..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF66..=0xFF9F | 0x20000..=0x3FFFF)
}

/// True when the squashed text is a slash command: its first token is `/word` with no further
/// slash or dot (`/Users/x` and `/etc/hosts` are paths, not commands).
pub fn is_slash_command(squashed: &str) -> bool {
    let first = squashed.split(' ').next().unwrap_or_default();
    match first.strip_prefix('/') {
        Some(rest) => {
            !rest.is_empty()
                && !rest.contains('/')
                && !rest.contains('.')
                && rest.chars().next().is_some_and(char::is_alphabetic)
        }
        None => false,
    }
}

/// Classifies a user message's text (see [`Substance`]). Content: a code span, a path, URL or
/// file name, a number, at least [`CONTENT_MIN_WORDS`] words and [`CONTENT_MIN_CHARS`]
/// characters, or [`CONTENT_MIN_CHARS_UNSPACED`] characters of a script written without spaces.
pub fn substance(text: &str) -> Substance {
    let s = squash(text);
    if s.is_empty() || is_slash_command(&s) {
        return Substance::Noise;
    }
    let words = s.split(' ').count();
    let chars = s.chars().count();
    let content = s.contains('`')
        || s.split(' ').any(is_path_like)
        || s.chars().any(|c| c.is_ascii_digit())
        || (words >= CONTENT_MIN_WORDS && chars >= CONTENT_MIN_CHARS)
        || s.chars().filter(|c| unspaced(*c)).count() >= CONTENT_MIN_CHARS_UNSPACED;
    if content {
        Substance::Content
    } else {
        Substance::Ack
    }
}

/// True when a short reply names something, whatever its length: a word with a capital inside it
/// and small letters (`PostgreSQL`, `SQLite`, `GitHub`), or a word of three Latin letters or more
/// inside text of a script written without spaces (`用redis`). `ok`, `Thanks`, `好的` name nothing.
pub fn names_something(text: &str) -> bool {
    let unspaced_text = text.chars().any(unspaced);
    text.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .any(|w| {
            let inner_cap = w.chars().skip(1).any(|c| c.is_ascii_uppercase())
                && w.chars().any(|c| c.is_ascii_lowercase());
            inner_cap || (unspaced_text && w.len() >= 3)
        })
}

/// True when a user message is mostly pasted text rather than the user's own words: it holds a
/// code fence, or more than half of its characters (not counting spaces) are inside code spans
/// or URLs.
pub fn mostly_pasted(text: &str) -> bool {
    if text.contains("```") {
        return true;
    }
    let total = text.chars().filter(|c| !c.is_whitespace()).count();
    let spans: usize = code_spans(text)
        .iter()
        .map(|s| s.chars().filter(|c| !c.is_whitespace()).count() + 2)
        .sum();
    let urls: usize = text
        .split_whitespace()
        .filter(|w| w.contains("://"))
        .map(|w| w.chars().count())
        .sum();
    total > 0 && (spans + urls) * 2 > total
}

/// True when a line starts with a shell's prompt: PowerShell's `PS C:\\path> ` and its `>> `
/// continuation, cmd's `C:\\path>`, a POSIX `$ ` or `user@host:~/path$ `. A message holding one
/// is a pasted terminal session: what it says is the terminal's, not the user's.
pub fn is_shell_prompt_line(line: &str) -> bool {
    let l = line.trim_start();
    // `C:\\path>`: a drive, its path (with spaces only after PowerShell's `PS `), the prompt mark
    let drive_prompt = |t: &str, spaced: bool| {
        let b = t.as_bytes();
        b.len() > 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && b[2] == b'\\'
            && t.find('>')
                .is_some_and(|i| spaced || !t[..i].contains(char::is_whitespace))
    };
    if let Some(rest) = l.strip_prefix("PS ") {
        return drive_prompt(rest, true) || (rest.starts_with('/') && rest.contains("> "));
    }
    if l.starts_with("$ ") || l.starts_with(">> ") || drive_prompt(l, false) {
        return true;
    }
    // user@host:~/path$ command
    let Some((who, rest)) = l.split_once(':') else {
        return false;
    };
    who.contains('@')
        && !who.contains(char::is_whitespace)
        && rest
            .split_once("$ ")
            .is_some_and(|(path, _)| !path.contains(char::is_whitespace))
}

/// Auxiliaries that open an English question when a subject follows (`did you`, `is it`).
const QUESTION_AUXILIARIES: &[&str] = &[
    "do", "does", "did", "is", "are", "was", "were", "can", "could", "would", "will", "should",
    "have", "has", "shall",
];
/// Subjects after such an auxiliary.
const QUESTION_SUBJECTS: &[&str] = &[
    "you", "we", "i", "it", "they", "he", "she", "this", "that", "there", "these", "those",
];
/// Question words that open an English question when an auxiliary or `about` follows (`what is`,
/// `why does`, `what about`); `what i mean is ...` states.
const QUESTION_WORDS: &[&str] = &["what", "why", "how", "where", "when", "who", "which"];
/// Pieces that ask in Chinese without a question mark (`你是什么模型`, `是不是坏了`).
const QUESTION_PIECES: &[&str] = &[
    "是什么",
    "什么是",
    "为什么",
    "為什麼",
    "怎么样",
    "怎麼樣",
    "是不是",
    "有没有",
    "有沒有",
    "能不能",
    "可不可以",
];

/// True when a user's reply asks something: a question mark of any script at its end
/// ([`is_question`]); where a question needs no mark, a sentence-final particle (Chinese `吗` /
/// `嗎` / `呢`: `任务处理完了吗`, Japanese `ですか` / `ますか`), a Chinese question piece
/// ([`QUESTION_PIECES`]: `你是什么模型`), or an English question's opening (`did you surf
/// anywhere`, `what about Redis`).
pub fn asks(reply: &str) -> bool {
    let t = reply.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, '。' | '.' | '!' | '！' | '~' | '～')
    });
    let words: Vec<String> = t
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .take(2)
        .map(str::to_lowercase)
        .collect();
    let opens_question = match words.as_slice() {
        [first, second] => {
            // `do it`, `do this`: an order; `do you`, `do we`: a question
            (QUESTION_AUXILIARIES.contains(&first.as_str())
                && QUESTION_SUBJECTS.contains(&second.as_str())
                && (first != "do" || matches!(second.as_str(), "you" | "we" | "i" | "they")))
                || (QUESTION_WORDS.contains(&first.as_str())
                    && (QUESTION_AUXILIARIES.contains(&second.as_str()) || second == "about"))
        }
        _ => false,
    };
    is_question(reply)
        || t.ends_with(['吗', '嗎', '呢'])
        || t.ends_with("ですか")
        || t.ends_with("ますか")
        || QUESTION_PIECES.iter().any(|p| t.contains(p))
        || opens_question
}

/// True when a paragraph asks something: it ends with a question mark of any script.
pub fn is_question(paragraph: &str) -> bool {
    let t = paragraph.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, '*' | '_' | '`' | ')' | '"' | '\'')
    });
    t.ends_with(['?', '？', '⸮', '؟'])
}
