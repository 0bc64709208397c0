//! What the host passes to `writeCheckpoint`, and how a checkpoint is assembled from it, the
//! messages (11.2), the compaction's file ops and the incremental state (section 7).

use crate::model::*;
use crate::thread::{extract_with, touch, Carried, GIST_CHARS};
use context_fsio::{Error, Result};
use context_state::substance::fold_key;
use context_state::wrappers::strip_injections;
use context_state::{gist, StateBundle};
use serde_json::Value;
use std::path::PathBuf;

/// Most decisions kept (the newest).
pub const MAX_DECISIONS: usize = 50;
/// Most files per list and most tools kept (the most recently used).
pub const MAX_FILES: usize = 100;
/// Most tools kept.
pub const MAX_TOOLS: usize = 100;
/// Most open items and learnings kept (the newest).
pub const MAX_ITEMS: usize = 50;
/// Most tool failures carried into `open_items` when the input has none of its own.
pub const MAX_FAILURE_ITEMS: usize = 5;

/// How an open item carried from a tool failure begins.
pub const FAILURE_ITEM_PREFIX: &str = "Unresolved tool failure: ";

/// `working` as the host gives it; every field optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkingInput {
    pub topic: Option<String>,
    pub task: Option<String>,
    pub status: Option<Status>,
    pub interrupted: Option<bool>,
    pub last_tool_call: Option<ToolCall>,
    pub next_action: Option<String>,
}

/// A decision as the host gives it: the id is assigned (`d1`, `d2`, ...) when missing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DecisionInput {
    pub id: Option<String>,
    pub what: String,
    pub when: Option<String>,
}

/// `resources` as the host gives it; a list left out comes from the state files and messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourcesInput {
    pub files_read: Option<Vec<String>>,
    pub files_modified: Option<Vec<String>>,
    pub tools_used: Option<Vec<String>>,
}

/// `thread` as the host gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadInput {
    pub summary: Option<String>,
    pub key_exchanges: Option<Vec<Exchange>>,
}

/// `CompactionPreparation.fileOps`: authoritative file lists of a compaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOps {
    pub read: Vec<String>,
    pub written: Vec<String>,
    pub edited: Vec<String>,
}

/// Everything `writeCheckpoint` receives (the contract's `CheckpointInput`).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointInput {
    pub state_dir: PathBuf,
    pub session_key: String,
    pub trigger: Trigger,
    pub input_tokens: u64,
    pub context_window: u64,
    pub utilization: Option<f64>,
    pub compaction_count: Option<u64>,
    pub session_file: Option<String>,
    pub channel: Option<String>,
    pub agent_id: Option<String>,
    pub working: Option<WorkingInput>,
    pub decisions: Option<Vec<DecisionInput>>,
    pub resources: Option<ResourcesInput>,
    pub thread: Option<ThreadInput>,
    pub open_items: Option<Vec<String>>,
    pub learnings: Option<Vec<String>>,
    pub messages: Option<Vec<Value>>,
    pub is_split_turn: Option<bool>,
    pub file_ops: Option<FileOps>,
    /// RFC 3339 time the checkpoint stands for (a replay passes the transcript's time); `None`
    /// is now.
    pub created_at: Option<String>,
}

impl CheckpointInput {
    /// A minimal input: everything else left out.
    pub fn new(
        state_dir: impl Into<PathBuf>,
        session_key: impl Into<String>,
        trigger: Trigger,
        input_tokens: u64,
        context_window: u64,
    ) -> CheckpointInput {
        CheckpointInput {
            state_dir: state_dir.into(),
            session_key: session_key.into(),
            trigger,
            input_tokens,
            context_window,
            utilization: None,
            compaction_count: None,
            session_file: None,
            channel: None,
            agent_id: None,
            working: None,
            decisions: None,
            resources: None,
            thread: None,
            open_items: None,
            learnings: None,
            messages: None,
            is_split_turn: None,
            file_ops: None,
            created_at: None,
        }
    }

    /// Rejects values no checkpoint can hold (`InvalidArg`).
    pub fn validate(&self) -> Result<()> {
        if self.context_window == 0 {
            return Err(Error::invalid_arg(
                "input.tokenUsage.contextWindow must be > 0, e.g. 200000",
            ));
        }
        if let Some(u) = self.utilization {
            if !u.is_finite() || u < 0.0 {
                return Err(Error::invalid_arg(format!(
                    "input.tokenUsage.utilization must be a finite number >= 0 (a 0..1 ratio), got {u}"
                )));
            }
        }
        if let Some(t) = &self.created_at {
            if context_fsio::parse_rfc3339(t).is_none() {
                return Err(Error::invalid_arg(format!(
                    "input.createdAt must be an RFC 3339 time such as 2026-02-24T14:15:00Z, got {t:?}"
                )));
            }
        }
        context_fsio::session_dir_name(&self.session_key)?;
        Ok(())
    }
}

/// Keeps the last `max` items.
fn keep_last<T>(mut v: Vec<T>, max: usize) -> Vec<T> {
    if v.len() > max {
        v.drain(..v.len() - max);
    }
    v
}

fn union(mut base: Vec<String>, more: &[String]) -> Vec<String> {
    for m in more {
        touch(&mut base, m);
    }
    base
}

/// [`union`] of tool names, a name in another case being the same tool (OpenClaw reports Claude
/// Code's `Read` to `after_tool_call` as `read`); the spelling of `more` (the messages') is kept.
fn union_tools(mut base: Vec<String>, more: &[String]) -> Vec<String> {
    for m in more {
        base.retain(|b| !b.eq_ignore_ascii_case(m));
        base.push(m.clone());
    }
    base
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn assign_ids(decisions: Vec<DecisionInput>) -> Vec<Decision> {
    let taken: Vec<String> = decisions.iter().filter_map(|d| d.id.clone()).collect();
    let mut next = 1u64;
    decisions
        .into_iter()
        .map(|d| {
            let id = d.id.unwrap_or_else(|| loop {
                let candidate = format!("d{next}");
                next += 1;
                if !taken.contains(&candidate) {
                    break candidate;
                }
            });
            Decision {
                id,
                what: d.what,
                when: d.when,
            }
        })
        .collect()
}

/// The state's decisions (recorded as the turns came, if the host passed them) with those of the
/// messages this checkpoint sees ([`context_state::decisions_in`]: a compaction removes them, so
/// the restore is where the decisions made in them stay), each once, in the order they were made.
fn with_message_decisions(
    recorded: Vec<context_state::Decision>,
    messages: &[Value],
) -> Vec<Decision> {
    let mut all: Vec<DecisionInput> = recorded
        .into_iter()
        .map(|d| DecisionInput {
            id: Some(d.id),
            what: d.what,
            when: d.when,
        })
        .collect();
    let mut seen: std::collections::HashSet<String> = all.iter().map(|d| d.what.clone()).collect();
    for d in context_state::decisions_in(messages) {
        if seen.insert(d.what.clone()) {
            all.push(DecisionInput {
                id: None,
                what: d.what,
                when: d.when,
            });
        }
    }
    // RFC 3339 times of one writer sort as text (stable: same times keep their order); with a
    // decision without a time, the order they were found in
    if all.iter().all(|d| d.when.is_some()) {
        all.sort_by(|a, b| a.when.cmp(&b.when));
    }
    assign_ids(all)
}

/// How a decision or a plan made before the user changed the plan starts: it was made for the
/// plan the task's `Changed from` names, and may not hold for the new one.
pub const BEFORE_THE_CHANGE: &str = "(before the plan changed) ";

/// `text` marked [`BEFORE_THE_CHANGE`] when it was made (`made_at`) before the request that
/// changed the plan (`changed_at`, ms since the epoch); as it is when either time is unknown.
fn before_the_change(text: String, made_at: Option<u64>, changed_at: Option<u64>) -> String {
    match (made_at, changed_at) {
        (Some(made), Some(changed)) if made < changed && !text.starts_with(BEFORE_THE_CHANGE) => {
            format!("{BEFORE_THE_CHANGE}{text}")
        }
        _ => text,
    }
}

/// Decisions whose `what` differ only in case, markup or whitespace count once (the first).
fn fold_decisions(decisions: Vec<Decision>) -> Vec<Decision> {
    let mut seen = std::collections::HashSet::new();
    decisions
        .into_iter()
        .filter(|d| {
            let k = fold_key(&d.what);
            seen.insert(if k.is_empty() {
                format!("\0{}", d.what)
            } else {
                k
            })
        })
        .collect()
}

/// What the checkpoint being written inherits from the one before it.
#[derive(Debug, Clone, Default)]
pub struct Previous {
    pub id: Option<String>,
    pub compaction_count: u64,
    /// The session's task as the previous checkpoint stated it: carried over, so every later
    /// checkpoint states the task even after compactions removed the message that set it.
    pub task: Option<String>,
    /// The plan the previous checkpoint's task replaced, carried with it.
    pub replaced_task: Option<String>,
    /// When the previous checkpoint was written (RFC 3339): a request this conversation's
    /// messages open with that came a pause of [`crate::thread::SITTING_GAP_MS`] later starts a
    /// new sitting, whose task is its own.
    pub created_at: Option<String>,
    /// The constraints the previous checkpoint carried: a rule the user set days ago still holds.
    pub constraints: Vec<String>,
    /// The learnings the previous checkpoint carried (a failure got past stays a finding after
    /// the compaction that removed it).
    pub learnings: Vec<String>,
    /// The identifiers of the session's last compaction checkpoint: the names of the work before
    /// the messages this checkpoint sees (a compaction removed them), see [`with_carried`].
    pub identifiers: Vec<String>,
    /// The named values of the same checkpoint, carried with its identifiers.
    pub named_values: Vec<String>,
    /// The previous checkpoint's open items: the tool failures among them stay open until the
    /// messages show the same call succeed (see [`carried_failures`]).
    pub open_items: Vec<String>,
    /// The previous checkpoint's key exchanges: the commits and the tasks done among them are
    /// what was done before a compaction removed the messages that said so, see
    /// [`with_progress`].
    pub key_exchanges: Vec<Exchange>,
    /// The tasks the previous checkpoint had open on the agent's task list: still open until a
    /// call of the task tool changes them.
    pub open_tasks: Vec<Task>,
    /// The plan the previous checkpoint stated: still the plan until the messages set another.
    pub next_action: Option<String>,
}

/// The tool failures still open: those the previous checkpoint carried (the state files were
/// emptied when it was written, so a failure recorded before it is only there; seed 001, 7.3:
/// the compaction's checkpoint updates the one at 80 %), then the state's (newer) ones, which
/// were settled as they were recorded. A carried failure is settled when the messages show the
/// same call succeed last, or the state records it again, or a later call succeed that widens
/// it (`git push` failing, then `git push -u origin main`: `variant`) or runs the same program
/// and command (`git add a` after `git add a b` failed: `same_command`; the agent has run it
/// since), or writes the file a failed write was of.
/// `latest` are the calls the messages show a result of, by how their failure entries start,
/// with whether the latest succeeded, the most recent last.
pub fn carried_failures(
    previous: &[String],
    state: Vec<String>,
    latest: &[(String, bool)],
) -> Vec<String> {
    // a later success of a variant of the call, or of the same program and command: the agent
    // has run it since, and moved on
    let settled_by = |key: &str, later: &[(String, bool)]| {
        later.iter().any(|(l, ok)| {
            *ok && (variant(key, l) || same_command(key, l) || context_state::rewrites(key, l))
        })
    };
    let settled = |f: &str| match latest
        .iter()
        .position(|(key, _)| f.starts_with(key.as_str()))
    {
        Some(i) => {
            let (key, ok) = &latest[i];
            *ok || state.iter().any(|s| s.starts_with(key.as_str()))
                || settled_by(key, &latest[i + 1..])
        }
        // a call the messages do not show: its prefix is one of the entry's own (`exec git
        // push: fatal: …` -> `exec git push: `)
        None => f
            .match_indices(": ")
            .any(|(at, _)| settled_by(&f[..at + 2], latest)),
    };
    let mut out: Vec<String> = previous
        .iter()
        .filter_map(|item| item.strip_prefix(FAILURE_ITEM_PREFIX))
        .filter(|f| !settled(f))
        .map(str::to_string)
        .collect();
    // (the state's own are settled as they were recorded: by a success of the same call, which
    // the host's events report with its exit code where a message may not)
    out.extend(state);
    out
}

/// Whether a later call (its failure prefix `later`, `Bash git push -u origin main: `) runs the
/// failed one (`failed`, `Bash git push: `) again widened or combined: the same tool, and every
/// word of the failed call among the later one's (`mix compile && mix credo --strict a.ex` after
/// `mix credo --strict a.ex`). A word cut short by the subject's cap is left out; a call of fewer
/// than three words (a tool, a program, a command) is no variant of another. (Narrowed, `git add
/// a` after `git add a b`, is the same program and command: [`same_command`].)
fn variant(failed: &str, later: &str) -> bool {
    let (a, b) = (call_words(failed), call_words(later));
    a.len() >= 3 && b.len() >= 3 && a[0] == b[0] && a.iter().all(|w| b.contains(w))
}

/// Whether two calls' failure prefixes have the same tool, program and command (`Bash git add`).
fn same_command(a: &str, b: &str) -> bool {
    let (a, b) = (call_words(a), call_words(b));
    a.len() >= 3 && b.len() >= 3 && a[..3] == b[..3]
}

/// The words of a failure prefix, a word cut short by the subject's cap left out.
fn call_words(key: &str) -> Vec<&str> {
    key.trim_end_matches(": ")
        .split_whitespace()
        .filter(|w| !w.ends_with('…'))
        .collect()
}

/// The key exchanges with the previous checkpoint's record of what was done before them (its
/// commits and the tasks it marked done: what a compaction removed the messages of), each kind
/// while this conversation's messages name fewer than its own most
/// ([`MAX_COMMITS`](crate::thread::MAX_COMMITS), [`MAX_DONE`](crate::thread::MAX_DONE)): the
/// newest of those they do not name again, as many as fit in
/// [`MAX_EXCHANGES`](crate::thread::MAX_EXCHANGES) without pushing out an exchange of its own.
pub fn with_progress(exchanges: Vec<Exchange>, carried: &[Exchange]) -> Vec<Exchange> {
    use crate::thread::{is_commit, is_done_task, MAX_COMMITS, MAX_DONE, MAX_EXCHANGES};
    let mut room = MAX_EXCHANGES.saturating_sub(exchanges.len());
    let mut kept = vec![false; carried.len()];
    /// A kind of record (commits, tasks done) and how many of it the exchanges hold at most.
    type Kind = (fn(&Exchange) -> bool, usize);
    let kinds: [Kind; 2] = [(is_commit, MAX_COMMITS), (is_done_task, MAX_DONE)];
    for (is_kind, most) in kinds {
        let own = exchanges.iter().filter(|e| is_kind(e)).count();
        let older: Vec<usize> = (0..carried.len())
            .filter(|&i| {
                is_kind(&carried[i]) && !exchanges.iter().any(|e| e.gist == carried[i].gist)
            })
            .collect();
        let take = most.saturating_sub(own).min(room).min(older.len());
        for &i in &older[older.len() - take..] {
            kept[i] = true;
        }
        room -= take;
    }
    carried
        .iter()
        .zip(kept)
        .filter(|(_, k)| *k)
        .map(|(e, _)| e.clone())
        .chain(exchanges)
        .collect()
}

/// Of [`with_carried`]'s list, one name in this many comes from the previous compaction.
pub const CARRIED_EVERY: usize = 3;

/// This conversation's identifiers, ranked, with those of the previous compaction's checkpoint
/// merged in at a third of the density (every [`CARRIED_EVERY`]th place): the work before a
/// compaction still counts after it, as a compaction summary that is given the previous summary
/// keeps its names, but what the agent handles now ranks first. Each name once
/// (case-insensitive), at most [`MAX_IDENTIFIERS`](crate::thread::MAX_IDENTIFIERS).
pub fn with_carried(new: Vec<String>, carried: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(new.len() + carried.len());
    let mut new = new.into_iter().peekable();
    let mut carried = carried.iter().cloned().peekable();
    while new.peek().is_some() || carried.peek().is_some() {
        let take_carried = (out.len() + 1) % CARRIED_EVERY == 0 || new.peek().is_none();
        let next = if take_carried {
            carried.next().or_else(|| new.next())
        } else {
            new.next().or_else(|| carried.next())
        };
        let Some(id) = next else { break };
        if seen.insert(id.to_lowercase()) {
            out.push(id);
        }
        if out.len() >= crate::thread::MAX_IDENTIFIERS {
            break;
        }
    }
    out
}

/// Keeps the first of entries whose [`fold_key`] is the same (they differ only in case, markup
/// or whitespace), in order. Entries with nothing left to fold (markup alone) are compared as
/// they are.
pub fn fold_duplicates(items: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    items
        .into_iter()
        .filter(|s| {
            let k = fold_key(s);
            seen.insert(if k.is_empty() { format!("\0{s}") } else { k })
        })
        .collect()
}

/// Assembles the checkpoint: the input's sections first; what it leaves out from the messages
/// (topic, summary, key exchanges, status, tools and files), the compaction's file ops and the
/// state bundle. `checkpoint_id` and `created_at` are the caller's.
pub fn assemble(
    input: &CheckpointInput,
    state: StateBundle,
    previous: &Previous,
    checkpoint_id: String,
    created_at: String,
) -> Checkpoint {
    let ex = extract_with(
        input.messages.as_deref().unwrap_or(&[]),
        &Carried {
            tasks: &previous.open_tasks,
            plan: previous.next_action.as_deref(),
            since: previous
                .created_at
                .as_deref()
                .and_then(context_fsio::parse_rfc3339),
        },
    );
    let w = input.working.clone().unwrap_or_default();
    let interrupted = w.interrupted.or(input.is_split_turn).unwrap_or(false);
    let has_state = !state.is_empty();
    let status = w.status.or(ex.status).unwrap_or(if has_state {
        Status::InProgress
    } else {
        Status::Idle
    });
    let given = w.task.filter(|t| !t.trim().is_empty());
    // the user came back after a pause for something else: what was open before is not carried
    let new_sitting = ex.new_sitting;
    // a task an earlier version took from an injection or a host wrapper is no task, nor a
    // greeting it took for one when this conversation has a substantive request. The earlier
    // checkpoint chose it knowing whether the agent worked on it, which a later one cannot see: a
    // short request with a few words (`Speed up the cache lookups`) stays. (not over a pause: the
    // user came back for something else; not when a request here changed the plan)
    let carried = if given.is_some() || ex.task_revised || new_sitting {
        None
    } else {
        previous.task.clone().filter(|t| {
            !strip_injections(t).trim().is_empty()
                && (crate::thread::current(t, false) || ex.task.is_none())
        })
    };
    // the plan a changed task replaced: the task before the change (of these messages, else the
    // one carried to them), carried with the task it gave way to
    let replaced_task = match (&given, &carried) {
        (Some(_), _) => None,
        (None, Some(_)) => previous.replaced_task.clone(),
        (None, None) if ex.task_revised => ex.replaced_task.or_else(|| previous.task.clone()),
        (None, None) => None,
    };
    // the agent's task list: as these messages left it, else as the previous checkpoint had it
    // (its open tasks the plan when these messages set none)
    let open_tasks = match &ex.open_tasks {
        Some(open) => open.clone(),
        None if new_sitting => Vec::new(),
        None => previous.open_tasks.clone(),
    };
    let working = Working {
        topic: w.topic.or(ex.topic).or(state.topic),
        task: given.or(carried).or(ex.task),
        replaced_task,
        status,
        interrupted,
        last_tool_call: w
            .last_tool_call
            .or(if interrupted { ex.last_tool_call } else { None }),
        next_action: w.next_action.or_else(|| {
            let at = ex.next_action_at;
            ex.next_action
                .map(|n| before_the_change(n, at, ex.task_revised_at))
        }),
        open_tasks,
    };

    let decisions = match input.decisions.clone() {
        Some(d) => assign_ids(d),
        None => with_message_decisions(state.decisions, input.messages.as_deref().unwrap_or(&[]))
            .into_iter()
            .map(|mut d| {
                let made = d.when.as_deref().and_then(context_fsio::parse_rfc3339);
                d.what = before_the_change(d.what, made, ex.task_revised_at);
                d
            })
            .collect(),
    };

    let r = input.resources.clone().unwrap_or_default();
    let ops = input.file_ops.clone().unwrap_or_default();
    let files_read = r
        .files_read
        .unwrap_or_else(|| union(state.files_read, &ex.files_read));
    let files_modified = r
        .files_modified
        .unwrap_or_else(|| union(state.files_modified, &ex.files_modified));
    let resources = Resources {
        files_read: keep_last(union(files_read, &ops.read), MAX_FILES),
        files_modified: keep_last(
            union(union(files_modified, &ops.written), &ops.edited),
            MAX_FILES,
        ),
        tools_used: keep_last(
            r.tools_used
                .unwrap_or_else(|| union_tools(state.tools_used, &ex.tools_used)),
            MAX_TOOLS,
        ),
        active_files: ex.active_files.into_iter().take(MAX_FILES).collect(),
        identifiers: with_carried(ex.identifiers, &previous.identifiers),
        recent_values: ex.recent_values,
        named_values: with_carried(ex.named_values, &previous.named_values),
        commands: ex.commands,
    };

    let t = input.thread.clone().unwrap_or_default();
    let state_exchanges: Vec<Exchange> = state
        .exchanges
        .iter()
        .filter_map(|e| {
            Some(Exchange {
                role: Role::parse(&e.role)?,
                gist: e.gist.clone(),
            })
        })
        .collect();
    let host_exchanges = t.key_exchanges.is_some();
    // Gists are at most 120 characters (seed 001, 11.2), also those the host passes in.
    let key_exchanges: Vec<Exchange> = t
        .key_exchanges
        .unwrap_or(if ex.key_exchanges.is_empty() {
            state_exchanges
        } else {
            ex.key_exchanges
        })
        .into_iter()
        .map(|e| Exchange {
            role: e.role,
            gist: if e.gist.chars().count() > GIST_CHARS {
                gist(&e.gist, GIST_CHARS)
            } else {
                e.gist
            },
        })
        .collect();
    // the host's exchanges as given; else the progress before a compaction stays said
    let key_exchanges = if host_exchanges {
        key_exchanges
    } else {
        with_progress(key_exchanges, &previous.key_exchanges)
    };
    let thread = Thread {
        summary: t.summary.or(ex.summary),
        key_exchanges: keep_last(key_exchanges, crate::thread::MAX_EXCHANGES),
    };

    let open_items = match input.open_items.clone() {
        Some(items) => items,
        None => {
            let mut items = state.open_items;
            let mut failures = carried_failures(
                &previous.open_items,
                state.tool_failures,
                &ex.latest_results,
            );
            // a failure of a turn before the user's latest request is history, not a TODO
            if let Some(calls) = &ex.turn_calls {
                failures.retain(|f| calls.iter().any(|c| f.starts_with(c.as_str())));
            }
            let failures = keep_last(failures, MAX_FAILURE_ITEMS);
            for f in failures {
                items.push(format!("{FAILURE_ITEM_PREFIX}{f}"));
            }
            items
        }
    };
    let open_items = fold_duplicates(open_items);
    // the host's learnings as given; else the previous checkpoint's, the recorded ones, and the
    // failures this conversation got past, each once
    let learnings = fold_duplicates(match input.learnings.clone() {
        Some(given) => given,
        None => previous
            .learnings
            .iter()
            .cloned()
            .chain(state.learnings)
            .chain(ex.fixes)
            .collect(),
    });

    // the previous checkpoint's constraints, then this conversation's (a repeated one moves to
    // the end, as the newest)
    let stated: std::collections::HashSet<String> =
        ex.constraints.iter().map(|c| fold_key(c)).collect();
    let mut constraints: Vec<String> = previous
        .constraints
        .iter()
        .filter(|c| !stated.contains(&fold_key(c)))
        .cloned()
        .collect();
    constraints.extend(ex.constraints);
    let constraints = keep_last(fold_duplicates(constraints), crate::thread::MAX_CONSTRAINTS);

    let utilization = input
        .utilization
        .unwrap_or(input.input_tokens as f64 / input.context_window as f64);
    let mut checkpoint = Checkpoint {
        meta: Meta {
            checkpoint_id,
            session_key: input.session_key.clone(),
            session_file: input.session_file.clone(),
            created_at,
            trigger: input.trigger,
            compaction_count: input.compaction_count.unwrap_or(previous.compaction_count),
            token_usage: TokenUsage {
                input_tokens: input.input_tokens,
                context_window: input.context_window,
                utilization: round4(utilization),
            },
            previous_checkpoint: previous.id.clone(),
            channel: input.channel.clone(),
            agent_id: input.agent_id.clone(),
        },
        working,
        decisions: keep_last(fold_decisions(decisions), MAX_DECISIONS),
        constraints,
        resources,
        thread,
        open_items: keep_last(open_items, MAX_ITEMS),
        learnings: keep_last(learnings, MAX_ITEMS),
    };
    // no credential the session used is written (issue 27)
    crate::redact::redact_checkpoint(&mut checkpoint);
    checkpoint
}
