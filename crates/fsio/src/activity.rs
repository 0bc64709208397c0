//! The session record: which session key a session directory belongs to (its name is a sanitised
//! prefix and a hash of the key, see [`crate::session_dir_name`]) and when the session was last
//! active. One small JSON file per session, `<stateDir>/context/sessions/<session dir>.json`,
//! rewritten (atomically, without fsync) at most once per [`ACTIVITY_RESOLUTION_MS`] by the
//! operations that write a session's checkpoints, state files or observations. Retention reads it
//! to find idle sessions and to report them by key.

use crate::error::{ErrorCode, Result};
use crate::paths::{session_dir_name, state_subdir};
use crate::time::{clamp_future, is_future, parse_rfc3339, rfc3339};
use crate::{atomic_write, read_bounded, Durability};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Sub-path of a state dir holding the session records.
pub const SESSIONS_DIR: [&str; 2] = ["context", "sessions"];
/// The file name suffix of a session record (`<session dir>.json`).
pub const RECORD_SUFFIX: &str = ".json";
/// A session's last activity is rewritten at most this often (one small read per call otherwise).
pub const ACTIVITY_RESOLUTION_MS: u64 = 60 * 1000;
/// Largest record read; a record holds a key (a few hundred bytes) and two times.
const MAX_RECORD_BYTES: u64 = 64 * 1024;
const SCHEMA: &str = "openclaw/context-session";

/// What the store knows about one session directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    #[serde(default)]
    pub schema: String,
    /// The exact session key.
    pub session_key: String,
    /// The session directory name ([`crate::session_dir_name`] of the key).
    pub dir: String,
    /// RFC 3339 time the record was first written.
    pub first_seen_at: String,
    /// RFC 3339 time of the last write (to within [`ACTIVITY_RESOLUTION_MS`]).
    pub last_activity_at: String,
}

impl SessionRecord {
    /// Milliseconds of `last_activity_at`, as of `now`: a time from the future counts as `now`
    /// (see [`clamp_future`]); an unreadable one as 0 (idle since ever).
    pub fn last_activity_ms(&self, now: u64) -> u64 {
        parse_rfc3339(&self.last_activity_at).map_or(0, |t| clamp_future(t, now))
    }
}

/// The path of the record of session directory `dir_name`.
pub fn record_path(state_dir: &Path, dir_name: &str) -> PathBuf {
    let mut p = state_dir.to_path_buf();
    for part in SESSIONS_DIR {
        p.push(part);
    }
    p.push(format!("{dir_name}{RECORD_SUFFIX}"));
    p
}

/// The record of session directory `dir_name`, if there is a readable one (bounded, no link
/// followed).
pub fn read_record(state_dir: &Path, dir_name: &str) -> Option<SessionRecord> {
    let bytes = read_bounded(&record_path(state_dir, dir_name), MAX_RECORD_BYTES).ok()?;
    serde_json::from_slice::<SessionRecord>(&bytes)
        .ok()
        .filter(|r| r.dir == dir_name)
}

/// Records that `session_key` was active at `now`: writes its record when missing, when the
/// recorded activity is older than [`ACTIVITY_RESOLUTION_MS`], or when it lies in the future (a
/// clock that ran ahead: the record is brought back to `now`). Returns whether it wrote.
pub fn record_activity(state_dir: &Path, session_key: &str, now: u64) -> Result<bool> {
    let dir = session_dir_name(session_key)?;
    let old = read_record(state_dir, &dir).filter(|r| r.session_key == session_key);
    if let Some(r) = &old {
        if let Some(t) = parse_rfc3339(&r.last_activity_at) {
            if !is_future(t, now) && now.saturating_sub(t) < ACTIVITY_RESOLUTION_MS {
                return Ok(false);
            }
        }
    }
    let first_seen_at = old
        .and_then(|r| parse_rfc3339(&r.first_seen_at))
        .map_or(now, |t| clamp_future(t, now));
    let record = SessionRecord {
        schema: SCHEMA.into(),
        session_key: session_key.to_string(),
        dir: dir.clone(),
        first_seen_at: rfc3339(first_seen_at),
        last_activity_at: rfc3339(now),
    };
    let folder = state_subdir(state_dir, &SESSIONS_DIR)?;
    let mut bytes = serde_json::to_vec_pretty(&record).map_err(|e| {
        crate::Error::new(ErrorCode::Io, format!("encoding the session record: {e}"))
    })?;
    bytes.push(b'\n');
    // No fsync: a power cut that loses the newest activity only makes the session look idle a
    // minute earlier.
    atomic_write(
        &folder,
        &format!("{dir}{RECORD_SUFFIX}"),
        &bytes,
        Durability::Fast,
    )?;
    Ok(true)
}

/// Removes the record of session directory `dir_name`; whether there was one.
pub fn remove_record(state_dir: &Path, dir_name: &str) -> Result<bool> {
    match std::fs::remove_file(record_path(state_dir, dir_name)) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(crate::Error::io(
            format!("removing the session record of {dir_name}"),
            e,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_key_and_activity_at_a_bounded_rate() {
        let root = std::env::temp_dir().join(format!("fsio-activity-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let key = "agent:main:telegram:direct:1";
        let dir = session_dir_name(key).unwrap();
        let t0 = 1_800_000_000_000;
        assert!(record_activity(&root, key, t0).unwrap());
        assert!(!record_activity(&root, key, t0 + 1000).unwrap());
        assert!(record_activity(&root, key, t0 + ACTIVITY_RESOLUTION_MS).unwrap());
        let r = read_record(&root, &dir).unwrap();
        assert_eq!(r.session_key, key);
        assert_eq!(r.first_seen_at, rfc3339(t0));
        assert_eq!(r.last_activity_ms(t0 * 2), t0 + ACTIVITY_RESOLUTION_MS);
        // Written a year ahead, then the clock is fixed: the record comes back to now.
        let year = 365 * 86_400_000;
        assert!(record_activity(&root, key, t0 + year).unwrap());
        assert_eq!(read_record(&root, &dir).unwrap().last_activity_ms(t0), t0);
        assert!(record_activity(&root, key, t0).unwrap());
        assert_eq!(
            read_record(&root, &dir).unwrap().last_activity_at,
            rfc3339(t0)
        );
        assert!(remove_record(&root, &dir).unwrap());
        assert!(!remove_record(&root, &dir).unwrap());
        assert!(read_record(&root, &dir).is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
