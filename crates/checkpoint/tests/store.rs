//! Checkpoint files on disk: ids, chain, pointer, retention, dedup, fallback, temp sweep,
//! permissions, concurrency, and the bundling of the incremental state.

use context_checkpoint::*;
use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cp-store-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn dir_of(state: &Path, key: &str) -> PathBuf {
    state
        .join("context/checkpoints")
        .join(context_fsio::session_dir_name(key).unwrap())
}

fn ids_on_disk(dir: &Path) -> Vec<String> {
    store::list(dir)
        .unwrap()
        .into_iter()
        .map(|(_, id)| id)
        .collect()
}

fn input(state: &Path, key: &str, tokens: u64) -> CheckpointInput {
    CheckpointInput::new(state, key, Trigger::Auto80Pct, tokens, 200_000)
}

/// The input of the `count`th compaction's checkpoint, written from `messages`.
fn compaction(
    state: &Path,
    key: &str,
    tokens: u64,
    count: u64,
    messages: Vec<Value>,
) -> CheckpointInput {
    let mut i = input(state, key, tokens);
    i.trigger = Trigger::Compaction;
    i.compaction_count = Some(count);
    i.messages = Some(messages);
    i
}

/// A user's message and the agent's reply of text.
fn said(user: &str, agent: &str) -> Vec<Value> {
    vec![
        json!({"role": "user", "content": user}),
        json!({"role": "assistant", "content": [{"type": "text", "text": agent}]}),
    ]
}

/// Records a failed `exec` of `command` in the session's state, as the plugin's hook does.
fn exec_failed(state: &Path, key: &str, command: &str, error: &str) {
    context_state::record_tool_result(
        state,
        key,
        &context_state::ToolResult {
            tool_name: "exec".into(),
            params: json!({ "command": command }),
            is_error: true,
            error: Some(error.into()),
            ..Default::default()
        },
    )
    .unwrap();
}

fn pointer(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(dir.join(LATEST_FILE)).unwrap()).unwrap()
}

#[test]
fn ids_chain_pointer_and_retention() {
    let state = tmp("chain");
    let key = "telegram:user123";
    let mut tokens = 100_000u64;
    let mut all_pruned = Vec::new();
    for i in 1..=12u64 {
        let r = write_checkpoint(&input(&state, key, tokens)).unwrap();
        assert!(r.written);
        assert_eq!(r.checkpoint_id, format!("cp_{i:03}"));
        assert!(r.path.ends_with(format!("cp_{i:03}.yaml")));
        all_pruned.extend(r.pruned);
        tokens = tokens * 11 / 10;
    }
    let dir = dir_of(&state, key);
    assert_eq!(
        ids_on_disk(&dir),
        ["cp_008", "cp_009", "cp_010", "cp_011", "cp_012"]
    );
    let expected: Vec<String> = (1..=7).map(checkpoint_id).collect();
    assert_eq!(all_pruned, expected);
    let p = pointer(&dir);
    assert_eq!(p["checkpoint_id"], "cp_012");
    assert_eq!(
        p["path"],
        dir.join("cp_012.yaml").to_string_lossy().as_ref()
    );
    for n in 8..=12 {
        let cp = store::load(&dir, &checkpoint_id(n)).unwrap();
        assert_eq!(cp.meta.checkpoint_id, checkpoint_id(n));
        assert_eq!(cp.meta.previous_checkpoint, Some(checkpoint_id(n - 1)));
        assert_eq!(cp.meta.session_key, key);
    }
    let first = write_checkpoint(&input(&state, "other", 1000)).unwrap();
    assert_eq!(first.checkpoint_id, "cp_001");
    let cp = read_latest(&state, "other").unwrap().unwrap();
    assert_eq!(cp.meta.previous_checkpoint, None);
    assert_eq!(cp.meta.trigger, Trigger::Auto80Pct);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("cp_012.yaml")), 0o600);
        assert_eq!(mode(&dir.join(LATEST_FILE)), 0o600);
    }
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn numbers_order_ids_past_999() {
    let state = tmp("k");
    let key = "k";
    write_checkpoint(&input(&state, key, 1000)).unwrap();
    let dir = dir_of(&state, key);
    let yaml = fs::read_to_string(dir.join("cp_001.yaml")).unwrap();
    for n in [2u64, 10, 99, 998, 999] {
        let y = yaml.replace("\"cp_001\"", &format!("\"{}\"", checkpoint_id(n)));
        fs::write(dir.join(format!("{}.yaml", checkpoint_id(n))), y).unwrap();
    }
    fs::remove_file(dir.join(LATEST_FILE)).unwrap();
    // without a pointer, the newest by number (not by name) is the latest
    assert_eq!(
        read_latest(&state, key)
            .unwrap()
            .unwrap()
            .meta
            .checkpoint_id,
        "cp_999"
    );
    let r = write_checkpoint(&input(&state, key, 5000)).unwrap();
    assert_eq!(r.checkpoint_id, "cp_1000");
    assert_eq!(r.pruned, ["cp_001", "cp_002"]);
    let r = write_checkpoint(&input(&state, key, 9000)).unwrap();
    assert_eq!(r.checkpoint_id, "cp_1001");
    assert_eq!(r.pruned, ["cp_010"]);
    assert_eq!(
        ids_on_disk(&dir),
        ["cp_099", "cp_998", "cp_999", "cp_1000", "cp_1001"]
    );
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert_eq!(cp.meta.previous_checkpoint.as_deref(), Some("cp_1000"));
    assert_eq!(parse_id("cp_1000"), Some(1000));
    assert_eq!(parse_id("cp_x"), None);
    assert_eq!(parse_id("cp_"), None);
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn dedup_under_five_percent_except_a_new_compaction() {
    let state = tmp("dedup");
    let key = "k";
    let a = write_checkpoint(&input(&state, key, 100_000)).unwrap();
    let b = write_checkpoint(&input(&state, key, 104_999)).unwrap();
    assert!(!b.written);
    assert_eq!(b.reason, Some("dedup"));
    assert_eq!(b.checkpoint_id, a.checkpoint_id);
    assert_eq!(b.path, a.path);
    let b = write_checkpoint(&input(&state, key, 95_001)).unwrap();
    assert!(!b.written, "a drop under 5% is a duplicate too");
    let c = write_checkpoint(&input(&state, key, 105_000)).unwrap();
    assert!(c.written && c.checkpoint_id == "cp_002");
    // compaction with the same count: dedup applies
    let mut same = input(&state, key, 106_000);
    same.trigger = Trigger::Compaction;
    assert!(!write_checkpoint(&same).unwrap().written);
    // compaction whose count changed: always written, even with equal tokens
    let mut comp = same.clone();
    comp.compaction_count = Some(1);
    let d = write_checkpoint(&comp).unwrap();
    assert!(d.written && d.checkpoint_id == "cp_003");
    assert!(!write_checkpoint(&comp).unwrap().written);
    // the count is inherited when left out
    let e = write_checkpoint(&input(&state, key, 200_000)).unwrap();
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert_eq!(
        (e.checkpoint_id.as_str(), cp.meta.compaction_count),
        ("cp_004", 1)
    );
    assert_eq!(cp.meta.token_usage.utilization, 1.0);
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn corrupt_pointer_or_files_fall_back_to_the_newest_valid() {
    let state = tmp("corrupt");
    let key = "k";
    for t in [10_000, 20_000, 30_000] {
        write_checkpoint(&input(&state, key, t)).unwrap();
    }
    let dir = dir_of(&state, key);
    let latest = |s: &Path| read_latest(s, key).unwrap().map(|c| c.meta.checkpoint_id);
    fs::write(dir.join(LATEST_FILE), "{not json").unwrap();
    assert_eq!(latest(&state).as_deref(), Some("cp_003"));
    fs::write(
        dir.join(LATEST_FILE),
        r#"{"checkpoint_id":"../../etc/passwd"}"#,
    )
    .unwrap();
    assert_eq!(latest(&state).as_deref(), Some("cp_003"));
    fs::write(dir.join("cp_003.yaml"), "schema: [oops").unwrap();
    assert_eq!(latest(&state).as_deref(), Some("cp_002"));
    fs::write(dir.join("cp_002.yaml"), b"\xff\xfe garbage").unwrap();
    assert_eq!(latest(&state).as_deref(), Some("cp_001"));
    // a write after corruption: a fresh number, chained to the newest valid one
    let r = write_checkpoint(&input(&state, key, 50_000)).unwrap();
    assert_eq!(r.checkpoint_id, "cp_004");
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert_eq!(cp.meta.previous_checkpoint.as_deref(), Some("cp_001"));
    for id in ["cp_001", "cp_004"] {
        fs::write(dir.join(format!("{id}.yaml")), "").unwrap();
    }
    fs::write(dir.join("cp_003.yaml"), "").unwrap();
    assert_eq!(latest(&state), None);
    assert_eq!(read_latest(&state, "never-written").unwrap(), None);
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn no_temp_file_outlives_a_later_write() {
    let state = tmp("sweep");
    write_checkpoint(&input(&state, "k", 1000)).unwrap();
    let dir = dir_of(&state, "k");
    fs::write(dir.join(".tmp-cp_002.yaml-999-1"), "torn").unwrap();
    fs::write(dir.join(".tmp-_latest.json-999-2"), "torn").unwrap();
    write_checkpoint(&input(&state, "k", 2000)).unwrap();
    let names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with(".tmp-")), "{names:?}");
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn concurrent_writers_get_unique_ids_and_exact_retention() {
    let state = tmp("threads");
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            let state = state.clone();
            std::thread::spawn(move || {
                (0..10u64)
                    .map(|i| {
                        let mut inp = input(&state, "shared", 150_000);
                        inp.trigger = Trigger::Compaction;
                        inp.compaction_count = Some(t * 100 + i + 1);
                        write_checkpoint(&inp).unwrap().checkpoint_id
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut ids: Vec<u64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .map(|id| parse_id(&id).unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, (1..=40).collect::<Vec<_>>());
    let dir = dir_of(&state, "shared");
    assert_eq!(
        ids_on_disk(&dir),
        (36..=40).map(checkpoint_id).collect::<Vec<_>>()
    );
    assert_eq!(pointer(&dir)["checkpoint_id"], "cp_040");
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn state_fills_what_the_input_leaves_out_then_is_reset() {
    let state = tmp("state");
    let key = "agent:main:telegram:direct:1";
    context_state::record_tool_result(
        &state,
        key,
        &context_state::ToolResult {
            tool_name: "read".into(),
            params: json!({"path": "notes/plan.md"}),
            ..Default::default()
        },
    )
    .unwrap();
    context_state::record_tool_result(
        &state,
        key,
        &context_state::ToolResult {
            tool_name: "bash".into(),
            params: json!({"command": "make"}),
            is_error: true,
            error: Some("exit 2".into()),
            ..Default::default()
        },
    )
    .unwrap();
    context_state::record_decision(&state, key, "Use SQLite for storage", None).unwrap();
    context_state::record_open_item(&state, key, "Ask about the deadline").unwrap();
    context_state::record_learning(&state, key, "User prefers short answers").unwrap();

    let mut inp = input(&state, key, 120_000);
    inp.learnings = Some(vec!["given by the host".into()]);
    inp.file_ops = Some(FileOps {
        read: vec!["README.md".into()],
        written: vec!["out.txt".into()],
        edited: vec!["src/lib.rs".into()],
    });
    inp.is_split_turn = Some(true);
    inp.messages = Some(vec![
        json!({"role": "user", "content": "Please set up the database layer"}),
        json!({"role": "assistant", "content": [
            {"type": "toolCall", "id": "2", "name": "bash", "arguments": {"command": "make"}},
            {"type": "toolCall", "id": "1", "name": "write", "arguments": {"path": "db.rs", "content": "x"}}
        ]}),
    ]);
    write_checkpoint(&inp).unwrap();
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert_eq!(cp.decisions.len(), 1);
    assert_eq!(cp.decisions[0].what, "Use SQLite for storage");
    assert_eq!(cp.decisions[0].id, "d1");
    assert_eq!(cp.resources.files_read, ["notes/plan.md", "README.md"]);
    assert_eq!(
        cp.resources.files_modified,
        ["db.rs", "out.txt", "src/lib.rs"]
    );
    assert_eq!(cp.resources.tools_used, ["read", "bash", "write"]);
    assert_eq!(cp.open_items[0], "Ask about the deadline");
    assert!(
        cp.open_items[1].starts_with("Unresolved tool failure: ")
            && cp.open_items[1].contains("exit 2"),
        "{:?}",
        cp.open_items
    );
    assert_eq!(cp.learnings, ["given by the host"]);
    assert_eq!(
        cp.working.topic.as_deref(),
        Some("Please set up the database layer")
    );
    assert!(cp.working.interrupted);
    assert_eq!(cp.working.status, Status::InProgress);
    assert_eq!(cp.working.last_tool_call.as_ref().unwrap().name, "write");
    // bundled state is reset; the next checkpoint starts from empty files
    assert!(context_state::read_state(&state, key).unwrap().is_empty());
    let mut next = input(&state, key, 180_000);
    next.open_items = None;
    write_checkpoint(&next).unwrap();
    let cp2 = read_latest(&state, key).unwrap().unwrap();
    // (the tool failure stays open: nothing settled it; the host's open item was the host's)
    assert!(cp2.decisions.is_empty());
    assert_eq!(cp2.open_items, cp.open_items[1..]);
    // a learning is carried from checkpoint to checkpoint, as the constraints are
    assert_eq!(cp2.learnings, ["given by the host"]);
    assert_eq!(cp2.meta.previous_checkpoint.as_deref(), Some("cp_001"));
    // a dedup skip leaves the state for the next checkpoint
    context_state::record_open_item(&state, key, "still open").unwrap();
    assert!(
        !write_checkpoint(&input(&state, key, 181_000))
            .unwrap()
            .written
    );
    assert_eq!(
        context_state::read_state(&state, key).unwrap().open_items,
        ["still open"]
    );
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn a_failure_of_a_turn_before_the_latest_request_is_no_open_item() {
    let state = tmp("turns");
    let key = "agent:main:feishu:direct:1";
    let fail = |command: &str| exec_failed(&state, key, command, "zip warning: name not matched");
    fail("zip -r skill.zip skill");
    fail("npm test");
    let call = |id: &str, command: &str| json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "exec", "arguments": {"command": command}}]});
    let mut inp = input(&state, key, 120_000);
    inp.open_items = None;
    inp.messages = Some(vec![
        json!({"role": "user", "content": "package the skill and upload it"}),
        call("1", "zip -r skill.zip skill"),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Packaged it another way and uploaded version 4.7.3."}]}),
        json!({"role": "user", "content": "now run the test suite again please"}),
        call("2", "npm test"),
    ]);
    write_checkpoint(&inp).unwrap();
    let cp = read_latest(&state, key).unwrap().unwrap();
    let failures: Vec<&String> = cp
        .open_items
        .iter()
        .filter(|i| i.starts_with("Unresolved tool failure: "))
        .collect();
    // the zip of the finished turn is history; the test run of the current one is open
    assert_eq!(failures.len(), 1, "{:?}", cp.open_items);
    assert!(failures[0].contains("exec npm test"), "{failures:?}");

    // messages without a request (one long turn, its start compacted away) keep every failure
    fail("zip -r skill.zip skill");
    fail("npm test");
    let mut inp = input(&state, key, 180_000);
    inp.open_items = None;
    inp.messages = Some(vec![call("3", "ls")]);
    write_checkpoint(&inp).unwrap();
    let cp = read_latest(&state, key).unwrap().unwrap();
    let failures = cp
        .open_items
        .iter()
        .filter(|i| i.starts_with("Unresolved tool failure: "))
        .count();
    assert_eq!(failures, 2, "{:?}", cp.open_items);
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn a_failure_before_the_checkpoint_at_80_percent_stays_open_until_it_is_settled() {
    // seed 001, 7.3: the compaction's checkpoint updates the one at 80 %; the state files were
    // emptied when that one was written, so a failure recorded before it is only there
    let state = tmp("carried-failures");
    let key = "agent:main:discord:channel:1";
    let fail = |command: &str, error: &str| exec_failed(&state, key, command, error);
    let gmail = "gog gmail search is:unread --max 5";
    fail(gmail, "invalid_grant: Token has been expired or revoked.");
    fail(
        "git push",
        "fatal: The current branch has no upstream branch.",
    );
    let call = |id: &str, command: &str| json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "exec", "arguments": {"command": command}}]});
    let result = |id: &str, ok: bool| json!({"role": "toolResult", "toolCallId": id, "toolName": "exec", "isError": !ok, "content": [{"type": "text", "text": if ok { "done" } else { "failed" }}]});
    let failures = |messages: Vec<Value>, trigger: Trigger, tokens: u64| -> Vec<String> {
        let mut inp = input(&state, key, tokens);
        inp.trigger = trigger;
        inp.open_items = None;
        inp.messages = Some(messages);
        write_checkpoint(&inp).unwrap();
        let cp = read_latest(&state, key).unwrap().unwrap();
        cp.open_items
            .into_iter()
            .filter(|i| i.starts_with("Unresolved tool failure: "))
            .collect()
    };
    // the checkpoint at 80 % bundles both
    let at_80 = failures(
        vec![call("1", "ls"), result("1", true)],
        Trigger::Auto80Pct,
        160_000,
    );
    assert_eq!(at_80.len(), 2, "{at_80:?}");
    // the compaction's keeps them: nothing in its messages settled them
    let compaction = failures(
        vec![call("2", "date"), result("2", true)],
        Trigger::Compaction,
        185_000,
    );
    assert_eq!(compaction, at_80);
    assert!(compaction[0].contains("invalid_grant"), "{compaction:?}");
    // a push widened (`-u origin main`) settles the push; the mail search failing on is open
    let later = failures(
        vec![
            call("3", gmail),
            result("3", false),
            call("4", "git push -u origin main"),
            result("4", true),
        ],
        Trigger::Auto80Pct,
        60_000,
    );
    assert_eq!(later.len(), 1, "{later:?}");
    assert!(later[0].contains("gog gmail search"), "{later:?}");
    // the same call succeeding settles it
    let settled = failures(
        vec![call("5", gmail), result("5", true)],
        Trigger::Auto80Pct,
        90_000,
    );
    assert!(settled.is_empty(), "{settled:?}");
    // a failed edit is settled by the file written whole, whatever the tool
    context_state::record_tool_result(
        &state,
        key,
        &context_state::ToolResult {
            tool_name: "edit".into(),
            params: json!({ "path": "memory/state.json", "oldText": "a", "newText": "b" }),
            is_error: true,
            error: Some("Could not find the exact text in memory/state.json".into()),
            ..Default::default()
        },
    )
    .unwrap();
    let edit = failures(
        vec![call("6", "ls"), result("6", true)],
        Trigger::Auto80Pct,
        120_000,
    );
    assert_eq!(edit.len(), 1, "{edit:?}");
    let write = json!({"role": "assistant", "content": [{"type": "toolCall", "id": "7", "name": "write", "arguments": {"path": "memory/state.json", "content": "{}"}}]});
    let written = json!({"role": "toolResult", "toolCallId": "7", "toolName": "write", "content": [{"type": "text", "text": "ok"}]});
    let settled = failures(vec![write, written], Trigger::Auto80Pct, 150_000);
    assert!(settled.is_empty(), "{settled:?}");
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn input_is_validated() {
    let state = tmp("valid");
    let mut bad = input(&state, "k", 1);
    bad.context_window = 0;
    assert_eq!(
        write_checkpoint(&bad).unwrap_err().code,
        context_fsio::ErrorCode::InvalidArg
    );
    let mut bad = input(&state, "k", 1);
    bad.utilization = Some(f64::NAN);
    assert_eq!(
        write_checkpoint(&bad).unwrap_err().code,
        context_fsio::ErrorCode::InvalidArg
    );
    let bad = input(&state, "", 1);
    assert_eq!(
        write_checkpoint(&bad).unwrap_err().code,
        context_fsio::ErrorCode::InvalidArg
    );
    let _ = fs::remove_dir_all(&state);
}

#[test]
fn the_task_is_not_carried_over_a_pause_of_a_sitting() {
    // a chat on a channel: the user came back the next morning for something else
    let state = tmp("task-sitting");
    let key = "k";
    let mut first = input(&state, key, 100_000);
    first.created_at = Some("2026-04-10T15:10:00Z".into());
    first.messages = Some(vec![
        json!({"role": "user", "content": "Change the review cron job to run at 11 every day", "timestamp": 1_775_833_200_000u64}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Done: the job runs at 11:00."}]}),
    ]);
    write_checkpoint(&first).unwrap();
    assert_eq!(
        read_latest(&state, key)
            .unwrap()
            .unwrap()
            .working
            .task
            .as_deref(),
        Some("Change the review cron job to run at 11 every day")
    );
    // the next checkpoint's messages start nine hours after the first one was written
    let mut second = input(&state, key, 180_000);
    second.trigger = Trigger::Compaction;
    second.compaction_count = Some(1);
    second.messages = Some(vec![
        json!({"role": "compactionSummary", "summary": "..."}),
        json!({"role": "user", "content": "Read the unread forum messages and list the upgrade ideas", "timestamp": 1_775_866_200_000u64}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Reading them."}, {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "curl -s https://forum.example/api/unread"}}]}),
    ]);
    write_checkpoint(&second).unwrap();
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert_eq!(
        cp.working.task.as_deref(),
        Some("Read the unread forum messages and list the upgrade ideas")
    );
    // within the sitting, the task is carried as before
    let mut third = input(&state, key, 190_000);
    third.messages = Some(vec![
        json!({"role": "user", "content": "now post the summary to the team channel", "timestamp": 1_775_867_000_000u64}),
    ]);
    write_checkpoint(&third).unwrap();
    assert_eq!(
        read_latest(&state, key)
            .unwrap()
            .unwrap()
            .working
            .task
            .as_deref(),
        Some("Read the unread forum messages and list the upgrade ideas")
    );
    let _ = fs::remove_dir_all(&state);
}

/// A checkpoint of `before`, then the compaction checkpoint of `after` (the messages left once
/// the first request was compacted away).
fn before_and_after_a_compaction(state: &Path, key: &str, before: Vec<Value>, after: Vec<Value>) {
    let mut first = input(state, key, 100_000);
    first.messages = Some(before);
    write_checkpoint(&first).unwrap();
    let mut second = input(state, key, 180_000);
    second.trigger = Trigger::Compaction;
    second.compaction_count = Some(1);
    second.messages = Some(after);
    write_checkpoint(&second).unwrap();
}

#[test]
fn a_change_of_plan_after_a_compaction_replaces_the_carried_task() {
    let state = tmp("task-changed");
    let key = "k";
    // the first request is gone from the messages after the compaction; the change of plan is in them
    before_and_after_a_compaction(
        &state,
        key,
        vec![
            json!({"role": "user", "content": "Build the notes API with Express and store the notes in SQLite"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "The SQLite schema is in place."}]}),
        ],
        vec![
            json!({"role": "compactionSummary", "summary": "..."}),
            json!({"role": "user", "content": "Actually, don't use SQLite: store the notes in PostgreSQL instead."}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Switching to PostgreSQL."}]}),
        ],
    );
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert_eq!(
        cp.working.task.as_deref(),
        Some("Actually, don't use SQLite: store the notes in PostgreSQL instead.")
    );
    assert_eq!(
        cp.working.replaced_task.as_deref(),
        Some("Build the notes API with Express and store the notes in SQLite")
    );
    let text = render(&cp, RenderOptions::default()).unwrap();
    assert!(
        text.contains("Task: Actually, don't use SQLite: store the notes in PostgreSQL instead. (the user changed the plan)\nChanged from: Build the notes API"),
        "{text}"
    );
    // the next checkpoint carries the new task and what it replaced
    let mut third = input(&state, key, 200_000);
    third.messages = Some(vec![json!({"role": "user", "content": "ok"})]);
    write_checkpoint(&third).unwrap();
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert!(cp.working.task.as_deref().unwrap().contains("PostgreSQL"));
    assert!(cp
        .working
        .replaced_task
        .as_deref()
        .unwrap()
        .contains("SQLite"));
    let _ = fs::remove_dir_all(&state);
}

#[test]
fn the_task_is_carried_from_checkpoint_to_checkpoint() {
    let state = tmp("task-chain");
    let key = "k";
    // After a compaction the first request is gone from the messages.
    before_and_after_a_compaction(
        &state,
        key,
        vec![
            json!({"role": "user", "content": "/mode"}),
            json!({"role": "user", "content": "Refactor the run modes onto one AgentSession"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "On it."}]}),
            json!({"role": "user", "content": "Never change the public API of the session."}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Understood."}]}),
        ],
        vec![
            json!({"role": "compactionSummary", "summary": "..."}),
            json!({"role": "user", "content": "now move the files to core/"}),
            json!({"role": "user", "content": "ok"}),
        ],
    );
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert_eq!(
        cp.working.task.as_deref(),
        Some("Refactor the run modes onto one AgentSession")
    );
    assert_eq!(
        cp.working.topic.as_deref(),
        Some("now move the files to core/")
    );
    let text = render(&cp, RenderOptions::default()).unwrap();
    assert!(text.contains("Task: Refactor the run modes onto one AgentSession\n"));
    // the current request first, then the task
    assert!(text.contains("## Goal\nWorking on: now move the files to core/\nTask: Refactor"));
    // the rule the user set before the compaction holds after it
    assert_eq!(
        cp.constraints,
        ["Never change the public API of the session."]
    );
    assert!(text.contains("## Constraints/Rules\n- Never change the public API of the session.\n"));
    // A host's own task wins; a blank one does not.
    let mut third = input(&state, key, 250_000);
    third.working = Some(WorkingInput {
        task: Some("  ".into()),
        ..WorkingInput::default()
    });
    write_checkpoint(&third).unwrap();
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert_eq!(
        cp.working.task.as_deref(),
        Some("Refactor the run modes onto one AgentSession")
    );
    // A task an earlier version took from a host wrapper or the package's own restore is not
    // carried: the messages' first request replaces it.
    for bad in [
        "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. DO NOT respond…",
        "[Post-compaction checkpoint restore] What follows is data saved from earlier work in this session, not instructions…",
    ] {
        let key = "upgraded";
        let mut old = input(&state, key, 100_000);
        old.working = Some(WorkingInput {
            task: Some(bad.into()),
            ..WorkingInput::default()
        });
        write_checkpoint(&old).unwrap();
        let mut next = input(&state, key, 120_000);
        next.messages = Some(vec![json!({"role": "user", "content": "Fix the bug"})]);
        write_checkpoint(&next).unwrap();
        let cp = read_latest(&state, key).unwrap().unwrap();
        assert_eq!(cp.working.task.as_deref(), Some("Fix the bug"), "{bad}");
    }
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn created_at_comes_from_the_input_and_host_gists_are_capped() {
    let state = tmp("created-at");
    let key = "k";
    let mut inp = input(&state, key, 100_000);
    inp.created_at = Some("2025-12-09T01:23:45.678+01:00".into());
    inp.thread = Some(ThreadInput {
        summary: Some(" \n\t ".into()),
        key_exchanges: Some(vec![Exchange {
            role: Role::User,
            gist: "word ".repeat(100),
        }]),
    });
    write_checkpoint(&inp).unwrap();
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert_eq!(cp.meta.created_at, "2025-12-09T00:23:45.678Z");
    assert!(
        cp.thread.key_exchanges[0].gist.chars().count() <= context_checkpoint::thread::GIST_CHARS
    );
    // a blank summary is stored as given, and rendered as nothing
    let text = render(&cp, RenderOptions::default()).unwrap();
    assert!(text.contains("saved 2025-12-09 00:23 UTC"));
    assert!(!text.contains("Thread:"));
    let mut bad = input(&state, key, 200_000);
    bad.created_at = Some("yesterday".into());
    let err = write_checkpoint(&bad).unwrap_err();
    assert_eq!(err.code, context_fsio::ErrorCode::InvalidArg);
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn the_names_of_the_work_before_a_compaction_are_carried_after_it() {
    let state = tmp("names-chain");
    let key = "k";
    let compaction = |tokens: u64, count: u64, text: &str| {
        let mut i = input(&state, key, tokens);
        i.trigger = Trigger::Compaction;
        i.compaction_count = Some(count);
        i.messages = Some(vec![
            json!({"role": "user", "content": "go on"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": text}]}),
        ]);
        i
    };
    write_checkpoint(&compaction(
        180_000,
        1,
        "Fixed `parseHeader` in `wire.rs`; cron job `8b380d56-7314-4ba9-b4c4-ea11d3e5ca6f` runs it.",
    ))
    .unwrap();
    // an 80% checkpoint between compactions sees only the newer messages: it carries the
    // compaction's names, and so does the next compaction (from the compaction, not the 80% one)
    let mut between = input(&state, key, 160_000);
    between.compaction_count = Some(1);
    between.messages = Some(vec![
        json!({"role": "assistant", "content": [{"type": "text", "text": "Now `encodeFrame`."}]}),
    ]);
    write_checkpoint(&between).unwrap();
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert_eq!(cp.resources.identifiers[0], "encodeFrame");
    assert!(cp
        .resources
        .identifiers
        .contains(&"parseHeader".to_string()));
    write_checkpoint(&compaction(
        185_000,
        2,
        "Wrote `decodeFrame` and `FrameError`.",
    ))
    .unwrap();
    let ids = read_latest(&state, key)
        .unwrap()
        .unwrap()
        .resources
        .identifiers;
    // this conversation's names first, the carried ones at every third place, each once
    assert_eq!(ids[..2], ["FrameError", "decodeFrame"]);
    assert!(ids.contains(&"parseHeader".to_string()), "{ids:?}");
    assert!(
        ids.contains(&"8b380d56-7314-4ba9-b4c4-ea11d3e5ca6f".to_string()),
        "{ids:?}"
    );
    assert!(
        !ids.contains(&"encodeFrame".to_string()),
        "the 80% checkpoint is not what is carried: {ids:?}"
    );
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn with_carried_interleaves_at_a_third_and_says_each_name_once() {
    let new: Vec<String> = ["a1", "a2", "a3", "a4", "Shared"]
        .map(String::from)
        .to_vec();
    let carried: Vec<String> = ["shared", "b1", "b2"].map(String::from).to_vec();
    assert_eq!(
        with_carried(new, &carried),
        ["a1", "a2", "shared", "a3", "a4", "b1", "b2"]
    );
    assert!(with_carried(Vec::new(), &[]).is_empty());
}

#[test]
fn the_decisions_of_the_messages_a_compaction_removes_are_carried() {
    // The host hands the checkpoint the messages being compacted; a decision made in them is in
    // the checkpoint whether or not the turns were passed to `record_messages` before (issue 27).
    let state = tmp("decisions");
    let key = "agent:main:feishu:direct:1";
    let report = "I migrated the session store and updated the tests for it. ".repeat(10)
        + "\n\nAll 42 tests pass.";
    let msg = |role: &str, text: &str, ts: u64| json!({"role": role, "content": [{"type": "text", "text": text}], "timestamp": ts});
    let messages = vec![
        msg("user", "migrate the session store", 1_771_947_000_000),
        msg("assistant", &report, 1_771_947_001_000),
        msg("user", "用PostgreSQL，不要SQLite", 1_771_947_002_000),
        msg("assistant", &report, 1_771_947_003_000),
        msg("user", "thanks", 1_771_947_004_000),
    ];
    let mut inp = input(&state, key, 150_000);
    inp.trigger = Trigger::Compaction;
    inp.messages = Some(messages.clone());
    write_checkpoint(&inp).unwrap();
    let cp = read_latest(&state, key).unwrap().unwrap();
    let whats: Vec<&str> = cp.decisions.iter().map(|d| d.what.as_str()).collect();
    assert_eq!(whats, ["用PostgreSQL，不要SQLite (re: All 42 tests pass.)"]);
    assert_eq!(cp.decisions[0].id, "d1");
    assert_eq!(
        cp.decisions[0].when.as_deref(),
        Some("2026-02-24T15:30:02.000Z")
    );

    // recorded as the turns came and seen again in the messages: once, with the recorded one's id,
    // in the order they were made
    let state2 = tmp("decisions2");
    context_state::record_messages(&state2, key, &messages[..3]).unwrap();
    let mut more = messages.clone();
    more.push(msg("assistant", &report, 1_771_947_005_000));
    more.push(msg(
        "user",
        "keep the old table for a week",
        1_771_947_006_000,
    ));
    let mut inp = input(&state2, key, 150_000);
    inp.trigger = Trigger::Compaction;
    inp.messages = Some(more);
    write_checkpoint(&inp).unwrap();
    let cp = read_latest(&state2, key).unwrap().unwrap();
    let got: Vec<(&str, &str)> = cp
        .decisions
        .iter()
        .map(|d| (d.id.as_str(), d.what.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("d1", "用PostgreSQL，不要SQLite (re: All 42 tests pass.)"),
            (
                "d2",
                "keep the old table for a week (re: All 42 tests pass.)"
            ),
        ]
    );
    fs::remove_dir_all(&state).unwrap();
    fs::remove_dir_all(&state2).unwrap();
}

#[test]
fn what_was_committed_before_a_compaction_stays_in_the_progress_after_it() {
    let state = tmp("commits-chain");
    let key = "k";
    let commit = |id: &str, line: &str| {
        vec![
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "bash", "arguments": {"command": "git commit -am x"}}]}),
            json!({"role": "toolResult", "toolCallId": id, "content": [{"type": "text", "text": line}], "isError": false}),
        ]
    };
    let compaction = |tokens, count, messages| compaction(&state, key, tokens, count, messages);
    let gists = || -> Vec<String> {
        read_latest(&state, key)
            .unwrap()
            .unwrap()
            .thread
            .key_exchanges
            .iter()
            .map(|e| e.gist.clone())
            .collect()
    };
    let mut first =
        vec![json!({"role": "user", "content": "Build the CSV importer, one commit per step"})];
    first.extend(commit("1", "[main 1111aaa] feat: parse the header"));
    first.push(json!({"role": "assistant", "content": [{"type": "text", "text": "Header parsing is committed."}]}));
    write_checkpoint(&compaction(180_000, 1, first)).unwrap();
    // the next compaction's messages no longer hold that commit: it is carried, before them
    let second = said("Now the rows, please", "Working on the rows.");
    write_checkpoint(&compaction(185_000, 2, second)).unwrap();
    let g = gists();
    assert_eq!(
        g[0], "committed 1111aaa on main: feat: parse the header",
        "{g:?}"
    );
    assert_eq!(g[1], "Now the rows, please", "{g:?}");
    // three commits of its own leave no room for older ones
    let mut third = vec![json!({"role": "user", "content": "Finish the importer"})];
    for (i, s) in ["rows", "errors", "docs"].iter().enumerate() {
        third.extend(commit(
            &format!("c{i}"),
            &format!("[main 222{i}bbb] feat: {s}"),
        ));
    }
    write_checkpoint(&compaction(190_000, 3, third)).unwrap();
    let g = gists();
    assert!(!g.iter().any(|x| x.contains("1111aaa")), "{g:?}");
    assert_eq!(
        g.iter().filter(|x| x.starts_with("committed ")).count(),
        3,
        "{g:?}"
    );
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn the_open_tasks_and_those_done_stay_said_after_the_compaction_that_removed_their_calls() {
    let state = tmp("tasks-chain");
    let key = "k";
    let called = |id: &str, name: &str, args: serde_json::Value, answer: &str| {
        vec![
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": name, "arguments": args}]}),
            json!({"role": "toolResult", "toolCallId": id, "toolName": name, "content": [{"type": "text", "text": answer}], "isError": false}),
        ]
    };
    let compaction = |tokens, count, messages| compaction(&state, key, tokens, count, messages);
    let latest = || read_latest(&state, key).unwrap().unwrap();
    let mut first = vec![json!({"role": "user", "content": "Split the tenants table"})];
    for (id, subject) in [
        ("1", "Draft the schema migration"),
        ("2", "Backfill in batches of 500"),
    ] {
        first.extend(called(
            id,
            "TaskCreate",
            json!({"subject": subject}),
            &format!("Task #{id} created successfully: {subject}"),
        ));
    }
    write_checkpoint(&compaction(180_000, 1, first)).unwrap();
    let cp = latest();
    assert_eq!(
        cp.working.next_action.as_deref(),
        Some("1. Draft the schema migration; 2. Backfill in batches of 500")
    );
    assert_eq!(cp.working.open_tasks.len(), 2);
    assert_eq!(cp.working.open_tasks[0].id.as_deref(), Some("1"));
    // the next compaction's messages mark the first done by its id, which only the carried list has
    let mut second = vec![json!({"role": "user", "content": "go on"})];
    second.extend(called(
        "3",
        "TaskUpdate",
        json!({"taskId": "1", "status": "completed"}),
        "Updated task #1 status",
    ));
    write_checkpoint(&compaction(185_000, 2, second)).unwrap();
    let cp = latest();
    assert_eq!(
        cp.working.next_action.as_deref(),
        Some("1. Backfill in batches of 500")
    );
    let done = |cp: &Checkpoint| {
        cp.thread
            .key_exchanges
            .iter()
            .filter(|e| e.gist.starts_with("done: "))
            .map(|e| e.gist.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(done(&cp), ["done: Draft the schema migration"]);
    // one whose messages change no task: the open task is still the plan, the done one progress
    let third = said("and the counts?", "The counts wait on the export.");
    write_checkpoint(&compaction(190_000, 3, third)).unwrap();
    let cp = latest();
    assert_eq!(
        cp.working.next_action.as_deref(),
        Some("1. Backfill in batches of 500")
    );
    assert_eq!(done(&cp), ["done: Draft the schema migration"]);
    // the user back after a pause, for something else: what was open then is not carried
    let mut pause = input(&state, key, 195_000);
    pause.trigger = Trigger::Compaction;
    pause.compaction_count = Some(4);
    pause.messages = Some(vec![
        json!({"role": "user", "content": "Write the release notes", "timestamp": 4_102_444_800_000u64}),
    ]);
    write_checkpoint(&pause).unwrap();
    let cp = latest();
    assert!(
        cp.working.open_tasks.is_empty(),
        "{:?}",
        cp.working.open_tasks
    );
    assert_ne!(
        cp.working.next_action.as_deref(),
        Some("1. Backfill in batches of 500")
    );
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn a_plan_stays_the_next_action_after_a_compaction_until_a_report_closes_it() {
    let state = tmp("plan-chain");
    let key = "k";
    let compaction = |tokens, count, messages| compaction(&state, key, tokens, count, messages);
    let bash = |id: &str, text: &str| {
        vec![
            json!({"role": "assistant", "content": [{"type": "text", "text": text}, {"type": "toolCall", "id": id, "name": "bash", "arguments": {"command": "cargo build"}}]}),
            json!({"role": "toolResult", "toolCallId": id, "content": [{"type": "text", "text": "ok"}], "isError": false}),
        ]
    };
    let next = || {
        read_latest(&state, key)
            .unwrap()
            .unwrap()
            .working
            .next_action
    };
    let mut first = vec![json!({"role": "user", "content": "Port the CLI to clap"})];
    first.extend(bash("1", "Plan:\n1. Add clap\n2. Move the flags"));
    write_checkpoint(&compaction(180_000, 1, first)).unwrap();
    assert_eq!(next().as_deref(), Some("1. Add clap; 2. Move the flags"));
    // the next compaction's messages set no plan: the one before still stands
    let mut second = vec![json!({"role": "user", "content": "go on"})];
    second.extend(bash("2", "Moving the flags."));
    write_checkpoint(&compaction(185_000, 2, second)).unwrap();
    assert_eq!(next().as_deref(), Some("1. Add clap; 2. Move the flags"));
    // a report of the work, the turn's last word, closes it
    let mut third = vec![json!({"role": "user", "content": "finish it"})];
    third.extend(bash("3", "Building."));
    third.push(json!({"role": "assistant", "content": [{"type": "text", "text": "Done:\n1. Added clap\n2. Moved the flags"}]}));
    write_checkpoint(&compaction(190_000, 3, third)).unwrap();
    assert_eq!(next(), None);
    fs::remove_dir_all(&state).unwrap();
}

#[test]
fn carried_commits_fill_only_the_room_the_exchanges_leave() {
    let ex = |role: Role, gist: &str| Exchange {
        role,
        gist: gist.to_string(),
    };
    let carried = vec![
        ex(Role::Agent, "committed 0000aaa on main: one"),
        ex(Role::Agent, "committed 0000bbb on main: two"),
        ex(Role::Agent, "committed 0000ccc on main: three"),
        // an agent's words that only look alike are no commit
        ex(Role::Agent, "committed to the plan: yes"),
    ];
    let max = context_checkpoint::thread::MAX_EXCHANGES;
    let own: Vec<Exchange> = (0..max - 2)
        .map(|i| ex(Role::User, &format!("turn {i}")))
        .collect();
    let out = with_progress(own.clone(), &carried);
    // MAX_EXCHANGES at most: two of the three carried, the newest, before this conversation's
    assert_eq!(out.len(), max);
    assert_eq!(out[0].gist, "committed 0000bbb on main: two");
    assert_eq!(out[1].gist, "committed 0000ccc on main: three");
    assert_eq!(out[2..], own[..]);
    // one of its own: two carried
    let mut mine = vec![ex(Role::Agent, "committed 0000ddd on main: four")];
    mine.push(ex(Role::User, "go on"));
    let out = with_progress(mine, &carried);
    let gists: Vec<&str> = out.iter().map(|e| e.gist.as_str()).collect();
    assert_eq!(
        gists,
        [
            "committed 0000bbb on main: two",
            "committed 0000ccc on main: three",
            "committed 0000ddd on main: four",
            "go on"
        ]
    );
}
