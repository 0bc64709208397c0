//! The observation store (seeds 003 and 004): tool results too large for the context are parked on
//! disk under `<stateDir>/context/observations/<session dir>/` and the model gets seed 003's
//! synthetic observation (a head + tail summary and a `scratchpad_id`) it explores with
//! `scratchpad_read`: head, tail, character ranges, lines, grep. Named entries (seed 004) live
//! beside them: write, edit, list, delete. Entries carry a turn id and a TTL; a per-session byte
//! quota evicts expired, then least recently used, entries, never protected ones. Knows nothing
//! of napi.
//!
//! Costs: a read goes through a sparse index written with the entry (see [`index`]), so a range at
//! the end of a 100 MB entry reads a few KB; grep streams line by line; writes stream the caller's
//! buffer to disk without copying it.

pub mod index;
pub mod observation;
pub mod read;
pub mod refs;
pub mod scratchpad_entry;
pub mod store;
pub mod tools;

use context_fsio::{
    check_entry_name, now_ms, record_activity, Durability, Error, Result, OBSERVATIONS_DIR,
};
pub use observation::{Content, Kind, SyntheticObservation, WholeObservation};
pub use read::{Mode, ReadOutcome, ReadRequest, DEFAULT_MAX_CHARS, DEFAULT_N, MAX_GREP_MATCHES};
pub use scratchpad_entry::{
    persist as persist_scratchpad, read_persisted as read_persisted_scratchpad,
    update as update_scratchpad, PersistOutcome, MAX_PERSISTED_CHARS, OWN_ENTRY_PREFIX,
    SCRATCHPAD_ENTRY,
};
use serde_json::Value;
use std::fs;
use std::path::Path;
use store::Session;
pub use store::{is_history_name, Entry, HISTORY_ENTRY_PREFIX};
pub use tools::{tool_definition, tool_definitions, TOOL_NAMES};

/// Observations whose JSON is larger than this many bytes are offloaded (seed 003).
pub const DEFAULT_THRESHOLD_BYTES: u64 = 4096;
/// TTL of automatic offloads (seed 003); named entries have none.
pub const DEFAULT_TTL_SECONDS: u64 = 3600;
/// Per-session byte quota of the store.
pub const DEFAULT_QUOTA_BYTES: u64 = 512 * 1024 * 1024;
/// Largest expansion of `{{observation:..}}` references, in bytes.
pub const DEFAULT_EXPAND_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// Options shared by the operations that write or collect.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// Per-session byte quota ([`DEFAULT_QUOTA_BYTES`]).
    pub quota_bytes: Option<u64>,
    /// Ids or names never evicted (e.g. the session's scratchpad refs), on top of those named in
    /// the latest checkpoint.
    pub protect: Vec<String>,
    /// fsync the content and the catalog (default true).
    pub durable: bool,
    /// Never evict an entry that has not expired to make room (default false): over the quota
    /// the write fails with `TooLarge` and nothing is stored. For a host that hands the model a
    /// synthetic observation in place of a result: an entry the model may still read is never
    /// dropped, and a result that cannot be kept is not parked.
    pub keep_live: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            quota_bytes: None,
            protect: vec![],
            durable: true,
            keep_live: false,
        }
    }
}

impl StoreOptions {
    /// The quota in bytes ([`DEFAULT_QUOTA_BYTES`] when unset).
    pub fn quota(&self) -> u64 {
        self.quota_bytes.unwrap_or(DEFAULT_QUOTA_BYTES)
    }
    fn durability(&self) -> Durability {
        if self.durable {
            Durability::Durable
        } else {
            Durability::Fast
        }
    }
}

/// An observation to offload.
#[derive(Debug, Clone)]
pub struct OffloadRequest<'a> {
    pub content: Content<'a>,
    /// The observation's metadata (path, encoding, ...), kept in the synthetic observation.
    pub metadata: Option<Value>,
    pub turn_id: Option<String>,
    /// The tool that produced it: auto names are `<tool>_<n>`.
    pub tool_name: Option<String>,
    /// An explicit save under this name: stored whatever its size, no TTL unless `ttl_seconds`.
    pub name: Option<String>,
    /// [`DEFAULT_THRESHOLD_BYTES`].
    pub threshold_bytes: Option<u64>,
    /// [`DEFAULT_TTL_SECONDS`] for automatic offloads, none for named ones; 0 = never expires.
    pub ttl_seconds: Option<u64>,
    pub store: StoreOptions,
}

impl<'a> OffloadRequest<'a> {
    /// A request with every option at its default.
    pub fn new(content: Content<'a>) -> Self {
        OffloadRequest {
            content,
            metadata: None,
            turn_id: None,
            tool_name: None,
            name: None,
            threshold_bytes: None,
            ttl_seconds: None,
            store: StoreOptions::default(),
        }
    }
}

/// What goes into the model's history.
#[derive(Debug, Clone, PartialEq)]
pub enum Observation {
    /// Under the threshold: the observation itself.
    Whole(WholeObservation),
    /// Over it: seed 003's synthetic observation.
    Synthetic(SyntheticObservation),
}

/// The result of [`offload`].
#[derive(Debug, Clone)]
pub struct OffloadOutcome {
    /// The observation was over the threshold and replaced by a synthetic one.
    pub offloaded: bool,
    /// The measured JSON size compared with the threshold.
    pub measured_bytes: u64,
    pub kind: Kind,
    pub size_bytes: u64,
    pub observation: Observation,
    /// The stored entry (offloaded, or saved under a name).
    pub entry: Option<Entry>,
    /// Entries evicted to make room (expired, then least recently used).
    pub evicted: Vec<Entry>,
}

/// Checks a call's target: a non-empty state dir and a valid session key (`InvalidArg`).
pub fn check_target(state_dir: &Path, session_key: &str) -> Result<()> {
    if state_dir.as_os_str().is_empty() {
        return Err(Error::invalid_arg(
            "stateDir must be a non-empty path, e.g. '~/.openclaw' expanded",
        ));
    }
    store::dir_name(session_key).map(|_| ())
}

fn ttl_ms(ttl_seconds: Option<u64>, default: Option<u64>) -> Option<u64> {
    match ttl_seconds.or(default) {
        Some(0) | None => None,
        Some(s) => Some(s.saturating_mul(1000)),
    }
}

/// Seed 003's offload: measures the observation; over the threshold (or when `name` is given)
/// stores it and, over the threshold, returns the synthetic observation.
pub fn offload(state_dir: &Path, session_key: &str, req: OffloadRequest) -> Result<OffloadOutcome> {
    check_target(state_dir, session_key)?;
    if let Some(n) = &req.name {
        check_entry_name(n)?;
    }
    let (kind, bytes) = req.content.classify();
    let measured = observation::measure(kind, bytes, req.metadata.as_ref());
    let threshold = req.threshold_bytes.unwrap_or(DEFAULT_THRESHOLD_BYTES);
    let offloaded = measured > threshold;
    let size = bytes.len() as u64;
    let whole = |metadata: Option<Value>| {
        Observation::Whole(match kind {
            Kind::Text => WholeObservation {
                content: String::from_utf8_lossy(bytes).into_owned(),
                encoding: None,
                metadata,
            },
            Kind::Binary => WholeObservation {
                content: observation::base64(bytes),
                encoding: Some("base64"),
                metadata,
            },
        })
    };
    if !offloaded && req.name.is_none() {
        return Ok(OffloadOutcome {
            offloaded,
            measured_bytes: measured,
            kind,
            size_bytes: size,
            observation: whole(req.metadata),
            entry: None,
            evicted: vec![],
        });
    }
    let default_ttl = if req.name.is_some() {
        None
    } else {
        Some(DEFAULT_TTL_SECONDS)
    };
    let mut s = Session::open(state_dir, session_key)?;
    let now = now_ms();
    let mut protect = req.store.protect.clone();
    if req.store.keep_live {
        // Every entry still alive is protected: only expired ones may make room.
        protect.extend(
            s.entries()
                .iter()
                .filter(|e| !e.is_expired(now))
                .map(|e| e.id.clone()),
        );
    }
    let (entry, evicted) = s.store(
        kind,
        bytes,
        req.name.as_deref(),
        req.tool_name.as_deref(),
        req.turn_id.as_deref(),
        ttl_ms(req.ttl_seconds, default_ttl),
        req.store.quota(),
        &protect,
        req.store.durability(),
        now,
    )?;
    drop(s);
    // Retention's view of the session (best effort: the record is only a hint of activity).
    let _ = record_activity(state_dir, session_key, now);
    let observation = if offloaded {
        let summary = match kind {
            Kind::Text => observation::text_summary(std::str::from_utf8(bytes).unwrap_or("")),
            Kind::Binary => {
                observation::binary_summary(size, entry.sha256.as_deref().unwrap_or(""))
            }
        };
        Observation::Synthetic(SyntheticObservation {
            ok: true,
            scratchpad_id: entry.id.clone(),
            name: entry.name.clone(),
            size_bytes: size,
            kind,
            summary,
            metadata: req.metadata,
            _note: observation::note(kind, &entry.id, &entry.name),
        })
    } else {
        whole(req.metadata)
    };
    Ok(OffloadOutcome {
        offloaded,
        measured_bytes: measured,
        kind,
        size_bytes: size,
        observation,
        entry: Some(entry),
        evicted,
    })
}

/// Seed 004's `scratchpad_write`: stores `content` under `name` (overwriting an entry of that
/// name, keeping its id). No TTL unless `ttl_seconds` (0 = none).
pub fn write(
    state_dir: &Path,
    session_key: &str,
    name: &str,
    content: Content,
    turn_id: Option<&str>,
    ttl_seconds: Option<u64>,
    opts: &StoreOptions,
) -> Result<(Entry, Vec<Entry>)> {
    check_target(state_dir, session_key)?;
    check_entry_name(name)?;
    let (kind, bytes) = content.classify();
    let mut s = Session::open(state_dir, session_key)?;
    let now = now_ms();
    let out = s.store(
        kind,
        bytes,
        Some(name),
        None,
        turn_id,
        ttl_ms(ttl_seconds, None),
        opts.quota(),
        &opts.protect,
        opts.durability(),
        now,
    )?;
    drop(s);
    let _ = record_activity(state_dir, session_key, now);
    Ok(out)
}

fn no_store(session_key: &str) -> Error {
    Error::not_found(format!(
        "session {session_key:?} has no observation entries; offload or write one first"
    ))
}

/// Reads a slice of an entry (see [`Mode`]) and records the read for the quota's LRU.
pub fn read(state_dir: &Path, session_key: &str, req: &ReadRequest) -> Result<ReadOutcome> {
    check_target(state_dir, session_key)?;
    let mut s =
        Session::open_existing(state_dir, session_key)?.ok_or_else(|| no_store(session_key))?;
    let now = now_ms();
    let i = s.find(
        req.id.as_deref(),
        req.name.as_deref(),
        req.turn_id.as_deref(),
        now,
    )?;
    let e = s.entries()[i].clone();
    let out = read::read_entry(&s, &e, req)?;
    if touch(s.entry_mut(i), now) {
        // Best effort: on a full or read-only disk the read still answers; only the LRU time is lost.
        let _ = s.save(Durability::Fast);
        drop(s);
        let _ = record_activity(state_dir, session_key, now);
    }
    Ok(out)
}

/// Resolution of `last_read_at`: a read within this many milliseconds of the recorded one does
/// not rewrite the catalog, so a burst of reads costs no writes (the quota's LRU order only needs
/// seconds).
pub const LAST_READ_RESOLUTION_MS: u64 = 1000;

/// Records a read at `now`; whether the catalog changed.
fn touch(e: &mut Entry, now: u64) -> bool {
    match e.last_read_at {
        Some(t) if now.saturating_sub(t) < LAST_READ_RESOLUTION_MS => false,
        _ => {
            e.last_read_at = Some(now);
            true
        }
    }
}

/// An edit of seed 004's `scratchpad_edit`.
#[derive(Debug, Clone)]
pub enum Edit {
    /// Replace the whole content.
    Replace(String),
    /// Replace `old` by `new`: `old` must occur exactly once unless `replace_all`.
    Substitute {
        old: String,
        new: String,
        replace_all: bool,
    },
}

/// Edits a text entry in place (same id, name, turn and TTL). Returns the entry and the number of
/// replacements (1 for a full replacement).
#[allow(clippy::too_many_arguments)]
pub fn edit(
    state_dir: &Path,
    session_key: &str,
    id: Option<&str>,
    name: Option<&str>,
    turn_id: Option<&str>,
    edit: &Edit,
    opts: &StoreOptions,
) -> Result<(Entry, u64)> {
    check_target(state_dir, session_key)?;
    let mut s = Session::open_existing_to_write(state_dir, session_key)?
        .ok_or_else(|| no_store(session_key))?;
    let now = now_ms();
    let i = s.find(id, name, turn_id, now)?;
    let e = s.entries()[i].clone();
    if e.kind == Kind::Binary {
        return Err(Error::invalid_arg(format!(
            "observation entry {:?} is binary and cannot be edited; write it again",
            e.name
        )));
    }
    let (text, count) = match edit {
        Edit::Replace(c) => (c.clone(), 1),
        Edit::Substitute {
            old,
            new,
            replace_all,
        } => {
            if old.is_empty() {
                return Err(Error::invalid_arg("old_string must not be empty"));
            }
            let current = String::from_utf8(read::read_all(&s, &e)?).map_err(|_| {
                Error::corrupt(format!("observation entry {:?} is not UTF-8", e.name))
            })?;
            let found = current.matches(old.as_str()).count() as u64;
            if found == 0 {
                return Err(Error::not_found(format!(
                    "old_string not found in observation entry {:?}; read the entry to copy the exact text",
                    e.name
                )));
            }
            if found > 1 && !replace_all {
                return Err(Error::invalid_arg(format!(
                    "old_string occurs {found} times in observation entry {:?}; pass replace_all, or a longer old_string that occurs once",
                    e.name
                )));
            }
            let text = if *replace_all {
                current.replace(old.as_str(), new)
            } else {
                current.replacen(old.as_str(), new, 1)
            };
            (text, found)
        }
    };
    let evicted = s.evict_for(text.len() as u64, Some(i), opts.quota(), &opts.protect, now)?;
    let i = s.find(Some(&e.id), None, None, now)?;
    let entry = s.rewrite(i, &text, opts.durability(), now)?;
    s.remove_files(&evicted);
    drop(s);
    let _ = record_activity(state_dir, session_key, now);
    Ok((entry, count))
}

/// The entries of a session, oldest first: without `include_expired`, expired ones are left out;
/// with `turn_id`, only that turn's. A session without a store has none.
pub fn list(
    state_dir: &Path,
    session_key: &str,
    turn_id: Option<&str>,
    include_expired: bool,
) -> Result<Vec<Entry>> {
    check_target(state_dir, session_key)?;
    let Some(s) = Session::open_existing(state_dir, session_key)? else {
        return Ok(vec![]);
    };
    let now = now_ms();
    let mut v: Vec<Entry> = s
        .entries()
        .iter()
        .filter(|e| include_expired || !e.is_expired(now))
        .filter(|e| turn_id.is_none() || e.turn_id.as_deref() == turn_id)
        .cloned()
        .collect();
    v.sort_by_key(|e| e.created_at);
    Ok(v)
}

/// Deletes one entry (by id or name); `NotFound` when there is none.
pub fn delete(
    state_dir: &Path,
    session_key: &str,
    id: Option<&str>,
    name: Option<&str>,
) -> Result<Entry> {
    check_target(state_dir, session_key)?;
    let mut s = Session::open_existing_to_write(state_dir, session_key)?
        .ok_or_else(|| no_store(session_key))?;
    // At time 0 nothing has expired: expired entries can be deleted too.
    let i = s.find(id, name, None, 0)?;
    s.delete(i, Durability::Durable)
}

/// Deletes a session's whole store (seed 004: entries go with their session). Returns whether
/// there was one. Serialised with the store's users: a write waiting for the store while it is
/// deleted lands in a fresh store, a read finds none (`NotFound` for its entry); see
/// [`store::delete_session_dir`].
pub fn delete_session(state_dir: &Path, session_key: &str) -> Result<bool> {
    check_target(state_dir, session_key)?;
    store::delete_session_dir(state_dir, session_key)
}

/// What a garbage collection did.
#[derive(Debug, Clone, Default)]
pub struct GcReport {
    /// Entries removed (expired, or evicted for the quota).
    pub removed: Vec<Entry>,
    /// Session stores visited.
    pub sessions: u64,
    /// Entries and bytes left in the stores visited.
    pub remaining_entries: u64,
    pub remaining_bytes: u64,
}

/// Seed 003's `gc()`, run at the start of a turn: removes expired entries, applies the quota
/// (least recently used first), never touching protected entries (those `opts.protect` names, the
/// latest checkpoint names, the persisted scratchpad and what its refs name), and removes files no
/// entry owns. Times written while the clock ran ahead count as now (see
/// [`store::Session::rebase_future`]). One session, or every session store under `state_dir` when `session_key` is `None`.
pub fn gc(state_dir: &Path, session_key: Option<&str>, opts: &StoreOptions) -> Result<GcReport> {
    let now = now_ms();
    let mut report = GcReport::default();
    let mut visit = |mut s: Session| -> Result<()> {
        report
            .removed
            .extend(s.collect(opts.quota(), &opts.protect, now)?);
        report.sessions += 1;
        report.remaining_entries += s.entries().len() as u64;
        report.remaining_bytes += s.entries().iter().map(|e| e.size_bytes).sum::<u64>();
        Ok(())
    };
    match session_key {
        Some(key) => {
            check_target(state_dir, key)?;
            if let Some(s) = Session::open_existing(state_dir, key)? {
                visit(s)?;
            }
        }
        None => {
            let mut root = state_dir.to_path_buf();
            for part in OBSERVATIONS_DIR {
                root.push(part);
                match fs::symlink_metadata(&root) {
                    Ok(m) if m.is_dir() => {}
                    Ok(_) => {
                        return Err(Error::unsafe_path(format!(
                            "{} is not a directory (or is a symlink)",
                            root.display()
                        )))
                    }
                    Err(_) => return Ok(report),
                }
            }
            let rd = fs::read_dir(&root)
                .map_err(|e| Error::io(format!("listing {}", root.display()), e))?;
            for d in rd.flatten() {
                let real_dir = d.file_type().map(|t| t.is_dir()).unwrap_or(false);
                let name = d.file_name();
                let name = name.to_string_lossy();
                if !real_dir {
                    continue;
                }
                if name.starts_with(store::TOMBSTONE_PREFIX) {
                    // Left by a delete that crashed before removing it: nobody uses it.
                    let _ = fs::remove_dir_all(d.path());
                } else if !name.starts_with('.') {
                    if let Some(s) = Session::open_dir(state_dir, d.path())? {
                        visit(s)?;
                    }
                }
            }
        }
    }
    Ok(report)
}

/// Expands every `{{observation:<id or name>}}` inside a JSON value (strings at any depth) to
/// the entry's full content (binary as base64). Unknown or expired references are `NotFound`;
/// with `turn_id` only that turn's entries resolve; above `max_bytes`
/// ([`DEFAULT_EXPAND_MAX_BYTES`]) per string it is `TooLarge`.
pub fn expand_refs(
    state_dir: &Path,
    session_key: &str,
    value: Value,
    turn_id: Option<&str>,
    max_bytes: Option<u64>,
) -> Result<Value> {
    check_target(state_dir, session_key)?;
    if !refs::value_has_refs(&value) {
        return Ok(value);
    }
    let mut s = Session::open_existing(state_dir, session_key)?;
    let now = now_ms();
    let max = max_bytes.unwrap_or(DEFAULT_EXPAND_MAX_BYTES);
    let (out, used) = {
        let mut x = refs::Expander::new(s.as_ref(), turn_id, max, now);
        let out = x.expand_value(value)?;
        (out, x.used)
    };
    if let Some(s) = s.as_mut() {
        let mut changed = false;
        for i in used {
            changed |= touch(s.entry_mut(i), now);
        }
        if changed {
            // Best effort, as for `read`.
            let _ = s.save(Durability::Fast);
        }
    }
    Ok(out)
}
