//! Property of the checkpoint directory reader (fuzz target `latest_pointer`, replayed by
//! `crates/checkpoint/tests/fuzz_corpus.rs`): with a valid `cp_001.yaml`, whatever bytes are in
//! `_latest.json` and `cp_002.yaml`, `newest_valid` never fails and never returns a checkpoint
//! that does not parse: it is `cp_002` exactly when `cp_002.yaml` parses, else `cp_001`.
//!
//! Input layout: `_latest.json` bytes, a 0xFF separator byte, then `cp_002.yaml` bytes (no
//! separator: the whole input is the pointer and `cp_002.yaml` is absent).

use context_checkpoint::{from_yaml, newest_valid};
use std::fs;
use std::path::PathBuf;

pub const GOOD: &str = "schema: openclaw/checkpoint\nschema_version: 1\nmeta:\n  checkpoint_id: cp_001\n  session_key: fuzz\n  created_at: 2026-01-01T00:00:00Z\n  trigger: auto-80pct\n  compaction_count: 0\n  token_usage:\n    input_tokens: 1000\n    context_window: 200000\n    utilization: 0.005\nworking:\n  topic: fuzzing\n  status: idle\n  interrupted: false\ndecisions: []\nresources:\n  files_read: []\n  files_modified: []\n  tools_used: []\nthread:\n  key_exchanges: []\nopen_items: []\nlearnings: []\n";

fn scratch_dir() -> PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let d = base.join(format!(
        "context-fuzz-latest-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

pub fn check(data: &[u8]) {
    assert!(from_yaml(GOOD).is_ok(), "the fixed cp_001 must be valid");
    let (pointer, cp2) = match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let dir = scratch_dir();
    fs::write(dir.join("cp_001.yaml"), GOOD).unwrap();
    fs::write(dir.join("_latest.json"), pointer).unwrap();
    if let Some(b) = cp2 {
        fs::write(dir.join("cp_002.yaml"), b).unwrap();
    }
    let got = newest_valid(&dir).expect("newest_valid must not fail on damaged files");
    let cp2_valid = cp2
        .and_then(|b| std::str::from_utf8(b).ok())
        .is_some_and(|t| from_yaml(t).is_ok());
    let (id, cp) = got.expect("cp_001 is valid, so there is always a checkpoint");
    if cp2_valid {
        assert_eq!(id, "cp_002", "a valid newer checkpoint was skipped");
    } else {
        assert_eq!(id, "cp_001", "fell back to the wrong checkpoint");
        assert_eq!(cp, from_yaml(GOOD).unwrap());
    }
    // Nothing was created or removed by a read.
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let expected: Vec<&str> = if cp2.is_some() {
        vec!["_latest.json", "cp_001.yaml", "cp_002.yaml"]
    } else {
        vec!["_latest.json", "cp_001.yaml"]
    };
    assert_eq!(names, expected);
    let _ = fs::remove_dir_all(&dir);
}
