//! `evaluateContextUsage`: utilization, threshold action and the gauge line.

use context_fsio::{Error, Result};

/// Utilization from which the gauge line is injected (seed 001, 6.3).
pub const DEFAULT_GAUGE_AT: f64 = 0.70;
/// Utilization from which a checkpoint is written (seed 001, 6.3).
pub const DEFAULT_CHECKPOINT_AT: f64 = 0.80;

/// The SDK's `ctx.getContextUsage()`: `{ tokens: number | null, contextWindow, percent: number | null }`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Usage {
    pub tokens: Option<f64>,
    pub context_window: f64,
    /// 0-100 (may exceed 100 when the context overflows).
    pub percent: Option<f64>,
}

/// Thresholds (fractions of the window) and whether a checkpoint was just saved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaugeOptions {
    pub gauge_at: f64,
    pub checkpoint_at: f64,
    pub checkpoint_saved: bool,
}

impl Default for GaugeOptions {
    fn default() -> Self {
        GaugeOptions {
            gauge_at: DEFAULT_GAUGE_AT,
            checkpoint_at: DEFAULT_CHECKPOINT_AT,
            checkpoint_saved: false,
        }
    }
}

/// What the host does with a reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GaugeAction {
    /// Below `gauge_at`: inject nothing.
    None,
    /// From `gauge_at` to below `checkpoint_at`: inject the gauge line.
    Gauge,
    /// From `checkpoint_at`: write a checkpoint and inject the gauge line.
    Checkpoint,
}

impl GaugeAction {
    pub fn as_str(self) -> &'static str {
        match self {
            GaugeAction::None => "none",
            GaugeAction::Gauge => "gauge",
            GaugeAction::Checkpoint => "checkpoint",
        }
    }
}

/// Where the utilization came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadingSource {
    /// The SDK's `percent`.
    Percent,
    /// `tokens / contextWindow`.
    Tokens,
    /// Neither was given: utilization 0, action `none`; the host should estimate instead.
    Unknown,
}

impl ReadingSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ReadingSource::Percent => "percent",
            ReadingSource::Tokens => "tokens",
            ReadingSource::Unknown => "unknown",
        }
    }
}

/// The result of [`evaluate_context_usage`].
#[derive(Debug, Clone, PartialEq)]
pub struct GaugeReading {
    /// Fraction of the window in use (0.81 for 81%); not clamped, may exceed 1.
    pub utilization: f64,
    pub action: GaugeAction,
    /// The gauge line, for `gauge` and `checkpoint`.
    pub line: Option<String>,
    pub source: ReadingSource,
}

fn check(value: f64, what: &str) -> Result<f64> {
    if !value.is_finite() || value < 0.0 {
        return Err(Error::invalid_arg(format!(
            "{what} must be a finite number >= 0, got {value}"
        )));
    }
    Ok(value)
}

/// Seed 001, 6.2 and 6.3: `percent / 100` when the SDK gives a percent, else
/// `tokens / contextWindow`; below `gauge_at` nothing, from `gauge_at` the gauge line, from
/// `checkpoint_at` a checkpoint. Thresholds compare the unrounded utilization.
///
/// With neither `percent` nor `tokens` (the SDK returns nulls right after a compaction) the
/// reading is utilization 0, action `none`, source `Unknown`: not an error, since the host cannot
/// do better than estimate, which it should then do with the [`crate::Estimator`].
///
/// `InvalidArg` for NaN, infinite or negative numbers, a `context_window` that is not positive,
/// or thresholds outside `0 <= gauge_at <= checkpoint_at <= 1`.
pub fn evaluate_context_usage(usage: &Usage, options: &GaugeOptions) -> Result<GaugeReading> {
    let window = check(usage.context_window, "contextWindow")?;
    if window == 0.0 {
        return Err(Error::invalid_arg(
            "contextWindow must be > 0 (the model's context window in tokens, e.g. 200000)",
        ));
    }
    let tokens = usage.tokens.map(|t| check(t, "tokens")).transpose()?;
    let percent = usage.percent.map(|p| check(p, "percent")).transpose()?;
    let (ga, ca) = (
        check(options.gauge_at, "gaugeAt")?,
        check(options.checkpoint_at, "checkpointAt")?,
    );
    if ga > ca || ca > 1.0 {
        return Err(Error::invalid_arg(format!(
            "thresholds must satisfy 0 <= gaugeAt <= checkpointAt <= 1 (fractions, e.g. 0.7 and 0.8), got {ga} and {ca}"
        )));
    }
    let (utilization, source) = match (percent, tokens) {
        (Some(p), _) => (p / 100.0, ReadingSource::Percent),
        (None, Some(t)) => (t / window, ReadingSource::Tokens),
        (None, None) => (0.0, ReadingSource::Unknown),
    };
    let action = if source == ReadingSource::Unknown || utilization < ga {
        GaugeAction::None
    } else if utilization < ca {
        GaugeAction::Gauge
    } else {
        GaugeAction::Checkpoint
    };
    let line = (action != GaugeAction::None).then(|| {
        let shown_tokens = tokens.unwrap_or(utilization * window);
        format_line(utilization, shown_tokens, window, options.checkpoint_saved)
    });
    Ok(GaugeReading {
        utilization,
        action,
        line,
        source,
    })
}

/// Whole thousands, rounded down (`162431` -> `162k`); below 1000 the number itself.
fn kilo(tokens: f64) -> String {
    let t = tokens.max(0.0);
    if t < 1000.0 {
        format!("{}", t.floor() as u64)
    } else {
        format!("{}k", (t / 1000.0).floor() as u64)
    }
}

/// The gauge line of seed 001, 6.4: `[Context: 81% | 162k/200k tokens | Checkpoint saved]`.
///
/// The percent is rounded down (79.9% shows 79%, so the line never shows 80% below the
/// checkpoint threshold); token counts are whole thousands rounded down (`162431` -> `162k`),
/// exact below 1000. The last part only when `checkpoint_saved`.
pub fn format_line(utilization: f64, tokens: f64, window: f64, checkpoint_saved: bool) -> String {
    // The epsilon keeps 0.29 * 100 = 28.999999999999996 at 29.
    let pct = (utilization * 100.0 + 1e-9).floor().max(0.0) as u64;
    let mut line = format!(
        "[Context: {pct}% | {}/{} tokens",
        kilo(tokens),
        kilo(window)
    );
    if checkpoint_saved {
        line.push_str(" | Checkpoint saved");
    }
    line.push(']');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(tokens: Option<f64>, window: f64, percent: Option<f64>) -> Result<GaugeReading> {
        evaluate_context_usage(
            &Usage {
                tokens,
                context_window: window,
                percent,
            },
            &GaugeOptions::default(),
        )
    }

    #[test]
    fn thresholds_and_lines() {
        let r = eval(Some(100_000.0), 200_000.0, None).unwrap();
        assert_eq!(
            (r.utilization, r.action, r.line.as_deref()),
            (0.5, GaugeAction::None, None)
        );
        let r = eval(Some(140_000.0), 200_000.0, None).unwrap();
        assert_eq!(r.action, GaugeAction::Gauge);
        assert_eq!(r.line.as_deref(), Some("[Context: 70% | 140k/200k tokens]"));
        let r = eval(Some(159_999.0), 200_000.0, None).unwrap();
        assert_eq!(r.action, GaugeAction::Gauge);
        assert_eq!(r.line.as_deref(), Some("[Context: 79% | 159k/200k tokens]"));
        let r = eval(Some(160_000.0), 200_000.0, None).unwrap();
        assert_eq!(r.action, GaugeAction::Checkpoint);
        let r = evaluate_context_usage(
            &Usage {
                tokens: Some(162_431.0),
                context_window: 200_000.0,
                percent: None,
            },
            &GaugeOptions {
                checkpoint_saved: true,
                ..GaugeOptions::default()
            },
        )
        .unwrap();
        assert_eq!(
            r.line.as_deref(),
            Some("[Context: 81% | 162k/200k tokens | Checkpoint saved]")
        );
    }

    #[test]
    fn percent_comes_first() {
        let r = eval(Some(10.0), 200_000.0, Some(81.0)).unwrap();
        assert_eq!(r.source, ReadingSource::Percent);
        assert_eq!(r.action, GaugeAction::Checkpoint);
        assert_eq!(r.line.as_deref(), Some("[Context: 81% | 10/200k tokens]"));
        let r = eval(None, 200_000.0, Some(75.5)).unwrap();
        assert_eq!(r.line.as_deref(), Some("[Context: 75% | 151k/200k tokens]"));
        let r = eval(None, 200_000.0, Some(29.0)).unwrap();
        assert!((r.utilization - 0.29).abs() < 1e-12);
        assert_eq!(
            format_line(0.29, 1.0, 2.0, false),
            "[Context: 29% | 1/2 tokens]"
        );
        let r = eval(None, 128_000.0, Some(104.0)).unwrap();
        assert_eq!(
            r.line.as_deref(),
            Some("[Context: 104% | 133k/128k tokens]")
        );
    }

    #[test]
    fn unknown_and_invalid() {
        let r = eval(None, 200_000.0, None).unwrap();
        assert_eq!(
            (r.utilization, r.action, r.source),
            (0.0, GaugeAction::None, ReadingSource::Unknown)
        );
        for (t, w, p) in [
            (Some(f64::NAN), 1.0, None),
            (Some(-1.0), 1.0, None),
            (Some(1.0), 0.0, None),
            (Some(1.0), -5.0, None),
            (Some(1.0), f64::INFINITY, None),
            (None, 1.0, Some(-3.0)),
            (None, 1.0, Some(f64::NAN)),
        ] {
            let e = eval(t, w, p).unwrap_err();
            assert_eq!(
                e.code,
                context_fsio::ErrorCode::InvalidArg,
                "{t:?} {w} {p:?}"
            );
        }
        for (g, c) in [(0.9, 0.8), (0.5, 1.5), (-0.1, 0.8), (f64::NAN, 0.8)] {
            let o = GaugeOptions {
                gauge_at: g,
                checkpoint_at: c,
                checkpoint_saved: false,
            };
            let u = Usage {
                tokens: Some(1.0),
                context_window: 2.0,
                percent: None,
            };
            assert!(evaluate_context_usage(&u, &o).is_err(), "{g} {c}");
        }
        // Custom thresholds.
        let o = GaugeOptions {
            gauge_at: 0.5,
            checkpoint_at: 0.6,
            checkpoint_saved: false,
        };
        let u = Usage {
            tokens: Some(110.0),
            context_window: 200.0,
            percent: None,
        };
        assert_eq!(
            evaluate_context_usage(&u, &o).unwrap().action,
            GaugeAction::Gauge
        );
    }
}
