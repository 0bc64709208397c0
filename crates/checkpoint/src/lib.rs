//! Checkpoints of seed 001: schema v1 (section 5.3), the YAML writer and reader, ids, the
//! `previous_checkpoint` chain, `_latest.json`, retention, dedup, thread extraction (11.2),
//! bundling of the incremental state (section 7) and the restore text (8.2). Knows nothing of napi.

pub mod briefing;
pub mod fence;
pub mod in_context;
pub mod input;
pub mod model;
pub mod names;
pub mod redact;
pub mod render;
pub mod store;
pub mod thread;
pub mod yaml;

pub use input::{
    with_carried, with_progress, CheckpointInput, DecisionInput, FileOps, ResourcesInput,
    ThreadInput, WorkingInput,
};
pub use model::*;
pub use render::{render, Mode, RenderOptions, SavedEntry, DEFAULT_MAX_TOKENS};
pub use store::{
    checkpoint_id, newest_valid, parse_id, read_latest, write_checkpoint, WriteResult, LATEST_FILE,
    RETAIN,
};
pub use yaml::{from_yaml, to_yaml};

#[cfg(test)]
pub(crate) mod testgen;
