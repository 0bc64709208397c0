//! JS surface of token counting.

use crate::error::{run, spawn, Job};
use context_fsio::Error;
use context_tokens::Encoding;
use napi::bindgen_prelude::AsyncTask;
use napi::Env;
use napi_derive::napi;

/// Parses the optional `encoding` argument shared by every export that counts tokens.
pub(crate) fn parse_encoding(encoding: Option<&str>) -> Result<Encoding, Error> {
    match encoding {
        None => Ok(Encoding::default()),
        Some(name) => Encoding::from_name(name).ok_or_else(|| {
            Error::invalid_arg(format!(
                "encoding must be 'o200k_base' or 'cl100k_base', got {name:?}"
            ))
        }),
    }
}

/// Counts the tokens of `text` exactly as OpenAI's `tiktoken` does with
/// `encode(text, [], [])`: special-token strings such as `<|endoftext|>` count as plain text.
///
/// Builds the encoding's tables on first use; call `warmup()` at start-up to move that off the
/// main thread. Linear in the length of `text`, whatever its content.
///
/// @param encoding - `'o200k_base'` (default) or `'cl100k_base'`.
/// @throws `InvalidArg` for an unknown encoding or a non-string `text`.
#[napi(strict, catch_unwind)]
pub fn count_tokens(
    env: Env,
    text: String,
    #[napi(ts_arg_type = "Encoding")] encoding: Option<String>,
) -> napi::Result<u32> {
    run(&env, || {
        let enc = parse_encoding(encoding.as_deref())?;
        Ok(context_tokens::count_tokens(&text, enc) as u32)
    })
}

/// Builds the BPE tables of `encoding` on a worker thread, so the first `countTokens` on the
/// main thread is fast. Idempotent: the tables are built at most once per process.
///
/// @param encoding - `'o200k_base'` (default) or `'cl100k_base'`.
/// @throws (rejects) `InvalidArg` for an unknown encoding.
#[napi(strict, catch_unwind, ts_return_type = "Promise<void>")]
pub fn warmup(#[napi(ts_arg_type = "Encoding")] encoding: Option<String>) -> AsyncTask<Job<()>> {
    spawn(move || {
        context_tokens::warmup(parse_encoding(encoding.as_deref())?);
        Ok(())
    })
}
