//! The model-facing tools over the store, as JSON schemas in seed 003's shape
//! (`{ name, description, parameters }`): `scratchpad_read` (seed 003's modes plus seed 004's names,
//! lines and grep), `scratchpad_write`, `scratchpad_edit`, `scratchpad_list`, `scratchpad_delete`.
//! Their argument names are accepted as is by the store's inputs (`scratchpad_id`, `old_string`, ...).

use serde_json::{json, Value};

/// The names of the tools, in the order [`tool_definitions`] returns them.
pub const TOOL_NAMES: [&str; 5] = [
    "scratchpad_read",
    "scratchpad_write",
    "scratchpad_edit",
    "scratchpad_list",
    "scratchpad_delete",
];

/// The definition of one tool, `None` for an unknown name.
pub fn tool_definition(name: &str) -> Option<Value> {
    Some(match name {
        "scratchpad_read" => json!({
            "name": "scratchpad_read",
            "description": "Reads a scratchpad entry: a large tool result replaced in the conversation by a summary with a 'scratchpad_id', or an entry named with scratchpad_write. Read only what you need: a slice from offset, the start (head), the end (tail), numbered lines, or the lines matching a regex. A partial answer ends with where it sits in the entry.",
            "parameters": {
                "type": "object",
                "properties": {
                    "scratchpad_id": {"type": "string", "description": "The 'scratchpad_id' of a previous observation."},
                    "name": {"type": "string", "description": "The entry name, instead of scratchpad_id. 'history' greps every history entry (the compacted conversation) at once."},
                    "offset": {"type": "integer", "minimum": 0, "description": "Character offset to start reading from (default 0)."},
                    "limit": {"type": "integer", "minimum": 0, "description": "Most characters to return (default 30000)."},
                    "regex": {"type": "string", "description": "Return the lines matching this regex, numbered (max 100)."},
                    "mode": {"type": "string", "enum": ["head", "tail", "range", "lines", "grep", "full"], "description": "Instead of offset/limit/regex: head/tail: first/last n characters (2000); range: characters start..end (end exclusive); lines: lines start..end (1-based, inclusive); grep: lines matching regex; full: everything, small entries only."},
                    "n": {"type": "integer", "minimum": 0, "description": "head/tail: characters; grep: most matches."},
                    "start": {"type": "integer", "minimum": 0, "description": "range: first character; lines: first line."},
                    "end": {"type": "integer", "minimum": 0, "description": "range: end character (exclusive); lines: last line."},
                    "context": {"type": "integer", "minimum": 0, "description": "grep: lines of context around each match (0)."}
                }
            }
        }),
        "scratchpad_write" => json!({
            "name": "scratchpad_write",
            "description": "Stores content in the scratchpad under a name, for later use in this session without keeping it in the conversation. If the name already exists, the content is overwritten.",
            "parameters": {
                "type": "object",
                "required": ["name", "content"],
                "properties": {
                    "name": {"type": "string", "description": "Name for the entry (no '/' or '\\\\')."},
                    "content": {"type": "string", "description": "The content to store."}
                }
            }
        }),
        "scratchpad_edit" => json!({
            "name": "scratchpad_edit",
            "description": "Edits a scratchpad entry in place. Provide content for a full overwrite, or old_string/new_string for a targeted replacement.",
            "parameters": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "description": "The entry name (or its scratchpad_id)."},
                    "content": {"type": "string", "description": "Full replacement (mutually exclusive with old_string/new_string)."},
                    "old_string": {"type": "string", "description": "String to find; it must occur exactly once unless replace_all is true."},
                    "new_string": {"type": "string", "description": "Replacement string."},
                    "replace_all": {"type": "boolean", "default": false, "description": "Replace all occurrences of old_string."}
                }
            }
        }),
        "scratchpad_list" => json!({
            "name": "scratchpad_list",
            "description": "Lists the scratchpad entries with their name, id, size, creation time and expiry.",
            "parameters": {"type": "object", "properties": {}}
        }),
        "scratchpad_delete" => json!({
            "name": "scratchpad_delete",
            "description": "Deletes a scratchpad entry by name (or scratchpad_id).",
            "parameters": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "description": "The entry name to delete."}
                }
            }
        }),
        _ => return None,
    })
}

/// Every tool definition, in [`TOOL_NAMES`] order.
pub fn tool_definitions() -> Vec<Value> {
    TOOL_NAMES
        .iter()
        .map(|n| tool_definition(n).expect("known tool"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_well_formed() {
        for (d, n) in tool_definitions().iter().zip(TOOL_NAMES) {
            assert_eq!(d["name"], n);
            assert_eq!(d["parameters"]["type"], "object");
            assert!(d["description"].as_str().unwrap().len() > 20);
            for r in d["parameters"]["required"].as_array().into_iter().flatten() {
                assert!(d["parameters"]["properties"][r.as_str().unwrap()].is_object());
            }
        }
        let read = tool_definition("scratchpad_read").unwrap();
        let modes = read["parameters"]["properties"]["mode"]["enum"]
            .as_array()
            .unwrap();
        assert_eq!(modes.len(), 6);
        assert!(tool_definition("nope").is_none());
    }
}
