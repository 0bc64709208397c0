//! Replays the seeds of this crate's fuzz targets (`fuzz/seeds/<target>/`, and a local
//! `fuzz/corpus/<target>/` when a fuzzer run left one) through the same properties the targets
//! check (`fuzz/checks/<target>.rs`): every input kept stays a regression test under `cargo test`.

#[path = "../../../fuzz/checks/replay.rs"]
mod replay;

#[path = "../../../fuzz/checks/checkpoint_yaml.rs"]
mod checkpoint_yaml;

#[test]
fn replay_checkpoint_yaml_corpus() {
    replay::replay(
        env!("CARGO_MANIFEST_DIR"),
        "checkpoint_yaml",
        checkpoint_yaml::check,
    );
}

#[path = "../../../fuzz/checks/latest_pointer.rs"]
mod latest_pointer;

#[test]
fn replay_latest_pointer_corpus() {
    replay::replay(
        env!("CARGO_MANIFEST_DIR"),
        "latest_pointer",
        latest_pointer::check,
    );
}
