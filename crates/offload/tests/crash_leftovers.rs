//! Found by the reliability suite (issue 8): a writer SIGKILLed mid-write leaves a `.tmp-` file in
//! the observation store, and only `gc` removed it, so it survived every later write. Writes now
//! sweep them under the store's lock.

use context_fsio::{session_dir_name, TEMP_PREFIX};
use context_offload::*;
use std::fs;

#[test]
fn the_next_write_removes_temp_files_of_a_crashed_write() {
    let root = std::env::temp_dir().join(format!("offload-crash-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let key = "agent:main:crash";
    let (x, y) = ("x".repeat(10_000), "y".repeat(10_000));
    let mut r = OffloadRequest::new(Content::Text(&x));
    r.store.durable = false;
    offload(&root, key, r).unwrap();
    let dir = root
        .join("context/observations")
        .join(session_dir_name(key).unwrap());
    let leftover = dir.join(format!("{TEMP_PREFIX}0123456789abcdef.dat-999-1"));
    fs::write(&leftover, b"torn half of a crashed write").unwrap();

    let mut r = OffloadRequest::new(Content::Text(&y));
    r.store.durable = false;
    offload(&root, key, r).unwrap();
    assert!(
        !leftover.exists(),
        "the crashed write's temp file survived the next write"
    );
    fs::remove_dir_all(&root).unwrap();
}

/// Found by the reliability suite (issue 8): on a full disk, `readObservation` failed `NoSpace`
/// because it rewrites the catalog to record the read time. The read now answers; only the LRU
/// time is lost. Simulated here by directories planted at the catalog's temp file names.
#[test]
fn a_read_answers_when_its_bookkeeping_cannot_be_written() {
    let root = std::env::temp_dir().join(format!("offload-full-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let key = "agent:main:full";
    let x = "x".repeat(10_000);
    let mut r = OffloadRequest::new(Content::Text(&x));
    r.store.durable = false;
    let id = offload(&root, key, r).unwrap().entry.unwrap().id;
    let dir = root
        .join("context/observations")
        .join(session_dir_name(key).unwrap());
    let pid = std::process::id();
    for n in 0..2_000 {
        fs::create_dir(dir.join(format!("{TEMP_PREFIX}catalog.json-{pid}-{n}"))).unwrap();
    }
    let out = read(&root, key, &ReadRequest::new(&id, Mode::Head)).unwrap();
    assert_eq!(out.content.len(), 2000);
    fs::remove_dir_all(&root).unwrap();
}
