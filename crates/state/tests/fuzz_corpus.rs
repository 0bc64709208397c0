//! Replays the seeds of this crate's fuzz targets (`fuzz/seeds/<target>/`, and a local
//! `fuzz/corpus/<target>/` when a fuzzer run left one) through the same properties the targets
//! check (`fuzz/checks/<target>.rs`): every input kept stays a regression test under `cargo test`.

#[path = "../../../fuzz/checks/replay.rs"]
mod replay;

#[path = "../../../fuzz/checks/state_file.rs"]
mod state_file;

#[test]
fn replay_state_file_corpus() {
    replay::replay(env!("CARGO_MANIFEST_DIR"), "state_file", state_file::check);
}
