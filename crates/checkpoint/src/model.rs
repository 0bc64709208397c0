//! The checkpoint schema v1 of seed 001 section 5.3, as Rust types.

/// The `schema` value of every checkpoint.
pub const SCHEMA: &str = "openclaw/checkpoint";
/// The `schema_version` this crate writes and reads.
pub const SCHEMA_VERSION: i64 = 1;

/// What made the host write a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// The gauge crossed the checkpoint threshold (80%).
    Auto80Pct,
    /// `session_before_compact` in compaction-safeguard.
    Compaction,
    /// The session was reset or a new session started.
    SessionEnd,
}

impl Trigger {
    /// The value on disk and in JS.
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Auto80Pct => "auto-80pct",
            Trigger::Compaction => "compaction",
            Trigger::SessionEnd => "session-end",
        }
    }
    /// Parses the on-disk / JS value.
    pub fn parse(s: &str) -> Option<Trigger> {
        match s {
            "auto-80pct" => Some(Trigger::Auto80Pct),
            "compaction" => Some(Trigger::Compaction),
            "session-end" => Some(Trigger::SessionEnd),
            _ => None,
        }
    }
}

/// What the agent was doing when the checkpoint was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Tools were running or a reply was being produced.
    InProgress,
    /// Nothing going on.
    Idle,
    /// The agent finished its turn and waits for the user.
    WaitingForUser,
}

impl Status {
    /// The value on disk and in JS.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::InProgress => "in_progress",
            Status::Idle => "idle",
            Status::WaitingForUser => "waiting_for_user",
        }
    }
    /// Parses the on-disk / JS value.
    pub fn parse(s: &str) -> Option<Status> {
        match s {
            "in_progress" => Some(Status::InProgress),
            "idle" => Some(Status::Idle),
            "waiting_for_user" => Some(Status::WaitingForUser),
            _ => None,
        }
    }
}

/// Who spoke in a key exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The user.
    User,
    /// The agent (assistant).
    Agent,
}

impl Role {
    /// The value on disk and in JS.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Agent => "agent",
        }
    }
    /// Parses the on-disk / JS value.
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "user" => Some(Role::User),
            "agent" => Some(Role::Agent),
            _ => None,
        }
    }
}

/// `meta.token_usage`.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenUsage {
    /// Tokens in the context when the checkpoint was written.
    pub input_tokens: u64,
    /// The model's context window.
    pub context_window: u64,
    /// 0..1 (may exceed 1 when the provider overshoots).
    pub utilization: f64,
}

/// `meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    pub checkpoint_id: String,
    pub session_key: String,
    pub session_file: Option<String>,
    /// RFC 3339 UTC.
    pub created_at: String,
    pub trigger: Trigger,
    pub compaction_count: u64,
    pub token_usage: TokenUsage,
    pub previous_checkpoint: Option<String>,
    pub channel: Option<String>,
    pub agent_id: Option<String>,
}

/// `working.last_tool_call`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    pub name: String,
    pub params_summary: Option<String>,
}

/// `working`.
#[derive(Debug, Clone, PartialEq)]
pub struct Working {
    /// What the agent is working on now: the latest request with content of its own.
    pub topic: Option<String>,
    /// Optional v1 field (written only when set): the session's task, its first request with
    /// content of its own, carried from checkpoint to checkpoint so later compactions still state it.
    pub task: Option<String>,
    /// Optional v1 field (written only when set): the plan the user replaced, when a later request
    /// changed it (`Actually, don't use SQLite: use PostgreSQL`); the task is then that request.
    pub replaced_task: Option<String>,
    pub status: Status,
    pub interrupted: bool,
    pub last_tool_call: Option<ToolCall>,
    pub next_action: Option<String>,
    /// Optional v1 field (written only when non-empty): the tasks still open on the agent's task
    /// list (its task tool's: `TodoWrite`, OpenClaw's `progress_card`, Claude Code's
    /// `TaskCreate`), carried from checkpoint to checkpoint until a call of the tool changes
    /// them: the plan stays said after a compaction removed the call that set it.
    pub open_tasks: Vec<Task>,
}

/// One open task of `working.open_tasks`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// The id the task tool gave it (Claude Code's `Task #3`), if it gives one.
    pub id: Option<String>,
    /// What the task is, in the agent's words.
    pub subject: String,
}

/// One entry of `decisions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub id: String,
    pub what: String,
    pub when: Option<String>,
}

/// `resources`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Resources {
    pub files_read: Vec<String>,
    pub files_modified: Vec<String>,
    pub tools_used: Vec<String>,
    /// Optional v1 field (written only when non-empty): every file touched, most active first
    /// (changed above read, then by how often and how recently).
    pub active_files: Vec<String>,
    /// Optional v1 field: code spans the agent kept working with, most used first.
    pub identifiers: Vec<String>,
    /// Optional v1 field: shell commands the agent ran, most used first.
    pub commands: Vec<String>,
    /// Optional v1 field: the exact values of the latest messages (URLs, paths, ids), as
    /// OpenClaw's summary audit reads them; a summary (replace mode) must show them.
    pub recent_values: Vec<String>,
    /// Optional v1 field: exact values with what the conversation says they are, `role: value`
    /// (`Skill ID: 61c9999f-…`); the restore shows an identifier so.
    pub named_values: Vec<String>,
}

/// One entry of `thread.key_exchanges`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    pub role: Role,
    pub gist: String,
}

/// `thread`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Thread {
    pub summary: Option<String>,
    pub key_exchanges: Vec<Exchange>,
}

/// A whole checkpoint (schema `openclaw/checkpoint`, version 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    pub meta: Meta,
    pub working: Working,
    pub decisions: Vec<Decision>,
    /// Optional v1 field (written only when non-empty): the rules and preferences the user
    /// stated, in their words, oldest first; carried from checkpoint to checkpoint.
    pub constraints: Vec<String>,
    pub resources: Resources,
    pub thread: Thread,
    pub open_items: Vec<String>,
    pub learnings: Vec<String>,
}
