//! What a message says on its own, read from its structure only (seed 001, 11.2: no English
//! keywords, so it works in any language): slash commands and short acknowledgements are told
//! apart from requests with content, a question from a statement, a proposal from the question
//! that asks for it, and the key of a tool call for deduplicating its failures.

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

/// When an agent message ends by asking the user something, the question and what it proposes:
/// `(question, proposal)`, the proposal being the nearest paragraph before the question that is
/// not itself a question and has letters of its own (a rule `---`, a table rule, an emoji line
/// or a code block is never a proposal), as [`plain`] text; `None` when the question stands
/// alone. `None` when the message does not end with a question.
pub fn proposal(agent_text: &str) -> Option<(String, Option<String>)> {
    let paras = paragraphs(agent_text);
    let last = *paras.last()?;
    // The question is the last sentence of the last paragraph's last line.
    let last_line = last.lines().last().unwrap_or(last).trim();
    if !is_question(last_line) {
        return None;
    }
    let body = last_line.trim_end_matches(|c: char| !matches!(c, '?' | '？' | '⸮' | '؟'));
    let body = &body[..body.len() - body.chars().last().map_or(0, char::len_utf8)];
    let cut = body
        .char_indices()
        .filter(|(i, c)| {
            matches!(c, '。' | '！' | '？')
                || (matches!(c, '.' | '!' | '?' | ':')
                    && body[i + c.len_utf8()..].starts_with(char::is_whitespace))
        })
        .map(|(i, c)| i + c.len_utf8())
        .next_back();
    let (head_of_line, question) = match cut {
        Some(i) => (&last_line[..i], last_line[i..].trim()),
        None => ("", last_line),
    };
    let question = squash(question);
    let mut before: Vec<&str> = vec![head_of_line.trim()];
    let lines: Vec<&str> = last.lines().collect();
    if lines.len() > 1 {
        // the lines above the question in its paragraph, nearest first
        for l in lines[..lines.len() - 1].iter().rev() {
            before.push(l.trim());
        }
        before.push(last[..last.len() - last_line.len()].trim());
    }
    // `last` is a slice of `agent_text`: the prose before it, nearest paragraph first
    let offset = last.as_ptr() as usize - agent_text.as_ptr() as usize;
    before.extend(prose_paragraphs(&agent_text[..offset]).into_iter().rev());
    let proposal = before
        .into_iter()
        .find(|p| letters(p) >= PROSE_MIN_LETTERS && !asks_back(p) && !is_fence(p))
        .map(plain);
    Some((question, proposal))
}

/// True when a paragraph before the question asks too ([`is_question`]), unless it is a list
/// whose last item ends with a question mark (`- C) Something else?`): the options offered.
fn asks_back(p: &str) -> bool {
    let lines: Vec<&str> = p.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let listed = lines.len() >= 2
        && lines.last().is_some_and(|l| {
            offered(l).is_some_and(|(o, bulleted)| bulleted || !o.keys.is_empty())
        });
    is_question(p) && !listed
}

fn is_fence(p: &str) -> bool {
    let t = p.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// What an agent message that asks nothing reported last: its last prose paragraph that is not a
/// question ([`prose_paragraphs`], as [`plain`] text), else its last prose paragraph.
pub fn report_gist(agent_text: &str) -> Option<String> {
    let paras = prose_paragraphs(agent_text);
    paras
        .iter()
        .rev()
        .find(|p| !is_question(p))
        .or(paras.last())
        .map(|p| plain(p))
}

/// How an option the agent offered is referred to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    /// `2.`, `2)`, `(2)`, `Option 2`, `方案二`.
    Num(usize),
    /// `B.`, `B)`, `Option B`, `方案B`.
    Letter(char),
}

/// One option line of an agent message.
struct Offered {
    keys: Vec<Key>,
    /// The option's label (`option b`, `方案二`, `postgres`), lower-cased, when it has one.
    label: Option<String>,
    /// Its place in a run of bullet lines (1-based) and the run's number, for a bulleted list.
    bullet: Option<(usize, usize)>,
    text: String,
}

/// The value of a CJK numeral from one to ten (`一` .. `十`).
fn cjk_numeral(c: char) -> Option<usize> {
    "一二三四五六七八九十"
        .chars()
        .position(|n| n == c)
        .map(|i| i + 1)
}

/// The option an agent message's line offers, if it is one: a numbered or lettered item
/// (`2. x`, `(2) x`, `B) x`), a bullet (`- x`), a heading or a bold lead (`### Option A: x`,
/// `**方案二：** x`); with its keys and label.
fn offered(line: &str) -> Option<(Offered, bool)> {
    let t = line.trim();
    let heading = t.starts_with('#');
    let t = t.trim_start_matches(['#', '>']).trim_start();
    let (bulleted, t) = match t.strip_prefix(['-', '*', '+', '•']) {
        Some(rest) if rest.starts_with(' ') => (true, rest.trim_start()),
        _ => (false, t),
    };
    let bold = t.starts_with("**") || t.starts_with("__");
    let t = t.trim_start_matches(['*', '_']).trim_start();
    let text = squash(&t.replace("**", "").replace("__", ""));
    let mut keys = Vec::new();
    // a number or a single capital letter, then `.`, `)`, `:`, `、`: `2. x`, `(2) x`, `B) x`
    let inner = t.strip_prefix('(').unwrap_or(t);
    let lead: String = inner.chars().take_while(char::is_ascii_digit).collect();
    let after = if lead.is_empty() {
        let mut cs = inner.chars();
        match cs.next() {
            Some(c) if c.is_ascii_uppercase() => {
                let rest = cs.as_str();
                if rest.starts_with(['.', ')', ':', '：', '、']) {
                    keys.push(Key::Letter(c));
                    Some(rest)
                } else {
                    None
                }
            }
            _ => None,
        }
    } else {
        let rest = &inner[lead.len()..];
        if rest.starts_with(['.', ')', ':', '：', '、', '．']) {
            keys.push(Key::Num(lead.parse().ok()?));
            Some(rest)
        } else {
            None
        }
    };
    if let Some(rest) = after {
        let rest = rest
            .trim_start_matches(['.', ')', ':', '：', '、', '．', '*', '_'])
            .trim();
        if letters(rest) < PROSE_MIN_LETTERS && !rest.chars().any(|c| c.is_alphanumeric()) {
            return None;
        }
        return Some((
            Offered {
                keys,
                label: None,
                bullet: None,
                text: squash(&rest.replace("**", "").replace("__", "")),
            },
            false,
        ));
    }
    if !(bulleted || bold || heading) {
        return None;
    }
    // a label before a separator: `Option A: x`, `方案二：x`, `Postgres - x`, `**Redis** x`
    let plain_t = t.replace("__", "**");
    let sep = [":", "：", " - ", " — ", " – ", "**", "（", " ("]
        .iter()
        .filter_map(|s| plain_t.find(s))
        .min();
    // without a separator, a short item is its own label (`### Option A`, `- Postgres`)
    let label = sep
        .map(|i| plain_t[..i].trim())
        .or(Some(text.as_str()))
        .filter(|l| !l.is_empty() && l.chars().count() <= 24 && l.split_whitespace().count() <= 4);
    if let Some(l) = label {
        let last = l.split_whitespace().last().unwrap_or(l);
        let lc = last.chars().last();
        let digits = last.len() - last.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && digits <= 2 {
            // `Option 2`, `方案1`: a number at the label's end (not inside a word of Latin letters)
            let head = &last[..last.len() - digits];
            if head.is_empty() || head.chars().last().is_some_and(unspaced) {
                keys.push(Key::Num(last[last.len() - digits..].parse().ok()?));
            }
        } else if let Some(n) = lc.and_then(cjk_numeral) {
            // `方案二`: a numeral after the word it counts
            if l.chars().count() >= 2 {
                keys.push(Key::Num(n));
            }
        } else if let Some(c) = lc.filter(char::is_ascii_uppercase) {
            // `Option A`, `方案A`: a capital letter standing alone at the label's end
            let before = l[..l.len() - 1].chars().last();
            if before.is_none_or(|b| !b.is_ascii_alphanumeric()) {
                keys.push(Key::Letter(c));
            }
        }
    }
    if letters(&text) < PROSE_MIN_LETTERS {
        return None;
    }
    Some((
        Offered {
            keys,
            label: label.map(|l| l.to_lowercase()),
            bullet: None,
            text,
        },
        bulleted,
    ))
}

/// The single capital letters standing alone in a reply (`B`, `option B`, `方案B`), or its only
/// letter when the reply is just that (`b`).
fn reply_letters(reply: &str) -> Vec<char> {
    let t = reply.trim_matches(|c: char| !c.is_alphanumeric());
    if t.len() == 1 && t.chars().all(|c| c.is_ascii_alphabetic()) {
        return vec![t.chars().next().unwrap_or('A').to_ascii_uppercase()];
    }
    let cs: Vec<char> = reply.chars().collect();
    (0..cs.len())
        .filter(|&i| {
            cs[i].is_ascii_uppercase()
                && (i == 0 || !cs[i - 1].is_ascii_alphanumeric())
                && cs.get(i + 1).is_none_or(|c| !c.is_ascii_alphanumeric())
        })
        .map(|i| cs[i])
        .collect()
}

/// The option of the agent's message a short reply picks, by structure: options are the
/// message's numbered, lettered or bulleted items and its headings or bold leads with a label
/// (`1.`, `(2)`, `B)`, `- Postgres: ...`, `### Option A`, `**方案二：**`). The reply picks one by
/// its label (`方案1`, `Option B`), its number (`3`, `3.`, `lets do 2`, `2番`), several numbers
/// (`1 and 3`, `1，2，3`, `1-3`: their items joined by `; `, [`several_picked`]) or its letter (`B`,
/// `option B`, `方案B`). Only when the message `asked` something: a
/// bulleted item by its place (`2`), or by a label of its own that is most of the reply
/// (`Postgres`, `sqlite is enough`). When several items carry that number or letter, the last
/// (options are usually listed last). `None` when nothing is picked or the pick is ambiguous.
pub fn chosen_option(agent_text: &str, reply: &str, asked: bool) -> Option<String> {
    let mut items: Vec<Offered> = Vec::new();
    // runs of bullet lines: (run number, place in it)
    let (mut run, mut place, mut in_run) = (0usize, 0usize, false);
    let lines: Vec<&str> = lines_outside_fences(agent_text)
        .filter(|l| !l.trim().is_empty())
        .collect();
    for (i, line) in lines.iter().enumerate() {
        let nested = line.starts_with([' ', '\t']);
        match offered(line) {
            Some((mut o, bulleted)) => {
                // a heading or lead that is only a label (`### Option A`) is told by the line below
                if o.label.as_deref() == Some(o.text.to_lowercase().as_str()) && !bulleted {
                    if let Some(next) = lines.get(i + 1).filter(|n| offered(n).is_none()) {
                        o.text = format!("{}: {}", o.text, plain(next));
                    }
                }
                if bulleted && !nested {
                    if !in_run {
                        run += 1;
                        place = 0;
                        in_run = true;
                    }
                    place += 1;
                    o.bullet = Some((run, place));
                } else if !nested {
                    in_run = false;
                }
                items.push(o);
            }
            None if !nested => in_run = false,
            None => {}
        }
    }
    if items.is_empty() {
        return None;
    }
    // by label: exactly one label (of two characters or more) in the reply (`方案1`, `option b`;
    // a label without a number or letter, `postgres`, only `by_label`)
    let folded = reply.to_lowercase();
    let carried = |l: &str| {
        items
            .iter()
            .filter(|o| o.label.as_deref() == Some(l))
            .count()
    };
    let mut labels: Vec<&str> = items
        .iter()
        .filter(|o| {
            !o.keys.is_empty()
                || (asked
                    // a free label: one item's own (not a field every item repeats, `Note:`),
                    // of three characters or more
                    && o.label
                        .as_deref()
                        .is_some_and(|l| l.chars().count() >= 3 && carried(l) == 1))
        })
        .filter_map(|o| o.label.as_deref())
        .filter(|l| l.chars().count() >= 2 && label_in(&folded, l))
        .collect();
    labels.sort_unstable();
    labels.dedup();
    // a label inside a longer one that matched (`redis` in `redis cluster`) is that one
    let longest: Vec<&str> = labels
        .iter()
        .copied()
        .filter(|l| !labels.iter().any(|m| m != l && m.contains(l)))
        .collect();
    match longest.as_slice() {
        [label] => {
            let o = items
                .iter()
                .rev()
                .find(|o| o.label.as_deref() == Some(*label))?;
            // a free label picks when it is most of the reply (`sqlite is enough`), not when the
            // reply only mentions it (`open skills.md first so I can review`)
            if !o.keys.is_empty() || letters(reply) <= letters(label) + 10 {
                return Some(o.text.clone());
            }
            return None;
        }
        [] => {}
        _ => return None,
    }
    let numbers: Vec<&str> = reply
        .split(|c: char| !c.is_ascii_digit())
        .filter(|d| !d.is_empty())
        .collect();
    match numbers.as_slice() {
        [n] => {
            let n: usize = n.parse().ok()?;
            if let Some(o) = items.iter().rev().find(|o| o.keys.contains(&Key::Num(n))) {
                return Some(o.text.clone());
            }
            // a bulleted list picked by place (after a question): its last run with that many items
            if !asked {
                return None;
            }
            let last_run = items
                .iter()
                .filter_map(|o| o.bullet)
                .filter(|(_, p)| *p == n && n >= 1)
                .map(|(r, _)| r)
                .next_back()?;
            let run: Vec<&Offered> = items
                .iter()
                .filter(|o| o.bullet.is_some_and(|(r, _)| r == last_run))
                .collect();
            // a list whose labels carry numbers (`Tier 0` .. `Tier 3`) is picked by them: a
            // number none of them carries (`there is tier 4`) is no place in it
            if run.len() < 2
                || run
                    .iter()
                    .any(|o| o.keys.iter().any(|k| matches!(k, Key::Num(_))))
            {
                return None;
            }
            return items
                .iter()
                .find(|o| o.bullet == Some((last_run, n)))
                .map(|o| o.text.clone());
        }
        [] => {}
        // `1, 2 and 3`, `1和3都做`, `1-3`: each of several numbered options; `2 or 3` picks none
        ns => return several_picked(&items, reply, ns),
    }
    let letters_offered: Vec<char> = reply_letters(reply)
        .into_iter()
        .filter(|c| items.iter().any(|o| o.keys.contains(&Key::Letter(*c))))
        .collect();
    match letters_offered.as_slice() {
        [c] => items
            .iter()
            .rev()
            .find(|o| o.keys.contains(&Key::Letter(*c)))
            .map(|o| o.text.clone()),
        _ => None,
    }
}

/// Words that join the numbers of one list (`1, 2 and 3`, `1和3`, `1到3`).
const LIST_JOINS: &[&str] = &[
    "and", "und", "et", "y", "e", "и", "і", "&", "和", "及", "与", "與", "跟", "到", "至", "と",
];

/// True when the numbers of `reply` are one list of two or more: only separators (`,` `，` `、`
/// `;` `-` `~` `+` `/`, spaces) and joining words ([`LIST_JOINS`]) between them
/// (`立即执行操作1，2，3`, `do 1, 2 and 3 now`); `add 2 tests to 3 modules` names two counts.
pub fn number_list(reply: &str) -> bool {
    let mut runs = 0usize;
    let mut numbers = 0usize;
    let mut gap = String::new();
    let mut in_number = false;
    for c in reply.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                numbers += 1;
                if numbers == 1 || !joins_list(&gap) {
                    runs += 1;
                }
                gap.clear();
            }
            in_number = true;
        } else {
            in_number = false;
            if numbers > 0 {
                gap.push(c);
            }
        }
    }
    numbers >= 2 && runs == 1
}

/// True when `gap`, the text between two numbers, only joins them into a list.
fn joins_list(gap: &str) -> bool {
    gap.split(|c: char| c.is_whitespace() || ",，、;；-~–+/.．".contains(c))
        .filter(|w| !w.is_empty())
        .all(|w| LIST_JOINS.contains(&w.to_lowercase().as_str()))
}

/// Most options one reply picks by number (`1-3`, `1, 2, 4 and 5`).
pub const MAX_PICKS: usize = 6;

/// Words that make a reply naming several numbers a choice still open (`2 or 3`, `2还是3`).
const EITHER: &[&str] = &["or", "oder", "ou", "o", "или", "або", "either", "vs"];
const EITHER_PIECES: &[&str] = &["或", "还是", "還是", "か"];

/// The numbered options a reply picks by several numbers (`1, 2 and 3`, `do 1 and 3`, `1和3`,
/// `1-3`), their texts joined by `; `: only when every number (or each number of a range) is an
/// offered option's, at most [`MAX_PICKS`], and the reply does not weigh them against each
/// other (`2 or 3`, `2还是3`). `None` otherwise.
fn several_picked(items: &[Offered], reply: &str, numbers: &[&str]) -> Option<String> {
    let lower = reply.to_lowercase();
    if lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| EITHER.contains(&w))
        || EITHER_PIECES.iter().any(|p| lower.contains(p))
    {
        return None;
    }
    let ns: Vec<usize> = numbers
        .iter()
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    // `1-3`, `1~3`, `1到3`: two numbers with a range sign between them
    let between = |a: &str, b: &str| {
        let (i, j) = (reply.find(a)?, reply.rfind(b)?);
        (i + a.len() <= j).then(|| reply[i + a.len()..j].trim())
    };
    let range = match (numbers, ns.as_slice()) {
        ([a, b], [lo, hi]) if lo < hi => between(a, b)
            .is_some_and(|sep| matches!(sep, "-" | "~" | "–" | "到" | "至" | "〜" | "..")),
        _ => false,
    };
    let ns: Vec<usize> = if range { (ns[0]..=ns[1]).collect() } else { ns };
    if ns.len() > MAX_PICKS {
        return None;
    }
    let mut picked: Vec<&str> = Vec::new();
    for n in ns {
        let o = items.iter().rev().find(|o| o.keys.contains(&Key::Num(n)))?;
        if !picked.contains(&o.text.as_str()) {
            picked.push(&o.text);
        }
    }
    (picked.len() >= 2).then(|| picked.join("; "))
}

/// True when `label` stands in `text` as a word (not inside a longer word of letters or digits;
/// a CJK label anywhere).
fn label_in(text: &str, label: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() && !unspaced(c));
    occurs(text, label, |before, after| {
        !word(before.chars().next_back()) && !word(after.chars().next())
    })
}

/// Whether `needle` occurs in `text` at a place `bounded` accepts, given the text before and
/// after that occurrence (every occurrence is tried, overlapping ones too). The one search of
/// the "is it there as a whole word" checks, each with its own idea of a word's edge.
pub fn occurs(text: &str, needle: &str, bounded: impl Fn(&str, &str) -> bool) -> bool {
    let Some(first) = needle.chars().next() else {
        return false;
    };
    let mut from = 0;
    while let Some(i) = text[from..].find(needle) {
        let (s, e) = (from + i, from + i + needle.len());
        if bounded(&text[..s], &text[e..]) {
            return true;
        }
        from = s + first.len_utf8();
    }
    false
}

/// The subject of a tool call, for naming and deduplicating its failures: the `command` (without
/// a leading `cd <dir> &&` and without output plumbing such as `2>&1 | tail`; as written when
/// that leaves nothing), else the first path, else the text values of the arguments, longest
/// first (`web_fetch`'s URL, `web_search`'s query: what the call was about, not its JSON), else
/// their compact JSON; at most `max` characters. `None` without arguments.
pub fn call_subject(params: &Value, max: usize) -> Option<String> {
    if let Some(cmd) = params.get("command").and_then(Value::as_str) {
        // a line with no working command of its own (`test -s x`, `echo hi`) is said as written
        let c = match command_core(cmd) {
            c if c.is_empty() => crate::capture::squash(cmd),
            c => c,
        };
        if !c.is_empty() {
            return Some(crate::capture::gist(&c, max));
        }
    }
    if let Some(p) = crate::capture::extract_paths(params).into_iter().next() {
        return Some(crate::capture::gist(&p, max));
    }
    match params {
        Value::Null => None,
        Value::Object(m) if m.is_empty() => None,
        Value::Object(m) => {
            let mut texts: Vec<String> = m
                .values()
                .filter_map(Value::as_str)
                .map(crate::capture::squash)
                .filter(|t| !t.is_empty())
                .collect();
            texts.sort_by_key(|t| std::cmp::Reverse(t.chars().count()));
            Some(crate::capture::gist(
                &if texts.is_empty() {
                    params.to_string()
                } else {
                    texts.join(" ")
                },
                max,
            ))
        }
        v => Some(crate::capture::gist(&v.to_string(), max)),
    }
}

/// The commands of a shell line that do the work: split at `&&`, `||` and `;`, each cut before
/// its first pipe and its redirections (`2>&1`, `> out.txt`), directory changes (`cd x`) left out,
/// messages too ([`shell_commands`]).
pub fn command_parts(cmd: &str) -> Vec<String> {
    shell_commands(cmd).into_iter().map(|(c, _)| c).collect()
}

/// [`command_parts`], each with whether a message was cut out of it (`git commit -m "..."` ->
/// `(git commit, true)`): what such a command did was its message. A program left alone by
/// the cut (`bash -c "..."`) is left out.
pub fn shell_commands(cmd: &str) -> Vec<(String, bool)> {
    let without = without_heredocs(cmd);
    let cmd = without.as_str();
    // Split at the operators outside quotes; a pipe ends the part's useful text.
    let mut parts: Vec<(String, bool)> = vec![(String::new(), false)];
    // (inside `$( )` the operators belong to the substitution: `X=$(echo "$R" | jq .a)`)
    let mut quoting = Quoting::default();
    let chars: Vec<char> = cmd.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let (cur, piped) = parts.last_mut().expect("never empty");
        if quoting.syntax(c) {
            if c == ';' || c == '\n' || (c == '&' || c == '|') && chars.get(i + 1) == Some(&c) {
                parts.push((String::new(), false));
                i += if c == ';' || c == '\n' { 1 } else { 2 };
                continue;
            } else if c == '|' {
                *piped = true;
            }
        }
        if !*piped {
            cur.push(c);
        }
        i += 1;
    }
    let mut out = Vec::new();
    for (part, _) in parts {
        // a subshell's parentheses (`(cd web && git push)`) are grammar, not part of a command
        let opens = part.matches('(').count();
        let closes = part.matches(')').count();
        let mut part = part.trim();
        if opens > closes {
            part = part.strip_prefix('(').unwrap_or(part);
        } else if closes > opens {
            part = part.strip_suffix(')').unwrap_or(part).trim_end();
        }
        let all = shell_words(part);
        let words: Vec<&str> = all
            .iter()
            .map(String::as_str)
            .take_while(|w| {
                !w.starts_with(['>', '<'])
                    && !w.starts_with("2>")
                    && !w.starts_with("1>")
                    && !w.starts_with("&>")
            })
            .collect();
        // a lone program whose input or output was redirected (`cat > a.py <<EOF`) wrote or
        // read a file: the file is the subject, the program alone says nothing
        let cut = words.len() < all.len();
        // shell grammar is not a command: `do`/`then`/`else` lead into one, loop and test
        // headers (`for f in *`, `while read x`, `[ -f a ]`) and closers (`done`, `fi`) are none
        let lead = words
            .iter()
            .take_while(|w| {
                matches!(
                    **w,
                    "do" | "then" | "else" | "if" | "!" | "time" | "{" | "("
                )
            })
            .count();
        let words = &words[lead..];
        if words.is_empty()
            || matches!(
                words[0],
                "cd" | "pushd"
                    | "popd"
                    | "for"
                    | "while"
                    | "until"
                    | "case"
                    | "select"
                    | "done"
                    | "fi"
                    | "esac"
                    | "}"
                    | ")"
                    | "["
                    | "[["
                    | "test"
                    | "function"
                    | "break"
                    | "continue"
                    | "return"
                    | "shift"
                    | "local"
                    | "declare"
                    | "readonly"
                    | "let"
            )
            // variables set and nothing run (`PAGE=$(echo "$R" | jq .n)`, `TOTAL=$((A + B))`)
            || words.iter().all(|w| assignment(w))
            // a variable run as a test (`if $all_pass; then`)
            || (words.len() == 1 && words[0].starts_with('$'))
            || !command_like(words[0])
            || (cut && words.len() == 1)
        {
            continue;
        }
        let line = words.join(" ");
        if looks_around(&line) {
            out.push((line, false));
            continue;
        }
        let kept = without_messages(words);
        if kept.len() == words.len() {
            out.push((line, false));
        } else if kept.len() > 1 {
            out.push((kept.join(" "), true));
        }
    }
    out
}

/// Most words of a quoted argument kept in a command: one with more is a message or a script
/// (`git commit -m "WP12: Create rpc-mode.ts"`, `--reason="..."`), not something a person
/// retypes; a pattern or a name (`-t "retry policy"`) has fewer.
pub const QUOTED_ARG_WORDS: usize = 2;

/// Where a shell text stands as it is read: inside quotes, right after a backslash, or inside a
/// command substitution `$( )` (whose operators and spaces belong to it).
#[derive(Default)]
struct Quoting {
    quote: Option<char>,
    escaped: bool,
    /// `$( )` open around the character read.
    depth: usize,
    /// The character read before.
    prev: char,
}

impl Quoting {
    /// Reads `c`: true when it is shell syntax (outside quotes and substitutions, not escaped,
    /// not a quote, an escape or a substitution's parenthesis itself).
    fn syntax(&mut self, c: char) -> bool {
        let prev = std::mem::replace(&mut self.prev, c);
        if self.escaped {
            self.escaped = false;
        } else if c == '\\' && self.quote != Some('\'') {
            self.escaped = true;
        } else if let Some(q) = self.quote {
            if c == q {
                self.quote = None;
            }
        } else if c == '\'' || c == '"' {
            self.quote = Some(c);
        } else if c == '(' && prev == '$' {
            self.depth += 1;
        } else if c == ')' && self.depth > 0 {
            self.depth -= 1;
        } else {
            return self.depth == 0;
        }
        false
    }
}

/// The words of one shell command: split at whitespace outside quotes and `$( )`, each word as
/// written (quotes kept).
fn shell_words(part: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quoting = Quoting::default();
    for c in part.chars() {
        if quoting.syntax(c) && c.is_whitespace() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// The words without message arguments: a command substitution, a multi-line text or a quoted
/// text of more than [`QUOTED_ARG_WORDS`] words (a commit message, a reason, a script),
/// together with the flag it is the value of (`-m "..."`, `--reason="..."`).
fn without_messages<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let message = |w: &str| {
        let value = match w.split_once('=') {
            Some((flag, v)) if flag.starts_with('-') => v,
            _ => w,
        };
        let quoted = value.starts_with(['"', '\'']);
        value.contains("$(")
            || value.contains('`')
            || value.contains('\n')
            || (quoted && value.split_whitespace().count() > QUOTED_ARG_WORDS)
    };
    let mut out: Vec<&str> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 && message(w) {
            if out.len() > 1
                && out
                    .last()
                    .is_some_and(|f| f.starts_with('-') && !f.contains('='))
            {
                out.pop();
            }
            continue;
        }
        out.push(w);
    }
    out
}

/// A shell variable assignment (`NAME=value`, `PAGE=$(...)`): a name of letters, digits and `_`
/// before the first `=`.
fn assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The first word of a command: a program name or path (`npm`, `./run.sh`, `$EDITOR`,
/// `FOO=1`), not a list marker (`1.`, `-`, `*`), a comment or the label of a line of prose.
fn command_like(first: &str) -> bool {
    let numbered = first
        .trim_end_matches(['.', ')'])
        .chars()
        .all(|c| c.is_ascii_digit())
        && first.ends_with(['.', ')']);
    first.starts_with(|c: char| c.is_alphanumeric() || matches!(c, '.' | '/' | '~' | '$' | '_'))
        && !numbered
        && !first.ends_with(':')
}

/// Programs that only look around (list, print, search, count): run once, they are part of
/// reading, not of the work; their quoted arguments are patterns, not messages.
const LOOK_PROGRAMS: &[&str] = &[
    "ls", "ll", "la", "dir", "cat", "bat", "less", "more", "head", "tail", "grep", "egrep", "rg",
    "ag", "ack", "find", "fd", "locate", "echo", "printf", "pwd", "wc", "which", "whereis", "type",
    "file", "stat", "tree", "du", "df", "date", "env", "printenv", "sleep", "true", "false",
    "sort", "uniq", "cut", "jq", "yq", "basename", "dirname", "readlink", "realpath", "ps",
    "whoami", "id", "uname", "hostname", "history", "diff", "cmp", "xxd", "hexdump", "od",
    "strings", "nl", "column", "man", "lsof", "top", "free", "nproc", "tldr",
];
/// Subcommands that only show something, in any command-line tool (`git status`, `gh pr view`,
/// `npm ls`, `cargo tree`, `kubectl get`).
const LOOK_SUBCOMMANDS: &[&str] = &[
    "status",
    "show",
    "list",
    "ls",
    "log",
    "diff",
    "view",
    "info",
    "help",
    "--help",
    "-h",
    "--version",
    "-V",
    "version",
    "describe",
    "tree",
    "search",
    "blame",
    "ls-files",
    "rev-parse",
    "whoami",
    "outdated",
    "why",
    "explain",
    "inspect",
    "cat",
    "grep",
];
/// True for a command that only looks around: a program of [`LOOK_PROGRAMS`] (`sed -n` and
/// `awk` printing), or a tool's subcommand of [`LOOK_SUBCOMMANDS`] among its first words.
pub fn looks_around(command: &str) -> bool {
    let mut words = command
        .split_whitespace()
        .skip_while(|w| w.contains('=') && !w.starts_with('-'));
    let Some(program) = words.next() else {
        return true;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    let rest: Vec<&str> = words.take(3).collect();
    if program == "sed" {
        return rest.first() == Some(&"-n");
    }
    LOOK_PROGRAMS.contains(&program)
        || rest
            .iter()
            .take_while(|w| !w.contains(['/', '.', '"', '\'']) || w.starts_with('-'))
            .any(|w| LOOK_SUBCOMMANDS.contains(w))
}

/// The shell text without the bodies of its here-documents (`<<EOF` ... `EOF`, `<<-'END'` ...
/// `END`): their lines are a file's or a program's text, not commands.
pub fn without_heredocs(cmd: &str) -> String {
    if !cmd.contains("<<") {
        return cmd.to_string();
    }
    let mut out = String::with_capacity(cmd.len());
    let mut pending: Vec<String> = Vec::new();
    let mut lines = cmd.split_inclusive('\n');
    while let Some(line) = lines.next() {
        out.push_str(line);
        let mut rest = line;
        while let Some(i) = rest.find("<<") {
            let after = rest[i + 2..].trim_start_matches(['-', '~']);
            if let Some(string) = after.strip_prefix('<') {
                // a here-string (<<<): no body
                rest = string;
                continue;
            }
            let after = after.trim_start();
            let word: String = after
                .chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, ';' | '|' | '&' | ')' | '>'))
                .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                .collect();
            if !word.is_empty() {
                pending.push(word);
            }
            // past the word's first character (a whole character: `<<日本語` is text, not a byte)
            rest = &after[after.chars().next().map_or(0, char::len_utf8)..];
        }
        for word in pending.drain(..) {
            for body in lines.by_ref() {
                if body.trim() == word {
                    break;
                }
            }
        }
    }
    out
}

/// A shell line's working commands joined with ` && ` (see [`command_parts`]).
pub fn command_core(cmd: &str) -> String {
    command_parts(cmd).join(" && ")
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

/// The inline code spans (single backticks, on one line) of a text, in order.
pub fn code_spans(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in lines_outside_fences(text) {
        let mut rest = line;
        while let Some(i) = rest.find('`') {
            let after = &rest[i + 1..];
            match after.find('`') {
                Some(j) => {
                    let span = after[..j].trim();
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_number_no_label_carries_is_no_place_in_a_list_numbered_by_its_labels() {
        let tiers = "Right, 4 tiers.\n\n**Four-tier system:**\n- Tier 0: Registered, not verified\n- Tier 1: Passed initiation\n- Tier 2: Parent verified\n- Tier 3: Community recognized\n\nOptions:\n- A) Tier 1 can use some apps\n- B) Tier 1 cannot use any apps\n\nWhat do you think Tier 1 should be able to do?";
        assert_eq!(
            chosen_option(tiers, "actually five, there is tier 4", true),
            None
        );
        assert_eq!(
            chosen_option(tiers, "2", true).as_deref(),
            Some("Tier 2: Parent verified")
        );
        // a list without numbers of its own is still picked by place
        let plain = "Two ways.\n\n- Keep the cache\n- Drop the cache\n\nWhich one?";
        assert_eq!(
            chosen_option(plain, "2", true).as_deref(),
            Some("Drop the cache")
        );
    }

    #[test]
    fn numbers_joined_by_separators_are_one_list() {
        for list in [
            "太好了，立即执行操作1，2，3",
            "great, do 1, 2 and 3 right away",
            "1和3都做",
            "1、2、4",
            "1-3",
            "1到3",
        ] {
            assert!(number_list(list), "{list}");
        }
        for not in [
            "add 2 tests to 3 modules",
            "2 or 3",
            "2还是3",
            "do 2",
            "no numbers here",
        ] {
            assert!(!number_list(not), "{not}");
        }
    }

    #[test]
    fn a_heredoc_marker_before_multi_byte_text_is_read_by_characters() {
        // `<<` followed by a character of several bytes cut the text inside it (a panic)
        assert_eq!(
            without_heredocs("cat <<日本語\nbody\n日本語\nnpm test"),
            "cat <<日本語\nnpm test"
        );
        assert_eq!(without_heredocs("echo a <<é"), "echo a <<é");
        assert_eq!(command_parts("cat <<🙂 && make"), ["make"]);
    }

    #[test]
    fn messages_and_scripts_are_not_part_of_a_command() {
        // a commit message from a heredoc in a command substitution (Claude Code's usual commit)
        let commit = "git add -f priv/static/app.css && git commit -m \"$(cat <<'EOF'\nfeat: rebuild the panel\n\nCo-Authored-By: x\nEOF\n)\" && git log --oneline -1";
        assert_eq!(
            command_parts(commit),
            [
                "git add -f priv/static/app.css",
                "git commit",
                "git log --oneline -1"
            ]
        );
        // a long quoted value with its flag, in either form; later flags stay
        assert_eq!(
            command_parts(
                "bd close spotter-x.1 --reason=\"Enriched the renderer with metadata fields and tests\""
            ),
            ["bd close spotter-x.1"]
        );
        assert_eq!(
            command_parts(
                "gh pr create --title \"Add retry to the HTTP client with backoff and jitter\" --draft"
            ),
            ["gh pr create --draft"]
        );
        // short quoted arguments and patterns are part of the command
        assert_eq!(
            command_parts("git commit -m 'fix typo' && npm test -- -t \"retry policy\""),
            [
                "git commit -m 'fix typo'",
                "npm test -- -t \"retry policy\""
            ]
        );
        assert_eq!(
            command_parts("python3 -c \"$(cat script.py)\" --verbose"),
            ["python3 --verbose"]
        );
        // a program alone after the cut says nothing
        assert_eq!(
            shell_commands("bash -c \"set -e; for f in a b; do echo $f; done\" && make"),
            [("make".to_string(), false)]
        );
        assert_eq!(
            shell_commands("git commit -m \"fix the retry loop\""),
            [("git commit".to_string(), true)]
        );
        assert_eq!(
            command_parts("cd web && npm test 2>&1 | tail -20"),
            ["npm test"]
        );
        assert_eq!(
            command_parts("git commit -m \"WP12: Create rpc-mode.ts\""),
            ["git commit"]
        );
        // shell grammar: a loop's body is its command, the header and closer are none
        assert_eq!(
            command_parts("for f in *.ts; do cp \"$f\" ../out/; done"),
            ["cp \"$f\" ../out/"]
        );
        assert_eq!(
            command_parts("if [ -f Cargo.toml ]; then cargo build; else make; fi"),
            ["cargo build", "make"]
        );
        // a pipe or `;` inside `$( )` belongs to it; setting variables runs nothing; loop
        // control is grammar
        assert_eq!(
            command_parts(
                "while true; do\n  RESULT=$(gh api graphql -f query=\"$Q\")\n  PAGE=$(echo \"$RESULT\" | jq '.n'); TOTAL=$((TOTAL + PAGE))\n  [ \"$PAGE\" = 0 ] && break\ndone\nFOO=1 npm test"
            ),
            ["FOO=1 npm test"]
        );
        assert_eq!(
            command_parts("echo $(date; uptime) && make"),
            ["echo $(date; uptime)", "make"]
        );
        assert_eq!(
            command_parts("(cd web && git add -A && git push); if $ok; then make; fi"),
            ["git add -A", "git push", "make"]
        );
    }

    #[test]
    fn substance_by_structure_in_several_languages() {
        for noise in [
            "",
            "   ",
            "/mode",
            "/the",
            "/compact keep the plan",
            "/モデル",
        ] {
            assert_eq!(substance(noise), Substance::Noise, "{noise:?}");
        }
        for ack in [
            "ok",
            "yes",
            "yeah, do it all",
            "continue",
            "weiter so",
            "はい",
            "да, давай",
            "sí, hazlo",
            "go",
        ] {
            assert_eq!(substance(ack), Substance::Ack, "{ack:?}");
        }
        for content in [
            "fix the failing tests",
            "no deprecation alias!",
            "read src/main.ts",
            "use `setModel` here",
            "https://github.com/x/y/issues/288",
            "do 2 and 3",
            "ログインのバグを直して",
            "bitte die Tests reparieren, danke",
            "исправь падающие тесты пожалуйста",
            "/Users/me/project/a.ts is broken",
        ] {
            assert_eq!(substance(content), Substance::Content, "{content:?}");
        }
    }

    #[test]
    fn questions_and_proposals() {
        assert!(is_question("Shall I proceed?"));
        assert!(is_question("続けますか？"));
        assert!(is_question("**Want me to go on?**"));
        assert!(!is_question("Done."));
        let (q, p) = proposal("Here is the plan.\n\nMove `tools` to core/tools and theme to modes/theme.\n\nShall I proceed?").unwrap();
        assert_eq!(q, "Shall I proceed?");
        assert_eq!(
            p.as_deref(),
            Some("Move `tools` to core/tools and theme to modes/theme.")
        );
        let (q, p) = proposal("Option A or B?").unwrap();
        assert_eq!((q.as_str(), p), ("Option A or B?", None));
        let (q, p) = proposal("Here is the plan. Use SQLite. Postgres or SQLite?").unwrap();
        assert_eq!(q, "Postgres or SQLite?");
        assert_eq!(p.as_deref(), Some("Here is the plan. Use SQLite."));
        let (q, p) = proposal("計画です。よろしいですか？").unwrap();
        assert_eq!(
            (q.as_str(), p.as_deref()),
            ("よろしいですか？", Some("計画です。"))
        );
        let (_, p) = proposal("Wir verschieben die Dateien nach core/.\nSoll ich?").unwrap();
        assert_eq!(
            p.as_deref(),
            Some("Wir verschieben die Dateien nach core/.")
        );
        assert!(proposal("Done. Tomorrow brings another day.").is_none());
        assert!(proposal("").is_none());
    }

    #[test]
    fn shell_prompts_of_pasted_terminal_sessions() {
        for l in [
            "PS C:\\Users\\Digy Agency\\Desktop\\hub> openclaw cron --help",
            ">> --non-interactive",
            "C:\\Windows\\system32>openclaw agents list",
            "$ npm test",
            "jules@vps:~/bot$ openclaw gateway restart",
            "PS /home/jules> ls",
        ] {
            assert!(is_shell_prompt_line(l), "{l}");
        }
        for l in [
            "Please don't restart the gateway",
            "$5 per month is the budget",
            "C:\\Users\\me is my home, use it",
            "email me at a@b.c: thanks",
            "> quoted text",
        ] {
            assert!(!is_shell_prompt_line(l), "{l}");
        }
    }

    #[test]
    fn a_numbered_reply_picks_the_option() {
        let agent = "Three ways:\n1. Keep the cache\n2. **Drop the cache** and rebuild\n3. Move it to SQLite\n\nWhich one?";
        let pick = |r: &str| chosen_option(agent, r, true);
        assert_eq!(pick("3.").as_deref(), Some("Move it to SQLite"));
        assert_eq!(
            pick("lets do 2").as_deref(),
            Some("Drop the cache and rebuild")
        );
        assert_eq!(pick("2番で").as_deref(), Some("Drop the cache and rebuild"));
        assert_eq!(pick("(1)").as_deref(), Some("Keep the cache"));
        assert_eq!(pick("2 or 3"), None);
        assert_eq!(pick("2还是3"), None);
        assert_eq!(pick("7"), None);
        // several numbers: each of the options, in the reply's order; a number not offered, none
        assert_eq!(
            pick("do 1 and 3").as_deref(),
            Some("Keep the cache; Move it to SQLite")
        );
        assert_eq!(
            pick("立即执行1，2，3").as_deref(),
            Some("Keep the cache; Drop the cache and rebuild; Move it to SQLite")
        );
        assert_eq!(
            pick("1-3").as_deref(),
            Some("Keep the cache; Drop the cache and rebuild; Move it to SQLite")
        );
        assert_eq!(pick("2 and 7"), None);
        assert_eq!(pick("3 first then 3"), None);
        assert_eq!(chosen_option("no list here?", "1", true), None);
        // a rule or an emoji after the number is no option
        assert_eq!(chosen_option("1. ---\n2. 🎉\n", "1", true), None);
    }

    #[test]
    fn options_in_bullets_letters_and_labels() {
        // a bulleted list: by place or by its label
        let bullets = "Two ways to store it:\n\n- **Postgres**: durable, needs a server\n- **SQLite**: one file, no server\n\nWhich one?";
        assert_eq!(
            chosen_option(bullets, "lets do 2", true).as_deref(),
            Some("SQLite: one file, no server")
        );
        assert_eq!(
            chosen_option(bullets, "sqlite is enough", true).as_deref(),
            Some("SQLite: one file, no server")
        );
        assert_eq!(chosen_option(bullets, "sqlite is enough", false), None);
        assert_eq!(chosen_option(bullets, "postgres and sqlite", true), None);
        // a label the reply only mentions, or a field every item repeats, picks nothing
        let files =
            "- **skills.md**: rewritten\n- **hooks.md**: untouched\n\nContinue with hooks.md?";
        assert_eq!(
            chosen_option(files, "open skills.md first so i can review it", true),
            None
        );
        let fields = "**问题**：冷却时间太长\n**建议**：分级响应\n\n**问题**：版本不一致\n**建议**：统一版本号\n\n需要我展开吗？";
        assert_eq!(chosen_option(fields, "没问题再发布", true), None);
        // Option A/B as headings, their text the line below
        let headed = "### Option A\nKeep the cron job hourly.\n\n### Option B\nRun it on every push.\n\nWhich do you prefer?";
        assert_eq!(
            chosen_option(headed, "B please", true).as_deref(),
            Some("Option B: Run it on every push.")
        );
        assert_eq!(
            chosen_option(headed, "b", false).as_deref(),
            Some("Option B: Run it on every push.")
        );
        // "I" is a pronoun unless the agent offered an option I
        assert_eq!(
            chosen_option(headed, "I think A", true).as_deref(),
            Some("Option A: Keep the cron job hourly.")
        );
        // 方案一/二 and 方案A/B, picked by label or letter
        let zh = "**方案一：** 每小时运行一次定时任务\n**方案二：** 每次推送时运行\n\n你选哪个？";
        assert_eq!(
            chosen_option(zh, "选方案二", true).as_deref(),
            Some("方案二： 每次推送时运行")
        );
        let zh_ab = "- 方案A：使用cron\n- 方案B：使用systemd timer\n\n选哪个？";
        assert_eq!(
            chosen_option(zh_ab, "方案B", true).as_deref(),
            Some("方案B：使用systemd timer")
        );
        // `方案1` with its own numbered or bulleted steps: the label, not a step, is picked
        let steps = "**方案1**：删除并重新创建任务\n- 删除当前任务\n1. 创建新任务\n\n**方案2**：等待修复\n1. 关注更新\n\n你希望我执行哪个方案？";
        assert_eq!(
            chosen_option(steps, "方案1", true).as_deref(),
            Some("方案1：删除并重新创建任务")
        );
        assert_eq!(
            chosen_option(steps, "方案1", false).as_deref(),
            Some("方案1：删除并重新创建任务")
        );
        // lettered items
        let lettered = "A) keep it\nB) drop it\n\nOK?";
        assert_eq!(
            chosen_option(lettered, "A", true).as_deref(),
            Some("keep it")
        );
        assert_eq!(chosen_option(lettered, "OK", true), None);
    }

    #[test]
    fn proposals_are_prose_with_letters() {
        // options listed before the question, the last of them ending with a question mark, are
        // what it proposes; a paragraph that asks is not
        let options = "| Tier | Apps |\n|---|---|\n| 0 | no |\n\nOptions:\n- A) Tier 1 can use some apps\n- B) Tier 1 cannot use apps\n- C) Something else?\n\nWhat should Tier 1 be able to do?";
        assert_eq!(
            proposal(options).and_then(|(_, p)| p).as_deref(),
            Some("Options: - A) Tier 1 can use some apps - B) Tier 1 cannot use apps - C) Something else?")
        );
        let asked =
            "We keep the cache in memory.\n\nOr should it live in Redis?\n\nWhich one do you want?";
        assert_eq!(
            proposal(asked).and_then(|(_, p)| p).as_deref(),
            Some("We keep the cache in memory.")
        );
        // a horizontal rule, a table rule, an emoji line or a code block before the question is
        // never the proposal: the nearest paragraph with letters is
        for sep in [
            "---",
            "***",
            "|---|---|",
            "🎉🎉🎉",
            "```bash\ncrontab -e\n\n0 * * * * run\n```",
        ] {
            let text = format!(
                "## 推广方案\n\n**每天发布一篇技能介绍**，周末汇总。\n\n{sep}\n\n是否需要我配置这些推广任务到定时任务中？"
            );
            let (q, p) = proposal(&text).unwrap();
            assert_eq!(q, "是否需要我配置这些推广任务到定时任务中？", "{sep}");
            assert_eq!(
                p.as_deref(),
                Some("每天发布一篇技能介绍，周末汇总。"),
                "{sep}"
            );
        }
        // a heading's marks are not part of the gist
        let (_, p) = proposal("# Plan: move the store to SQLite\n\n---\n\nShall I?").unwrap();
        assert_eq!(p.as_deref(), Some("Plan: move the store to SQLite"));
        // nothing with letters before the question: the question alone
        let (_, p) = proposal("---\n\n🎉\n\nOK?").unwrap();
        assert_eq!(p, None);
        assert_eq!(
            prose_paragraphs("a b\n\n```\nx\n\ny\n```\n\n---\n\nDone."),
            ["a b", "Done."]
        );
        // a table is its cells
        assert_eq!(
            plain("| 动作 | 频率 |\n|------|------|\n| 打卡 | 每天 |"),
            "动作, 频率; 打卡, 每天"
        );
        assert!(asks("任务处理完了吗") && asks("開發結束了嗎？") && asks("done?"));
        assert!(!asks("用PostgreSQL，不要SQLite") && !asks("好的"));
        // without a mark: a particle, a question piece, an English question's opening
        for q in [
            "你是什么模型",
            "这个怎么样呢",
            "テレグラムのリストはわかりますか",
            "did you surf anywhere",
            "what about Redis",
            "why does the job fail every night",
        ] {
            assert!(asks(q), "{q}");
        }
        for not in [
            "do it now",
            "do this first, then the tests",
            "what i mean is two nodes at least",
            "is fine, keep it",
            "ok, use h4 heading then",
            "没什么问题，继续",
        ] {
            assert!(!asks(not), "{not}");
        }
        assert_eq!(
            report_gist("Migrated the store.\n\nAll 42 tests pass.\n\n---\n").as_deref(),
            Some("All 42 tests pass.")
        );
    }

    #[test]
    fn names_and_pasted_text() {
        for named in [
            "用PostgreSQL，不要SQLite",
            "use SQLite",
            "换成redis吧",
            "GitHub Actions",
        ] {
            assert!(names_something(named), "{named}");
        }
        for not in [
            "ok",
            "Thanks",
            "Ok, Thanks!",
            "好的",
            "谢谢",
            "OK",
            "好的OK",
            "LGTM",
        ] {
            assert!(!names_something(not), "{not}");
        }
        assert!(mostly_pasted("https://example.com/a/very/long/path?x=1"));
        assert!(mostly_pasted("`npm run build --workspace web`"));
        assert!(mostly_pasted("see ```x```"));
        assert!(!mostly_pasted("use `setModel` in the loader"));
        assert!(!mostly_pasted("用PostgreSQL，不要SQLite"));
    }

    #[test]
    fn call_subjects_and_commands() {
        assert_eq!(
            call_subject(
                &json!({"command": "cd /x/y && npm run check 2>&1 | tail -30"}),
                80
            )
            .as_deref(),
            Some("npm run check")
        );
        assert_eq!(
            call_subject(&json!({"path": "src/a.ts", "oldText": "x"}), 80).as_deref(),
            Some("src/a.ts")
        );
        assert_eq!(
            call_subject(&json!({"q": 1}), 80).as_deref(),
            Some(r#"{"q":1}"#)
        );
        // a call without a command or a path: what it was about, its text values, longest first
        assert_eq!(
            call_subject(&json!({"url": "http://127.0.0.1:9/tenants"}), 80).as_deref(),
            Some("http://127.0.0.1:9/tenants")
        );
        assert_eq!(
            call_subject(
                &json!({"query": "openclaw  release notes", "count": 5, "freshness": "pw"}),
                80
            )
            .as_deref(),
            Some("openclaw release notes pw")
        );
        assert_eq!(call_subject(&json!({}), 80), None);
        assert_eq!(
            call_subject(&json!({"command": "test -s  out.txt"}), 80).as_deref(),
            Some("test -s out.txt"),
            "no working command: as written"
        );
        assert_eq!(
            command_parts("cd a; git add -A && git commit -m x > /dev/null || true"),
            ["git add -A", "git commit -m x", "true"]
        );
        // here-document bodies and list lines are not commands
        assert_eq!(
            command_parts(
                "cat > /tmp/a.py <<'EOF'\nimport os\nprint(os.getcwd())\nEOF\npython3 /tmp/a.py"
            ),
            ["python3 /tmp/a.py"]
        );
        assert_eq!(
            command_parts("python3 - <<EOF\nfor x in y:\n    run(x)\nEOF"),
            ["python3 -"]
        );
        assert_eq!(
            command_parts("1. Go to: https://example.com\n- then click"),
            Vec::<String>::new()
        );
        assert_eq!(command_parts("FOO=1 ./run.sh"), ["FOO=1 ./run.sh"]);
        // operators inside quotes are text
        assert_eq!(
            command_parts(r#"grep -n "a\|b && c" f.ts | head; echo 'x;y'"#),
            [r#"grep -n "a\|b && c" f.ts"#, "echo 'x;y'"]
        );
    }

    #[test]
    fn fold_keys_ignore_case_markup_and_spacing() {
        assert_eq!(fold_key("Fix the bug"), fold_key("- fix the bug"));
        assert_eq!(fold_key("**Fix** the `bug`."), fold_key("  fix   the bug "));
        assert_eq!(fold_key("1. Fix the bug"), "fix the bug");
        assert_ne!(fold_key("Fix the bug"), fold_key("Fix the bugs"));
        assert_eq!(fold_key("Ärger beheben"), fold_key("ärger BEHEBEN"));
    }

    #[test]
    fn code_spans_outside_fences() {
        let t = "Use `AgentSession` and `setModel()`.\n```ts\nconst `x` = 1\n```\nthen ` ` and `npm run check`";
        assert_eq!(
            code_spans(t),
            ["AgentSession", "setModel()", "npm run check"]
        );
    }
}
