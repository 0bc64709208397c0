#![no_main]
//! cargo-fuzz target; the property is in `fuzz/checks/checkpoint_yaml.rs` (shared with the seed replay).

#[path = "../checks/checkpoint_yaml.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check(data));
