#![no_main]
//! cargo-fuzz target; the property is in `fuzz/checks/scratchpad_action.rs` (shared with the seed replay).

#[path = "../checks/scratchpad_action.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check(data));
