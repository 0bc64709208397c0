//! Replays the seeds of this crate's fuzz targets (`fuzz/seeds/<target>/`, and a local
//! `fuzz/corpus/<target>/` when a fuzzer run left one) through the same properties the targets
//! check (`fuzz/checks/<target>.rs`): every input kept stays a regression test under `cargo test`.

#[path = "../../../fuzz/checks/replay.rs"]
mod replay;

#[path = "../../../fuzz/checks/scratchpad_action.rs"]
mod scratchpad_action;

#[test]
fn replay_scratchpad_action_corpus() {
    replay::replay(
        env!("CARGO_MANIFEST_DIR"),
        "scratchpad_action",
        scratchpad_action::check,
    );
}
