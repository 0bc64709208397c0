//! JS surface of checkpoints (seed 001, sections 5, 8.2, 11): `writeCheckpoint` and its sync
//! twin, `readCheckpoint`, `renderCheckpoint`, `checkpointToYaml`, `sessionDirName`.

use crate::error::{from_js, run};
use crate::js::Maybe;
use crate::offthread::{messages_job, Gather};
use crate::tokens::parse_encoding;
use context_checkpoint as core;
use context_fsio::Error;
use napi::bindgen_prelude::{AsyncTask, Unknown};
use napi::Env;
use napi_derive::napi;
use serde::Deserialize;
use std::path::PathBuf;

// ---------------------------------------------------------------------------------------------
// Input

/// `tokenUsage` of a checkpoint input.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsageInput {
    /// Tokens in the context now (`ctx.getContextUsage().tokens`, or an estimate).
    pub input_tokens: u32,
    /// The model's context window (`ctx.getContextUsage().contextWindow`).
    pub context_window: u32,
    /// 0..1 ratio (the SDK's `percent / 100`). @default inputTokens / contextWindow
    pub utilization: Option<f64>,
}

/// A tool call: its name and a short summary of its params.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallInfo {
    /// The tool's name, e.g. `'read'`.
    pub name: String,
    /// A short summary of the params, e.g. `'{"path":"src/main.ts"}'`.
    pub params_summary: Option<String>,
}

/// An open task of the agent's task list, as a checkpoint carries it.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointTask {
    /// The id the task tool gave it (Claude Code's `Task #3`: `'3'`), if it gives one.
    pub id: Option<String>,
    /// What the task is, in the agent's words.
    pub subject: String,
}

/// `working` of a checkpoint input; every field optional.
#[napi(object)]
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkingInput {
    /// What the agent is working on. @default the gist of the last user message with content of
    /// its own (not a slash command or a short acknowledgement), else the state files' topic
    pub topic: Option<String>,
    /// The session's task. @default the previous checkpoint's task, else the first user message
    /// with content of its own (so every later checkpoint still states it)
    pub task: Option<String>,
    /// @default from the messages: tools running or a user message pending = `'in_progress'`,
    /// a final agent reply = `'waiting_for_user'`; without messages `'idle'`
    #[napi(ts_type = "'in_progress' | 'idle' | 'waiting_for_user'")]
    pub status: Option<String>,
    /// The compaction cut a turn in half. @default isSplitTurn, else false
    pub interrupted: Option<bool>,
    /// The call in flight when interrupted. @default the last tool call in `messages` when interrupted
    #[napi(ts_type = "ToolCallInfo | null")]
    pub last_tool_call: Option<ToolCallInfo>,
    /// What the agent should do next. @default the agent's latest plan in `messages`: its last
    /// numbered or todo list, a todo tool's open items, or the scratchpad plan it set
    pub next_action: Option<String>,
}

/// A decision of a checkpoint input.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionInput {
    /// @default `d1`, `d2`, ... (the first not taken)
    pub id: Option<String>,
    /// The decision, e.g. `'User prefers budget options'`.
    pub what: String,
    /// RFC 3339 time it was made.
    pub when: Option<String>,
}

/// `resources` of a checkpoint input: a list left out comes from the state files and messages.
#[napi(object)]
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesInput {
    pub files_read: Option<Vec<String>>,
    pub files_modified: Option<Vec<String>>,
    /// Tool names, deduplicated.
    pub tools_used: Option<Vec<String>>,
}

/// One key exchange of the thread.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyExchange {
    #[napi(ts_type = "'user' | 'agent'")]
    pub role: String,
    /// The first 120 characters of the message.
    pub gist: String,
}

/// `thread` of a checkpoint input.
#[napi(object)]
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadInput {
    /// @default first user message (100 chars) + " ... " + last user message (100 chars)
    pub summary: Option<String>,
    /// @default extracted from `messages` (seed 001, 11.2), else the state files' exchanges
    pub key_exchanges: Option<Vec<KeyExchange>>,
}

/// `CompactionPreparation.fileOps`: merged into `resources`.
#[napi(object)]
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileOps {
    pub read: Option<Vec<String>>,
    pub written: Option<Vec<String>>,
    pub edited: Option<Vec<String>>,
}

/// What the host passes to `writeCheckpoint`. Sections left out come from the messages and the
/// incremental state files (seed 001, section 7), which the checkpoint then resets.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointInput {
    /// The OpenClaw state directory (checkpoints go to `<stateDir>/context/checkpoints/`).
    pub state_dir: String,
    /// The session key, e.g. `'agent:main:telegram:direct:123456'`.
    pub session_key: String,
    #[napi(ts_type = "'auto-80pct' | 'compaction' | 'session-end'")]
    pub trigger: String,
    pub token_usage: TokenUsageInput,
    /// Compactions so far in this session. @default that of the previous checkpoint, else 0
    pub compaction_count: Option<u32>,
    pub session_file: Option<String>,
    pub channel: Option<String>,
    pub agent_id: Option<String>,
    pub working: Option<WorkingInput>,
    pub decisions: Option<Vec<DecisionInput>>,
    pub resources: Option<ResourcesInput>,
    pub thread: Option<ThreadInput>,
    pub open_items: Option<Vec<String>>,
    pub learnings: Option<Vec<String>>,
    /// pi agent messages: topic, summary, key exchanges, status, tools and files are extracted.
    #[napi(ts_type = "unknown[]")]
    pub messages: Option<Vec<serde_json::Value>>,
    /// `CompactionPreparation.isSplitTurn`: the checkpoint is marked interrupted.
    pub is_split_turn: Option<bool>,
    /// `CompactionPreparation.fileOps`.
    pub file_ops: Option<FileOps>,
    /// RFC 3339 time the checkpoint stands for (`meta.created_at`), e.g. the transcript's time
    /// when replaying a session. @default now
    pub created_at: Option<String>,
}

fn enum_arg<T>(
    value: &str,
    what: &str,
    parse: fn(&str) -> Option<T>,
    allowed: &str,
) -> Result<T, Error> {
    parse(value)
        .ok_or_else(|| Error::invalid_arg(format!("{what} must be {allowed}, got {value:?}")))
}

fn tool_call(t: ToolCallInfo) -> core::ToolCall {
    core::ToolCall {
        name: t.name,
        params_summary: t.params_summary,
    }
}

fn exchanges(list: Vec<KeyExchange>, what: &str) -> Result<Vec<core::Exchange>, Error> {
    list.into_iter()
        .map(|e| {
            Ok(core::Exchange {
                role: enum_arg(&e.role, what, core::Role::parse, "'user' or 'agent'")?,
                gist: e.gist,
            })
        })
        .collect()
}

impl CheckpointInput {
    fn into_core(self) -> Result<core::CheckpointInput, Error> {
        let trigger = enum_arg(
            &self.trigger,
            "input.trigger",
            core::Trigger::parse,
            "'auto-80pct', 'compaction' or 'session-end'",
        )?;
        let mut c = core::CheckpointInput::new(
            PathBuf::from(self.state_dir),
            self.session_key,
            trigger,
            self.token_usage.input_tokens.into(),
            self.token_usage.context_window.into(),
        );
        c.utilization = self.token_usage.utilization;
        c.compaction_count = self.compaction_count.map(u64::from);
        c.session_file = self.session_file;
        c.channel = self.channel;
        c.agent_id = self.agent_id;
        c.working = match self.working {
            None => None,
            Some(w) => Some(core::WorkingInput {
                topic: w.topic,
                task: w.task,
                status: match w.status {
                    None => None,
                    Some(s) => Some(enum_arg(
                        &s,
                        "input.working.status",
                        core::Status::parse,
                        "'in_progress', 'idle' or 'waiting_for_user'",
                    )?),
                },
                interrupted: w.interrupted,
                last_tool_call: w.last_tool_call.map(tool_call),
                next_action: w.next_action,
            }),
        };
        c.decisions = self.decisions.map(|d| {
            d.into_iter()
                .map(|d| core::DecisionInput {
                    id: d.id,
                    what: d.what,
                    when: d.when,
                })
                .collect()
        });
        c.resources = self.resources.map(|r| core::ResourcesInput {
            files_read: r.files_read,
            files_modified: r.files_modified,
            tools_used: r.tools_used,
        });
        c.thread = match self.thread {
            None => None,
            Some(t) => Some(core::ThreadInput {
                summary: t.summary,
                key_exchanges: match t.key_exchanges {
                    None => None,
                    Some(k) => Some(exchanges(k, "input.thread.keyExchanges[].role")?),
                },
            }),
        };
        c.open_items = self.open_items;
        c.learnings = self.learnings;
        c.messages = self.messages;
        c.is_split_turn = self.is_split_turn;
        c.created_at = self.created_at;
        c.file_ops = self.file_ops.map(|f| core::FileOps {
            read: f.read.unwrap_or_default(),
            written: f.written.unwrap_or_default(),
            edited: f.edited.unwrap_or_default(),
        });
        Ok(c)
    }
}

// ---------------------------------------------------------------------------------------------
// Output

/// What `writeCheckpoint` did.
#[napi(object)]
pub struct CheckpointWriteResult {
    /// False when skipped as a duplicate of the last checkpoint (`reason: 'dedup'`).
    pub written: bool,
    /// The id written (`cp_001`, ...), or when skipped the id of the last checkpoint.
    pub checkpoint_id: String,
    /// Absolute path of that checkpoint file.
    pub path: String,
    /// `'dedup'`: input tokens moved less than 5% since the last checkpoint (and, for a
    /// `compaction` checkpoint, the compaction count did not change).
    #[napi(ts_type = "'dedup'")]
    pub reason: Option<String>,
    /// Ids deleted by retention (the newest 5 are kept), oldest first.
    pub pruned: Vec<String>,
}

fn write_result(r: core::WriteResult) -> CheckpointWriteResult {
    CheckpointWriteResult {
        written: r.written,
        checkpoint_id: r.checkpoint_id,
        path: r.path.to_string_lossy().into_owned(),
        reason: r.reason.map(str::to_string),
        pruned: r.pruned,
    }
}

/// `meta.tokenUsage` of a checkpoint.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointTokenUsage {
    pub input_tokens: u32,
    pub context_window: u32,
    /// 0..1 ratio.
    pub utilization: f64,
}

/// `meta` of a checkpoint.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointMeta {
    /// `cp_001`, `cp_002`, ...
    pub checkpoint_id: String,
    pub session_key: String,
    pub session_file: Option<String>,
    /// RFC 3339 UTC.
    pub created_at: String,
    #[napi(ts_type = "'auto-80pct' | 'compaction' | 'session-end'")]
    pub trigger: String,
    pub compaction_count: u32,
    pub token_usage: CheckpointTokenUsage,
    /// The checkpoint before this one (a linked list for walking history).
    pub previous_checkpoint: Option<String>,
    pub channel: Option<String>,
    pub agent_id: Option<String>,
}

/// `working` of a checkpoint.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointWorking {
    pub topic: Option<String>,
    /// The session's task (optional field of schema v1).
    #[serde(default)]
    pub task: Option<String>,
    /// The plan the user replaced by a later request (optional field of schema v1); the task is
    /// then that request.
    #[serde(default)]
    pub replaced_task: Option<String>,
    #[napi(ts_type = "'in_progress' | 'idle' | 'waiting_for_user'")]
    pub status: String,
    pub interrupted: bool,
    #[napi(ts_type = "ToolCallInfo | null")]
    pub last_tool_call: Option<ToolCallInfo>,
    pub next_action: Option<String>,
    /// The tasks still open on the agent's task list (optional field of schema v1), carried from
    /// checkpoint to checkpoint until a call of its task tool changes them.
    #[serde(default)]
    pub open_tasks: Option<Vec<CheckpointTask>>,
}

/// A decision of a checkpoint.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointDecision {
    pub id: String,
    pub what: String,
    pub when: Option<String>,
}

/// `resources` of a checkpoint.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointResources {
    pub files_read: Vec<String>,
    pub files_modified: Vec<String>,
    pub tools_used: Vec<String>,
    /// Every file touched, most active first (optional field of schema v1).
    #[serde(default)]
    pub active_files: Option<Vec<String>>,
    /// Code spans the agent kept working with, most used first (optional field of schema v1).
    #[serde(default)]
    pub identifiers: Option<Vec<String>>,
    /// Shell commands the agent ran, most used first (optional field of schema v1).
    #[serde(default)]
    pub commands: Option<Vec<String>>,
    /// The exact values of the latest messages (URLs, paths, ids) that OpenClaw's summary audit
    /// requires in a summary (optional field of schema v1).
    #[serde(default)]
    pub recent_values: Option<Vec<String>>,
    /// Exact values with what the conversation says they are, `role: value` (optional field of
    /// schema v1).
    #[serde(default)]
    pub named_values: Option<Vec<String>>,
}

/// `thread` of a checkpoint.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointThread {
    pub summary: Option<String>,
    pub key_exchanges: Vec<KeyExchange>,
}

/// A checkpoint (schema `openclaw/checkpoint` version 1, seed 001 section 5.3), camelCase.
#[napi(object)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    /// Always `'openclaw/checkpoint'`.
    pub schema: String,
    /// Always 1.
    pub schema_version: u32,
    pub meta: CheckpointMeta,
    pub working: CheckpointWorking,
    pub decisions: Vec<CheckpointDecision>,
    /// The rules and preferences the user stated, in their words, oldest first (optional v1
    /// field: absent when there are none, and in checkpoints written before it existed).
    pub constraints: Option<Vec<String>>,
    pub resources: CheckpointResources,
    pub thread: CheckpointThread,
    pub open_items: Vec<String>,
    pub learnings: Vec<String>,
}

fn clamp(n: u64) -> u32 {
    n.min(u32::MAX as u64) as u32
}

fn some(v: Vec<String>) -> Option<Vec<String>> {
    (!v.is_empty()).then_some(v)
}

fn to_js(cp: core::Checkpoint) -> Checkpoint {
    let m = cp.meta;
    Checkpoint {
        schema: core::SCHEMA.into(),
        schema_version: core::SCHEMA_VERSION as u32,
        meta: CheckpointMeta {
            checkpoint_id: m.checkpoint_id,
            session_key: m.session_key,
            session_file: m.session_file,
            created_at: m.created_at,
            trigger: m.trigger.as_str().into(),
            compaction_count: clamp(m.compaction_count),
            token_usage: CheckpointTokenUsage {
                input_tokens: clamp(m.token_usage.input_tokens),
                context_window: clamp(m.token_usage.context_window),
                utilization: m.token_usage.utilization,
            },
            previous_checkpoint: m.previous_checkpoint,
            channel: m.channel,
            agent_id: m.agent_id,
        },
        working: CheckpointWorking {
            topic: cp.working.topic,
            task: cp.working.task,
            replaced_task: cp.working.replaced_task,
            status: cp.working.status.as_str().into(),
            interrupted: cp.working.interrupted,
            last_tool_call: cp.working.last_tool_call.map(|t| ToolCallInfo {
                name: t.name,
                params_summary: t.params_summary,
            }),
            next_action: cp.working.next_action,
            open_tasks: (!cp.working.open_tasks.is_empty()).then(|| {
                cp.working
                    .open_tasks
                    .into_iter()
                    .map(|t| CheckpointTask {
                        id: t.id,
                        subject: t.subject,
                    })
                    .collect()
            }),
        },
        decisions: cp
            .decisions
            .into_iter()
            .map(|d| CheckpointDecision {
                id: d.id,
                what: d.what,
                when: d.when,
            })
            .collect(),
        constraints: some(cp.constraints),
        resources: CheckpointResources {
            files_read: cp.resources.files_read,
            files_modified: cp.resources.files_modified,
            tools_used: cp.resources.tools_used,
            // optional fields: left out (undefined) when empty, as a v1 checkpoint without them
            active_files: some(cp.resources.active_files),
            identifiers: some(cp.resources.identifiers),
            commands: some(cp.resources.commands),
            recent_values: some(cp.resources.recent_values),
            named_values: some(cp.resources.named_values),
        },
        thread: CheckpointThread {
            summary: cp.thread.summary,
            key_exchanges: cp
                .thread
                .key_exchanges
                .into_iter()
                .map(|e| KeyExchange {
                    role: e.role.as_str().into(),
                    gist: e.gist,
                })
                .collect(),
        },
        open_items: cp.open_items,
        learnings: cp.learnings,
    }
}

fn from_js_checkpoint(cp: Checkpoint) -> Result<core::Checkpoint, Error> {
    let m = cp.meta;
    let w = cp.working;
    Ok(core::Checkpoint {
        meta: core::Meta {
            checkpoint_id: m.checkpoint_id,
            session_key: m.session_key,
            session_file: m.session_file,
            created_at: m.created_at,
            trigger: enum_arg(
                &m.trigger,
                "checkpoint.meta.trigger",
                core::Trigger::parse,
                "'auto-80pct', 'compaction' or 'session-end'",
            )?,
            compaction_count: m.compaction_count.into(),
            token_usage: core::TokenUsage {
                input_tokens: m.token_usage.input_tokens.into(),
                context_window: m.token_usage.context_window.into(),
                utilization: m.token_usage.utilization,
            },
            previous_checkpoint: m.previous_checkpoint,
            channel: m.channel,
            agent_id: m.agent_id,
        },
        working: core::Working {
            topic: w.topic,
            task: w.task,
            replaced_task: w.replaced_task,
            status: enum_arg(
                &w.status,
                "checkpoint.working.status",
                core::Status::parse,
                "'in_progress', 'idle' or 'waiting_for_user'",
            )?,
            interrupted: w.interrupted,
            last_tool_call: w.last_tool_call.map(tool_call),
            next_action: w.next_action,
            open_tasks: w
                .open_tasks
                .unwrap_or_default()
                .into_iter()
                .map(|t| core::Task {
                    id: t.id,
                    subject: t.subject,
                })
                .collect(),
        },
        decisions: cp
            .decisions
            .into_iter()
            .map(|d| core::Decision {
                id: d.id,
                what: d.what,
                when: d.when,
            })
            .collect(),
        constraints: cp.constraints.unwrap_or_default(),
        resources: core::Resources {
            files_read: cp.resources.files_read,
            files_modified: cp.resources.files_modified,
            tools_used: cp.resources.tools_used,
            active_files: cp.resources.active_files.unwrap_or_default(),
            identifiers: cp.resources.identifiers.unwrap_or_default(),
            commands: cp.resources.commands.unwrap_or_default(),
            recent_values: cp.resources.recent_values.unwrap_or_default(),
            named_values: cp.resources.named_values.unwrap_or_default(),
        },
        thread: core::Thread {
            summary: cp.thread.summary,
            key_exchanges: exchanges(
                cp.thread.key_exchanges,
                "checkpoint.thread.keyExchanges[].role",
            )?,
        },
        open_items: cp.open_items,
        learnings: cp.learnings,
    })
}

// ---------------------------------------------------------------------------------------------
// Sources and options

/// Where a checkpoint is read from: a session's newest valid checkpoint, or YAML text.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Source {
    #[serde(rename_all = "camelCase")]
    Session {
        state_dir: String,
        session_key: String,
    },
    Yaml {
        yaml: String,
    },
}

const SOURCE_TS: &str = "{ stateDir: string; sessionKey: string } | { yaml: string }";

/// Loads the checkpoint a source names. Missing or corrupt data gives `None`, never an error;
/// bad arguments and unsafe paths (a symlinked session directory) are errors.
fn load(source: serde_json::Value) -> Result<Option<core::Checkpoint>, Error> {
    load_source(&parse_source(source)?)
}

/// The source a `{ stateDir, sessionKey } | { yaml }` argument names.
fn parse_source(source: serde_json::Value) -> Result<Source, Error> {
    from_js(source, "source").map_err(|_| Error::invalid_arg(format!("source must be {SOURCE_TS}")))
}

/// [`load`] of a parsed source.
fn load_source(source: &Source) -> Result<Option<core::Checkpoint>, Error> {
    match source {
        Source::Yaml { yaml } => Ok(core::from_yaml(yaml).ok()),
        Source::Session {
            state_dir,
            session_key,
        } => {
            if state_dir.is_empty() {
                return Err(Error::invalid_arg(
                    "source.stateDir must be a non-empty path",
                ));
            }
            core::read_latest(std::path::Path::new(state_dir), session_key)
        }
    }
}

/// The named entries the model saved in the session's observation store (seed 004), oldest
/// first: not a parked tool result (it has a tool) nor the package's own entries (its persisted
/// scratchpad and session record, `context-native-*`; the compacted conversation, `history-<n>`,
/// which the restore's own last line names). None for a YAML source, and none when the
/// store cannot be read: the restore is rendered without them rather than not at all. Read after
/// [`load_source`] found a checkpoint (which refuses an empty `stateDir`).
fn saved_entries(source: &Source) -> Vec<core::SavedEntry> {
    let Source::Session {
        state_dir,
        session_key,
    } = source
    else {
        return Vec::new();
    };
    context_offload::list(std::path::Path::new(state_dir), session_key, None, false)
        .map(|entries| {
            entries
                .into_iter()
                .filter(|e| {
                    e.tool_name.is_none()
                        && !e.name.starts_with(context_offload::OWN_ENTRY_PREFIX)
                        && !context_offload::is_history_name(&e.name)
                })
                .map(|e| core::SavedEntry {
                    name: e.name,
                    chars: e.chars,
                    lines: e.lines,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Options of `renderCheckpoint`.
#[napi(object)]
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderCheckpointOptions {
    /// `'post-compaction'` (injected after a compaction) or `'resume'` (a new session for the
    /// same session key). @default 'post-compaction'
    #[napi(ts_type = "'post-compaction' | 'resume'")]
    pub mode: Option<String>,
    /// The restore text never has more tokens than this. @default 800
    pub max_tokens: Option<u32>,
    /// The encoding `maxTokens` is counted in. @default 'o200k_base'
    #[napi(ts_type = "Encoding")]
    pub encoding: Option<String>,
    /// Render as the compaction summary itself (replace mode): every section of OpenClaw's
    /// summary contract (`## Decisions` ... `## Exact identifiers`) is written, an empty one
    /// saying so. Otherwise (the restore follows OpenClaw's own summary, which has them) empty
    /// sections are left out. @default false
    pub as_summary: Option<bool>,
    /// Text the model's context already holds next to the restore: after a compaction in
    /// default mode, OpenClaw's summary (the messages it kept go in `inContextMessages`).
    /// Identifiers and commands it mentions (whole, in any case) are not said again, so the
    /// budget goes to those it lacks. @default undefined (all are said)
    pub in_context: Option<String>,
    /// Messages the model's context holds next to the restore (after a compaction in default
    /// mode, those OpenClaw kept): their text, tool calls' argument values and tool results
    /// count as `inContext` does. @default undefined
    #[napi(ts_type = "unknown[]")]
    pub in_context_messages: Option<Vec<serde_json::Value>>,
}

// ---------------------------------------------------------------------------------------------
// Exports
// ---------------------------------------------------------------------------------------------

/// Writes the next checkpoint of a session, off the main thread: `cp_NNN.yaml` (schema v1) and
/// `_latest.json` under `<stateDir>/context/checkpoints/<sessionDirName(sessionKey)>/`, atomically
/// and durably, under the session lock shared with the state files. Sections the input leaves out
/// come from `messages` and the incremental state files, which are then reset. Skips the write
/// (`written: false, reason: 'dedup'`) when input tokens moved less than 5% since the last
/// checkpoint, unless this is a `compaction` checkpoint whose compaction count changed. Keeps the
/// newest 5 checkpoints. `messages` of 2,048 items or more are serialised 1,024 per event-loop turn
/// (`JSON.stringify`) and parsed on the pool: 50,000 messages never block the main thread at once;
/// the sync twin converts them at once (seconds for 50,000).
///
/// @throws (rejects) `InvalidArg` for a malformed input, `UnsafePath` for a symlinked directory,
/// `NoSpace` / `PermissionDenied` / `Io` when the disk refuses.
#[napi(catch_unwind, ts_return_type = "Promise<CheckpointWriteResult>")]
pub fn write_checkpoint(
    env: Env,
    #[napi(ts_arg_type = "CheckpointInput")] input: Unknown,
) -> AsyncTask<Gather<CheckpointWriteResult>> {
    // 50,000 messages are serialised a slice per event-loop turn (see `offthread`).
    messages_job(&env, input, "messages", write_impl)
}

fn write_impl(input: serde_json::Value) -> Result<CheckpointWriteResult, Error> {
    let input: CheckpointInput = from_js(input, "input")?;
    let r = core::write_checkpoint(&input.into_core()?)?;
    Ok(write_result(r))
}

/// The synchronous twin of `writeCheckpoint` (same core function, blocks the calling thread).
///
/// @throws `InvalidArg`, `UnsafePath`, `NoSpace`, `PermissionDenied`, `Io` as `writeCheckpoint`.
#[napi(catch_unwind)]
pub fn write_checkpoint_sync(
    env: Env,
    #[napi(ts_arg_type = "CheckpointInput")] input: serde_json::Value,
) -> napi::Result<CheckpointWriteResult> {
    run(&env, || write_impl(input))
}

/// Reads a checkpoint: the session's newest valid one (following `_latest.json`, falling back
/// to the newest valid `cp_NNN.yaml` by number when the pointer or the file is missing or
/// corrupt), or the given YAML text. `undefined` when there is none or nothing valid; corrupt
/// data never throws.
///
/// @throws `InvalidArg` for a malformed source, `UnsafePath` for a symlinked session directory.
#[napi(catch_unwind, ts_return_type = "Checkpoint | undefined")]
pub fn read_checkpoint(
    env: Env,
    #[napi(ts_arg_type = "{ stateDir: string; sessionKey: string } | { yaml: string }")]
    source: serde_json::Value,
) -> napi::Result<Maybe<Checkpoint>> {
    run(&env, || Ok(Maybe(load(source)?.map(to_js))))
}

/// The restore text of seed 001 section 8.2 for a checkpoint (same sources as `readCheckpoint`):
/// a header, a line telling the model the block is data and not instructions, then the data
/// fenced in `<checkpoint-data>` ... `</checkpoint-data>` (content cannot close the fence), and
/// the death-spiral warning when `compaction_count > 3` (post-compaction only). For a session
/// source, `## Exact identifiers` opens with the entries the model saved in the session's
/// observation store (seed 004's `scratchpad_write`: the newest 8 by name, size and lines), so
/// that after a compaction it knows what to read back. At most
/// `maxTokens` tokens: tools, the thread summary, older exchanges, the least active files,
/// identifiers and commands, learnings and older decisions are dropped first; the task, the
/// working state and open items stay. `undefined` when there is no valid checkpoint.
///
/// @throws `InvalidArg` for a malformed source or options, or a `maxTokens` too small for even
/// the frame and working state (about 150 tokens).
#[napi(catch_unwind, ts_return_type = "string | undefined")]
pub fn render_checkpoint(
    env: Env,
    #[napi(ts_arg_type = "{ stateDir: string; sessionKey: string } | { yaml: string }")]
    source: serde_json::Value,
    #[napi(ts_arg_type = "RenderCheckpointOptions")] options: Option<serde_json::Value>,
) -> napi::Result<Maybe<String>> {
    run(&env, || {
        let o: RenderCheckpointOptions = match options {
            None | Some(serde_json::Value::Null) => RenderCheckpointOptions::default(),
            Some(v) => from_js(v, "options")?,
        };
        // the kept messages' text joins the text given
        let in_context = match &o.in_context_messages {
            Some(m) => Some(format!(
                "{}\n{}",
                o.in_context.as_deref().unwrap_or_default(),
                core::in_context::messages_text(m)
            )),
            None => o.in_context.clone(),
        };
        let opts = core::RenderOptions {
            mode: match o.mode.as_deref() {
                None => core::Mode::PostCompaction,
                Some(m) => enum_arg(
                    m,
                    "options.mode",
                    core::Mode::parse,
                    "'post-compaction' or 'resume'",
                )?,
            },
            max_tokens: o
                .max_tokens
                .map_or(core::DEFAULT_MAX_TOKENS, |n| n as usize),
            encoding: parse_encoding(o.encoding.as_deref())?,
            as_summary: o.as_summary.unwrap_or(false),
            in_context: in_context.as_deref(),
            saved_entries: &[],
        };
        let source = parse_source(source)?;
        // the store is listed only for a checkpoint to render
        let Some(cp) = load_source(&source)? else {
            return Ok(Maybe(None));
        };
        let saved = saved_entries(&source);
        core::render(
            &cp,
            core::RenderOptions {
                saved_entries: &saved,
                ..opts
            },
        )
        .map(|text| Maybe(Some(text)))
    })
}

/// The YAML of a checkpoint object exactly as `writeCheckpoint` lays it out (schema v1), for
/// hosts that store or diff checkpoints themselves. `readCheckpoint({ yaml })` reads it back.
///
/// @throws `InvalidArg` for a malformed checkpoint object.
#[napi(catch_unwind)]
pub fn checkpoint_to_yaml(
    env: Env,
    #[napi(ts_arg_type = "Checkpoint")] checkpoint: serde_json::Value,
) -> napi::Result<String> {
    run(&env, || {
        let cp: Checkpoint = from_js(checkpoint, "checkpoint")?;
        Ok(core::to_yaml(&from_js_checkpoint(cp)?))
    })
}

/// The directory name of a session key under `context/checkpoints/` and `context/state/`: the
/// seed's sanitising (`[^a-zA-Z0-9._-]` -> `_`, at most 48 characters) plus 16 hex digits of the
/// key's SHA-256, so distinct keys never share a directory (also on case-insensitive file
/// systems), never `.`/`..`, never a Windows reserved name, at most 65 bytes.
///
/// @throws `InvalidArg` for an empty key.
#[napi(strict, catch_unwind)]
pub fn session_dir_name(env: Env, session_key: String) -> napi::Result<String> {
    run(&env, || context_fsio::session_dir_name(&session_key))
}
