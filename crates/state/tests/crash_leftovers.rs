//! Found by the reliability suite (issue 8): a process SIGKILLed while writing a state file leaves
//! a `.tmp-` file in the session's state directory, and no later record call removed it. Record
//! calls now sweep them under the session lock.

use context_fsio::{session_dir_name, TEMP_PREFIX};
use std::fs;

#[test]
fn the_next_record_removes_temp_files_of_a_crashed_write() {
    let root = std::env::temp_dir().join(format!("state-crash-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let key = "agent:main:crash";
    context_state::record_open_item(&root, key, "first").unwrap();
    let dir = root
        .join("context/state")
        .join(session_dir_name(key).unwrap());
    let leftover = dir.join(format!("{TEMP_PREFIX}open_items.json-999-1"));
    fs::write(&leftover, b"{\"open_items\": [\"tor").unwrap();
    context_state::record_decision(&root, key, "use tmpfs", None).unwrap();
    assert!(
        !leftover.exists(),
        "the crashed write's temp file survived the next write"
    );
    let items = context_state::read_bundle(&root, key, None)
        .unwrap()
        .open_items;
    assert_eq!(items, vec!["first".to_string()]);
    fs::remove_dir_all(&root).unwrap();
}
