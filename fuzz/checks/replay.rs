//! Replays a cargo-fuzz corpus (`fuzz/corpus/<target>/`) through the property its fuzz target
//! checks, so every input the fuzzer kept stays a regression test under a plain `cargo test`.
//! Included with `#[path]` by the `tests/fuzz_corpus.rs` of the crates under test.

/// Feeds every file of `<manifest_dir>/../../fuzz/corpus/<target>/` to `check` (which panics on a
/// violated property). Skipped, with a note, when the corpus is absent; fails when it is empty.
pub fn replay(manifest_dir: &str, target: &str, check: fn(&[u8])) {
    let dir = std::path::Path::new(manifest_dir)
        .join("../../fuzz/corpus")
        .join(target);
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("no corpus at {}", dir.display());
        return;
    };
    let mut n = 0;
    for e in rd.flatten() {
        let Ok(data) = std::fs::read(e.path()) else {
            continue; // removed by a running fuzzer
        };
        check(&data);
        n += 1;
    }
    assert!(n > 0, "the corpus directory {} is empty", dir.display());
}
