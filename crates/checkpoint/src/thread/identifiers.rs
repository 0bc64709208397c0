//! Exact identifiers: the names the agent's edits define, its code spans, exact values and the
//! file names it wrote about, most used first.

use super::*;

/// Argument keys of edit and write tools holding the new text (pi, Claude Code, OpenClaw, MCP
/// file tools), and those holding the text it replaces.
pub(super) const NEW_TEXT_KEYS: &[&str] = &[
    "new_string",
    "newText",
    "new_text",
    "new_str",
    "content",
    "contents",
    "new_source",
    "patch",
];
pub(super) const OLD_TEXT_KEYS: &[&str] = &["old_string", "oldText", "old_text", "old_str"];

/// The (new, old) text pairs of an edit or write call.
type EditTexts<'a> = Vec<(Cow<'a, str>, Cow<'a, str>)>;

/// The (new, old) texts of an edit or write call: top-level keys and those of an `edits` array;
/// a patch (`apply_patch`'s `input`, a `patch` or `diff` argument: `*** Begin Patch`, unified
/// diff) by its added and removed lines, its context lines in both.
pub(super) fn edit_texts(args: &Value) -> EditTexts<'_> {
    fn one(v: &Value) -> Option<(Cow<'_, str>, Cow<'_, str>)> {
        for key in ["input", "patch", "diff"] {
            if let Some(p) = v.get(key).and_then(Value::as_str).filter(|p| is_patch(p)) {
                let (new, old) = patch_sides(p);
                return Some((Cow::Owned(new), Cow::Owned(old)));
            }
        }
        let new = NEW_TEXT_KEYS
            .iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str))?;
        let old = OLD_TEXT_KEYS
            .iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str))
            .unwrap_or("");
        Some((Cow::Borrowed(new), Cow::Borrowed(old)))
    }
    let mut out: EditTexts = one(args).into_iter().collect();
    if let Some(edits) = args.get("edits").and_then(Value::as_array) {
        out.extend(edits.iter().filter_map(one));
    }
    out
}

/// True for a patch: OpenClaw's and Codex's `*** Begin Patch` format or a unified diff.
pub(super) fn is_patch(text: &str) -> bool {
    text.trim_start().starts_with("*** Begin Patch")
        || text.lines().any(|l| l.starts_with("@@"))
            && text
                .lines()
                .any(|l| l.starts_with('+') || l.starts_with('-'))
}

/// The (new, old) texts of a patch: added lines and context lines, removed lines and context
/// lines, without their markers; headers (`*** Update File:`, `+++ b/x`, `@@`) in neither.
pub(super) fn patch_sides(patch: &str) -> (String, String) {
    let (mut new, mut old) = (String::new(), String::new());
    for line in patch.lines() {
        if line.starts_with("***")
            || line.starts_with("+++")
            || line.starts_with("---")
            || line.starts_with("@@")
        {
            continue;
        }
        if let Some(added) = line.strip_prefix('+') {
            new.push_str(added);
            new.push('\n');
        } else if let Some(removed) = line.strip_prefix('-') {
            old.push_str(removed);
            old.push('\n');
        } else {
            let context = line.strip_prefix(' ').unwrap_or(line);
            for side in [&mut new, &mut old] {
                side.push_str(context);
                side.push('\n');
            }
        }
    }
    (new, old)
}

/// Keywords that put a name on what follows them, in the common programming languages.
pub(super) const DEF_KEYWORDS: &[&str] = &[
    "def",
    "defp",
    "defmacro",
    "defmacrop",
    "defguard",
    "defguardp",
    "defdelegate",
    "defmodule",
    "defprotocol",
    "defimpl",
    "function",
    "function*",
    "fn",
    "func",
    "fun",
    "class",
    "struct",
    "interface",
    "trait",
    "enum",
    "type",
    "typealias",
    "module",
    "namespace",
    "object",
    "record",
    "protocol",
    "union",
    "mod",
    "const",
    "static",
    "let",
    "var",
    "val",
    "macro_rules!",
];
/// Keywords of [`DEF_KEYWORDS`] that define a function or method (outside Elixir, whose
/// functions are named `name/arity`).
pub(super) const FUNCTION_KEYWORDS: &[&str] =
    &["def", "function", "function*", "fn", "func", "fun"];
/// Words that may stand before a definition's keyword (visibility, asynchrony, linkage).
pub(super) const DEF_MODIFIERS: &[&str] = &[
    "export",
    "default",
    "pub",
    "pub(crate)",
    "pub(super)",
    "async",
    "public",
    "private",
    "protected",
    "internal",
    "abstract",
    "final",
    "override",
    "declare",
    "readonly",
    "unsafe",
    "extern",
    "inline",
    "open",
    "sealed",
    "data",
    "static",
    "partial",
    "virtual",
    "suspend",
];
/// Words that open a statement, never a method definition (`if (x) {`).
pub(super) const STATEMENTS: &[&str] = &[
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "return",
    "else",
    "do",
    "with",
    "new",
    "throw",
    "await",
    "yield",
    "case",
    "elif",
    "foreach",
    "until",
    "unless",
    "when",
    "match",
    "loop",
    "sizeof",
    "typeof",
    "delete",
    "try",
    "finally",
    "assert",
    "function",
    "constructor",
    "super",
    "this",
    "self",
];
/// Module attributes Elixir itself defines (`@doc`, `@spec`): not names of the work.
pub(super) const RESERVED_ATTRIBUTES: &[&str] = &[
    "doc",
    "moduledoc",
    "typedoc",
    "spec",
    "impl",
    "type",
    "typep",
    "opaque",
    "callback",
    "macrocallback",
    "behaviour",
    "derive",
    "enforce_keys",
    "since",
    "deprecated",
    "dialyzer",
    "compile",
    "on_load",
    "on_definition",
    "vsn",
    "external_resource",
    "before_compile",
    "after_compile",
    "tag",
    "moduletag",
    "describetag",
    "optional_callbacks",
    "file",
];

/// A name as code writes it: letters, digits, `_`, `$`, and a final `?` or `!` (Elixir, Ruby).
pub(super) fn name_at(s: &str) -> &str {
    let end = s
        .char_indices()
        .find(|&(_, c)| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '.')))
        .map_or(s.len(), |(i, _)| i);
    let mut end = end;
    if s[end..].starts_with(['?', '!']) {
        end += 1;
    }
    s[..end].trim_end_matches('.')
}

/// The index of the `)` closing the `(` that `s` starts with, if it is in `s`.
pub(super) fn closing_paren(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth <= 1 => return Some(i),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Longest parameter list [`arity`] reads (in characters).
pub(super) const MAX_PARAMS_CHARS: usize = 1000;

/// Arguments of the parenthesised list at the start of `s` (top-level commas, across lines):
/// `None` without a list, or one not closed within [`MAX_PARAMS_CHARS`] (a cut fragment: read
/// to the end of the text at every function head, it took quadratic time).
pub(super) fn arity(s: &str) -> Option<usize> {
    let s = s.strip_prefix('(')?;
    let (mut depth, mut commas, mut any) = (0i32, 0usize, false);
    let mut quote = None::<char>;
    for c in s.chars().take(MAX_PARAMS_CHARS) {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return Some(if any { commas + 1 } else { 0 }),
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => commas += 1,
            _ => {}
        }
        if !c.is_whitespace() {
            any = true;
        }
    }
    None
}

/// Names a text defines, in order, each once: functions, methods, classes, modules, types and
/// constants in any common language (`def`, `defp`, `function`, `fn`, `func`, `class`, `struct`,
/// `interface`, `type`, `const X =`, a method's `name(...) {`, `NAME = ` at the top level), an
/// Elixir or Erlang function as `name/arity` (how their people name one), an Elixir module
/// attribute (`@max_lines`), and the custom properties (`--panel-bg`) and class selectors
/// (`.is-active`) a stylesheet defines.
pub fn definitions(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // the names pushed, to keep each once without a scan of `out` (a file of thousands of
    // definitions would take quadratic time)
    let mut seen: HashSet<String> = HashSet::new();
    let mut push = |s: String| {
        if s.trim_start_matches(['@', '.', '-']).chars().count() >= 3 && seen.insert(s.clone()) {
            out.push(s);
        }
    };
    let elixir = text.contains("defmodule ") || text.contains("defp ") || text.contains(" do\n");
    for line in text.lines() {
        let t = line.trim();
        let top = !line.starts_with([' ', '\t']);
        // stylesheet: `--name: value;` and selector lines `.a, .b:hover {`
        if let Some(rest) = t.strip_prefix("--") {
            let n = rest
                .split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_')))
                .next()
                .unwrap_or_default();
            if !n.is_empty() && rest[n.len()..].trim_start().starts_with(':') {
                push(format!("--{n}"));
            }
            continue;
        }
        if (t.starts_with('.') || t.starts_with("&."))
            && t.ends_with(['{', ','])
            && !t.contains("=")
        {
            for piece in t.split('.').skip(1) {
                let n: String = piece
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '_'))
                    .collect();
                if n.starts_with(|c: char| c.is_alphabetic()) && !piece[n.len()..].starts_with('(')
                {
                    push(format!(".{n}"));
                }
            }
            continue;
        }
        // a module attribute given a value (`@max_lines 5`, `@pattern ~r/x/`, `@adapter A.B`);
        // not a decorator (`@property`, `@Input()`), an instance variable (`@name = x`), a
        // stylesheet's at-rule (`@media {`) or a handle in prose (`@ana thanks for the fix`)
        if let Some(rest) = t.strip_prefix('@') {
            let n = name_at(rest);
            let value = &rest[n.len()..];
            let v = value.trim_start();
            let literal = v.starts_with(|c: char| {
                c.is_ascii_digit() || c.is_uppercase() || "\"'%[{~:-<".contains(c)
            }) || !v.contains(char::is_whitespace);
            if !n.is_empty()
                && !n.contains('.')
                && value.starts_with(' ')
                && !v.starts_with('=')
                && literal
                && !t.ends_with(['{', ';'])
                && !RESERVED_ATTRIBUTES.contains(&n)
            {
                push(format!("@{n}"));
            }
            continue;
        }
        let mut words = t.split_whitespace().peekable();
        while words.peek().is_some_and(|w| DEF_MODIFIERS.contains(w)) {
            words.next();
        }
        let Some(first) = words.next() else { continue };
        let first_at = first.as_ptr() as usize - t.as_ptr() as usize;
        // a declaration of a data model or a pipeline in an Elixir or Ruby DSL: `field :title`,
        // `has_many :comments`, `identity :unique_email, [:email]`, `attr_accessor :name`
        if !DEF_KEYWORDS.contains(&first)
            && first.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        {
            if let Some(atom) = t[first_at + first.len()..]
                .strip_prefix(' ')
                .and_then(|r| r.strip_prefix(':'))
                .filter(|r| r.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
            {
                push(format!(":{}", name_at(atom)));
                continue;
            }
        }
        if DEF_KEYWORDS.contains(&first) {
            if matches!(first, "let" | "var" | "val") && !top {
                continue;
            }
            // `func (r *T) name(` names the method after its receiver
            let mut rest = t[first_at + first.len()..].trim_start();
            if first == "func" && rest.starts_with('(') {
                if let Some(close) = rest.find(')') {
                    rest = rest[close + 1..].trim_start();
                }
            }
            let rest = rest
                .trim_start_matches(['*', '&'])
                .trim_start_matches("mut ");
            let n = name_at(rest);
            if n.is_empty() || !n.starts_with(|c: char| c.is_alphabetic() || c == '_') {
                continue;
            }
            let after = &rest[n.len()..];
            // code goes on the way a definition does (`(`, `{`, `=`, `:`, `<`, ` do`, ` extends`,
            // the end of the line); prose (`type of the file`, `let them know`) does not
            let next = after.trim_start();
            let next_word = next
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("");
            if !(next.is_empty()
                || next.starts_with(['(', '{', '=', ':', '<', ',', ';', '[', '!', '*'])
                || matches!(
                    next_word,
                    "do" | "extends"
                        | "implements"
                        | "struct"
                        | "interface"
                        | "where"
                        | "with"
                        | "func"
                        | "enum"
                        | "when"
                        | "as"
                        | "is"
                        | "for"
                ))
            {
                continue;
            }
            let elixir_fn = first.starts_with("def")
                && first != "defmodule"
                && (first != "def" || elixir)
                && !t.ends_with(':');
            if elixir_fn {
                // the arity counts every argument, defaults (`opts \\ []`) included, over lines
                let args_at = rest.as_ptr() as usize - text.as_ptr() as usize + n.len();
                push(format!("{n}/{}", arity(&text[args_at..]).unwrap_or(0)));
            } else if first == "const" || first == "static" {
                // `const X =`, `const X: T =`; not `const fn`; a constant indented under a
                // function is one of its local variables (an upper-case one stays a constant)
                let constant = top || n.chars().all(|c| !c.is_lowercase());
                if after.trim_start().starts_with(['=', ':']) && constant {
                    push(n.to_string());
                }
            } else if FUNCTION_KEYWORDS.contains(&first) {
                // a function as people write its name: `build()` (the parentheses say what it is)
                push(format!("{n}()"));
            } else {
                push(n.to_string());
            }
            continue;
        }
        // Erlang: `name(Args) ->` at the top level
        if top && !elixir && t.ends_with("->") {
            let n = name_at(t);
            if !n.is_empty() && n.starts_with(|c: char| c.is_ascii_lowercase()) {
                if let Some(a) = arity(&t[n.len()..]) {
                    push(format!("{n}/{a}"));
                }
            }
            continue;
        }
        // a top-level constant: `MAX_RETRIES = 3`, `MAX_RETRIES: int = 3`
        if top {
            let n = name_at(t);
            let after = t[n.len()..].trim_start();
            if n.len() >= 3
                && n.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                && n.contains('_')
                && (after.starts_with('=') && !after.starts_with("==") || after.starts_with(':'))
            {
                push(n.to_string());
                continue;
            }
        }
        // a method: `name(args) {`, `async name(args): T {`, `Type name(args) {`
        if t.ends_with('{') && !t.contains("=>") && !t.starts_with(['}', '.', '<']) {
            let mut w = t
                .split_whitespace()
                .filter(|w| !DEF_MODIFIERS.contains(w) && !matches!(*w, "get" | "set"));
            let Some(a) = w.next() else { continue };
            let cand = if a.contains('(') {
                a
            } else {
                match w.next() {
                    Some(c) => c,
                    None => continue,
                }
            };
            let n = name_at(cand);
            // the parameters close on the line and only a return type or qualifier stands
            // between them and the body: `setState({` and `expect(x).toEqual({` are calls
            let params_at = cand.as_ptr() as usize - t.as_ptr() as usize + n.len();
            let head_only = closing_paren(&t[params_at..])
                .map(|close| t[params_at + close + 1..].trim_start())
                .is_some_and(|rest| {
                    rest == "{"
                        || (rest.starts_with([':', '-', 't', 'c', 'o', 'n'])
                            && !rest.contains(['(', '.', '=']))
                });
            if !n.is_empty()
                && !n.contains('.')
                && cand[n.len()..].starts_with('(')
                && head_only
                && n.starts_with(|c: char| c.is_alphabetic() || c == '_')
                && !STATEMENTS.contains(&n)
                && !STATEMENTS.contains(&a.split('(').next().unwrap_or_default())
            {
                push(format!("{n}()"));
            }
        }
    }
    out
}

/// Names written the way code names things, in any programming language: a lower-to-upper case
/// change (`setModel`, `AgentSession`), an inner underscore (`first_kept`, `MAX_FILES`), a
/// qualified name (`MapSet.new`, `session.compact`), or a name called (`dispose(`). Each once, in
/// order, with whether it is only a plain word called (`get(`, `map(`: common, weighing less).
pub fn code_names(text: &str) -> Vec<(&str, bool)> {
    code_names_called(text)
        .into_iter()
        .map(|(w, plain, _)| (w, plain))
        .collect()
}

/// [`code_names`], each also with whether the text calls it (`save(` somewhere).
pub(super) fn code_names_called(text: &str) -> Vec<(&str, bool, bool)> {
    let mut out: Vec<(&str, bool, bool)> = Vec::new();
    // where each name is in `out` (a file of thousands of names would take quadratic time)
    let mut index: HashMap<&str, usize> = HashMap::new();
    let bytes = text.as_bytes();
    let is_word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.');
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        if is_word(c) {
            start.get_or_insert(i);
            continue;
        }
        let Some(s) = start.take() else { continue };
        // a word right after `\n` (escaped text) starts after the escape's letter
        let s = s + crate::names::escape_letter(text, s);
        let raw = &text[s..i];
        let w = raw.trim_matches(['_', '.']);
        let w_start = s + raw.len() - raw.trim_start_matches(['_', '.']).len();
        if w.len() < 3
            || w.len() > IDENTIFIER_CHARS
            || !w.starts_with(|c: char| c.is_ascii_alphabetic())
            || w.contains("..")
        {
            continue;
        }
        let b = w.as_bytes();
        let called = bytes.get(w_start + w.len()) == Some(&b'(');
        let call = called && b.iter().any(u8::is_ascii_lowercase);
        let dotted = w.contains('.');
        // a qualified name needs a code-like part or a call: `e.g` and `i.e` are prose
        let strong = cased_or_snake(b) || (dotted && call);
        match index.get(w) {
            Some(&at) => out[at].2 |= call,
            None if strong || call => {
                index.insert(w, out.len());
                out.push((w, !strong, call));
            }
            None => {}
        }
    }
    out
}

/// True for an identifier worth showing: at least 3 letters or digits with one letter, and not
/// only a number, a colour (`#fff`), a count or ratio (`30/2000`), a list marker, a comment line
/// or the package's own markers.
pub fn worth_naming(s: &str) -> bool {
    let t = s.trim();
    let alnum = t.chars().filter(|c| c.is_alphanumeric()).count();
    if alnum < 3 || !t.chars().any(char::is_alphabetic) || t.chars().count() > IDENTIFIER_CHARS {
        return false;
    }
    let hex = t.strip_prefix('#').is_some_and(|h| {
        matches!(h.len(), 3 | 4 | 6 | 8) && h.chars().all(|c| c.is_ascii_hexdigit())
    });
    let comment = ["# ", "// ", "-- ", "/* "].iter().any(|p| t.starts_with(p));
    let marker = t.starts_with(['⎿', '•', '→', '├', '└', '│']);
    let own = ["checkpoint-data", "[Context:", "[Hint:", "Scratchpad"]
        .iter()
        .any(|m| t.contains(m));
    !(hex || comment || marker || own)
}

/// Weight of a name an edit or write defines ([`definitions`]); one it rewrote weighs half.
pub(super) const DEFINED_WEIGHT: f64 = 2.0;

/// Factor of the weight of a definition whose name occurs nowhere else in what the agent wrote.
pub(super) const UNUSED_FACTOR: f64 = 0.3;

/// Longest exact value kept (a longer URL is mostly its query).
pub(super) const EXACT_VALUE_CHARS: usize = 80;
/// Weight of an exact value each time it is written.
pub(super) const EXACT_VALUE_WEIGHT: f64 = 0.5;

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
pub(super) fn is_version(t: &str) -> bool {
    let t = t.strip_prefix('v').unwrap_or(t);
    let parts: Vec<&str> = t.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| (1..=4).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit()))
}

/// A UUID or a commit hash (see [`is_exact_value`]).
fn is_id_value(t: &str) -> bool {
    !t.contains([':', '@', '/']) && !t.starts_with("http") && is_exact_value(t)
}

/// The shape of a git commit hash: 7 to 40 lower-case hex digits (where git prints one, any such
/// run is one; in free text [`is_exact_value`] also asks for a digit and a letter).
pub(super) fn is_commit_hash(t: &str) -> bool {
    (7..=40).contains(&t.len())
        && t.chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

pub(super) fn is_exact_value(t: &str) -> bool {
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
pub(super) fn is_opaque_id(t: &str) -> bool {
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

/// Tokens an identifier may take before its weight is divided by its cost (a long path's).
pub(super) const NAME_TOKENS: f64 = 8.0;
/// Identifiers of at most this many bytes are taken to cost at most [`NAME_TOKENS`] (not counted).
const COSTLY_CHARS: usize = 24;

/// Weight of a name written as code (`SessionLive`, `run_id`) anywhere in the agent's text: half
/// what a code span's name weighs (a span marks a name on purpose, and a name in one gets both).
/// Measured
/// at 0.25, 0.5 and 1: summary recall at 800 within 0.3 points of each other on the bundled
/// sessions, 0.5 to 0.9 over none on the validation set.
pub(super) const PROSE_NAME_WEIGHT: f64 = 0.5;

/// Weight of a dependency an edit adds to a package manifest.
pub(super) const DEPENDENCY_WEIGHT: f64 = 1.0;

/// The dependencies a package manifest's text declares, by the manifest's file name:
/// `package.json` (`"name": "^1.2"`), `mix.exs` (`{:name, "~> 1.0"}`), `Cargo.toml` (the
/// entries under a `[...dependencies]` table), `requirements*.txt` and `pyproject.toml`
/// (`name>=1.0`), `go.mod` (`path v1.2.3`), `Gemfile` (`gem "name"`). Empty for other files.
pub fn dependencies<'a>(file_name: &str, text: &'a str) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    let mut push = |d: &'a str| {
        let d = d.trim();
        if d.len() >= 2 && !out.contains(&d) && !d.contains(char::is_whitespace) {
            out.push(d);
        }
    };
    let versionish = |v: &str| {
        v.starts_with(|c: char| {
            c.is_ascii_digit() || matches!(c, '^' | '~' | '>' | '<' | '=' | '*')
        }) || v.starts_with("workspace:")
            || v.starts_with("npm:")
    };
    let requirement = |line: &'a str| -> Option<&'a str> {
        let t = line.trim().trim_matches(|c| matches!(c, '"' | '\'' | ','));
        let end = t.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))?;
        let rest = t[end..].trim_start();
        let rest = rest
            .strip_prefix('[')
            .map_or(rest, |r| r.split_once(']').map_or("", |x| x.1))
            .trim_start();
        (end > 0
            && ["==", ">=", "<=", "~=", "!=", ">", "<"]
                .iter()
                .any(|op| rest.starts_with(op)))
        .then(|| &t[..end])
    };
    let mut in_deps = false;
    for line in text.lines() {
        let t = line.trim();
        match file_name {
            "package.json" => {
                if let Some((k, v)) = t.split_once(':') {
                    let key = k.trim().trim_matches('"');
                    let value = v.trim().trim_end_matches(',').trim_matches('"');
                    let engine =
                        matches!(key, "node" | "npm" | "pnpm" | "yarn" | "bun" | "version");
                    // a dependency's version is a string: `"lines": 80` (a setting) is none
                    let quoted = v.trim_start().starts_with('"');
                    if k.trim().starts_with('"') && quoted && versionish(value) && !engine {
                        push(key);
                    }
                }
            }
            "mix.exs" => {
                let mut rest = t;
                while let Some(i) = rest.find("{:") {
                    let name = &rest[i + 2..];
                    let end = name
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(name.len());
                    if name[end..].trim_start().starts_with(',') {
                        push(&name[..end]);
                    }
                    rest = &name[end..];
                }
            }
            "Cargo.toml" => {
                if t.starts_with('[') {
                    in_deps = t.trim_end_matches(']').ends_with("dependencies");
                } else if in_deps {
                    if let Some((k, _)) = t.split_once('=') {
                        push(k.trim());
                    }
                }
            }
            "pyproject.toml" => {
                if let Some(d) = t.starts_with(['"', '\'']).then(|| requirement(t)).flatten() {
                    push(d);
                }
            }
            "go.mod" => {
                let t = t.strip_prefix("require ").unwrap_or(t);
                if let Some((path, v)) = t.split_once(' ') {
                    if v.trim().starts_with('v') && path.contains('/') {
                        push(path);
                    }
                }
            }
            "Gemfile" => {
                if let Some(rest) = t.strip_prefix("gem ") {
                    let q = rest.trim_start();
                    let quote = q.chars().next().filter(|c| matches!(c, '"' | '\''));
                    if let Some(q) = quote.and_then(|c| q[1..].split(c).next()) {
                        push(q);
                    }
                }
            }
            f if f.starts_with("requirements") && f.ends_with(".txt") => {
                if !t.starts_with(['#', '-']) {
                    if let Some(d) = requirement(t) {
                        push(d);
                    }
                }
            }
            _ => return out,
        }
    }
    out
}

/// Factor of the weight of a name the user wrote, against one the agent wrote.
pub(super) const USER_FACTOR: f64 = 0.7;
/// Factor of the weight of a name in the agent's reasoning (thinking blocks).
pub(super) const THINKING_FACTOR: f64 = 0.4;

/// A character of a name as the word count of [`identifiers`] splits text: letters, digits, `_`,
/// `$`, `-` (kebab-case), `?` and `!` (Elixir, Ruby).
pub(super) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '$' | '-' | '?' | '!')
}

/// The word a definition is found by in text: `classify_line/3` -> `classify_line`,
/// `.is-active` -> `is-active`, `@max_lines` -> `max_lines`, `A.B.Renderer` -> `Renderer`.
pub(super) fn name_key(d: &str) -> &str {
    let d = d.strip_suffix("()").unwrap_or(d);
    let d = d.rsplit_once('/').map_or(d, |(name, _)| name);
    let d = d.trim_start_matches(['.', '@']);
    d.rsplit('.').next().unwrap_or(d)
}

/// Weight of a code span the agent wrote: 1, less for a plain word (`nil`, `kind`, `input`: a
/// keyword or a common word, found anywhere) and for a snippet of several words (long, and
/// kept word for word only by chance).
pub(super) fn mention_weight(span: &str) -> f64 {
    if span.chars().all(|c| c.is_ascii_lowercase()) {
        0.3
    } else if span.contains(char::is_whitespace) {
        0.5
    } else {
        1.0
    }
}

/// Identifiers of the work itself, ranked by how often and how recently the agent used them:
/// the names its edits and writes define ([`definitions`], weighing most), the agent's code spans
/// (plain words and snippets weighing less), the file names it wrote about (less), and the names
/// its edits and writes use (a name the edit did not replace weighs more than one it kept).
pub(super) fn identifiers(walk: &Walk) -> Vec<String> {
    let n = walk.lines.len();
    let mut idents = Tally::default();
    let mut defined: Vec<String> = Vec::new();
    let mut defined_set: HashSet<String> = HashSet::new();
    // how often each word occurs in what the agent wrote (its messages and the texts of its
    // edits and writes), and how many of those occurrences are definitions: a name used beyond
    // its definition is part of the work, one only defined (a theme's forty selectors, a
    // generated list) is not yet
    let mut words: HashMap<&str, usize> = HashMap::new();
    let mut sites: HashMap<String, usize> = HashMap::new();
    let mut count = |text| {
        let names = str::split(text, |c: char| !is_name_char(c));
        for w in names.filter(|w| !w.is_empty()) {
            *words.entry(w).or_default() += 1;
        }
    };
    for line in &walk.lines {
        if let Line::Agent { text, .. } = line {
            count(text.as_str());
        }
    }
    // the texts of the agent's edits and writes, with the message index
    let writes: Vec<(usize, Vec<String>, EditTexts)> = walk
        .calls()
        .filter(|(_, name, _)| classify_tool(name) == Access::Write)
        .map(|(at, _, args)| (at, extract_paths(args), edit_texts(args)))
        .collect();
    // the definitions of each (new) text, read once
    let mut new_definitions: Vec<Vec<String>> = Vec::new();
    for (_, _, texts) in &writes {
        for (new, _) in texts {
            count(new.as_ref());
            let defs = definitions(new);
            for d in &defs {
                *sites.entry(name_key(d).to_string()).or_default() += 1;
            }
            new_definitions.push(defs);
        }
    }
    let used = |d: &str| {
        let key = name_key(d);
        words.get(key).copied().unwrap_or(0) > sites.get(key).copied().unwrap_or(0)
    };
    for (at, line) in walk.lines.iter().enumerate() {
        let Line::Agent { text, .. } = line else {
            continue;
        };
        for span in code_spans(text) {
            if span.chars().count() <= IDENTIFIER_CHARS && worth_naming(span) {
                idents.add(span, mention_weight(span), at, n);
            }
        }
        // file names the agent wrote about (in prose, lists and code blocks)
        for token in text.split_whitespace() {
            if let Some(t) = crate::names::path_mention(token).filter(|t| worth_naming(t)) {
                idents.add(t, 0.5, at, n);
            }
        }
        // names written as code in its text, prose too (`the SessionLive template`, `update run_id`)
        for (w, plain) in code_names(text) {
            if !plain && worth_naming(w) {
                idents.add(w, PROSE_NAME_WEIGHT, at, n);
            }
        }
    }
    for (at, (line, m)) in walk.lines.iter().zip(&walk.messages).enumerate() {
        // names the user wrote (a plan or an error pasted, the functions a request names: what
        // the work is about) and those of the agent's reasoning (what it looked at and decided
        // about), both weighing less than what the agent said and did
        let (said, others, factor) = match line {
            Line::User { text, .. } => (text.as_str(), text.as_str(), USER_FACTOR),
            Line::Agent { text, .. } => (text.as_str(), m.thinking.as_str(), THINKING_FACTOR),
            Line::Other => continue,
        };
        for span in code_spans(others) {
            if span.chars().count() <= IDENTIFIER_CHARS && worth_naming(span) {
                idents.add(span, mention_weight(span) * factor, at, n);
            }
        }
        for (w, plain) in code_names(others) {
            if !plain && worth_naming(w) {
                idents.add(w, factor / 2.0, at, n);
            }
        }
        // the exact values the dialogue and the agent's commands carry (URLs, ports, ids, hashes)
        let commands = m.calls.iter().filter_map(|c| c.args["command"].as_str());
        let mut seen: HashSet<&str> = HashSet::new();
        for text in std::iter::once(said).chain(commands) {
            for v in exact_values(text) {
                if seen.insert(v) {
                    idents.add(v, EXACT_VALUE_WEIGHT, at, n);
                }
            }
        }
    }
    // the ids the agent names by their first digits (`ID: b1918bcf...`): the full id it means
    let abbreviated = abbreviated_ids(walk);
    for (at, _, v) in &abbreviated {
        idents.add(v, EXACT_VALUE_WEIGHT, *at, n);
    }
    // the tool results, read once:
    // - the ids a short one returns: what the call created, sent or started (a job, a message, a
    //   sub-agent's run), which the agent refers to later; a long result is data;
    // - the files those of the turn under way name (a review's threads, a search's hits, a
    //   listing): what the agent is looking at now, weighing least, so that they fill what room
    //   the agent's own words leave (a long autonomous turn, a cron run, says little itself); a
    //   file the names hold already, by its name, is not said again at more length
    let turn = walk.request.unwrap_or(0);
    let known: HashSet<String> = idents
        .items
        .keys()
        .map(|k| file_name_of(k).to_ascii_lowercase())
        .collect();
    for (at, m, _) in walk.results() {
        let text = &m.text;
        if text.len() <= RETURNED_ID_CHARS {
            for v in returned_ids(text) {
                idents.add(v, RETURNED_ID_WEIGHT, at, n);
            }
        }
        if at < turn {
            continue;
        }
        let mut end = text.len().min(RESULT_FILE_CHARS);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let mut seen: HashSet<&str> = HashSet::new();
        // (split at JSON's quotes and commas too: `{"path":"src/auth.js","line":167}`)
        let tokens = text[..end].split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\'' | ',' | '(' | ')' | '[' | ']' | '{' | '}' | '='
                )
        });
        for token in tokens.filter(|t| !t.is_empty()) {
            let Some(t) = crate::names::path_mention(token)
                .map(|t| t.split(':').next().unwrap_or(t))
                .filter(|t| is_result_file(t) && worth_naming(t))
            else {
                continue;
            };
            if !known.contains(&file_name_of(t).to_ascii_lowercase()) && seen.insert(t) {
                idents.add(t, RESULT_FILE_WEIGHT, at, n);
            }
        }
    }
    // the dependencies its edits add to a package manifest (a library the work now uses)
    for (at, paths, texts) in &writes {
        for path in paths {
            let file = path.rsplit('/').next().unwrap_or(path);
            for (new, old) in texts {
                // an edit says what it added; a whole manifest written lists every dependency
                let weight = if old.is_empty() {
                    DEPENDENCY_WEIGHT / 4.0
                } else {
                    DEPENDENCY_WEIGHT
                };
                let before = dependencies(file, old);
                for d in dependencies(file, new) {
                    if !before.contains(&d) {
                        idents.add(d, weight, *at, n);
                    }
                }
            }
        }
    }
    for (at, name, args) in walk.calls() {
        // (what the call sends the user is the agent's text, read above)
        let sent: Vec<&str> = context_state::dialogue::sent_by(name, args).collect();
        let sent_text = |text: &str| sent.iter().any(|s| std::ptr::eq(*s, text));
        // the agent's prose in its tool arguments (a plan it presents, a subagent's prompt, a
        // markdown file it writes): their code spans, as in its messages (a shell command's
        // backticks are substitutions, not spans)
        for (key, value) in args.as_object().into_iter().flatten() {
            if let Some(text) = value.as_str().filter(|t| key != "command" && !sent_text(t)) {
                for span in code_spans(text) {
                    if worth_naming(span) {
                        idents.add(span, mention_weight(span) / 2.0, at, n);
                    }
                }
            }
        }
        // the names its shell commands pass as code (`python3 -c "…d.get('post_id')…"`, `jq
        // .items`, `mix test --only focus_tag`): what the next command needs again, though a
        // command's words are mostly the tool's own, so they weigh least
        if let Some(command) = args["command"].as_str() {
            for (w, plain) in code_names(command) {
                if !plain && worth_naming(w) {
                    idents.add(w, COMMAND_NAME_WEIGHT, at, n);
                }
            }
        }
        // what the agent's other calls say in their arguments (a message it sends the user on a
        // channel, a sub-agent's task, a URL it fetches, a record it posts): the files they name
        // and their exact values, as in its messages (an edit's or a write's text is code: its
        // definitions and names are read below; a command's values are read above)
        if classify_tool(name) != Access::Write {
            // (the files the call reads or lists are in the file lists)
            let touched = extract_paths(args);
            let mut seen: HashSet<&str> = HashSet::new();
            for text in arg_texts(args) {
                if touched.iter().any(|p| p == text) || sent_text(text) {
                    continue;
                }
                for token in text.split_whitespace() {
                    if let Some(t) = crate::names::path_mention(token).filter(|t| worth_naming(t)) {
                        if seen.insert(t) {
                            idents.add(t, ARG_MENTION_WEIGHT, at, n);
                        }
                    }
                }
                for v in exact_values(text) {
                    if seen.insert(v) {
                        idents.add(v, EXACT_VALUE_WEIGHT / 2.0, at, n);
                    }
                }
            }
        }
    }
    let mut new_definitions = new_definitions.into_iter();
    for (at, paths, texts) in &writes {
        let at = *at;
        // a data file's names are the fields of its records, written once for each
        let data = !paths.is_empty() && paths.iter().all(|p| is_data_file(p));
        let mut seen: HashSet<&str> = HashSet::new();
        for (new, old) in texts {
            // what the edit defines: a new name weighs most, one it rewrote less
            let before: HashSet<String> = definitions(old).into_iter().collect();
            let defs = new_definitions.next().unwrap_or_default();
            // the definitions of one text share its weight past a few (a script written whole with
            // twenty helpers is one file of the work, not twenty of its names)
            let share = (defs.len() as f64 / SHARED_DEFINITIONS).max(1.0).sqrt();
            for d in defs {
                let weight = if data {
                    DATA_FIELD_WEIGHT
                } else {
                    let fresh = if before.contains(&d) { 0.5 } else { 1.0 };
                    let unused = if used(&d) { 1.0 } else { UNUSED_FACTOR };
                    DEFINED_WEIGHT * fresh * unused / share
                };
                idents.add(&d, weight, at, n);
                if defined_set.insert(d.clone()) {
                    defined.push(d);
                }
            }
            let kept: HashSet<&str> = code_names(old).into_iter().map(|(k, _)| k).collect();
            for (w, plain, called) in code_names_called(new) {
                // `this.save` and `self.save` name `save` of the object at hand
                let w = ["this.", "self."]
                    .iter()
                    .find_map(|p| w.strip_prefix(p))
                    .filter(|rest| rest.len() >= 3)
                    .unwrap_or(w);
                if !seen.insert(w) {
                    continue;
                }
                let mut weight: f64 = if kept.contains(w) { 0.2 } else { 0.5 };
                if plain {
                    weight /= 4.0;
                }
                if data {
                    weight = weight.min(DATA_FIELD_WEIGHT);
                }
                // a function the code calls, as people write its name: `save()`
                let shown = if called && !w.contains('.') {
                    format!("{w}()")
                } else {
                    w.to_string()
                };
                idents.add(&shown, weight, at, n);
            }
        }
    }
    // what a name is worth is weighed against the budget it takes: a UUID (about 25 tokens) or a
    // long URL costs what three names cost, and is kept no more often (measured on the bundled and
    // validation restores: names, paths and snippets carry a real summary's item per 21 tokens,
    // UUIDs and URLs per 70); its weight is divided by the square root of its cost in names
    for (k, u) in idents.items.iter_mut() {
        if k.len() > COSTLY_CHARS {
            let tokens = context_tokens::count_tokens(k, context_tokens::Encoding::default());
            u.score /= (tokens as f64 / NAME_TOKENS).max(1.0).sqrt();
        }
    }
    // an abbreviation the agent wrote as a name (`31f9c941...` in a table) is a fragment of the
    // full id it means, which a later call needs whole: its uses count for the full id
    for (_, prefix, full) in &abbreviated {
        let fragments: Vec<String> = idents
            .items
            .keys()
            .filter(|k| {
                k.starts_with(prefix.as_str())
                    && k[prefix.len()..].chars().all(|c| c == '.' || c == '…')
            })
            .cloned()
            .collect();
        for k in fragments {
            if let Some(u) = idents.items.remove(&k) {
                let f = idents.items.entry(full.clone()).or_default();
                f.score += u.score;
                f.uses += u.uses;
                f.last = f.last.max(u.last);
            }
        }
    }
    // a function's bare name and its `name/arity` or `name()` are one item: the bare name's
    // uses count for the full one, which also shows the bare name
    let mut decorated: Vec<String> = idents
        .items
        .keys()
        .filter(|k| bare_name(k).is_some())
        .cloned()
        .collect();
    decorated.sort();
    // (the latest use of a name merged away stays its latest use if it takes another's)
    let mut merged_last: HashMap<&str, usize> = HashMap::new();
    for d in defined.iter().chain(&decorated) {
        let Some(bare) = bare_name(d) else {
            continue;
        };
        if let Some(b) = idents.items.remove(bare) {
            let own_last = idents
                .items
                .get(d.as_str())
                .map(|u| u.last)
                .or_else(|| merged_last.get(d.as_str()).copied())
                .unwrap_or(0);
            let u = idents.items.entry(d.clone()).or_default();
            u.score += b.score;
            u.last = b.last.max(own_last);
            merged_last.insert(bare, b.last);
        }
    }
    // a name a higher-ranked one already shows whole (`Registry` in `App.Registry`,
    // `upsert` in `upsert!/2`, `touch` in `Registry.touch`) would only repeat it
    // (the whole names within those kept are in a set: tens of thousands of candidates checked
    // against every kept one took seconds; a kept name with too many parts is scanned instead)
    let mut out: Vec<String> = Vec::new();
    let mut within: HashSet<String> = HashSet::new();
    let mut scanned: Vec<String> = Vec::new();
    for id in idents.ranked(usize::MAX) {
        if out.len() >= MAX_IDENTIFIERS {
            break;
        }
        // prose, pictographs, escaped fragments and the host's no-op tokens are no names
        // (crate::names)
        if !crate::names::is_name(&id)
            || within.contains(&id)
            || scanned.iter().any(|o| contains_name(o, &id))
        {
            continue;
        }
        match names_within(&id) {
            Some(parts) => within.extend(parts.into_iter().map(str::to_string)),
            None => scanned.push(id.clone()),
        }
        out.push(id);
    }
    shown_called(walk, &mut out);
    out
}

/// Shows each plain name of `names` that the conversation calls (`loadRegistry(` in a message, a
/// tool's arguments or a result: a file the agent read, code it wrote) as people write a
/// function's name, `loadRegistry()`: the reader knows what it is, and a summary names it so.
/// One pass over the texts, looking only at the word before each `(`.
pub(super) fn shown_called(walk: &Walk, names: &mut [String]) {
    let plain: HashSet<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| is_plain_code_name(n))
        .collect();
    if plain.is_empty() {
        return;
    }
    let mut called: HashSet<String> = HashSet::new();
    let mut look = |text: &str| {
        for (at, _) in text.match_indices('(') {
            let before = &text[..at];
            let start = before
                .char_indices()
                .rev()
                .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')))
                .map_or(0, |(i, c)| i + c.len_utf8());
            let word = before[start..].trim_start_matches('.');
            if plain.contains(word) && !called.contains(word) {
                called.insert(word.to_string());
            }
        }
    };
    for m in &walk.messages {
        look(&m.text);
        look(&m.thinking);
        for c in &m.calls {
            for text in arg_texts(c.args) {
                look(text);
            }
        }
    }
    for n in names.iter_mut() {
        if called.contains(n.as_str()) {
            n.push_str("()");
        }
    }
}

/// A name as code writes one, not yet shown as a call: a case change, an inner underscore or a
/// qualified name (`loadRegistry`, `load_registry`, `ed.getPublicKey`), with a lower-case
/// letter (`MAX_FILES` is a constant) and no file extension (`build.js` is a file).
fn is_plain_code_name(n: &str) -> bool {
    let b = n.as_bytes();
    let word = b
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.'));
    word && n.len() >= 3
        && b[0].is_ascii_alphabetic()
        && b.iter().any(u8::is_ascii_lowercase)
        && (cased_or_snake(b) || n.contains('.'))
        && crate::names::path_mention(n).is_none()
}

/// Whether a word is written the way code names things: a lower-to-upper case change
/// (`setModel`) or an inner underscore (`first_kept`).
fn cased_or_snake(b: &[u8]) -> bool {
    b.windows(2)
        .any(|p| p[0].is_ascii_lowercase() && p[1].is_ascii_uppercase())
        || b.windows(3)
            .any(|p| p[0].is_ascii_alphanumeric() && p[1] == b'_' && p[2].is_ascii_alphanumeric())
}

/// True for a file of records (`jobs.json`, `heartbeat-state.json`, `data.jsonl`): the names an
/// edit of it writes are the fields of its records, not what the work is about.
pub(super) fn is_data_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with(".json") || name.ends_with(".jsonl") || name.ends_with(".ndjson")
}

/// Weight of a field name an edit or write of a data file ([`is_data_file`]) writes: a plain
/// word's in code.
pub(super) const DATA_FIELD_WEIGHT: f64 = 0.5 / 4.0;

/// Definitions of one text past which they share its weight.
pub(super) const SHARED_DEFINITIONS: f64 = 4.0;

/// Fewest hex digits of an id the agent abbreviates ([`abbreviated_ids`]).
pub(super) const ABBREVIATED_ID_DIGITS: usize = 6;

/// The ids the agent's text names by their first digits and an ellipsis (`ID: b1918bcf...`,
/// `31f9c941…`, as agents shorten UUIDs and hashes in a table or a report), each as the one full
/// id (a UUID or a commit hash, [`is_exact_value`]) the conversation states that starts with
/// them: (the index of the message that abbreviates it, the prefix, the full id). A prefix two
/// ids share names neither.
pub(super) fn abbreviated_ids(walk: &Walk) -> Vec<(usize, String, String)> {
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
pub(super) const RETURNED_ID_WEIGHT: f64 = EXACT_VALUE_WEIGHT / 5.0;
/// Longest tool result whose ids are read ([`returned_ids`]).
pub(super) const RETURNED_ID_CHARS: usize = 2000;

/// Fields that hold a tool call's or a turn's id: the host's and the provider's plumbing (a parked
/// result's `metadata.toolCallId`, a Claude `tool_use_id`, an OpenAI `call_id`, the `turnId` of
/// an entry the scratchpad tools list).
const TOOL_CALL_ID_KEYS: &[&str] = &[
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
pub(super) fn returned_ids(text: &str) -> Vec<&str> {
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
fn file_name_of(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split(':').next().unwrap_or(name)
}

/// A file path as a tool result prints one (`apps/web/src/auth.ts`, `.github/workflows/ci.yml`):
/// directories without a dot inside their names, a last name with a short extension. Not
/// `JSON.stringify/JSON.parse`, `keygen.ts/sign.ts`.
fn is_result_file(t: &str) -> bool {
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

/// Weight of a file a tool result of the turn under way names (a quarter of one a call's argument
/// names): below every name the agent wrote or used.
pub(super) const RESULT_FILE_WEIGHT: f64 = ARG_MENTION_WEIGHT / 4.0;
/// Characters of each such tool result read for the files it names.
pub(super) const RESULT_FILE_CHARS: usize = 16_000;

/// Weight of a name written as code in a shell command the agent ran (a fifth of one in its
/// prose): measured, a tenth more of the names the agent needs next at 2,000 tokens, the
/// summary's items unchanged; at half a name in prose they crowd those out.
pub(super) const COMMAND_NAME_WEIGHT: f64 = 0.1;

/// Weight of a file a tool call's argument names (half a file named in the agent's messages).
pub(super) const ARG_MENTION_WEIGHT: f64 = 0.25;
/// Deepest nesting of a tool call's arguments read for their texts.
const ARG_DEPTH: usize = 4;

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

/// Most parts [`names_within`] lists for one name.
pub(super) const MAX_NAME_PARTS: usize = 4096;

/// Every part of `text` that [`contains_name`] finds in it as a whole name (one that starts at
/// its beginning or after a character outside names and ends at its end or before one); `None`
/// when there would be more than [`MAX_NAME_PARTS`].
pub(super) fn names_within(text: &str) -> Option<Vec<&str>> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let (mut starts, mut ends) = (Vec::new(), Vec::new());
    let mut prev = None::<char>;
    for (i, c) in text.char_indices() {
        if !prev.is_some_and(word) {
            starts.push(i);
        }
        if i > 0 && !word(c) {
            ends.push(i);
        }
        prev = Some(c);
    }
    ends.push(text.len());
    if starts.len() * ends.len() > MAX_NAME_PARTS {
        return None;
    }
    Some(
        starts
            .iter()
            .flat_map(|&s| {
                ends.iter()
                    .filter(move |&&e| e > s)
                    .map(move |&e| &text[s..e])
            })
            .collect(),
    )
}

/// The plain name a decorated one shows: `name/2`, `name()`, `:name` (an atom or symbol),
/// `@name` (an attribute) -> `name`; `None` for a plain name.
pub(super) fn bare_name(d: &str) -> Option<&str> {
    let bare = if d.contains('/') || d.ends_with("()") {
        crate::names::function_name(d)?
    } else {
        d.strip_prefix([':', '@'])?
    };
    (bare.len() >= 3 && !bare.contains(char::is_whitespace)).then_some(bare)
}

/// True when `name` occurs in `text` as a whole name: not inside a longer word (`id` is in
/// `App.id/1`, not in `valid`).
pub(super) fn contains_name(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    context_state::substance::occurs(text, name, |before, after| {
        !before.chars().next_back().is_some_and(word) && !after.chars().next().is_some_and(word)
    })
}
