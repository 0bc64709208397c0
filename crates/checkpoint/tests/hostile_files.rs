//! Issue 12: `_latest.json` and checkpoint files that are links, FIFOs or huge are never followed,
//! never block and never read whole; reads fall back to the newest valid checkpoint.

#![cfg(unix)]

use context_checkpoint::*;
use std::fs;
use std::path::{Path, PathBuf};

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cp-hostile-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn dir_of(state: &Path, key: &str) -> PathBuf {
    state
        .join("context/checkpoints")
        .join(context_fsio::session_dir_name(key).unwrap())
}

#[path = "../../fsio/tests/support/bounded.rs"]
mod support;
use support::bounded;

#[test]
fn a_hostile_pointer_or_checkpoint_file_is_skipped_not_followed() {
    let state = tmp("ptr");
    let key = "k";
    let mut tokens = 10_000;
    for _ in 0..2 {
        write_checkpoint(&CheckpointInput::new(
            &state,
            key,
            Trigger::Auto80Pct,
            tokens,
            200_000,
        ))
        .unwrap();
        tokens *= 2;
    }
    let dir = dir_of(&state, key);
    let latest = dir.join(LATEST_FILE);
    let outside = state.join("outside.yaml");
    fs::copy(dir.join("cp_002.yaml"), &outside).unwrap();
    for how in ["fifo", "zero", "huge", "symlink"] {
        let _ = fs::remove_file(&latest);
        match how {
            "fifo" => {
                let c = std::ffi::CString::new(latest.to_str().unwrap()).unwrap();
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            }
            "zero" => std::os::unix::fs::symlink("/dev/zero", &latest).unwrap(),
            "huge" => fs::File::create(&latest).unwrap().set_len(1 << 30).unwrap(),
            _ => std::os::unix::fs::symlink(&outside, &latest).unwrap(),
        }
        let (s, k) = (state.clone(), key.to_string());
        let cp = bounded(move || read_latest(&s, &k).unwrap().unwrap());
        assert_eq!(cp.meta.checkpoint_id, "cp_002", "{how}");
    }
    // A newest checkpoint that is a link to a valid checkpoint elsewhere is not read.
    fs::rename(dir.join("cp_002.yaml"), state.join("moved.yaml")).unwrap();
    std::os::unix::fs::symlink(state.join("moved.yaml"), dir.join("cp_002.yaml")).unwrap();
    let cp = read_latest(&state, key).unwrap().unwrap();
    assert_eq!(cp.meta.checkpoint_id, "cp_001");
    let e = store::load(&dir, "cp_002").unwrap_err();
    assert_eq!(e.code, context_fsio::ErrorCode::UnsafeFile);
    // and a write goes on: cp_003, the pointer replaced by a regular file
    let (s, k) = (state.clone(), key.to_string());
    let r = bounded(move || {
        write_checkpoint(&CheckpointInput::new(
            &s,
            &k,
            Trigger::Auto80Pct,
            90_000,
            200_000,
        ))
        .unwrap()
    });
    assert_eq!(r.checkpoint_id, "cp_003");
    assert!(fs::symlink_metadata(&latest).unwrap().is_file());
    fs::remove_dir_all(&state).unwrap();
}
