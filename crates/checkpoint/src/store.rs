//! Checkpoint files on disk (seed 001, 5.2 and 5.5): `cp_NNN.yaml` ordered by number,
//! `_latest.json`, the `previous_checkpoint` chain, retention of the newest five, dedup, all
//! under the session lock the state files share, every file written atomically.

use crate::input::{assemble, CheckpointInput, Previous};
use crate::model::{Checkpoint, Trigger};
use crate::yaml::{from_yaml, to_yaml};
use context_fsio::{
    atomic_write, existing_session_dir, lock_session, now_ms, parse_rfc3339, read_bounded, rfc3339,
    session_dir, sweep_temp_files, Durability, Error, Result, CHECKPOINTS_DIR,
};
use std::fs;
use std::path::{Path, PathBuf};

/// The pointer file naming the newest checkpoint of a session directory.
pub const LATEST_FILE: &str = "_latest.json";
/// Checkpoints kept per session key.
pub const RETAIN: usize = 5;
/// A write whose input tokens differ from the last checkpoint's by less than this is skipped.
pub const DEDUP_RATIO: f64 = 0.05;
/// Largest checkpoint file read; anything bigger is not one this crate wrote.
pub const MAX_FILE_BYTES: u64 = 4 << 20;
/// Largest `_latest.json` read (a checkpoint id and a path); anything bigger is not a pointer.
pub const MAX_POINTER_BYTES: u64 = 1 << 20;

/// What `write_checkpoint` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteResult {
    /// False when the write was skipped as a duplicate of the last checkpoint.
    pub written: bool,
    /// The id written, or (when skipped) the id of the checkpoint that made it a duplicate.
    pub checkpoint_id: String,
    /// Absolute path of that checkpoint file.
    pub path: PathBuf,
    /// `Some("dedup")` when skipped.
    pub reason: Option<&'static str>,
    /// Ids deleted by retention, oldest first.
    pub pruned: Vec<String>,
}

/// `cp_001`, ..., `cp_999`, `cp_1000`, ...
pub fn checkpoint_id(n: u64) -> String {
    format!("cp_{n:03}")
}

/// The number of a checkpoint id (`cp_007` -> 7); `None` for anything else.
pub fn parse_id(id: &str) -> Option<u64> {
    let digits = id.strip_prefix("cp_")?;
    if digits.is_empty() || digits.len() > 19 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn file_name(id: &str) -> String {
    format!("{id}.yaml")
}

/// The checkpoint files of a directory as (number, id), ascending by number.
pub fn list(dir: &Path) -> Result<Vec<(u64, String)>> {
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(format!("listing {}", dir.display()), e)),
    };
    let mut out = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(id) = name.strip_suffix(".yaml") else {
            continue;
        };
        if let Some(n) = parse_id(id) {
            out.push((n, id.to_string()));
        }
    }
    out.sort();
    Ok(out)
}

/// Reads and parses one checkpoint file through the bounded, no-follow reader: `UnsafeFile` for a
/// link, a FIFO or device, or a file over [`MAX_FILE_BYTES`]; `Corrupt` when unreadable as a
/// checkpoint.
pub fn load(dir: &Path, id: &str) -> Result<Checkpoint> {
    from_yaml(&read_text(dir, id)?)
}

/// The YAML text of checkpoint `id` in `dir`, unparsed (bounded, UTF-8).
fn read_text(dir: &Path, id: &str) -> Result<String> {
    let path = dir.join(file_name(id));
    let bytes = read_bounded(&path, MAX_FILE_BYTES)?;
    String::from_utf8(bytes).map_err(|_| Error::corrupt(format!("{} is not UTF-8", path.display())))
}

/// The id `_latest.json` names, if it is readable (bounded, no link followed, never blocking on
/// a FIFO) and names one.
fn read_pointer(dir: &Path) -> Option<String> {
    let bytes = read_bounded(&dir.join(LATEST_FILE), MAX_POINTER_BYTES).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let id = v.get("checkpoint_id")?.as_str()?;
    parse_id(id).map(|_| id.to_string())
}

/// The newest valid checkpoint of a session directory: the one `_latest.json` names when it is
/// the newest by number and parses; otherwise the newest by number that parses (a missing or
/// stale pointer, or a damaged file, falls back to the one before). `None` when none is valid.
pub fn newest_valid(dir: &Path) -> Result<Option<(String, Checkpoint)>> {
    let files = list(dir)?;
    if let (Some(id), Some((_, newest))) = (read_pointer(dir), files.last()) {
        if id == *newest {
            if let Ok(cp) = load(dir, &id) {
                return Ok(Some((id, cp)));
            }
        }
    }
    for (_, id) in files.iter().rev() {
        if let Ok(cp) = load(dir, id) {
            return Ok(Some((id.clone(), cp)));
        }
    }
    Ok(None)
}

/// The newest valid checkpoint of a session, without creating anything. `None` when the session
/// has no valid checkpoint; `UnsafePath` when its directory is a symlink.
pub fn read_latest(state_dir: &Path, session_key: &str) -> Result<Option<Checkpoint>> {
    let Some(dir) = existing_session_dir(state_dir, &CHECKPOINTS_DIR, session_key)? else {
        return Ok(None);
    };
    Ok(newest_valid(&dir)?.map(|(_, cp)| cp))
}

/// The session's newest valid checkpoint written at a compaction (`latest` when it is one): the
/// state of the work the messages after that compaction no longer show.
fn last_compaction(
    dir: &Path,
    files: &[(u64, String)],
    latest: Option<&(String, Checkpoint)>,
) -> Option<Checkpoint> {
    if let Some((_, cp)) = latest.filter(|(_, cp)| cp.meta.trigger == Trigger::Compaction) {
        return Some(cp.clone());
    }
    let newest = latest.map(|(id, _)| id.as_str());
    // parsing a checkpoint costs far more than reading it: one whose `trigger` line names no
    // compaction is passed over unparsed (a session without a compaction yet has only those, and
    // every write parsed all of them)
    files
        .iter()
        .rev()
        .filter(|(_, id)| Some(id.as_str()) != newest)
        .filter_map(|(_, id)| {
            let text = read_text(dir, id).ok()?;
            may_be_compaction(&text).then(|| from_yaml(&text).ok())?
        })
        .find(|cp| cp.meta.trigger == Trigger::Compaction)
}

/// False when no line of a checkpoint's YAML that names its `trigger` names a compaction: it was
/// written at a threshold, not at a compaction (told without parsing it).
fn may_be_compaction(yaml: &str) -> bool {
    yaml.lines()
        .filter(|l| l.contains("trigger"))
        .any(|l| l.contains("compaction"))
}

/// Whether a checkpoint with `input_tokens` would duplicate `last` (seed 001, 5.2): the token
/// count moved less than 5%, unless it is a compaction checkpoint whose compaction count changed.
pub fn is_duplicate(
    last: &Checkpoint,
    trigger: Trigger,
    input_tokens: u64,
    compaction_count: u64,
) -> bool {
    if trigger == Trigger::Compaction && compaction_count != last.meta.compaction_count {
        return false;
    }
    let base = last.meta.token_usage.input_tokens;
    let delta = base.abs_diff(input_tokens) as f64;
    delta < DEDUP_RATIO * base as f64 || (base == 0 && input_tokens == 0)
}

/// Writes the next checkpoint of a session (seed 001, 7.3 and 8.1), under the session lock:
/// sweeps temp files left by crashed writes, bundles the state files for what the input leaves
/// out, skips a duplicate, writes `cp_NNN.yaml` then `_latest.json` atomically, prunes all but
/// the newest five, and resets the state files.
pub fn write_checkpoint(input: &CheckpointInput) -> Result<WriteResult> {
    input.validate()?;
    let dir = session_dir(&input.state_dir, &CHECKPOINTS_DIR, &input.session_key)?;
    let _lock = lock_session(&input.state_dir, &input.session_key)?;
    sweep_temp_files(&dir);

    let files = list(&dir)?;
    let latest = newest_valid(&dir)?;
    let mut previous = Previous {
        id: latest.as_ref().map(|(id, _)| id.clone()),
        compaction_count: latest
            .as_ref()
            .map_or(0, |(_, cp)| cp.meta.compaction_count),
        task: latest.as_ref().and_then(|(_, cp)| cp.working.task.clone()),
        replaced_task: latest
            .as_ref()
            .and_then(|(_, cp)| cp.working.replaced_task.clone()),
        created_at: latest.as_ref().map(|(_, cp)| cp.meta.created_at.clone()),
        constraints: latest
            .as_ref()
            .map(|(_, cp)| cp.constraints.clone())
            .unwrap_or_default(),
        learnings: latest
            .as_ref()
            .map(|(_, cp)| cp.learnings.clone())
            .unwrap_or_default(),
        identifiers: Vec::new(),
        named_values: Vec::new(),
        open_items: latest
            .as_ref()
            .map(|(_, cp)| cp.open_items.clone())
            .unwrap_or_default(),
        key_exchanges: latest
            .as_ref()
            .map(|(_, cp)| cp.thread.key_exchanges.clone())
            .unwrap_or_default(),
        open_tasks: latest
            .as_ref()
            .map(|(_, cp)| cp.working.open_tasks.clone())
            .unwrap_or_default(),
        next_action: latest
            .as_ref()
            .and_then(|(_, cp)| cp.working.next_action.clone()),
    };
    if let Some((id, last)) = &latest {
        let count = input.compaction_count.unwrap_or(previous.compaction_count);
        if is_duplicate(last, input.trigger, input.input_tokens, count) {
            return Ok(WriteResult {
                written: false,
                checkpoint_id: id.clone(),
                path: dir.join(file_name(id)),
                reason: Some("dedup"),
                pruned: Vec::new(),
            });
        }
    }
    // (read only for a checkpoint that is written: older files are loaded only when the newest is
    // no compaction checkpoint)
    if let Some(cp) = last_compaction(&dir, &files, latest.as_ref()) {
        previous.identifiers = cp.resources.identifiers;
        previous.named_values = cp.resources.named_values;
    }
    // Which state the previous checkpoint already bundled is decided by checkpoint numbers, not
    // by its time: one written while the clock ran ahead must not discard later records.
    let mark = files.last().map(|(n, _)| context_state::CheckpointMark {
        seq: *n,
        created_ms: latest
            .as_ref()
            .and_then(|(_, cp)| parse_rfc3339(&cp.meta.created_at)),
    });
    let state = context_state::read_bundle(&input.state_dir, &input.session_key, mark)?;

    let n = files.last().map_or(1, |(n, _)| n + 1);
    let id = checkpoint_id(n);
    let created_at = input
        .created_at
        .as_deref()
        .and_then(parse_rfc3339)
        .unwrap_or_else(now_ms);
    let cp = assemble(input, state, &previous, id.clone(), rfc3339(created_at));
    let name = file_name(&id);
    // Two fsyncs in all: the checkpoint's data, then the directory (after both renames). The
    // pointer is a hint: readers fall back to the newest valid checkpoint by number when it is
    // missing, torn or stale, so its own data is not fsynced.
    let yaml = to_yaml(&cp);
    // A checkpoint the reader would refuse must not replace a readable one (found by the
    // reliability suite, issue 8: a 10 MB topic was written, then read back as nothing).
    if yaml.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::new(
            context_fsio::ErrorCode::TooLarge,
            format!(
                "the checkpoint would be {} bytes, over the {MAX_FILE_BYTES}-byte limit: shorten the input's texts",
                yaml.len()
            ),
        ));
    }
    atomic_write(&dir, &name, yaml.as_bytes(), Durability::FileOnly)?;
    let path = dir.join(&name);
    let pointer = serde_json::json!({
        "checkpoint_id": id,
        "path": path.to_string_lossy(),
    });
    atomic_write(
        &dir,
        LATEST_FILE,
        format!("{pointer}\n").as_bytes(),
        Durability::DirOnly,
    )?;

    let mut pruned = Vec::new();
    let mut all = files;
    all.push((n, id.clone()));
    if all.len() > RETAIN {
        for (_, old) in &all[..all.len() - RETAIN] {
            match fs::remove_file(dir.join(file_name(old))) {
                Ok(()) => pruned.push(old.clone()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(format!("pruning {old}"), e)),
            }
        }
    }
    context_state::reset(&input.state_dir, &input.session_key)?;
    // Retention's view of the session (best effort: the record is only a hint of activity).
    let _ = context_fsio::record_activity(&input.state_dir, &input.session_key, now_ms());
    Ok(WriteResult {
        written: true,
        checkpoint_id: id,
        path,
        reason: None,
        pruned,
    })
}
