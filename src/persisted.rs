//! JS surface of the persisted scratchpad (issue 23): the session's scratchpad spaces kept in one
//! named observation entry, merged under the store's session lock so that two processes persisting
//! the same session never drop each other's updates. All logic lives in
//! `context_offload::scratchpad_entry`.

use crate::error::{from_js, run, spawn, Job};
use crate::js::{Json, Maybe};
use context_fsio::Error;
use context_offload as core;
use napi::bindgen_prelude::AsyncTask;
use napi::Env;
use napi_derive::napi;
use serde::Deserialize;
use std::path::PathBuf;

/// One persisted scratchpad entry, as `applyScratchpadAction(...).persist` lists them.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistEntry {
    /// `openclaw:scratchpad:notes`, `openclaw:scratchpad:plan`, `openclaw:scratchpad:refs`, ...
    pub custom_type: String,
    /// The space's new value.
    #[napi(ts_type = "string | string[]")]
    pub data: serde_json::Value,
}

/// Input of `persistScratchpad`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistScratchpadInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
    /// The entries to merge, in order (a later one of the same `customType` wins).
    pub entries: Vec<PersistEntry>,
    /// Per-session byte quota of the observation store the entry lives in.
    /// @default 536870912 (512 MiB)
    pub quota_bytes: Option<f64>,
}

/// The answer of `persistScratchpad`.
#[napi(object)]
pub struct PersistScratchpadResult {
    /// Every persisted space after the merge (`customType` -> data).
    #[napi(ts_type = "Record<string, string | string[]>")]
    pub spaces: serde_json::Value,
    /// The entry's id in the session's observation store.
    pub id: String,
    /// Characters written.
    pub chars: f64,
}

/// Input of `readPersistedScratchpad`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadPersistedScratchpadInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
}

fn do_persist(input: PersistScratchpadInput) -> Result<PersistScratchpadResult, Error> {
    let quota_bytes = crate::offload::quota(input.quota_bytes)?;
    let opts = core::StoreOptions {
        quota_bytes,
        ..core::StoreOptions::default()
    };
    let entries: Vec<(String, serde_json::Value)> = input
        .entries
        .into_iter()
        .map(|e| (e.custom_type, e.data))
        .collect();
    let out = core::persist_scratchpad(
        &PathBuf::from(input.state_dir),
        &input.session_key,
        &entries,
        &opts,
    )?;
    Ok(PersistScratchpadResult {
        spaces: serde_json::Value::Object(out.spaces),
        id: out.entry.id,
        chars: out.entry.chars as f64,
    })
}

fn do_read(input: ReadPersistedScratchpadInput) -> Result<Maybe<Json>, Error> {
    let spaces =
        core::read_persisted_scratchpad(&PathBuf::from(input.state_dir), &input.session_key)?;
    Ok(Maybe(spaces.map(|m| Json(serde_json::Value::Object(m)))))
}

/// Persists scratchpad entries (the `persist` list `applyScratchpadAction` returns) for a session,
/// off the main thread: a read-modify-write of the session's persisted scratchpad entry
/// (`context-native-scratchpad` in its observation store; no TTL, never evicted) under the
/// store's session lock, so two processes persisting the same session lose no update. Written
/// durably (fsync).
///
/// @throws (rejects) `InvalidArg` for entries that are not `{ customType, data: string | string[] }`;
/// `TooLarge` (nothing written) when the merged spaces would exceed 67,108,864 characters, the
/// most `readPersistedScratchpad` reads; `Corrupt` when the stored entry is not a JSON object.
#[napi(catch_unwind, ts_return_type = "Promise<PersistScratchpadResult>")]
pub fn persist_scratchpad(
    #[napi(ts_arg_type = "PersistScratchpadInput")] input: serde_json::Value,
) -> AsyncTask<Job<PersistScratchpadResult>> {
    let parsed = from_js::<PersistScratchpadInput>(input, "input");
    spawn(move || do_persist(parsed?))
}

/// Synchronous twin of `persistScratchpad`.
#[napi(catch_unwind)]
pub fn persist_scratchpad_sync(
    env: Env,
    #[napi(ts_arg_type = "PersistScratchpadInput")] input: serde_json::Value,
) -> napi::Result<PersistScratchpadResult> {
    run(&env, || do_persist(from_js(input, "input")?))
}

/// The session's persisted scratchpad spaces (`customType` -> data, as `persistScratchpad` wrote
/// them), or `undefined` when it has none. Turn them into entries for `restoreScratchpad` with
/// `Object.entries(spaces).map(([customType, data]) => ({ type: 'custom', customType, data }))`.
///
/// @throws (rejects) `Corrupt` when the stored entry is not a JSON object.
#[napi(
    catch_unwind,
    ts_return_type = "Promise<Record<string, string | string[]> | undefined>"
)]
pub fn read_persisted_scratchpad(
    #[napi(ts_arg_type = "ReadPersistedScratchpadInput")] input: serde_json::Value,
) -> AsyncTask<Job<Maybe<Json>>> {
    let parsed = from_js::<ReadPersistedScratchpadInput>(input, "input");
    spawn(move || do_read(parsed?))
}

/// Synchronous twin of `readPersistedScratchpad`.
#[napi(
    catch_unwind,
    ts_return_type = "Record<string, string | string[]> | undefined"
)]
pub fn read_persisted_scratchpad_sync(
    env: Env,
    #[napi(ts_arg_type = "ReadPersistedScratchpadInput")] input: serde_json::Value,
) -> napi::Result<Maybe<Json>> {
    run(&env, || do_read(from_js(input, "input")?))
}

/// Input of `applyPersistedScratchpadAction`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyPersistedScratchpadInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key (also the scratchpad's id in this process's registry).
    pub session_key: String,
    /// The model's `session_scratchpad` arguments, as they came.
    #[napi(ts_type = "ScratchpadAction")]
    pub action: serde_json::Value,
    /// The session's budgets, as for `applyScratchpadAction`.
    #[napi(ts_type = "ScratchpadLimits")]
    pub limits: Option<serde_json::Value>,
    /// Per-session byte quota of the observation store the entry lives in.
    /// @default 536870912 (512 MiB)
    pub quota_bytes: Option<f64>,
}

fn do_apply(
    input: ApplyPersistedScratchpadInput,
) -> Result<crate::scratchpad::ScratchpadResult, Error> {
    if input.session_key.is_empty() {
        return Err(Error::invalid_arg("sessionKey must be a non-empty string"));
    }
    let limits = crate::scratchpad::limits(input.limits.map(Json))?;
    let opts = core::StoreOptions {
        quota_bytes: crate::offload::quota(input.quota_bytes)?,
        ..core::StoreOptions::default()
    };
    let key = input.session_key.clone();
    let (_, outcome) = core::update_scratchpad(
        &PathBuf::from(input.state_dir),
        &input.session_key,
        &opts,
        |spaces| {
            let (outcome, write) = context_scratchpad::Registry::global()
                .with(&key, |p| p.apply_persisted(spaces, &input.action, limits))?;
            Ok((write, outcome))
        },
    )?;
    Ok(crate::scratchpad::result_of(outcome))
}

/// Applies one `session_scratchpad` tool call to the session's persisted scratchpad, off the main
/// thread: under the store's session lock, the persisted spaces are read, the call is applied to
/// them (not to what this process last held) and the changed spaces are written back durably,
/// with the scratchpad's version. Two processes (a gateway and a `--local` run, a cron run) calling
/// it on one session lose no action, appends included, and `expectedVersion` compares with the
/// persisted version. This process's scratchpad (`getScratchpadContent`) holds the result after.
///
/// A malformed call is answered `ok: false` (nothing written), as by `applyScratchpadAction`;
/// `persist` lists the spaces written.
///
/// @throws (rejects) `InvalidArg` for an empty `sessionKey` or invalid `limits`; `TooLarge`
/// (nothing written) when the spaces would exceed 67,108,864 characters; `Corrupt` when the
/// stored entry is not a JSON object.
#[napi(catch_unwind, ts_return_type = "Promise<ScratchpadResult>")]
pub fn apply_persisted_scratchpad_action(
    #[napi(ts_arg_type = "ApplyPersistedScratchpadInput")] input: serde_json::Value,
) -> AsyncTask<Job<crate::scratchpad::ScratchpadResult>> {
    let parsed = from_js::<ApplyPersistedScratchpadInput>(input, "input");
    spawn(move || do_apply(parsed?))
}
