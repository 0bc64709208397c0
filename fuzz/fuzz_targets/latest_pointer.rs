#![no_main]
//! cargo-fuzz target; the property is in `fuzz/checks/latest_pointer.rs` (shared with the seed replay).

#[path = "../checks/latest_pointer.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check(data));
