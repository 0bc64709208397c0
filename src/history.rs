//! JS surface of the compacted conversation kept (issue 49): `writeHistory` writes a compaction's
//! messages as the session's next `history-<n>` entry, `historySummary` says what a session holds.
//! Reading is `readObservation` (`name: 'history'` searches every entry). All logic lives in
//! `context-history`.

use crate::error::{from_js, run, spawn, Job};
use crate::offload::quota;
use crate::offthread::{messages_job, Gather};
use context_fsio::{rfc3339, Error};
use context_history as core;
use napi::bindgen_prelude::{AsyncTask, Unknown};
use napi::Env;
use napi_derive::napi;
use serde::Deserialize;
use std::path::PathBuf;

/// Input of `writeHistory`: the messages of one compaction and the session they belong to.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
    /// The compacted messages (pi / OpenClaw agent messages: `user`, `assistant` with its
    /// `toolCall` blocks, `toolResult`); those the session's history holds already are skipped.
    #[napi(ts_type = "unknown[]")]
    pub messages: Vec<serde_json::Value>,
    /// The compaction this is, shown in the entry's first line.
    pub compaction: Option<u32>,
    /// The session's store quota (history counts in it).
    /// @default 536870912 (512 MiB)
    pub quota_bytes: Option<f64>,
    /// fsync before resolving.
    /// @default true
    pub durable: Option<bool>,
}

/// What a session's history holds.
#[napi(object)]
pub struct HistorySummary {
    /// History entries (`history-<n>`).
    pub entries: u32,
    /// Their bytes on disk.
    pub bytes: f64,
    /// Messages they hold.
    pub messages: f64,
    /// The newest entry's name.
    pub newest: Option<String>,
    /// Entries cut to their head and tail to stay under the quota.
    pub cut: Vec<String>,
    /// The line a restore ends with for the newest entry (at most 40 tokens): what it holds and
    /// how to search all history with `scratchpad_read`. Absent without history.
    pub line: Option<String>,
}

/// The answer of `writeHistory`.
#[napi(object)]
pub struct HistoryWriteResult {
    /// An entry was written (`false`: every message was held already, or none had text).
    pub written: bool,
    /// The entry written.
    pub name: Option<String>,
    /// Its bytes.
    pub size_bytes: Option<f64>,
    /// Messages it holds, and their first and last index (stable across compactions).
    pub messages: u32,
    pub first_index: Option<f64>,
    pub last_index: Option<f64>,
    /// History entries cut to their head and tail to make room (the new one's own name when it
    /// was cut to fit too).
    pub cut: Vec<String>,
    /// The history's index was unreadable and rebuilt (messages held before may be held again).
    pub repaired: bool,
    /// RFC 3339 UTC time of the write.
    pub at: String,
    /// The session's history after the write.
    pub summary: HistorySummary,
}

/// Input of `historySummary`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistorySummaryInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
}

fn summary(s: &core::Summary) -> HistorySummary {
    HistorySummary {
        entries: s.entries as u32,
        bytes: s.bytes as f64,
        messages: s.messages as f64,
        newest: s.newest.as_ref().map(|e| e.name.clone()),
        cut: s.cut.clone(),
        line: core::restore_line(s),
    }
}

fn do_write(input: serde_json::Value) -> Result<HistoryWriteResult, Error> {
    let input: HistoryInput = from_js(input, "input")?;
    let opts = core::HistoryOptions {
        compaction: input.compaction.map(u64::from),
        quota_bytes: quota(input.quota_bytes)?,
        durable: input.durable.unwrap_or(true),
    };
    let w = core::write(
        &PathBuf::from(input.state_dir),
        &input.session_key,
        &input.messages,
        &opts,
    )?;
    Ok(HistoryWriteResult {
        written: w.entry.is_some(),
        name: w.entry.as_ref().map(|e| e.name.clone()),
        size_bytes: w.entry.as_ref().map(|e| e.size_bytes as f64),
        messages: w.messages as u32,
        first_index: w.first_index.map(|v| v as f64),
        last_index: w.last_index.map(|v| v as f64),
        cut: w.cut,
        repaired: w.repaired,
        at: rfc3339(context_fsio::now_ms()),
        summary: summary(&w.summary),
    })
}

/// Keeps the messages of a compaction in the session's observation store, off the main thread:
/// those the session's history does not hold yet become its next entry `history-<n>`, one line per
/// line of each message led by `[#<index> <role> <time>]` (index stable across compactions), the
/// host's text left out and credentials redacted as in checkpoints; a parked tool result is kept
/// as its pointer. Read under the store's session lock, so two processes writing the same
/// compaction keep one copy. History counts in `quotaBytes`; it is never evicted: over the quota
/// the oldest entries are cut to their head and tail with a note, never another entry.
/// `readObservation({ name: 'history', pattern })` searches them all. Messages of 2,048 items or
/// more are serialised 1,024 per event-loop turn, as `writeCheckpoint`'s.
///
/// @throws (rejects) `InvalidArg` for a malformed input, `TooLarge` when the session's live
/// entries leave under 4 KiB of the quota (nothing written), `UnsafePath` / `UnsafeFile` for a
/// link in the store, `NoSpace` / `Io` when the disk refuses.
#[napi(catch_unwind, ts_return_type = "Promise<HistoryWriteResult>")]
pub fn write_history(
    env: Env,
    #[napi(ts_arg_type = "HistoryInput")] input: Unknown,
) -> AsyncTask<Gather<HistoryWriteResult>> {
    messages_job(&env, input, "messages", do_write)
}

/// The synchronous twin of `writeHistory` (same core function, blocks the calling thread).
#[napi(catch_unwind)]
pub fn write_history_sync(
    env: Env,
    #[napi(ts_arg_type = "HistoryInput")] input: serde_json::Value,
) -> napi::Result<HistoryWriteResult> {
    run(&env, || do_write(input))
}

/// What a session's history holds (entries, bytes, messages, the restore's line), off the main
/// thread; all zero without history.
///
/// @throws (rejects) `InvalidArg` for a malformed input, `UnsafeFile` for a link in the store.
#[napi(catch_unwind, ts_return_type = "Promise<HistorySummary>")]
pub fn history_summary(
    #[napi(ts_arg_type = "HistorySummaryInput")] input: serde_json::Value,
) -> AsyncTask<Job<HistorySummary>> {
    let parsed = from_js::<HistorySummaryInput>(input, "input");
    spawn(move || {
        let i = parsed?;
        Ok(summary(&core::summary(
            &PathBuf::from(i.state_dir),
            &i.session_key,
        )?))
    })
}
