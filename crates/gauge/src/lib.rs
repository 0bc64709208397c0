//! The token gauge of seed 001, section 6: turns the SDK's context usage into a utilization, a
//! threshold action and the one-line gauge the agent sees; and, for when the SDK has no usage
//! (right after a compaction, on resume), an incremental estimator over pi messages
//! ([`Estimator`]). Knows nothing of napi.

mod estimator;
mod reading;

pub use estimator::{
    count_message, provider_context_tokens, Estimate, Estimator, DEFAULT_CORRECTION, IMAGE_TOKENS,
    MAX_CORRECTION, MESSAGE_OVERHEAD, MIN_CORRECTION, MIN_PAIR_TOKENS, WINDOW,
};
pub use reading::{
    evaluate_context_usage, format_line, GaugeAction, GaugeOptions, GaugeReading, ReadingSource,
    Usage, DEFAULT_CHECKPOINT_AT, DEFAULT_GAUGE_AT,
};
