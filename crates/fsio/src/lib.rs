//! File-system primitives shared by the checkpoint, state and observation stores: the error type
//! with stable codes, collision-free session directory names, atomic durable writes and
//! cross-process directory locks. Knows nothing of napi.

mod atomic;
mod error;
mod lock;
mod paths;
mod time;

pub use atomic::{
    atomic_write, atomic_write_with, create_private, sweep_temp_files, sync_dir, Durability,
    TEMP_PREFIX,
};
pub use error::{Error, ErrorCode, Result};
pub use lock::{DirLock, LOCK_FILE};
pub use paths::{
    check_entry_name, create_dir_private, existing_session_dir, lock_session, session_dir,
    session_dir_name, state_root, CHECKPOINTS_DIR, OBSERVATIONS_DIR, SESSION_DIR_PREFIX_MAX,
    STATE_DIR,
};
pub use time::{now_ms, parse_rfc3339, rfc3339};
