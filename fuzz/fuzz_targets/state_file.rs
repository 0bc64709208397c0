#![no_main]
//! cargo-fuzz target; the property is in `fuzz/checks/state_file.rs` (shared with the seed replay).

#[path = "../checks/state_file.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check(data));
