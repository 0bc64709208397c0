//! The compacted conversation, kept (issue 49). At every compaction the messages compacted are
//! written to the session's observation store as one named entry, `history-<n>` ([`write`]): one
//! line per line of each message, led by its stable index, role and time ([`document`]), host text
//! left out and credentials redacted as in checkpoints. A second compaction adds only the messages
//! the earlier ones did not hold (their fingerprints are kept in the store's own entry
//! [`INDEX_ENTRY`], read and written under the store's session lock, so two processes compacting
//! the same session keep one copy). The model reads them with `scratchpad_read`: any mode on one
//! entry, and `grep` over every history entry at once, newest first, by the name [`ALIAS`]
//! ([`search`]). History counts in the session's quota and goes with the session; it is never
//! evicted: over the quota the oldest entries are cut to their head and tail, with a note ([`quota`]).
//! Knows nothing of napi.

pub mod document;
pub mod quota;
pub mod search;
mod write;

pub use context_offload::{is_history_name, HISTORY_ENTRY_PREFIX};
pub use search::{read, summary, Summary, ALIAS, GREP_CONTEXT};
pub use write::{write, HistoryOptions, WriteOutcome, INDEX_ENTRY};

/// The line the restore ends with when the model can call `scratchpad_read`: the newest entry, its
/// messages and size, and how to search all of them (at most 40 tokens). `None` without history.
pub fn restore_line(s: &Summary) -> Option<String> {
    let newest = s.newest.as_ref()?;
    let span = match (s.newest_first, s.newest_last) {
        (Some(a), Some(b)) if a != b => format!("Messages #{a}-#{b}"),
        (Some(a), _) => format!("Message #{a}"),
        _ => "Messages".to_string(),
    };
    Some(format!(
        "[{span} compacted: {} ({}). Grep all: scratchpad_read {{\"name\":\"{ALIAS}\",\"pattern\":\"<regex>\"}}]",
        newest.name,
        size(newest.size_bytes)
    ))
}

/// `812 B`, `212 KB`, `3.4 MB`.
pub fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{} KB", (b + 500) / 1000),
        b => format!("{:.1} MB", b as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests;
