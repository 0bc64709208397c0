//! What the host registers once: the `session_scratchpad` tool definition and the system-prompt
//! section (seed 000, updated for the three spaces of seed 002). Both state the session's
//! actual limits, so the model is told the budgets that are enforced.
//!
//! Seed 000 names the tool `session.scratchpad`, which the model providers refuse (Anthropic and
//! OpenAI tool names must match `^[a-zA-Z0-9_-]{1,64}$`). The definition therefore carries
//! `session_scratchpad` by default; [`TOOL_NAME_ALIAS`] (the seed's name) stays accepted wherever a
//! call is read back (transcripts, replays), and a host can register another provider-valid name.

use crate::action::ACTION_NAMES;
use crate::pad::{Limits, BLOCK_CLOSE, BLOCK_OPEN};
use serde_json::{json, Value};

/// The tool name every definition carries by default: seed 000's name made provider-valid.
pub const TOOL_NAME: &str = "session_scratchpad";

/// Seed 000's own name for the tool. Not a valid provider tool name, so no definition carries it;
/// calls recorded under it (older transcripts, hosts that map names) are still scratchpad calls.
pub const TOOL_NAME_ALIAS: &str = "session.scratchpad";

/// The tool-name rule of the model providers (Anthropic, OpenAI): `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether a tool call's name is the scratchpad tool: the default name or seed 000's alias.
pub fn is_scratchpad_tool_name(name: &str) -> bool {
    name == TOOL_NAME || name == TOOL_NAME_ALIAS
}

/// The tool's description for the model.
pub fn tool_description(l: &Limits) -> String {
    format!(
        "Persistent working memory that survives context compaction, in three spaces: notes ({} chars: \
findings, decisions, constraints, partial state), plan ({} chars: the current multi-step plan as a \
concise ordered list) and refs ({} items: file paths, URLs, PR links, identifiers). Non-empty spaces \
are prepended to every message you receive (~{} token budget in total). Actions: set_notes / \
set_plan replace a space (cut to the limit with a warning); append_notes adds a line to notes and is \
rejected if notes would overflow (then rewrite them with set_notes); refs.add adds one ref (the oldest \
is dropped when full); refs.remove removes one by exact match; refs.set replaces all refs.",
        l.notes_max_chars, l.plan_max_chars, l.refs_max, l.max_tokens
    )
}

/// The tool definition: `{ name, description, parameters }`, `parameters` being a JSON Schema
/// object (draft 2020-12 subset every tool-calling API accepts: no `oneOf`).
pub fn tool_definition(l: &Limits) -> Value {
    tool_definition_named(l, TOOL_NAME)
}

/// [`tool_definition`] under another name (the caller checks it with [`is_valid_tool_name`]).
pub fn tool_definition_named(l: &Limits, name: &str) -> Value {
    json!({
        "name": name,
        "description": tool_description(l),
        "parameters": {
            "type": "object",
            "properties": {
                "action": {
                    "type": "string",
                    "enum": ACTION_NAMES,
                    "description": "set_notes, append_notes, set_plan: need `content`. refs.add, refs.remove: \
    need `ref`. refs.set: needs `items`."
                },
                "content": {
                    "type": "string",
                    "description": format!(
                        "The text for set_notes (max {} chars), append_notes (added on a new line) or set_plan (max {} chars). An empty string clears the space.",
                        l.notes_max_chars, l.plan_max_chars
                    )
                },
                "ref": {
                    "type": "string",
                    "minLength": 1,
                    "description": "For refs.add / refs.remove: one file path, URL, PR link or identifier (exact match for remove)."
                },
                "items": {
                    "type": "array",
                    "items": { "type": "string" },
                    "description": format!("For refs.set: the complete list of refs, replacing the current ones (first {} kept).", l.refs_max)
                },
                "expectedVersion": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Optional: the scratchpad version you last saw (shown in every response). If another agent changed the scratchpad since, the call is rejected and nothing changes."
                }
            },
            "required": ["action"],
            "additionalProperties": false
        }
    })
}

/// The system-prompt section (Markdown, starting with `## Session Scratchpad`).
pub fn system_prompt(l: &Limits) -> String {
    system_prompt_named(l, TOOL_NAME)
}

/// [`system_prompt`] naming the tool as the host registered it.
pub fn system_prompt_named(l: &Limits, tool_name: &str) -> String {
    format!(
        "## Session Scratchpad
You have a persistent scratchpad tool ({tool_name}) that survives context compaction. It has three spaces:
- notes ({n} chars): findings, decisions, constraints, partial state.
- plan ({p} chars): the current multi-step plan as a concise ordered list.
- refs ({r} items): file paths, URLs, PR links, identifiers you will need again.
Non-empty spaces are prepended to each message you receive, between \"{BLOCK_OPEN}\" and \"{BLOCK_CLOSE}\". Budget: ~{t} tokens for the whole block.
Actions: set_notes / append_notes (content), set_plan (content), refs.add / refs.remove (ref), refs.set (items).
When to write: form a multi-step plan -> set_plan immediately; discover a key fact (error, config value, root cause) -> append_notes; identify a file or URL you will need again -> refs.add; complete a plan step -> set_plan with the updated status; notes or plan getting full -> set_notes / set_plan with a tighter summary.
Don't write: full file contents, conversation history, speculative ideas, the user's original request.",
        n = l.notes_max_chars,
        p = l.plan_max_chars,
        r = l.refs_max,
        t = l.max_tokens,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definition_lists_the_six_actions_and_the_limits() {
        let l = Limits {
            notes_max_chars: 1234,
            ..Limits::default()
        };
        let d = tool_definition(&l);
        assert_eq!(d["name"], TOOL_NAME);
        assert_eq!(
            d["parameters"]["properties"]["action"]["enum"],
            json!(ACTION_NAMES)
        );
        assert!(d["description"].as_str().unwrap().contains("1234 chars"));
        let p = system_prompt(&l);
        assert!(p.starts_with("## Session Scratchpad\n"));
        assert!(p.contains("notes (1234 chars)") && p.contains("~2000 tokens"));
        assert!(p.contains("(session_scratchpad)"));
        assert!(system_prompt_named(&l, "scratchpad").contains("tool (scratchpad)"));
        assert_eq!(
            tool_definition_named(&l, "notes_tool")["name"],
            "notes_tool"
        );
    }

    #[test]
    fn names_follow_the_provider_rule() {
        assert!(is_valid_tool_name(TOOL_NAME));
        assert!(!is_valid_tool_name(TOOL_NAME_ALIAS));
        assert!(is_valid_tool_name(&"a".repeat(64)));
        for bad in ["", "a b", "tool.x", "é", &"a".repeat(65)] {
            assert!(!is_valid_tool_name(bad), "{bad:?}");
        }
        assert!(is_scratchpad_tool_name(TOOL_NAME) && is_scratchpad_tool_name(TOOL_NAME_ALIAS));
        assert!(!is_scratchpad_tool_name("scratchpad_read"));
    }
}
