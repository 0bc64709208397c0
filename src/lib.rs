//! The napi binding of `@openclaw/context-native`: a thin layer that converts JS values to the core
//! crates' types and maps their errors to JS errors with stable codes. All logic lives in `crates/`.
//! One file per concern; `error.rs` holds the only error mapping and the sync/async wrappers.
#![deny(clippy::all)]
// napi registers the exports only in the cdylib build; a `cfg(test)` build sees them as unused.
#![cfg_attr(test, allow(dead_code))]

mod checkpoint;
mod error;
mod gauge;
mod history;
mod js;
mod offload;
mod offthread;
mod persisted;
mod retention;
mod scratchpad;
mod state;
mod tokens;

use napi::Env;
use napi_derive::napi;

/// A tiktoken encoding: `'o200k_base'` (GPT-4o, GPT-5; the default) or `'cl100k_base'` (GPT-4).
#[napi]
pub type Encoding = String;

/// Test hook: panics inside Rust so tests can prove a panic becomes a JS `Error` with code
/// `Panic` instead of aborting Node. Never call it in production.
#[napi(catch_unwind, js_name = "__panicForTest")]
pub fn panic_for_test(env: Env) -> napi::Result<()> {
    error::run(&env, || panic!("deliberate panic for the test suite"))
}
