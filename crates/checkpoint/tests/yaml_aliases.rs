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
