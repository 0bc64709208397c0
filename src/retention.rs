//! JS surface of retention (issue 23): `gcStateDir` applies the retention policy to a whole state
//! dir (idle sessions removed, observations of active ones by TTL and quota), `deleteSession`
//! removes everything the package holds for one session key. All logic lives in
//! `context-retention`.

use crate::error::{from_js, run, spawn, Job};
use context_fsio::{rfc3339, Error};
use context_retention as core;
use napi::bindgen_prelude::AsyncTask;
use napi::Env;
use napi_derive::napi;
use serde::Deserialize;
use std::path::PathBuf;

/// Input of `gcStateDir`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GcStateDirInput {
    /// OpenClaw's state directory (the one given to every other call).
    pub state_dir: String,
    /// Sessions with no write for longer than this many days lose everything the package holds
    /// for them (checkpoints, state files, observation entries, the persisted scratchpad).
    /// @default 30
    pub idle_days: Option<f64>,
    /// Report what would be removed; remove nothing.
    /// @default false
    pub dry_run: Option<bool>,
    /// Most session directories visited by this call; the next call continues after the last one
    /// (so each call's work is bounded and repeated calls cover every session).
    /// @default 500
    pub max_dirs: Option<u32>,
    /// Per-session byte quota applied to the observation stores of active sessions.
    /// @default 536870912 (512 MiB)
    pub quota_bytes: Option<f64>,
    /// Observation ids or names never evicted (on top of those the latest checkpoint or the
    /// persisted scratchpad's refs name, and the scratchpad entry itself).
    pub protect: Option<Vec<String>>,
}

/// One session directory in a `gcStateDir` report.
#[napi(object)]
pub struct RetainedSession {
    /// The session directory name (`sessionDirName(sessionKey)`).
    pub dir: String,
    /// The session key, when its session record says (directories written before version 0.1's
    /// records have none).
    pub session_key: Option<String>,
    /// RFC 3339 time of its last write; absent when nothing says.
    pub last_activity_at: Option<String>,
    /// Bytes of its files (checkpoints, state, observations, record).
    pub bytes: f64,
    /// Its files.
    pub files: f64,
}

/// A session's history (its `history-<n>` entries: the compacted conversation kept) in a
/// `gcStateDir` report.
#[napi(object)]
pub struct SessionHistory {
    /// The session directory name.
    pub dir: String,
    /// The session key, when its session record says.
    pub session_key: Option<String>,
    /// Its history entries.
    pub entries: u32,
    /// Their bytes.
    pub bytes: f64,
    /// The session is removed (or would be, `dryRun`) as idle, its history with it.
    pub removed: bool,
}

/// What `gcStateDir` did (or, with `dryRun`, would do).
#[napi(object)]
pub struct GcStateDirResult {
    /// Nothing was removed: the report says what would be.
    pub dry_run: bool,
    /// Idle sessions removed (or to be removed).
    pub removed_sessions: Vec<RetainedSession>,
    /// Bytes of the idle sessions removed.
    pub removed_bytes: f64,
    /// Active sessions kept.
    pub kept_sessions: u32,
    /// Bytes left in the sessions kept (after their observation GC).
    pub kept_bytes: f64,
    /// Observation entries of active sessions removed (expired, or over the quota).
    pub removed_entries: u32,
    /// Their bytes.
    pub removed_entry_bytes: f64,
    /// Session directories visited by this call.
    pub visited: u32,
    /// Session directories in the state dir.
    pub total_dirs: u32,
    /// Not every directory was visited: call again to continue.
    pub more: bool,
    /// Sessions that could not be handled (`<dir>: [Code] message`); the others were.
    pub errors: Vec<String>,
    /// The history of each session visited that has one: it counts in the session's quota, is
    /// never evicted (the oldest is cut to its head and tail instead) and goes with its session.
    pub history: Vec<SessionHistory>,
}

/// Input of `deleteSession`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteSessionInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key whose data goes.
    pub session_key: String,
}

/// What `deleteSession` removed.
#[napi(object)]
pub struct DeleteSessionResult {
    /// The session directory name.
    pub dir: String,
    /// Whether the package held anything for the session.
    pub existed: bool,
    /// Bytes removed.
    pub removed_bytes: f64,
    /// Files removed.
    pub removed_files: f64,
}

fn summary(s: core::SessionSummary) -> RetainedSession {
    RetainedSession {
        dir: s.dir,
        session_key: s.session_key,
        last_activity_at: s.last_activity_ms.map(rfc3339),
        bytes: s.bytes as f64,
        files: s.files as f64,
    }
}

fn do_gc(input: GcStateDirInput) -> Result<GcStateDirResult, Error> {
    let quota_bytes = crate::offload::quota(input.quota_bytes)?;
    let opts = core::GcOptions {
        idle_days: input.idle_days.unwrap_or(core::DEFAULT_IDLE_DAYS),
        dry_run: input.dry_run.unwrap_or(false),
        max_dirs: input
            .max_dirs
            .map_or(core::DEFAULT_MAX_DIRS, |n| n as usize),
        store: context_offload::StoreOptions {
            quota_bytes,
            protect: input.protect.unwrap_or_default(),
            durable: true,
            keep_live: false,
        },
        now: None,
    };
    let r = core::gc_state_dir(&PathBuf::from(input.state_dir), &opts)?;
    Ok(GcStateDirResult {
        dry_run: r.dry_run,
        removed_sessions: r.removed_sessions.into_iter().map(summary).collect(),
        removed_bytes: r.removed_bytes as f64,
        kept_sessions: r.kept_sessions as u32,
        kept_bytes: r.kept_bytes as f64,
        removed_entries: r.removed_entries as u32,
        removed_entry_bytes: r.removed_entry_bytes as f64,
        visited: r.visited as u32,
        total_dirs: r.total_dirs as u32,
        more: r.more,
        errors: r.errors,
        history: r
            .history
            .into_iter()
            .map(|h| SessionHistory {
                dir: h.dir,
                session_key: h.session_key,
                entries: h.entries as u32,
                bytes: h.bytes as f64,
                removed: h.removed,
            })
            .collect(),
    })
}

fn do_delete(input: DeleteSessionInput) -> Result<DeleteSessionResult, Error> {
    let r = core::delete_session(&PathBuf::from(input.state_dir), &input.session_key)?;
    // The in-memory scratchpad of a host that keys it by session key goes with it.
    context_scratchpad::Registry::global().remove(&input.session_key);
    Ok(DeleteSessionResult {
        dir: r.dir,
        existed: r.existed,
        removed_bytes: r.removed_bytes as f64,
        removed_files: r.removed_files as f64,
    })
}

/// Applies the retention policy to a state dir, off the main thread: sessions with no write for
/// longer than `idleDays` (default 30) lose everything the package holds for them; the observation
/// stores of active sessions lose expired entries and what is over their quota (never an entry
/// the latest checkpoint or the persisted scratchpad's refs name). The latest checkpoint of an
/// active session is never removed. Visits at most `maxDirs` session directories per call,
/// continuing where the previous call stopped (`more` says whether any are left). A time from the
/// future (a clock that ran ahead) counts as now.
///
/// @throws (rejects) `InvalidArg` for a bad input; `UnsafePath` when a folder under the state dir
/// is a symlink. Per-session failures are listed in `errors`, not thrown.
#[napi(catch_unwind, ts_return_type = "Promise<GcStateDirResult>")]
pub fn gc_state_dir(
    #[napi(ts_arg_type = "GcStateDirInput")] input: serde_json::Value,
) -> AsyncTask<Job<GcStateDirResult>> {
    let parsed = from_js::<GcStateDirInput>(input, "input");
    spawn(move || do_gc(parsed?))
}

/// Synchronous twin of `gcStateDir` (it walks the session directories it visits: seconds for
/// thousands of sessions; prefer the Promise form in a server).
#[napi(catch_unwind)]
pub fn gc_state_dir_sync(
    env: Env,
    #[napi(ts_arg_type = "GcStateDirInput")] input: serde_json::Value,
) -> napi::Result<GcStateDirResult> {
    run(&env, || do_gc(from_js(input, "input")?))
}

/// Removes everything the package holds for a session key, off the main thread: its checkpoints,
/// incremental state, observation entries (the persisted scratchpad entry included), its session
/// record and its in-memory scratchpad (`clearScratchpad(sessionKey)`). Each store is removed
/// under its lock: a write waiting for it lands in a fresh, empty store.
///
/// @throws (rejects) `InvalidArg` for a bad key; `UnsafePath` when a session directory is a symlink.
#[napi(catch_unwind, ts_return_type = "Promise<DeleteSessionResult>")]
pub fn delete_session(
    #[napi(ts_arg_type = "DeleteSessionInput")] input: serde_json::Value,
) -> AsyncTask<Job<DeleteSessionResult>> {
    let parsed = from_js::<DeleteSessionInput>(input, "input");
    spawn(move || do_delete(parsed?))
}

/// Synchronous twin of `deleteSession`.
#[napi(catch_unwind)]
pub fn delete_session_sync(
    env: Env,
    #[napi(ts_arg_type = "DeleteSessionInput")] input: serde_json::Value,
) -> napi::Result<DeleteSessionResult> {
    run(&env, || do_delete(from_js(input, "input")?))
}

/// Input of `touchSession`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TouchSessionInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key that was active.
    pub session_key: String,
}

fn do_touch(input: TouchSessionInput) -> Result<bool, Error> {
    context_fsio::record_activity(
        &PathBuf::from(input.state_dir),
        &input.session_key,
        context_fsio::now_ms(),
    )
}

/// Records that a session was active now, for retention: a session that only reads (a chat
/// without tool calls writes nothing between checkpoints) is not idle while it is used. Every
/// write of the package records activity by itself. Costs one small read; the session record
/// (`context/sessions/<session dir>.json`) is rewritten at most once a minute. Resolves to whether
/// it was rewritten.
///
/// @throws (rejects) `InvalidArg` for a bad input.
#[napi(catch_unwind, ts_return_type = "Promise<boolean>")]
pub fn touch_session(
    #[napi(ts_arg_type = "TouchSessionInput")] input: serde_json::Value,
) -> AsyncTask<Job<bool>> {
    let parsed = from_js::<TouchSessionInput>(input, "input");
    spawn(move || do_touch(parsed?))
}

/// Synchronous twin of `touchSession`.
#[napi(catch_unwind)]
pub fn touch_session_sync(
    env: Env,
    #[napi(ts_arg_type = "TouchSessionInput")] input: serde_json::Value,
) -> napi::Result<bool> {
    run(&env, || do_touch(from_js(input, "input")?))
}
