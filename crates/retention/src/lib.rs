//! Retention of a whole state dir: what a gateway that runs for weeks needs so its disk does not
//! grow without limit. Knows nothing of napi.
//!
//! The policy, applied by [`gc_state_dir`] (the plugin schedules it; `openclaw-context gc` runs it
//! on demand) and by [`delete_session`] (a session reset or deleted through the plugin, or
//! `openclaw-context delete --session <key>`):
//! - **Idle sessions** (no write for longer than `idle_days`, [`DEFAULT_IDLE_DAYS`]): everything
//!   the package holds for them goes: checkpoints, incremental state files, observation entries
//!   (the persisted scratchpad entry included) and the session record.
//! - **Active sessions**: observation entries expire by their TTL and the store's quota evicts the
//!   least recently used, never a protected entry (one the latest checkpoint or the persisted
//!   scratchpad's refs name, or the scratchpad entry itself); checkpoints keep their retention of
//!   the newest five (the latest is never removed), state files stay.
//! - Activity comes from the session record (`context/sessions/<session dir>.json`, written by
//!   every write with the session key); a directory without one (written before records existed)
//!   falls back to the newest modification time of its files. Times from the future (the clock ran
//!   ahead) count as now, and the record is brought back to now, so the idle period starts then.
//!
//! Work per call is bounded: at most `max_dirs` session directories are visited, continuing after
//! the last one the previous call visited (a cursor file), so repeated calls cover every session.
//! A removal renames the directory to a tombstone under the session's lock and removes it; a write
//! waiting for that lock lands in a fresh directory.

use context_fsio::{
    is_future, lock_existing_session, now_ms, read_record, record_activity, remove_record,
    session_dir_name, DirLock, Error, ErrorCode, Result, CHECKPOINTS_DIR, OBSERVATIONS_DIR,
    RECORD_SUFFIX, SESSIONS_DIR, STATE_DIR,
};
use context_offload::store::{tombstone_path, Session, TOMBSTONE_PREFIX};
use context_offload::StoreOptions;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Sessions idle longer than this many days are removed.
pub const DEFAULT_IDLE_DAYS: f64 = 30.0;
/// Session directories visited per [`gc_state_dir`] call.
pub const DEFAULT_MAX_DIRS: usize = 500;
/// The cursor file: the last session directory name the previous call visited.
pub const CURSOR_FILE: &str = ".gc-cursor";
const DAY_MS: f64 = 86_400_000.0;

/// Options of [`gc_state_dir`].
#[derive(Debug, Clone)]
pub struct GcOptions {
    /// Sessions idle longer than this many days are removed ([`DEFAULT_IDLE_DAYS`]).
    pub idle_days: f64,
    /// Report what would be removed, remove nothing.
    pub dry_run: bool,
    /// Most session directories visited ([`DEFAULT_MAX_DIRS`]).
    pub max_dirs: usize,
    /// Quota and protections of the observation stores of active sessions.
    pub store: StoreOptions,
    /// The current time (milliseconds since the epoch); `None` = the clock.
    pub now: Option<u64>,
}

impl Default for GcOptions {
    fn default() -> Self {
        GcOptions {
            idle_days: DEFAULT_IDLE_DAYS,
            dry_run: false,
            max_dirs: DEFAULT_MAX_DIRS,
            store: StoreOptions::default(),
            now: None,
        }
    }
}

/// One session directory as [`gc_state_dir`] saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    /// The session directory name.
    pub dir: String,
    /// The session key, when its record says.
    pub session_key: Option<String>,
    /// Last activity (milliseconds since the epoch); `None` when nothing says.
    pub last_activity_ms: Option<u64>,
    /// Bytes of its files (checkpoints, state, observations, record).
    pub bytes: u64,
    /// Its files.
    pub files: u64,
}

/// A session's history (the compacted conversation kept as `history-<n>` entries, crate
/// `context-history`) as [`gc_state_dir`] saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryUse {
    /// The session directory name.
    pub dir: String,
    /// The session key, when its record says.
    pub session_key: Option<String>,
    /// Its history entries and their bytes.
    pub entries: u64,
    pub bytes: u64,
    /// The session is removed (or would be) as idle, its history with it.
    pub removed: bool,
}

/// What [`gc_state_dir`] did (or, with `dry_run`, would do).
#[derive(Debug, Clone, Default)]
pub struct GcReport {
    pub dry_run: bool,
    /// Idle sessions removed (or to be removed).
    pub removed_sessions: Vec<SessionSummary>,
    /// Bytes of the idle sessions removed.
    pub removed_bytes: u64,
    /// Active sessions kept.
    pub kept_sessions: u64,
    /// Bytes left in the sessions kept (after their observation GC).
    pub kept_bytes: u64,
    /// Observation entries of active sessions removed (expired or over the quota).
    pub removed_entries: u64,
    /// Their bytes.
    pub removed_entry_bytes: u64,
    /// Session directories visited by this call.
    pub visited: u64,
    /// Session directories in the state dir.
    pub total_dirs: u64,
    /// Not every directory was visited: call again to continue after the last one.
    pub more: bool,
    /// Sessions that could not be handled, with the error (`<dir>: [Code] message`).
    pub errors: Vec<String>,
    /// The history of each session visited that has one (it counts in the session's quota and is
    /// never evicted; it goes with its session).
    pub history: Vec<HistoryUse>,
}

/// What [`delete_session`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteReport {
    /// The session directory name.
    pub dir: String,
    /// Whether anything was there.
    pub existed: bool,
    /// Bytes and files removed.
    pub removed_bytes: u64,
    pub removed_files: u64,
}

fn kind_dir(state_dir: &Path, kind: [&str; 2]) -> PathBuf {
    state_dir.join(kind[0]).join(kind[1])
}

/// A real directory (not a link) at `p`.
fn is_real_dir(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

/// (bytes, files, newest modification ms) of the regular files under `dir` (links not followed).
fn measure(dir: &Path) -> (u64, u64, Option<u64>) {
    let mut out = (0, 0, None::<u64>);
    if !is_real_dir(dir) {
        return out;
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let Ok(m) = fs::symlink_metadata(e.path()) else {
                continue;
            };
            if m.is_dir() {
                stack.push(e.path());
            } else if m.is_file() {
                out.0 += m.len();
                out.1 += 1;
                if let Some(ms) = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_millis() as u64)
                {
                    out.2 = Some(out.2.map_or(ms, |x| x.max(ms)));
                }
            }
        }
    }
    out
}

/// The session directory names present under the state dir (checkpoints, state, observations,
/// records), sorted. Tombstones left by crashed removals are removed unless `dry_run`.
fn session_dirs(state_dir: &Path, dry_run: bool) -> Result<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    // A folder below the state dir that is a link would lead the removals outside it.
    for p in [
        state_dir.join("context"),
        kind_dir(state_dir, CHECKPOINTS_DIR),
        kind_dir(state_dir, STATE_DIR),
        kind_dir(state_dir, OBSERVATIONS_DIR),
        kind_dir(state_dir, SESSIONS_DIR),
    ] {
        if let Ok(m) = fs::symlink_metadata(&p) {
            if !m.is_dir() {
                return Err(Error::unsafe_path(format!(
                    "{} is a symlink or not a directory; refusing to collect through it",
                    p.display()
                )));
            }
        }
    }
    for kind in [CHECKPOINTS_DIR, STATE_DIR, OBSERVATIONS_DIR] {
        let root = kind_dir(state_dir, kind);
        let rd = match fs::read_dir(&root) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(format!("listing {}", root.display()), e)),
        };
        for d in rd.flatten() {
            let name = d.file_name().to_string_lossy().into_owned();
            if !d.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if name.starts_with(TOMBSTONE_PREFIX) {
                if !dry_run {
                    let _ = fs::remove_dir_all(d.path());
                }
            } else if !name.starts_with('.') {
                names.insert(name);
            }
        }
    }
    if let Ok(rd) = fs::read_dir(kind_dir(state_dir, SESSIONS_DIR)) {
        for f in rd.flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if let Some(dir) = name.strip_suffix(RECORD_SUFFIX) {
                if !dir.starts_with('.') {
                    names.insert(dir.to_string());
                }
            }
        }
    }
    Ok(names)
}

/// Sizes and last activity of one session directory (all its kinds and its record).
fn summarize(state_dir: &Path, dir: &str, now: u64) -> SessionSummary {
    let mut s = SessionSummary {
        dir: dir.to_string(),
        session_key: None,
        last_activity_ms: None,
        bytes: 0,
        files: 0,
    };
    let mut newest_file = None::<u64>;
    for kind in [CHECKPOINTS_DIR, STATE_DIR, OBSERVATIONS_DIR] {
        let (b, f, m) = measure(&kind_dir(state_dir, kind).join(dir));
        s.bytes += b;
        s.files += f;
        newest_file = newest_file.max(m);
    }
    let record_path = context_fsio::record_path(state_dir, dir);
    if let Ok(m) = fs::symlink_metadata(&record_path) {
        if m.is_file() {
            s.bytes += m.len();
            s.files += 1;
        }
    }
    match read_record(state_dir, dir) {
        Some(r) => {
            s.last_activity_ms = Some(r.last_activity_ms(now));
            s.session_key = Some(r.session_key);
        }
        // A directory written before records existed: its newest file says.
        None => s.last_activity_ms = newest_file.map(|t| context_fsio::clamp_future(t, now)),
    }
    s
}

/// Renames `dir` to a tombstone beside it and removes it; whether it existed.
fn remove_dir(dir: &Path) -> Result<bool> {
    if !is_real_dir(dir) {
        return Ok(false);
    }
    let tomb = tombstone_path(dir)?;
    let target = match fs::rename(dir, &tomb) {
        Ok(()) => tomb,
        // Windows refuses to rename a directory with an open file: remove it in place.
        Err(_) => dir.to_path_buf(),
    };
    match fs::remove_dir_all(&target) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
        // A tombstone that could not be removed is left for the next gc.
        Err(_) if target != dir => Ok(true),
        Err(e) => Err(Error::io(format!("removing {}", target.display()), e)),
    }
}

/// Removes the checkpoints, state and observations of session directory `dir` and its record.
/// `still_idle` is asked under each lock (a session that became active meanwhile is kept).
/// Returns whether it removed anything, or `None` when `still_idle` said no.
fn remove_session(
    state_dir: &Path,
    dir: &str,
    still_idle: &dyn Fn() -> bool,
) -> Result<Option<bool>> {
    let mut removed = false;
    // Checkpoints and state share the session lock (checkpoints/<dir>/.lock).
    let cp = kind_dir(state_dir, CHECKPOINTS_DIR).join(dir);
    let st = kind_dir(state_dir, STATE_DIR).join(dir);
    {
        let _lock = if is_real_dir(&cp) {
            match DirLock::acquire(&cp) {
                Ok(l) => Some(l),
                Err(e) if e.code == ErrorCode::NotFound => None,
                Err(e) => return Err(e),
            }
        } else {
            None
        };
        if !still_idle() {
            return Ok(None);
        }
        removed |= remove_dir(&st)?;
        removed |= remove_dir(&cp)?;
    }
    // The observation store has its own lock; a call waiting for it finds it no longer current
    // and starts over in a fresh store.
    let obs = kind_dir(state_dir, OBSERVATIONS_DIR).join(dir);
    if is_real_dir(&obs) {
        match DirLock::acquire(&obs) {
            Err(e) if e.code == ErrorCode::NotFound => {}
            Err(e) => return Err(e),
            Ok(l) if !l.is_current(&obs) => {}
            Ok(l) => {
                if !still_idle() {
                    return Ok(None);
                }
                removed |= remove_dir(&obs)?;
                drop(l);
            }
        }
    }
    removed |= remove_record(state_dir, dir)?;
    Ok(Some(removed))
}

fn read_cursor(state_dir: &Path) -> Option<String> {
    let p = kind_dir(state_dir, SESSIONS_DIR).join(CURSOR_FILE);
    let b = context_fsio::read_bounded(&p, 4096).ok()?;
    String::from_utf8(b).ok().map(|s| s.trim().to_string())
}

fn write_cursor(state_dir: &Path, cursor: &str) -> Result<()> {
    let dir = context_fsio::state_subdir(state_dir, &SESSIONS_DIR)?;
    context_fsio::atomic_write(
        &dir,
        CURSOR_FILE,
        cursor.as_bytes(),
        context_fsio::Durability::Fast,
    )
}

/// Applies the retention policy (see the crate docs) to at most `opts.max_dirs` session
/// directories of `state_dir`, continuing after the last one the previous call visited.
pub fn gc_state_dir(state_dir: &Path, opts: &GcOptions) -> Result<GcReport> {
    if state_dir.as_os_str().is_empty() {
        return Err(Error::invalid_arg(
            "stateDir must be a non-empty path, e.g. '~/.openclaw' expanded",
        ));
    }
    if !(opts.idle_days.is_finite() && opts.idle_days >= 0.0) {
        return Err(Error::invalid_arg(
            "idleDays must be a finite number of days >= 0, e.g. 30",
        ));
    }
    if opts.max_dirs == 0 {
        return Err(Error::invalid_arg("maxDirs must be at least 1"));
    }
    let now = opts.now.unwrap_or_else(now_ms);
    let idle_ms = (opts.idle_days * DAY_MS) as u64;
    let mut report = GcReport {
        dry_run: opts.dry_run,
        ..GcReport::default()
    };
    if !is_real_dir(&state_dir.join("context")) {
        return Ok(report);
    }
    let all = session_dirs(state_dir, opts.dry_run)?;
    report.total_dirs = all.len() as u64;
    let cursor = read_cursor(state_dir).unwrap_or_default();
    let batch: Vec<&String> = all
        .range::<String, _>((
            std::ops::Bound::Excluded(&cursor),
            std::ops::Bound::Unbounded,
        ))
        .chain(all.range::<String, _>(..=&cursor))
        .take(opts.max_dirs)
        .collect();
    report.more = all.len() > batch.len();
    for dir in &batch {
        report.visited += 1;
        if let Err(e) = visit(state_dir, dir, opts, now, idle_ms, &mut report) {
            report.errors.push(format!("{dir}: {e}"));
        }
    }
    if !opts.dry_run {
        if let Some(last) = batch.last() {
            write_cursor(state_dir, last)?;
        }
    }
    Ok(report)
}

fn visit(
    state_dir: &Path,
    dir: &str,
    opts: &GcOptions,
    now: u64,
    idle_ms: u64,
    report: &mut GcReport,
) -> Result<()> {
    let summary = summarize(state_dir, dir, now);
    let history = history_use(state_dir, dir, &summary);
    let idle_at = |s: &SessionSummary| {
        s.last_activity_ms
            .is_none_or(|t| now.saturating_sub(t) > idle_ms)
    };
    if idle_at(&summary) {
        let still_idle = || idle_at(&summarize(state_dir, dir, now_ms().max(now)));
        if opts.dry_run || remove_session(state_dir, dir, &still_idle)?.is_some() {
            report.removed_bytes += summary.bytes;
            report.removed_sessions.push(summary);
            report
                .history
                .extend(history.map(|h| HistoryUse { removed: true, ..h }));
            return Ok(());
        }
    }
    // Active: a record from the future is brought back to now, so the idle period starts now.
    if let (false, Some(key), Some(r)) = (
        opts.dry_run,
        summary.session_key.as_deref(),
        read_record(state_dir, dir),
    ) {
        if context_fsio::parse_rfc3339(&r.last_activity_at).is_some_and(|t| is_future(t, now)) {
            record_activity(state_dir, key, now)?;
        }
    }
    let obs = kind_dir(state_dir, OBSERVATIONS_DIR).join(dir);
    if !opts.dry_run && is_real_dir(&obs) {
        if let Some(mut s) = Session::open_dir(state_dir, obs)? {
            let gone = s.collect(opts.store.quota(), &opts.store.protect, now)?;
            report.removed_entries += gone.len() as u64;
            report.removed_entry_bytes += gone.iter().map(|e| e.size_bytes).sum::<u64>();
        }
    }
    report.kept_sessions += 1;
    report.kept_bytes += summarize(state_dir, dir, now).bytes;
    report.history.extend(history);
    Ok(())
}

/// The history entries of a session directory's observation store (`None` without any).
fn history_use(state_dir: &Path, dir: &str, summary: &SessionSummary) -> Option<HistoryUse> {
    let obs = kind_dir(state_dir, OBSERVATIONS_DIR).join(dir);
    if !is_real_dir(&obs) {
        return None;
    }
    let s = Session::open_dir(state_dir, obs).ok()??;
    let history: Vec<_> = s
        .entries()
        .iter()
        .filter(|e| context_offload::is_history_name(&e.name))
        .collect();
    (!history.is_empty()).then(|| HistoryUse {
        dir: dir.to_string(),
        session_key: summary.session_key.clone(),
        entries: history.len() as u64,
        bytes: history.iter().map(|e| e.size_bytes).sum(),
        removed: false,
    })
}

/// Removes everything the package holds for `session_key`: its checkpoints, incremental state,
/// observation entries (the persisted scratchpad entry included) and session record, each under
/// its lock. A session with nothing on disk is `existed: false`.
pub fn delete_session(state_dir: &Path, session_key: &str) -> Result<DeleteReport> {
    if state_dir.as_os_str().is_empty() {
        return Err(Error::invalid_arg(
            "stateDir must be a non-empty path, e.g. '~/.openclaw' expanded",
        ));
    }
    let dir = session_dir_name(session_key)?;
    let before = summarize(state_dir, &dir, now_ms());
    // Refuse a symlinked session directory (UnsafePath) before touching anything.
    for kind in [CHECKPOINTS_DIR, STATE_DIR, OBSERVATIONS_DIR] {
        context_fsio::existing_session_dir(state_dir, &kind, session_key)?;
    }
    // The observation store's own delete keeps its users' guarantees (a waiting write lands in a
    // fresh store, a waiting read finds none).
    let obs = context_offload::delete_session(state_dir, session_key)?;
    let rest = {
        let _lock = lock_existing_session(state_dir, session_key)?;
        let st = remove_dir(&kind_dir(state_dir, STATE_DIR).join(&dir))?;
        let cp = remove_dir(&kind_dir(state_dir, CHECKPOINTS_DIR).join(&dir))?;
        st | cp
    };
    let record = remove_record(state_dir, &dir)?;
    Ok(DeleteReport {
        existed: obs || rest || record,
        removed_bytes: before.bytes,
        removed_files: before.files,
        dir,
    })
}

#[cfg(test)]
mod tests;
