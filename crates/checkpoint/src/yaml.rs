//! The YAML of schema v1: a hand-written emitter that lays a checkpoint out exactly as seed 001
//! section 5.3 does, and a reader on the yaml-rust2 parser.
//!
//! Scalars are written so that every string round-trips exactly through any YAML 1.2 parser
//! (the npm `yaml` package the host uses, and yaml-rust2 here): free text as a literal block
//! scalar when that is safe, everything else (and unsafe free text) double-quoted with every
//! non-printable or line-breaking character escaped. Keys are fixed by the schema; no user
//! content ever becomes a key. yaml-rust2's own emitter is not used: it writes several of these
//! strings in forms that read back differently.

use crate::model::*;
use context_fsio::{Error, Result};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;
use yaml_rust2::{Yaml, YamlLoader};

/// Whether `c` may appear unescaped inside a double-quoted scalar: YAML's printable set without
/// the line breaks of YAML 1.1 (NEL, LS, PS) and the byte order mark.
fn is_plain_printable(c: char) -> bool {
    matches!(c as u32, 0x20..=0x7E | 0xA0..=0xD7FF | 0xE000..=0xFEFE | 0xFF00..=0xFFFD | 0x10000..=0x10FFFF)
}

/// `s` as a double-quoted YAML scalar (always on one line).
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\x0B' => out.push_str("\\v"),
            '\x0C' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\x1B' => out.push_str("\\e"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if is_plain_printable(c) => out.push(c),
            c if (c as u32) <= 0xFF => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Whether `s` can be written as a literal block scalar and read back unchanged by every
/// parser: printable characters and `\n` only (no tab, CR or YAML 1.1 line breaks), some
/// visible content, and no line made of spaces alone (parsers disagree on those).
pub fn block_safe(s: &str) -> bool {
    if !s.chars().any(|c| c != '\n' && c != ' ') {
        return false;
    }
    if !s.chars().all(|c| c == '\n' || is_plain_printable(c)) {
        return false;
    }
    s.split('\n')
        .all(|line| line.is_empty() || line.bytes().any(|b| b != b' '))
}

/// Appends ` <value>\n` for a free-text value whose key (or `- `) starts at column `col`:
/// a literal block scalar indented by two more columns when safe, else double-quoted.
fn push_text(out: &mut String, col: usize, s: &str) {
    if !block_safe(s) {
        out.push(' ');
        out.push_str(&quoted(s));
        out.push('\n');
        return;
    }
    let trailing = s.len() - s.trim_end_matches('\n').len();
    let body = &s[..s.len() - trailing];
    out.push_str(" |");
    // An explicit indentation indicator when the content itself starts with a space or an
    // empty line, so the parser does not take that space as indentation.
    if body.starts_with(' ') || body.starts_with('\n') {
        out.push('2');
    }
    match trailing {
        0 => out.push('-'),
        1 => {}
        _ => out.push('+'),
    }
    out.push('\n');
    let indent = " ".repeat(col + 2);
    for line in body.split('\n') {
        if !line.is_empty() {
            out.push_str(&indent);
            out.push_str(line);
        }
        out.push('\n');
    }
    for _ in 1..trailing {
        out.push('\n');
    }
}

fn push_opt_text(out: &mut String, col: usize, s: Option<&str>) {
    match s {
        Some(s) => push_text(out, col, s),
        None => out.push_str(" null\n"),
    }
}

fn push_opt_quoted(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => {
            out.push(' ');
            out.push_str(&quoted(s));
            out.push('\n');
        }
        None => out.push_str(" null\n"),
    }
}

/// The blank line between sections, left out after a keep-chomped (`|+`) block scalar, whose
/// trailing empty lines are content: a blank line there would add a newline to the value.
fn section_gap(out: &mut String) {
    if !out.ends_with("\n\n") {
        out.push('\n');
    }
}

/// A float that reads back as a float (never as an integer): `0.81`, `1.0`.
fn float(x: f64) -> String {
    let x = if x.is_finite() { x } else { 0.0 };
    let s = format!("{x}");
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

fn push_string_list(out: &mut String, indent: &str, key: &str, items: &[String]) {
    out.push_str(indent);
    out.push_str(key);
    if items.is_empty() {
        out.push_str(": []\n");
        return;
    }
    out.push_str(":\n");
    for it in items {
        out.push_str(indent);
        out.push_str("  - ");
        out.push_str(&quoted(it));
        out.push('\n');
    }
}

/// The checkpoint as YAML, laid out as seed 001 section 5.3: every section present, keys in
/// the seed's order, `null` / `[]` for what is empty.
pub fn to_yaml(cp: &Checkpoint) -> String {
    let mut o = String::with_capacity(2048);
    let m = &cp.meta;
    o.push_str("# OpenClaw Checkpoint Schema v1\n");
    o.push_str(&format!(
        "schema: \"{SCHEMA}\"\nschema_version: {SCHEMA_VERSION}\n\n"
    ));
    o.push_str("# --- METADATA ------------------------------------------------\nmeta:\n");
    o.push_str(&format!("  checkpoint_id: {}\n", quoted(&m.checkpoint_id)));
    o.push_str(&format!("  session_key: {}\n", quoted(&m.session_key)));
    o.push_str("  session_file:");
    push_opt_quoted(&mut o, m.session_file.as_deref());
    o.push_str(&format!("  created_at: {}\n", quoted(&m.created_at)));
    o.push_str(&format!("  trigger: {}\n", quoted(m.trigger.as_str())));
    o.push_str(&format!("  compaction_count: {}\n", m.compaction_count));
    o.push_str("  token_usage:\n");
    o.push_str(&format!(
        "    input_tokens: {}\n    context_window: {}\n    utilization: {}\n",
        m.token_usage.input_tokens,
        m.token_usage.context_window,
        float(m.token_usage.utilization)
    ));
    o.push_str("  previous_checkpoint:");
    push_opt_quoted(&mut o, m.previous_checkpoint.as_deref());
    o.push_str("  channel:");
    push_opt_quoted(&mut o, m.channel.as_deref());
    o.push_str("  agent_id:");
    push_opt_quoted(&mut o, m.agent_id.as_deref());

    let w = &cp.working;
    section_gap(&mut o);
    o.push_str("# --- WORKING STATE -------------------------------------------\nworking:\n");
    o.push_str("  topic:");
    push_opt_text(&mut o, 2, w.topic.as_deref());
    if let Some(task) = w.task.as_deref() {
        o.push_str("  task:");
        push_text(&mut o, 2, task);
    }
    if let Some(replaced) = w.replaced_task.as_deref() {
        o.push_str("  replaced_task:");
        push_text(&mut o, 2, replaced);
    }
    o.push_str(&format!("  status: {}\n", quoted(w.status.as_str())));
    o.push_str(&format!("  interrupted: {}\n", w.interrupted));
    match &w.last_tool_call {
        None => o.push_str("  last_tool_call: null\n"),
        Some(tc) => {
            o.push_str("  last_tool_call:\n");
            o.push_str(&format!("    name: {}\n", quoted(&tc.name)));
            o.push_str("    params_summary:");
            push_opt_quoted(&mut o, tc.params_summary.as_deref());
        }
    }
    o.push_str("  next_action:");
    push_opt_text(&mut o, 2, w.next_action.as_deref());
    // optional field of v1: written when non-empty
    if !w.open_tasks.is_empty() {
        o.push_str("  open_tasks:\n");
        for t in &w.open_tasks {
            o.push_str("    - subject:");
            push_text(&mut o, 6, &t.subject);
            if let Some(id) = t.id.as_deref() {
                o.push_str(&format!("      id: {}\n", quoted(id)));
            }
        }
    }

    section_gap(&mut o);
    o.push_str("# --- DECISIONS -----------------------------------------------\n");
    if cp.decisions.is_empty() {
        o.push_str("decisions: []\n");
    } else {
        o.push_str("decisions:\n");
        for d in &cp.decisions {
            o.push_str(&format!("  - id: {}\n", quoted(&d.id)));
            o.push_str("    what:");
            push_text(&mut o, 4, &d.what);
            o.push_str("    when:");
            push_opt_quoted(&mut o, d.when.as_deref());
        }
    }

    if !cp.constraints.is_empty() {
        section_gap(&mut o);
        o.push_str("# --- CONSTRAINTS ---------------------------------------------\n");
        push_string_list(&mut o, "", "constraints", &cp.constraints);
    }

    section_gap(&mut o);
    o.push_str("# --- RESOURCES -----------------------------------------------\nresources:\n");
    push_string_list(&mut o, "  ", "files_read", &cp.resources.files_read);
    push_string_list(&mut o, "  ", "files_modified", &cp.resources.files_modified);
    push_string_list(&mut o, "  ", "tools_used", &cp.resources.tools_used);
    // Optional fields of v1 (readers that do not know them ignore them): written when non-empty.
    for (key, list) in [
        ("active_files", &cp.resources.active_files),
        ("identifiers", &cp.resources.identifiers),
        ("commands", &cp.resources.commands),
        ("recent_values", &cp.resources.recent_values),
        ("named_values", &cp.resources.named_values),
    ] {
        if !list.is_empty() {
            push_string_list(&mut o, "  ", key, list);
        }
    }

    section_gap(&mut o);
    o.push_str("# --- THREAD --------------------------------------------------\nthread:\n");
    o.push_str("  summary:");
    push_opt_text(&mut o, 2, cp.thread.summary.as_deref());
    if cp.thread.key_exchanges.is_empty() {
        o.push_str("  key_exchanges: []\n");
    } else {
        o.push_str("  key_exchanges:\n");
        for e in &cp.thread.key_exchanges {
            o.push_str(&format!("    - role: {}\n", quoted(e.role.as_str())));
            o.push_str("      gist:");
            push_text(&mut o, 6, &e.gist);
        }
    }

    section_gap(&mut o);
    o.push_str("# --- OPEN ITEMS ----------------------------------------------\n");
    push_string_list(&mut o, "", "open_items", &cp.open_items);

    section_gap(&mut o);
    o.push_str("# --- LEARNINGS -----------------------------------------------\n");
    o.push_str("# Written to checkpoint for agent visibility. Agent can manually\n");
    o.push_str("# promote to long-term memory via memory_store tool.\n");
    push_string_list(&mut o, "", "learnings", &cp.learnings);
    o
}

// ---------------------------------------------------------------------------------------------
// Reading

fn bad(what: &str) -> Error {
    Error::corrupt(format!(
        "checkpoint YAML: {what}; the file is damaged or not an openclaw/checkpoint v1 document"
    ))
}

fn field<'a>(map: &'a Yaml, key: &str) -> &'a Yaml {
    &map[key]
}

fn req_str(y: &Yaml, what: &str) -> Result<String> {
    match y {
        Yaml::String(s) => Ok(s.clone()),
        _ => Err(bad(&format!("{what} must be a string"))),
    }
}

fn opt_str(y: &Yaml, what: &str) -> Result<Option<String>> {
    match y {
        Yaml::Null | Yaml::BadValue => Ok(None),
        Yaml::String(s) => Ok(Some(s.clone())),
        _ => Err(bad(&format!("{what} must be a string or null"))),
    }
}

fn uint(y: &Yaml, what: &str) -> Result<u64> {
    match y {
        Yaml::Integer(i) if *i >= 0 => Ok(*i as u64),
        Yaml::Null | Yaml::BadValue => Ok(0),
        _ => Err(bad(&format!("{what} must be a non-negative integer"))),
    }
}

fn real(y: &Yaml, what: &str) -> Result<f64> {
    match y {
        Yaml::Real(s) => s
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| bad(&format!("{what} must be a finite number"))),
        Yaml::Integer(i) => Ok(*i as f64),
        _ => Err(bad(&format!("{what} must be a number"))),
    }
}

fn list<'a>(y: &'a Yaml, what: &str) -> Result<&'a [Yaml]> {
    match y {
        Yaml::Array(a) => Ok(a),
        Yaml::Null | Yaml::BadValue => Ok(&[]),
        _ => Err(bad(&format!("{what} must be a list"))),
    }
}

fn str_list(y: &Yaml, what: &str) -> Result<Vec<String>> {
    list(y, what)?.iter().map(|v| req_str(v, what)).collect()
}

fn section<'a>(doc: &'a Yaml, key: &str) -> Result<&'a Yaml> {
    match field(doc, key) {
        y @ Yaml::Hash(_) => Ok(y),
        Yaml::BadValue | Yaml::Null => Ok(&Yaml::BadValue),
        _ => Err(bad(&format!("{key} must be a mapping"))),
    }
}

/// Deepest nesting of a checkpoint document (schema v1 needs 4 levels).
const MAX_DEPTH: usize = 32;

/// Builds the tree while it scans the events, in one pass: the writer never emits anchors or
/// aliases, and yaml-rust2 expands every alias into a copy, so a few hundred bytes of nested
/// aliases ("billion laughs") would take exponential time and memory. Found by the reliability
/// suite (issue 8): `readCheckpoint({ yaml })` hung. Once an alias or nesting deeper than
/// [`MAX_DEPTH`] is seen, no event reaches the tree any more (nothing is copied, nothing grows),
/// and the document is `Corrupt`. (It was a scan of its own before the tree was built: the YAML
/// was parsed twice, a fifth of `renderCheckpoint`'s time.)
fn load_guarded(text: &str) -> Result<YamlLoader> {
    #[derive(Default)]
    struct Guarded {
        tree: YamlLoader,
        depth: usize,
        aliases: usize,
        too_deep: bool,
        documents: usize,
    }
    impl MarkedEventReceiver for Guarded {
        fn on_event(&mut self, ev: Event, mark: Marker) {
            match ev {
                Event::Alias(_) => self.aliases += 1,
                Event::DocumentStart => self.documents += 1,
                Event::SequenceStart(..) | Event::MappingStart(..) => {
                    self.depth += 1;
                    self.too_deep |= self.depth > MAX_DEPTH;
                }
                Event::SequenceEnd | Event::MappingEnd => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
            if self.aliases == 0 && !self.too_deep {
                self.tree.on_event(ev, mark);
            }
        }
    }
    let mut g = Guarded::default();
    Parser::new_from_str(text)
        .load(&mut g, true)
        .map_err(|e| bad(&format!("invalid YAML ({e})")))?;
    if g.aliases > 0 {
        return Err(bad("YAML aliases are not part of a checkpoint"));
    }
    if g.too_deep {
        return Err(bad("the document is nested too deeply"));
    }
    // counted here, not from the tree: a document the tree stopped at (a key given twice) is
    // missing from it, and the one before it must not pass for the only one
    if g.documents != 1 {
        return Err(bad("expected exactly one YAML document"));
    }
    Ok(g.tree)
}

/// Parses a checkpoint document. `Corrupt` for anything that is not a well-formed schema v1
/// checkpoint (bad YAML, wrong schema or version, wrong types, unknown enum values).
pub fn from_yaml(text: &str) -> Result<Checkpoint> {
    let tree = load_guarded(text)?;
    let doc = match tree.documents() {
        [d] => d,
        _ => return Err(bad("expected exactly one YAML document")),
    };
    if !matches!(doc, Yaml::Hash(_)) {
        return Err(bad("the document is not a mapping"));
    }
    if field(doc, "schema").as_str() != Some(SCHEMA) {
        return Err(bad("schema is not \"openclaw/checkpoint\""));
    }
    if field(doc, "schema_version").as_i64() != Some(SCHEMA_VERSION) {
        return Err(bad("schema_version is not 1"));
    }
    let meta = match field(doc, "meta") {
        y @ Yaml::Hash(_) => y,
        _ => return Err(bad("meta is missing")),
    };
    let tu = section(meta, "token_usage")?;
    let trigger = req_str(field(meta, "trigger"), "meta.trigger")?;
    let meta = Meta {
        checkpoint_id: req_str(field(meta, "checkpoint_id"), "meta.checkpoint_id")?,
        session_key: req_str(field(meta, "session_key"), "meta.session_key")?,
        session_file: opt_str(field(meta, "session_file"), "meta.session_file")?,
        created_at: req_str(field(meta, "created_at"), "meta.created_at")?,
        trigger: Trigger::parse(&trigger).ok_or_else(|| bad("meta.trigger is unknown"))?,
        compaction_count: uint(field(meta, "compaction_count"), "meta.compaction_count")?,
        token_usage: TokenUsage {
            input_tokens: uint(field(tu, "input_tokens"), "input_tokens")?,
            context_window: uint(field(tu, "context_window"), "context_window")?,
            utilization: match field(tu, "utilization") {
                Yaml::Null | Yaml::BadValue => 0.0,
                y => real(y, "utilization")?,
            },
        },
        previous_checkpoint: opt_str(field(meta, "previous_checkpoint"), "previous_checkpoint")?,
        channel: opt_str(field(meta, "channel"), "meta.channel")?,
        agent_id: opt_str(field(meta, "agent_id"), "meta.agent_id")?,
    };

    let w = section(doc, "working")?;
    let status = match field(w, "status") {
        Yaml::Null | Yaml::BadValue => Status::Idle,
        y => Status::parse(&req_str(y, "working.status")?)
            .ok_or_else(|| bad("working.status is unknown"))?,
    };
    let interrupted = match field(w, "interrupted") {
        Yaml::Boolean(b) => *b,
        Yaml::Null | Yaml::BadValue => false,
        _ => return Err(bad("working.interrupted must be a boolean")),
    };
    let last_tool_call = match field(w, "last_tool_call") {
        Yaml::Null | Yaml::BadValue => None,
        y @ Yaml::Hash(_) => Some(ToolCall {
            name: req_str(field(y, "name"), "last_tool_call.name")?,
            params_summary: opt_str(field(y, "params_summary"), "params_summary")?,
        }),
        _ => return Err(bad("working.last_tool_call must be a mapping or null")),
    };
    let working = Working {
        topic: opt_str(field(w, "topic"), "working.topic")?,
        task: opt_str(field(w, "task"), "working.task")?,
        replaced_task: opt_str(field(w, "replaced_task"), "working.replaced_task")?,
        status,
        interrupted,
        last_tool_call,
        next_action: opt_str(field(w, "next_action"), "working.next_action")?,
        open_tasks: list(field(w, "open_tasks"), "working.open_tasks")?
            .iter()
            .map(|t| {
                Ok(Task {
                    id: opt_str(field(t, "id"), "open_tasks[].id")?,
                    subject: req_str(field(t, "subject"), "open_tasks[].subject")?,
                })
            })
            .collect::<Result<Vec<_>>>()?,
    };

    let decisions = list(field(doc, "decisions"), "decisions")?
        .iter()
        .map(|d| {
            Ok(Decision {
                id: req_str(field(d, "id"), "decisions[].id")?,
                what: req_str(field(d, "what"), "decisions[].what")?,
                when: opt_str(field(d, "when"), "decisions[].when")?,
            })
        })
        .collect::<Result<Vec<_>>>()?;

    let r = section(doc, "resources")?;
    let resources = Resources {
        files_read: str_list(field(r, "files_read"), "resources.files_read")?,
        files_modified: str_list(field(r, "files_modified"), "resources.files_modified")?,
        tools_used: str_list(field(r, "tools_used"), "resources.tools_used")?,
        active_files: str_list(field(r, "active_files"), "resources.active_files")?,
        identifiers: str_list(field(r, "identifiers"), "resources.identifiers")?,
        commands: str_list(field(r, "commands"), "resources.commands")?,
        recent_values: str_list(field(r, "recent_values"), "resources.recent_values")?,
        named_values: str_list(field(r, "named_values"), "resources.named_values")?,
    };

    let t = section(doc, "thread")?;
    let key_exchanges = list(field(t, "key_exchanges"), "thread.key_exchanges")?
        .iter()
        .map(|e| {
            let role = req_str(field(e, "role"), "key_exchanges[].role")?;
            Ok(Exchange {
                role: Role::parse(&role).ok_or_else(|| bad("key_exchanges[].role is unknown"))?,
                gist: req_str(field(e, "gist"), "key_exchanges[].gist")?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let thread = Thread {
        summary: opt_str(field(t, "summary"), "thread.summary")?,
        key_exchanges,
    };

    Ok(Checkpoint {
        meta,
        working,
        decisions,
        constraints: str_list(field(doc, "constraints"), "constraints")?,
        resources,
        thread,
        open_items: str_list(field(doc, "open_items"), "open_items")?,
        learnings: str_list(field(doc, "learnings"), "learnings")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::{nasty_string, Rng, NASTY};

    fn sample(mut s: impl FnMut() -> String) -> Checkpoint {
        Checkpoint {
            meta: Meta {
                checkpoint_id: s(),
                session_key: s(),
                session_file: Some(s()),
                created_at: s(),
                trigger: Trigger::Compaction,
                compaction_count: 2,
                token_usage: TokenUsage {
                    input_tokens: 162_431,
                    context_window: 200_000,
                    utilization: 0.81,
                },
                previous_checkpoint: Some(s()),
                channel: Some(s()),
                agent_id: Some(s()),
            },
            working: Working {
                topic: Some(s()),
                task: Some(s()),
                replaced_task: Some(s()),
                status: Status::WaitingForUser,
                interrupted: true,
                last_tool_call: Some(ToolCall {
                    name: s(),
                    params_summary: Some(s()),
                }),
                next_action: Some(s()),
                open_tasks: vec![
                    Task {
                        id: Some(s()),
                        subject: s(),
                    },
                    Task {
                        id: None,
                        subject: s(),
                    },
                ],
            },
            decisions: vec![
                Decision {
                    id: s(),
                    what: s(),
                    when: Some(s()),
                },
                Decision {
                    id: s(),
                    what: s(),
                    when: None,
                },
            ],
            constraints: vec![s(), s()],
            resources: Resources {
                files_read: vec![s(), s()],
                files_modified: vec![s()],
                tools_used: vec![s(), s()],
                active_files: vec![s()],
                identifiers: vec![s(), s()],
                commands: vec![s()],
                recent_values: vec![s()],
                named_values: vec![s()],
            },
            thread: Thread {
                summary: Some(s()),
                key_exchanges: vec![
                    Exchange {
                        role: Role::User,
                        gist: s(),
                    },
                    Exchange {
                        role: Role::Agent,
                        gist: s(),
                    },
                ],
            },
            open_items: vec![s(), s()],
            learnings: vec![s()],
        }
    }

    #[test]
    fn every_nasty_piece_round_trips_in_every_field() {
        for piece in NASTY {
            let cp = sample(|| piece.to_string());
            let y = to_yaml(&cp);
            let back = from_yaml(&y).unwrap_or_else(|e| panic!("{piece:?}: {e}\n{y}"));
            assert_eq!(back, cp, "{piece:?}\n{y}");
        }
    }

    #[test]
    fn thousands_of_random_strings_round_trip_exactly() {
        let mut rng = Rng::new(0xC0FFEE);
        let (mut blocks, mut total) = (0usize, 0usize);
        for _ in 0..3000 {
            let mut strings = Vec::new();
            let cp = sample(|| {
                let s = nasty_string(&mut rng);
                strings.push(s.clone());
                s
            });
            for s in &strings {
                total += 1;
                blocks += block_safe(s) as usize;
            }
            let y = to_yaml(&cp);
            let back = from_yaml(&y).unwrap_or_else(|e| panic!("{e}\n{y}"));
            if back != cp {
                // Find the culprit for a readable failure.
                for s in &strings {
                    let one = sample(|| s.clone());
                    let y1 = to_yaml(&one);
                    assert_eq!(from_yaml(&y1).ok(), Some(one), "{s:?}\n{y1}");
                }
                panic!("round trip failed\n{y}");
            }
        }
        // The block style is really exercised, not just the quoted fallback.
        assert!(
            blocks * 5 > total,
            "{blocks} of {total} strings were block-safe"
        );
    }

    #[test]
    fn constraints_are_optional_written_only_when_set_and_read_back() {
        let mut cp = sample(|| "no running for four weeks".to_string());
        let y = to_yaml(&cp);
        assert!(y.contains("constraints:\n  - \"no running for four weeks\"\n"));
        assert_eq!(from_yaml(&y).unwrap().constraints, cp.constraints);
        cp.constraints.clear();
        written_only_when_set(&cp, "constraints");
    }

    #[test]
    fn open_tasks_are_optional_written_only_when_set_and_read_back() {
        let mut cp = sample(|| "Backfill in batches of 500".to_string());
        cp.working.open_tasks[0].id = Some("3".to_string());
        let y = to_yaml(&cp);
        let task = "    - subject: |-\n        Backfill in batches of 500\n";
        assert!(
            y.contains(&format!("  open_tasks:\n{task}      id: \"3\"\n{task}\n")),
            "{y}"
        );
        assert_eq!(
            from_yaml(&y).unwrap().working.open_tasks,
            cp.working.open_tasks
        );
        let bad = y.replace(task, "    - subject: [x]\n");
        assert!(
            from_yaml(&bad).is_err(),
            "a task that is no text is a damaged checkpoint"
        );
        cp.working.open_tasks.clear();
        written_only_when_set(&cp, "open_tasks");
    }

    /// `cp`, whose optional field `key` is empty, is written without it and reads back the same.
    fn written_only_when_set(cp: &Checkpoint, key: &str) {
        let y = to_yaml(cp);
        assert!(!y.contains(key), "an old reader sees the v1 it knows");
        assert_eq!(
            &from_yaml(&y).unwrap(),
            cp,
            "a checkpoint without them reads"
        );
    }

    #[test]
    fn styles_follow_the_seed() {
        let cp = sample(|| "Helping user plan a trip to Japan\n".to_string());
        let y = to_yaml(&cp);
        assert!(y.contains("  topic: |\n    Helping user plan a trip to Japan\n"));
        assert!(y.contains("    - \"Helping user plan a trip to Japan\\n\"\n"));
        let mut cp2 = cp.clone();
        cp2.working.task = None;
        cp2.working.replaced_task = None;
        cp2.working.topic = Some("  lead\n\n".into());
        assert!(to_yaml(&cp2).contains("  topic: |2+\n      lead\n\n  status: "));
        cp2.working.topic = Some("no newline".into());
        assert!(to_yaml(&cp2).contains("  topic: |-\n    no newline\n"));
        cp2.working.topic = Some("tab\there".into());
        assert!(to_yaml(&cp2).contains("  topic: \"tab\\there\"\n"));
        cp2.working.topic = Some("".into());
        assert!(to_yaml(&cp2).contains("  topic: \"\"\n"));
        assert_eq!(
            quoted("\u{85}\u{2028}\u{FEFF}\x01\u{9F}\u{FFFF}"),
            "\"\\N\\L\\uFEFF\\x01\\x9F\\uFFFF\""
        );
        assert_eq!(float(1.0), "1.0");
        assert_eq!(float(0.81), "0.81");
    }

    #[test]
    fn rejects_what_is_not_a_v1_checkpoint() {
        let mut cp = sample(|| "x".into());
        cp.constraints.clear();
        let good = to_yaml(&cp);
        assert!(from_yaml(&good).is_ok());
        for bad in [
            "",
            "[]",
            "schema: x",
            &good.replace("schema_version: 1", "schema_version: 2"),
            &good.replace("\"compaction\"", "\"boom\""),
            &good.replace("compaction_count: 2", "compaction_count: -2"),
            &good.replace("interrupted: true", "interrupted: \"yes\""),
            // cut inside a quoted string
            &good[..good.find("\"compaction\"").unwrap() + 4],
            &format!("{good}\n---\n{good}"),
            "meta: [\n",
        ] {
            assert!(from_yaml(bad).is_err(), "{bad}");
        }
    }
}
