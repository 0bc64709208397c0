//! Reading history: `scratchpad_read` on one `history-<n>` entry reads it as any entry (a `grep`
//! there shows [`GREP_CONTEXT`] lines around each match unless the call says otherwise); on the
//! name [`ALIAS`], a `grep` searches every history entry of the session at once, newest first, within
//! one read's bounds (100 matching lines, 50,000 characters), and any other mode reads the newest.

use crate::write::{load_index, Index};
use context_fsio::{now_ms, Error, ErrorCode, Result};
use context_offload::read::{Mode, ReadOutcome, ReadRequest, DEFAULT_MAX_CHARS, MAX_GREP_MATCHES};
use context_offload::store::Session;
use context_offload::{is_history_name, Entry, Kind, HISTORY_ENTRY_PREFIX};
use std::path::Path;

/// The name that stands for every history entry of the session.
pub const ALIAS: &str = "history";
/// Lines of context around a grep match in history, unless the call gives `context`.
pub const GREP_CONTEXT: u64 = 2;

/// The history entries among `entries`, with their numbers.
pub fn history_entries(entries: &[Entry]) -> Vec<(u64, Entry)> {
    entries
        .iter()
        .filter(|e| is_history_name(&e.name))
        .filter_map(|e| {
            Some((
                e.name[HISTORY_ENTRY_PREFIX.len()..].parse().ok()?,
                e.clone(),
            ))
        })
        .collect()
}

/// A session's history at a glance.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// History entries.
    pub entries: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Messages they hold (the last index given).
    pub messages: u64,
    /// The newest entry and its first and last message index.
    pub newest: Option<Entry>,
    pub newest_first: Option<u64>,
    pub newest_last: Option<u64>,
    /// Entries cut to their head and tail for the quota.
    pub cut: Vec<String>,
}

pub(crate) fn summary_of(s: &Session, index: &Index) -> Summary {
    let mut entries = history_entries(s.entries());
    entries.sort_by_key(|(n, _)| *n);
    let newest = entries.last().map(|(_, e)| e.clone());
    let span = newest
        .as_ref()
        .and_then(|e| index.spans.iter().find(|(n, _, _)| *n == e.name));
    Summary {
        entries: entries.len() as u64,
        bytes: entries.iter().map(|(_, e)| e.size_bytes).sum(),
        messages: index.next_index.saturating_sub(1),
        newest_first: span.map(|s| s.1),
        newest_last: span.map(|s| s.2),
        newest,
        cut: index.cut.clone(),
    }
}

/// The session's history at a glance (an empty summary when it has none).
pub fn summary(state_dir: &Path, session_key: &str) -> Result<Summary> {
    context_offload::check_target(state_dir, session_key)?;
    let Some(s) = Session::open_existing(state_dir, session_key)? else {
        return Ok(Summary::default());
    };
    let index = load_index(&s).ok().flatten().unwrap_or_default();
    Ok(summary_of(&s, &index))
}

/// `scratchpad_read`'s read with history in mind: the [`ALIAS`] searches every history entry, a
/// grep of one history entry shows context lines; every other read is the store's
/// ([`context_offload::read`]).
pub fn read(state_dir: &Path, session_key: &str, req: &ReadRequest) -> Result<ReadOutcome> {
    let target = req.name.as_deref().or(req.id.as_deref()).unwrap_or("");
    if target == ALIAS {
        return read_all_history(state_dir, session_key, req);
    }
    if is_history_name(target) && req.mode == Mode::Grep && req.context.is_none() {
        let mut r = req.clone();
        r.context = Some(GREP_CONTEXT);
        return context_offload::read(state_dir, session_key, &r);
    }
    context_offload::read(state_dir, session_key, req)
}

fn no_history() -> Error {
    Error::not_found(
        "this session has no history yet: the messages of a compaction are kept from the session's first compaction on",
    )
}

fn read_all_history(state_dir: &Path, session_key: &str, req: &ReadRequest) -> Result<ReadOutcome> {
    let mut entries = history_entries(&context_offload::list(state_dir, session_key, None, false)?);
    entries.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    let Some((_, newest)) = entries.first() else {
        return Err(no_history());
    };
    let one = |name: &str, n: Option<u64>, max: Option<u64>| {
        let mut r = req.clone();
        r.id = None;
        r.name = Some(name.to_string());
        r.turn_id = None;
        if r.mode == Mode::Grep {
            r.context = Some(req.context.unwrap_or(GREP_CONTEXT));
            r.n = n;
            r.max_chars = max;
        }
        context_offload::read(state_dir, session_key, &r)
    };
    if req.mode != Mode::Grep {
        return one(&newest.name, req.n, req.max_chars);
    }
    let mut matches_left = req.n.unwrap_or(MAX_GREP_MATCHES).min(MAX_GREP_MATCHES);
    let mut chars_left = req.max_chars.unwrap_or(DEFAULT_MAX_CHARS);
    let mut content = String::new();
    let mut matches = 0;
    let mut truncated = false;
    for (_, e) in &entries {
        if matches_left == 0 || chars_left == 0 {
            truncated = true;
            break;
        }
        let r = match one(&e.name, Some(matches_left), Some(chars_left)) {
            Ok(r) => r,
            // A damaged entry does not hide the others: the result says which could not be read.
            Err(err) if err.code == ErrorCode::Corrupt || err.code == ErrorCode::UnsafeFile => {
                let note = format!(
                    "== {} could not be read ({}) ==\n",
                    e.name,
                    err.code.as_str()
                );
                chars_left = chars_left.saturating_sub(note.len() as u64);
                content.push_str(&note);
                continue;
            }
            Err(err) => return Err(err),
        };
        let found = r.matches.unwrap_or(0);
        truncated |= r.truncated;
        if found == 0 {
            continue;
        }
        let block = format!("== {} ==\n{}\n", e.name, r.content);
        chars_left = chars_left.saturating_sub(block.chars().count() as u64);
        content.push_str(&block);
        matches += found;
        matches_left = matches_left.saturating_sub(found);
    }
    let all = Entry {
        id: ALIAS.to_string(),
        name: ALIAS.to_string(),
        turn_id: None,
        tool_name: None,
        kind: Kind::Text,
        size_bytes: entries.iter().map(|(_, e)| e.size_bytes).sum(),
        chars: entries.iter().map(|(_, e)| e.chars).sum(),
        lines: entries.iter().map(|(_, e)| e.lines).sum(),
        sha256: None,
        created_at: entries.iter().map(|(_, e)| e.created_at).min().unwrap_or(0),
        updated_at: entries.iter().map(|(_, e)| e.updated_at).max().unwrap_or(0),
        expires_at: None,
        last_read_at: Some(now_ms()),
        rev: 0,
    };
    Ok(ReadOutcome {
        entry: all,
        mode: Mode::Grep,
        content: content.trim_end().to_string(),
        encoding: "utf-8",
        start: None,
        end: None,
        start_line: None,
        end_line: None,
        matches: Some(matches),
        truncated,
    })
}
