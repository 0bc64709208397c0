//! The context-size estimator for when the SDK has no usage (after a compaction, on resume).
//!
//! The estimate is the last provider-reported context plus an exact token count of the messages
//! after it, scaled by a correction factor learned from the usage pairs seen so far:
//!
//! - **Provider context** of an assistant turn is `input + cacheRead + cacheWrite` of its `usage`
//!   (what the provider read to produce it; `output` is not part of it). Aborted and errored turns
//!   (`stopReason` `aborted` / `error`) and zero usage are ignored, as pi does.
//! - **Exact count** of a message ([`count_message`]): the sum of the tiktoken counts of the parts
//!   the provider receives: text blocks; thinking text; for a tool call its name, the compact JSON
//!   of its arguments and its id; for a tool result its text blocks and its tool call id;
//!   [`IMAGE_TOKENS`] per image; plus [`MESSAGE_OVERHEAD`] tokens of framing per message and per
//!   tool call. Each message is counted once, when added.
//! - **Correction**: for consecutive reported usages at messages `i < j`, the provider's delta
//!   `U_j - U_i` covers exactly messages `i..j` (the turn's own output, then the tool results and
//!   user messages that followed). The correction is the median of `delta / count` over the last
//!   [`WINDOW`] pairs whose count is at least [`MIN_PAIR_TOKENS`], clamped to
//!   [`MIN_CORRECTION`]..[`MAX_CORRECTION`] ([`DEFAULT_CORRECTION`] before the first pair). It
//!   absorbs the difference between the provider's tokenizer and o200k_base and the provider's
//!   per-block framing.
//! - **Overhead**: with no usage in the current messages (after [`Estimator::reset`]), the estimate
//!   is the learned overhead (system prompt, tool definitions) plus the corrected count of every
//!   message: after a compaction, the summary and the kept messages. The overhead is
//!   `U_i - correction * count(messages before i)` measured where that subtraction is most
//!   exact: at the [`ANCHORS`] usages with the fewest counted tokens before them (the first turns
//!   of the session), taking the median. A usage late in a session has 100k+ counted tokens
//!   before it, and a correction off by 3% on those moves the overhead by thousands of tokens;
//!   the first turn has a few hundred. `reset` keeps the correction and the overhead, which
//!   still hold after a compaction.
//! - **After a compaction** ([`Estimator::compact`]): what the compaction leaves is the summary
//!   (counted and corrected) and the kept messages, which were in the context before it, so the
//!   provider has already measured them: their size is the estimated context at the end of the
//!   kept span minus the estimated context at its start, each anchored on the nearest provider
//!   usage before it (`U_j + correction * count(j..i)`). Only the few messages between a usage
//!   and a span end are counted and corrected; the rest is the provider's own figures. The kept
//!   messages are carried as that size ([`Estimate::carried_tokens`]), not as messages.

use context_tokens::{count_tokens, Encoding};
use serde_json::Value;
use std::collections::VecDeque;

/// Tokens counted per image (pi's own estimate: 4,800 chars / 4).
pub const IMAGE_TOKENS: u64 = 1200;
/// Tokens of framing counted per message and per tool call (role markers, block delimiters).
pub const MESSAGE_OVERHEAD: u64 = 4;
/// Correction before any usage pair was seen.
pub const DEFAULT_CORRECTION: f64 = 1.0;
/// Lowest correction factor.
pub const MIN_CORRECTION: f64 = 0.5;
/// Highest correction factor.
pub const MAX_CORRECTION: f64 = 2.5;
/// Pairs the correction is learned from: the most recent.
pub const WINDOW: usize = 64;
/// Smallest counted span (tokens) a usage pair needs to teach the correction.
pub const MIN_PAIR_TOKENS: u64 = 64;
/// Usages the overhead is measured at: those with the fewest counted tokens before them.
pub const ANCHORS: usize = 8;

fn count_str(s: &str, enc: Encoding) -> u64 {
    if s.is_empty() {
        0
    } else {
        count_tokens(s, enc) as u64
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Counts a `content` that is a string or an array of `text` / `image` / `thinking` / `toolCall` blocks.
fn count_content(content: Option<&Value>, enc: Encoding) -> u64 {
    match content {
        Some(Value::String(s)) => count_str(s, enc),
        Some(Value::Array(blocks)) => blocks.iter().map(|b| count_block(b, enc)).sum(),
        _ => 0,
    }
}

fn count_block(b: &Value, enc: Encoding) -> u64 {
    match str_field(b, "type") {
        "text" => count_str(str_field(b, "text"), enc),
        "thinking" => count_str(str_field(b, "thinking"), enc),
        "image" => IMAGE_TOKENS,
        "toolCall" => {
            let args = match b.get("arguments") {
                Some(Value::String(s)) => count_str(s, enc),
                Some(v) => count_str(&v.to_string(), enc),
                None => 0,
            };
            MESSAGE_OVERHEAD
                + count_str(str_field(b, "name"), enc)
                + args
                + count_str(str_field(b, "id"), enc)
        }
        _ => 0,
    }
}

/// Whether the host sends the message to the provider at all. pi and OpenClaw keep some messages in
/// the transcript only: `excludeFromContext: true` (pi's `!!` bash runs, OpenClaw's context-free
/// gateway commands, counted 0 by OpenClaw's own estimate too), and OpenClaw's runtime-context
/// custom messages (`customType: "openclaw.runtime-context"`), which OpenClaw strips from every turn
/// but the one they were written for.
pub fn in_context(message: &Value) -> bool {
    let excluded = message.get("excludeFromContext").and_then(Value::as_bool) == Some(true);
    let runtime = str_field(message, "role") == "custom"
        && str_field(message, "customType") == "openclaw.runtime-context";
    !(excluded || runtime)
}

/// The exact token count of one pi message as the estimator sees it (see the module docs):
/// `user`, `assistant`, `toolResult`, `custom` (their `content`), `bashExecution` (`command` and
/// `output`), `compactionSummary` / `branchSummary` (`summary`); other roles count their `content`.
/// A message the host does not send ([`in_context`]) counts 0.
pub fn count_message(message: &Value, enc: Encoding) -> u64 {
    if !in_context(message) {
        return 0;
    }
    let body = match str_field(message, "role") {
        "toolResult" => {
            count_content(message.get("content"), enc)
                + count_str(str_field(message, "toolCallId"), enc)
        }
        "bashExecution" => {
            count_str(str_field(message, "command"), enc)
                + count_str(str_field(message, "output"), enc)
        }
        "compactionSummary" | "branchSummary" => count_str(str_field(message, "summary"), enc),
        _ => count_content(message.get("content"), enc),
    };
    MESSAGE_OVERHEAD + body
}

fn num(v: &Value, keys: &[&str]) -> f64 {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_f64))
        .filter(|x| x.is_finite() && *x > 0.0)
        .unwrap_or(0.0)
}

/// The provider-reported context of an assistant message: `input + cacheRead + cacheWrite` of its
/// `usage` (Anthropic's `input_tokens` / `cache_read_input_tokens` / `cache_creation_input_tokens`
/// are accepted too), or `usage.contextUsage.promptTokens` when OpenClaw marks it `available` (the
/// last call's prompt where `input` sums a turn's calls). `None` for other roles, aborted or errored
/// turns, and zero usage.
pub fn provider_context_tokens(message: &Value) -> Option<u64> {
    if str_field(message, "role") != "assistant" {
        return None;
    }
    if matches!(str_field(message, "stopReason"), "aborted" | "error") {
        return None;
    }
    let u = message.get("usage")?;
    // A harness that sums a turn's calls into `input` (OpenClaw's Codex harness) reports the last
    // call's prompt as `contextUsage.promptTokens` (`state: "available"`): that is the context.
    if let Some(c) = u
        .get("contextUsage")
        .filter(|c| str_field(c, "state") == "available")
    {
        let prompt = num(c, &["promptTokens"]);
        if prompt >= 1.0 {
            return Some(prompt.round() as u64);
        }
    }
    let total = num(u, &["input", "input_tokens"])
        + num(u, &["cacheRead", "cache_read_input_tokens"])
        + num(u, &["cacheWrite", "cache_creation_input_tokens"]);
    (total >= 1.0).then_some(total.round() as u64)
}

/// An estimate of the context the next provider call will read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The estimate: `usage_tokens + trailing_tokens`, or without usage `overhead_tokens + trailing_tokens`.
    pub tokens: u64,
    /// The last provider-reported context (0 without one).
    pub usage_tokens: u64,
    /// The corrected count of the messages after the last usage (all messages without one).
    pub trailing_tokens: u64,
    /// Index (since the last reset) of the message whose usage was used.
    pub last_usage_index: Option<usize>,
    /// The correction factor applied to exact counts.
    pub correction: f64,
    /// The learned overhead included when there is no usage (0 with a usage).
    pub overhead_tokens: u64,
    /// The measured size of the messages a compaction kept ([`Estimator::compact`]), included
    /// when there is no usage (0 with a usage, and after [`Estimator::reset`]).
    pub carried_tokens: u64,
}

/// The incremental estimator: feed it messages as the conversation grows ([`Estimator::add`]),
/// ask it for an estimate at any time, [`Estimator::reset`] it after a compaction. Each message
/// is counted once; `estimate` is O(1) plus a median over at most [`WINDOW`] numbers.
#[derive(Debug, Clone)]
pub struct Estimator {
    encoding: Encoding,
    /// `prefix[i]` = exact count of messages `0..i`.
    prefix: Vec<u64>,
    /// (message index, provider context) of the newest usage since the last reset.
    last_usage: Option<(usize, u64)>,
    /// (message index, provider context) of every usage since the last reset, ascending.
    usages: Vec<(usize, u64)>,
    /// Provider-scale size of the messages the last compaction kept (see [`Estimator::compact`]).
    carried_tokens: f64,
    /// Exact count of those messages (so the usages after them know what precedes them).
    carried_count: u64,
    /// (provider delta, exact count) of consecutive usages.
    pairs: VecDeque<(f64, f64)>,
    /// (provider context, exact count of the messages before it) of the [`ANCHORS`] usages with
    /// the smallest counts seen (across resets), ascending by count.
    anchors: Vec<(f64, f64)>,
}

impl Default for Estimator {
    fn default() -> Self {
        Estimator::new(Encoding::default())
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn push_window(q: &mut VecDeque<(f64, f64)>, item: (f64, f64)) {
    if q.len() == WINDOW {
        q.pop_front();
    }
    q.push_back(item);
}

impl Estimator {
    pub fn new(encoding: Encoding) -> Self {
        Estimator {
            encoding,
            prefix: vec![0],
            last_usage: None,
            usages: Vec::new(),
            carried_tokens: 0.0,
            carried_count: 0,
            pairs: VecDeque::new(),
            anchors: Vec::new(),
        }
    }

    /// Messages added since the last reset.
    pub fn len(&self) -> usize {
        self.prefix.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Exact count of all messages added since the last reset.
    pub fn counted_tokens(&self) -> u64 {
        *self.prefix.last().unwrap_or(&0)
    }

    /// Adds the next message; returns its exact count. With `ignore_usage` its usage is not used
    /// (for messages kept across a compaction, whose usage predates it).
    pub fn add(&mut self, message: &Value, ignore_usage: bool) -> u64 {
        let count = count_message(message, self.encoding);
        let n = self.len();
        let before = self.prefix[n];
        if let Some(u) = (!ignore_usage)
            .then(|| provider_context_tokens(message))
            .flatten()
        {
            if let Some((i, prev)) = self.last_usage {
                let counted = before - self.prefix[i];
                if counted >= MIN_PAIR_TOKENS && u > prev {
                    push_window(&mut self.pairs, ((u - prev) as f64, counted as f64));
                }
            }
            self.anchor(u as f64, (self.carried_count + before) as f64);
            self.last_usage = Some((n, u));
            self.usages.push((n, u));
        }
        self.prefix.push(before + count);
        count
    }

    /// Keeps (usage, count) if it is among the [`ANCHORS`] smallest counts seen.
    fn anchor(&mut self, usage: f64, count: f64) {
        if self.anchors.len() == ANCHORS && self.anchors.last().is_some_and(|a| a.1 <= count) {
            return;
        }
        let at = self.anchors.partition_point(|a| a.1 <= count);
        self.anchors.insert(at, (usage, count));
        self.anchors.truncate(ANCHORS);
    }

    /// The learned correction factor (see the module docs).
    pub fn correction(&self) -> f64 {
        median(self.pairs.iter().map(|(d, c)| d / c).collect())
            .unwrap_or(DEFAULT_CORRECTION)
            .clamp(MIN_CORRECTION, MAX_CORRECTION)
    }

    /// The learned overhead (system prompt, tool definitions) for a given correction.
    fn overhead(&self, correction: f64) -> u64 {
        median(
            self.anchors
                .iter()
                .map(|(u, c)| (u - correction * c).max(0.0))
                .collect(),
        )
        .unwrap_or(0.0)
        .round() as u64
    }

    /// The estimate of the context of the next provider call.
    pub fn estimate(&self) -> Estimate {
        let correction = self.correction();
        let n = self.len();
        match self.last_usage {
            Some((i, u)) => {
                let trailing =
                    (correction * (self.prefix[n] - self.prefix[i]) as f64).round() as u64;
                Estimate {
                    tokens: u + trailing,
                    usage_tokens: u,
                    trailing_tokens: trailing,
                    last_usage_index: Some(i),
                    correction,
                    overhead_tokens: 0,
                    carried_tokens: 0,
                }
            }
            None => {
                let trailing = (correction * self.prefix[n] as f64).round() as u64;
                let overhead = self.overhead(correction);
                let carried = self.carried_tokens.round() as u64;
                Estimate {
                    tokens: overhead + carried + trailing,
                    usage_tokens: 0,
                    trailing_tokens: trailing,
                    last_usage_index: None,
                    correction,
                    overhead_tokens: overhead,
                    carried_tokens: carried,
                }
            }
        }
    }

    /// The estimated context in front of message `i` (overhead, carried messages and messages
    /// `0..i`): the newest usage at or before `i` plus the corrected count after it, or without
    /// one the overhead, the carried size and the corrected count.
    fn context_before(&self, i: usize, correction: f64) -> f64 {
        let at = self.usages.partition_point(|&(j, _)| j <= i);
        match at.checked_sub(1).map(|k| self.usages[k]) {
            Some((j, u)) => u as f64 + correction * (self.prefix[i] - self.prefix[j]) as f64,
            None => {
                self.overhead(correction) as f64
                    + self.carried_tokens
                    + correction * self.prefix[i] as f64
            }
        }
    }

    /// After a compaction that kept the last `keep` messages added (pi's messages from
    /// `firstKeptEntryId` on; 0 when it kept none, as Claude Code's) and put `summary` in front of
    /// them: forgets the dropped messages, carries the kept ones at the size the provider measured
    /// (see the module docs), and adds `summary` without usage. The correction and the overhead
    /// carry over; the next estimate is `overhead + carried + corrected count of the summary`.
    /// A `keep` beyond the messages since the last reset keeps them all (and what was carried).
    pub fn compact(&mut self, keep: usize, summary: &[Value]) {
        let correction = self.correction();
        let n = self.len();
        let end = self.context_before(n, correction);
        let (size, count) = if keep >= n {
            let start = self.overhead(correction) as f64;
            (end - start, self.carried_count + self.prefix[n])
        } else {
            let from = n - keep;
            let start = self.context_before(from, correction);
            (end - start, self.prefix[n] - self.prefix[from])
        };
        // Provider figures are not monotonic (a retried or aborted turn): the span's measured
        // size is held to the range the correction itself is held to.
        let floor = MIN_CORRECTION * count as f64;
        let ceil = MAX_CORRECTION * count as f64;
        self.reset();
        self.carried_tokens = size.clamp(floor, ceil);
        self.carried_count = count;
        for m in summary {
            self.add(m, true);
        }
    }

    /// Forgets the messages (after a compaction replaced them), keeping what was learned: the
    /// correction and the overhead.
    pub fn reset(&mut self) {
        self.prefix.clear();
        self.prefix.push(0);
        self.last_usage = None;
        self.usages.clear();
        self.carried_tokens = 0.0;
        self.carried_count = 0;
    }
}

#[cfg(test)]
mod tests;
