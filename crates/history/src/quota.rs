//! History in the session's quota. History entries are never evicted (the store protects them,
//! [`context_offload::is_history_name`]); when a new one needs room, the oldest ones are cut to
//! their head and tail ([`CUT_KEEP_BYTES`]) with a note saying what was left out, and when that is
//! not enough the new one is cut the same way. Never a live tool result or a named entry.

use crate::search::history_entries;
use crate::write::Index;
use context_fsio::{Durability, Result};
use context_offload::read::read_all;
use context_offload::store::Session;

/// What a cut entry keeps: about this many bytes, half from its head, half from its tail.
pub const CUT_KEEP_BYTES: u64 = 32 * 1024;
/// The least room a new entry is cut into; with less, nothing is written (`TooLarge`).
pub const MIN_CUT_BYTES: u64 = 4 * 1024;

/// Bytes left under `quota` by the live entries (expired ones go at the next write).
pub fn room(s: &Session, quota: u64, now: u64) -> u64 {
    let used: u64 = s
        .entries()
        .iter()
        .filter(|e| !e.is_expired(now))
        .map(|e| e.size_bytes)
        .sum();
    quota.saturating_sub(used)
}

/// `text` cut to about `keep` bytes: its first line (the entry's header) and the lines of its
/// head and tail, with a line in their place saying what was left out and why. `None` when it
/// already fits.
pub fn cut_text(text: &str, name: &str, keep: u64, quota: u64) -> Option<String> {
    if text.len() as u64 <= keep {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let half = (keep / 2) as usize;
    let mut head = 1; // the header line stays
    let mut used = lines.first().map_or(0, |l| l.len() + 1);
    while head < lines.len() && used + lines[head].len() < half {
        used += lines[head].len() + 1;
        head += 1;
    }
    let mut tail = lines.len();
    let mut used = 0;
    while tail > head && used + lines[tail - 1].len() < half {
        used += lines[tail - 1].len() + 1;
        tail -= 1;
    }
    if tail <= head {
        return None;
    }
    let left_out: usize = lines[head..tail]
        .iter()
        .map(|l| l.chars().count() + 1)
        .sum();
    let mut out = lines[..head].join("\n");
    out.push_str(&format!(
        "\n[... {name} was cut to its head and tail to keep the session's store under its quota of {quota} bytes: \
         lines {}-{} ({left_out} characters) are left out ...]\n",
        head + 1,
        tail
    ));
    for l in &lines[tail..] {
        out.push_str(l);
        out.push('\n');
    }
    Some(out)
}

/// A new entry's text cut to fit `room` bytes; `None` when less than [`MIN_CUT_BYTES`] is left.
pub fn cut_to_fit(text: &str, name: &str, room: u64, quota: u64) -> Option<String> {
    if room < MIN_CUT_BYTES {
        return None;
    }
    // (the note line takes some of the room)
    cut_text(text, name, room.saturating_sub(512), quota).filter(|t| t.len() as u64 <= room)
}

/// Cuts the oldest history entries not cut yet, one at a time, until `need` bytes fit under
/// `quota` or none is left to cut. Returns the names cut (also added to `index.cut`).
pub fn make_room(
    s: &mut Session,
    index: &mut Index,
    need: u64,
    quota: u64,
    durability: Durability,
    now: u64,
) -> Result<Vec<String>> {
    let mut cut = Vec::new();
    loop {
        if room(s, quota, now) >= need {
            return Ok(cut);
        }
        let mut candidates = history_entries(s.entries());
        candidates.sort_by_key(|(n, _)| *n);
        let Some((_, e)) = candidates
            .into_iter()
            .find(|(_, e)| !index.cut.contains(&e.name) && e.size_bytes > CUT_KEEP_BYTES)
        else {
            return Ok(cut);
        };
        index.cut.push(e.name.clone());
        // (a damaged entry is left as it is: its reads say `Corrupt`)
        let Ok(bytes) = read_all(s, &e) else { continue };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if let Some(short) = cut_text(&text, &e.name, CUT_KEEP_BYTES, quota) {
            let i = s
                .entries()
                .iter()
                .position(|x| x.id == e.id)
                .expect("listed just above");
            s.rewrite(i, &short, durability, now)?;
            cut.push(e.name.clone());
        }
    }
}
