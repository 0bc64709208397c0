//! JS surface of the observation store (seeds 003 and 004): offload a large tool result, read it
//! back by slice / lines / regex, named entries (write, edit, list, delete), garbage collection,
//! `{{observation:..}}` reference expansion and the model-facing tool definitions. All logic
//! lives in `context-offload`.
//!
//! Content (`string` or `Uint8Array` / `Buffer`) never goes through `serde_json::Value`: it is taken
//! out of the input object on its own, a string copied once into Rust (a big one, in the Promise
//! forms, a slice per event-loop turn: see `offthread`), a `Uint8Array` borrowed
//! (not copied) and written to disk from the worker thread.

use crate::error::{from_js, run, spawn, Job};
use crate::js::Json;
use crate::offthread::{rest_json, Gather, Gathered};
use context_fsio::{rfc3339, Error};
use context_offload as core;
use napi::bindgen_prelude::{
    AsyncTask, Either, FnArgs, Function, JsObjectValue, JsValue, Object, ToNapiValue, Uint8Array,
    Unknown,
};
use napi::{sys, Env, ValueType};
use napi_derive::napi;
use serde::Deserialize;
use std::path::PathBuf;

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/// Input of `offloadObservation`: a tool result and where to park it.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OffloadInput {
    /// OpenClaw's state directory (e.g. `~/.openclaw`, expanded). Entries go to
    /// `<stateDir>/context/observations/<session dir>/`.
    pub state_dir: String,
    /// The session key, e.g. `agent:main:telegram:direct:123456` (same directory name as checkpoints).
    pub session_key: String,
    /// The observation: a string (text), or bytes (`Uint8Array` / `Buffer`: text when valid UTF-8,
    /// otherwise binary).
    #[serde(skip)]
    #[napi(ts_type = "string | Uint8Array")]
    pub content: serde_json::Value,
    /// The observation's metadata (path, bytes, encoding, ...): counted in the measured size and
    /// kept whole in the synthetic observation.
    #[napi(ts_type = "Record<string, unknown>")]
    pub metadata: Option<serde_json::Value>,
    /// The turn the observation belongs to: reads and lists can be limited to it.
    pub turn_id: Option<String>,
    /// The tool that produced it: automatic entries are named `<toolName>_<n>` (`observation_<n>`
    /// without it).
    pub tool_name: Option<String>,
    /// An explicit save (seed 004's `scratchpad` parameter): stored under this name whatever its
    /// size, overwriting an entry of the same name, with no TTL unless `ttlSeconds`. Names may not
    /// contain `/`, `\` or NUL, nor be `.` or `..`.
    pub name: Option<String>,
    /// Observations whose JSON (`{"content":..,"metadata":..}`, binary content as base64) is
    /// larger than this many bytes are offloaded (seed 003's `len(json.dumps(observation))`).
    /// @default 4096
    pub threshold_bytes: Option<u32>,
    /// Time to live of the entry; 0 = never expires.
    /// @default 3600 for automatic offloads, none for named entries
    pub ttl_seconds: Option<u32>,
    /// Per-session byte quota: expired, then least recently used, entries are evicted to make room.
    /// @default 536870912 (512 MiB)
    pub quota_bytes: Option<f64>,
    /// Ids or names never evicted (e.g. the session's scratchpad refs). Entries whose id or name
    /// appears in the session's latest checkpoint are protected too.
    pub protect: Option<Vec<String>>,
    /// fsync content and catalog before resolving.
    /// @default true
    pub durable: Option<bool>,
    /// Never evict an entry that has not expired to make room: over the quota the call rejects
    /// with `TooLarge` and nothing is stored. For a host that hands the model the synthetic
    /// observation in place of the result: what the model may still read is never dropped, and a
    /// result that cannot be kept is not parked (give the model the result itself).
    /// @default false
    pub keep_live: Option<bool>,
}

/// Input of `writeObservation` (seed 004's `scratchpad_write`).
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteObservationInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
    /// The entry name; an existing entry of that name is overwritten (same id).
    pub name: String,
    /// The content: a string, or bytes (text when valid UTF-8, otherwise binary).
    #[serde(skip)]
    #[napi(ts_type = "string | Uint8Array")]
    pub content: serde_json::Value,
    /// The turn it belongs to.
    pub turn_id: Option<String>,
    /// Time to live; 0 or absent = never expires.
    pub ttl_seconds: Option<u32>,
    /// Per-session byte quota.
    /// @default 536870912 (512 MiB)
    pub quota_bytes: Option<f64>,
    /// Ids or names never evicted.
    pub protect: Option<Vec<String>>,
    /// fsync before resolving.
    /// @default true
    pub durable: Option<bool>,
}

/// Input of `readObservation`: which entry and which part of it. Accepts the arguments of the
/// `scratchpad_read` tool as they come (`scratchpad_id`).
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadObservationInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
    /// The entry's `scratchpad_id` (a name is accepted too). Alias: `scratchpad_id`.
    #[serde(alias = "scratchpad_id", alias = "scratchpadId")]
    pub id: Option<String>,
    /// The entry's name (an id is accepted too). `history` stands for every history entry of the
    /// session (the compacted conversation, `history-<n>`, see `writeHistory`): `grep` searches
    /// them all at once, newest first, within one read's bounds; another mode reads the newest. A
    /// grep of history shows 2 lines of context unless `context` is given.
    pub name: Option<String>,
    /// Only find the entry if it belongs to this turn (seed 003's turn isolation).
    pub turn_id: Option<String>,
    /// `head`: first `n` characters; `tail`: last `n`; `range`: characters `[start, end)`;
    /// `full`: everything (refused above `maxChars`); `lines`: lines `start..=end` (1-based);
    /// `grep`: lines matching `pattern`, numbered. Binary entries: head / tail / range / full,
    /// in bytes, returned as hex.
    /// @default 'head'
    #[napi(ts_type = "'head' | 'tail' | 'range' | 'full' | 'lines' | 'grep'")]
    pub mode: Option<String>,
    /// head / tail: characters to read; grep: most matching lines (at most 100).
    /// @default 2000 (grep: 100)
    pub n: Option<u32>,
    /// range: first character (default 0); lines: first line, 1-based (default 1).
    pub start: Option<u32>,
    /// range: the character after the last (default `start + n`); lines: last line, inclusive
    /// (default the last line).
    pub end: Option<u32>,
    /// grep: a regular expression (Rust `regex` syntax; `(?i)` for case-insensitive). Alias: `regex`.
    /// Without a `mode`, a pattern means `grep` (seed 004's `regex`).
    #[serde(alias = "regex")]
    pub pattern: Option<String>,
    /// Seed 004's first character: `start` where that is not given. Without a `mode`, an `offset`
    /// or a `limit` means `range`.
    pub offset: Option<u32>,
    /// Seed 004's most characters: `end = start + limit` for `range` (default 30000 when read by
    /// `offset` / `limit`), `n` for head, tail and grep, where those are not given.
    pub limit: Option<u32>,
    /// grep: lines of context before and after each match (at most 50).
    /// @default 0
    pub context: Option<u32>,
    /// Most characters (bytes for binary) a read returns; a longer slice is cut and flagged
    /// `truncated`, and `full` is refused (`TooLarge`) for larger entries.
    /// @default 50000
    pub max_chars: Option<u32>,
}

/// Input of `editObservation` (seed 004's `scratchpad_edit`): either `content` (full overwrite) or
/// `oldString` + `newString`. Accepts the tool's snake_case arguments too.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditObservationInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
    /// The entry's id (alias `scratchpad_id`).
    #[serde(alias = "scratchpad_id")]
    pub id: Option<String>,
    /// The entry's name.
    pub name: Option<String>,
    /// Only find the entry if it belongs to this turn.
    pub turn_id: Option<String>,
    /// The new full content (mutually exclusive with `oldString` / `newString`).
    pub content: Option<String>,
    /// Text to find; must occur exactly once unless `replaceAll`. Aliases: `old_string`, `old`.
    #[serde(alias = "old_string", alias = "old")]
    pub old_string: Option<String>,
    /// Replacement text. Aliases: `new_string`, `new`.
    #[serde(alias = "new_string", alias = "new")]
    pub new_string: Option<String>,
    /// Replace every occurrence. Alias: `replace_all`.
    /// @default false
    #[serde(alias = "replace_all")]
    pub replace_all: Option<bool>,
    /// Per-session byte quota.
    /// @default 536870912 (512 MiB)
    pub quota_bytes: Option<f64>,
    /// Ids or names never evicted.
    pub protect: Option<Vec<String>>,
    /// fsync before resolving.
    /// @default true
    pub durable: Option<bool>,
}

/// Input of `listObservations` (seed 004's `scratchpad_list`).
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListObservationsInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
    /// Only this turn's entries.
    pub turn_id: Option<String>,
    /// Include expired entries not yet collected.
    /// @default false
    pub include_expired: Option<bool>,
}

/// Input of `deleteObservation` (seed 004's `scratchpad_delete`).
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteObservationInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
    /// The entry's id (alias `scratchpad_id`).
    #[serde(alias = "scratchpad_id")]
    pub id: Option<String>,
    /// The entry's name.
    pub name: Option<String>,
}

/// A session's store, for `deleteObservationSession`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservationSessionInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
}

/// Input of `gcObservations`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GcObservationsInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// One session; absent = every session store under `stateDir`.
    pub session_key: Option<String>,
    /// Per-session byte quota enforced by the collection.
    /// @default 536870912 (512 MiB)
    pub quota_bytes: Option<f64>,
    /// Ids or names never removed, even expired (e.g. the session's scratchpad refs). Entries
    /// whose id or name appears in the session's latest checkpoint are protected too.
    pub protect: Option<Vec<String>>,
}

/// Input of `expandObservationRefs`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpandObservationRefsInput {
    /// OpenClaw's state directory.
    pub state_dir: String,
    /// The session key.
    pub session_key: String,
    /// A tool argument: a string, or any JSON value whose strings may hold
    /// `{{observation:<id or name>}}` references.
    #[napi(ts_type = "unknown")]
    pub value: serde_json::Value,
    /// Only resolve entries of this turn.
    pub turn_id: Option<String>,
    /// Largest expanded string, in bytes (`TooLarge` above).
    /// @default 67108864 (64 MiB)
    pub max_bytes: Option<u32>,
}

// ---------------------------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------------------------

/// One stored entry, as `listObservations` shows it.
#[napi(object)]
pub struct ObservationEntry {
    /// 16 hex characters (the `scratchpad_id`).
    pub id: String,
    /// Unique in the session: given, or `<toolName>_<n>`.
    pub name: String,
    /// `text` (offsets count Unicode characters) or `binary` (offsets count bytes).
    #[napi(ts_type = "'text' | 'binary'")]
    pub kind: String,
    /// Size of the content in bytes.
    pub size_bytes: f64,
    /// Unicode characters (text); equal to `sizeBytes` for binary.
    pub chars: f64,
    /// Lines (a last line without `\n` counts); 0 for binary.
    pub lines: f64,
    /// SHA-256 (hex) of binary content.
    pub sha256: Option<String>,
    /// The turn it belongs to.
    pub turn_id: Option<String>,
    /// The tool that produced it.
    pub tool_name: Option<String>,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// RFC 3339 UTC, last write or edit.
    pub updated_at: String,
    /// RFC 3339 UTC; absent = never expires.
    pub expires_at: Option<String>,
    /// RFC 3339 UTC of the last read.
    pub last_read_at: Option<String>,
}

impl From<&core::Entry> for ObservationEntry {
    fn from(e: &core::Entry) -> Self {
        ObservationEntry {
            id: e.id.clone(),
            name: e.name.clone(),
            kind: e.kind.as_str().into(),
            size_bytes: e.size_bytes as f64,
            chars: e.chars as f64,
            lines: e.lines as f64,
            sha256: e.sha256.clone(),
            turn_id: e.turn_id.clone(),
            tool_name: e.tool_name.clone(),
            created_at: rfc3339(e.created_at),
            updated_at: rfc3339(e.updated_at),
            expires_at: e.expires_at.map(rfc3339),
            last_read_at: e.last_read_at.map(rfc3339),
        }
    }
}

/// Seed 003's synthetic observation, put in the model's history instead of a large result.
#[napi(object, object_to_js = false)]
pub struct SyntheticObservation {
    /// Always `true`.
    pub ok: bool,
    /// The entry's id: pass it to `scratchpad_read`.
    #[napi(js_name = "scratchpad_id")]
    pub scratchpad_id: String,
    /// The entry's name (seed 004), e.g. `read_3`.
    pub name: String,
    /// Size of the content in bytes.
    #[napi(js_name = "size_bytes")]
    pub size_bytes: f64,
    /// `text` or `binary`.
    #[napi(ts_type = "'text' | 'binary'")]
    pub kind: String,
    /// Text: the first 500 characters, a line `[... N characters omitted ...]`, the last 500.
    /// Binary: `[BINARY: N bytes, sha256=<hex>]`.
    pub summary: String,
    /// The original metadata.
    #[napi(ts_type = "Record<string, unknown>")]
    pub metadata: Option<serde_json::Value>,
    /// Tells the model to use `scratchpad_read` (and `{{observation:<id>}}`).
    #[napi(js_name = "_note")]
    pub note: String,
}

/// Builds the JS object with its properties in seed 003's order (`ok`, `scratchpad_id`, `name`,
/// `size_bytes`, `kind`, `summary`, `metadata`, `_note`): the host serialises it into the history as is.
impl ToNapiValue for SyntheticObservation {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        let js_env = Env::from_raw(env);
        let mut obj = Object::new(&js_env)?;
        obj.set("ok", val.ok)?;
        obj.set("scratchpad_id", val.scratchpad_id)?;
        obj.set("name", val.name)?;
        obj.set("size_bytes", val.size_bytes)?;
        obj.set("kind", val.kind)?;
        obj.set("summary", val.summary)?;
        if let Some(m) = val.metadata {
            obj.set("metadata", m)?;
        }
        obj.set("_note", val.note)?;
        // SAFETY: `env` is the live env napi hands to every return conversion.
        unsafe { Object::to_napi_value(env, obj) }
    }
}

/// An observation under the threshold, whole: the object that was measured.
#[napi(object)]
pub struct WholeObservation {
    /// The content (binary as base64).
    pub content: String,
    /// `base64` for binary content.
    #[napi(ts_type = "'base64'")]
    pub encoding: Option<String>,
    /// The original metadata.
    #[napi(ts_type = "Record<string, unknown>")]
    pub metadata: Option<serde_json::Value>,
}

/// The answer of `offloadObservation`.
#[napi(object)]
pub struct OffloadResult {
    /// `true`: over the threshold, `observation` is the synthetic one.
    pub offloaded: bool,
    /// What goes into the history: seed 003's synthetic observation, or the observation whole.
    pub observation: Either<SyntheticObservation, WholeObservation>,
    /// The measured JSON size compared with `thresholdBytes`.
    pub measured_bytes: f64,
    /// Size of the content in bytes.
    pub size_bytes: f64,
    /// `text` or `binary`.
    #[napi(ts_type = "'text' | 'binary'")]
    pub kind: String,
    /// The stored entry (offloaded, or saved under `name`); absent when nothing was stored.
    pub entry: Option<ObservationEntry>,
    /// Ids of entries evicted to make room (expired, then least recently used).
    pub evicted: Vec<String>,
}

/// The answer of `writeObservation`.
#[napi(object)]
pub struct WriteObservationResult {
    /// The stored entry.
    pub entry: ObservationEntry,
    /// Ids of entries evicted to make room.
    pub evicted: Vec<String>,
}

/// The answer of `editObservation`.
#[napi(object)]
pub struct EditObservationResult {
    /// The entry after the edit.
    pub entry: ObservationEntry,
    /// Occurrences replaced (1 for a full overwrite).
    pub replacements: u32,
}

/// The answer of `readObservation`: the slice and where it sits in the entry.
#[napi(object)]
pub struct ReadObservationResult {
    /// The entry's id.
    pub id: String,
    /// The entry's name.
    pub name: String,
    /// `text` or `binary`.
    #[napi(ts_type = "'text' | 'binary'")]
    pub kind: String,
    /// The mode that ran.
    #[napi(ts_type = "'head' | 'tail' | 'range' | 'full' | 'lines' | 'grep'")]
    pub mode: String,
    /// The text read (hex for binary). grep: `N:line` for matches, `N-line` for context lines,
    /// `--` between separate groups.
    pub content: String,
    /// `utf-8`, or `hex` for binary entries.
    #[napi(ts_type = "'utf-8' | 'hex'")]
    pub encoding: String,
    /// Offset of the first character (byte, for binary) returned; absent for grep.
    pub start: Option<f64>,
    /// Offset after the last one returned; absent for grep.
    pub end: Option<f64>,
    /// lines: first line returned.
    pub start_line: Option<f64>,
    /// lines: last line returned (partly, when `truncated`).
    pub end_line: Option<f64>,
    /// grep: matching lines returned.
    pub matches: Option<u32>,
    /// The slice was cut at `maxChars`, or grep stopped at its match limit with more to find.
    pub truncated: bool,
    /// The entry's characters (bytes for binary).
    pub total_chars: f64,
    /// The entry's bytes.
    pub total_bytes: f64,
    /// The entry's lines (0 for binary).
    pub total_lines: f64,
    /// The entry's turn.
    pub turn_id: Option<String>,
    /// RFC 3339 UTC; absent = never expires.
    pub expires_at: Option<String>,
}

/// The answer of `gcObservations`.
#[napi(object)]
pub struct GcObservationsResult {
    /// Entries removed (expired, or evicted for the quota).
    pub removed: Vec<ObservationEntry>,
    /// Session stores visited.
    pub sessions: u32,
    /// Entries left in the stores visited.
    pub remaining_entries: u32,
    /// Bytes left in the stores visited.
    pub remaining_bytes: f64,
}

/// A model-facing tool over the store, in seed 003's shape.
#[napi(object)]
pub struct ObservationToolDefinition {
    /// `scratchpad_read`, `scratchpad_write`, `scratchpad_edit`, `scratchpad_list` or `scratchpad_delete`.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON schema of the arguments.
    #[napi(ts_type = "Record<string, unknown>")]
    pub parameters: serde_json::Value,
}

// ---------------------------------------------------------------------------------------------
// Conversion
// ---------------------------------------------------------------------------------------------

/// Content taken out of an input object: a string (copied once) or a borrowed `Uint8Array`.
enum ContentArg {
    Text(String),
    Bytes(Uint8Array),
}

impl ContentArg {
    fn as_content(&self) -> core::Content<'_> {
        match self {
            ContentArg::Text(s) => core::Content::Text(s),
            ContentArg::Bytes(b) => core::Content::Bytes(b),
        }
    }
}

/// Strings longer than this many UTF-16 units are converted with Node's `Buffer.from` (simdutf,
/// several GB/s) instead of napi's UTF-8 copy (two passes, a few hundred MB/s).
const BUFFER_FROM_MIN_UNITS: usize = 1 << 16;

/// The length of a JS string in UTF-16 units (no copy).
fn utf16_len(env: &Env, value: &Unknown) -> napi::Result<usize> {
    let mut len = 0usize;
    // SAFETY: `value` is a live string handle of the current call; a null buffer asks for the length.
    let status = unsafe {
        sys::napi_get_value_string_utf16(env.raw(), value.raw(), std::ptr::null_mut(), 0, &mut len)
    };
    if status != sys::Status::napi_ok {
        return Err(napi::Error::from_reason("cannot read the string length"));
    }
    Ok(len)
}

/// A long JS string as UTF-8 bytes made by `Buffer.from(s, 'utf8')` (lone surrogates become
/// U+FFFD, as with napi's own conversion), borrowed without another copy.
fn string_via_buffer(env: &Env, value: Unknown) -> napi::Result<Uint8Array> {
    let global = env.get_global()?;
    // `Buffer` is a function; read its `from` property through an object view of it.
    let buffer: Unknown = global.get_named_property("Buffer")?;
    let buffer = Object::from_raw(env.raw(), buffer.raw());
    let from: Function<FnArgs<(Unknown, &str)>, Unknown> = buffer.get_named_property("from")?;
    let out = from.apply(buffer, FnArgs::from((value, "utf8")))?;
    // SAFETY: `Buffer.from` returns a Buffer, a Uint8Array; the conversion checks it anyway.
    unsafe { out.cast::<Uint8Array>() }
}

/// Splits an input object into its `content` (string or `Uint8Array`) and the rest, as JSON for
/// `from_js`. The content never goes through `serde_json::Value`.
fn split_content(env: &Env, input: Unknown) -> Result<(ContentArg, serde_json::Value), Error> {
    let bad = |e: napi::Error| Error::invalid_arg(format!("input: {}", e.reason));
    if input.get_type().map_err(bad)? != ValueType::Object {
        return Err(Error::invalid_arg(
            "input must be an object like { stateDir, sessionKey, content }",
        ));
    }
    // SAFETY: checked to be an object just above.
    let obj: Object = unsafe { input.cast() }.map_err(bad)?;
    let content: Unknown = obj.get("content").map_err(bad)?.ok_or_else(|| {
        Error::invalid_arg("input.content is missing: pass a string or a Uint8Array")
    })?;
    let content = match content.get_type().map_err(bad)? {
        ValueType::String if utf16_len(env, &content).map_err(bad)? >= BUFFER_FROM_MIN_UNITS => {
            // Valid UTF-8 by construction: classified as text.
            ContentArg::Bytes(string_via_buffer(env, content).map_err(bad)?)
        }
        // SAFETY: the type was checked.
        ValueType::String => ContentArg::Text(unsafe { content.cast::<String>() }.map_err(bad)?),
        // SAFETY: `Uint8Array`'s conversion checks that the object is a Uint8Array (or Buffer).
        ValueType::Object => {
            ContentArg::Bytes(unsafe { content.cast::<Uint8Array>() }.map_err(|_| {
                Error::invalid_arg("input.content must be a string or a Uint8Array / Buffer")
            })?)
        }
        _ => {
            return Err(Error::invalid_arg(
                "input.content must be a string or a Uint8Array / Buffer",
            ))
        }
    };
    Ok((content, rest_json(&obj, "content")?))
}

/// The Promise form of a call taking `content`: a string of at least
/// [`crate::offthread::STRING_MIN_UNITS`] UTF-16 units is copied off the input a slice per
/// event-loop turn and converted on the pool ([`crate::offthread`]); anything else is taken as
/// `split_content` takes it. Argument errors reject.
fn content_job<I, T>(
    env: &Env,
    input: Unknown,
    work: fn(ContentArg, I) -> Result<T, Error>,
) -> AsyncTask<Gather<T>>
where
    I: serde::de::DeserializeOwned + Send + 'static,
    T: Send + ToNapiValue + 'static,
{
    let big = (|| -> Result<Option<(Unknown, usize, serde_json::Value)>, Error> {
        if input.get_type().ok() != Some(ValueType::Object) {
            return Ok(None);
        }
        // SAFETY: checked to be an object just above.
        let obj: Object = unsafe { input.cast() }
            .map_err(|e| Error::invalid_arg(format!("input: {}", e.reason)))?;
        let Ok(Some(content)) = obj.get::<Unknown>("content") else {
            return Ok(None);
        };
        if content.get_type().ok() != Some(ValueType::String) {
            return Ok(None);
        }
        let len = utf16_len(env, &content)
            .map_err(|e| Error::invalid_arg(format!("input.content: {}", e.reason)))?;
        if len < crate::offthread::STRING_MIN_UNITS {
            return Ok(None);
        }
        Ok(Some((content, len, rest_json(&obj, "content")?)))
    })();
    let task = match big {
        Err(e) => Gather::failed(e),
        Ok(Some((content, len, rest))) => match from_js::<I>(rest, "input") {
            Err(e) => Gather::failed(e),
            Ok(parsed) => {
                let mut g = Gather::new(move |mut got: Vec<Gathered>| match got.pop() {
                    Some(Gathered::Text(text)) => work(ContentArg::Text(text), parsed),
                    _ => Err(Error::invalid_arg("input.content was not gathered")),
                });
                match g.add_text(env, &content, len) {
                    Ok(()) => g,
                    Err(e) => Gather::failed(e),
                }
            }
        },
        Ok(None) => match split_content(env, input)
            .and_then(|(c, rest)| Ok((c, from_js::<I>(rest, "input")?)))
        {
            Ok((content, parsed)) => Gather::new(move |_| work(content, parsed)),
            Err(e) => Gather::failed(e),
        },
    };
    AsyncTask::new(task)
}

/// A `quotaBytes` option: a non-negative integer (`InvalidArg` otherwise).
pub(crate) fn quota(q: Option<f64>) -> Result<Option<u64>, Error> {
    match q {
        None => Ok(None),
        Some(q) if q.is_finite() && q >= 0.0 && q.fract() == 0.0 => Ok(Some(q as u64)),
        Some(q) => Err(Error::invalid_arg(format!(
            "quotaBytes must be a non-negative integer, got {q}"
        ))),
    }
}

fn store_options(
    quota_bytes: Option<f64>,
    protect: Option<Vec<String>>,
    durable: Option<bool>,
) -> Result<core::StoreOptions, Error> {
    Ok(core::StoreOptions {
        quota_bytes: quota(quota_bytes)?,
        protect: protect.unwrap_or_default(),
        durable: durable.unwrap_or(true),
        keep_live: false,
    })
}

fn evicted_ids(v: &[core::Entry]) -> Vec<String> {
    v.iter().map(|e| e.id.clone()).collect()
}

// ---------------------------------------------------------------------------------------------
// Work (shared by the async and sync forms)
// ---------------------------------------------------------------------------------------------

fn do_offload(content: ContentArg, input: OffloadInput) -> Result<OffloadResult, Error> {
    let mut req = core::OffloadRequest::new(content.as_content());
    req.metadata = input.metadata;
    req.turn_id = input.turn_id;
    req.tool_name = input.tool_name;
    req.name = input.name;
    req.threshold_bytes = input.threshold_bytes.map(u64::from);
    req.ttl_seconds = input.ttl_seconds.map(u64::from);
    req.store = store_options(input.quota_bytes, input.protect, input.durable)?;
    req.store.keep_live = input.keep_live.unwrap_or(false);
    let out = core::offload(&PathBuf::from(input.state_dir), &input.session_key, req)?;
    let observation = match out.observation {
        core::Observation::Synthetic(s) => Either::A(SyntheticObservation {
            ok: s.ok,
            scratchpad_id: s.scratchpad_id,
            name: s.name,
            size_bytes: s.size_bytes as f64,
            kind: s.kind.as_str().into(),
            summary: s.summary,
            metadata: s.metadata,
            note: s._note,
        }),
        core::Observation::Whole(w) => Either::B(WholeObservation {
            content: w.content,
            encoding: w.encoding.map(str::to_string),
            metadata: w.metadata,
        }),
    };
    Ok(OffloadResult {
        offloaded: out.offloaded,
        observation,
        measured_bytes: out.measured_bytes as f64,
        size_bytes: out.size_bytes as f64,
        kind: out.kind.as_str().into(),
        entry: out.entry.as_ref().map(ObservationEntry::from),
        evicted: evicted_ids(&out.evicted),
    })
}

fn do_write(
    content: ContentArg,
    input: WriteObservationInput,
) -> Result<WriteObservationResult, Error> {
    let opts = store_options(input.quota_bytes, input.protect, input.durable)?;
    let (entry, evicted) = core::write(
        &PathBuf::from(input.state_dir),
        &input.session_key,
        &input.name,
        content.as_content(),
        input.turn_id.as_deref(),
        input.ttl_seconds.map(u64::from),
        &opts,
    )?;
    Ok(WriteObservationResult {
        entry: (&entry).into(),
        evicted: evicted_ids(&evicted),
    })
}

fn do_read(input: ReadObservationInput) -> Result<ReadObservationResult, Error> {
    let (mode, start, end, n) = core::read::resolve_mode(
        input.mode.as_deref(),
        input.pattern.is_some(),
        input.start.map(u64::from),
        input.end.map(u64::from),
        input.n.map(u64::from),
        input.offset.map(u64::from),
        input.limit.map(u64::from),
    )?;
    let req = core::ReadRequest {
        id: input.id,
        name: input.name,
        turn_id: input.turn_id,
        mode,
        n,
        start,
        end,
        pattern: input.pattern,
        context: input.context.map(u64::from),
        max_chars: input.max_chars.map(u64::from),
    };
    // (`history` and the history entries read as context-history says: issue 49)
    let r = context_history::read(&PathBuf::from(input.state_dir), &input.session_key, &req)?;
    let e = &r.entry;
    Ok(ReadObservationResult {
        id: e.id.clone(),
        name: e.name.clone(),
        kind: e.kind.as_str().into(),
        mode: r.mode.as_str().into(),
        content: r.content,
        encoding: r.encoding.into(),
        start: r.start.map(|v| v as f64),
        end: r.end.map(|v| v as f64),
        start_line: r.start_line.map(|v| v as f64),
        end_line: r.end_line.map(|v| v as f64),
        matches: r.matches.map(|v| v as u32),
        truncated: r.truncated,
        total_chars: e.chars as f64,
        total_bytes: e.size_bytes as f64,
        total_lines: e.lines as f64,
        turn_id: e.turn_id.clone(),
        expires_at: e.expires_at.map(rfc3339),
    })
}

fn do_edit(input: EditObservationInput) -> Result<EditObservationResult, Error> {
    let edit =
        match (input.content, input.old_string, input.new_string) {
            (Some(c), None, None) => core::Edit::Replace(c),
            (None, Some(old), Some(new)) => core::Edit::Substitute {
                old,
                new,
                replace_all: input.replace_all.unwrap_or(false),
            },
            (Some(_), _, _) => {
                return Err(Error::invalid_arg(
                    "give either content (full overwrite) or oldString + newString, not both",
                ))
            }
            _ => return Err(Error::invalid_arg(
                "give content (full overwrite), or oldString and newString (targeted replacement)",
            )),
        };
    let opts = store_options(input.quota_bytes, input.protect, input.durable)?;
    let (entry, n) = core::edit(
        &PathBuf::from(input.state_dir),
        &input.session_key,
        input.id.as_deref(),
        input.name.as_deref(),
        input.turn_id.as_deref(),
        &edit,
        &opts,
    )?;
    Ok(EditObservationResult {
        entry: (&entry).into(),
        replacements: n as u32,
    })
}

fn do_list(input: ListObservationsInput) -> Result<Vec<ObservationEntry>, Error> {
    let v = core::list(
        &PathBuf::from(input.state_dir),
        &input.session_key,
        input.turn_id.as_deref(),
        input.include_expired.unwrap_or(false),
    )?;
    Ok(v.iter().map(ObservationEntry::from).collect())
}

fn do_delete(input: DeleteObservationInput) -> Result<ObservationEntry, Error> {
    let e = core::delete(
        &PathBuf::from(input.state_dir),
        &input.session_key,
        input.id.as_deref(),
        input.name.as_deref(),
    )?;
    Ok((&e).into())
}

fn do_delete_session(input: ObservationSessionInput) -> Result<bool, Error> {
    core::delete_session(&PathBuf::from(input.state_dir), &input.session_key)
}

fn do_gc(input: GcObservationsInput) -> Result<GcObservationsResult, Error> {
    let opts = store_options(input.quota_bytes, input.protect, Some(true))?;
    let r = core::gc(
        &PathBuf::from(input.state_dir),
        input.session_key.as_deref(),
        &opts,
    )?;
    Ok(GcObservationsResult {
        removed: r.removed.iter().map(ObservationEntry::from).collect(),
        sessions: r.sessions as u32,
        remaining_entries: r.remaining_entries as u32,
        remaining_bytes: r.remaining_bytes as f64,
    })
}

fn do_expand(input: ExpandObservationRefsInput) -> Result<Json, Error> {
    core::expand_refs(
        &PathBuf::from(input.state_dir),
        &input.session_key,
        input.value,
        input.turn_id.as_deref(),
        input.max_bytes.map(u64::from),
    )
    .map(Json)
}

// ---------------------------------------------------------------------------------------------
// Exports
// ---------------------------------------------------------------------------------------------

/// Seed 003's offload: measures the observation as `len(json.dumps(observation))`; above
/// `thresholdBytes` (4096) it parks the content under `<stateDir>/context/observations/<session
/// dir>/` and returns the synthetic observation to put in the history (`scratchpad_id`,
/// `size_bytes`, `kind`, `summary`, `metadata`, `_note`). Under it nothing is stored (unless `name`
/// is given) and the observation comes back whole. Runs on the libuv pool; a string of 4 Mi UTF-16
/// units or more is copied off the input 4 MB per event-loop turn first (the main thread is never
/// blocked for the whole of a 100 MB string). The sync twin converts the string at once.
///
/// @throws (rejects) `InvalidArg` for a bad input or name, `TooLarge` when the content exceeds the
/// session quota, `UnsafePath` for a symlinked session directory, `UnsafeFile` when the store's
/// catalog or lock file is a link, a FIFO or device, or oversized, `Io` / `NoSpace` /
/// `PermissionDenied`.
#[napi(catch_unwind, ts_return_type = "Promise<OffloadResult>")]
pub fn offload_observation(
    env: Env,
    #[napi(ts_arg_type = "OffloadInput")] input: Unknown,
) -> AsyncTask<Gather<OffloadResult>> {
    content_job(&env, input, do_offload)
}

/// Synchronous twin of `offloadObservation` (blocks the event loop for the write).
#[napi(catch_unwind)]
pub fn offload_observation_sync(
    env: Env,
    #[napi(ts_arg_type = "OffloadInput")] input: Unknown,
) -> napi::Result<OffloadResult> {
    run(&env, || {
        let (content, rest) = split_content(&env, input)?;
        do_offload(content, from_js(rest, "input")?)
    })
}

/// Reads part of a stored entry: `head` / `tail` (`n`, 2000), `range` (`start`, `end`: characters,
/// end exclusive), `full` (refused above `maxChars`), `lines` (1-based, end inclusive), `grep`
/// (`pattern`, numbered matching lines, at most 100, `context` lines). The answer carries the
/// entry's totals. A read costs in proportion to its slice (sparse index). Accepts the
/// `scratchpad_read` tool arguments as they come (`scratchpad_id`).
///
/// @throws (rejects) `NotFound` for an unknown, expired or other-turn entry, `InvalidArg` for a bad
/// mode, bounds or regex (with the regex engine's message), `TooLarge` for `full` on a large entry,
/// `UnsafeFile` when the entry's content file or the catalog is a link, a FIFO or device, or
/// oversized (never read: remove it, or delete the session's store).
#[napi(catch_unwind, ts_return_type = "Promise<ReadObservationResult>")]
pub fn read_observation(
    #[napi(ts_arg_type = "ReadObservationInput")] input: serde_json::Value,
) -> AsyncTask<Job<ReadObservationResult>> {
    let parsed = from_js::<ReadObservationInput>(input, "input");
    spawn(move || do_read(parsed?))
}

/// Synchronous twin of `readObservation`.
#[napi(catch_unwind)]
pub fn read_observation_sync(
    env: Env,
    #[napi(ts_arg_type = "ReadObservationInput")] input: serde_json::Value,
) -> napi::Result<ReadObservationResult> {
    run(&env, || do_read(from_js(input, "input")?))
}

/// Seed 004's `scratchpad_write`: stores content under a name (overwriting an entry of that name,
/// same id). Named entries have no TTL unless `ttlSeconds`.
///
/// @throws (rejects) `InvalidArg` for a bad name (path separators, `..`), `TooLarge` over the quota,
/// `UnsafeFile` when the store's catalog or lock file is a link, a FIFO or device, or oversized.
#[napi(catch_unwind, ts_return_type = "Promise<WriteObservationResult>")]
pub fn write_observation(
    env: Env,
    #[napi(ts_arg_type = "WriteObservationInput")] input: Unknown,
) -> AsyncTask<Gather<WriteObservationResult>> {
    content_job(&env, input, do_write)
}

/// Synchronous twin of `writeObservation`.
#[napi(catch_unwind)]
pub fn write_observation_sync(
    env: Env,
    #[napi(ts_arg_type = "WriteObservationInput")] input: Unknown,
) -> napi::Result<WriteObservationResult> {
    run(&env, || {
        let (content, rest) = split_content(&env, input)?;
        do_write(content, from_js(rest, "input")?)
    })
}

/// Seed 004's `scratchpad_edit`: a full overwrite (`content`) or a targeted replacement
/// (`oldString` -> `newString`, which must occur once unless `replaceAll`). Same id, name, turn, TTL.
///
/// @throws (rejects) `NotFound` for an unknown entry or an `oldString` not found, `InvalidArg` for an
/// ambiguous `oldString`, a binary entry or a bad combination of fields.
#[napi(catch_unwind, ts_return_type = "Promise<EditObservationResult>")]
pub fn edit_observation(
    #[napi(ts_arg_type = "EditObservationInput")] input: serde_json::Value,
) -> AsyncTask<Job<EditObservationResult>> {
    let parsed = from_js::<EditObservationInput>(input, "input");
    spawn(move || do_edit(parsed?))
}

/// Synchronous twin of `editObservation`.
#[napi(catch_unwind)]
pub fn edit_observation_sync(
    env: Env,
    #[napi(ts_arg_type = "EditObservationInput")] input: serde_json::Value,
) -> napi::Result<EditObservationResult> {
    run(&env, || do_edit(from_js(input, "input")?))
}

/// Seed 004's `scratchpad_list`: the session's entries, oldest first (name, id, size, created,
/// expires, ...). Expired entries are left out unless `includeExpired`; `turnId` limits to a turn.
#[napi(catch_unwind, ts_return_type = "Promise<ObservationEntry[]>")]
pub fn list_observations(
    #[napi(ts_arg_type = "ListObservationsInput")] input: serde_json::Value,
) -> AsyncTask<Job<Vec<ObservationEntry>>> {
    let parsed = from_js::<ListObservationsInput>(input, "input");
    spawn(move || do_list(parsed?))
}

/// Synchronous twin of `listObservations`.
#[napi(catch_unwind)]
pub fn list_observations_sync(
    env: Env,
    #[napi(ts_arg_type = "ListObservationsInput")] input: serde_json::Value,
) -> napi::Result<Vec<ObservationEntry>> {
    run(&env, || do_list(from_js(input, "input")?))
}

/// Seed 004's `scratchpad_delete`: deletes one entry by id or name and returns it. Works on a
/// full disk: when the catalog cannot be rewritten for want of space, the entry's content is
/// removed first (freeing it) and the catalog is written again, in place if need be.
///
/// @throws (rejects) `NotFound` for an unknown entry.
#[napi(catch_unwind, ts_return_type = "Promise<ObservationEntry>")]
pub fn delete_observation(
    #[napi(ts_arg_type = "DeleteObservationInput")] input: serde_json::Value,
) -> AsyncTask<Job<ObservationEntry>> {
    let parsed = from_js::<DeleteObservationInput>(input, "input");
    spawn(move || do_delete(parsed?))
}

/// Synchronous twin of `deleteObservation`.
#[napi(catch_unwind)]
pub fn delete_observation_sync(
    env: Env,
    #[napi(ts_arg_type = "DeleteObservationInput")] input: serde_json::Value,
) -> napi::Result<ObservationEntry> {
    run(&env, || do_delete(from_js(input, "input")?))
}

/// Deletes a session's whole observation store (when the session is deleted). Resolves whether
/// there was one. Serialised with the store's users: the store is renamed away and removed under
/// its lock, so a write waiting for it lands in a fresh store and a read finds none (`NotFound`
/// for its entry), never a half-removed directory.
#[napi(catch_unwind, ts_return_type = "Promise<boolean>")]
pub fn delete_observation_session(
    #[napi(ts_arg_type = "ObservationSessionInput")] input: serde_json::Value,
) -> AsyncTask<Job<bool>> {
    let parsed = from_js::<ObservationSessionInput>(input, "input");
    spawn(move || do_delete_session(parsed?))
}

/// Synchronous twin of `deleteObservationSession`.
#[napi(catch_unwind)]
pub fn delete_observation_session_sync(
    env: Env,
    #[napi(ts_arg_type = "ObservationSessionInput")] input: serde_json::Value,
) -> napi::Result<bool> {
    run(&env, || do_delete_session(from_js(input, "input")?))
}

/// Seed 003's `gc()`, for the start of a turn: removes expired entries, applies the quota (least
/// recently used first), never touching protected entries (`protect`, and ids or names found in the
/// session's latest checkpoint), and removes files left by crashed writes. One session, or all.
#[napi(catch_unwind, ts_return_type = "Promise<GcObservationsResult>")]
pub fn gc_observations(
    #[napi(ts_arg_type = "GcObservationsInput")] input: serde_json::Value,
) -> AsyncTask<Job<GcObservationsResult>> {
    let parsed = from_js::<GcObservationsInput>(input, "input");
    spawn(move || do_gc(parsed?))
}

/// Synchronous twin of `gcObservations`.
#[napi(catch_unwind)]
pub fn gc_observations_sync(
    env: Env,
    #[napi(ts_arg_type = "GcObservationsInput")] input: serde_json::Value,
) -> napi::Result<GcObservationsResult> {
    run(&env, || do_gc(from_js(input, "input")?))
}

/// Expands every `{{observation:<id or name>}}` in a tool argument (a string, or the strings of any
/// JSON value, recursively; keys untouched) to the entry's full content (binary as base64), so a
/// model can pass a stored result to another tool without reading it (seed 003's
/// `{{step1.content}}`). Values without references come back unchanged.
///
/// @throws (rejects) `NotFound` for an unknown or expired reference, `TooLarge` above `maxBytes`.
#[napi(catch_unwind, ts_return_type = "Promise<unknown>")]
pub fn expand_observation_refs(
    #[napi(ts_arg_type = "ExpandObservationRefsInput")] input: serde_json::Value,
) -> AsyncTask<Job<Json>> {
    let parsed = from_js::<ExpandObservationRefsInput>(input, "input");
    spawn(move || do_expand(parsed?))
}

/// Synchronous twin of `expandObservationRefs`.
#[napi(catch_unwind, ts_return_type = "unknown")]
pub fn expand_observation_refs_sync(
    env: Env,
    #[napi(ts_arg_type = "ExpandObservationRefsInput")] input: serde_json::Value,
) -> napi::Result<Json> {
    run(&env, || do_expand(from_js(input, "input")?))
}

fn tool(v: serde_json::Value) -> ObservationToolDefinition {
    ObservationToolDefinition {
        name: v["name"].as_str().unwrap_or_default().into(),
        description: v["description"].as_str().unwrap_or_default().into(),
        parameters: v["parameters"].clone(),
    }
}

/// The model-facing tools over the store, as JSON schemas (`{ name, description, parameters }`):
/// `scratchpad_read`, `scratchpad_write`, `scratchpad_edit`, `scratchpad_list`, `scratchpad_delete`.
/// Their arguments can be spread into the matching inputs (`{ stateDir, sessionKey, ...args }`).
/// Seed 003: offer `scratchpad_read` once the turn has an offloaded entry.
#[napi(catch_unwind)]
pub fn observation_tool_definitions(env: Env) -> napi::Result<Vec<ObservationToolDefinition>> {
    run(&env, || {
        Ok(core::tool_definitions().into_iter().map(tool).collect())
    })
}

/// One tool definition by name (e.g. `'scratchpad_read'`).
///
/// @throws `NotFound` for an unknown tool name.
#[napi(strict, catch_unwind)]
pub fn observation_tool_definition(
    env: Env,
    name: String,
) -> napi::Result<ObservationToolDefinition> {
    run(&env, || {
        core::tool_definition(&name).map(tool).ok_or_else(|| {
            Error::not_found(format!(
                "no observation tool {name:?}; known: {}",
                core::TOOL_NAMES.join(", ")
            ))
        })
    })
}
