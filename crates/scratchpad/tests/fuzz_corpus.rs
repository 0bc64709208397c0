//! Replays the cargo-fuzz corpora of this crate's fuzz targets (`fuzz/corpus/<target>/`) through the
//! same properties the targets check (`fuzz/checks/<target>.rs`): every input the fuzzer kept stays
//! a regression test under a plain `cargo test`.

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
