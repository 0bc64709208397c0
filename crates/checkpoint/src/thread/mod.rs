//! Thread extraction (seed 001, section 11.2) and the other facts a checkpoint takes from the pi
//! agent messages: topic, summary, key exchanges, status, the last tool call, tools and files used.
//! No LLM and no keywords: only structure (roles, lengths, order), so it works in any language.

use crate::briefing::Note;
use crate::model::{Exchange, Role, Status, Task, ToolCall};
use context_state::dialogue::{read_dialogue, Line, Said};
use context_state::substance::{code_spans, is_path_like, looks_around, shell_commands};
use context_state::{classify_tool, extract_paths, gist, squash, Access};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

mod commands;
mod constraints;
mod findings;
mod goal;
mod identifiers;
mod next_steps;
mod progress;
mod recent_values;
mod roles;
mod tasks;
#[cfg(test)]
mod tests;
mod walk;

use commands::*;
use constraints::*;
pub use constraints::{is_constraint, MAX_CONSTRAINTS};
use findings::*;
use goal::*;
pub use goal::{current, revises, substantive, SITTING_GAP_MS};
pub(crate) use identifiers::arg_texts;
use identifiers::*;
pub use identifiers::{code_names, definitions, dependencies, exact_values, worth_naming};
use next_steps::*;
pub use next_steps::{last_list, numbered_headings};
use progress::*;
pub use progress::{is_commit, MAX_COMMITS};
pub use recent_values::looks_secret;
use recent_values::*;
pub use roles::ROLE_CHARS;
use tasks::*;
pub use tasks::{is_done_task, MAX_DONE};
pub(crate) use walk::blocks;
use walk::Walk;

/// Characters of a key-exchange gist (a sentence of the briefing).
pub const GIST_CHARS: usize = crate::briefing::SENTENCE_CHARS;
/// Characters of the topic and of each half of the summary.
pub const TOPIC_CHARS: usize = 100;
/// Most key exchanges kept.
pub const MAX_EXCHANGES: usize = 40;
/// Characters of a tool call's `params_summary`.
pub const PARAMS_SUMMARY_CHARS: usize = 120;
/// Characters of the task (the session's first request with content of its own).
pub const TASK_CHARS: usize = 200;
/// Characters of the next action taken from the agent's plan.
pub const NEXT_ACTION_CHARS: usize = 400;
/// Characters of one item of that plan.
pub const PLAN_ITEM_CHARS: usize = 110;
/// Most identifiers kept (the agent's most used code spans).
pub const MAX_IDENTIFIERS: usize = 400;
/// Longest code span taken as an identifier.
pub const IDENTIFIER_CHARS: usize = 60;
/// Most commands kept.
pub const MAX_COMMANDS: usize = 20;
/// Longest command kept.
pub const COMMAND_CHARS: usize = 100;

/// What the messages say.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extracted {
    /// Gist (200 chars) of the first user message with content of its own (the session's task).
    pub task: Option<String>,
    /// Gist (100 chars) of the last user message with content of its own.
    pub topic: Option<String>,
    /// First (100) + " ... " + last (100) user message with content of their own.
    pub summary: Option<String>,
    /// The agent's latest plan: its last numbered list or unchecked todo list, the open tasks of
    /// its task list, or the plan it set in the scratchpad, whichever came last.
    pub next_action: Option<String>,
    /// The tasks open on the agent's task list after the last change these messages show of it
    /// ([`task_changes`]); `None` when they change none.
    pub open_tasks: Option<Vec<Task>>,
    /// Names the agent's edits and writes define, its code spans and the file names it wrote
    /// about, most used (recent uses weigh more, definitions most) first.
    pub identifiers: Vec<String>,
    /// The exact values of the latest messages ([`recent_values`](recent_values::recent_values)).
    pub recent_values: Vec<String>,
    /// The exact values among the identifiers and the recent values that the dialogue names,
    /// as `role: value` ([`roles::named_values`]).
    pub named_values: Vec<String>,
    /// Shell commands the agent ran (the working part: no `cd`, no output plumbing, no message),
    /// most used first; look-arounds only when run more than once.
    pub commands: Vec<String>,
    /// Every file touched, most active first: changed files above read ones, then by how often
    /// and how recently.
    pub key_exchanges: Vec<Exchange>,
    /// From the last message: tools running or a user message pending = in progress, a final
    /// agent reply = waiting for the user.
    pub status: Option<Status>,
    /// The last tool call the agent made.
    pub last_tool_call: Option<ToolCall>,
    /// Tool names called, deduplicated, least recently used first.
    pub tools_used: Vec<String>,
    pub active_files: Vec<String>,
    pub files_read: Vec<String>,
    pub files_modified: Vec<String>,
    /// The rules and preferences the user stated, in their words (see [`constraints`]).
    pub constraints: Vec<String>,
    /// Failures the agent got past and what fixed it, oldest first (see [`findings`]).
    pub fixes: Vec<String>,
    /// The task is the first request after a pause of [`SITTING_GAP_MS`] (a new sitting): an
    /// earlier checkpoint's task is not carried over it.
    pub task_after_pause: bool,
    /// A request of these messages changed the plan ([`goal::revises`]): the task is that request
    /// and no earlier checkpoint's task is carried over it.
    pub task_revised: bool,
    /// The messages start a new sitting: their first request came after a pause of
    /// [`SITTING_GAP_MS`] (after the earlier checkpoint, or within them: [`Self::task_after_pause`]),
    /// and what the earlier checkpoint had open is not carried to them.
    pub new_sitting: bool,
    /// The task the change replaced, when these messages hold it (else the carried one was).
    pub replaced_task: Option<String>,
    /// When the request that changed the plan was sent (ms since the epoch), if it says: the
    /// decisions made before it were made for the plan it replaced.
    pub task_revised_at: Option<u64>,
    /// When the message that set the next action was sent (ms since the epoch), if it says.
    pub next_action_at: Option<u64>,
    /// When the user's first request in the messages was sent (ms since the epoch), if it says.
    pub first_request_at: Option<u64>,
    /// How the failure entries of the calls made since the user's latest request start; `None`
    /// when the messages hold no request (see [`findings`]): the failures still open are theirs.
    pub turn_calls: Option<Vec<String>>,
    /// The calls with a result, by how their failure entries start, and whether the latest
    /// succeeded (see [`findings`]): what a failure an earlier checkpoint carried became.
    pub latest_results: Vec<(String, bool)>,
}

/// Scores of recurring items: each use weighs 1 plus how late in the messages it came (0..1),
/// so an item used often and lately ranks first; with the turns of the messages
/// ([`Tally::by_turn`]), an item used in several turns outranks one used as often in one.
#[derive(Default)]
struct Tally {
    items: HashMap<String, Use>,
    /// The turn of each message ([`Walk::turns`]); empty when turns do not count.
    turn_of: Vec<usize>,
}

/// One item's score, number of uses, latest use (message index), and the number of turns it is
/// used in with the latest of them (1-based: 0 is none).
#[derive(Default, Clone, Copy)]
struct Use {
    score: f64,
    uses: usize,
    last: usize,
    turns: usize,
    last_turn: usize,
}

/// How much an item used in several turns outweighs one used as much in one: its score times the
/// number of turns it is used in, to this power. The "used in several turns": a chat's
/// routine (the forum API's fields a cron run's commands read each run) is what its next run
/// needs, and a name said once in a long turn is rarely what a summary keeps. Measured
/// (eval:restore, bundled; validation): at 0.25, names needed next 71.0 -> 72.7 % at 800
/// (OpenClaw chats 46.7 -> 52.2 %), with the summary 78.9 -> 80.6 %, summary recall 68.5 ->
/// 68.6 % (71.3 -> 71.6 %), identifier precision 35.1 -> 35.6 % (43.5 -> 43.8 %), for summary
/// recall at 2,000 78.7 -> 78.3 %; at 0.5 the names needed next the same, summary recall at 800
/// 68.2 % (pi's sessions, of many short turns, lose the names of one long one).
const SPREAD_POWER: f64 = 0.25;

impl Tally {
    fn add(&mut self, item: &str, weight: f64, at: usize, n: usize) {
        let w = weight * (1.0 + at as f64 / n.max(1) as f64);
        // (an item seen before is found without allocating its key)
        let u = match self.items.get_mut(item) {
            Some(u) => u,
            None => self.items.entry(item.to_string()).or_default(),
        };
        u.score += w;
        u.uses += 1;
        u.last = u.last.max(at);
        if let Some(&turn) = self.turn_of.get(at) {
            if u.last_turn != turn + 1 {
                u.turns += 1;
                u.last_turn = turn + 1;
            }
        }
    }
    /// A tally that counts the turns of `walk`'s messages each item is used in.
    fn by_turn(walk: &Walk) -> Self {
        Tally {
            items: HashMap::new(),
            turn_of: walk.turns(),
        }
    }
    /// The score the ranking reads: [`SPREAD_POWER`] over the turns, when they count.
    fn ranking_score(u: &Use) -> f64 {
        u.score * (u.turns.max(1) as f64).powf(SPREAD_POWER)
    }
    /// Counts `from`'s uses for `into` (one item written two ways), `from` gone.
    fn merge(&mut self, from: &str, into: String) {
        if let Some(u) = self.items.remove(from) {
            let f = self.items.entry(into).or_default();
            f.score += u.score;
            f.uses += u.uses;
            f.last = f.last.max(u.last);
            // (the turns of both are not known apart: the more of the two)
            if u.turns > f.turns {
                (f.turns, f.last_turn) = (u.turns, u.last_turn);
            }
        }
    }
    /// Items by score (ties: the later first), at most `max`.
    fn ranked(&self, max: usize) -> Vec<String> {
        let mut v: Vec<(&String, &Use)> = self.items.iter().collect();
        v.sort_by(|a, b| {
            Tally::ranking_score(b.1)
                .partial_cmp(&Tally::ranking_score(a.1))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(b.1.last.cmp(&a.1.last))
                .then(a.0.cmp(b.0))
        });
        v.into_iter().take(max).map(|(k, _)| k.clone()).collect()
    }
}

/// The first `max` bytes of `s`, cut back to a character boundary.
pub(crate) fn head_bytes(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Moves `item` to the end of `list` (deduplicated, least recently used first).
pub(crate) fn touch(list: &mut Vec<String>, item: &str) {
    if let Some(i) = list.iter().position(|x| x == item) {
        list.remove(i);
    }
    list.push(item.to_string());
}

/// Items in the order of their last use (least recently used first), each once: the list
/// [`touch`] keeps, without a scan of it at every use (thousands of files would take quadratic
/// time).
#[derive(Default)]
struct Recency {
    last: HashMap<String, usize>,
    uses: usize,
}

impl Recency {
    fn touch(&mut self, item: &str) {
        self.uses += 1;
        match self.last.get_mut(item) {
            Some(at) => *at = self.uses,
            None => {
                self.last.insert(item.to_string(), self.uses);
            }
        }
    }
    fn into_vec(self) -> Vec<String> {
        let mut v: Vec<(String, usize)> = self.last.into_iter().collect();
        v.sort_by_key(|&(_, at)| at);
        v.into_iter().map(|(item, _)| item).collect()
    }
}

/// Extracts everything from pi agent messages (`role` `user` / `assistant` / `toolResult`; other
/// roles and malformed entries are skipped). One walk ([`Walk`]) removes the package's own
/// injections and the host's wrappers, tells requests from answers by position and reads each
/// message's calls and results; each section is then its own pass over it.
pub fn extract(messages: &[Value]) -> Extracted {
    extract_with(messages, &Carried::default())
}

/// What an earlier checkpoint of the session left open, which the messages after it go on from.
#[derive(Debug, Clone, Copy, Default)]
pub struct Carried<'a> {
    /// The tasks open on the agent's task list: a call in the messages may update one by its id.
    pub tasks: &'a [Task],
    /// The plan it stated (`working.next_action`): the plan until the messages set another (or a
    /// report closes it, when it came from the agent's text).
    pub plan: Option<&'a str>,
    /// When it was written (ms since the epoch): a request a pause of [`SITTING_GAP_MS`] later
    /// starts a new sitting, to which its plan is not carried.
    pub since: Option<u64>,
}

/// [`extract`], going on from what an earlier checkpoint left open (`carried`).
pub fn extract_with(messages: &[Value], carried: &Carried<'_>) -> Extracted {
    // no pass sees a credential (issue 27)
    let redacted = crate::redact::redact_messages(messages);
    let walk = Walk::new(&redacted);
    let lines = &walk.lines;
    let tasks = task_changes(&walk, carried.tasks);
    let mut out = Extracted {
        status: status(&walk),
        open_tasks: tasks.last().map(|c| c.open.clone()),
        identifiers: identifiers(&walk),
        recent_values: recent_values(&walk),
        commands: commands(&walk),
        constraints: constraints(lines),
        fixes: fixes(&walk),
        turn_calls: turn_calls(&walk),
        latest_results: latest_results(&walk),
        ..Extracted::default()
    };
    out.named_values = roles::named_values(
        &walk,
        &[out.identifiers.clone(), out.recent_values.clone()].concat(),
    );
    tool_use(&walk, &mut out);
    // what the agent did, in its own records: the commits it made, the tasks it marked done
    let done = [commits(&walk), done_tasks(&tasks)].concat();
    // what the agent wrote with a tool: its progress card's notes, what it wrote of its work
    let written = writings(&walk);
    let mut notes = status_notes(&walk);
    notes.extend(written.iter().map(|(at, text)| Note {
        at: *at,
        text,
        report: false,
    }));
    notes.sort_by_key(|n| n.at);
    thread(&turns(&walk), &done, &briefing(lines, &notes), &mut out);
    if out.task.is_none() {
        out.topic = heartbeat_topic(&walk);
    }
    out.new_sitting = out.task_after_pause
        || matches!((carried.since, out.first_request_at),
            (Some(then), Some(first)) if first >= then.saturating_add(SITTING_GAP_MS));
    // the plan carried, unless the user came back for something else
    let plan = carried
        .plan
        .filter(|_| !out.new_sitting)
        .map(|text| CarriedPlan {
            text,
            set_at: carried.since,
            from_text: open_plan(carried.tasks).as_deref() != Some(text),
        });
    (out.next_action, out.next_action_at) = next_action(&walk, &tasks, plan);
    out
}

/// The agent's [`TOP_NAMES`] most used names, then the exact values of the latest messages
/// (OpenClaw's summary audit requires them; in replace mode's budget they always fit), then the
/// rest of the ranked identifiers, each once, at most [`MAX_IDENTIFIERS`].
pub fn latest_first(recent: Vec<String>, ranked: Vec<String>) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::new();
    let top = ranked.len().min(TOP_NAMES);
    ranked[..top]
        .iter()
        .cloned()
        .chain(recent)
        .chain(ranked[top..].iter().cloned())
        .filter(|v| seen.insert(v.clone()))
        .take(MAX_IDENTIFIERS)
        .collect()
}

/// Most used names ranked above the latest messages' exact values.
pub const TOP_NAMES: usize = 10;
