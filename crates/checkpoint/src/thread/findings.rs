//! Findings: a failure the agent got past and what fixed it (issue 27, "progress and findings").
//!
//! A command that failed (its result marked as an error) and later succeeded, run again the same
//! way (the key of the state files' failure records,
//! [`failure_key`](context_state::failure_key)), is a finding when the agent changed
//! something in between: `cargo test failed (error[E0308] … code 101); passed later, after
//! changing lexer.rs`. Files it wrote or edited in between say what fixed it; without any, the
//! other commands it ran (`npm install`; not a look-around such as `grep` or `ls`). A retry with
//! nothing in between is no finding; a command failing and fixed twice is one finding (the
//! latest). Structure only: the result's error flag or exit code
//! ([`result_failure`](context_state::result_failure)), the call's arguments, their order.

use super::*;
use context_state::substance::call_subject;

/// Most findings kept from one conversation (the newest).
pub const MAX_FIXES: usize = 3;
/// Characters of the failure's subject (its command) in a finding.
const FIX_SUBJECT_CHARS: usize = 60;
/// Characters of what the failure said in a finding.
const FIX_ERROR_CHARS: usize = 100;
/// Failed commands followed at once (the oldest is let go).
const MAX_OPEN: usize = 20;
/// Files (or commands) named as what fixed it.
const FIX_CAUSES: usize = 3;

/// A failed command not yet run again successfully.
struct Open {
    key: String,
    subject: String,
    error: String,
    files: Vec<String>,
    commands: Vec<String>,
}

/// How the failure entries of the calls the agent made after the user's latest request start
/// ([`context_state::failure_prefix`]); `None` when the messages hold no request (one long turn,
/// or its start compacted away). A failure of an earlier turn is history: that turn ended with
/// the agent's report, and the user has asked something else since.
pub(super) fn turn_calls(walk: &Walk) -> Option<Vec<String>> {
    let at = walk.request?;
    Some(
        walk.calls()
            .filter(|(i, _, _)| *i > at)
            .map(|(_, name, args)| context_state::failure_prefix(name, args))
            .collect(),
    )
}

/// The calls the messages show a result of, each once by how its failure entries start
/// ([`context_state::failure_prefix`]), with whether its latest result succeeded: a failure of
/// that call recorded before them (one the previous checkpoint carried) is resolved, or said
/// again by the newer record.
pub(super) fn latest_results(walk: &Walk) -> Vec<(String, bool)> {
    // each call's latest result, and when it came (a map: a long session has thousands)
    let mut last: HashMap<String, (usize, bool)> = HashMap::new();
    let answered = walk.results().filter_map(|(_, _, r)| Some((r.call?, r)));
    for (n, ((name, args), result)) in answered.enumerate() {
        let key = context_state::failure_prefix(name, args);
        last.insert(key, (n, result.failure.is_none()));
    }
    let mut out: Vec<(usize, String, bool)> =
        last.into_iter().map(|(k, (n, ok))| (n, k, ok)).collect();
    out.sort_unstable_by_key(|&(n, _, _)| n);
    out.into_iter().map(|(_, k, ok)| (k, ok)).collect()
}

/// The findings of the messages, oldest first, at most [`MAX_FIXES`] (the newest).
pub(super) fn fixes(walk: &Walk) -> Vec<String> {
    let mut open: Vec<Open> = Vec::new();
    // (subject, finding)
    let mut out: Vec<(String, String)> = Vec::new();
    // each tool result with the call it answers (a result whose call is not shown is left out)
    let answered = walk.results().filter_map(|(_, _, r)| Some((r.call?, r)));
    for ((name, args), result) in answered {
        let command = args.get("command").and_then(Value::as_str);
        let subject = call_subject(args, context_state::FAILURE_SUBJECT_CHARS);
        let key = context_state::failure_key(name, args);
        if let Some(failure) = &result.failure {
            // only a command's failure can be a finding; a failed edit changed nothing
            if let (Some(_), Some(subject)) = (command, subject) {
                open.retain(|o| o.key != key);
                open.push(Open {
                    key,
                    subject: gist(&subject, FIX_SUBJECT_CHARS),
                    error: gist(&context_state::failure_detail(failure), FIX_ERROR_CHARS),
                    files: Vec::new(),
                    commands: Vec::new(),
                });
                // (bounded: every later result is weighed against each open failure)
                if open.len() > MAX_OPEN {
                    open.remove(0);
                }
            }
            continue;
        }
        if let Some(i) = open.iter().position(|o| o.key == key) {
            let o = open.remove(i);
            let causes = if o.files.is_empty() {
                (!o.commands.is_empty()).then(|| format!("running {}", o.commands.join(", ")))
            } else {
                Some(format!("changing {}", o.files.join(", ")))
            };
            if let Some(causes) = causes {
                let text = format!(
                    "`{}` failed ({}); passed later, after {}",
                    o.subject, o.error, causes
                );
                out.push((o.subject, text));
            }
            continue;
        }
        // what happened in between: the files changed, else the other commands run
        let written = classify_tool(name) == Access::Write;
        for o in open.iter_mut() {
            if written {
                for p in extract_paths(args) {
                    let base = p.rsplit('/').next().unwrap_or(&p).to_string();
                    if o.files.len() < FIX_CAUSES && !o.files.contains(&base) {
                        o.files.push(base);
                    }
                }
            } else if let Some(c) = command
                .and_then(|c| shell_commands(c).into_iter().next())
                .filter(|c| !looks_around(&c.0))
            {
                let c = format!("`{}`", gist(&c.0, FIX_SUBJECT_CHARS));
                if o.commands.len() < FIX_CAUSES && !o.commands.contains(&c) {
                    o.commands.push(c);
                }
            }
        }
    }
    // one finding per command, its latest
    let mut seen: HashSet<&str> = HashSet::new();
    let mut newest: Vec<String> = out
        .iter()
        .rev()
        .filter(|(subject, _)| seen.insert(subject.as_str()))
        .take(MAX_FIXES)
        .map(|(_, text)| text.clone())
        .collect();
    newest.reverse();
    newest
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, name: &str, args: Value) -> Value {
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": name, "arguments": args}]})
    }
    fn result(id: &str, text: &str, error: bool) -> Value {
        json!({"role": "toolResult", "toolCallId": id, "content": [{"type": "text", "text": text}], "isError": error})
    }

    #[test]
    fn a_failure_fixed_by_an_edit_says_what_fixed_it() {
        let messages = vec![
            call(
                "1",
                "bash",
                json!({"command": "cd /repo && cargo test -p lexer 2>&1 | tail -20"}),
            ),
            result(
                "1",
                "running 3 tests\nerror[E0308]: mismatched types\nCommand exited with code 101",
                true,
            ),
            call("2", "read", json!({"path": "/repo/src/lexer.rs"})),
            result("2", "fn main() {}", false),
            call(
                "3",
                "edit",
                json!({"path": "/repo/src/lexer.rs", "oldText": "a", "newText": "b"}),
            ),
            result("3", "Edited", false),
            call("4", "bash", json!({"command": "cargo test -p lexer"})),
            result("4", "test result: ok", false),
        ];
        assert_eq!(
            fixes(&Walk::new(&messages)),
            ["`cargo test -p lexer` failed (error[E0308]: mismatched types … Command exited with code 101); passed later, after changing lexer.rs"]
        );
    }

    #[test]
    fn without_a_change_the_commands_in_between_else_nothing() {
        let messages = vec![
            call("1", "exec", json!({"command": "npm test"})),
            result("1", "Error: Cannot find module 'vitest'", true),
            call(
                "2",
                "exec",
                json!({"command": "npm install 2>&1 | tail -3"}),
            ),
            result("2", "added 120 packages", false),
            call("3", "exec", json!({"command": "npm test"})),
            result("3", "ok", false),
            // a retry with nothing in between is no finding
            call(
                "4",
                "exec",
                json!({"command": "curl -s https://example.com/api"}),
            ),
            result("4", "timeout", true),
            call(
                "5",
                "exec",
                json!({"command": "curl -s https://example.com/api"}),
            ),
            result("5", "{}", false),
            // a failed edit is no command
            call(
                "6",
                "edit",
                json!({"path": "a.ts", "oldText": "x", "newText": "y"}),
            ),
            result("6", "Could not find the text", true),
            call("7", "write", json!({"path": "a.ts", "content": "y"})),
            result("7", "ok", false),
            call(
                "8",
                "edit",
                json!({"path": "a.ts", "oldText": "x", "newText": "y"}),
            ),
            result("8", "ok", false),
        ];
        assert_eq!(
            fixes(&Walk::new(&messages)),
            ["`npm test` failed (Error: Cannot find module 'vitest'); passed later, after running `npm install`"]
        );
    }

    #[test]
    fn still_failing_is_no_finding_and_the_newest_are_kept() {
        let mut messages = vec![
            call("a", "bash", json!({"command": "make"})),
            result("a", "make: *** [all] Error 2", true),
            call("b", "write", json!({"path": "Makefile", "content": "all:"})),
            result("b", "ok", false),
        ];
        assert!(
            fixes(&Walk::new(&messages)).is_empty(),
            "not run again yet: open"
        );
        for i in 0..5 {
            let (f, w, ok) = (format!("f{i}"), format!("w{i}"), format!("o{i}"));
            messages.push(call(
                &f,
                "bash",
                json!({"command": format!("pytest tests/t{i}.py")}),
            ));
            messages.push(result(&f, "1 failed", true));
            messages.push(call(&w, "edit", json!({"path": format!("src/m{i}.py")})));
            messages.push(result(&w, "ok", false));
            messages.push(call(
                &ok,
                "bash",
                json!({"command": format!("pytest tests/t{i}.py")}),
            ));
            messages.push(result(&ok, "1 passed", false));
        }
        let found = fixes(&Walk::new(&messages));
        assert_eq!(found.len(), MAX_FIXES);
        assert!(
            found[0].starts_with(
                "`pytest tests/t2.py` failed (1 failed); passed later, after changing m2.py"
            ),
            "{found:?}"
        );
        assert!(found[2].contains("m4.py"));
        assert!(found.iter().all(|f| !f.contains("make")));
    }

    #[test]
    fn an_exit_code_is_a_failure_as_openclaw_exec_reports_it() {
        // OpenClaw 2026.9.6's exec: a non-zero exit is a completed call, `isError` false
        let exited = |id: &str, text: &str, code: i64| {
            json!({"role": "toolResult", "toolCallId": id, "toolName": "exec", "isError": false,
                "content": [{"type": "text", "text": text}],
                "details": {"status": "completed", "exitCode": code}})
        };
        let messages = vec![
            call("1", "exec", json!({"command": "node check.mjs"})),
            exited("1", "Error: Cannot find module '/w/check.mjs'", 1),
            call("2", "write", json!({"path": "check.mjs", "content": "ok"})),
            result("2", "Successfully wrote 2 bytes to check.mjs", false),
            call("3", "exec", json!({"command": "node check.mjs"})),
            exited("3", "ok", 0),
        ];
        assert_eq!(
            fixes(&Walk::new(&messages)),
            ["`node check.mjs` failed (Error: Cannot find module '/w/check.mjs' … Command exited with code 1); passed later, after changing check.mjs"]
        );
    }

    #[test]
    fn one_finding_per_command_and_no_look_around_as_a_cause() {
        let messages = vec![
            call("1", "bash", json!({"command": "npm run check"})),
            result("1", "error TS2345", true),
            call("2", "bash", json!({"command": "grep -n foo src/a.ts"})),
            result("2", "3: foo", false),
            call("3", "bash", json!({"command": "npm run check"})),
            result("3", "ok", false),
            call("4", "bash", json!({"command": "npm run check"})),
            result("4", "error TS2322", true),
            call("5", "edit", json!({"path": "src/b.ts"})),
            result("5", "ok", false),
            call("6", "bash", json!({"command": "npm run check"})),
            result("6", "ok", false),
        ];
        assert_eq!(
            fixes(&Walk::new(&messages)),
            ["`npm run check` failed (error TS2322); passed later, after changing b.ts"]
        );
    }
}
