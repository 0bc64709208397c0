//! Issue 12: state files that cannot be trusted (links, FIFOs, huge files), reads that must not
//! write, and path capture that must stay linear.

use context_fsio::{session_dir_name, ErrorCode};
use context_state::*;
use serde_json::json;
use std::fs;
use std::path::{Path, PathBuf};

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("state-hostile-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn tree(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        if let Ok(rd) = fs::read_dir(&d) {
            for e in rd.flatten() {
                out.push(e.path().display().to_string());
                if e.file_type().unwrap().is_dir() {
                    stack.push(e.path());
                }
            }
        }
    }
    out.sort();
    out
}

#[path = "../../fsio/tests/support/bounded.rs"]
mod support;
use support::bounded;

#[test]
fn reading_a_never_used_key_creates_nothing() {
    let root = tmp("ro");
    fs::create_dir_all(&root).unwrap();
    record_decision(&root, "other", "x", None).unwrap();
    let before = tree(&root);
    assert!(read_state(&root, "never-used").unwrap().is_empty());
    assert_eq!(tree(&root), before);
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_read_leaves_a_corrupt_file_in_place_and_the_next_write_moves_it_aside() {
    let root = tmp("corrupt");
    let k = "k";
    record_learning(&root, k, "kept").unwrap();
    let dir = root
        .join("context/state")
        .join(session_dir_name(k).unwrap());
    fs::write(dir.join(DECISIONS_FILE), b"{torn").unwrap();
    let before = tree(&root);
    assert_eq!(read_state(&root, k).unwrap().learnings, vec!["kept"]);
    assert_eq!(tree(&root), before, "a read wrote");
    record_decision(&root, k, "d", None).unwrap();
    let moved = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".corrupt-"))
        .count();
    assert_eq!(moved, 1);
    fs::remove_dir_all(&root).unwrap();
}

#[cfg(unix)]
#[test]
fn links_fifos_and_huge_state_files_are_refused_by_reads_and_moved_aside_by_writes() {
    let root = tmp("hostile");
    let k = "k";
    record_decision(&root, k, "first", None).unwrap();
    let dir = root
        .join("context/state")
        .join(session_dir_name(k).unwrap());
    let outside = root.join("outside.json");
    let secret = r#"{"decisions":[{"id":"d9","what":"SECRET"}]}"#;
    fs::write(&outside, secret).unwrap();
    let target = dir.join(DECISIONS_FILE);
    let plant = |how: &str| {
        let _ = fs::remove_file(&target);
        match how {
            "symlink" => std::os::unix::fs::symlink(&outside, &target).unwrap(),
            "hardlink" => fs::hard_link(&outside, &target).unwrap(),
            "zero" => std::os::unix::fs::symlink("/dev/zero", &target).unwrap(),
            "fifo" => {
                let c = std::ffi::CString::new(target.to_str().unwrap()).unwrap();
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            }
            "huge" => fs::File::create(&target)
                .unwrap()
                .set_len(MAX_STATE_FILE_BYTES + 1)
                .unwrap(),
            _ => unreachable!(),
        }
    };
    for how in ["symlink", "hardlink", "zero", "fifo", "huge"] {
        plant(how);
        let (r, key) = (root.clone(), k.to_string());
        let err = bounded(move || read_state(&r, &key).unwrap_err());
        assert_eq!(err.code, ErrorCode::UnsafeFile, "{how}: {err}");
        let (r, key) = (root.clone(), k.to_string());
        let d = bounded(move || record_decision(&r, &key, &format!("after {how}"), None))
            .unwrap_or_else(|e| panic!("{how}: {e}"));
        assert_ne!(d.what, "SECRET");
        let s = read_state(&root, k).unwrap();
        assert!(s.decisions.iter().all(|d| d.what != "SECRET"), "{how}");
        assert_eq!(fs::read_to_string(&outside).unwrap(), secret, "{how}");
    }
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn one_call_with_200k_paths_records_the_last_100() {
    let root = tmp("paths");
    let paths: Vec<String> = (0..200_000).map(|i| format!("/src/{i}.rs")).collect();
    let input = ToolResult {
        tool_name: "read".into(),
        params: json!({ "paths": paths }),
        ..ToolResult::default()
    };
    let o = record_tool_result(&root, "k", &input).unwrap();
    assert_eq!(o.files_read.len(), MAX_FILES);
    assert_eq!(o.files_read[0], "/src/199900.rs");
    assert_eq!(o.files_read[99], "/src/199999.rs");
    assert_eq!(read_state(&root, "k").unwrap().files_read, o.files_read);
    // duplicates still collapse to their first occurrence, in order
    assert_eq!(
        extract_paths(&json!({"paths": ["a", "b", "a", "c", "b"]})),
        vec!["a", "b", "c"]
    );
    fs::remove_dir_all(&root).unwrap();
}
