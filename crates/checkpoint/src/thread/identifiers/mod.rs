//! Exact identifiers: the names the agent's edits define, its code spans, exact values and the
//! file names it wrote about, most used first.
//!
//! What code says (the texts of edits and writes, the names a text defines, names written as
//! code, a manifest's dependencies) is in `code.rs`; exact values, the ids results return and
//! the files they name in `values.rs`; the pass that ranks them all is here.

use super::*;

mod code;
mod values;

pub use code::*;
pub use values::*;

/// Weight of a name an edit or write defines ([`definitions`]); one it rewrote weighs half.
pub(super) const DEFINED_WEIGHT: f64 = 2.0;

/// Factor of the weight of a definition whose name occurs nowhere else in what the agent wrote.
pub(super) const UNUSED_FACTOR: f64 = 0.3;

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

/// Identifiers of the work itself, ranked by how often, how recently and in how many turns the
/// agent used them ([`Tally::by_turn`]):
/// the names its edits and writes define ([`definitions`], weighing most), the agent's code spans
/// (plain words and snippets weighing less), the file names it wrote about (less), and the names
/// its edits and writes use (a name the edit did not replace weighs more than one it kept).
pub(super) fn identifiers(walk: &Walk) -> Vec<String> {
    let n = walk.lines.len();
    let mut idents = Tally::by_turn(walk);
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
        let commands: Vec<&str> = m
            .calls
            .iter()
            .filter_map(|c| c.args["command"].as_str())
            .collect();
        let mut seen: HashSet<&str> = HashSet::new();
        for text in std::iter::once(said).chain(commands.iter().copied()) {
            for v in exact_values(text) {
                if seen.insert(v) {
                    idents.add(v, EXACT_VALUE_WEIGHT, at, n);
                }
            }
        }
        // the names its shell commands pass as code (`python3 -c "…d.get('post_id')…"`, `jq
        // .items`, `mix test --only focus_tag`): what the next command needs again, though a
        // command's words are mostly the tool's own, so they weigh least
        for command in &commands {
            // (not the names the command's code binds itself: `d` of `d = json.load(…)`)
            let locals = local_bindings(command);
            for (w, plain) in code_names(command) {
                if !plain && worth_naming(w) && !is_local(w, &locals) {
                    idents.add(w, COMMAND_NAME_WEIGHT, at, n);
                }
            }
        }
    }
    // the id of the user a channel's message is from, as the host's metadata gives it (a
    // Telegram user's number, a Feishu open id): whom the agent answers and reports to, in every
    // turn, where the user's words are stripped of that metadata
    for (at, who) in super::roles::senders(walk) {
        idents.add(&who.id, EXACT_VALUE_WEIGHT, at, n);
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
    for (at, m, outcome) in walk.results() {
        let text = &m.text;
        // the classes of the errors a failed call raised (`BadMapError`, `TimeoutError`,
        // `ENOENT`): the exact error of what is blocked, as a summary names it
        // (in a result that succeeded, as a log it printed reports them: `TimeoutError: …`)
        let failed = outcome.failure.is_some();
        let mut seen: HashSet<&str> = HashSet::new();
        for (class, reported) in error_classes(&outcome.text) {
            if (failed || reported) && seen.insert(class) {
                idents.add(class, ERROR_CLASS_WEIGHT, at, n);
            }
        }
        if text.len() <= RETURNED_ID_CHARS {
            for v in returned_ids(text) {
                idents.add(v, RETURNED_ID_WEIGHT, at, n);
            }
        }
        if at < turn {
            continue;
        }
        let mut seen: HashSet<&str> = HashSet::new();
        // (split at JSON's quotes and commas too: `{"path":"src/auth.js","line":167}`)
        let tokens = head_bytes(text, RESULT_FILE_CHARS).split(|c: char| {
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
                // code the call runs (a page's script, a query) names its own variables' members
                // as a file is named: `uploadRes.json()`, `d.name`; those are the snippet's own
                let locals = local_bindings(text);
                for token in text.split_whitespace() {
                    if let Some(t) = crate::names::path_mention(token)
                        .filter(|t| worth_naming(t) && !is_local(t, &locals))
                    {
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
    // a place in a file (`src/db.js:135`, `encrypt.ts:55:9`: a review's thread, a stack frame)
    // names the file, which the agent opens as written; its line is where, not what
    let placed: Vec<(String, String)> = idents
        .items
        .keys()
        .filter_map(|k| Some((k.clone(), file_of_place(k)?.to_string())))
        .collect();
    for (k, file) in placed {
        idents.merge(&k, file);
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
            idents.merge(&k, full.clone());
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

/// Weight of the class of an error a failed call raised ([`error_classes`]): a code span's.
pub(super) const ERROR_CLASS_WEIGHT: f64 = 1.0;

/// The POSIX error codes a system call's failure reports by name (Node's `err.code`, Python's
/// `errno`): `ENOENT: no such file or directory`.
const ERRNO_CODES: [&str; 24] = [
    "E2BIG",
    "EACCES",
    "EADDRINUSE",
    "EADDRNOTAVAIL",
    "EAGAIN",
    "EBADF",
    "EBUSY",
    "ECONNABORTED",
    "ECONNREFUSED",
    "ECONNRESET",
    "EEXIST",
    "EHOSTUNREACH",
    "EINVAL",
    "EISDIR",
    "EMFILE",
    "ENETUNREACH",
    "ENOENT",
    "ENOMEM",
    "ENOSPC",
    "ENOTDIR",
    "ENOTEMPTY",
    "EPERM",
    "EPIPE",
    "ETIMEDOUT",
];

/// The error classes a text names, each with whether it is reported there (followed by its
/// message, `TimeoutError: locator.waitFor …`, or Elixir's `** (BadMapError) expected …`) rather
/// than mentioned (`except ValueError:`, `throw new TypeError(`): a word ending in `Error` or
/// `Exception` after a capital (`java.lang.IllegalStateException` by its last part; not `Error`
/// alone), and an errno code ([`ERRNO_CODES`]) reported (`ENOENT: no such file`).
pub(super) fn error_classes(text: &str) -> impl Iterator<Item = (&str, bool)> {
    let b = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < b.len() {
            let start = at;
            while at < b.len() && (b[at].is_ascii_alphanumeric() || b[at] == b'_') {
                at += 1;
            }
            if at == start {
                at += 1;
                continue;
            }
            let word = &text[start..at];
            let w = word.as_bytes();
            let class = w[0].is_ascii_uppercase()
                && ["Error", "Exception"]
                    .iter()
                    .any(|end| word.len() > end.len() && word.ends_with(end));
            let errno = ERRNO_CODES.contains(&word);
            let next = |i: usize| b.get(at + i).copied();
            let message = next(0) == Some(b':')
                && next(1) == Some(b' ')
                && next(2).is_some_and(|c| c != b'\n');
            let elixir = next(0) == Some(b')') && text[..start].ends_with("** (");
            if class || (errno && message) {
                return Some((word, message || elixir));
            }
        }
        None
    })
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
