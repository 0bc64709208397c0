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

/// When an agent message ends by asking the user something, the question and what it proposes:
/// `(question, proposal)`, the proposal being the last paragraph before the question that is not
/// itself a question (`None` when the question stands alone). `None` when the message does not
/// end with a question: a short reply to it is not a decision.
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
        before.push(last[..last.len() - last_line.len()].trim());
    }
    for p in paras[..paras.len() - 1].iter().rev() {
        before.push(p);
    }
    let proposal = before
        .into_iter()
        .find(|p| !p.is_empty() && !is_question(p))
        .map(squash);
    Some((question, proposal))
}

/// The item of the agent's numbered list a short reply picks by its number (`3`, `3.`, `(2)`,
/// `lets do 2`, `2番`): the reply holds exactly one number, the agent's text an item with that
/// number. `None` otherwise.
pub fn chosen_option(agent_text: &str, reply: &str) -> Option<String> {
    let numbers: Vec<&str> = reply
        .split(|c: char| !c.is_ascii_digit())
        .filter(|d| !d.is_empty())
        .collect();
    let [n] = numbers.as_slice() else {
        return None;
    };
    let n: usize = n.parse().ok()?;
    let mut found = None;
    for line in agent_text.lines() {
        let t = line.trim().trim_start_matches(['#', '*', ' ']);
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || t[..digits].parse::<usize>().ok() != Some(n) {
            continue;
        }
        let rest = t[digits..].trim_start_matches(['.', ')', ':', '*']);
        if rest.len() < t.len() - digits && !rest.trim().is_empty() {
            // the last list with that number: the options are usually listed last
            found = Some(squash(&rest.replace("**", "")));
        }
    }
    found
}

/// The subject of a tool call, for naming and deduplicating its failures: the `command` (without
/// a leading `cd <dir> &&` and without output plumbing such as `2>&1 | tail`), else the first
/// path, else the compact JSON of the arguments; at most `max` characters. `None` without
/// arguments.
pub fn call_subject(params: &Value, max: usize) -> Option<String> {
    if let Some(cmd) = params.get("command").and_then(Value::as_str) {
        let c = command_core(cmd);
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
    let mut quoting = Quoting::default();
    // inside `$( )` the operators belong to the substitution (`X=$(echo "$R" | jq .a)`)
    let mut depth = 0usize;
    let chars: Vec<char> = cmd.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let (cur, piped) = parts.last_mut().expect("never empty");
        if quoting.syntax(c) {
            if c == '(' && i > 0 && chars[i - 1] == '$' {
                depth += 1;
            } else if c == ')' && depth > 0 {
                depth -= 1;
            } else if depth > 0 {
                // (part of the substitution: kept as it is)
            } else if c == ';'
                || c == '\n'
                || (c == '&' || c == '|') && chars.get(i + 1) == Some(&c)
            {
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

/// Where a shell text stands as it is read: inside quotes, or right after a backslash.
#[derive(Default)]
struct Quoting {
    quote: Option<char>,
    escaped: bool,
}

impl Quoting {
    /// Reads `c`: true when it is shell syntax (outside quotes, not escaped, not a quote or an
    /// escape itself).
    fn syntax(&mut self, c: char) -> bool {
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
        } else {
            return true;
        }
        false
    }
}

/// The words of one shell command: split at whitespace outside quotes and `$( )`, each word as
/// written (quotes kept).
fn shell_words(part: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let (mut quoting, mut depth) = (Quoting::default(), 0usize);
    let mut prev = ' ';
    for c in part.chars() {
        if quoting.syntax(c) {
            if c == '(' && prev == '$' {
                depth += 1;
            } else if c == ')' && depth > 0 {
                depth -= 1;
            } else if c.is_whitespace() && depth == 0 {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                prev = c;
                continue;
            }
        }
        cur.push(c);
        prev = c;
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
    fn a_numbered_reply_picks_the_option() {
        let agent = "Three ways:\n1. Keep the cache\n2. **Drop the cache** and rebuild\n3. Move it to SQLite\n\nWhich one?";
        assert_eq!(
            chosen_option(agent, "3.").as_deref(),
            Some("Move it to SQLite")
        );
        assert_eq!(
            chosen_option(agent, "lets do 2").as_deref(),
            Some("Drop the cache and rebuild")
        );
        assert_eq!(
            chosen_option(agent, "2番で").as_deref(),
            Some("Drop the cache and rebuild")
        );
        assert_eq!(chosen_option(agent, "2 or 3"), None);
        assert_eq!(chosen_option(agent, "7"), None);
        assert_eq!(chosen_option("no list here?", "1"), None);
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
        assert_eq!(call_subject(&json!({}), 80), None);
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
