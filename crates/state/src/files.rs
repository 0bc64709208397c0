//! The on-disk layer: one JSON file per concern under `<stateDir>/context/state/<session dir>/`,
//! each stamped with the writing process instance and time, written atomically, moved aside when
//! torn or corrupt.

use crate::{Decision, Exchange};
use context_fsio::{
    atomic_write, is_future, now_ms, parse_rfc3339, read_bounded, rfc3339, Durability, Error,
    ErrorCode, Result,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::Path;
use std::sync::OnceLock;

/// The `schema` value stamped into every state file.
pub const SCHEMA: &str = "openclaw/context-state";

/// `decisions.json`: decisions, the id counter and the marks of decision-like patterns already seen.
pub const DECISIONS_FILE: &str = "decisions.json";
/// `thread.json`: current topic, recent exchanges, tool failures.
pub const THREAD_FILE: &str = "thread.json";
/// `resources.json`: files read, files modified, tools used.
pub const RESOURCES_FILE: &str = "resources.json";
/// `open_items.json`: open items.
pub const OPEN_ITEMS_FILE: &str = "open_items.json";
/// `learnings.json`: learnings.
pub const LEARNINGS_FILE: &str = "learnings.json";

/// Every state file, in the order they are read.
pub const ALL_FILES: [&str; 5] = [
    DECISIONS_FILE,
    THREAD_FILE,
    RESOURCES_FILE,
    OPEN_ITEMS_FILE,
    LEARNINGS_FILE,
];

/// An id for this process instance, stamped into every state file it writes: the pid alone is not
/// enough (pids are reused across restarts), so the process start time in nanoseconds is added.
pub fn instance_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        format!("{}-{:x}", std::process::id(), nanos)
    })
}

/// The envelope of every state file: who wrote it, when, then the payload's own fields.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StateFile<T> {
    #[serde(default)]
    pub schema: String,
    #[serde(default)]
    pub version: u32,
    /// `instance_id()` of the process that last wrote the file.
    #[serde(default)]
    pub instance: String,
    /// RFC 3339 time of the last write.
    #[serde(default)]
    pub updated_at: String,
    /// The number of the session's newest checkpoint when the file was written (`cp_007` -> 7,
    /// 0 before the first): what decides whether a later checkpoint already bundled this content,
    /// whatever the clocks said. Absent in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_seq: Option<u64>,
    #[serde(flatten)]
    pub data: T,
}

impl<T: Default> Default for StateFile<T> {
    fn default() -> Self {
        StateFile {
            schema: SCHEMA.into(),
            version: 1,
            instance: String::new(),
            updated_at: String::new(),
            checkpoint_seq: None,
            data: T::default(),
        }
    }
}

impl<T> StateFile<T> {
    /// Milliseconds of `updated_at`; 0 when missing or unreadable (treated as old).
    pub fn updated_ms(&self) -> u64 {
        parse_rfc3339(&self.updated_at).unwrap_or(0)
    }

    /// Seed 001 section 12: state written by an earlier process before the session's latest
    /// checkpoint was already bundled (or belongs to a superseded run) and is discarded.
    ///
    /// "Before" is decided by checkpoint numbers, not clocks: a file stamped with an older
    /// checkpoint number than `latest.seq` is stale. Only a file written before the stamp existed
    /// falls back to times, and is kept when the checkpoint's time lies in the future (a
    /// checkpoint written while the clock ran ahead must not discard what was recorded after the
    /// clock was fixed).
    pub fn is_stale(&self, latest: Option<&CheckpointMark>) -> bool {
        let Some(cp) = latest else { return false };
        if self.instance == instance_id() {
            return false;
        }
        match (self.checkpoint_seq, cp.created_ms) {
            (Some(seq), _) => seq < cp.seq,
            // A checkpoint time from the future says nothing about what came before it: keep.
            (None, Some(ms)) => !is_future(ms, now_ms()) && self.updated_ms() < ms,
            (None, None) => false,
        }
    }
}

/// The session's newest checkpoint as the state files compare against it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckpointMark {
    /// Its number (`cp_007` -> 7).
    pub seq: u64,
    /// Its creation time, for state files written before they carried a checkpoint number.
    pub created_ms: Option<u64>,
}

/// A state file's payload.
pub trait Payload: Default {
    /// The payload emptied by a reset or a stale discard: content goes, bookkeeping stays.
    fn cleared(self) -> Self {
        Self::default()
    }
}

impl Payload for DecisionsData {
    fn cleared(self) -> Self {
        DecisionsData {
            decisions: Vec::new(),
            next_id: self.next_id,
            marks: self.marks,
        }
    }
}
impl Payload for ThreadData {}
impl Payload for ResourcesData {}
impl Payload for OpenItemsData {}
impl Payload for LearningsData {}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DecisionsData {
    #[serde(default)]
    pub decisions: Vec<Decision>,
    /// The number of the next `dN` id; kept across resets so ids stay unique in a session.
    #[serde(default)]
    pub next_id: u64,
    /// Fingerprints of the decision-like patterns already recorded from messages (kept across
    /// resets, so a checkpoint does not make the next `context` event record them again).
    #[serde(default)]
    pub marks: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadData {
    #[serde(default)]
    pub topic: Option<String>,
    #[serde(default)]
    pub exchanges: Vec<Exchange>,
    /// Unresolved tool failures, one per tool and subject (command or path):
    /// `"<tool> <subject>: <error>"`, the latest error of that call.
    #[serde(default)]
    pub errors: Vec<String>,
    /// How often each entry of `errors` failed, when more than once.
    #[serde(default)]
    pub error_counts: std::collections::BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourcesData {
    #[serde(default)]
    pub files_read: Vec<String>,
    #[serde(default)]
    pub files_modified: Vec<String>,
    #[serde(default)]
    pub tools_used: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OpenItemsData {
    #[serde(default)]
    pub open_items: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LearningsData {
    #[serde(default)]
    pub learnings: Vec<String>,
}

/// Largest state file read. The caps (50 decisions of 1,000 characters, 100 paths of 1,024 bytes
/// in each list, ...) keep real files far below it, even with every character JSON-escaped; a
/// larger file is refused (`UnsafeFile`).
pub const MAX_STATE_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// What [`load`] does with a file it cannot use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDamage {
    /// A write path (holding the session lock): a torn or corrupt file, or one refused by the
    /// bounded reader (a link, a FIFO or device, an oversized file), is renamed to
    /// `<name>.corrupt-<ms>` so nothing is silently lost, and the default is returned.
    MoveAside,
    /// A read path, which never writes: a corrupt file reads as the default (the next write moves
    /// it aside); a refused file is an `UnsafeFile` error.
    Leave,
}

/// Reads `dir/name` through the bounded, no-follow reader. Missing: the default. Damaged: see
/// [`OnDamage`].
pub fn load<T: DeserializeOwned + Default>(
    dir: &Path,
    name: &str,
    on_damage: OnDamage,
) -> Result<StateFile<T>> {
    let path = dir.join(name);
    let bytes = match read_bounded(&path, MAX_STATE_FILE_BYTES) {
        Ok(b) => b,
        Err(e) if e.code == ErrorCode::NotFound => return Ok(StateFile::default()),
        Err(e) if e.code == ErrorCode::UnsafeFile && on_damage == OnDamage::MoveAside => {
            move_aside(dir, name)?;
            return Ok(StateFile::default());
        }
        Err(e) => return Err(e),
    };
    match serde_json::from_slice::<StateFile<T>>(&bytes) {
        Ok(f) => Ok(f),
        Err(_) if on_damage == OnDamage::Leave => Ok(StateFile::default()),
        Err(_) => {
            move_aside(dir, name)?;
            Ok(StateFile::default())
        }
    }
}

/// Renames a corrupt state file out of the way, keeping it for inspection.
fn move_aside(dir: &Path, name: &str) -> Result<()> {
    let from = dir.join(name);
    let mut ms = now_ms();
    loop {
        let to = dir.join(format!("{name}.corrupt-{ms}"));
        if fs::symlink_metadata(&to).is_err() {
            return fs::rename(&from, &to)
                .map_err(|e| Error::io(format!("moving aside corrupt {}", from.display()), e));
        }
        ms += 1;
    }
}

/// Stamps `file` with this process, the current time and the session's newest checkpoint number
/// `seq`, and writes it atomically (0600).
pub fn store<T: Serialize>(
    dir: &Path,
    name: &str,
    file: &mut StateFile<T>,
    seq: u64,
    durability: Durability,
) -> Result<()> {
    file.schema = SCHEMA.into();
    file.version = 1;
    file.instance = instance_id().to_string();
    file.updated_at = rfc3339(now_ms());
    file.checkpoint_seq = Some(seq);
    let mut bytes = serde_json::to_vec_pretty(file)
        .map_err(|e| Error::new(context_fsio::ErrorCode::Io, format!("encoding {name}: {e}")))?;
    bytes.push(b'\n');
    atomic_write(dir, name, &bytes, durability)
}
