//! Property of the state-file reader (fuzz target `state_file`, replayed by
//! `crates/state/tests/fuzz_corpus.rs`): whatever bytes one state file holds, `read_bundle`
//! succeeds, and the bytes are never silently lost: either the file is still there unchanged
//! (it was read) or it was moved aside to `<name>.corrupt-<ms>` with exactly those bytes.
//!
//! Input layout: the first byte picks the file (`ALL_FILES[b % 5]`), the rest is its content.

use context_fsio::{session_dir, STATE_DIR};
use context_state::{read_bundle, ALL_FILES};
use std::fs;
use std::path::PathBuf;

fn scratch_root() -> PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let d = base.join(format!(
        "context-fuzz-state-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = fs::remove_dir_all(&d);
    d
}

pub fn check(data: &[u8]) {
    let Some((&pick, content)) = data.split_first() else {
        return;
    };
    let name = ALL_FILES[pick as usize % ALL_FILES.len()];
    let root = scratch_root();
    let dir = session_dir(&root, &STATE_DIR, "fuzz").unwrap();
    fs::write(dir.join(name), content).unwrap();
    let bundle = read_bundle(&root, "fuzz", None);
    assert!(bundle.is_ok(), "read_bundle failed: {:?}", bundle.err());
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 1, "exactly one file expected, got {names:?}");
    let kept = &names[0];
    assert!(
        kept == name || kept.starts_with(&format!("{name}.corrupt-")),
        "unexpected file {kept}"
    );
    assert_eq!(
        fs::read(dir.join(kept)).unwrap(),
        content,
        "the state file's bytes changed"
    );
    if kept == name {
        // Read as valid: reading again gives the same bundle and still moves nothing.
        let again = read_bundle(&root, "fuzz", None).unwrap();
        assert_eq!(Some(again), bundle.ok());
        assert!(dir.join(name).exists());
    }
    let _ = fs::remove_dir_all(&root);
}
