//! The agent's task list, as its task tools keep it: a list given whole with each item's status
//! (a `todos` argument: Claude Code's `TodoWrite`, a todo tool's), or tasks created one by one and
//! updated by id (Claude Code's `TaskCreate` `{subject}`, whose result says `Task #3 created`, and
//! `TaskUpdate` `{taskId, status}`). What is still open is the agent's plan
//! ([`next_action`](super::next_steps::next_action)); what it marked done is its progress, in its
//! own words (`done: Rewrite engine with 4-phase pipeline`, a key exchange beside its commits).

use super::walk::Outcome;
use super::*;

/// Most tasks marked done kept as key exchanges (the newest).
pub const MAX_DONE: usize = 8;
/// How a task marked done reads among the key exchanges.
const DONE: &str = "done: ";

/// One task of the list: its id (when the tool gives one), what it is, and whether it is done.
struct Task {
    id: Option<String>,
    subject: String,
    done: bool,
}

/// A change of the task list at a message: the items still open after it, and those it marked
/// done.
pub(super) struct TaskChange {
    pub at: usize,
    pub open: Vec<String>,
    pub done: Vec<String>,
}

/// True for a status that closes a task.
fn closed(status: &str) -> bool {
    matches!(status, "completed" | "done" | "cancelled" | "deleted")
}

/// The text of a task: its first field that says what it is.
fn subject(item: &Value) -> Option<String> {
    ["content", "subject", "text", "title", "task"]
        .iter()
        .find_map(|k| item.get(*k).and_then(Value::as_str))
        .map(squash)
        .filter(|s| !s.is_empty())
}

/// The id a task tool's result gives the task it created (`Task #3 created successfully: …`).
fn created_id(result: &str) -> Option<String> {
    let rest = result.trim_start().strip_prefix("Task #")?;
    let id: String = rest
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    (!id.is_empty()).then_some(id)
}

/// Every change the agent's task tools made to its task list, in order.
pub(super) fn task_changes(walk: &Walk) -> Vec<TaskChange> {
    let mut list: Vec<Task> = Vec::new();
    let mut out = Vec::new();
    for (at, m) in walk.messages.iter().enumerate() {
        let mut done = Vec::new();
        let mut changed = false;
        if matches!(walk.lines[at], Line::Agent { .. }) {
            for c in &m.calls {
                if let Some(todos) = c.args.get("todos").and_then(Value::as_array) {
                    // the whole list: an item done now that was not before is done at this call
                    let before: HashSet<String> = list
                        .iter()
                        .filter(|t| t.done)
                        .map(|t| t.subject.clone())
                        .collect();
                    list = todos
                        .iter()
                        .filter_map(|t| {
                            let status = t.get("status").and_then(Value::as_str).unwrap_or("");
                            Some(Task {
                                id: None,
                                subject: subject(t)?,
                                done: closed(status),
                            })
                        })
                        .collect();
                    let newly = list
                        .iter()
                        .filter(|t| t.done && !before.contains(&t.subject));
                    done.extend(newly.map(|t| t.subject.clone()));
                    changed = true;
                } else if let Some(id) = c.args.get("taskId").and_then(Value::as_str) {
                    let status = c.args.get("status").and_then(Value::as_str);
                    if let Some(t) = list.iter_mut().find(|t| t.id.as_deref() == Some(id)) {
                        if let Some(s) = c.args.get("subject").and_then(Value::as_str) {
                            t.subject = squash(s);
                        }
                        if let Some(status) = status {
                            if closed(status) && !t.done && status != "deleted" {
                                done.push(t.subject.clone());
                            }
                            t.done = closed(status);
                        }
                        changed = true;
                    }
                }
            }
        }
        // a task created: its id is in the result
        if let Some(Outcome {
            call: Some((name, args)),
            text,
            failure: None,
        }) = &m.result
        {
            if *name == "TaskCreate" {
                if let Some(s) = subject(args) {
                    list.push(Task {
                        id: created_id(text),
                        subject: s,
                        done: false,
                    });
                    changed = true;
                }
            }
        }
        if changed {
            let open = list.iter().filter(|t| !t.done).map(|t| t.subject.clone());
            out.push(TaskChange {
                at,
                open: open.collect(),
                done,
            });
        }
    }
    out
}

/// The tasks the agent marked done, as key exchanges at the message that marked each, oldest
/// first, at most [`MAX_DONE`] (the newest).
pub(super) fn done_tasks(changes: &[TaskChange]) -> Vec<(usize, String)> {
    let all: Vec<(usize, String)> = changes
        .iter()
        .flat_map(|c| c.done.iter().map(|d| (c.at, format!("{DONE}{d}"))))
        .collect();
    let skip = all.len().saturating_sub(MAX_DONE);
    all.into_iter().skip(skip).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thread::goal::tests::user;
    use serde_json::json;

    fn call(id: &str, name: &str, args: Value) -> Value {
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": name, "arguments": args}], "stopReason": "toolUse"})
    }
    fn result(id: &str, name: &str, text: &str) -> Value {
        json!({"role": "toolResult", "toolCallId": id, "toolName": name, "content": [{"type": "text", "text": text}], "isError": false})
    }

    #[test]
    fn tasks_created_and_updated_by_id_say_what_is_open_and_what_was_done() {
        let msgs = vec![
            user("implement the plan"),
            call(
                "a",
                "TaskCreate",
                json!({"subject": "Update shared types", "activeForm": "Updating"}),
            ),
            result(
                "a",
                "TaskCreate",
                "Task #4 created successfully: Update shared types",
            ),
            call("b", "TaskCreate", json!({"subject": "Run tests and lint"})),
            result(
                "b",
                "TaskCreate",
                "Task #5 created successfully: Run tests and lint",
            ),
            call(
                "c",
                "TaskUpdate",
                json!({"taskId": "4", "status": "in_progress"}),
            ),
            result("c", "TaskUpdate", "Updated task #4 status"),
            call(
                "d",
                "TaskUpdate",
                json!({"taskId": "4", "status": "completed"}),
            ),
            result("d", "TaskUpdate", "Updated task #4 status"),
            // an id the list does not hold changes nothing
            call(
                "e",
                "TaskUpdate",
                json!({"taskId": "9", "status": "completed"}),
            ),
        ];
        let changes = task_changes(&Walk::new(&msgs));
        let last = changes.last().unwrap();
        assert_eq!(last.at, 7);
        assert_eq!(last.open, ["Run tests and lint"]);
        assert_eq!(
            done_tasks(&changes),
            [(7, "done: Update shared types".to_string())]
        );
    }

    #[test]
    fn a_list_given_whole_is_done_item_by_item() {
        let todos = |a: &str, b: &str| json!({"todos": [{"content": "Add the parser", "status": a}, {"content": "Write the tests", "status": b}]});
        let msgs = vec![
            user("add the parser"),
            call("a", "TodoWrite", todos("in_progress", "pending")),
            call("b", "TodoWrite", todos("completed", "in_progress")),
            call("c", "TodoWrite", todos("completed", "completed")),
        ];
        let changes = task_changes(&Walk::new(&msgs));
        assert_eq!(changes.len(), 3);
        assert!(changes[2].open.is_empty());
        assert_eq!(
            done_tasks(&changes),
            [
                (2, "done: Add the parser".to_string()),
                (3, "done: Write the tests".to_string())
            ]
        );
    }
}
