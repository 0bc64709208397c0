//! The session scratchpad (seeds 000 and 002): three spaces per session (notes, plan, refs) with
//! character, item and token budgets; the six tool actions; the rendered block the host prepends
//! to every user message (cached); resume from pi session entries; the opt-in nudges; and the
//! tool definition and system-prompt section the host registers. Knows nothing of napi.
//!
//! Characters are UTF-16 code units (JS `string.length`); tokens are o200k_base, counted exactly
//! over the whole rendered block.

mod action;
mod host;
mod nudge;
mod pad;
mod registry;
mod restore;
mod text;

pub use action::{parse_call, Action, Call, ACTION_NAMES, VALID_ACTIONS};
pub use host::{
    is_scratchpad_tool_name, is_valid_tool_name, system_prompt, system_prompt_named,
    tool_definition, tool_definition_named, tool_description, TOOL_NAME, TOOL_NAME_ALIAS,
};
pub use nudge::{looks_like_plan, NudgeEvent, NudgeSettings};
pub use pad::{
    render, Limits, Outcome, PersistData, PersistEntry, Scratchpad, Usage, BLOCK_CLOSE, BLOCK_OPEN,
    DEFAULT_MAX_TOKENS, DEFAULT_NOTES_MAX_CHARS, DEFAULT_PLAN_MAX_CHARS, DEFAULT_REFS_MAX,
    LEGACY_KEY, NOTES_KEY, PLAN_KEY, REFS_KEY, VERSION_KEY,
};
pub use registry::{Registry, MAX_SESSIONS};
pub use restore::{is_scratchpad_key, persisted_version, EntryLike, RestoreReport};
pub use text::{escape_block_lines, truncate_utf16, utf16_len};

impl Scratchpad {
    /// Evaluates one nudge event for this session (seed 002): the `[Hint: ...]` line to prepend
    /// to the next user message, or `None`. Each hint fires once per episode of its condition.
    pub fn nudge(&mut self, event: NudgeEvent<'_>, settings: &NudgeSettings) -> Option<String> {
        let empty = self.is_empty();
        self.nudge.evaluate(event, settings, empty)
    }
}
