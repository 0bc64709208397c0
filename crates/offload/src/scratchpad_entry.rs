//! The persisted scratchpad: one named entry per session in the observation store
//! ([`SCRATCHPAD_ENTRY`]), a JSON object mapping each persisted key (`openclaw:scratchpad:notes`,
//! `openclaw:scratchpad:plan`, `openclaw:scratchpad:refs`, ...) to its latest value, as the
//! scratchpad's `persist` entries give them. [`persist`] is its read-modify-write under the store's
//! session lock, so two processes (two gateways, a gateway and a CLI) persisting the same session
//! never drop each other's spaces; [`read_persisted`] reads it back with a cap every write
//! respects, so what is written can always be read.

use crate::read::read_all;
use crate::store::{Entry, Session};
use crate::{check_target, StoreOptions};
use context_fsio::{now_ms, record_activity, Error, ErrorCode, Result};
use serde_json::{Map, Value};
use std::path::Path;

/// How the names of the package's own entries start (the persisted scratchpad, the plugin's
/// session record): they are no entries the model saved.
pub const OWN_ENTRY_PREFIX: &str = "context-native-";
/// The name of the session's persisted scratchpad entry (no TTL, never evicted).
pub const SCRATCHPAD_ENTRY: &str = "context-native-scratchpad";
/// Most characters the persisted entry may hold (64 Mi): [`persist`] refuses (`TooLarge`) to write
/// more, [`read_persisted`] reads up to it. Above what the plugin's largest settings let the spaces
/// hold (refs are bounded by count and by the block's token budget, up to 50,000 tokens: a ref of
/// spaces is ~100 characters per token, ~5 M characters), even with every character JSON-escaped.
pub const MAX_PERSISTED_CHARS: u64 = 64 << 20;
/// The persisted key whose items name protected observation entries.
pub const REFS_KEY: &str = "openclaw:scratchpad:refs";

/// What [`persist`] wrote.
#[derive(Debug, Clone)]
pub struct PersistOutcome {
    /// The merged spaces now on disk.
    pub spaces: Map<String, Value>,
    /// The entry written.
    pub entry: Entry,
}

fn check_value(key: &str, v: &Value) -> Result<()> {
    let ok = match v {
        Value::String(_) => true,
        Value::Array(items) => items.iter().all(Value::is_string),
        _ => false,
    };
    if key.is_empty() || !ok {
        return Err(Error::invalid_arg(format!(
            "entries: each needs a non-empty customType and data that is a string or an array of strings (got {key:?})"
        )));
    }
    Ok(())
}

/// The spaces stored in `e` (an empty map when absent); `Corrupt` when it is not a JSON object.
fn load(s: &Session, e: Option<&Entry>) -> Result<Map<String, Value>> {
    let Some(e) = e else { return Ok(Map::new()) };
    if e.chars > MAX_PERSISTED_CHARS {
        return Err(too_large(e.chars));
    }
    let bytes = read_all(s, e)?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(Error::corrupt(format!(
            "the persisted scratchpad entry {SCRATCHPAD_ENTRY:?} is not a JSON object; delete it (deleteObservation) to start over"
        ))),
    }
}

fn too_large(chars: u64) -> Error {
    Error::new(
        ErrorCode::TooLarge,
        format!(
            "the persisted scratchpad would be {chars} characters, over the {MAX_PERSISTED_CHARS}-character limit its reader accepts; \
             nothing was written: lower the scratchpad limits (notesMaxChars, planMaxChars, refsMax) or shorten the spaces"
        ),
    )
}

/// Merges `entries` (`(customType, data)` in order, the later winning) into the session's
/// persisted scratchpad under the store's session lock, and writes it durably (also when
/// `entries` is empty). `TooLarge` (nothing written) when the result would exceed
/// [`MAX_PERSISTED_CHARS`]; `Corrupt` when the stored entry is not a JSON object.
pub fn persist(
    state_dir: &Path,
    session_key: &str,
    entries: &[(String, Value)],
    opts: &StoreOptions,
) -> Result<PersistOutcome> {
    check_target(state_dir, session_key)?;
    // (a bad value is refused before the store is opened)
    for (k, v) in entries {
        check_value(k, v)?;
    }
    let (written, ()) = merge(state_dir, session_key, opts, true, |_| {
        Ok((entries.to_vec(), ()))
    })?;
    written.ok_or_else(|| Error::new(ErrorCode::Io, "the persisted scratchpad was not written"))
}

/// A read-modify-write of the session's persisted scratchpad, all of it under the store's session
/// lock: `f` gets the spaces as they are on disk now (an empty map when none) and returns the
/// entries to merge (none: nothing is written) and a value handed back. Another process's write
/// can never fall between the read and the write, so an action computed from the spaces (an
/// append) loses nothing. `TooLarge` / `Corrupt` as [`persist`]; `f`'s error is returned as is
/// (nothing written).
pub fn update<T>(
    state_dir: &Path,
    session_key: &str,
    opts: &StoreOptions,
    f: impl FnOnce(&Map<String, Value>) -> Result<(Vec<(String, Value)>, T)>,
) -> Result<(Option<PersistOutcome>, T)> {
    check_target(state_dir, session_key)?;
    merge(state_dir, session_key, opts, false, |spaces| {
        let (entries, out) = f(spaces)?;
        for (k, v) in &entries {
            check_value(k, v)?;
        }
        Ok((entries, out))
    })
}

/// The read-modify-write of [`persist`] and [`update`], under the store's session lock: the
/// spaces on disk, `f`'s entries merged into them and written; when `f` gives none, written only
/// `always`.
fn merge<T>(
    state_dir: &Path,
    session_key: &str,
    opts: &StoreOptions,
    always: bool,
    f: impl FnOnce(&Map<String, Value>) -> Result<(Vec<(String, Value)>, T)>,
) -> Result<(Option<PersistOutcome>, T)> {
    let mut s = Session::open(state_dir, session_key)?;
    let current = s
        .entries()
        .iter()
        .find(|e| e.name == SCRATCHPAD_ENTRY)
        .cloned();
    let mut spaces = load(&s, current.as_ref())?;
    let (entries, out) = f(&spaces)?;
    if entries.is_empty() && !always {
        return Ok((None, out));
    }
    for (k, v) in entries {
        spaces.insert(k, v);
    }
    let now = now_ms();
    let entry = write_spaces(&mut s, &spaces, opts, now)?;
    drop(s);
    let _ = record_activity(state_dir, session_key, now);
    Ok((Some(PersistOutcome { spaces, entry }), out))
}

/// Writes `spaces` as the session's persisted entry (the caller holds the store open, locked).
fn write_spaces(
    s: &mut Session,
    spaces: &Map<String, Value>,
    opts: &StoreOptions,
    now: u64,
) -> Result<Entry> {
    let text = Value::Object(spaces.clone()).to_string();
    let chars = crate::index::count_chars(text.as_bytes());
    if chars > MAX_PERSISTED_CHARS {
        return Err(too_large(chars));
    }
    let mut protect = opts.protect.clone();
    protect.push(SCRATCHPAD_ENTRY.to_string());
    let (entry, _evicted) = s.store(
        crate::Kind::Text,
        text.as_bytes(),
        Some(SCRATCHPAD_ENTRY),
        None,
        None,
        None,
        opts.quota(),
        &protect,
        context_fsio::Durability::Durable,
        now,
    )?;
    Ok(entry)
}

/// The session's persisted scratchpad spaces; `None` when it has none.
pub fn read_persisted(state_dir: &Path, session_key: &str) -> Result<Option<Map<String, Value>>> {
    check_target(state_dir, session_key)?;
    let Some(s) = Session::open_existing(state_dir, session_key)? else {
        return Ok(None);
    };
    let Some(e) = s.entries().iter().find(|e| e.name == SCRATCHPAD_ENTRY) else {
        return Ok(None);
    };
    load(&s, Some(e)).map(Some)
}

/// The text of the refs the session's persisted scratchpad holds (one per line), for the store's
/// protection; `None` when there is no readable entry.
pub fn refs_text(s: &Session) -> Option<String> {
    let e = s.entries().iter().find(|e| e.name == SCRATCHPAD_ENTRY)?;
    let spaces = load(s, Some(e)).ok()?;
    let refs = spaces.get(REFS_KEY)?.as_array()?;
    Some(
        refs.iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("\n"),
    )
}
