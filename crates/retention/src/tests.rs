use super::*;
use context_checkpoint::{write_checkpoint, CheckpointInput, Trigger};
use context_offload::{offload, Content, OffloadRequest};

const DAY: u64 = 86_400_000;

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("retention-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

/// A session as the plugin leaves it: two checkpoints, state, three large offloads (TTL 1 h) and
/// the persisted scratchpad.
fn live_session(root: &Path, key: &str) {
    for tokens in [1000, 5000] {
        let mut input = CheckpointInput::new(root, key, Trigger::Auto80Pct, tokens, 200_000);
        input.open_items = Some(vec!["ship it".into()]);
        write_checkpoint(&input).unwrap();
    }
    context_state::record_decision(root, key, "use sqlite", None).unwrap();
    for _ in 0..3 {
        let text = "log line\n".repeat(2000);
        let mut r = OffloadRequest::new(Content::Text(&text));
        r.tool_name = Some("exec".into());
        r.store.durable = false;
        offload(root, key, r).unwrap();
    }
    let notes = (
        "openclaw:scratchpad:notes".to_string(),
        serde_json::json!("n"),
    );
    context_offload::persist_scratchpad(root, key, &[notes], &StoreOptions::default()).unwrap();
}

fn at(now: u64, idle_days: f64) -> GcOptions {
    GcOptions {
        now: Some(now),
        idle_days,
        ..GcOptions::default()
    }
}

fn total_bytes(root: &Path) -> u64 {
    measure(root).0
}

#[test]
fn idle_sessions_are_reclaimed_active_ones_keep_their_latest_checkpoint() {
    let root = tmp("reclaim");
    let now = now_ms();
    live_session(&root, "idle");
    live_session(&root, "active");
    // The active one was used 29 days after the others.
    record_activity(&root, "active", now + 29 * DAY).unwrap();
    let before = total_bytes(&root);

    // A dry run 31 days later reports the idle session and removes nothing.
    let dry = gc_state_dir(
        &root,
        &GcOptions {
            dry_run: true,
            ..at(now + 31 * DAY, 30.0)
        },
    )
    .unwrap();
    assert_eq!(dry.removed_sessions.len(), 1);
    assert_eq!(dry.removed_sessions[0].session_key.as_deref(), Some("idle"));
    assert_eq!(total_bytes(&root), before);

    let r = gc_state_dir(&root, &at(now + 31 * DAY, 30.0)).unwrap();
    assert_eq!(r.removed_sessions.len(), 1);
    assert_eq!(r.kept_sessions, 1);
    assert!(r.removed_bytes > 50_000, "{r:?}");
    // The active session's expired offloads went; its checkpoint and scratchpad stayed.
    assert_eq!(r.removed_entries, 3, "{r:?}");
    let after = total_bytes(&root);
    assert!(after < before / 4, "{before} -> {after}");
    assert!(context_checkpoint::read_latest(&root, "idle")
        .unwrap()
        .is_none());
    assert!(context_checkpoint::read_latest(&root, "active")
        .unwrap()
        .is_some());
    assert!(context_offload::read_persisted_scratchpad(&root, "idle")
        .unwrap()
        .is_none());
    assert!(context_offload::read_persisted_scratchpad(&root, "active")
        .unwrap()
        .is_some());
    assert!(read_record(&root, &session_dir_name("idle").unwrap()).is_none());
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn work_per_call_is_bounded_and_calls_continue_where_the_last_stopped() {
    let root = tmp("bounded");
    for i in 0..5 {
        record_activity(&root, &format!("s{i}"), 1).unwrap();
    }
    let opts = GcOptions {
        max_dirs: 2,
        ..at(now_ms(), 30.0)
    };
    let mut removed = 0;
    for call in 0..3 {
        let r = gc_state_dir(&root, &opts).unwrap();
        assert!(r.visited <= 2);
        assert_eq!(r.more, call < 2, "call {call}: {r:?}");
        removed += r.removed_sessions.len();
    }
    assert_eq!(removed, 5);
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn activity_from_the_future_counts_as_now() {
    let root = tmp("future");
    let now = now_ms();
    live_session(&root, "ahead");
    // Written while the clock ran a year ahead.
    record_activity(&root, "ahead", now + 365 * DAY).unwrap();
    let r = gc_state_dir(&root, &at(now, 30.0)).unwrap();
    assert_eq!(r.kept_sessions, 1);
    let rec = read_record(&root, &session_dir_name("ahead").unwrap()).unwrap();
    assert_eq!(rec.last_activity_ms(u64::MAX), now, "brought back to now");
    // 31 days later it is idle, not a year later.
    let r = gc_state_dir(&root, &at(now + 31 * DAY, 30.0)).unwrap();
    assert_eq!(r.removed_sessions.len(), 1);
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_directory_without_a_record_goes_by_its_files() {
    let root = tmp("legacy");
    live_session(&root, "old");
    remove_record(&root, &session_dir_name("old").unwrap()).unwrap();
    let r = gc_state_dir(&root, &at(now_ms(), 30.0)).unwrap();
    assert_eq!(r.kept_sessions, 1);
    let r = gc_state_dir(&root, &at(now_ms() + 31 * DAY, 30.0)).unwrap();
    assert_eq!(r.removed_sessions.len(), 1);
    assert_eq!(r.removed_sessions[0].session_key, None);
    assert!(session_dirs(&root, true).unwrap().is_empty());
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn delete_session_removes_everything_of_that_session_only() {
    let root = tmp("delete");
    live_session(&root, "gone");
    live_session(&root, "other");
    let other_before = summarize(&root, &session_dir_name("other").unwrap(), now_ms()).bytes;
    let r = delete_session(&root, "gone").unwrap();
    assert!(r.existed && r.removed_bytes > 50_000, "{r:?}");
    let left = summarize(&root, &session_dir_name("gone").unwrap(), now_ms());
    assert_eq!((left.bytes, left.files), (0, 0));
    assert!(context_checkpoint::read_latest(&root, "gone")
        .unwrap()
        .is_none());
    assert!(context_state::read_state(&root, "gone").unwrap().is_empty());
    let other = summarize(&root, &session_dir_name("other").unwrap(), now_ms()).bytes;
    assert_eq!(other, other_before);
    assert!(!delete_session(&root, "gone").unwrap().existed);
    assert_eq!(
        delete_session(&root, "").unwrap_err().code,
        ErrorCode::InvalidArg
    );
    fs::remove_dir_all(&root).unwrap();
}

#[cfg(unix)]
#[test]
fn links_below_the_state_dir_are_never_followed() {
    let root = tmp("links");
    let outside = tmp("links-outside");
    live_session(&outside, "victim");
    let before = total_bytes(&outside);
    // A session directory that is a link to another state dir's session: skipped, never removed.
    live_session(&root, "mine");
    let name = session_dir_name("victim").unwrap();
    for kind in [CHECKPOINTS_DIR, OBSERVATIONS_DIR] {
        std::os::unix::fs::symlink(
            kind_dir(&outside, kind).join(&name),
            kind_dir(&root, kind).join(&name),
        )
        .unwrap();
    }
    let r = gc_state_dir(&root, &at(now_ms() + 31 * DAY, 30.0)).unwrap();
    // The links are not session directories of this state dir: left alone, their targets untouched.
    assert_eq!(r.removed_sessions.len(), 1, "{r:?}");
    assert_eq!(r.removed_sessions[0].session_key.as_deref(), Some("mine"));
    assert_eq!(total_bytes(&outside), before);
    // A kind folder that is a link: refused.
    let root2 = tmp("links2");
    fs::create_dir_all(root2.join("context")).unwrap();
    std::os::unix::fs::symlink(kind_dir(&outside, STATE_DIR), kind_dir(&root2, STATE_DIR)).unwrap();
    let e = gc_state_dir(&root2, &at(now_ms() + 31 * DAY, 30.0)).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsafePath);
    assert_eq!(total_bytes(&outside), before);
    for d in [root, root2, outside] {
        fs::remove_dir_all(d).unwrap();
    }
}
