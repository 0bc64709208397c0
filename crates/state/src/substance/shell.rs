//! Shell commands: their working parts, the look-arounds, a call's subject.

use super::*;

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
pub(super) struct Quoting {
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
pub(super) fn shell_words(part: &str) -> Vec<String> {
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
pub(super) fn without_messages<'a>(words: &[&'a str]) -> Vec<&'a str> {
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
pub(super) fn assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The first word of a command: a program name or path (`npm`, `./run.sh`, `$EDITOR`,
/// `FOO=1`), not a list marker (`1.`, `-`, `*`), a comment or the label of a line of prose.
pub(super) fn command_like(first: &str) -> bool {
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
pub(super) const LOOK_PROGRAMS: &[&str] = &[
    "ls", "ll", "la", "dir", "cat", "bat", "less", "more", "head", "tail", "grep", "egrep", "rg",
    "ag", "ack", "find", "fd", "locate", "echo", "printf", "pwd", "wc", "which", "whereis", "type",
    "file", "stat", "tree", "du", "df", "date", "env", "printenv", "sleep", "true", "false",
    "sort", "uniq", "cut", "jq", "yq", "basename", "dirname", "readlink", "realpath", "ps",
    "whoami", "id", "uname", "hostname", "history", "diff", "cmp", "xxd", "hexdump", "od",
    "strings", "nl", "column", "man", "lsof", "top", "free", "nproc", "tldr",
];
/// Subcommands that only show something, in any command-line tool (`git status`, `gh pr view`,
/// `npm ls`, `cargo tree`, `kubectl get`).
pub(super) const LOOK_SUBCOMMANDS: &[&str] = &[
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
            let word = heredoc_delimiter(after);
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

/// The delimiter of a here-document, read after its `<<` (and `-` or `~`): `'EOF'` is `EOF`.
fn heredoc_delimiter(after: &str) -> String {
    after
        .trim_start()
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ';' | '|' | '&' | ')' | '>'))
        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
        .collect()
}

/// A shell line's working commands joined with ` && ` (see [`command_parts`]).
pub fn command_core(cmd: &str) -> String {
    command_parts(cmd).join(" && ")
}

/// Flags whose value is a message: a commit's or a tag's (`git commit -m`, `--message=`). A pull
/// request's body was measured too and not kept: its test plan is steps for a reviewer, not what
/// was done (docs/restore.md).
const MESSAGE_FLAGS: &[&str] = &["-m", "--message"];

/// The messages a shell command carries ([`MESSAGE_FLAGS`]' values: `git commit -m "…"`, the
/// here-document of `-m "$(cat <<'EOF' … EOF)"`), each as paragraphs ([`unwrapped`]), without the
/// trailers a tool signs with (`Co-Authored-By: … <…>`, `Generated with …`). Of a commit's
/// message, the body alone: its subject is the commit's own line.
pub fn command_messages(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let words = shell_words(cmd);
    let mut subject = false;
    for (i, w) in words.iter().enumerate() {
        let value = match w.split_once('=') {
            Some((flag, v)) if MESSAGE_FLAGS.contains(&flag) => v,
            _ if MESSAGE_FLAGS.contains(&w.as_str()) || short_flags_ending_in_m(w) => {
                match words.get(i + 1) {
                    Some(v) => v.as_str(),
                    None => continue,
                }
            }
            _ => continue,
        };
        let commit = words[..i]
            .windows(2)
            .any(|p| p[0] == "git" && p[1] == "commit");
        // a text, not a name (`python3 -m pytest`); a commit's first is its subject, whatever it is
        if (subject || !commit) && without_messages(&["", value]).len() > 1 {
            continue;
        }
        let text = unquoted(value);
        let mut lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !signature(l))
            .collect();
        // (a commit's subject, its message's first line, is said by the commit itself)
        if commit && !subject && !lines.is_empty() {
            lines.remove(0);
            subject = true;
        }
        let message = unwrapped(&lines);
        if !message.is_empty() {
            out.push(message);
        }
    }
    out
}

/// Short flags written together, the last `-m` (`git commit -am "…"`).
fn short_flags_ending_in_m(word: &str) -> bool {
    word.strip_prefix('-').is_some_and(|f| {
        f.len() > 1 && f.ends_with('m') && f.chars().all(|c| c.is_ascii_lowercase())
    })
}

/// A message's lines as paragraphs: a line wrapped at a width (git's 72 columns) joined to the one
/// before it, unless a blank line, a list item or a heading starts it; an HTML comment (a
/// template's note, `<!-- This is an auto-generated comment … -->`) left out.
fn unwrapped(lines: &[&str]) -> String {
    let mut out = String::new();
    for line in lines
        .iter()
        .filter(|l| !(l.starts_with("<!--") && l.ends_with("-->")))
    {
        let starts = line.is_empty()
            || line.starts_with(['-', '*', '+', '#', '|', '>'])
            || line
                .split_once(['.', ')'])
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if !out.is_empty() {
            out.push(if starts || out.ends_with('\n') {
                '\n'
            } else {
                ' '
            });
        }
        out.push_str(line);
    }
    out.trim().to_string()
}

/// A shell word's text: without its quotes, and a `$(cat <<'EOF' … EOF)` substitution's
/// here-document body.
fn unquoted(value: &str) -> String {
    let inner = match value.chars().next() {
        Some(q @ ('"' | '\'')) if value.len() >= 2 && value.ends_with(q) => {
            &value[1..value.len() - 1]
        }
        _ => value,
    };
    if let Some(sub) = inner.trim().strip_prefix("$(") {
        // the here-document's lines, up to its delimiter
        let Some((head, body)) = sub.split_once('\n') else {
            return String::new();
        };
        let Some(at) = head.find("<<") else {
            return String::new();
        };
        let word = heredoc_delimiter(head[at + 2..].trim_start_matches(['-', '~']));
        return body
            .lines()
            .take_while(|l| l.trim() != word)
            .collect::<Vec<_>>()
            .join("\n");
    }
    if value.starts_with('"') {
        inner.replace("\\\"", "\"").replace("\\n", "\n")
    } else {
        inner.to_string()
    }
}

/// A line a tool signs a message with: a trailer naming a person by address (`Co-Authored-By:
/// Claude <noreply@anthropic.com>`, the address redacted or not), or a link to the tool that
/// generated it (`🤖 Generated with [Claude Code](https://claude.com/claude-code)`).
fn signature(line: &str) -> bool {
    let trailer = line.split_once(": ").is_some_and(|(key, value)| {
        !key.is_empty()
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && value.contains('<')
            && value.trim_end().ends_with('>')
    });
    let credit = line
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .starts_with("Generated with [");
    trailer || credit
}
