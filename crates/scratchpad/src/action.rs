//! Parsing a model's `session_scratchpad` tool call. A malformed call is the model's mistake, not
//! the host's: it becomes a message for the model (listing the valid actions), never an error.

use serde_json::Value;

/// One validated scratchpad action (seed 002).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Replace the notes (truncated to the notes limit and the token budget, with a warning).
    SetNotes(String),
    /// Append to the notes, joined with a newline; rejected when the result would not fit.
    AppendNotes(String),
    /// Replace the plan (truncated to the plan limit and the token budget, with a warning).
    SetPlan(String),
    /// Add one ref; the oldest is dropped when refs are full.
    AddRef(String),
    /// Remove one ref by exact match.
    RemoveRef(String),
    /// Replace all refs with the string items (non-strings dropped, capped to the refs limit).
    SetRefs(Vec<Value>),
}

/// A parsed call: the action and its optional `expectedVersion`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub action: Action,
    pub expected_version: Option<u64>,
}

/// The six action names, in the order the docs list them.
pub const ACTION_NAMES: [&str; 6] = [
    "set_notes",
    "append_notes",
    "set_plan",
    "refs.add",
    "refs.remove",
    "refs.set",
];

/// The reminder appended to every invalid-call message.
pub const VALID_ACTIONS: &str =
    "Valid actions: set_notes {content: string}, append_notes {content: string}, \
set_plan {content: string}, refs.add {ref: non-empty string}, refs.remove {ref: non-empty string}, \
refs.set {items: string[]}; optional expectedVersion: integer.";

fn invalid(what: String) -> String {
    format!("Invalid session_scratchpad call: {what}. Nothing was changed. {VALID_ACTIONS}")
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn string_field(
    obj: &serde_json::Map<String, Value>,
    action: &str,
    field: &str,
    non_empty: bool,
) -> Result<String, String> {
    match obj.get(field) {
        None | Some(Value::Null) => Err(invalid(format!(
            "{action} needs `{field}` (a{} string)",
            if non_empty { " non-empty" } else { "" }
        ))),
        Some(Value::String(s)) if non_empty && s.is_empty() => {
            Err(invalid(format!("{action} needs a non-empty `{field}`")))
        }
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(invalid(format!(
            "`{field}` of {action} must be a string, got {}",
            type_name(other)
        ))),
    }
}

/// Validates a tool call. `Err` carries the message for the model.
pub fn parse_call(value: &Value) -> Result<Call, String> {
    let obj = match value {
        Value::Object(o) => o,
        other => {
            return Err(invalid(format!(
                "the arguments must be an object, got {}",
                type_name(other)
            )))
        }
    };
    let name = match obj.get("action") {
        Some(Value::String(s)) => s.as_str(),
        None | Some(Value::Null) => return Err(invalid("missing `action`".into())),
        Some(other) => {
            return Err(invalid(format!(
                "`action` must be a string, got {}",
                type_name(other)
            )))
        }
    };
    let expected_version = match obj.get("expectedVersion") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(v) => Some(v),
            None => {
                return Err(invalid(format!(
                    "`expectedVersion` must be a non-negative integer, got {n}"
                )))
            }
        },
        Some(other) => {
            return Err(invalid(format!(
                "`expectedVersion` must be an integer, got {}",
                type_name(other)
            )))
        }
    };
    let action = match name {
        "set_notes" => Action::SetNotes(string_field(obj, name, "content", false)?),
        "append_notes" => Action::AppendNotes(string_field(obj, name, "content", true)?),
        "set_plan" => Action::SetPlan(string_field(obj, name, "content", false)?),
        "refs.add" => Action::AddRef(string_field(obj, name, "ref", true)?),
        "refs.remove" => Action::RemoveRef(string_field(obj, name, "ref", true)?),
        "refs.set" => match obj.get("items") {
            Some(Value::Array(items)) => Action::SetRefs(items.clone()),
            None | Some(Value::Null) => {
                return Err(invalid(
                    "refs.set needs `items` (an array of strings)".into(),
                ))
            }
            Some(other) => {
                return Err(invalid(format!(
                    "`items` of refs.set must be an array, got {}",
                    type_name(other)
                )))
            }
        },
        other => {
            let shown: String = other.chars().take(60).collect();
            return Err(invalid(format!("unknown action {shown:?}")));
        }
    };
    Ok(Call {
        action,
        expected_version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_every_action() {
        let c = parse_call(&json!({"action": "set_notes", "content": ""})).unwrap();
        assert_eq!(c.action, Action::SetNotes(String::new()));
        let c = parse_call(&json!({"action": "append_notes", "content": "x"})).unwrap();
        assert_eq!(c.action, Action::AppendNotes("x".into()));
        let c = parse_call(&json!({"action": "set_plan", "content": "p", "expectedVersion": 3}))
            .unwrap();
        assert_eq!(c.action, Action::SetPlan("p".into()));
        assert_eq!(c.expected_version, Some(3));
        let c = parse_call(&json!({"action": "refs.add", "ref": "a"})).unwrap();
        assert_eq!(c.action, Action::AddRef("a".into()));
        let c = parse_call(&json!({"action": "refs.remove", "ref": "a"})).unwrap();
        assert_eq!(c.action, Action::RemoveRef("a".into()));
        let c = parse_call(&json!({"action": "refs.set", "items": ["a", 1]})).unwrap();
        assert_eq!(c.action, Action::SetRefs(vec![json!("a"), json!(1)]));
    }

    #[test]
    fn malformed_calls_become_messages_listing_the_actions() {
        for bad in [
            json!("set_notes"),
            json!({}),
            json!({"action": 5}),
            json!({"action": "delete_all"}),
            json!({"action": "set_notes"}),
            json!({"action": "set_notes", "content": 42}),
            json!({"action": "append_notes", "content": ""}),
            json!({"action": "refs.add", "ref": ""}),
            json!({"action": "refs.set", "items": "a"}),
            json!({"action": "set_plan", "content": "x", "expectedVersion": -1}),
            json!({"action": "set_plan", "content": "x", "expectedVersion": "1"}),
        ] {
            let msg = parse_call(&bad).unwrap_err();
            assert!(msg.contains("Nothing was changed"), "{msg}");
            for name in ACTION_NAMES {
                assert!(msg.contains(name), "{msg} lacks {name}");
            }
        }
    }
}
