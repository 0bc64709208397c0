//! JS surface of the token gauge and the context estimator (seed 001, section 6).

use crate::error::{from_js, run};
use crate::js::Json;
use crate::tokens::parse_encoding;
use context_fsio::Error;
use context_gauge::{Estimate, Estimator, GaugeOptions as CoreOptions, Usage};
use napi::Env;
use napi_derive::napi;
use serde::Deserialize;
use serde_json::Value;

/// The SDK's `ctx.getContextUsage()`.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextUsage {
    /// Tokens in the context; `null` when unknown (e.g. right after a compaction).
    #[napi(ts_type = "number | null")]
    pub tokens: Option<f64>,
    /// The model's context window in tokens (> 0).
    pub context_window: f64,
    /// Percent of the window in use, 0-100 (may exceed 100); preferred over `tokens` when given.
    #[napi(ts_type = "number | null")]
    pub percent: Option<f64>,
}

/// Options of `evaluateContextUsage`.
#[napi(object)]
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct GaugeOptions {
    /// Utilization (fraction) from which the gauge line is injected.
    /// @default 0.7
    pub gauge_at: Option<f64>,
    /// Utilization (fraction) from which a checkpoint is written. `0 <= gaugeAt <= checkpointAt <= 1`.
    /// @default 0.8
    pub checkpoint_at: Option<f64>,
    /// Appends `| Checkpoint saved` to the line (pass true once the checkpoint was written).
    /// @default false
    pub checkpoint_saved: Option<bool>,
}

/// A gauge reading: what to inject and whether to checkpoint.
#[napi(object)]
pub struct GaugeReading {
    /// Fraction of the window in use (0.81 for 81%); not clamped.
    pub utilization: f64,
    /// `none` below `gaugeAt`; `gauge` (inject `line`) below `checkpointAt`; `checkpoint` (write a
    /// checkpoint, inject `line`) from `checkpointAt`.
    #[napi(ts_type = "'none' | 'gauge' | 'checkpoint'")]
    pub action: String,
    /// `[Context: 81% | 162k/200k tokens | Checkpoint saved]`: percent rounded down, tokens in whole
    /// thousands rounded down (exact below 1000); the last part only with `checkpointSaved`.
    pub line: Option<String>,
    /// Where the utilization came from: the SDK's `percent`, `tokens / contextWindow`, or
    /// `unknown` (neither given: utilization 0, action `none`; estimate with `ContextEstimator`).
    #[napi(ts_type = "'percent' | 'tokens' | 'unknown'")]
    pub source: String,
}

/// Seed 001, section 6: the SDK's `percent` first, else `tokens / contextWindow`; below `gaugeAt`
/// (0.7) action `none`, below `checkpointAt` (0.8) `gauge` with the line, from there `checkpoint`
/// with the line. With neither `percent` nor `tokens` the reading is `{ utilization: 0, action:
/// 'none', source: 'unknown' }`, not an error.
///
/// @throws `InvalidArg` for NaN, infinite or negative numbers, `contextWindow <= 0`, or thresholds
/// outside `0 <= gaugeAt <= checkpointAt <= 1`.
#[napi(catch_unwind)]
pub fn evaluate_context_usage(
    env: Env,
    #[napi(ts_arg_type = "ContextUsage")] usage: Value,
    #[napi(ts_arg_type = "GaugeOptions")] options: Option<Value>,
) -> napi::Result<GaugeReading> {
    run(&env, || {
        let u: ContextUsage = from_js(usage, "usage")?;
        let o: GaugeOptions = match options {
            Some(Value::Null) | None => GaugeOptions::default(),
            Some(v) => from_js(v, "options")?,
        };
        let d = CoreOptions::default();
        let r = context_gauge::evaluate_context_usage(
            &Usage {
                tokens: u.tokens,
                context_window: u.context_window,
                percent: u.percent,
            },
            &CoreOptions {
                gauge_at: o.gauge_at.unwrap_or(d.gauge_at),
                checkpoint_at: o.checkpoint_at.unwrap_or(d.checkpoint_at),
                checkpoint_saved: o.checkpoint_saved.unwrap_or(false),
            },
        )?;
        Ok(GaugeReading {
            utilization: r.utilization,
            action: r.action.as_str().into(),
            line: r.line,
            source: r.source.as_str().into(),
        })
    })
}

/// An estimate of the context the next provider call reads (pi's `ContextUsageEstimate` plus the
/// correction and overhead used).
#[napi(object)]
pub struct ContextEstimate {
    /// The estimate: `usageTokens + trailingTokens`, or without a usage
    /// `overheadTokens + carriedTokens + trailingTokens`.
    pub tokens: f64,
    /// The last provider-reported context, `input + cacheRead + cacheWrite` (0 without one).
    pub usage_tokens: f64,
    /// The corrected exact count of the messages from the last usage on (all messages without one).
    pub trailing_tokens: f64,
    /// Index (since the last `reset`) of the message whose usage was used; `null` without one.
    pub last_usage_index: Option<u32>,
    /// The learned provider-tokens per counted-token factor (1 until two usages were seen).
    pub correction: f64,
    /// Learned overhead (system prompt, tool definitions) included when there is no usage; else 0.
    pub overhead_tokens: f64,
    /// The measured size of the messages the last `compact()` kept, included when there is no
    /// usage; else 0.
    pub carried_tokens: f64,
}

impl From<Estimate> for ContextEstimate {
    fn from(e: Estimate) -> Self {
        ContextEstimate {
            tokens: e.tokens as f64,
            usage_tokens: e.usage_tokens as f64,
            trailing_tokens: e.trailing_tokens as f64,
            last_usage_index: e.last_usage_index.map(|i| i as u32),
            correction: e.correction,
            overhead_tokens: e.overhead_tokens as f64,
            carried_tokens: e.carried_tokens as f64,
        }
    }
}

/// Options of `ContextEstimator` and `estimateContextTokens`.
#[napi(object)]
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct EstimatorOptions {
    /// Encoding of the exact counts.
    /// @default 'o200k_base'
    #[napi(ts_type = "Encoding")]
    pub encoding: Option<String>,
}

/// Options of `ContextEstimator.addMessage(s)`.
#[napi(object)]
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct AddMessageOptions {
    /// Do not use the messages' usage: for messages kept across a compaction, whose usage
    /// predates it (add them with this after `reset()`).
    /// @default false
    pub ignore_usage: Option<bool>,
}

fn parse_options<T: serde::de::DeserializeOwned + Default>(
    v: Option<Value>,
    what: &str,
) -> Result<T, Error> {
    match v {
        None | Some(Value::Null) => Ok(T::default()),
        Some(v) => from_js(v, what),
    }
}

fn check_message(m: &Value) -> Result<(), Error> {
    if m.get("role").and_then(Value::as_str).is_none() {
        return Err(Error::invalid_arg(
            "message must be a pi agent message object with a string `role` ('user', 'assistant', 'toolResult', ...)",
        ));
    }
    Ok(())
}

/// The incremental context estimator for when the SDK has no usage (after a compaction, on
/// resume): the last provider-reported context plus an exact count of the messages after it,
/// times a correction learned from the usage pairs seen so far. Feed it every message once, as
/// the conversation grows; `estimate()` is O(1).
///
/// Counted per message: text blocks, thinking, tool calls (name, JSON arguments, id), tool results
/// (text, tool call id), 1,200 tokens per image, 4 tokens of framing per message and tool call.
/// Provider context of an assistant turn: `usage.input + cacheRead + cacheWrite` (aborted and
/// errored turns ignored). The correction is the median ratio of provider delta to counted tokens
/// over the last 64 consecutive usage pairs, clamped to 0.5-2.5.
///
/// After a compaction: `compact(keep, [summaryMessage])` with the number of messages it kept (the
/// last `keep` added). The kept messages keep the size the provider measured them at, the summary
/// is counted and corrected, and the overhead (system prompt, tools) is the one measured at the
/// session's first turns, where the least of it is guesswork. (`reset()` and adding the summary and
/// kept messages with `{ ignoreUsage: true }` also works, counting the kept messages instead.)
#[napi]
pub struct ContextEstimator {
    inner: Estimator,
}

#[napi]
impl ContextEstimator {
    /// @param options - `{ encoding?: 'o200k_base' | 'cl100k_base' }`.
    /// @throws `InvalidArg` for an unknown encoding.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        #[napi(ts_arg_type = "EstimatorOptions")] options: Option<Value>,
    ) -> napi::Result<Self> {
        run(&env, || {
            let o: EstimatorOptions = parse_options(options, "options")?;
            Ok(ContextEstimator {
                inner: Estimator::new(parse_encoding(o.encoding.as_deref())?),
            })
        })
    }

    /// Adds the next message (a pi agent message); returns its exact token count.
    /// @throws `InvalidArg` when `message` is not an object with a string `role`.
    #[napi(catch_unwind)]
    pub fn add_message(
        &mut self,
        env: Env,
        #[napi(ts_arg_type = "unknown")] message: Value,
        #[napi(ts_arg_type = "AddMessageOptions")] options: Option<Value>,
    ) -> napi::Result<u32> {
        run(&env, || {
            let o: AddMessageOptions = parse_options(options, "options")?;
            check_message(&message)?;
            Ok(self.inner.add(&message, o.ignore_usage.unwrap_or(false)) as u32)
        })
    }

    /// Adds messages in order; returns their total exact token count. All are checked first:
    /// on an invalid message nothing is added.
    #[napi(catch_unwind)]
    pub fn add_messages(
        &mut self,
        env: Env,
        #[napi(ts_arg_type = "unknown[]")] messages: Json,
        #[napi(ts_arg_type = "AddMessageOptions")] options: Option<Value>,
    ) -> napi::Result<f64> {
        run(&env, || {
            let messages: Vec<Value> = from_js(messages.0, "messages")?;
            let o: AddMessageOptions = parse_options(options, "options")?;
            messages.iter().try_for_each(check_message)?;
            let ignore = o.ignore_usage.unwrap_or(false);
            Ok(messages
                .iter()
                .map(|m| self.inner.add(m, ignore) as f64)
                .sum())
        })
    }

    /// The estimate of the context the next provider call reads.
    #[napi(catch_unwind)]
    pub fn estimate(&self, env: Env) -> napi::Result<ContextEstimate> {
        run(&env, || Ok(self.inner.estimate().into()))
    }

    /// After a compaction that kept the last `keep` messages added (0 when it kept none) and put
    /// `summary` (the compaction summary message, e.g. pi's `compactionSummary`) in front of them:
    /// forgets the dropped messages, carries the kept ones at the size the provider's usages
    /// measured (`estimate().carriedTokens`), and adds `summary` without usage. The learned
    /// correction and overhead carry over. `messageCount` then counts the summary messages only.
    /// @throws `InvalidArg` for a negative or non-integer `keep`, or a summary message without a
    /// string `role` (nothing changes).
    #[napi(catch_unwind)]
    pub fn compact(
        &mut self,
        env: Env,
        #[napi(ts_arg_type = "number")] keep: Json,
        #[napi(ts_arg_type = "unknown[] | undefined | null")] summary: Option<Json>,
    ) -> napi::Result<()> {
        run(&env, || {
            let keep = match keep.0.as_f64() {
                Some(k) if k.is_finite() && k >= 0.0 && k.fract() == 0.0 => k as usize,
                _ => {
                    return Err(Error::invalid_arg(format!(
                        "keep must be a non-negative integer (the number of messages the compaction kept), got {}",
                        keep.0
                    )))
                }
            };
            let summary: Vec<Value> = match summary.map(|j| j.0) {
                None | Some(Value::Null) => Vec::new(),
                Some(v) => from_js(v, "summary")?,
            };
            summary.iter().try_for_each(check_message)?;
            self.inner.compact(keep, &summary);
            Ok(())
        })
    }

    /// Forgets the messages (after a compaction), keeping the learned correction and overhead.
    #[napi(catch_unwind)]
    pub fn reset(&mut self, env: Env) -> napi::Result<()> {
        run(&env, || {
            self.inner.reset();
            Ok(())
        })
    }

    /// An independent copy (to estimate "what if these messages were added" without changing this one).
    #[napi(catch_unwind)]
    pub fn fork(&self, env: Env) -> napi::Result<ContextEstimator> {
        run(&env, || {
            Ok(ContextEstimator {
                inner: self.inner.clone(),
            })
        })
    }

    /// Messages added since the last reset.
    #[napi(getter)]
    pub fn message_count(&self) -> u32 {
        self.inner.len() as u32
    }
}

/// Stateless convenience: the estimate over `messages` (a fresh `ContextEstimator` fed all of
/// them). Same shape as pi's `estimateContextTokens`, with exact counts and the correction learned
/// from the usages inside `messages`. Counts every message on each call: hosts that call it every
/// turn should keep a `ContextEstimator` instead.
/// @throws `InvalidArg` for a non-array, a message without a string `role` or an unknown encoding.
#[napi(catch_unwind)]
pub fn estimate_context_tokens(
    env: Env,
    #[napi(ts_arg_type = "unknown[]")] messages: Json,
    #[napi(ts_arg_type = "EstimatorOptions")] options: Option<Value>,
) -> napi::Result<ContextEstimate> {
    run(&env, || {
        let messages: Vec<Value> = from_js(messages.0, "messages")?;
        let o: EstimatorOptions = parse_options(options, "options")?;
        let mut e = Estimator::new(parse_encoding(o.encoding.as_deref())?);
        messages.iter().try_for_each(check_message)?;
        for m in &messages {
            e.add(m, false);
        }
        Ok(e.estimate().into())
    })
}
