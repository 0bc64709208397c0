//! Issue 23: clocks that ran ahead, the persisted scratchpad's read-modify-write, and the
//! protection its refs give.
use context_fsio::{ErrorCode, FUTURE_TOLERANCE_MS};
use context_offload::store::Session;
use context_offload::*;
use serde_json::{json, Value};
use std::fs;
use std::path::PathBuf;

struct Tmp(PathBuf);
impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}
fn tmp(tag: &str) -> Tmp {
    let d = std::env::temp_dir().join(format!("offload-ret-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    Tmp(d)
}

const KEY: &str = "agent:main:retention";
const HOUR: u64 = 3_600_000;
const YEAR: u64 = 365 * 24 * HOUR;

fn store_at(s: &mut Session, name: &str, ttl: Option<u64>, now: u64) -> Entry {
    s.store(
        Kind::Text,
        b"content",
        Some(name),
        None,
        None,
        ttl,
        1 << 30,
        &[],
        context_fsio::Durability::Fast,
        now,
    )
    .unwrap()
    .0
}

#[test]
fn an_entry_written_a_year_ahead_expires_its_ttl_after_now() {
    let t = tmp("future");
    let now = 1_900_000_000_000;
    let mut s = Session::open(&t.0, KEY).unwrap();
    store_at(&mut s, "ahead", Some(HOUR), now + YEAR);
    store_at(&mut s, "normal", Some(HOUR), now);
    store_at(&mut s, "slightly", Some(HOUR), now + FUTURE_TOLERANCE_MS);
    // The clock is fixed: GC now brings the year-ahead entry back to now, TTL kept.
    assert!(s.collect(1 << 30, &[], now).unwrap().is_empty());
    let ahead = s.entries().iter().find(|e| e.name == "ahead").unwrap();
    assert_eq!(ahead.expires_at, Some(now + HOUR));
    // Within the tolerance a time is left alone.
    let slightly = s.entries().iter().find(|e| e.name == "slightly").unwrap();
    assert_eq!(slightly.expires_at, Some(now + FUTURE_TOLERANCE_MS + HOUR));
    drop(s);
    // The rebase was saved: an hour and a bit later both the normal and the year-ahead entry go.
    let mut s = Session::open(&t.0, KEY).unwrap();
    let gone: Vec<String> = s
        .collect(1 << 30, &[], now + HOUR + 1)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert!(gone.contains(&"ahead".to_string()) && gone.contains(&"normal".to_string()));
    assert_eq!(s.entries().len(), 1);
}

#[test]
fn persist_merges_spaces_and_refs_protect_entries() {
    let t = tmp("persist");
    let opts = StoreOptions::default();
    let notes = ("openclaw:scratchpad:notes".to_string(), json!("n1"));
    persist_scratchpad(&t.0, KEY, &[notes], &opts).unwrap();
    let plan = ("openclaw:scratchpad:plan".to_string(), json!("p1"));
    let out = persist_scratchpad(&t.0, KEY, &[plan], &opts).unwrap();
    assert_eq!(out.spaces.len(), 2);
    let read = read_persisted_scratchpad(&t.0, KEY).unwrap().unwrap();
    assert_eq!(read["openclaw:scratchpad:notes"], json!("n1"));
    assert_eq!(read["openclaw:scratchpad:plan"], json!("p1"));
    assert!(read_persisted_scratchpad(&t.0, "other").unwrap().is_none());

    // An expired entry the refs name survives GC; an unnamed one goes.
    let refs = (
        "openclaw:scratchpad:refs".to_string(),
        json!(["observation:kept_log"]),
    );
    persist_scratchpad(&t.0, KEY, &[refs], &opts).unwrap();
    let now = context_fsio::now_ms();
    let mut s = Session::open(&t.0, KEY).unwrap();
    store_at(&mut s, "kept_log", Some(1), now - HOUR);
    store_at(&mut s, "dropped_log", Some(1), now - HOUR);
    drop(s);
    let report = gc(&t.0, Some(KEY), &opts).unwrap();
    let removed: Vec<&str> = report.removed.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(removed, vec!["dropped_log"]);
    let names: Vec<String> = list(&t.0, KEY, None, true)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert!(names.contains(&"kept_log".into()) && names.contains(&SCRATCHPAD_ENTRY.into()));
}

#[test]
fn persist_refuses_what_its_reader_could_not_read() {
    let t = tmp("too-large");
    let opts = StoreOptions::default();
    let small = ("openclaw:scratchpad:notes".to_string(), json!("kept"));
    persist_scratchpad(&t.0, KEY, &[small], &opts).unwrap();
    let huge = "\u{1}".repeat((MAX_PERSISTED_CHARS / 6 + 10) as usize);
    let big = ("openclaw:scratchpad:notes".to_string(), Value::String(huge));
    let e = persist_scratchpad(&t.0, KEY, &[big], &opts).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
    // Nothing was written: the previous spaces are still there.
    let read = read_persisted_scratchpad(&t.0, KEY).unwrap().unwrap();
    assert_eq!(read["openclaw:scratchpad:notes"], json!("kept"));
    let bad = ("openclaw:scratchpad:notes".to_string(), json!(42));
    let e = persist_scratchpad(&t.0, KEY, &[bad], &opts).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArg);
}

#[test]
fn persists_from_threads_lose_nothing() {
    let t = tmp("threads");
    let root = t.0.clone();
    let handles: Vec<_> = (0..4)
        .map(|w| {
            let root = root.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    let key = format!("openclaw:test:w{w}:{i}");
                    persist_scratchpad(&root, KEY, &[(key, json!("x"))], &StoreOptions::default())
                        .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(
        read_persisted_scratchpad(&root, KEY)
            .unwrap()
            .unwrap()
            .len(),
        100
    );
}
