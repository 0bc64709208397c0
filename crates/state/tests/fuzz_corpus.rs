//! Replays the cargo-fuzz corpus (`fuzz/corpus/<target>/`) through the same property the fuzz
//! target checks (`fuzz/checks/<target>.rs`), so every input the fuzzer kept stays a regression
//! test under a plain `cargo test`. Skipped (with a note) when the corpus is absent.

#[path = "../../../fuzz/checks/state_file.rs"]
mod state_file;

#[test]
fn replay_state_file_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/state_file");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("no corpus at {}", dir.display());
        return;
    };
    let mut n = 0;
    for e in rd.flatten() {
        let Ok(data) = std::fs::read(e.path()) else {
            continue; // removed by a running fuzzer
        };
        state_file::check(&data);
        n += 1;
    }
    assert!(n > 0, "the corpus directory {} is empty", dir.display());
}
