//! What code says: the texts of edits and writes, the names a text defines, names written as
//! code, and the dependencies a package manifest declares.

use super::*;

/// Argument keys of edit and write tools holding the new text (pi, Claude Code, OpenClaw, MCP
/// file tools), and those holding the text it replaces.
pub(in crate::thread) const NEW_TEXT_KEYS: &[&str] = &[
    "new_string",
    "newText",
    "new_text",
    "new_str",
    "content",
    "contents",
    "new_source",
    "patch",
];
pub(in crate::thread) const OLD_TEXT_KEYS: &[&str] =
    &["old_string", "oldText", "old_text", "old_str"];

/// The (new, old) text pairs of an edit or write call.
pub(in crate::thread) type EditTexts<'a> = Vec<(Cow<'a, str>, Cow<'a, str>)>;

/// The (new, old) texts of an edit or write call: top-level keys and those of an `edits` array;
/// a patch (`apply_patch`'s `input`, a `patch` or `diff` argument: `*** Begin Patch`, unified
/// diff) by its added and removed lines, its context lines in both.
pub(in crate::thread) fn edit_texts(args: &Value) -> EditTexts<'_> {
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
pub(in crate::thread) fn is_patch(text: &str) -> bool {
    text.trim_start().starts_with("*** Begin Patch")
        || text.lines().any(|l| l.starts_with("@@"))
            && text
                .lines()
                .any(|l| l.starts_with('+') || l.starts_with('-'))
}

/// The (new, old) texts of a patch: added lines and context lines, removed lines and context
/// lines, without their markers; headers (`*** Update File:`, `+++ b/x`, `@@`) in neither.
pub(in crate::thread) fn patch_sides(patch: &str) -> (String, String) {
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
pub(in crate::thread) const DEF_KEYWORDS: &[&str] = &[
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
pub(in crate::thread) const FUNCTION_KEYWORDS: &[&str] =
    &["def", "function", "function*", "fn", "func", "fun"];
/// Words that may stand before a definition's keyword (visibility, asynchrony, linkage).
pub(in crate::thread) const DEF_MODIFIERS: &[&str] = &[
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
pub(in crate::thread) const STATEMENTS: &[&str] = &[
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
pub(in crate::thread) const RESERVED_ATTRIBUTES: &[&str] = &[
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
pub(in crate::thread) fn name_at(s: &str) -> &str {
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
pub(in crate::thread) fn closing_paren(s: &str) -> Option<usize> {
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
pub(in crate::thread) const MAX_PARAMS_CHARS: usize = 1000;

/// Arguments of the parenthesised list at the start of `s` (top-level commas, across lines):
/// `None` without a list, or one not closed within [`MAX_PARAMS_CHARS`] (a cut fragment: read
/// to the end of the text at every function head, it took quadratic time).
pub(in crate::thread) fn arity(s: &str) -> Option<usize> {
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
pub(in crate::thread) fn code_names_called(text: &str) -> Vec<(&str, bool, bool)> {
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
    // (a shebang, `#!/bin/sh`, is a comment line to the shell it names)
    let comment = ["# ", "// ", "-- ", "/* ", "#!"]
        .iter()
        .any(|p| t.starts_with(p));
    let marker = t.starts_with(['⎿', '•', '→', '├', '└', '│']);
    let own = ["checkpoint-data", "[Context:", "[Hint:", "Scratchpad"]
        .iter()
        .any(|m| t.contains(m));
    let fragment = source_fragment(t);
    !(hex || comment || marker || own || fragment)
}

/// A fragment of source text, not a name: a template's or a shell's interpolation
/// (`${refSection}\n\n`, `/tmp/shot-$(date`), an escape sequence (`[${totalBatches} batches]`,
/// `outputType\`), a snippet of several parts (`console.error('Failed to load:', err)`), which
/// the restore's list, whose items a comma separates, would show as two, or a piece cut out of a
/// longer text (`[],"listeners":}`: its brackets or quotes do not pair; `http://`: a URL cut
/// before its host).
pub(crate) fn source_fragment(t: &str) -> bool {
    let pairs = |open: char, close: char| t.matches(open).count() == t.matches(close).count();
    t.contains("${")
        || t.contains("$(")
        || t.contains("\\n")
        || t.contains("\\t")
        || t.ends_with('\\')
        || t.contains(", ")
        || !(pairs('(', ')') && pairs('[', ']') && pairs('{', '}'))
        || t.matches('"').count() % 2 == 1
        || t.ends_with("://")
}

/// Weight of a dependency an edit adds to a package manifest.
pub(in crate::thread) const DEPENDENCY_WEIGHT: f64 = 1.0;

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

/// The names a piece of code binds itself, in any of the common languages: declared (`const x`,
/// `let { a, b }`, `var`), a function's or a lambda's parameters (`(a, b) =>`, `d =>`,
/// `function f(a)`, `def f(a)`, `lambda a:`), a loop's, a handler's or an import's own name
/// (`for x in`, `for (const x of`, `catch (e)`, `except E as e`, `with open(p) as f`), and a
/// name assigned at a statement's start (a line's, or after `;`) with spaces around `=`, or
/// without them the result of a call (`d=json.load(sys.stdin)`: a shell's `NAME=value` is
/// configuration). A name such code binds, and its members (`uploadRes.status`, `d.name`), is
/// the snippet's own, which nothing outside it names. Prose binds nothing (`let me know`, `for
/// each file in`, `such as config.json`).
pub(in crate::thread) fn local_bindings(code: &str) -> HashSet<&str> {
    let mut out: HashSet<&str> = HashSet::new();
    // the names of a parameter or destructuring list: each item's first word (`a = 1`, `b: T`,
    // `...rest` give `a`, `b`, `rest`)
    fn items<'a>(inner: &'a str, out: &mut HashSet<&'a str>) {
        for item in inner.split(',') {
            let item = item.trim_start_matches(|c: char| c.is_whitespace() || c == '.' || c == '*');
            let end = item.find(|c: char| !is_ident(c)).unwrap_or(item.len());
            let name = &item[..end];
            if !name.is_empty() && name.starts_with(|c: char| !c.is_ascii_digit()) {
                out.insert(name);
            }
        }
    }
    fn word_after(rest: &str) -> Option<&str> {
        let rest = rest.trim_start();
        let end = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
        let w = &rest[..end];
        (!w.is_empty() && w.starts_with(|c: char| !c.is_ascii_digit())).then_some(w)
    }
    // a word at `i` standing alone (not the end of a longer name)
    let alone = |i: usize, len: usize| {
        let before = code[..i].chars().next_back();
        let after = code[i + len..].chars().next();
        !before.is_some_and(|c| is_ident(c) || c == '.') && after.is_some_and(char::is_whitespace)
    };
    for kw in ["const", "let", "var", "for", "lambda"] {
        for (i, _) in code.match_indices(kw) {
            if !alone(i, kw.len()) {
                continue;
            }
            let rest = code[i + kw.len()..].trim_start();
            match rest.chars().next() {
                Some(open @ ('{' | '[')) => {
                    let close = if open == '{' { '}' } else { ']' };
                    if let Some(end) = ahead(rest).find(close) {
                        items(&rest[1..end], &mut out);
                    }
                }
                // `for (const x of …)` is read at its `const`; `for x, y in` and `lambda a, b:`
                // bind a list of names up to `in` or `:` (`for each file in` is prose)
                Some(_) if kw == "for" || kw == "lambda" => {
                    let stop = if kw == "for" { " in " } else { ":" };
                    if let Some(end) = ahead(rest).find(stop) {
                        let names = rest[..end].split(',').map(str::trim);
                        if names
                            .clone()
                            .all(|n| !n.is_empty() && n.chars().all(is_ident))
                        {
                            items(&rest[..end], &mut out);
                        }
                    }
                }
                // a declaration's name is followed by its value, type or the next one (`let me
                // know` is prose)
                Some(_) => {
                    if let Some(w) = word_after(rest) {
                        if declared(&rest[w.len()..]) {
                            out.insert(w);
                        }
                    }
                }
                None => {}
            }
        }
    }
    // ` as x` (a handler's, a context's or an import's name), ending its clause (`such as
    // config.json` is prose)
    for (i, _) in code.match_indices(" as ") {
        let rest = &code[i + 4..];
        if let Some(w) = word_after(rest) {
            let after = rest.trim_start()[w.len()..].trim_start_matches(' ');
            if after.is_empty() || after.starts_with([':', ',', ')', ';', '\n', '\'', '"', '`']) {
                out.insert(w);
            }
        }
    }
    // `catch (e)`, `function f(a, b)`, `def f(a, b)`: their parenthesised names
    for kw in ["catch", "function", "def"] {
        for (i, _) in code.match_indices(kw) {
            if code[..i]
                .chars()
                .next_back()
                .is_some_and(|c| is_ident(c) || c == '.')
            {
                continue;
            }
            let rest = &code[i + kw.len()..];
            let Some(open) = ahead(rest).find('(') else {
                continue;
            };
            // (only a name, or nothing, between the keyword and its parenthesis)
            if !rest[..open].trim().chars().all(is_ident) {
                continue;
            }
            if let Some(close) = closing_paren(ahead(&rest[open..])) {
                items(&rest[open + 1..open + close], &mut out);
            }
        }
    }
    // arrow functions' parameters: `d =>`, `(a, b) =>`, `async (e) =>`
    for (i, _) in code.match_indices("=>") {
        let before = behind(code[..i].trim_end());
        if let Some(head) = before.strip_suffix(')') {
            // the matching `(`: the last one at depth 0 going back
            let mut depth = 0usize;
            let open = head.char_indices().rev().find_map(|(j, c)| match c {
                ')' => {
                    depth += 1;
                    None
                }
                '(' if depth == 0 => Some(j),
                '(' => {
                    depth -= 1;
                    None
                }
                _ => None,
            });
            if let Some(open) = open {
                items(&head[open + 1..], &mut out);
            }
        } else {
            let start = before
                .char_indices()
                .rev()
                .find(|&(_, c)| !is_ident(c))
                .map_or(0, |(j, c)| j + c.len_utf8());
            let w = &before[start..];
            if !w.is_empty() && w.starts_with(|c: char| !c.is_ascii_digit()) {
                out.insert(w);
            }
        }
    }
    // `name = value` starting a statement (a line, or after `;`): with spaces around a single
    // `=`, or without when the value is a call (`d=json.load(sys.stdin)`; a shell's `X=value`
    // is configuration)
    for statement in code.split(['\n', ';']) {
        let t = statement.trim_start();
        let end = t.find(|c: char| !is_ident(c)).unwrap_or(t.len());
        let (w, rest) = t.split_at(end);
        if w.is_empty() || w.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let spaced = rest.starts_with(" = ");
        let value = rest
            .strip_prefix('=')
            .filter(|v| !v.starts_with(['=', '>']));
        let called = value.is_some_and(|v| {
            let name = v
                .find(|c: char| !(is_ident(c) || c == '.'))
                .unwrap_or(v.len());
            name > 0 && v[name..].starts_with('(')
        });
        if spaced || called {
            out.insert(w);
        }
    }
    // keywords the patterns above can catch are no bindings
    for k in [
        "in", "of", "await", "async", "return", "new", "this", "self",
    ] {
        out.remove(k);
    }
    out
}

/// A character of a name code binds: ASCII letters and digits, `_`, `$`.
fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Bytes of code [`local_bindings`] reads around a keyword: a declaration, a parameter list or
/// a loop's head is short, and a text with thousands of keywords is read in linear time.
const BINDING_WINDOW: usize = 200;

/// The first [`BINDING_WINDOW`] bytes of `s` (at a character boundary).
fn ahead(s: &str) -> &str {
    head_bytes(s, BINDING_WINDOW)
}

/// The last [`BINDING_WINDOW`] bytes of `s` (at a character boundary).
fn behind(s: &str) -> &str {
    let mut start = s.len().saturating_sub(BINDING_WINDOW);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// What follows a declared name (`const x = 1`, `let x: T`, `let a, b;`, `for (const x of`):
/// a value, a type, the next name, the statement's end or a loop's `of` / `in`.
fn declared(after: &str) -> bool {
    let t = after.trim_start_matches(' ');
    t.is_empty()
        || t.starts_with(['=', ':', ';', ',', '\n'])
        || t.starts_with("of ")
        || t.starts_with("in ")
}

/// Whether `name` is, or is a member of, a name `locals` binds (`d`, `d.name`, `uploadRes.json()`).
pub(in crate::thread) fn is_local(name: &str, locals: &HashSet<&str>) -> bool {
    let head = name
        .split(['.', '(', '['])
        .next()
        .unwrap_or(name)
        .trim_start_matches(['$', '@']);
    !locals.is_empty() && (locals.contains(head) || locals.contains(name))
}
