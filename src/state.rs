//! JS surface of incremental state capture (seed 001, section 7): the record calls of the host's
//! `tool_result` and `context` handlers, each with a Promise form and a `Sync` twin.

use crate::error::{from_js, run, spawn, Job};
use crate::offthread::{messages_job, Gather};
use context_fsio::Error;
use context_state as core;
use napi::bindgen_prelude::{AsyncTask, Unknown};
use napi::Env;
use napi_derive::napi;
use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;

/// Which session's state: `<stateDir>/context/state/<session dir>/`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateTarget {
    /// The OpenClaw state directory (e.g. `~/.openclaw` expanded).
    pub state_dir: String,
    /// The session key, e.g. `agent:main:telegram:direct:123456`.
    pub session_key: String,
}

/// A tool result, as the host's `tool_result` handler sees it.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultInput {
    pub state_dir: String,
    pub session_key: String,
    /// The tool's name (recorded in `toolsUsed`, deduplicated, most recent last).
    pub tool_name: String,
    /// The tool call's arguments. File paths are taken from `path`, `file_path`, `filePath`,
    /// `filepath`, `file`, `filename`, `fileName`, `target_file`, `targetFile`, `notebook_path`,
    /// `notebookPath`, `old_path`, `new_path`, `source`, `destination` (strings), and from the
    /// arrays `paths`, `file_paths`, `filePaths`, `files`, `edits`, `changes` (strings, or objects
    /// with one of those keys).
    #[napi(ts_type = "unknown")]
    #[serde(default)]
    pub params: Value,
    /// The call failed: its failure is recorded, its files are not (a failed edit changed nothing).
    /// @default false
    #[serde(default)]
    pub is_error: Option<bool>,
    /// A command's exit code (OpenClaw's `exec` puts it in the result's `details.exitCode`): a
    /// non-zero one is a failure, also when `isError` is false, and its failure ends with
    /// `Command exited with code N`.
    pub exit_code: Option<i64>,
    /// The result's `details` as OpenClaw gives them (its tools report a failure there:
    /// `{status: "error", tool, error}`, web_search's `{error, message}` with `isError` false): a
    /// failure by OpenClaw's own rule (`isToolResultError`): `ok` or `success` false, a failure
    /// `status` (`error`, `failed`, `timeout`, `denied`, …), `timedOut`, or an `error`, whose text
    /// is then the failure's; a non-zero `exitCode` when `exitCode` is not given. Only their
    /// top-level fields are read: pass those (a command's output in them need not cross).
    #[napi(ts_type = "Record<string, unknown>")]
    pub details: Option<Value>,
    /// The error text of a failed call, or a command's output when `exitCode` may say it failed;
    /// read only for a failure: its first and last non-empty lines are kept (200 chars).
    pub error: Option<String>,
    /// Overrides the classification by tool name: names with a word like write, edit, create,
    /// patch, replace, delete, move, rename, append, save, update count as `write`; all others
    /// (read, view, grep, ls, unknown tools) as `read`.
    #[napi(ts_type = "'read' | 'write'")]
    pub access: Option<String>,
}

/// What `recordToolResult` captured.
#[napi(object)]
pub struct ToolResultRecord {
    /// Paths recorded as read: of those the call names, deduplicated, the last 100 (a list keeps
    /// no more).
    pub files_read: Vec<String>,
    /// Paths recorded as modified, as `filesRead`.
    pub files_modified: Vec<String>,
    /// `"<tool> <command or path>: <first line of the error> … <last line>"` for a failed call.
    pub failure: Option<String>,
}

/// A decision to record.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateDecisionInput {
    pub state_dir: String,
    pub session_key: String,
    /// What was decided (cut to 1,000 chars).
    pub what: String,
    /// RFC 3339 time; defaults to now.
    pub when: Option<String>,
}

/// A decision in the state files (and the checkpoint's `decisions` section).
#[napi(object)]
pub struct StateDecision {
    /// `d1`, `d2`, ...: unique within the session key.
    pub id: String,
    pub what: String,
    /// RFC 3339 time.
    pub when: Option<String>,
}

impl From<core::Decision> for StateDecision {
    fn from(d: core::Decision) -> Self {
        StateDecision {
            id: d.id,
            what: d.what,
            when: d.when,
        }
    }
}

/// An open item (or, for `recordLearning`, a learning) to record or resolve.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateItemInput {
    pub state_dir: String,
    pub session_key: String,
    /// The text (trimmed, cut to 1,000 chars; exact match when resolving).
    pub text: String,
}

/// The messages of a `context` event.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateMessagesInput {
    pub state_dir: String,
    pub session_key: String,
    /// pi agent messages (the whole context; call it on every `context` event).
    #[napi(ts_type = "unknown[]")]
    pub messages: Vec<Value>,
}

/// One thread entry: `role` is `user` or `agent`, `gist` the first 120 characters.
#[napi(object)]
pub struct StateExchange {
    #[napi(ts_type = "'user' | 'agent'")]
    pub role: String,
    pub gist: String,
}

impl From<core::Exchange> for StateExchange {
    fn from(e: core::Exchange) -> Self {
        StateExchange {
            role: e.role,
            gist: e.gist,
        }
    }
}

/// What `recordMessages` found.
#[napi(object)]
pub struct MessagesRecord {
    /// Gist (100 chars) of the last user message.
    pub topic: Option<String>,
    /// The last 8 user / agent messages with text.
    pub exchanges: Vec<StateExchange>,
    /// Decisions recorded by this call: each user message under 50 chars after an agent response
    /// over 500 chars, once per session.
    pub decisions: Vec<StateDecision>,
}

/// The state a checkpoint would bundle.
#[napi(object)]
pub struct ContextState {
    pub decisions: Vec<StateDecision>,
    pub files_read: Vec<String>,
    pub files_modified: Vec<String>,
    pub tools_used: Vec<String>,
    pub tool_failures: Vec<String>,
    pub open_items: Vec<String>,
    pub learnings: Vec<String>,
    pub topic: Option<String>,
    pub exchanges: Vec<StateExchange>,
}

/// The core form of one tool result of the binding's input.
fn core_tool_result(i: ToolResultInput) -> Result<core::ToolResult, Error> {
    let access = match i.access.as_deref() {
        None => None,
        Some("read") => Some(core::Access::Read),
        Some("write") => Some(core::Access::Write),
        Some(other) => {
            return Err(Error::invalid_arg(format!(
                "input.access must be 'read' or 'write', got {other:?}"
            )))
        }
    };
    Ok(core::ToolResult {
        tool_name: i.tool_name,
        params: i.params,
        is_error: i.is_error.unwrap_or(false),
        exit_code: i.exit_code,
        details: i.details,
        error: i.error,
        access,
    })
}

fn record_of(o: core::ToolResultOutcome) -> ToolResultRecord {
    ToolResultRecord {
        files_read: o.files_read,
        files_modified: o.files_modified,
        failure: o.failure,
    }
}

fn tool_result(input: Value) -> Result<ToolResultRecord, Error> {
    let i: ToolResultInput = from_js(input, "input")?;
    let (dir, key) = (PathBuf::from(&i.state_dir), i.session_key.clone());
    let o = core::record_tool_result(&dir, &key, &core_tool_result(i)?)?;
    Ok(record_of(o))
}

/// Several tool results of one session, for `recordToolResults`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultsInput {
    /// The OpenClaw state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
    /// The results in the order they came (each as `recordToolResult` takes it, without
    /// `stateDir` / `sessionKey`, which are this input's).
    #[napi(ts_type = "Array<Omit<ToolResultInput, 'stateDir' | 'sessionKey'>>")]
    pub results: Vec<Value>,
}

fn tool_results(input: Value) -> Result<Vec<ToolResultRecord>, Error> {
    let i: ToolResultsInput = from_js(input, "input")?;
    let results = i
        .results
        .into_iter()
        .enumerate()
        .map(|(n, mut r)| {
            if let Value::Object(o) = &mut r {
                o.insert("stateDir".into(), Value::String(i.state_dir.clone()));
                o.insert("sessionKey".into(), Value::String(i.session_key.clone()));
            }
            core_tool_result(from_js(r, &format!("input.results[{n}]"))?)
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let out = core::record_tool_results(&PathBuf::from(i.state_dir), &i.session_key, &results)?;
    Ok(out.into_iter().map(record_of).collect())
}

fn decision(input: Value) -> Result<StateDecision, Error> {
    let i: StateDecisionInput = from_js(input, "input")?;
    if let Some(w) = i.when.as_deref() {
        if context_fsio::parse_rfc3339(w).is_none() {
            return Err(Error::invalid_arg(format!(
                "input.when must be an RFC 3339 time like '2026-02-24T14:15:00Z', got {w:?}"
            )));
        }
    }
    let d = core::record_decision(
        &PathBuf::from(i.state_dir),
        &i.session_key,
        &i.what,
        i.when.as_deref(),
    )?;
    Ok(d.into())
}

fn item(input: Value) -> Result<(PathBuf, String, String), Error> {
    let i: StateItemInput = from_js(input, "input")?;
    Ok((PathBuf::from(i.state_dir), i.session_key, i.text))
}

fn messages(input: Value) -> Result<MessagesRecord, Error> {
    let i: StateMessagesInput = from_js(input, "input")?;
    let o = core::record_messages(&PathBuf::from(i.state_dir), &i.session_key, &i.messages)?;
    Ok(MessagesRecord {
        topic: o.topic,
        exchanges: o.exchanges.into_iter().map(Into::into).collect(),
        decisions: o.decisions.into_iter().map(Into::into).collect(),
    })
}

fn read(input: Value) -> Result<ContextState, Error> {
    let t: StateTarget = from_js(input, "target")?;
    let b = core::read_state(&PathBuf::from(t.state_dir), &t.session_key)?;
    Ok(ContextState {
        decisions: b.decisions.into_iter().map(Into::into).collect(),
        files_read: b.files_read,
        files_modified: b.files_modified,
        tools_used: b.tools_used,
        tool_failures: b.tool_failures,
        open_items: b.open_items,
        learnings: b.learnings,
        topic: b.topic,
        exchanges: b.exchanges.into_iter().map(Into::into).collect(),
    })
}

fn clear(input: Value) -> Result<(), Error> {
    let t: StateTarget = from_js(input, "target")?;
    core::clear_state(&PathBuf::from(t.state_dir), &t.session_key)
}

/// Layer A of seed 001, 7.2, for the host's `tool_result` handler: records the tool name
/// (deduplicated), the files named by path-like params as read or modified, and failures, in
/// `resources.json` / `thread.json`, atomically under the session lock. A failure is kept once per
/// tool and subject (its command or path) with a count, and resolved when the same call later
/// succeeds. Caps: 100 tools, 100 paths per list, 50 failures; the least recently used are
/// dropped first. Linear in the number of paths (of 100,000 paths in one call, the last 100 are
/// recorded).
/// @throws (rejects) `InvalidArg` for a missing `toolName`, `stateDir` or `sessionKey`;
/// `UnsafePath` when the session directory is a symlink; `UnsafeFile` when the session's lock file
/// is a link or not a regular file; `Io` / `NoSpace` / `PermissionDenied`.
#[napi(catch_unwind, ts_return_type = "Promise<ToolResultRecord>")]
pub fn record_tool_result(
    #[napi(ts_arg_type = "ToolResultInput")] input: Value,
) -> AsyncTask<Job<ToolResultRecord>> {
    spawn(move || tool_result(input))
}

/// Sync twin of `recordToolResult`.
#[napi(catch_unwind)]
pub fn record_tool_result_sync(
    env: Env,
    #[napi(ts_arg_type = "ToolResultInput")] input: Value,
) -> napi::Result<ToolResultRecord> {
    run(&env, || tool_result(input))
}

/// `recordToolResult` for a batch of one session's tool results (a turn's), in order: the same
/// records, with one locked read-modify-write of `resources.json` and one of `thread.json` for the
/// whole batch instead of two per result. Every result is checked before anything is written.
/// @throws (rejects) as `recordToolResult`; `InvalidArg` names the result at fault
/// (`input.results[2]`).
#[napi(catch_unwind, ts_return_type = "Promise<ToolResultRecord[]>")]
pub fn record_tool_results(
    #[napi(ts_arg_type = "ToolResultsInput")] input: Value,
) -> AsyncTask<Job<Vec<ToolResultRecord>>> {
    spawn(move || tool_results(input))
}

/// Sync twin of `recordToolResults` (for a process `exit` handler, where nothing async runs).
#[napi(catch_unwind)]
pub fn record_tool_results_sync(
    env: Env,
    #[napi(ts_arg_type = "ToolResultsInput")] input: Value,
) -> napi::Result<Vec<ToolResultRecord>> {
    run(&env, || tool_results(input))
}

/// Records a decision in `decisions.json` (cap 50, oldest dropped). The same `what` again returns
/// the existing decision.
/// @throws (rejects) `InvalidArg` for an empty `what` or a `when` that is not RFC 3339.
#[napi(catch_unwind, ts_return_type = "Promise<StateDecision>")]
pub fn record_decision(
    #[napi(ts_arg_type = "StateDecisionInput")] input: Value,
) -> AsyncTask<Job<StateDecision>> {
    spawn(move || decision(input))
}

/// Sync twin of `recordDecision`.
#[napi(catch_unwind)]
pub fn record_decision_sync(
    env: Env,
    #[napi(ts_arg_type = "StateDecisionInput")] input: Value,
) -> napi::Result<StateDecision> {
    run(&env, || decision(input))
}

/// Records an open item in `open_items.json` (deduplicated, cap 50). Resolves to the number of
/// open items.
#[napi(catch_unwind, ts_return_type = "Promise<number>")]
pub fn record_open_item(
    #[napi(ts_arg_type = "StateItemInput")] input: Value,
) -> AsyncTask<Job<u32>> {
    spawn(move || {
        let (d, k, t) = item(input)?;
        Ok(core::record_open_item(&d, &k, &t)? as u32)
    })
}

/// Sync twin of `recordOpenItem`.
#[napi(catch_unwind)]
pub fn record_open_item_sync(
    env: Env,
    #[napi(ts_arg_type = "StateItemInput")] input: Value,
) -> napi::Result<u32> {
    run(&env, || {
        let (d, k, t) = item(input)?;
        Ok(core::record_open_item(&d, &k, &t)? as u32)
    })
}

/// Removes an open item (exact text). Resolves to whether it was open.
#[napi(catch_unwind, ts_return_type = "Promise<boolean>")]
pub fn resolve_open_item(
    #[napi(ts_arg_type = "StateItemInput")] input: Value,
) -> AsyncTask<Job<bool>> {
    spawn(move || {
        let (d, k, t) = item(input)?;
        core::resolve_open_item(&d, &k, &t)
    })
}

/// Sync twin of `resolveOpenItem`.
#[napi(catch_unwind)]
pub fn resolve_open_item_sync(
    env: Env,
    #[napi(ts_arg_type = "StateItemInput")] input: Value,
) -> napi::Result<bool> {
    run(&env, || {
        let (d, k, t) = item(input)?;
        core::resolve_open_item(&d, &k, &t)
    })
}

/// Records a learning in `learnings.json` (deduplicated, cap 50). Resolves to the number of learnings.
#[napi(catch_unwind, ts_return_type = "Promise<number>")]
pub fn record_learning(
    #[napi(ts_arg_type = "StateItemInput")] input: Value,
) -> AsyncTask<Job<u32>> {
    spawn(move || {
        let (d, k, t) = item(input)?;
        Ok(core::record_learning(&d, &k, &t)? as u32)
    })
}

/// Sync twin of `recordLearning`.
#[napi(catch_unwind)]
pub fn record_learning_sync(
    env: Env,
    #[napi(ts_arg_type = "StateItemInput")] input: Value,
) -> napi::Result<u32> {
    run(&env, || {
        let (d, k, t) = item(input)?;
        Ok(core::record_learning(&d, &k, &t)? as u32)
    })
}

/// Layer B of seed 001, 7.2, for the host's `context` handler (every LLM call): the topic (last
/// user message with content of its own, 100 chars: never a slash command or a short
/// acknowledgement) and the last 8 exchanges go to `thread.json`; decision-like patterns (a user
/// reply under 50 chars to an agent response over 500 chars that ends with a question) go to
/// `decisions.json` as `"<proposal> (asked: <question>; user: <reply>)"`, each once per session
/// however often the same messages are passed. Structure only: language-agnostic, no LLM.
/// `messages` of 2,048 items or more are serialised 1,024 per event-loop turn and parsed on the pool.
#[napi(catch_unwind, ts_return_type = "Promise<MessagesRecord>")]
pub fn record_messages(
    env: Env,
    #[napi(ts_arg_type = "StateMessagesInput")] input: Unknown,
) -> AsyncTask<Gather<MessagesRecord>> {
    // A long conversation is serialised a slice per event-loop turn (see `offthread`).
    messages_job(&env, input, "messages", messages)
}

/// Sync twin of `recordMessages`.
#[napi(catch_unwind)]
pub fn record_messages_sync(
    env: Env,
    #[napi(ts_arg_type = "StateMessagesInput")] input: Value,
) -> napi::Result<MessagesRecord> {
    run(&env, || messages(input))
}

/// The state the next checkpoint would bundle (state of an earlier process older than the latest
/// checkpoint left out; corrupt files read as empty, left in place for the next write to move
/// aside to `<name>.corrupt-<ms>`). Never writes: a never-used key reads as empty and creates
/// nothing, also on a read-only state dir.
/// @throws (rejects) `UnsafeFile` when a state file is a link, a FIFO or device, or oversized (the
/// next record call moves it aside); `UnsafePath` for a symlinked session directory.
#[napi(catch_unwind, ts_return_type = "Promise<ContextState>")]
pub fn read_context_state(
    #[napi(ts_arg_type = "StateTarget")] target: Value,
) -> AsyncTask<Job<ContextState>> {
    spawn(move || read(target))
}

/// Sync twin of `readContextState`.
#[napi(catch_unwind)]
pub fn read_context_state_sync(
    env: Env,
    #[napi(ts_arg_type = "StateTarget")] target: Value,
) -> napi::Result<ContextState> {
    run(&env, || read(target))
}

/// Empties the session's state files (what a checkpoint does after bundling them); decision ids
/// keep counting.
#[napi(catch_unwind, ts_return_type = "Promise<void>")]
pub fn clear_context_state(
    #[napi(ts_arg_type = "StateTarget")] target: Value,
) -> AsyncTask<Job<()>> {
    spawn(move || clear(target))
}

/// Sync twin of `clearContextState`.
#[napi(catch_unwind)]
pub fn clear_context_state_sync(
    env: Env,
    #[napi(ts_arg_type = "StateTarget")] target: Value,
) -> napi::Result<()> {
    run(&env, || clear(target))
}

/// The user's requests in `messages` (pi agent messages), in order, as the checkpoint reads them:
/// each user message's own words (this package's injections and the host's text removed by the
/// core's rules: OpenClaw's envelope, metadata blocks, heartbeat and startup prompts, Claude
/// Code's tags; credentials redacted), of the messages read as a request (not a slash command,
/// not a short answer or acknowledgement). A restore's `Task:` is one of these. For measures
/// (`npm run eval:restore`) that must compare with what the user asked, not with raw messages.
/// @throws `InvalidArg` when `messages` is not an array.
#[napi(catch_unwind)]
pub fn user_requests(
    env: Env,
    #[napi(ts_arg_type = "unknown[]")] messages: Value,
) -> napi::Result<Vec<String>> {
    run(&env, || {
        let m: Vec<Value> = from_js(messages, "messages")?;
        Ok(core::dialogue::user_requests(&m))
    })
}

/// `text` as a checkpoint, a state file or a restore would hold it: every credential value the
/// core recognises (provider and service tokens, `Authorization` headers, `--token` style flags,
/// `user:pass@` in URLs, `KEY=value` where KEY names a secret, ...) replaced by `[redacted]`, the
/// rest unchanged. For measures (`npm run eval:restore` leaves out of a summary's items those a
/// restore must never carry) and for hosts that show captured text elsewhere.
/// @throws `InvalidArg` when `text` is not a string.
#[napi(strict, catch_unwind)]
pub fn redact_credentials(text: String) -> String {
    core::secrets::redact_owned(text)
}
