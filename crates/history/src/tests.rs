use super::*;
use context_fsio::ErrorCode;
use context_offload::read::{Mode, ReadRequest};
use serde_json::{json, Value};
use std::path::PathBuf;

fn root(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("history-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn turn(i: u64, text: &str) -> Vec<Value> {
    let t = 1_796_542_260_000u64 + i * 60_000;
    vec![
        json!({"role": "user", "content": format!("step {i}: {text}"), "timestamp": t}),
        json!({"role": "assistant", "content": [
            {"type": "toolCall", "id": format!("c{i}"), "name": "exec", "arguments": {"command": format!("run {i}")}}
        ], "timestamp": t + 1}),
        json!({"role": "toolResult", "toolCallId": format!("c{i}"), "toolName": "exec",
               "content": [{"type": "text", "text": format!("output of step {i}")}], "timestamp": t + 2}),
    ]
}

fn grep(dir: &std::path::Path, name: &str, pattern: &str) -> context_offload::ReadOutcome {
    let mut r = ReadRequest::new(name, Mode::Grep);
    r.pattern = Some(pattern.into());
    read(dir, "s", &r).unwrap()
}

/// The content file of an entry's current revision.
fn data_file(store: &std::path::Path, e: &context_offload::Entry) -> PathBuf {
    match e.rev {
        0 => store.join(format!("{}.dat", e.id)),
        r => store.join(format!("{}.{r}.dat", e.id)),
    }
}

fn opts() -> HistoryOptions {
    HistoryOptions {
        durable: false,
        ..HistoryOptions::default()
    }
}

#[test]
fn a_second_compaction_adds_only_what_the_first_did_not_hold() {
    let dir = root("append");
    let first: Vec<Value> = (1..=3)
        .flat_map(|i| turn(i, "listen on port 8443"))
        .collect();
    let w1 = write(&dir, "s", &first, &opts()).unwrap();
    assert_eq!(w1.entry.as_ref().unwrap().name, "history-1");
    assert_eq!(
        (w1.first_index, w1.last_index, w1.messages),
        (Some(1), Some(9), 9)
    );
    // the second compaction's context: the messages the first kept, then new ones
    let mut second = turn(3, "listen on port 8443");
    second.extend((4..=5).flat_map(|i| turn(i, "EADDRINUSE")));
    let w2 = write(&dir, "s", &second, &opts()).unwrap();
    let e2 = w2.entry.unwrap();
    assert_eq!(e2.name, "history-2");
    assert_eq!(
        (w2.first_index, w2.last_index),
        (Some(10), Some(15)),
        "turn 3 was held already"
    );
    assert_eq!(w2.summary.entries, 2);
    assert_eq!(w2.summary.messages, 15);
    // the same messages again (a second process, a retried hook): nothing written
    let w3 = write(&dir, "s", &second, &opts()).unwrap();
    assert!(w3.entry.is_none() && w3.messages == 0);
    // one grep over every entry, newest first
    let all = grep(&dir, ALIAS, "step [35]:");
    assert_eq!(all.matches, Some(2));
    let h2 = all.content.find("== history-2 ==").unwrap();
    let h1 = all.content.find("== history-1 ==").unwrap();
    assert!(h2 < h1, "{}", all.content);
    assert!(
        all.content
            .contains("5:[#13 user 2026-12-06T07:36Z] step 5: EADDRINUSE"),
        "{}",
        all.content
    );
    // a grep of one entry shows the lines around
    let one = grep(&dir, "history-1", "port 8443");
    assert_eq!(one.matches, Some(3));
    assert!(
        one.content
            .contains("-[#2 agent 2026-12-06T07:32Z] call exec {\"command\":\"run 1\"}"),
        "{}",
        one.content
    );
    // lines and head read a span of an entry
    let mut r = ReadRequest::new("history-2", Mode::Lines);
    r.start = Some(2);
    r.end = Some(2);
    assert_eq!(
        read(&dir, "s", &r).unwrap().content,
        "[#10 user 2026-12-06T07:35Z] step 4: EADDRINUSE\n"
    );
    // the restore's line names the newest entry, its messages and size, and the search
    let line = restore_line(&w2.summary).unwrap();
    assert_eq!(
        line,
        r#"[Messages #10-#15 compacted: history-2 (499 B). Grep all: scratchpad_read {"name":"history","pattern":"<regex>"}]"#
    );
    // at most 40 tokens, also for a long session's
    let long = Summary {
        newest: w2.summary.newest.clone().map(|mut e| {
            e.name = "history-120".into();
            e.size_bytes = 12_200_000;
            e
        }),
        newest_first: Some(10_400),
        newest_last: Some(15_150),
        ..w2.summary.clone()
    };
    for l in [line, restore_line(&long).unwrap()] {
        assert!(
            context_tokens::count_tokens(&l, context_tokens::Encoding::O200kBase) <= 40,
            "{l}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_history_is_not_found_and_a_bad_pattern_is_invalid() {
    let dir = root("none");
    let e = read(&dir, "s", &{
        let mut r = ReadRequest::new(ALIAS, Mode::Grep);
        r.pattern = Some("x".into());
        r
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    write(&dir, "s", &turn(1, "x"), &opts()).unwrap();
    let mut r = ReadRequest::new(ALIAS, Mode::Grep);
    r.pattern = Some("(".into());
    assert_eq!(read(&dir, "s", &r).unwrap_err().code, ErrorCode::InvalidArg);
    // a mode other than grep on the alias reads the newest entry
    let head = read(&dir, "s", &ReadRequest::new(ALIAS, Mode::Head)).unwrap();
    assert_eq!(head.entry.name, "history-1");
    assert!(write(&PathBuf::new(), "s", &[], &opts()).is_err());
    assert_eq!(
        write(&dir, "", &[], &opts()).unwrap_err().code,
        ErrorCode::InvalidArg
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_corrupt_entry_is_corrupt_and_a_corrupt_index_is_rebuilt() {
    let dir = root("corrupt");
    write(&dir, "s", &turn(1, "alpha"), &opts()).unwrap();
    write(&dir, "s", &turn(2, "beta"), &opts()).unwrap();
    let store = dir
        .join("context/observations")
        .join(context_fsio::session_dir_name("s").unwrap());
    let entries = context_offload::list(&dir, "s", None, true).unwrap();
    let h1 = entries.iter().find(|e| e.name == "history-1").unwrap();
    // invalid UTF-8 of the same length where the catalog says text
    let dat = data_file(&store, h1);
    let len = std::fs::metadata(&dat).unwrap().len() as usize;
    std::fs::write(&dat, vec![0xffu8; len]).unwrap();
    let mut r = ReadRequest::new("history-1", Mode::Grep);
    r.pattern = Some("alpha".into());
    assert_eq!(read(&dir, "s", &r).unwrap_err().code, ErrorCode::Corrupt);
    // the search over all of them says which one it could not read and reads the others
    let all = grep(&dir, ALIAS, r"step \d:");
    assert!(
        all.content
            .contains("== history-1 could not be read (Corrupt) =="),
        "{}",
        all.content
    );
    assert_eq!(all.matches, Some(1));
    // a missing content file is Corrupt too
    let h2 = entries.iter().find(|e| e.name == "history-2").unwrap();
    std::fs::remove_file(data_file(&store, h2)).unwrap();
    assert_eq!(
        read(&dir, "s", &ReadRequest::new("history-2", Mode::Head))
            .unwrap_err()
            .code,
        ErrorCode::Corrupt
    );
    // an unreadable index: rebuilt, numbering on after the newest entry
    let idx = entries.iter().find(|e| e.name == INDEX_ENTRY).unwrap();
    let p = data_file(&store, idx);
    let len = std::fs::metadata(&p).unwrap().len() as usize;
    std::fs::write(&p, vec![b'{'; len]).unwrap();
    let w = write(&dir, "s", &turn(3, "gamma"), &opts()).unwrap();
    assert!(w.repaired);
    assert_eq!(w.entry.unwrap().name, "history-3");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn over_the_quota_the_oldest_entry_is_cut_to_its_head_and_tail_never_a_live_result() {
    let dir = root("quota");
    let big = |i: u64| -> Vec<Value> {
        let text: String = (0..2000)
            .map(|l| format!("line {l} of step {i} output\n"))
            .collect();
        let mut t = turn(i, "build");
        t[2]["content"][0]["text"] = json!(text);
        t
    };
    let quota = 250_000;
    let o = HistoryOptions {
        quota_bytes: Some(quota),
        durable: false,
        compaction: Some(1),
    };
    // a live parked result the history must never evict
    let body = "r".repeat(20_000);
    let mut req = context_offload::OffloadRequest::new(context_offload::Content::Text(&body));
    req.tool_name = Some("exec".into());
    req.store.quota_bytes = Some(quota);
    context_offload::offload(&dir, "s", req).unwrap();
    let w1 = write(&dir, "s", &big(1), &o).unwrap();
    assert!(w1.cut.is_empty());
    let w2 = write(&dir, "s", &big(2), &o).unwrap();
    assert_eq!(w2.cut, vec!["history-1".to_string()]);
    let entries = context_offload::list(&dir, "s", None, true).unwrap();
    assert!(
        entries.iter().any(|e| e.name == "exec_1"),
        "the live result stays"
    );
    let total: u64 = entries.iter().map(|e| e.size_bytes).sum();
    assert!(total <= quota, "{total}");
    let h1 = read(&dir, "s", &ReadRequest::new("history-1", Mode::Full)).unwrap();
    assert!(
        h1.content.starts_with("[history-1: the messages #1-#3"),
        "the header stays"
    );
    assert!(h1.content.contains("history-1 was cut to its head and tail to keep the session's store under its quota of 250000 bytes: lines"));
    assert!(h1.content.contains("line 0 of step 1") && h1.content.contains("line 1999 of step 1"));
    // the newest is whole: its grep finds every line
    assert_eq!(
        grep(&dir, "history-2", "line 1234 of step 2").matches,
        Some(1)
    );
    // a third: the second is cut now, the first not twice
    let w3 = write(&dir, "s", &big(3), &o).unwrap();
    assert_eq!(w3.cut, vec!["history-2".to_string()]);
    assert_eq!(
        w3.summary.cut,
        vec!["history-1".to_string(), "history-2".to_string()]
    );
    // gc never evicts history for the quota (it is cut by its writer, not dropped)
    let g = context_offload::gc(
        &dir,
        Some("s"),
        &context_offload::StoreOptions {
            quota_bytes: Some(60_000),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        g.removed.iter().all(|e| !is_history_name(&e.name)),
        "{:?}",
        g.removed
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn with_no_room_left_by_live_entries_nothing_is_written() {
    let dir = root("full");
    let body = "r".repeat(50_000);
    let mut req = context_offload::OffloadRequest::new(context_offload::Content::Text(&body));
    req.tool_name = Some("exec".into());
    req.store.quota_bytes = Some(50_500);
    context_offload::offload(&dir, "s", req).unwrap();
    let o = HistoryOptions {
        quota_bytes: Some(50_500),
        ..opts()
    };
    let e = write(&dir, "s", &turn(1, "x"), &o).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
    assert!(context_offload::list(&dir, "s", None, true)
        .unwrap()
        .iter()
        .any(|e| e.name == "exec_1"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_writers_compacting_the_same_session_keep_one_copy() {
    let dir = root("race");
    let msgs: Vec<Value> = (1..=20).flat_map(|i| turn(i, "race")).collect();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let (d, m) = (dir.clone(), msgs.clone());
            std::thread::spawn(move || write(&d, "s", &m, &opts()).unwrap())
        })
        .collect();
    let written: Vec<WriteOutcome> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(written.iter().filter(|w| w.entry.is_some()).count(), 1);
    let s = summary(&dir, "s").unwrap();
    assert_eq!((s.entries, s.messages), (1, 60));
    assert_eq!(grep(&dir, ALIAS, "step 7:").matches, Some(1));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn history_goes_with_the_session() {
    let dir = root("delete");
    write(&dir, "s", &turn(1, "x"), &opts()).unwrap();
    write(&dir, "other", &turn(1, "y"), &opts()).unwrap();
    assert!(context_offload::delete_session(&dir, "s").unwrap());
    assert_eq!(summary(&dir, "s").unwrap(), Summary::default());
    let mut r = ReadRequest::new(ALIAS, Mode::Grep);
    r.pattern = Some("x".into());
    assert_eq!(read(&dir, "s", &r).unwrap_err().code, ErrorCode::NotFound);
    assert_eq!(summary(&dir, "other").unwrap().entries, 1);
    std::fs::remove_dir_all(&dir).unwrap();
}
