//! The agent's task list, as its task tools keep it: a list given whole with each item's status
//! (a `todos` argument: Claude Code's `TodoWrite`, a todo tool's; a `plan` of `{step, status}`:
//! OpenClaw's `progress_card`, formerly and in Codex `update_plan`), or tasks created one by one and
//! updated by id (Claude Code's `TaskCreate` `{subject}`, whose result says `Task #3 created`, and
//! `TaskUpdate` `{taskId, status}`). What is still open is the agent's plan
//! ([`next_action`](super::next_steps::next_action)); what it marked done is its progress, in its
//! own words (`done: Rewrite engine with 4-phase pipeline`, a key exchange beside its commits).

use super::walk::Outcome;
use super::*;
use crate::model::Task;

/// Most tasks marked done kept as key exchanges (the newest).
pub const MAX_DONE: usize = 8;
/// The plan tools whose calls carry a status note besides the plan (OpenClaw's
/// `isAgentPlanProgressToolName`).
const PLAN_TOOLS: [&str; 2] = ["progress_card", "update_plan"];
/// How a task marked done reads among the key exchanges.
const DONE: &str = "done: ";

/// One task of the list, and whether it is done.
struct Entry {
    task: Task,
    done: bool,
}

/// A change of the task list at a message: the tasks still open after it, and the subjects of
/// those it marked done.
pub(super) struct TaskChange {
    pub at: usize,
    pub open: Vec<Task>,
    pub done: Vec<String>,
}

/// True for a status that closes a task.
fn closed(status: &str) -> bool {
    matches!(status, "completed" | "done" | "cancelled" | "deleted")
}

/// The text of a task: its first field that says what it is.
fn subject(item: &Value) -> Option<String> {
    ["content", "subject", "step", "text", "title", "task"]
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

/// Every change the agent's task tools made to its task list, in order, each at the result that
/// says the call succeeded (a failed write leaves the list as it was). The list starts as
/// `carried`, the tasks an earlier checkpoint had open: a task created before a compaction is
/// still the one a later update names by its id.
pub(super) fn task_changes(walk: &Walk, carried: &[Task]) -> Vec<TaskChange> {
    let mut list: Vec<Entry> = carried
        .iter()
        .map(|t| Entry {
            task: t.clone(),
            done: false,
        })
        .collect();
    let mut out = Vec::new();
    for (at, _, result) in walk.results() {
        let Outcome {
            call: Some((name, args)),
            text,
            failure: None,
        } = result
        else {
            continue;
        };
        let mut done = Vec::new();
        let whole = ["todos", "plan"]
            .iter()
            .find_map(|k| args.get(*k).and_then(Value::as_array));
        if let Some(items) = whole {
            // the whole list: an item done now that was not before is done at this call
            let before: HashSet<String> = list
                .iter()
                .filter(|t| t.done)
                .map(|t| t.task.subject.clone())
                .collect();
            let given: Vec<Entry> = items
                .iter()
                .filter_map(|t| {
                    let status = t.get("status").and_then(Value::as_str).unwrap_or("");
                    Some(Entry {
                        task: Task {
                            id: None,
                            subject: subject(t)?,
                        },
                        done: closed(status),
                    })
                })
                .collect();
            // (a list of something else, no item of which says a task, is no task list)
            if given.is_empty() && !items.is_empty() {
                continue;
            }
            list = given;
            let newly = list
                .iter()
                .filter(|t| t.done && !before.contains(&t.task.subject));
            done.extend(newly.map(|t| t.task.subject.clone()));
        } else if let Some(id) = args.get("taskId").and_then(Value::as_str) {
            let Some(t) = list.iter_mut().find(|t| t.task.id.as_deref() == Some(id)) else {
                continue;
            };
            if let Some(s) = args.get("subject").and_then(Value::as_str) {
                t.task.subject = squash(s);
            }
            if let Some(status) = args.get("status").and_then(Value::as_str) {
                if closed(status) && !t.done && status != "deleted" {
                    done.push(t.task.subject.clone());
                }
                t.done = closed(status);
            }
        } else if *name == "TaskCreate" {
            // a task created: its id is in the result (the same task again, as a checkpoint that
            // carried it sees its creation, is that task)
            let Some(s) = subject(args) else { continue };
            let task = Task {
                id: created_id(text),
                subject: s,
            };
            list.retain(|t| match (&t.task.id, &task.id) {
                (Some(a), Some(b)) => a != b,
                _ => t.task.subject != task.subject,
            });
            list.push(Entry { task, done: false });
        } else {
            continue;
        }
        let open = list.iter().filter(|t| !t.done).map(|t| t.task.clone());
        out.push(TaskChange {
            at,
            open: open.collect(),
            done,
        });
    }
    out
}

/// The status notes the agent wrote with its plan tool, with the message index of the result that
/// says the write succeeded, in order: the `markdown` of OpenClaw's progress card ("what happened,
/// what is blocked, or what comes next"), its `explanation` in Codex's `update_plan`.
pub(super) fn status_notes<'w>(walk: &'w Walk) -> Vec<Note<'w>> {
    walk.results()
        .filter_map(|(at, _, result)| match result {
            Outcome {
                call: Some((name, args)),
                failure: None,
                ..
            } if PLAN_TOOLS.contains(&name.trim().to_lowercase().as_str()) => {
                ["markdown", "explanation"]
                    .iter()
                    .find_map(|k| args.get(*k).and_then(Value::as_str))
                    .map(|text| Note {
                        at,
                        text,
                        report: true,
                    })
            }
            _ => None,
        })
        .collect()
}

/// The agent's open tasks as its next action (`1. Backfill in batches of 500; 2. Verify the
/// tenant counts`); `None` when none is open.
pub fn open_plan(open: &[Task]) -> Option<String> {
    let subjects: Vec<String> = open.iter().map(|t| t.subject.clone()).collect();
    (!subjects.is_empty()).then(|| plan_text(&subjects))
}

/// True for a key exchange that is a task the agent marked done ([`done_tasks`]).
pub fn is_done_task(e: &Exchange) -> bool {
    e.role == Role::Agent && e.gist.starts_with(DONE)
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

    /// What the open tasks after a change are, in order.
    fn open_subjects(c: &TaskChange) -> Vec<String> {
        c.open.iter().map(|t| t.subject.clone()).collect()
    }

    /// A call and the result that answers it.
    fn called(id: &str, name: &str, args: Value, answer: &str) -> [Value; 2] {
        [
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": name, "arguments": args}], "stopReason": "toolUse"}),
            json!({"role": "toolResult", "toolCallId": id, "toolName": name, "content": [{"type": "text", "text": answer}], "isError": false}),
        ]
    }

    #[test]
    fn tasks_created_and_updated_by_id_say_what_is_open_and_what_was_done() {
        let mut msgs = vec![user("implement the plan")];
        for [call, result] in [
            called(
                "a",
                "TaskCreate",
                json!({"subject": "Update shared types", "activeForm": "Updating"}),
                "Task #4 created successfully: Update shared types",
            ),
            called(
                "b",
                "TaskCreate",
                json!({"subject": "Run tests and lint"}),
                "Task #5 created successfully: Run tests and lint",
            ),
            called(
                "c",
                "TaskUpdate",
                json!({"taskId": "4", "status": "in_progress"}),
                "Updated task #4 status",
            ),
            called(
                "d",
                "TaskUpdate",
                json!({"taskId": "4", "status": "completed"}),
                "Updated task #4 status",
            ),
            // an id the list does not hold changes nothing
            called(
                "e",
                "TaskUpdate",
                json!({"taskId": "9", "status": "completed"}),
                "Task not found",
            ),
        ] {
            msgs.extend([call, result]);
        }
        let changes = task_changes(&Walk::new(&msgs), &[]);
        let last = changes.last().unwrap();
        assert_eq!(last.at, 8);
        assert_eq!(open_subjects(last), ["Run tests and lint"]);
        assert_eq!(
            done_tasks(&changes),
            [(8, "done: Update shared types".to_string())]
        );
    }

    #[test]
    fn a_carried_task_seen_created_again_is_that_task() {
        // the checkpoint at 80 % carried it; the compaction's messages still hold its creation
        let carried = [Task {
            id: Some("4".to_string()),
            subject: "Update shared types".to_string(),
        }];
        let mut msgs = vec![user("implement the plan")];
        msgs.extend(called(
            "a",
            "TaskCreate",
            json!({"subject": "Update shared types"}),
            "Task #4 created successfully: Update shared types",
        ));
        let changes = task_changes(&Walk::new(&msgs), &carried);
        assert_eq!(open_subjects(&changes[0]), ["Update shared types"]);
        assert_eq!(changes[0].open[0].id.as_deref(), Some("4"));
    }

    #[test]
    fn a_list_given_whole_is_done_item_by_item() {
        let todos = |a: &str, b: &str| json!({"todos": [{"content": "Add the parser", "status": a}, {"content": "Write the tests", "status": b}]});
        let mut msgs = vec![user("add the parser")];
        for (id, a, b) in [
            ("a", "in_progress", "pending"),
            ("b", "completed", "in_progress"),
            ("c", "completed", "completed"),
        ] {
            msgs.extend(called(
                id,
                "TodoWrite",
                todos(a, b),
                "Todos have been modified successfully.",
            ));
        }
        let changes = task_changes(&Walk::new(&msgs), &[]);
        assert_eq!(changes.len(), 3);
        assert!(changes[2].open.is_empty());
        assert_eq!(
            done_tasks(&changes),
            [
                (4, "done: Add the parser".to_string()),
                (6, "done: Write the tests".to_string())
            ]
        );
        // OpenClaw's progress card: a plan of steps, replaced whole at each call
        let card = json!({"plan": [
            {"step": "Inspect the failing route", "status": "completed"},
            {"step": "Repair the session owner", "status": "in_progress"},
            {"step": "Run focused verification", "status": "pending"}],
            "markdown": "The failure is isolated to session ownership."});
        let mut msgs = vec![user("fix the route")];
        msgs.extend(called(
            "a",
            "progress_card",
            card,
            "Progress card updated (rev 1, 1/3 done)",
        ));
        let carded = task_changes(&Walk::new(&msgs), &[]);
        assert_eq!(
            open_subjects(&carded[0]),
            ["Repair the session owner", "Run focused verification"]
        );
        assert_eq!(carded[0].done, ["Inspect the failing route"]);
        // a `plan` argument of something else (no item says a task) changes no list
        msgs.extend(called(
            "b",
            "deploy",
            json!({"plan": ["blue", "green"]}),
            "ok",
        ));
        assert_eq!(task_changes(&Walk::new(&msgs), &[]).len(), 1);
        // and its note is the agent's status report
        assert_eq!(
            status_notes(&Walk::new(&msgs)),
            [Note {
                at: 2,
                text: "The failure is isolated to session ownership.",
                report: true
            }]
        );
    }
}
