//! The restore text (seed 001, section 8.2): a checkpoint rendered for the agent after a
//! compaction or when a new session resumes, fenced as data, within an exact token budget.
//!
//! Its sections are those of OpenClaw's compaction summary contract (2026.9.6's
//! `compaction-safeguard-quality`: `## Decisions`, `## Open TODOs`, `## Constraints/Rules`,
//! `## Pending user asks`, `## Exact identifiers`, in that order, each always present), after a
//! `## Goal` and a `## Progress` of our own: in replace mode the restore is the summary, and a
//! model reads it the way it reads OpenClaw's own.

mod files;
mod order;
mod said_once;
mod sections;
#[cfg(test)]
mod tests;

use crate::in_context::InContext;
use crate::input::FAILURE_ITEM_PREFIX;
use crate::model::{Checkpoint, Decision, Role, Status};
use crate::thread::MAX_IDENTIFIERS;
use context_fsio::{parse_rfc3339, rfc3339, Error, Result};
use context_state::substance::fold_key;
use context_state::{ASKED_QUOTE, REPLY_QUOTE, USER_QUOTE, USER_REPLY};
use context_tokens::{count_tokens, ChunkCounter, Encoding};
use std::borrow::Cow;
use std::collections::HashMap;

use files::*;
use order::*;
use said_once::*;
use sections::*;

/// The checkpoint as shown: the latest messages' exact values (`resources.recent_values`) placed
/// among its identifiers (in a summary (replace mode) right after the
/// [`TOP_NAMES`](crate::thread::TOP_NAMES) most used names, since OpenClaw's quality audit
/// requires them there; in a restore appended to OpenClaw's own summary, which holds them
/// already, after every ranked name, the first the budget drops), and without the identifiers
/// and commands the model's context mentions already (`in_context`). Borrowed when nothing
/// changes.
fn shown<'c>(
    cp: &'c Checkpoint,
    as_summary: bool,
    in_context: Option<&str>,
) -> std::borrow::Cow<'c, Checkpoint> {
    if cp.resources.recent_values.is_empty() && in_context.is_none() {
        return std::borrow::Cow::Borrowed(cp);
    }
    let mut c = cp.clone();
    let recent = std::mem::take(&mut c.resources.recent_values);
    let ranked = std::mem::take(&mut c.resources.identifiers);
    c.resources.identifiers = if recent.is_empty() {
        ranked
    } else if as_summary {
        crate::thread::latest_first(recent, ranked)
    } else {
        crate::thread::latest_first(Vec::new(), ranked.into_iter().chain(recent).collect())
    };
    if let Some(text) = in_context {
        let known = InContext::new(text);
        c.resources.identifiers = known.unsaid(&c.resources.identifiers);
        c.resources.commands = known.unsaid(&c.resources.commands);
    }
    std::borrow::Cow::Owned(c)
}

/// Default token budget of the restore text.
pub const DEFAULT_MAX_TOKENS: usize = 800;
/// More compactions than this in one session is a death spiral (seed 001, 5.5 and 12).
pub const DEATH_SPIRAL_COMPACTIONS: u64 = 3;
/// The fence around the data.
pub const FENCE_OPEN: &str = "<checkpoint-data>";
/// The end of the fence; content can never produce it.
pub const FENCE_CLOSE: &str = "</checkpoint-data>";
/// Characters kept of one rendered field before the budget is applied.
const FIELD_CHARS: usize = 300;
/// Field lengths tried, in order, when only working state and open items are left and the
/// budget is still exceeded.
const SHRINK_CHARS: [usize; 4] = [160, 80, 40, 20];

/// Where the restore text is injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// After a compaction in the same session (the default).
    #[default]
    PostCompaction,
    /// At the start of a new session for the same session key.
    Resume,
}

impl Mode {
    /// Parses the JS value.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "post-compaction" => Some(Mode::PostCompaction),
            "resume" => Some(Mode::Resume),
            _ => None,
        }
    }
}

/// Options of [`render`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderOptions<'a> {
    pub mode: Mode,
    /// The text never has more tokens than this.
    pub max_tokens: usize,
    /// The encoding the budget is counted in.
    pub encoding: Encoding,
    /// The text is the compaction summary (replace mode): every section of OpenClaw's summary
    /// contract is written, an empty one saying so. Otherwise empty sections are left out (the
    /// restore follows OpenClaw's own summary, which has them).
    pub as_summary: bool,
    /// Text the model's context already holds next to the restore (after a compaction in
    /// default mode: OpenClaw's summary and the messages it kept). Identifiers and commands it
    /// mentions are not said again; the budget goes to those it lacks. `None`: all are said.
    pub in_context: Option<&'a str>,
    /// The named entries the model saved in the session's observation store (seed 004's
    /// `scratchpad_write`), oldest first: the restore names the newest, so that after a
    /// compaction the model knows what it saved and reads it back by name.
    pub saved_entries: &'a [SavedEntry],
}

/// A named entry of the session's observation store (seed 004), as the restore names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedEntry {
    /// The name the model gave it.
    pub name: String,
    /// Its characters.
    pub chars: u64,
    /// Its lines.
    pub lines: u64,
}

impl Default for RenderOptions<'_> {
    fn default() -> Self {
        RenderOptions {
            mode: Mode::PostCompaction,
            max_tokens: DEFAULT_MAX_TOKENS,
            encoding: Encoding::default(),
            as_summary: false,
            in_context: None,
            saved_entries: &[],
        }
    }
}

/// One line of content: whitespace runs collapsed, control characters removed, anything that
/// could open or close the fence defused (`<` before `checkpoint`, in any case and spacing,
/// becomes `‹`), cut to `max` characters.
pub fn clean(s: &str, max: usize) -> String {
    let mut flat = String::with_capacity(s.len().min(max * 4));
    for word in s.split(|c: char| c.is_whitespace() || c.is_control()) {
        if word.is_empty() {
            continue;
        }
        if !flat.is_empty() {
            flat.push(' ');
        }
        flat.push_str(word);
    }
    let flat = defuse(&flat);
    match flat.char_indices().nth(max) {
        Some((i, _)) => {
            let mut cut: String = flat[..i].chars().take(max.saturating_sub(1)).collect();
            cut.push('…');
            cut
        }
        None => flat,
    }
}

/// Replaces every `<` that starts a tag named `checkpoint...` (`</checkpoint-data>`,
/// `< / CHECKPOINT-DATA >`, `<checkpoint-data>`, and their look-alikes: invisible characters,
/// full-width forms, escapes and entities; see [`crate::fence`]) with `‹`, so content cannot fake
/// the fence.
pub fn defuse(s: &str) -> String {
    crate::fence::defuse(s)
}

/// The restore text of `cp`, at most `max_tokens` tokens (counted exactly in `encoding`).
/// When the full text is too long, the least important content goes first: learnings, files
/// read, tools, files modified, the oldest key exchanges, the thread summary, the oldest
/// decisions. The working state and open items stay; only if they alone exceed the budget are
/// their texts shortened, and as a last resort the newest open items replaced by a count.
/// `InvalidArg` when `max_tokens` cannot hold even the frame.
pub fn render(cp: &Checkpoint, opts: RenderOptions<'_>) -> Result<String> {
    let shown = shown(cp, opts.as_summary, opts.in_context);
    let cp: &Checkpoint = &shown;
    let pre = Prepared::new(cp);
    let order = drop_order(cp, &pre.files, opts.as_summary);
    let d = order.len();
    let n_items = cp.open_items.len();
    let total = d + SHRINK_CHARS.len() + n_items;
    let at = |step: usize| -> String {
        let dropped = step.min(d);
        let shrink = step.saturating_sub(d).min(SHRINK_CHARS.len());
        let field = if shrink == 0 {
            FIELD_CHARS
        } else {
            SHRINK_CHARS[shrink - 1]
        };
        let hidden = step.saturating_sub(d + SHRINK_CHARS.len());
        compose(cp, &opts, &order, &pre, dropped, field, hidden)
    };
    // The search below counts drafts that share most lines: count each distinct line once. A text
    // of at most `max_tokens` bytes fits without counting (a token is at least one byte).
    let counter = std::cell::RefCell::new(ChunkCounter::new(opts.encoding));
    let fits = |text: &str| {
        text.len() <= opts.max_tokens || counter.borrow_mut().count(text) <= opts.max_tokens
    };
    let full = at(0);
    if fits(&full) {
        return Ok(full);
    }
    let last = at(total);
    if !fits(&last) && !opts.saved_entries.is_empty() {
        // a budget too small for the saved entries' line too: the restore goes without it
        return render(
            cp,
            RenderOptions {
                saved_entries: &[],
                ..opts
            },
        );
    }
    if !fits(&last) {
        return Err(Error::invalid_arg(format!(
            "maxTokens {} is too small for a restore text: even the frame with the working state \
             takes {} tokens",
            opts.max_tokens,
            count_tokens(&last, opts.encoding)
        )));
    }
    // Smallest step that fits (token counts fall, near enough monotonically, as steps grow; the
    // result is checked exactly whatever happens).
    let (mut lo, mut hi, mut best) = (1, total, last);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let text = at(mid);
        if fits(&text) {
            best = text;
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    if lo < total {
        let text = at(lo);
        if fits(&text) {
            best = text;
        }
    }
    Ok(best)
}
