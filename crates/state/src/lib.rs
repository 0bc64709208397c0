//! Incremental state capture (seed 001, section 7): what the host's `tool_result` and `context`
//! handlers record between checkpoints, kept in JSON files under
//! `<stateDir>/context/state/<session dir>/`:
//!
//! | file | holds | cap (oldest dropped first) |
//! | --- | --- | --- |
//! | `decisions.json` | decisions `{id, what, when}` | 50 |
//! | `thread.json` | topic, recent exchanges, tool failures | 8 exchanges, 50 failures |
//! | `resources.json` | files read, files modified, tools used (deduplicated) | 100 files per list, 100 tools |
//! | `open_items.json` | open items | 50 |
//! | `learnings.json` | learnings | 50 |
//!
//! Every update runs under `lock_session` (the lock checkpoint writes take too), reads the file,
//! changes it and writes it back atomically, so concurrent processes lose nothing below the caps.
//! Each file records the writing process instance and time; a checkpoint bundles them with
//! [`read_bundle`] and clears them with [`reset`] (section 12: state of a crashed process is
//! bundled by the next checkpoint; state of an earlier process older than the latest checkpoint
//! is discarded). A torn or corrupt file is renamed `<name>.corrupt-<ms>` and reads continue
//! with that file empty. Deduplicated lists (tools, files, items, learnings) move an entry to the
//! end when it is recorded again, so the cap drops the least recently used.

mod capture;
pub mod dialogue;
mod files;
pub mod secrets;
pub mod substance;
pub mod wrappers;

pub use capture::{
    classify_tool, details_failed, extract_paths, fingerprint, gist, message_text, result_failure,
    sent_at, squash, Access, PATHS_KEYS, PATH_KEYS,
};
pub use files::{
    instance_id, CheckpointMark, ALL_FILES, DECISIONS_FILE, LEARNINGS_FILE, MAX_STATE_FILE_BYTES,
    OPEN_ITEMS_FILE, RESOURCES_FILE, SCHEMA, THREAD_FILE,
};

use context_fsio::{
    existing_session_dir, lock_existing_session, lock_session, now_ms, rfc3339, session_dir,
    sweep_temp_files, Durability, Error, Result, CHECKPOINTS_DIR, STATE_DIR,
};
use files::{
    load, store, DecisionsData, LearningsData, OnDamage, OpenItemsData, Payload, ResourcesData,
    StateFile, ThreadData,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// Most decisions kept between checkpoints.
pub const MAX_DECISIONS: usize = 50;
/// Most exchanges kept (the most recent).
pub const MAX_EXCHANGES: usize = 8;
/// Most distinct tool names kept.
pub const MAX_TOOLS: usize = 100;
/// Most paths kept in each of `files_read` and `files_modified`.
pub const MAX_FILES: usize = 100;
/// Most tool failures kept.
pub const MAX_FAILURES: usize = 50;
/// Most open items kept.
pub const MAX_OPEN_ITEMS: usize = 50;
/// Most learnings kept.
pub const MAX_LEARNINGS: usize = 50;
/// Longest decision, open item or learning in characters (longer text is cut).
pub const MAX_ITEM_CHARS: usize = 1000;
/// Longest tool failure text in characters.
pub const MAX_FAILURE_CHARS: usize = 200;
/// Length of the topic gist (seed 001, 11.1: first 100 chars of the last user message).
pub const TOPIC_CHARS: usize = 100;
/// Length of an exchange gist (seed 001, 11.2).
pub const GIST_CHARS: usize = 120;
/// A user message shorter than this after a long agent response is decision-like (7.2, Layer B).
pub const DECISION_USER_MAX_CHARS: usize = 50;
/// Characters of the proposal a decision quotes.
pub const DECISION_PROPOSAL_CHARS: usize = 160;
/// Characters of the question a decision quotes.
pub const DECISION_QUESTION_CHARS: usize = 100;
/// Characters of the report a reply to it quotes: the reply is what was decided, the report
/// only says where it stands.
pub const DECISION_REPORT_CHARS: usize = 60;
/// Most letters of a reply besides the number or letter it picks an option by when the agent's
/// message asked nothing (`lets do 2`, `option B`; `hire the full 10` is a count, no pick).
pub const BARE_PICK_LETTERS: usize = 8;
/// Most letters of a reply that picks by a list of several numbers (`太好了，立即执行操作1，2，3`,
/// `great, do 1, 2 and 3`): a list of option numbers picks however the sentence around it is
/// worded, up to a short one.
pub const LISTED_PICK_LETTERS: usize = 24;
/// A user message this long (an hour) after the agent's report, one that asked nothing, decides
/// nothing about it: the user comes back (the next morning's greeting, good night, a new request),
/// and a request is the topic by itself. A reply to a question decides however late it comes.
pub const REPORT_REPLY_GAP_MS: u64 = 3600 * 1000;
/// An agent response longer than this is "long" (7.2 and 11.2).
pub const LONG_AGENT_CHARS: usize = 500;
/// Fingerprints of recorded decision-like patterns kept for deduplication.
const MAX_MARKS: usize = 500;

/// A decision, as in the checkpoint's `decisions` section.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// `d1`, `d2`, ...: unique within a session key.
    pub id: String,
    pub what: String,
    /// RFC 3339 time the decision was made.
    #[serde(default)]
    pub when: Option<String>,
}

/// One entry of the thread: `role` is `user` or `agent`; `gist` the first 120 characters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    pub role: String,
    pub gist: String,
}

/// Everything the state files hold, for a checkpoint to bundle.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateBundle {
    pub decisions: Vec<Decision>,
    pub files_read: Vec<String>,
    pub files_modified: Vec<String>,
    pub tools_used: Vec<String>,
    pub tool_failures: Vec<String>,
    pub open_items: Vec<String>,
    pub learnings: Vec<String>,
    pub topic: Option<String>,
    pub exchanges: Vec<Exchange>,
}

impl StateBundle {
    /// True when no file holds anything.
    pub fn is_empty(&self) -> bool {
        *self == StateBundle::default()
    }
}

/// The session's state directory, created (0700) when missing; symlinks refused.
fn state_dir_for(state_dir: &Path, session_key: &str) -> Result<PathBuf> {
    session_dir(state_dir, &STATE_DIR, session_key)
}

/// Reads every state file of the session into one bundle. The caller holds `lock_session`.
///
/// `latest` is the session's newest checkpoint: a file written by another process instance before
/// it (by checkpoint number, see [`files::StateFile::is_stale`]) is discarded (its content was
/// bundled already, or belongs to a run the checkpoint superseded). Files of this process, and
/// files written after the checkpoint (e.g. by a process that crashed since), are bundled. Corrupt files are moved
/// aside and read as empty. A session without state gives an empty bundle.
pub fn read_bundle(
    state_dir: &Path,
    session_key: &str,
    latest: Option<CheckpointMark>,
) -> Result<StateBundle> {
    bundle(state_dir, session_key, latest, OnDamage::MoveAside)
}

/// Like [`read_bundle`] for a read that never writes: corrupt files read as empty and stay in
/// place (the next write moves them aside); a refused file (a link, a FIFO, an oversized file)
/// is `UnsafeFile`. Works on a read-only state dir.
pub fn peek_bundle(
    state_dir: &Path,
    session_key: &str,
    latest: Option<CheckpointMark>,
) -> Result<StateBundle> {
    bundle(state_dir, session_key, latest, OnDamage::Leave)
}

fn bundle(
    state_dir: &Path,
    session_key: &str,
    latest: Option<CheckpointMark>,
    on_damage: OnDamage,
) -> Result<StateBundle> {
    let Some(dir) = existing_session_dir(state_dir, &STATE_DIR, session_key)? else {
        return Ok(StateBundle::default());
    };
    let mut b = StateBundle::default();

    let d: StateFile<DecisionsData> = load(&dir, DECISIONS_FILE, on_damage)?;
    if !d.is_stale(latest.as_ref()) {
        b.decisions = d.data.decisions;
    }
    let t: StateFile<ThreadData> = load(&dir, THREAD_FILE, on_damage)?;
    if !t.is_stale(latest.as_ref()) {
        b.topic = t.data.topic;
        b.exchanges = t.data.exchanges;
        let counts = t.data.error_counts;
        b.tool_failures = t
            .data
            .errors
            .into_iter()
            .map(|e| match counts.get(&e) {
                Some(n) if *n > 1 => format!("{e} ({n} times)"),
                _ => e,
            })
            .collect();
    }
    let r: StateFile<ResourcesData> = load(&dir, RESOURCES_FILE, on_damage)?;
    if !r.is_stale(latest.as_ref()) {
        b.files_read = r.data.files_read;
        b.files_modified = r.data.files_modified;
        b.tools_used = r.data.tools_used;
    }
    let o: StateFile<OpenItemsData> = load(&dir, OPEN_ITEMS_FILE, on_damage)?;
    if !o.is_stale(latest.as_ref()) {
        b.open_items = o.data.open_items;
    }
    let l: StateFile<LearningsData> = load(&dir, LEARNINGS_FILE, on_damage)?;
    if !l.is_stale(latest.as_ref()) {
        b.learnings = l.data.learnings;
    }
    Ok(b)
}

/// Empties every state file after a checkpoint bundled them (seed 001, 7.3). The caller holds
/// `lock_session`. The decision id counter and the marks of decision-like patterns already
/// recorded survive, so ids stay unique and the next `context` event does not record the same
/// pattern again. Corrupt files are moved aside first. A session without state is left alone.
pub fn reset(state_dir: &Path, session_key: &str) -> Result<()> {
    let Some(dir) = existing_session_dir(state_dir, &STATE_DIR, session_key)? else {
        return Ok(());
    };
    let seq = checkpoint_mark(state_dir, session_key).map_or(0, |m| m.seq);
    let d: StateFile<DecisionsData> = load(&dir, DECISIONS_FILE, OnDamage::MoveAside)?;
    let mut d2 = StateFile {
        data: d.data.cleared(),
        ..StateFile::default()
    };
    // No fsync: if a power cut undoes this reset, the old state is older than the checkpoint
    // that bundled it and was written by an earlier process, so section 12 discards it anyway.
    let fast = Durability::Fast;
    store(&dir, DECISIONS_FILE, &mut d2, seq, fast)?;
    store(
        &dir,
        THREAD_FILE,
        &mut StateFile::<ThreadData>::default(),
        seq,
        fast,
    )?;
    store(
        &dir,
        RESOURCES_FILE,
        &mut StateFile::<ResourcesData>::default(),
        seq,
        fast,
    )?;
    store(
        &dir,
        OPEN_ITEMS_FILE,
        &mut StateFile::<OpenItemsData>::default(),
        seq,
        fast,
    )?;
    store(
        &dir,
        LEARNINGS_FILE,
        &mut StateFile::<LearningsData>::default(),
        seq,
        fast,
    )?;
    Ok(())
}

/// The session's newest checkpoint as record calls see it: the highest `cp_NNN.yaml` number in its
/// checkpoint directory, and the modification time of `_latest.json` (rewritten atomically by
/// every checkpoint; only for state files written before they carried a checkpoint number).
/// `None` without checkpoints (neither a checkpoint file nor `_latest.json`).
pub fn checkpoint_mark(state_dir: &Path, session_key: &str) -> Option<CheckpointMark> {
    let dir = existing_session_dir(state_dir, &CHECKPOINTS_DIR, session_key).ok()??;
    let seq = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let digits = name.to_str()?.strip_prefix("cp_")?.strip_suffix(".yaml")?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            digits.parse::<u64>().ok()
        })
        .max();
    // Not followed: a link planted there says nothing about this session's checkpoints.
    let created_ms = std::fs::symlink_metadata(dir.join("_latest.json"))
        .ok()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as u64);
    if seq.is_none() && created_ms.is_none() {
        return None;
    }
    Some(CheckpointMark {
        seq: seq.unwrap_or(0),
        created_ms,
    })
}

/// Locks the session, loads one state file (dropping stale content: a record call must not claim
/// an earlier process's already-checkpointed state as its own), lets `f` change it, and writes it
/// back when `f` reports a change or the file was last written by another process.
fn update<T, R>(
    state_dir: &Path,
    session_key: &str,
    name: &str,
    f: impl FnOnce(&mut T) -> (bool, R),
) -> Result<R>
where
    T: Serialize + serde::de::DeserializeOwned + Payload,
{
    let _lock = lock_session(state_dir, session_key)?;
    let dir = state_dir_for(state_dir, session_key)?;
    // Temp files of writes that crashed (under this lock, so none is a live write's).
    sweep_temp_files(&dir);
    let mut file: StateFile<T> = load(&dir, name, OnDamage::MoveAside)?;
    let mark = checkpoint_mark(state_dir, session_key);
    if file.is_stale(mark.as_ref()) {
        file.data = std::mem::take(&mut file.data).cleared();
    }
    let (changed, out) = f(&mut file.data);
    let seq = mark.map_or(0, |m| m.seq);
    if changed || file.instance != instance_id() || file.checkpoint_seq != Some(seq) {
        // The record's data is fsynced; a power cut may lose the rename (the previous, whole file
        // remains): incremental capture is best effort by design (seed 001, 7.3).
        store(&dir, name, &mut file, seq, Durability::FileOnly)?;
    }
    // Retention's view of the session (best effort: the record is only a hint of activity).
    let _ = context_fsio::record_activity(state_dir, session_key, now_ms());
    Ok(out)
}

/// Adds `item` to a deduplicated list, moving it to the end when present; drops the oldest over
/// `cap`. Returns whether the list changed.
fn touch(list: &mut Vec<String>, item: &str, cap: usize) -> bool {
    if list.last().map(String::as_str) == Some(item) {
        return false;
    }
    list.retain(|x| x != item);
    list.push(item.to_string());
    if list.len() > cap {
        let excess = list.len() - cap;
        list.drain(..excess);
    }
    true
}

fn non_empty(text: &str, what: &str) -> Result<String> {
    let t = text.trim();
    if t.is_empty() {
        return Err(Error::invalid_arg(format!(
            "{what} must be a non-empty string"
        )));
    }
    // a credential in a recorded decision, item or learning is redacted (issue 27)
    Ok(capture::cap_chars(&secrets::redact(t), MAX_ITEM_CHARS))
}

/// A tool result as the host's `tool_result` handler sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolResult {
    pub tool_name: String,
    /// The tool call's arguments; path-like keys name the files it touched.
    pub params: Value,
    pub is_error: bool,
    /// A command's exit code: a non-zero one is a failure, also when `is_error` is false
    /// (OpenClaw's `exec` reports a command that exited non-zero as a completed call).
    pub exit_code: Option<i64>,
    /// The result's `details` (OpenClaw): a failure when they say so by OpenClaw's rule
    /// ([`details_failed`]), also when `is_error` is false, their `error` being the failure's
    /// text; their `exitCode` when `exit_code` is not given.
    pub details: Option<Value>,
    /// The error text of a failed call, or a command's output when its exit code may say it
    /// failed: read only for a failure (its first and last lines kept).
    pub error: Option<String>,
    /// Overrides the read/write classification by tool name.
    pub access: Option<Access>,
}

/// What a record call changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolResultOutcome {
    pub files_read: Vec<String>,
    pub files_modified: Vec<String>,
    pub failure: Option<String>,
}

/// Layer A (section 7.2): records the tool name (deduplicated), the files named by path-like
/// params (as read or modified by the tool's name, unless `access` says), and a failure.
/// A failed call records its failure but no files: a failed edit modified nothing. Of the paths
/// one call names, the last [`MAX_FILES`] are recorded (and returned): a list keeps no more.
/// Linear in the size of `params`.
pub fn record_tool_result(
    state_dir: &Path,
    session_key: &str,
    input: &ToolResult,
) -> Result<ToolResultOutcome> {
    let mut out = record_tool_results(state_dir, session_key, std::slice::from_ref(input))?;
    Ok(out.pop().unwrap_or_default())
}

/// One tool result, ready to apply: its capped name, what it recorded, its failure key.
struct Prepared {
    tool: String,
    outcome: ToolResultOutcome,
    prefix: String,
    /// A look-up that succeeded (a read, a fetch, a search: no command, nothing written): the
    /// failed look-ups of the same tool before it are got past (a page refused, a file not
    /// found: the agent looked elsewhere, and the tool works).
    lookup: bool,
    /// A write that succeeded: the failed writes of its file before it are got past
    /// ([`rewrites`] with its `prefix`).
    rewrote: bool,
    /// How the failure's entry says what failed (`: ` and the head of its text): an older failure
    /// of the same tool that says the same (a search without its API key, on another query) is
    /// the same failure on another subject, counted in the newest. Not for a command.
    alike: Option<String>,
}

/// Characters of a failure's text by which two failures of one tool are told alike.
const ALIKE_FAILURE_CHARS: usize = 60;

fn prepare(input: &ToolResult) -> Result<Prepared> {
    let tool = input.tool_name.trim();
    if tool.is_empty() {
        return Err(Error::invalid_arg(
            "toolName must be a non-empty string, e.g. 'read'",
        ));
    }
    let tool = capture::cap_chars(tool, 200);
    let mut outcome = ToolResultOutcome::default();
    let access = input.access.unwrap_or_else(|| classify_tool(&tool));
    let failure = capture::failure_text(
        input.is_error,
        input.exit_code,
        input.details.as_ref(),
        || input.error.clone().unwrap_or_default(),
    );
    if failure.is_none() {
        let mut paths: Vec<String> = extract_paths(&input.params)
            .into_iter()
            .map(secrets::redact_owned)
            .collect();
        // Only the last MAX_FILES can be kept: recording the others first would push them out
        // again (and cost a scan of the list per path).
        if paths.len() > MAX_FILES {
            paths.drain(..paths.len() - MAX_FILES);
        }
        match access {
            Access::Read => outcome.files_read = paths,
            Access::Write => outcome.files_modified = paths,
        }
    }
    let commanded = input.params.get("command").is_some() || input.params.get("cmd").is_some();
    let lookup = failure.is_none() && access == Access::Read && !commanded;
    // a file written: the failed writes of it before (an edit whose old text did not match, then
    // the file written whole) are got past, whatever the writing tool
    let rewrote = failure.is_none() && access == Access::Write && !commanded;
    // One entry per tool and subject: a repeated failure replaces the older one and counts; a
    // later success of the same call resolves it.
    let prefix = failure_prefix(&tool, &input.params);
    let mut alike = None;
    if let Some(error) = failure {
        let detail = failure_detail(&error);
        // (two commands failing alike are two failures: `npm test` and `npm run lint` may both say
        // no more than their exit code)
        alike = (!commanded).then(|| {
            format!(
                ": {}",
                capture::cap_chars(&secrets::redact(&detail), ALIKE_FAILURE_CHARS)
            )
        });
        // the failed command and its output are redacted before they are kept (issue 27)
        outcome.failure = Some(capture::cap_chars(
            &secrets::redact(&format!("{prefix}{detail}")),
            MAX_FAILURE_CHARS,
        ));
    }
    Ok(Prepared {
        tool,
        outcome,
        prefix,
        lookup,
        rewrote,
        alike,
    })
}

/// [`record_tool_result`] for several results of a session at once, in order (a turn's tool
/// results): the same records as one call per result, with one locked read-modify-write per state
/// file instead of one per result. All inputs are checked before anything is written.
pub fn record_tool_results(
    state_dir: &Path,
    session_key: &str,
    inputs: &[ToolResult],
) -> Result<Vec<ToolResultOutcome>> {
    let prepared = inputs.iter().map(prepare).collect::<Result<Vec<_>>>()?;
    if prepared.is_empty() {
        return Ok(vec![]);
    }
    update(
        state_dir,
        session_key,
        RESOURCES_FILE,
        |r: &mut ResourcesData| {
            let mut changed = false;
            for p in &prepared {
                changed |= touch(&mut r.tools_used, &p.tool, MAX_TOOLS);
                for f in &p.outcome.files_read {
                    changed |= touch(&mut r.files_read, f, MAX_FILES);
                }
                for f in &p.outcome.files_modified {
                    changed |= touch(&mut r.files_modified, f, MAX_FILES);
                }
            }
            (changed, ())
        },
    )?;
    update(state_dir, session_key, THREAD_FILE, |t: &mut ThreadData| {
        let mut changed = false;
        for p in &prepared {
            let prefix = &p.prefix;
            let tool_failed = (format!("{} ", p.tool), format!("{}: ", p.tool));
            let mut count = 1;
            let before = t.errors.len();
            let counts = &mut t.error_counts;
            t.errors.retain(|e| {
                let of_tool = e.starts_with(&tool_failed.0) || e.starts_with(&tool_failed.1);
                let same = e.starts_with(prefix.as_str())
                    || (of_tool && p.alike.as_ref().is_some_and(|d| e.contains(d.as_str())));
                if !same && p.lookup && of_tool {
                    counts.remove(e);
                    return false;
                }
                if !same && p.rewrote && rewrites(e, &p.prefix) {
                    counts.remove(e);
                    return false;
                }
                if same {
                    let n = counts.remove(e).unwrap_or(1);
                    count += n;
                }
                !same
            });
            match &p.outcome.failure {
                Some(failure) => {
                    t.errors.push(failure.clone());
                    if count > 1 {
                        t.error_counts.insert(failure.clone(), count);
                    }
                    if t.errors.len() > MAX_FAILURES {
                        let gone = t.errors.remove(0);
                        t.error_counts.remove(&gone);
                    }
                    changed = true;
                }
                None => changed |= t.errors.len() != before,
            }
        }
        (changed, ())
    })?;
    Ok(prepared.into_iter().map(|p| p.outcome).collect())
}

/// Whether the failure entry `entry` is a write's (its tool writes, [`classify_tool`]) of the
/// file that the failure prefix `written` of another write names (`write src/a.ts: ` for `edit
/// src/a.ts: Could not find the exact text`), whatever the two tools.
pub fn rewrites(entry: &str, written: &str) -> bool {
    match (written_file(entry), written_file(written)) {
        (Some(e), Some(w)) => e.starts_with(w),
        _ => false,
    }
}

/// What follows a writing tool's name in a failure entry or prefix: its file, `src/a.ts: `; none
/// for another tool or a call without a file.
fn written_file(s: &str) -> Option<&str> {
    s.split_once(' ')
        .filter(|(tool, rest)| classify_tool(tool) == Access::Write && !rest.is_empty())
        .map(|(_, rest)| rest)
}

/// What joins a reply recorded as a decision to what it answered: `<reply> (re: <proposal>)`.
pub const REPLY_QUOTE: &str = " (re: ";
/// What joins a proposal the user accepted, or an option they picked, to the agent's question:
/// `<proposal> (asked: <question>; user: <reply>)`.
pub const ASKED_QUOTE: &str = " (asked: ";
/// What joins the question of [`ASKED_QUOTE`] to the user's reply.
pub const USER_REPLY: &str = "; user: ";
/// What joins an option the user picked, or a question they acknowledged, to their reply when
/// there is no question to quote: `<option> (user: <reply>)`.
pub const USER_QUOTE: &str = " (user: ";

/// How a failure entry of that call starts (`bash npm run check: `): a later success of the
/// call resolves the entries that start so, and a failure is told to be that call's by it.
pub fn failure_prefix(tool: &str, params: &Value) -> String {
    format!("{}: ", failure_key(tool, params))
}

/// Characters of a failed call's subject (its command or path) in a failure entry.
pub const FAILURE_SUBJECT_CHARS: usize = 80;

/// What a failure is recorded under, and what a later success of the same call resolves: the
/// tool and the call's subject ([`substance::call_subject`]), `bash npm run check`.
pub fn failure_key(tool: &str, params: &Value) -> String {
    match substance::call_subject(params, FAILURE_SUBJECT_CHARS) {
        Some(subject) => format!("{tool} {subject}"),
        None => tool.to_string(),
    }
}

/// What a failure says: the first non-empty line that reads as an error ([`ERROR_TERMS`], not
/// a bare exit code), or else its first (past a runner's echo of the command, `> pkg check`),
/// with the line after it when it leads into that one (ends with `:`), and its last when that
/// differs (a command's output often ends with the exit code or the
/// error), at most [`MAX_FAILURE_CHARS`]. In a long line the error is shown from its word
/// (`…invalid_grant" "Token has been expired or revoked."`, not the URL before it). An output
/// escaped into one line (a hook's JSON: `failed:\n\n[X]`) is read by its escaped line breaks
/// too. `failed` for an empty error.
pub fn failure_detail(error: &str) -> String {
    let unescaped;
    let error = if error.contains("\\n") {
        unescaped = error.replace("\\n", "\n");
        unescaped.as_str()
    } else {
        error
    };
    let lines: Vec<&str> = error
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // the first line that is not a runner's echo of what it runs (`> pkg@1.0.0 check`, `$ make`):
    // the first of the output itself
    let Some(start) = lines
        .iter()
        .position(|l| !l.starts_with("> ") && !l.starts_with("$ "))
        .or((!lines.is_empty()).then_some(0))
    else {
        return "failed".into();
    };
    let at = (start..lines.len())
        .find(|&i| error_at(lines[i]).is_some())
        .unwrap_or(start);
    let half = MAX_FAILURE_CHARS / 2;
    // a line that leads into what it names (`Pre-commit validation failed:`) says it with the next
    let (first, next) = match lines.get(at + 1) {
        Some(more) if lines[at].ends_with(':') => {
            (Cow::Owned(format!("{} {more}", lines[at])), at + 2)
        }
        _ => (from_error(lines[at], half), at + 1),
    };
    match lines.get(next..).and_then(|rest| rest.last()).copied() {
        Some(last) if last != lines[at] => {
            format!(
                "{} … {}",
                capture::gist(&first, half),
                capture::gist(last, half)
            )
        }
        _ => first.into_owned(),
    }
}

/// Words that say a line of a tool's output is its error (lower case).
const ERROR_TERMS: &[&str] = &[
    "error",
    "fail",
    "fatal",
    "denied",
    "not found",
    "no such",
    "invalid",
    "exception",
    "cannot",
    "can't",
    "could not",
    "couldn't",
    "unable",
    "expired",
    "refused",
    "timed out",
    "timeout",
    "panic",
    "forbidden",
    "unauthorized",
    "not allowed",
    "missing",
];

/// Where the first of [`ERROR_TERMS`] starts in `line` (a byte index), unless the line only
/// says the exit code (`Exit code 1`, `Command exited with code 2`). A term counted as none
/// (`65 tests, 0 failures`, `no errors`) says nothing failed.
fn error_at(line: &str) -> Option<usize> {
    let lower = line.to_lowercase();
    if capture::exit_code_line(line).is_some() {
        return None;
    }
    let counted_none = |at: usize| {
        let before = lower[..at].trim_end();
        let word = before.rsplit([' ', ',', '(', '[']).next().unwrap_or("");
        before.len() < at && matches!(word, "0" | "no" | "zero" | "without")
    };
    let at = ERROR_TERMS
        .iter()
        .flat_map(|t| lower.match_indices(t).map(|(i, _)| i))
        .filter(|&i| !counted_none(i))
        .min()?;
    // (a lower-cased character of another length: indices would not match; none is cut)
    Some(if lower.len() == line.len() { at } else { 0 })
}

/// `line` from the word its error starts in when that is past `max / 2` characters (`…` before
/// it), else whole.
fn from_error(line: &str, max: usize) -> Cow<'_, str> {
    let Some(at) = error_at(line) else {
        return Cow::Borrowed(line);
    };
    if line[..at].chars().count() <= max / 2 {
        return Cow::Borrowed(line);
    }
    let word = line[..at]
        .rfind(|c: char| c.is_whitespace())
        .map_or(0, |i| i + 1);
    Cow::Owned(format!("…{}", &line[word..]))
}

fn push_decision(d: &mut DecisionsData, what: String, when: Option<String>) -> Decision {
    d.next_id += 1;
    let dec = Decision {
        id: format!("d{}", d.next_id),
        what,
        when,
    };
    d.decisions.push(dec.clone());
    if d.decisions.len() > MAX_DECISIONS {
        d.decisions.remove(0);
    }
    dec
}

/// Records a decision. The same `what` recorded again returns the existing decision unchanged.
/// `when` defaults to now (RFC 3339).
pub fn record_decision(
    state_dir: &Path,
    session_key: &str,
    what: &str,
    when: Option<&str>,
) -> Result<Decision> {
    let what = non_empty(what, "what")?;
    let when = Some(when.map_or_else(|| rfc3339(now_ms()), str::to_string));
    update(
        state_dir,
        session_key,
        DECISIONS_FILE,
        |d: &mut DecisionsData| {
            if let Some(existing) = d.decisions.iter().find(|x| x.what == what) {
                return (false, existing.clone());
            }
            (true, push_decision(d, what, when))
        },
    )
}

/// Records an open item (deduplicated). Returns the number of open items.
pub fn record_open_item(state_dir: &Path, session_key: &str, item: &str) -> Result<usize> {
    let item = non_empty(item, "item")?;
    update(
        state_dir,
        session_key,
        OPEN_ITEMS_FILE,
        |o: &mut OpenItemsData| {
            let changed = touch(&mut o.open_items, &item, MAX_OPEN_ITEMS);
            (changed, o.open_items.len())
        },
    )
}

/// Removes an open item (exact text, after trimming). Returns whether it was there.
pub fn resolve_open_item(state_dir: &Path, session_key: &str, item: &str) -> Result<bool> {
    let item = non_empty(item, "item")?;
    update(
        state_dir,
        session_key,
        OPEN_ITEMS_FILE,
        |o: &mut OpenItemsData| {
            let before = o.open_items.len();
            o.open_items.retain(|x| *x != item);
            let removed = o.open_items.len() != before;
            (removed, removed)
        },
    )
}

/// Records a learning (deduplicated). Returns the number of learnings.
pub fn record_learning(state_dir: &Path, session_key: &str, text: &str) -> Result<usize> {
    let text = non_empty(text, "learning")?;
    update(
        state_dir,
        session_key,
        LEARNINGS_FILE,
        |l: &mut LearningsData| {
            let changed = touch(&mut l.learnings, &text, MAX_LEARNINGS);
            (changed, l.learnings.len())
        },
    )
}

/// What [`record_messages`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessagesOutcome {
    pub topic: Option<String>,
    pub exchanges: Vec<Exchange>,
    /// Decisions recorded by this call (patterns seen by earlier calls are not recorded again).
    pub decisions: Vec<Decision>,
}

/// A decision-like pattern: a short user message after a long agent response.
struct Pattern {
    mark: String,
    what: String,
    when: Option<String>,
    /// For a reply to a report (`<reply> (re: ...)`), its lead: the same words after another
    /// report (a note the user sends after every restart) decide once.
    lead: Option<String>,
}

/// The one walk of [`record_messages`] over the messages: the topic, the last exchanges and the
/// decision-like patterns, in order.
fn walk(messages: &[Value]) -> (Option<String>, Vec<Exchange>, Vec<Pattern>) {
    let mut topic = None;
    let mut exchanges: Vec<Exchange> = Vec::new();
    let mut patterns = Vec::new();
    // the agent's last message and when it was sent
    let mut last_agent: Option<(String, Option<u64>)> = None;
    // One walk: the package's own injections and the host's wrappers are gone, and each user
    // message is a request, an answer or noise by where it stands (see [`dialogue`]).
    for (m, line) in messages.iter().zip(dialogue::read_dialogue(messages)) {
        match line {
            dialogue::Line::User { text, said, .. } => {
                let squashed = capture::squash(&text);
                if said == dialogue::Said::Noise {
                    continue;
                }
                if said == dialogue::Said::Request {
                    topic = Some(gist(&squashed, TOPIC_CHARS));
                    exchanges.push(Exchange {
                        role: "user".into(),
                        gist: gist(&squashed, GIST_CHARS),
                    });
                }
                if let Some((agent, agent_at)) = last_agent.take() {
                    let ts = capture::sent_at(m);
                    let late = matches!((agent_at, ts),
                        (Some(a), Some(t)) if t >= a.saturating_add(REPORT_REPLY_GAP_MS));
                    if squashed.chars().count() < DECISION_USER_MAX_CHARS
                        && agent.chars().count() > LONG_AGENT_CHARS
                        && !wrappers::is_cron_run(&capture::message_text(m))
                    {
                        if let Some(what) = decision_what(&agent, &squashed, late) {
                            let lead = format!("{squashed}{REPLY_QUOTE}");
                            let lead = (what.starts_with(&lead)
                                && substance::proposal(&agent).is_none())
                            .then_some(lead);
                            patterns.push(Pattern {
                                mark: capture::fingerprint(&[
                                    &agent,
                                    &squashed,
                                    &ts.unwrap_or(0).to_string(),
                                ]),
                                what,
                                when: ts.map(rfc3339),
                                lead,
                            });
                        }
                    }
                }
            }
            dialogue::Line::Agent { text, .. } => {
                if !text.trim().is_empty() {
                    exchanges.push(Exchange {
                        role: "agent".into(),
                        gist: gist(&text, GIST_CHARS),
                    });
                    last_agent = Some((text, capture::sent_at(m)));
                }
            }
            dialogue::Line::Other => {}
        }
    }
    if exchanges.len() > MAX_EXCHANGES {
        exchanges.drain(..exchanges.len() - MAX_EXCHANGES);
    }
    (topic, exchanges, patterns)
}

/// The decisions in `messages` as [`record_messages`] finds them (same rules, in order, the same
/// reply after another report once), without recording anything: for a checkpoint to carry the
/// decisions made in the messages a compaction removes, whether or not the host passed them to
/// [`record_messages`] before. Their ids are empty (the checkpoint assigns them).
pub fn decisions_in(messages: &[Value]) -> Vec<Decision> {
    let mut out: Vec<Decision> = Vec::new();
    // the leads (`<reply> (re: `) of the decisions kept, looked up at once (a long chat has
    // thousands of replies)
    let mut leads: std::collections::HashSet<String> = std::collections::HashSet::new();
    for p in walk(messages).2 {
        if let Some(lead) = &p.lead {
            if leads.contains(lead) {
                continue;
            }
        }
        if let Some(i) = p.what.find(REPLY_QUOTE) {
            leads.insert(p.what[..i + REPLY_QUOTE.len()].to_string());
        }
        out.push(Decision {
            id: String::new(),
            what: p.what,
            when: p.when,
        });
    }
    out
}

/// Layer B (section 7.2) over the message array of a `context` event, by structure only
/// ([`substance`]: no keywords, any language):
/// - topic: gist (100 chars) of the last user message with content of its own (slash commands
///   and short acknowledgements such as `ok` or `yes, do it` never become the topic);
/// - exchanges: the last 8 user messages with content and agent messages with text, as 120-char
///   gists;
/// - decisions (seed 001, 7.2): a short user reply (under 50 characters) right after an agent
///   response of more than 500 characters; never a host turn (heartbeat, `/new` prompt, cron run:
///   noise in [`dialogue`]), a slash command, a question back, or mostly pasted text. Its `what`
///   says what was decided (`decision_what`): after a response that ends by asking something,
///   `<proposal> (asked: <question>; user: <reply>)` for an acknowledgement (`ok`, `好的`),
///   `<reply> (re: <proposal>; asked: <question>)` for a reply with content of its own (without a
///   proposal, the question alone), the proposal being the nearest paragraph with letters before
///   the question (never `---`, a table rule, an emoji line or a code block); after a response
///   that asks nothing (a report), `<reply> (re: <what it reported last>)` for a reply with content
///   of its own, and nothing for an acknowledgement (`thanks`); an option picked by its number,
///   letter or label (`2`, `option B`, `方案二`) is named: `<option> (asked: ...; user: <reply>)`.
///   Its `when` is the message's timestamp. Each pattern is recorded once per session
///   (fingerprinted), however often the same messages are passed again.
pub fn record_messages(
    state_dir: &Path,
    session_key: &str,
    messages: &[Value],
) -> Result<MessagesOutcome> {
    // The key and the session directory are checked even when the messages hold nothing to
    // record (only slash commands or acknowledgements): a symlinked directory is refused.
    existing_session_dir(state_dir, &STATE_DIR, session_key)?;
    let (topic, exchanges, patterns) = walk(messages);
    let decisions = if patterns.is_empty() {
        Vec::new()
    } else {
        update(
            state_dir,
            session_key,
            DECISIONS_FILE,
            |d: &mut DecisionsData| {
                let mut added = Vec::new();
                for p in patterns {
                    if d.marks.contains(&p.mark) {
                        continue;
                    }
                    if let Some(lead) = &p.lead {
                        if d.decisions
                            .iter()
                            .any(|x| x.what.starts_with(lead.as_str()))
                        {
                            continue;
                        }
                    }
                    d.marks.push(p.mark);
                    let when = p.when.or_else(|| Some(rfc3339(now_ms())));
                    added.push(push_decision(d, p.what, when));
                }
                if d.marks.len() > MAX_MARKS {
                    let excess = d.marks.len() - MAX_MARKS;
                    d.marks.drain(..excess);
                }
                (!added.is_empty(), added)
            },
        )?
    };
    if topic.is_some() || !exchanges.is_empty() {
        let (t2, e2) = (topic.clone(), exchanges.clone());
        update(state_dir, session_key, THREAD_FILE, |t: &mut ThreadData| {
            let changed = t.topic != t2 || t.exchanges != e2;
            t.topic = t2;
            t.exchanges = e2;
            (changed, ())
        })?;
    }
    Ok(MessagesOutcome {
        topic,
        exchanges,
        decisions,
    })
}

/// The option of the agent's message a bare pick names (`1`, `lets do 2`, `option B`: at most
/// [`BARE_PICK_LETTERS`] letters besides its number or letter, or [`LISTED_PICK_LETTERS`] around
/// a list of several numbers, [`substance::number_list`]; [`substance::chosen_option`], a
/// bulleted item by its place only when the message asked), or `None`.
pub fn bare_pick(agent: &str, reply: &str) -> Option<String> {
    let letters = substance::letters(reply);
    if letters > BARE_PICK_LETTERS
        && !(letters <= LISTED_PICK_LETTERS && substance::number_list(reply))
    {
        return None;
    }
    substance::chosen_option(agent, reply, dialogue::ends_with_question(agent))
}

/// What a short reply right after a long agent message decided, or `None`. A question back, a
/// reply without two letters of its own and mostly pasted text decide nothing.
/// - After a message that ends by asking something: a reply that picks one of the options the
///   agent offered (by number, letter or label: [`substance::chosen_option`]) names it; an
///   acknowledgement (`ok`, `好的`) quotes the proposal it accepts; a reply with content of its
///   own says what it is about (`<reply> (re: <proposal>; asked: <question>)`).
/// - After a message that asks nothing (a report, an answer): a reply that picks an option by its
///   number or letter names it; a reply with content of its own ([`substance::Substance::Content`],
///   or one that names something: `用PostgreSQL，不要SQLite`) is a decision about what the agent
///   reported last (`<reply> (re: <gist>)`); an acknowledgement (`thanks`) is none.
///
/// A reply `late` ([`REPORT_REPLY_GAP_MS`] after the agent's message) to a report that asked
/// nothing is the user coming back (`good morning`, the next request): no decision about it.
fn decision_what(agent: &str, reply: &str, late: bool) -> Option<String> {
    // a question back (`what about Redis?`) asks; it decides nothing
    if substance::asks(reply) || substance::mostly_pasted(reply) {
        return None;
    }
    let kind = substance::substance(reply);
    let own = substance::letters(reply) >= 2;
    let Some((question, proposal)) = substance::proposal(agent) else {
        if late {
            return None;
        }
        // a bare pick (`lets do 2`, `option B`) of a list the agent wrote
        if let Some(item) = bare_pick(agent, reply) {
            return Some(format!(
                "{}{USER_QUOTE}{reply})",
                gist(&item, DECISION_PROPOSAL_CHARS)
            ));
        }
        let content = kind == substance::Substance::Content || substance::names_something(reply);
        if !own || !content {
            return None;
        }
        let re = substance::report_gist(agent)?;
        return Some(format!(
            "{reply} (re: {})",
            gist(&re, DECISION_REPORT_CHARS)
        ));
    };
    let q = gist(&question, DECISION_QUESTION_CHARS);
    if let Some(item) = substance::chosen_option(agent, reply, true) {
        return Some(format!(
            "{}{ASKED_QUOTE}{q}{USER_REPLY}{reply})",
            gist(&item, DECISION_PROPOSAL_CHARS)
        ));
    }
    // a short reply that names something (`modify defaultGetApiKey`) says what it decided
    let kind = match kind {
        substance::Substance::Ack if substance::names_something(reply) => {
            substance::Substance::Content
        }
        k => k,
    };
    Some(match (kind, proposal) {
        (substance::Substance::Ack, Some(p)) => format!(
            "{}{ASKED_QUOTE}{q}{USER_REPLY}{reply})",
            gist(&p, DECISION_PROPOSAL_CHARS)
        ),
        (substance::Substance::Ack, None) => format!("{q}{USER_QUOTE}{reply})"),
        (_, _) if !own => return None,
        (_, Some(p)) => format!(
            "{reply} (re: {}; asked: {q})",
            gist(&p, DECISION_PROPOSAL_CHARS)
        ),
        (_, None) => format!("{reply} (re: {q})"),
    })
}

/// Reads the state as the next checkpoint would bundle it (taking the session lock; the latest
/// checkpoint time is that of `_latest.json`). For inspection and tests. Never writes: nothing
/// is created for a session never written (it reads as empty, also on a read-only state dir),
/// corrupt files stay where they are and read as empty (see [`peek_bundle`]).
pub fn read_state(state_dir: &Path, session_key: &str) -> Result<StateBundle> {
    let _lock = lock_existing_session(state_dir, session_key)?;
    peek_bundle(
        state_dir,
        session_key,
        checkpoint_mark(state_dir, session_key),
    )
}

/// Empties the state files under the session lock (the checkpoint crate calls [`reset`] inside
/// its own locked write instead).
pub fn clear_state(state_dir: &Path, session_key: &str) -> Result<()> {
    let _lock = lock_session(state_dir, session_key)?;
    reset(state_dir, session_key)
}

#[cfg(test)]
mod tests;
