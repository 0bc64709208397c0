//! Writing a compaction's history entry: the messages not held yet, numbered on from the last one,
//! under the store's session lock.

use crate::document::{render_messages, write_message};
use crate::quota::{cut_to_fit, make_room};
use crate::search::{history_entries, summary_of, Summary};
use context_fsio::{now_ms, record_activity, Durability, Error, ErrorCode, Result};
use context_offload::read::read_all;
use context_offload::store::Session;
use context_offload::{check_target, Entry, Kind, DEFAULT_QUOTA_BYTES, HISTORY_ENTRY_PREFIX};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

/// The store's own entry that holds what the history entries hold (fingerprints, numbering).
pub const INDEX_ENTRY: &str = "context-native-history";
const INDEX_VERSION: u32 = 1;

/// Options of [`write`].
#[derive(Debug, Clone)]
pub struct HistoryOptions {
    /// The compaction this is (shown in the entry's first line).
    pub compaction: Option<u64>,
    /// The session's store quota ([`DEFAULT_QUOTA_BYTES`]).
    pub quota_bytes: Option<u64>,
    /// fsync the entry and the catalog (default true).
    pub durable: bool,
}

impl Default for HistoryOptions {
    fn default() -> Self {
        HistoryOptions {
            compaction: None,
            quota_bytes: None,
            durable: true,
        }
    }
}

/// What [`write`] did.
#[derive(Debug, Clone)]
pub struct WriteOutcome {
    /// The entry written; `None` when every message was held already (or none had text).
    pub entry: Option<Entry>,
    /// Messages the entry holds.
    pub messages: u64,
    /// Their first and last index.
    pub first_index: Option<u64>,
    pub last_index: Option<u64>,
    /// Older history entries cut to their head and tail to make room (oldest first); the new
    /// entry's own name when it was cut to fit too.
    pub cut: Vec<String>,
    /// The store's history index was unreadable and was rebuilt (numbering goes on from the
    /// newest entry; messages held before may be held again).
    pub repaired: bool,
    /// The session's history after the write.
    pub summary: Summary,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Index {
    pub version: u32,
    /// The index the next message gets (from 1).
    pub next_index: u64,
    /// The number of the next entry (`history-<n>`, from 1).
    pub next_entry: u64,
    /// Names of the entries already cut to their head and tail.
    #[serde(default)]
    pub cut: Vec<String>,
    /// Fingerprints of every message held.
    #[serde(default)]
    pub seen: Vec<String>,
    /// Per entry: its first and last message index.
    #[serde(default)]
    pub spans: Vec<(String, u64, u64)>,
}

/// The index as stored; `Err` when unreadable (the caller rebuilds it).
pub fn load_index(s: &Session) -> std::result::Result<Option<Index>, Error> {
    let Some(e) = s.entries().iter().find(|e| e.name == INDEX_ENTRY) else {
        return Ok(None);
    };
    let bytes = read_all(s, e)?;
    match serde_json::from_slice::<Index>(&bytes) {
        Ok(i) if i.version == INDEX_VERSION => Ok(Some(i)),
        _ => Err(Error::corrupt(format!(
            "the history index {INDEX_ENTRY:?} is not one this version wrote"
        ))),
    }
}

/// The last message index in an entry's text (its last line's `[#<n> `).
fn last_index_in(text: &str) -> Option<u64> {
    text.lines().rev().find_map(|l| {
        let rest = l.strip_prefix("[#")?;
        rest[..rest.find(' ')?].parse().ok()
    })
}

/// An index rebuilt from the history entries there are: numbering goes on after the newest.
fn rebuild(s: &Session) -> Index {
    let entries = history_entries(s.entries());
    let next_entry = entries.iter().map(|(n, _)| *n).max().unwrap_or(0) + 1;
    let next_index = entries
        .iter()
        .max_by_key(|(n, _)| *n)
        .and_then(|(_, e)| read_all(s, e).ok())
        .and_then(|b| last_index_in(&String::from_utf8_lossy(&b)))
        .unwrap_or(0)
        + 1;
    Index {
        version: INDEX_VERSION,
        next_index,
        next_entry,
        ..Index::default()
    }
}

/// Writes the messages of a compaction that the session's history does not hold yet as the next
/// `history-<n>` entry (pi / OpenClaw agent messages as JSON). Nothing is written when every
/// message is held already. Over the quota, the oldest history entries are cut to their head and
/// tail first, then the new one; nothing else in the store is ever evicted for it (`TooLarge` when
/// other live entries leave no room). `InvalidArg` for a bad target.
pub fn write(
    state_dir: &Path,
    session_key: &str,
    messages: &[Value],
    opts: &HistoryOptions,
) -> Result<WriteOutcome> {
    check_target(state_dir, session_key)?;
    // Rendered before the lock: the store is held only for the few reads and writes.
    let rendered = render_messages(messages);
    let mut s = Session::open(state_dir, session_key)?;
    let now = now_ms();
    let (mut index, repaired) = match load_index(&s) {
        Ok(Some(i)) => (i, false),
        Ok(None) => (rebuild(&s), false),
        Err(e) if e.code == ErrorCode::Corrupt || e.code == ErrorCode::UnsafeFile => {
            (rebuild(&s), true)
        }
        Err(e) => return Err(e),
    };
    let seen: HashSet<&str> = index.seen.iter().map(String::as_str).collect();
    let mut new_seen: Vec<String> = Vec::new();
    let fresh: Vec<_> = rendered
        .iter()
        .filter(|r| !seen.contains(r.fingerprint.as_str()))
        .filter(|r| {
            // (one message given twice in the same call is held once)
            let first = !new_seen.contains(&r.fingerprint);
            if first {
                new_seen.push(r.fingerprint.clone());
            }
            first
        })
        .collect();
    drop(seen);
    let quota = opts.quota_bytes.unwrap_or(DEFAULT_QUOTA_BYTES);
    let durability = if opts.durable {
        Durability::Durable
    } else {
        Durability::Fast
    };
    if fresh.is_empty() {
        let summary = summary_of(&s, &index);
        return Ok(WriteOutcome {
            entry: None,
            messages: 0,
            first_index: None,
            last_index: None,
            cut: vec![],
            repaired,
            summary,
        });
    }
    let mut n = index.next_entry.max(1);
    while s
        .entries()
        .iter()
        .any(|e| e.name == format!("{HISTORY_ENTRY_PREFIX}{n}"))
    {
        n += 1;
    }
    let name = format!("{HISTORY_ENTRY_PREFIX}{n}");
    let first = index.next_index.max(1);
    let last = first + fresh.len() as u64 - 1;
    let mut text = format!(
        "[{name}: the messages #{first}-#{last} a compaction{} took out of the context, word for word (host text left out, credentials redacted); each line is [#<message> <role> <time UTC>] <text>]\n",
        opts.compaction.map(|c| format!(" (the session's {c}.)")).unwrap_or_default()
    );
    for (k, r) in fresh.iter().enumerate() {
        write_message(&mut text, first + k as u64, r);
    }
    index.next_index = last + 1;
    index.next_entry = n + 1;
    index.seen.extend(new_seen);
    index.spans.push((name.clone(), first, last));
    // Room: what the index grows by counts too (the fingerprints; its old size is in the store already,
    // and the history entry is stored while it is still there). The cut names add a few bytes: 64 spare.
    let old_index = s
        .entries()
        .iter()
        .find(|e| e.name == INDEX_ENTRY)
        .map_or(0, |e| e.size_bytes);
    let index_len = (serde_json::to_vec(&index)
        .map(|v| v.len() as u64)
        .unwrap_or(0)
        + 64)
        .saturating_sub(old_index);
    let mut cut = make_room(
        &mut s,
        &mut index,
        text.len() as u64 + index_len,
        quota,
        durability,
        now,
    )?;
    let room = crate::quota::room(&s, quota, now).saturating_sub(index_len);
    if text.len() as u64 > room {
        text = cut_to_fit(&text, &name, room, quota).ok_or_else(|| {
            Error::new(
                ErrorCode::TooLarge,
                format!(
                    "the session's observation store has {room} bytes left of its quota of {quota} bytes for the history of this compaction, \
                     the rest held by live entries; nothing was written: raise offload.quotaBytes or delete entries"
                ),
            )
        })?;
        index.cut.push(name.clone());
        cut.push(name.clone());
    }
    // Nothing live is evicted for history: every live entry is protected.
    let live: Vec<String> = s
        .entries()
        .iter()
        .filter(|e| !e.is_expired(now))
        .map(|e| e.id.clone())
        .collect();
    let (entry, _) = s.store(
        Kind::Text,
        text.as_bytes(),
        Some(&name),
        None,
        None,
        None,
        quota,
        &live,
        durability,
        now,
    )?;
    let json = serde_json::to_vec(&index)
        .map_err(|e| Error::new(ErrorCode::Io, format!("serialising the history index: {e}")))?;
    let mut protect = live;
    protect.push(entry.id.clone());
    s.store(
        Kind::Text,
        &json,
        Some(INDEX_ENTRY),
        None,
        None,
        None,
        quota,
        &protect,
        durability,
        now,
    )?;
    let summary = summary_of(&s, &index);
    drop(s);
    let _ = record_activity(state_dir, session_key, now);
    Ok(WriteOutcome {
        entry: Some(entry),
        messages: fresh.len() as u64,
        first_index: Some(first),
        last_index: Some(last),
        cut,
        repaired,
        summary,
    })
}
