//! File-system primitives shared by the checkpoint, state and observation stores: the error type
//! with stable codes, collision-free session directory names, the one way to create (exclusive,
//! no-follow, random name) and to read (regular files only, bounded, no-follow) a file in the
//! state dir, atomic durable writes and cross-process directory locks. Knows nothing of napi.

mod activity;
mod atomic;
mod error;
mod file;
mod lock;
mod paths;
mod time;

pub use activity::{
    read_record, record_activity, record_path, remove_record, SessionRecord,
    ACTIVITY_RESOLUTION_MS, RECORD_SUFFIX, SESSIONS_DIR,
};
pub use atomic::{
    atomic_write, atomic_write_with, sweep_temp_files, sync_dir, Durability, TEMP_PREFIX,
};
pub use error::{Error, ErrorCode, Result};
pub use file::{
    check_regular, create_new_private, open_regular, overwrite_in_place, random_hex, read_bounded,
    same_file,
};
pub use lock::{DirLock, LOCK_FILE};
pub use paths::{
    check_entry_name, create_dir_private, existing_session_dir, lock_existing_session,
    lock_session, session_dir, session_dir_name, state_root, state_subdir, CHECKPOINTS_DIR,
    OBSERVATIONS_DIR, SESSION_DIR_PREFIX_MAX, STATE_DIR,
};
pub use time::{
    clamp_future, is_future, now_ms, parse_rfc3339, rfc3339, CLOCK_OFFSET_ENV, FUTURE_TOLERANCE_MS,
};
