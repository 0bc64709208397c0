//! JS surface of the session scratchpad (seeds 000 and 002): the tool actions, the block the host
//! prepends to every user message, resume from pi session entries, nudges, and the tool
//! definition / system-prompt section the host registers. All logic lives in `context-scratchpad`.

use crate::error::{from_js, run};
use crate::js::{Json, Maybe};
use context_fsio::Error;
use context_scratchpad as core;
use napi::bindgen_prelude::{Array, Either, Object, ToNapiValue, TypeName, Unknown};
use napi::{sys, Env, ValueType};
use napi_derive::napi;
use serde::Deserialize;
use std::sync::Arc;

/// The cached block, handed to JS without an intermediate `String` copy.
pub struct Block(Arc<str>);

impl TypeName for Block {
    fn type_name() -> &'static str {
        "string"
    }
    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ToNapiValue for Block {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        let s: &str = &val.0;
        if s.is_ascii() {
            // ASCII is Latin-1: V8 copies the bytes without decoding UTF-8.
            let mut out = std::ptr::null_mut();
            // SAFETY: `s` outlives the call; its length is passed explicitly.
            let status = unsafe {
                sys::napi_create_string_latin1(env, s.as_ptr().cast(), s.len() as isize, &mut out)
            };
            if status == sys::Status::napi_ok {
                return Ok(out);
            }
        }
        // SAFETY: as above.
        unsafe { <&str>::to_napi_value(env, s) }
    }
}

/// One `session_scratchpad` tool call: the arguments the model sent, passed through as they are.
/// A malformed call (unknown action, missing field, wrong type) is answered `ok: false`; it never
/// throws.
#[napi(object)]
#[allow(dead_code)] // declares the TS interface only: calls arrive as JSON and are parsed by the core
pub struct ScratchpadAction {
    /// What to do.
    #[napi(
        ts_type = "'set_notes' | 'append_notes' | 'set_plan' | 'refs.add' | 'refs.remove' | 'refs.set'"
    )]
    pub action: String,
    /// `set_notes`, `append_notes`, `set_plan`: the text. An empty string clears the space
    /// (`append_notes` needs non-empty text).
    pub content: Option<String>,
    /// `refs.add`, `refs.remove`: one non-empty file path, URL, PR link or identifier.
    #[napi(js_name = "ref")]
    pub r#ref: Option<String>,
    /// `refs.set`: the new refs; non-strings, empty strings and repeats are dropped, the first
    /// `refsMax` kept.
    #[napi(ts_type = "unknown[]")]
    pub items: Option<Vec<serde_json::Value>>,
    /// Optimistic concurrency for sub-agents sharing a session: when given and different from the
    /// session's current `version`, the call is answered `ok: false` and nothing changes.
    pub expected_version: Option<u32>,
}

/// Budgets of one session. Missing fields take their defaults; each must be a positive integer
/// (anything else throws `InvalidArg`). Limits passed to a call are kept for the session: the
/// block's labels show them. Lowering a limit does not cut existing content; the next write to
/// that space enforces it.
#[napi(object)]
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ScratchpadLimits {
    /// Notes limit in characters (UTF-16 code units, JS `string.length`).
    /// @default 4000
    pub notes_max_chars: Option<u32>,
    /// Plan limit in characters (UTF-16 code units).
    /// @default 2000
    pub plan_max_chars: Option<u32>,
    /// Maximum number of refs.
    /// @default 50
    pub refs_max: Option<u32>,
    /// Token budget (o200k_base, exact) of the whole rendered block, markers and labels included.
    /// @default 2000
    pub max_tokens: Option<u32>,
}

/// How full a session's scratchpad is.
#[napi(object)]
pub struct ScratchpadUsage {
    /// Notes length in UTF-16 code units.
    pub notes_chars: u32,
    /// Plan length in UTF-16 code units.
    pub plan_chars: u32,
    /// Number of refs.
    pub refs: u32,
    /// Tokens (o200k_base) of the block `getScratchpadContent` returns; 0 when it is empty.
    pub tokens: u32,
    /// Incremented by every change (actions and restores); compare with `expectedVersion`.
    pub version: u32,
}

/// A session entry for the host to append with `appendCustomEntry(customType, data)`.
#[napi(object)]
pub struct ScratchpadPersistEntry {
    /// `'openclaw:scratchpad:notes'`, `'openclaw:scratchpad:plan'` or `'openclaw:scratchpad:refs'`.
    pub custom_type: String,
    /// The space's full new content: a string for notes and plan, a string array for refs.
    #[napi(ts_type = "string | string[]")]
    pub data: Either<String, Vec<String>>,
}

/// The answer to one `applyScratchpadAction` call.
#[napi(object)]
pub struct ScratchpadResult {
    /// `false`: the call was invalid, conflicted or rejected, and the state is unchanged.
    pub ok: bool,
    /// The tool response for the model: what happened, how full the space and the whole block
    /// are, and on rejection what to do instead.
    pub message: String,
    /// Content was cut to fit a limit (the message says so).
    pub truncated: bool,
    /// Entries to append, in order, for the changed spaces only; empty when nothing changed.
    pub persist: Vec<ScratchpadPersistEntry>,
    /// Usage after the call.
    pub usage: ScratchpadUsage,
}

/// A pi session entry (`SessionManager.getEntries()` returns them). Only `custom` entries with a
/// scratchpad `customType` are read; `id` / `parentId` matter when a `leafId` is given.
#[napi(object)]
#[allow(dead_code)] // declares the TS interface only: entries are read property by property
pub struct SessionEntryLike {
    /// The entry type; scratchpad entries are `'custom'`.
    #[napi(js_name = "type")]
    pub r#type: String,
    /// For `custom` entries, the key passed to `appendCustomEntry`.
    pub custom_type: Option<String>,
    /// For `custom` entries, the data passed to `appendCustomEntry`.
    #[napi(ts_type = "unknown")]
    pub data: Option<serde_json::Value>,
    /// The entry id (pi sessions v2+).
    pub id: Option<String>,
    /// The parent entry id; `null` for a root.
    #[napi(ts_type = "string | null")]
    pub parent_id: Option<String>,
}

/// What `restoreScratchpad` did: a `ScratchpadUsage` plus what had to be cut or ignored.
#[napi(object)]
pub struct ScratchpadRestoreResult {
    /// Notes length in UTF-16 code units.
    pub notes_chars: u32,
    /// Plan length in UTF-16 code units.
    pub plan_chars: u32,
    /// Number of refs.
    pub refs: u32,
    /// Tokens (o200k_base) of the restored block.
    pub tokens: u32,
    /// The session's version after the restore (a restore counts as a change).
    pub version: u32,
    /// Restored content exceeded a limit and was cut (see `warnings`).
    pub truncated: bool,
    /// One line per cut made or entry ignored; empty when the entries restored as they were.
    pub warnings: Vec<String>,
}

/// The `session_scratchpad` tool, ready for the host's tool registry.
#[napi(object)]
pub struct ScratchpadToolDefinition {
    /// `'session_scratchpad'` unless `ScratchpadToolOptions.name` says otherwise; always a valid
    /// provider tool name (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// What the tool is for and how its budgets behave, with the configured limits.
    pub description: String,
    /// JSON Schema of the arguments (`action`, `content`, `ref`, `items`, `expectedVersion`).
    #[napi(ts_type = "Record<string, unknown>")]
    pub parameters: serde_json::Value,
}

/// How the host names the scratchpad tool.
#[napi(object)]
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScratchpadToolOptions {
    /// The name to register the tool under. It must be a valid provider tool name
    /// (`^[a-zA-Z0-9_-]{1,64}$`, which Anthropic and OpenAI enforce), so seed 000's
    /// `'session.scratchpad'` is refused here: calls recorded under it are still recognised by
    /// `isScratchpadToolName`.
    /// @default 'session_scratchpad'
    pub name: Option<String>,
}

fn tool_name(options: Option<Json>) -> Result<String, Error> {
    let o: ScratchpadToolOptions = match options {
        Some(Json(v)) if !v.is_null() => from_js(v, "options")?,
        _ => ScratchpadToolOptions::default(),
    };
    let name = o.name.unwrap_or_else(|| core::TOOL_NAME.to_string());
    if !core::is_valid_tool_name(&name) {
        return Err(Error::invalid_arg(format!(
            "options.name {name:?} is not a valid provider tool name (^[a-zA-Z0-9_-]{{1,64}}$); \
             use {:?}, or another name of letters, digits, '_' and '-'",
            core::TOOL_NAME
        )));
    }
    Ok(name)
}

/// A turn event for `evaluateScratchpadNudge`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScratchpadNudgeEvent {
    /// `'turn_start'` (counts a turn), `'assistant_message'` (needs `text`) or `'compaction_end'`.
    #[napi(ts_type = "'turn_start' | 'assistant_message' | 'compaction_end'")]
    pub kind: String,
    /// The assistant's text, for `'assistant_message'`.
    pub text: Option<String>,
}

/// Seed 002's nudge settings (`scratchpad.nudge*`). All are off (0) by default.
#[napi(object)]
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ScratchpadNudgeSettings {
    /// Nudge to populate the scratchpad when it is still empty after this many turns.
    /// @default 0
    pub nudge_after_turns: Option<u32>,
    /// 1: nudge when the assistant writes a plan (3+ numbered items, "Step N" mentions or task
    /// list items) while the scratchpad is empty.
    /// @default 0
    pub nudge_on_plan_detected: Option<u32>,
    /// 1: nudge to save / review the scratchpad after every context compaction.
    /// @default 0
    pub nudge_after_compaction: Option<u32>,
    /// Nudge to review the scratchpad when it has content but was not updated for this many turns.
    /// @default 0
    pub nudge_turns_since_last_use: Option<u32>,
    /// The name the scratchpad tool is registered under (as given to `getScratchpadToolDefinition`),
    /// which the hints tell the model to call. Must be a valid provider tool name.
    /// @default 'session_scratchpad'
    pub tool_name: Option<String>,
}

fn to_u32(n: impl TryInto<u32>) -> u32 {
    n.try_into().unwrap_or(u32::MAX)
}

fn usage(u: core::Usage) -> ScratchpadUsage {
    ScratchpadUsage {
        notes_chars: to_u32(u.notes_chars),
        plan_chars: to_u32(u.plan_chars),
        refs: to_u32(u.refs),
        tokens: to_u32(u.tokens),
        version: to_u32(u.version),
    }
}

pub(crate) fn limits(value: Option<Json>) -> Result<Option<core::Limits>, Error> {
    let Some(Json(v)) = value else {
        return Ok(None);
    };
    if v.is_null() {
        return Ok(None);
    }
    let l: ScratchpadLimits = from_js(v, "limits")?;
    core::Limits::from_options(
        l.notes_max_chars,
        l.plan_max_chars,
        l.refs_max,
        l.max_tokens,
    )
    .map(Some)
}

fn session(id: &str) -> Result<&str, Error> {
    if id.is_empty() {
        return Err(Error::invalid_arg("sessionId must be a non-empty string"));
    }
    Ok(id)
}

/// Applies one `session_scratchpad` tool call to the session's scratchpad.
///
/// Budgets (seed 002, plus seed 000's token budget over the whole block): `set_notes` /
/// `set_plan` cut to the char limit and the token budget with a warning; `append_notes` joins
/// with a newline and is rejected (notes unchanged) when the result would not fit; `refs.add`
/// drops the oldest ref when full; `refs.remove` removes an exact match or reports it missing;
/// `refs.set` keeps the first `refsMax` strings. Cuts never split a surrogate pair, a character
/// (grapheme cluster) or a ref.
///
/// A malformed call from the model is answered `ok: false` with a message listing the valid
/// actions; nothing is thrown and nothing changes. Append `persist` to the session with
/// `appendCustomEntry` after every call (it is empty when nothing changed).
///
/// @param limits - this session's budgets (kept for later calls); defaults 4000 / 2000 / 50 / 2000.
/// @throws `InvalidArg` for a non-string or empty `sessionId`, or invalid `limits`.
#[napi(strict, catch_unwind)]
pub fn apply_scratchpad_action(
    env: Env,
    session_id: String,
    #[napi(ts_arg_type = "ScratchpadAction")] action: Json,
    #[napi(ts_arg_type = "ScratchpadLimits")] limits: Option<Json>,
) -> napi::Result<ScratchpadResult> {
    run(&env, || {
        let id = session(&session_id)?;
        let limits = self::limits(limits)?;
        let o = core::Registry::global().with(id, |p| p.apply(&action.0, limits));
        Ok(result_of(o))
    })
}

/// The JS form of an action's outcome.
pub(crate) fn result_of(o: core::Outcome) -> ScratchpadResult {
    ScratchpadResult {
        ok: o.ok,
        message: o.message,
        truncated: o.truncated,
        persist: o
            .persist
            .into_iter()
            .map(|e| ScratchpadPersistEntry {
                custom_type: e.custom_type.to_string(),
                data: match e.data {
                    core::PersistData::Text(s) => Either::A(s),
                    core::PersistData::List(v) => Either::B(v),
                },
            })
            .collect(),
        usage: usage(o.usage),
    }
}

/// The block to prepend to the next user message, or `undefined` when all spaces are empty or
/// the session is unknown. It opens with `[Session Scratchpad - your persistent working memory]`,
/// holds the non-empty spaces in the order notes, plan, refs (each under a `[Notes: n/max chars]`,
/// `[Plan: n/max chars]`, `[Refs: n/max]` label, refs one per line as `- ref`) and closes with
/// `[End Scratchpad]`. Content lines that would read as one of these markers are escaped with a
/// leading `\`, so content can never end the block early.
///
/// Cached: the block is rendered and counted when the scratchpad changes, so this call does no
/// work beyond a lookup. Prepend it as `${block}\n\n${prompt}`.
///
/// @throws `InvalidArg` for a non-string or empty `sessionId`.
#[napi(strict, catch_unwind, ts_return_type = "string | undefined")]
pub fn get_scratchpad_content(env: Env, session_id: String) -> napi::Result<Maybe<Block>> {
    run(&env, || {
        Ok(Maybe(
            core::Registry::global()
                .content(session(&session_id)?)
                .map(Block),
        ))
    })
}

/// How full the session's scratchpad is, or `undefined` for a session the registry does not hold
/// (never seen in this process, cleared, or evicted as idle): that is the host's cue to call
/// `restoreScratchpad` with the session's entries before the next turn.
///
/// @throws `InvalidArg` for a non-string or empty `sessionId`.
#[napi(strict, catch_unwind, ts_return_type = "ScratchpadUsage | undefined")]
pub fn get_scratchpad_usage(env: Env, session_id: String) -> napi::Result<Maybe<ScratchpadUsage>> {
    run(&env, || {
        Ok(Maybe(
            core::Registry::global().with_existing(session(&session_id)?, |p| usage(p.usage())),
        ))
    })
}

fn prop<'a>(obj: &Object<'a>, key: &str) -> napi::Result<Option<Unknown<'a>>> {
    obj.get::<Unknown>(key)
}

fn str_prop(obj: &Object, key: &str) -> napi::Result<Option<String>> {
    match prop(obj, key)? {
        // SAFETY: the type was checked just before the cast.
        Some(u) if u.get_type()? == ValueType::String => Ok(Some(unsafe { u.cast::<String>() }?)),
        _ => Ok(None),
    }
}

/// Reads the parts of pi entries a restore needs, converting only scratchpad `data` (a session's
/// message entries can be megabytes; they are never copied).
fn read_entries(entries: &Array, with_tree: bool) -> Result<Vec<core::EntryLike>, Error> {
    let napi_err = |e: napi::Error| Error::invalid_arg(format!("entries: {}", e.reason));
    let mut out = Vec::new();
    for i in 0..entries.len() {
        let item = entries.get::<Unknown>(i).map_err(napi_err)?;
        let Some(item) = item.filter(|u| u.get_type().ok() == Some(ValueType::Object)) else {
            return Err(Error::invalid_arg(format!(
                "entries[{i}] is not an object: pass SessionManager.getEntries()"
            )));
        };
        // SAFETY: the type was checked just before the cast.
        let obj = unsafe { item.cast::<Object>() }.map_err(napi_err)?;
        let custom_type = match str_prop(&obj, "type").map_err(napi_err)?.as_deref() {
            Some("custom") => str_prop(&obj, "customType")
                .map_err(napi_err)?
                .filter(|t| core::is_scratchpad_key(t)),
            _ => None,
        };
        if custom_type.is_none() && !with_tree {
            continue;
        }
        let data = match &custom_type {
            // Unconvertible data (a function, NaN) is reported by the core as ignored.
            // SAFETY: `Value`'s conversion accepts any JS value and errors on the rest.
            Some(_) => match prop(&obj, "data").map_err(napi_err)? {
                Some(u) => unsafe { u.cast::<serde_json::Value>() }.ok(),
                None => None,
            },
            None => None,
        };
        let (id, parent_id) = if with_tree {
            (
                str_prop(&obj, "id").map_err(napi_err)?,
                str_prop(&obj, "parentId").map_err(napi_err)?,
            )
        } else {
            (None, None)
        };
        out.push(core::EntryLike {
            custom_type,
            data,
            id,
            parent_id,
        });
    }
    Ok(out)
}

/// Rebuilds the session's scratchpad from its pi session entries (on resume, after a process
/// restart, or when the registry evicted an idle session): the last entry of each key wins
/// (`openclaw:scratchpad:notes`, `:plan`, `:refs`); the legacy `openclaw:scratchpad` entry of
/// seed 000 fills notes when no notes entry exists. With `leafId`, only entries on the branch
/// from the root to that leaf count (pi sessions are trees). Replaces whatever the session held.
///
/// Restored content never exceeds the limits silently: it is cut to fit (notes first, then plan,
/// then refs, for the token budget) and each cut is listed in `warnings`.
///
/// @param entries - `SessionManager.getEntries()`.
/// @param leafId - `SessionManager.getLeafId()` to restore the current branch only.
/// @param limits - this session's budgets, as for `applyScratchpadAction`.
/// @throws `InvalidArg` for a non-string `sessionId`, a non-array `entries` or a non-object
/// entry; `NotFound` when `leafId` is not the id of any entry.
#[napi(strict, catch_unwind)]
pub fn restore_scratchpad(
    env: Env,
    session_id: String,
    #[napi(ts_arg_type = "SessionEntryLike[]")] entries: Array,
    leaf_id: Option<String>,
    #[napi(ts_arg_type = "ScratchpadLimits")] limits: Option<Json>,
) -> napi::Result<ScratchpadRestoreResult> {
    run(&env, || {
        let id = session(&session_id)?;
        let limits = self::limits(limits)?;
        let entries = read_entries(&entries, leaf_id.is_some())?;
        let r = core::Registry::global()
            .with(id, |p| p.restore(&entries, leaf_id.as_deref(), limits))?;
        let u = usage(r.usage);
        Ok(ScratchpadRestoreResult {
            notes_chars: u.notes_chars,
            plan_chars: u.plan_chars,
            refs: u.refs,
            tokens: u.tokens,
            version: u.version,
            truncated: r.truncated,
            warnings: r.warnings,
        })
    })
}

/// Frees the session's scratchpad and nudge state (call it when a session ends). The persisted
/// entries are untouched: `restoreScratchpad` brings the content back. Returns `true` if the
/// registry held the session.
///
/// The registry also bounds itself: beyond 10,000 sessions it evicts the least recently used
/// (1% at a time; every call naming a session counts as a use). An evicted session is restored
/// from its entries like a resumed one (`getScratchpadUsage` returns `undefined` for it); only
/// its transient nudge counters are lost.
///
/// @throws `InvalidArg` for a non-string or empty `sessionId`.
#[napi(strict, catch_unwind)]
pub fn clear_scratchpad(env: Env, session_id: String) -> napi::Result<bool> {
    run(&env, || {
        Ok(core::Registry::global().remove(session(&session_id)?))
    })
}

/// The scratchpad tool definition (name, description, JSON-Schema parameters for the six actions
/// of seed 002), stating the given limits. Its name is `'session_scratchpad'` (seed 000's
/// `session.scratchpad` made provider-valid) unless `options.name` gives another valid name.
///
/// @param limits - the budgets to describe; defaults 4000 / 2000 / 50 / 2000.
/// @param options - `name`: the name to register the tool under.
/// @throws `InvalidArg` for invalid `limits`, or an `options.name` that is not a valid provider
/// tool name (`^[a-zA-Z0-9_-]{1,64}$`).
#[napi(strict, catch_unwind)]
pub fn get_scratchpad_tool_definition(
    env: Env,
    #[napi(ts_arg_type = "ScratchpadLimits")] limits: Option<Json>,
    #[napi(ts_arg_type = "ScratchpadToolOptions")] options: Option<Json>,
) -> napi::Result<ScratchpadToolDefinition> {
    run(&env, || {
        let l = self::limits(limits)?.unwrap_or_default();
        let name = tool_name(options)?;
        let d = core::tool_definition_named(&l, &name);
        Ok(ScratchpadToolDefinition {
            name,
            description: core::tool_description(&l),
            parameters: d["parameters"].clone(),
        })
    })
}

/// The system-prompt section for the scratchpad (seed 000's guidance, updated for the three
/// spaces of seed 002), Markdown starting with `## Session Scratchpad`, stating the given limits
/// and the tool's name (`options.name`, as given to `getScratchpadToolDefinition`).
///
/// @param limits - the budgets to describe; defaults 4000 / 2000 / 50 / 2000.
/// @param options - `name`: the name the tool is registered under.
/// @throws `InvalidArg` for invalid `limits` or an invalid `options.name`.
#[napi(strict, catch_unwind)]
pub fn get_scratchpad_system_prompt(
    env: Env,
    #[napi(ts_arg_type = "ScratchpadLimits")] limits: Option<Json>,
    #[napi(ts_arg_type = "ScratchpadToolOptions")] options: Option<Json>,
) -> napi::Result<String> {
    run(&env, || {
        let name = tool_name(options)?;
        Ok(core::system_prompt_named(
            &self::limits(limits)?.unwrap_or_default(),
            &name,
        ))
    })
}

/// Whether a tool call's name is the scratchpad tool: `'session_scratchpad'` (the default) or
/// seed 000's `'session.scratchpad'` (older transcripts, hosts that map names). Transcript readers
/// use it so both names replay as scratchpad calls.
#[napi(strict, catch_unwind)]
pub fn is_scratchpad_tool_name(env: Env, name: String) -> napi::Result<bool> {
    run(&env, || Ok(core::is_scratchpad_tool_name(&name)))
}

/// Whether `name` is a valid tool name for the model providers: `^[a-zA-Z0-9_-]{1,64}$`
/// (Anthropic and OpenAI refuse any other). Every tool definition this package returns passes it.
#[napi(strict, catch_unwind)]
pub fn is_valid_tool_name(env: Env, name: String) -> napi::Result<bool> {
    run(&env, || Ok(core::is_valid_tool_name(&name)))
}

/// Seed 002's opt-in nudges. Call it on each turn event; it returns the `[Hint: ...]` line to
/// prepend to the next user message (e.g. through `pendingSteer`), or `undefined`.
///
/// - `turn_start` counts a turn, then: `nudgeAfterTurns: N` hints once when the scratchpad has
///   stayed empty for N whole turns; `nudgeTurnsSinceLastUse: N` hints once when it has content
///   but was not changed for N whole turns.
/// - `assistant_message` with `nudgeOnPlanDetected: 1` hints once when the text holds a plan
///   (3+ numbered items, "Step N" mentions or task-list items) while the scratchpad is empty.
/// - `compaction_end` with `nudgeAfterCompaction: 1` hints after every compaction.
///
/// Each hint fires once per episode of its condition: an "empty" episode ends when the
/// scratchpad gets content, a "not used" episode when it changes. Trigger state is transient
/// (it resets with the process or `clearScratchpad`), as the seed specifies.
///
/// @param settings - the four `nudge*` settings; all off (0) by default.
/// @throws `InvalidArg` for a non-string `sessionId`, an unknown event kind, an
/// `assistant_message` without `text`, or invalid settings.
#[napi(strict, catch_unwind, ts_return_type = "string | undefined")]
pub fn evaluate_scratchpad_nudge(
    env: Env,
    session_id: String,
    #[napi(ts_arg_type = "ScratchpadNudgeEvent")] event: Json,
    #[napi(ts_arg_type = "ScratchpadNudgeSettings")] settings: Option<Json>,
) -> napi::Result<Maybe<String>> {
    run(&env, || {
        let id = session(&session_id)?;
        let event: ScratchpadNudgeEvent = from_js(event.0, "event")?;
        let s: ScratchpadNudgeSettings = match settings.map(|j| j.0) {
            None | Some(serde_json::Value::Null) => ScratchpadNudgeSettings::default(),
            Some(v) => from_js(v, "settings")?,
        };
        let name = match s.tool_name.as_deref() {
            None => core::TOOL_NAME,
            Some(n) if core::is_valid_tool_name(n) => n,
            Some(n) => {
                return Err(Error::invalid_arg(format!(
                    "settings.toolName {n:?} is not a valid provider tool name (^[a-zA-Z0-9_-]{{1,64}}$)"
                )))
            }
        };
        let settings = core::NudgeSettings {
            after_turns: s.nudge_after_turns.unwrap_or(0),
            on_plan_detected: s.nudge_on_plan_detected.unwrap_or(0),
            after_compaction: s.nudge_after_compaction.unwrap_or(0),
            turns_since_last_use: s.nudge_turns_since_last_use.unwrap_or(0),
        };
        let ev = match (event.kind.as_str(), event.text.as_deref()) {
            ("turn_start", _) => core::NudgeEvent::TurnStart,
            ("compaction_end", _) => core::NudgeEvent::CompactionEnd,
            ("assistant_message", Some(t)) => core::NudgeEvent::AssistantMessage(t),
            ("assistant_message", None) => {
                return Err(Error::invalid_arg(
                    "event.text is required for an 'assistant_message' event",
                ))
            }
            (other, _) => {
                return Err(Error::invalid_arg(format!(
                    "event.kind must be 'turn_start', 'assistant_message' or 'compaction_end', got {other:?}"
                )))
            }
        };
        let hint = core::Registry::global().with(id, |p| p.nudge(ev, &settings));
        Ok(Maybe(hint.map(|h| {
            if name == core::TOOL_NAME {
                h
            } else {
                h.replace(core::TOOL_NAME, name)
            }
        })))
    })
}
