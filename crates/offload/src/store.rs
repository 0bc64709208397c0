//! One session's store on disk: `<stateDir>/context/observations/<session dir>/` holding
//! `catalog.json` (every entry's metadata and the name -> id map), `<id>.dat` (the content) and, for
//! text, `<id>.idx` (the sparse index). Entries are stored by id: a name never becomes a path. Every
//! operation holds the directory's lock (`.lock`), so readers never see a half-replaced entry (a
//! read of a read-only store with no lock file reads without it: nobody can write there either).
//! Files are read through the bounded, no-follow reader of `context_fsio`; a deleted store is
//! renamed away under its lock, and every open checks its lock is still the live one.

use crate::index::TextIndex;
use crate::observation::{sha256_hex, Kind};
use context_fsio::{
    atomic_write, atomic_write_with, check_entry_name, existing_session_dir, is_future,
    overwrite_in_place, read_bounded, session_dir, session_dir_name, sweep_temp_files, DirLock,
    Durability, Error, ErrorCode, Result, CHECKPOINTS_DIR, OBSERVATIONS_DIR,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The catalog file of a session store.
pub const CATALOG_FILE: &str = "catalog.json";
const CATALOG_VERSION: u32 = 1;
/// Largest latest-checkpoint file read when looking for protected entries.
const MAX_CHECKPOINT_BYTES: u64 = 8 * 1024 * 1024;
/// Largest catalog read (about 200,000 entries); a larger `catalog.json` is refused (`UnsafeFile`).
pub const MAX_CATALOG_BYTES: u64 = 64 * 1024 * 1024;
/// Prefix of a session directory renamed away by `delete_session` before it is removed.
pub const TOMBSTONE_PREFIX: &str = ".deleted-";
/// How often an open starts over because the store was deleted while it waited for the lock.
const OPEN_RETRIES: usize = 100;

/// One stored entry (its metadata; the content is in `<id>.dat`, or `<id>.<rev>.dat` once
/// rewritten). Times are milliseconds since the
/// Unix epoch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// 16 hex characters from the OS random source.
    pub id: String,
    /// Unique in the session: given (`write`, `name`) or automatic (`<tool>_<n>`).
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    pub kind: Kind,
    pub size_bytes: u64,
    /// Unicode characters (text); equal to `size_bytes` for binary.
    pub chars: u64,
    /// Lines (text; a last line without `\n` counts); 0 for binary.
    pub lines: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    pub created_at: u64,
    pub updated_at: u64,
    #[serde(default)]
    pub expires_at: Option<u64>,
    #[serde(default)]
    pub last_read_at: Option<u64>,
    /// Revision of the content files: a rewrite writes new files under the next revision, saves
    /// the catalog, then deletes the old ones, so a crash at any point leaves the catalog naming
    /// complete files (0: `<id>.dat`, n: `<id>.<n>.dat`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rev: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The file stem of an entry's content revision: `<id>` or `<id>.<rev>`.
fn file_stem(id: &str, rev: u32) -> String {
    if rev == 0 {
        id.to_string()
    } else {
        format!("{id}.{rev}")
    }
}

impl Entry {
    /// Whether the entry's TTL has run out at `now`.
    pub fn is_expired(&self, now: u64) -> bool {
        self.expires_at.is_some_and(|e| e <= now)
    }
    /// The last time the entry was written or read (the LRU key of the quota).
    pub fn last_used(&self) -> u64 {
        self.updated_at.max(self.last_read_at.unwrap_or(0))
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Catalog {
    version: u32,
    /// Next auto-name number per tool prefix.
    #[serde(default)]
    counters: BTreeMap<String, u64>,
    #[serde(default)]
    entries: Vec<Entry>,
}

/// How the names of the history entries start (`history-<n>`: the messages of the session's n-th
/// compaction kept, crate `context-history`).
pub const HISTORY_ENTRY_PREFIX: &str = "history-";

/// Whether `name` is a history entry's (`history-` and digits). History entries are never evicted
/// for the quota: nothing of the compacted conversation goes silently; the history's own writer
/// cuts the oldest ones to their head and tail, with a note, when a new one needs room.
pub fn is_history_name(name: &str) -> bool {
    name.strip_prefix(HISTORY_ENTRY_PREFIX)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Entries that must never be evicted: ids or names the host passes (the session's scratchpad
/// refs, for example), the history entries ([`is_history_name`]), plus every entry whose id or
/// name appears as a whole word in the session's latest checkpoint
/// (`context/checkpoints/<session dir>/_latest.json` -> its YAML).
pub struct Protection {
    names: HashSet<String>,
    checkpoint: Option<String>,
}

impl Protection {
    pub fn new(explicit: &[String], checkpoint: Option<String>) -> Protection {
        Protection {
            names: explicit.iter().cloned().collect(),
            checkpoint,
        }
    }

    pub fn protects(&self, e: &Entry) -> bool {
        if self.names.contains(&e.id) || self.names.contains(&e.name) || is_history_name(&e.name) {
            return true;
        }
        match &self.checkpoint {
            Some(text) => contains_word(text, &e.id) || contains_word(text, &e.name),
            None => false,
        }
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Whether `word` occurs in `text` not glued to a letter, digit, `_` or `-` on either side
/// (`read_1` is not found in `read_10`).
pub fn contains_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let (t, w) = (text.as_bytes(), word.as_bytes());
    let glued = |i: usize, j: usize| {
        (i > 0 && is_word_byte(t[i - 1]) && is_word_byte(w[0]))
            || (j < t.len() && is_word_byte(t[j]) && is_word_byte(w[w.len() - 1]))
    };
    memchr::memmem::find_iter(t, w).any(|i| !glued(i, i + w.len()))
}

/// The text of the session's latest checkpoint, if there is one (errors read as "none": a broken
/// checkpoint must not block the store; symlinks are not followed).
pub fn latest_checkpoint_text(state_dir: &Path, dir_name: &str) -> Option<String> {
    let mut dir = state_dir.to_path_buf();
    for part in CHECKPOINTS_DIR.iter().copied().chain([dir_name]) {
        dir.push(part);
        let m = fs::symlink_metadata(&dir).ok()?;
        if !m.is_dir() {
            return None;
        }
    }
    let latest = read_small(&dir.join("_latest.json"))?;
    let pointer: serde_json::Value = serde_json::from_slice(&latest).ok()?;
    let from_path = pointer
        .get("path")
        .and_then(|p| p.as_str())
        .and_then(|p| p.rsplit(['/', '\\']).next())
        .map(str::to_string);
    let from_id = pointer
        .get("checkpoint_id")
        .and_then(|p| p.as_str())
        .map(|id| format!("{id}.yaml"));
    let mut text = String::from_utf8_lossy(&latest).into_owned();
    for file in [from_path, from_id].into_iter().flatten() {
        if check_entry_name(&file).is_err() {
            continue;
        }
        if let Some(bytes) = read_small(&dir.join(&file)) {
            text.push('\n');
            text.push_str(&String::from_utf8_lossy(&bytes));
            break;
        }
    }
    Some(text)
}

fn read_small(path: &Path) -> Option<Vec<u8>> {
    read_bounded(path, MAX_CHECKPOINT_BYTES).ok()
}

/// A 16-hex-character id from the OS random source.
pub fn new_id() -> Result<String> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b)
        .map_err(|e| Error::new(ErrorCode::Io, format!("the OS random source failed: {e}")))?;
    Ok(crate::observation::hex(&b))
}

/// The auto-name prefix of a tool: characters outside `[A-Za-z0-9._-]` become `_`.
fn name_prefix(tool: Option<&str>) -> String {
    let tool = tool.filter(|t| !t.is_empty()).unwrap_or("observation");
    let mut p: String = tool
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if p.starts_with('.') {
        p.replace_range(0..1, "_");
    }
    p
}

/// An open, locked session store.
pub struct Session {
    pub dir: PathBuf,
    pub state_dir: PathBuf,
    catalog: Catalog,
    _lock: Option<DirLock>,
}

/// Locks the live store directory of `session_key`: `create` makes it when missing (a write);
/// otherwise `None` when the session has no store. The lock is `None` only for a read on a
/// directory where no lock file exists or can be created (read-only: no writer can run).
///
/// A store deleted (renamed away by [`delete_session_dir`]) while this waited for its lock is
/// detected ([`DirLock::is_current`]) and the lookup starts over, so a caller never works in a
/// directory that is being removed: a write lands in a fresh store, a read finds no store.
pub fn lock_live(
    state_dir: &Path,
    session_key: &str,
    create: bool,
) -> Result<Option<(PathBuf, Option<DirLock>)>> {
    for attempt in 0..OPEN_RETRIES {
        // a store deleted again and again (a deleter in a loop) lets a waiting call in only if the
        // call waits a little between tries: up to 8 ms after the fourth
        if attempt > 3 {
            std::thread::sleep(std::time::Duration::from_millis(1 << (attempt - 4).min(3)));
        }
        let dir = if create {
            session_dir(state_dir, &OBSERVATIONS_DIR, session_key)?
        } else {
            match existing_session_dir(state_dir, &OBSERVATIONS_DIR, session_key)? {
                Some(d) => d,
                None => return Ok(None),
            }
        };
        let lock = if create {
            DirLock::acquire(&dir).map(Some)
        } else {
            DirLock::acquire_for_read(&dir)
        };
        match lock {
            // The directory went away between the lookup and the lock.
            Err(e) if e.code == ErrorCode::NotFound => continue,
            Err(e) => return Err(e),
            Ok(Some(l)) if !l.is_current(&dir) => continue,
            Ok(l) => return Ok(Some((dir, l))),
        }
    }
    Err(Error::new(
        ErrorCode::Io,
        format!(
            "the observation store of session {session_key:?} was deleted {OPEN_RETRIES} times while this call waited for it; try again"
        ),
    ))
}

impl Session {
    /// Opens (creating) the store of `session_key` and takes its lock, for a write: temp files
    /// left by writes that crashed are removed first (under the lock, so no live write's).
    pub fn open(state_dir: &Path, session_key: &str) -> Result<Session> {
        let (dir, lock) = lock_live(state_dir, session_key, true)?.expect("created");
        Session::load(state_dir, dir, lock, true)
    }

    /// Opens an existing store for a read; `None` when the session has none. Temp files are left
    /// for the next write to sweep (their names are random: a leftover is garbage, never a path a
    /// write would use), so a read costs no directory listing.
    pub fn open_existing(state_dir: &Path, session_key: &str) -> Result<Option<Session>> {
        match lock_live(state_dir, session_key, false)? {
            Some((dir, lock)) => Session::load(state_dir, dir, lock, false).map(Some),
            None => Ok(None),
        }
    }

    /// Opens an existing store for a write (edit, delete): as [`Session::open_existing`], and
    /// temp files left by crashed writes are swept under the lock, as [`Session::open`] does.
    pub fn open_existing_to_write(state_dir: &Path, session_key: &str) -> Result<Option<Session>> {
        match lock_live(state_dir, session_key, false)? {
            Some((dir, lock)) => Session::load(state_dir, dir, lock, true).map(Some),
            None => Ok(None),
        }
    }

    /// Opens the store in `dir` (a session directory) and takes its lock; `None` when the store
    /// was deleted meanwhile.
    pub fn open_dir(state_dir: &Path, dir: PathBuf) -> Result<Option<Session>> {
        match DirLock::acquire(&dir) {
            Err(e) if e.code == ErrorCode::NotFound => Ok(None),
            Err(e) => Err(e),
            Ok(l) if !l.is_current(&dir) => Ok(None),
            Ok(l) => Session::load(state_dir, dir, Some(l), false).map(Some),
        }
    }

    /// Reads the catalog of a locked store (bounded, no link followed), with `sweep` after
    /// removing the temp files of crashed writes (under the lock, so none is a live write's).
    fn load(state_dir: &Path, dir: PathBuf, lock: Option<DirLock>, sweep: bool) -> Result<Session> {
        if sweep && lock.is_some() {
            sweep_temp_files(&dir);
        }
        let path = dir.join(CATALOG_FILE);
        let catalog = match read_bounded(&path, MAX_CATALOG_BYTES) {
            Ok(bytes) => serde_json::from_slice::<Catalog>(&bytes).map_err(|e| {
                Error::corrupt(format!(
                    "{} is not a valid observation catalog ({e}); delete the session's observation store",
                    path.display()
                ))
            })?,
            Err(e) if e.code == ErrorCode::NotFound => Catalog {
                version: CATALOG_VERSION,
                ..Catalog::default()
            },
            Err(e) => return Err(e),
        };
        Ok(Session {
            dir,
            state_dir: state_dir.to_path_buf(),
            catalog,
            _lock: lock,
        })
    }

    pub fn entries(&self) -> &[Entry] {
        &self.catalog.entries
    }

    pub fn entry_mut(&mut self, i: usize) -> &mut Entry {
        &mut self.catalog.entries[i]
    }

    /// The catalog as written; `TooLarge` above [`MAX_CATALOG_BYTES`], which the reader would
    /// refuse (a catalog that can be written can always be read back).
    fn catalog_json(&self) -> Result<Vec<u8>> {
        self.catalog_json_within(MAX_CATALOG_BYTES)
    }

    fn catalog_json_within(&self, max: u64) -> Result<Vec<u8>> {
        let json = serde_json::to_vec(&self.catalog)
            .map_err(|e| Error::new(ErrorCode::Io, format!("serialising the catalog: {e}")))?;
        if json.len() as u64 > max {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!(
                    "the session's observation catalog would be {} bytes ({} entries), over its {max}-byte limit: delete entries",
                    json.len(),
                    self.catalog.entries.len()
                ),
            ));
        }
        Ok(json)
    }

    /// Writes the catalog atomically.
    pub fn save(&self, durability: Durability) -> Result<()> {
        atomic_write(&self.dir, CATALOG_FILE, &self.catalog_json()?, durability)
    }

    /// Saves a catalog that only lost entries, then removes their files; on a full disk too.
    /// When the atomic save fails with `NoSpace`, the entries' files are removed first (freeing
    /// their space), the save is tried again and, failing that, the catalog is rewritten in place
    /// (it only shrank, so no block is allocated; not atomic against a crash in that moment).
    fn save_removal(&self, removed: &[Entry], durability: Durability) -> Result<()> {
        match self.save(durability) {
            Ok(()) => {
                self.remove_files(removed);
                Ok(())
            }
            Err(e) if e.code == ErrorCode::NoSpace => {
                self.remove_files(removed);
                match self.save(durability) {
                    Ok(()) => Ok(()),
                    Err(e2) if e2.code == ErrorCode::NoSpace => {
                        overwrite_in_place(&self.dir, CATALOG_FILE, &self.catalog_json()?)
                    }
                    Err(e2) => Err(e2),
                }
            }
            Err(e) => Err(e),
        }
    }

    /// The content file of an entry's current revision.
    pub fn data_path(&self, e: &Entry) -> PathBuf {
        self.dir.join(format!("{}.dat", file_stem(&e.id, e.rev)))
    }

    /// The sparse index file of an entry's current revision (text only).
    pub fn index_path(&self, e: &Entry) -> PathBuf {
        self.dir.join(format!("{}.idx", file_stem(&e.id, e.rev)))
    }

    fn position(&self, f: impl Fn(&Entry) -> bool) -> Option<usize> {
        self.catalog.entries.iter().position(f)
    }

    /// Finds an entry by id or name (each falls back to the other: models mix them up). With
    /// `turn_id`, an entry of another turn is not found. Expired entries are not found.
    pub fn find(
        &self,
        id: Option<&str>,
        name: Option<&str>,
        turn_id: Option<&str>,
        now: u64,
    ) -> Result<usize> {
        let key = match (id, name) {
            (Some(k), _) | (None, Some(k)) => k,
            (None, None) => {
                return Err(Error::invalid_arg(
                    "name the entry with `id` (its scratchpad_id) or `name`",
                ))
            }
        };
        let by_id = |k: &str| self.position(|e| e.id == k);
        let by_name = |k: &str| self.position(|e| e.name == k);
        let found = if id.is_some() {
            by_id(key).or_else(|| by_name(key))
        } else {
            by_name(key).or_else(|| by_id(key))
        };
        let Some(i) = found else {
            return Err(Error::not_found(format!(
                "no observation entry {key:?} in this session; list the entries to see the ids and names"
            )));
        };
        let e = &self.catalog.entries[i];
        if let Some(t) = turn_id {
            if e.turn_id.as_deref() != Some(t) {
                return Err(Error::not_found(format!(
                    "observation entry {key:?} does not belong to turn {t:?}"
                )));
            }
        }
        if e.is_expired(now) {
            return Err(Error::not_found(format!(
                "observation entry {key:?} expired at {}",
                context_fsio::rfc3339(e.expires_at.unwrap_or(0))
            )));
        }
        Ok(i)
    }

    /// The session directory's name (shared with the checkpoint store).
    pub fn dir_name(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The protection for this session: `explicit`, the latest checkpoint's text, the persisted
    /// scratchpad entry ([`crate::scratchpad_entry::SCRATCHPAD_ENTRY`]) and the entries its refs
    /// name.
    pub fn protection(&self, explicit: &[String]) -> Protection {
        let mut names = explicit.to_vec();
        names.push(crate::scratchpad_entry::SCRATCHPAD_ENTRY.to_string());
        let mut text = latest_checkpoint_text(&self.state_dir, &self.dir_name());
        if let Some(refs) = crate::scratchpad_entry::refs_text(self) {
            let t = text.get_or_insert_with(String::new);
            t.push('\n');
            t.push_str(&refs);
        }
        Protection::new(&names, text)
    }

    /// Brings times written while the clock ran ahead (later than now plus
    /// [`context_fsio::FUTURE_TOLERANCE_MS`]) back to `now`, keeping each entry's TTL: an entry
    /// written a year ahead expires its TTL after now, not a year later. Whether any changed.
    pub fn rebase_future(&mut self, now: u64) -> bool {
        let mut changed = false;
        for e in &mut self.catalog.entries {
            if is_future(e.created_at, now) || is_future(e.updated_at, now) {
                let ttl = e.expires_at.map(|x| x.saturating_sub(e.updated_at));
                e.created_at = e.created_at.min(now);
                e.updated_at = now;
                e.expires_at = ttl.map(|t| now.saturating_add(t));
                changed = true;
            }
            if e.last_read_at.is_some_and(|t| is_future(t, now)) {
                e.last_read_at = Some(now);
                changed = true;
            }
        }
        changed
    }

    /// Removes entries from the catalog (not yet from disk); returns them.
    fn take(&mut self, mut idx: Vec<usize>) -> Vec<Entry> {
        idx.sort_unstable();
        idx.dedup();
        idx.iter()
            .rev()
            .map(|&i| self.catalog.entries.remove(i))
            .collect()
    }

    /// Deletes the files of entries already taken out of the catalog (after the catalog is saved,
    /// so a crash leaves orphan files for `gc`, never a catalog entry without its content).
    pub fn remove_files(&self, removed: &[Entry]) {
        for e in removed {
            let _ = fs::remove_file(self.data_path(e));
            let _ = fs::remove_file(self.index_path(e));
        }
    }

    /// Removes the entry at `i` from the catalog and disk (catalog saved first).
    pub fn delete(&mut self, i: usize, durability: Durability) -> Result<Entry> {
        let removed = self.take(vec![i]);
        self.save_removal(&removed, durability)?;
        Ok(removed.into_iter().next().expect("one entry taken"))
    }

    /// Expired entries (not protected) and, while the store plus `incoming` bytes exceeds
    /// `quota`, the least recently used ones; `keep` is never chosen. `TooLarge` when protected
    /// entries alone leave no room, unless `best_effort` (gc: evict what can go).
    #[allow(clippy::too_many_arguments)]
    fn plan_eviction(
        &self,
        incoming: u64,
        keep: Option<usize>,
        quota: u64,
        protection: &dyn Fn(&Entry) -> bool,
        now: u64,
        best_effort: bool,
    ) -> Result<Vec<usize>> {
        let entries = &self.catalog.entries;
        let mut out: Vec<usize> = (0..entries.len())
            .filter(|&i| Some(i) != keep && entries[i].is_expired(now) && !protection(&entries[i]))
            .collect();
        let mut total: u64 = entries
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != keep && !out.contains(i))
            .map(|(_, e)| e.size_bytes)
            .sum::<u64>()
            + incoming;
        if total <= quota {
            return Ok(out);
        }
        let mut lru: Vec<usize> = (0..entries.len())
            .filter(|&i| Some(i) != keep && !out.contains(&i) && !protection(&entries[i]))
            .collect();
        lru.sort_by_key(|&i| (entries[i].last_used(), entries[i].created_at));
        for i in lru {
            if total <= quota {
                break;
            }
            total -= entries[i].size_bytes;
            out.push(i);
        }
        if total > quota && !best_effort {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!(
                    "the session's observation store would hold {total} bytes, above its quota of {quota} \
                     bytes, and the remaining entries are protected; raise quotaBytes or delete entries"
                ),
            ));
        }
        Ok(out)
    }

    /// Applies the quota and TTL with `incoming` more bytes on the way; returns the evicted entries
    /// (taken out of the catalog, files not yet removed). Reads the checkpoint only when something
    /// would go.
    pub fn evict_for(
        &mut self,
        incoming: u64,
        keep: Option<usize>,
        quota: u64,
        protect: &[String],
        now: u64,
    ) -> Result<Vec<Entry>> {
        self.evict(incoming, keep, quota, protect, now, false)
    }

    fn evict(
        &mut self,
        incoming: u64,
        keep: Option<usize>,
        quota: u64,
        protect: &[String],
        now: u64,
        best_effort: bool,
    ) -> Result<Vec<Entry>> {
        self.rebase_future(now);
        let nothing = |_: &Entry| false;
        let plan = self.plan_eviction(incoming, keep, quota, &nothing, now, true)?;
        if plan.is_empty() {
            return Ok(vec![]);
        }
        let protection = self.protection(protect);
        let plan = self.plan_eviction(
            incoming,
            keep,
            quota,
            &|e| protection.protects(e),
            now,
            best_effort,
        )?;
        Ok(self.take(plan))
    }

    /// A free auto name `<prefix>_<n>` (n counts up per prefix and per session).
    fn auto_name(&mut self, tool: Option<&str>) -> String {
        let prefix = name_prefix(tool);
        let mut n = self.catalog.counters.get(&prefix).copied().unwrap_or(0);
        loop {
            n += 1;
            let name = format!("{prefix}_{n}");
            if self.position(|e| e.name == name).is_none() {
                self.catalog.counters.insert(prefix, n);
                return name;
            }
        }
    }

    /// Stores `bytes` as a new entry or, when `name` is taken, in place of that entry (same id).
    /// Applies TTL expiry and the quota first. Returns the entry and the evicted entries.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &mut self,
        kind: Kind,
        bytes: &[u8],
        name: Option<&str>,
        tool_name: Option<&str>,
        turn_id: Option<&str>,
        ttl_ms: Option<u64>,
        quota: u64,
        protect: &[String],
        durability: Durability,
        now: u64,
    ) -> Result<(Entry, Vec<Entry>)> {
        let size = bytes.len() as u64;
        if size > quota {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!("content of {size} bytes exceeds the session's observation quota of {quota} bytes"),
            ));
        }
        if let Some(n) = name {
            check_entry_name(n)?;
        }
        let existing = name.and_then(|n| self.position(|e| e.name == n));
        let evicted = self.evict_for(size, existing, quota, protect, now)?;
        let existing = name.and_then(|n| self.position(|e| e.name == n));
        let (id, name, created_at, rev) = match existing {
            Some(i) => {
                let e = &self.catalog.entries[i];
                (e.id.clone(), e.name.clone(), e.created_at, e.rev + 1)
            }
            None => {
                let mut id = new_id()?;
                while self.position(|e| e.id == id).is_some() {
                    id = new_id()?;
                }
                let name = match name {
                    Some(n) => n.to_string(),
                    None => self.auto_name(tool_name),
                };
                (id, name, now, 0)
            }
        };
        let (chars, lines, sha256) = self.write_content(&id, rev, kind, bytes, durability)?;
        let entry = Entry {
            id,
            name,
            turn_id: turn_id.map(str::to_string),
            tool_name: tool_name.map(str::to_string),
            kind,
            size_bytes: size,
            chars,
            lines,
            sha256,
            created_at,
            updated_at: now,
            expires_at: ttl_ms.map(|t| now.saturating_add(t)),
            last_read_at: None,
            rev,
        };
        let replaced = match existing {
            Some(i) => Some(std::mem::replace(
                &mut self.catalog.entries[i],
                entry.clone(),
            )),
            None => {
                self.catalog.entries.push(entry.clone());
                None
            }
        };
        self.save(durability)?;
        self.remove_files(&evicted);
        self.remove_files(replaced.as_slice());
        Ok((entry, evicted))
    }

    /// Writes the content files of revision `rev` of entry `id` (`.dat`, and `.idx` for text)
    /// atomically; returns (chars, lines, sha256). The catalog does not name them until saved.
    fn write_content(
        &self,
        id: &str,
        rev: u32,
        kind: Kind,
        bytes: &[u8],
        durability: Durability,
    ) -> Result<(u64, u64, Option<String>)> {
        let stem = file_stem(id, rev);
        atomic_write_with(&self.dir, &format!("{stem}.dat"), durability, |f| {
            f.write_all(bytes)
        })?;
        match kind {
            Kind::Text => {
                let index = TextIndex::build(bytes);
                atomic_write_with(&self.dir, &format!("{stem}.idx"), durability, |f| {
                    index.write_to(f)
                })?;
                Ok((index.chars, index.lines, None))
            }
            Kind::Binary => Ok((bytes.len() as u64, 0, Some(sha256_hex(bytes)))),
        }
    }

    /// Replaces the content of entry `i` in place (same id and name; TTL and turn kept).
    pub fn rewrite(
        &mut self,
        i: usize,
        text: &str,
        durability: Durability,
        now: u64,
    ) -> Result<Entry> {
        let old = self.catalog.entries[i].clone();
        let rev = old.rev + 1;
        let (chars, lines, _) =
            self.write_content(&old.id, rev, Kind::Text, text.as_bytes(), durability)?;
        let e = &mut self.catalog.entries[i];
        e.size_bytes = text.len() as u64;
        e.chars = chars;
        e.lines = lines;
        e.updated_at = now;
        e.rev = rev;
        let e = e.clone();
        self.save(durability)?;
        self.remove_files(std::slice::from_ref(&old));
        Ok(e)
    }

    /// Garbage collection of this store: expired entries, the quota (best effort: protected
    /// entries may leave the store above it), files no entry owns and temp files left by crashed
    /// writes.
    pub fn collect(&mut self, quota: u64, protect: &[String], now: u64) -> Result<Vec<Entry>> {
        let rebased = self.rebase_future(now);
        let removed = self.evict(0, None, quota, protect, now, true)?;
        if !removed.is_empty() {
            self.save_removal(&removed, Durability::Durable)?;
        } else if rebased {
            self.save(Durability::Durable)?;
        }
        sweep_temp_files(&self.dir);
        // Content files no entry's current revision owns: left by crashed writes or rewrites.
        let live: HashSet<String> = self
            .catalog
            .entries
            .iter()
            .map(|e| file_stem(&e.id, e.rev))
            .collect();
        if let Ok(rd) = fs::read_dir(&self.dir) {
            for f in rd.flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                let stem = name
                    .strip_suffix(".dat")
                    .or_else(|| name.strip_suffix(".idx"));
                if let Some(stem) = stem {
                    if !live.contains(stem) {
                        let _ = fs::remove_file(f.path());
                    }
                }
            }
        }
        Ok(removed)
    }
}

/// A fresh tombstone name beside `dir`: `.deleted-<name>-<random>` (gc removes any left behind).
pub fn tombstone_path(dir: &Path) -> Result<PathBuf> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let suffix =
        context_fsio::random_hex().map_err(|e| Error::io("choosing a tombstone name", e))?;
    Ok(dir.with_file_name(format!("{TOMBSTONE_PREFIX}{name}-{suffix}")))
}

/// Deletes the store of `session_key` (`false` when it has none), serialised with its users: under
/// the store's lock the directory is renamed to a tombstone (`.deleted-<name>-<random>`) and
/// removed, so a call waiting for the lock finds it no longer current and starts over (a write
/// then makes a fresh store, a read finds none). Where the rename is refused (Windows, while a
/// file inside is open), the files are removed under the lock and the directory after it.
pub fn delete_session_dir(state_dir: &Path, session_key: &str) -> Result<bool> {
    let Some((dir, lock)) = lock_live(state_dir, session_key, false)? else {
        return Ok(false);
    };
    let tomb = tombstone_path(&dir)?;
    match fs::rename(&dir, &tomb) {
        Ok(()) => {
            // Nobody else enters a tombstone. A removal that still fails (seen once in ~40
            // runs of the 4-process race, cause not isolated) leaves it for gc, which removes
            // every `.deleted-*` directory; the store is gone either way.
            for _ in 0..3 {
                match fs::remove_dir_all(&tomb) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => continue,
                    _ => break,
                }
            }
            drop(lock);
        }
        Err(rename_err) => {
            // On Unix a refused rename means the directory cannot be written: say so. (On
            // Windows it usually means a file inside is open, this lock's own included.)
            if cfg!(unix)
                && (rename_err.kind() == std::io::ErrorKind::PermissionDenied
                    || rename_err.raw_os_error() == Some(30))
            {
                return Err(Error::io(format!("deleting {}", dir.display()), rename_err));
            }
            let rd = fs::read_dir(&dir)
                .map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
            for f in rd.flatten() {
                if f.file_name() != context_fsio::LOCK_FILE {
                    let _ = fs::remove_file(f.path());
                }
            }
            drop(lock);
            match fs::remove_dir_all(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(format!("removing {}", dir.display()), e)),
            }
        }
    }
    Ok(true)
}

/// The session directory name of `session_key` (checks the key).
pub fn dir_name(session_key: &str) -> Result<String> {
    session_dir_name(session_key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A catalog the reader would refuse (over `MAX_CATALOG_BYTES`) is never written.
    #[test]
    fn a_catalog_over_the_read_limit_is_not_written() {
        let root = std::env::temp_dir().join(format!("offload-catmax-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let mut s = Session::open(&root, "k").unwrap();
        s.store(
            Kind::Text,
            b"x",
            Some("a"),
            None,
            None,
            None,
            1 << 20,
            &[],
            Durability::Fast,
            1,
        )
        .unwrap();
        let len = s.catalog_json().unwrap().len() as u64;
        let e = s.catalog_json_within(len - 1).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge);
        assert!(s.catalog_json_within(len).is_ok());
        drop(s);
        fs::remove_dir_all(&root).unwrap();
    }
}
