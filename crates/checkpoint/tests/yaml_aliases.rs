//! Found by the reliability suite (issue 8): `readCheckpoint({ yaml })` on a "billion laughs"
//! document (nested aliases) never returned, because the YAML loader expands every alias into a
//! copy. Aliases are now refused as `Corrupt` before the tree is built, as is absurd nesting.

use context_checkpoint::from_yaml;
use context_fsio::ErrorCode;

#[test]
fn nested_aliases_are_refused_quickly() {
    let mut y = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 0..9u8 {
        let (name, prev) = ((b'b' + i) as char, (b'a' + i) as char);
        let items = vec![format!("*{prev}"); 9].join(", ");
        y.push_str(&format!("{name}: &{name} [{items}]\n"));
    }
    let t = std::time::Instant::now();
    let e = from_yaml(&y).unwrap_err();
    assert_eq!(e.code, ErrorCode::Corrupt);
    assert!(t.elapsed().as_secs() < 5);
}

#[test]
fn deep_nesting_is_refused() {
    let y = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(from_yaml(&y).unwrap_err().code, ErrorCode::Corrupt);
}

/// Found by the reliability suite (issue 8): a checkpoint over the reader's size limit was
/// written (and became the newest), then read back as nothing. It is now refused `TooLarge`.
#[test]
fn a_checkpoint_the_reader_would_refuse_is_not_written() {
    let root = std::env::temp_dir().join(format!("cp-too-large-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mut input = context_checkpoint::CheckpointInput::new(
        &root,
        "k",
        context_checkpoint::Trigger::Auto80Pct,
        1000,
        200_000,
    );
    context_checkpoint::write_checkpoint(&input).unwrap();
    input.input_tokens = 90_000;
    input.working.get_or_insert_with(Default::default).topic = Some("x".repeat(10 << 20));
    let e = context_checkpoint::write_checkpoint(&input).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
    let cp = context_checkpoint::read_latest(&root, "k")
        .unwrap()
        .unwrap();
    assert_eq!(cp.meta.checkpoint_id, "cp_001");
    std::fs::remove_dir_all(&root).unwrap();
}

/// The tree is built in the same pass as the alias and depth scan: a key given twice (which the
/// loader stops at) still leaves no checkpoint, and the same document without it reads.
#[test]
fn a_key_given_twice_is_refused() {
    let root = std::env::temp_dir().join(format!("cp-dup-key-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let input = context_checkpoint::CheckpointInput::new(
        &root,
        "k",
        context_checkpoint::Trigger::Auto80Pct,
        1000,
        200_000,
    );
    let w = context_checkpoint::write_checkpoint(&input).unwrap();
    let yaml = std::fs::read_to_string(&w.path).unwrap();
    assert_eq!(from_yaml(&yaml).unwrap().meta.checkpoint_id, "cp_001");
    let twice = yaml.replacen(
        "schema_version: 1\n",
        "schema_version: 1\nschema_version: 1\n",
        1,
    );
    assert_ne!(twice, yaml);
    assert_eq!(from_yaml(&twice).unwrap_err().code, ErrorCode::Corrupt);
    // nor does a valid checkpoint followed by a second document the loader stops in
    let second = format!("{yaml}---\na: 1\na: 2\n");
    assert_eq!(from_yaml(&second).unwrap_err().code, ErrorCode::Corrupt);
    assert_eq!(
        from_yaml(&format!("{yaml}---\na: 1\n")).unwrap_err().code,
        ErrorCode::Corrupt
    );
    std::fs::remove_dir_all(&root).unwrap();
}
