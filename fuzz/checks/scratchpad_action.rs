//! Property of the scratchpad action decoding (fuzz target `scratchpad_action`, replayed by
//! `crates/scratchpad/tests/fuzz_corpus.rs`): every line of the input that is JSON is applied as
//! a `session.scratchpad` call to one scratchpad with small limits. No call panics; a rejected
//! call (`ok: false`) changes nothing and persists nothing; the usage never exceeds the limits;
//! and the rendered block opens with its header, ends with `[End Scratchpad]`, and no content
//! line reads as a marker (so content cannot close the block early or fake a section).

use context_scratchpad::{parse_call, Limits, Scratchpad, BLOCK_CLOSE, BLOCK_OPEN};
use serde_json::Value;

const MARKERS: [&str; 5] = [
    "[end scratchpad",
    "[session scratchpad",
    "[notes:",
    "[plan:",
    "[refs:",
];

fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

fn marker_of(line: &str) -> Option<&'static str> {
    let t = line.trim_start().to_ascii_lowercase();
    MARKERS.iter().copied().find(|m| t.starts_with(m))
}

pub fn check_block(block: &str) {
    let lines: Vec<&str> = block.split(is_line_break).collect();
    assert!(
        lines[0].starts_with(BLOCK_OPEN),
        "block must open with the header:\n{block}"
    );
    assert_eq!(
        lines.last().copied(),
        Some(BLOCK_CLOSE),
        "block must end with the close marker:\n{block}"
    );
    let mut labels = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match marker_of(line) {
            Some("[session scratchpad") => {
                assert_eq!(i, 0, "a second header at line {i}:\n{block}")
            }
            Some("[end scratchpad") => {
                assert_eq!(
                    i,
                    lines.len() - 1,
                    "content closed the block at line {i}:\n{block}"
                )
            }
            Some(label) => labels.push(label),
            None => {}
        }
    }
    let mut dedup = labels.clone();
    dedup.dedup();
    assert_eq!(
        labels, dedup,
        "a section label repeats (faked by content):\n{block}"
    );
    assert!(labels.len() <= 3);
}

pub fn check(data: &[u8]) {
    let limits =
        Limits::from_options(Some(200), Some(100), Some(4), Some(300)).expect("valid limits");
    let mut pad = Scratchpad::new();
    pad.set_limits(limits);
    for line in data.split(|&b| b == b'\n') {
        let Ok(call) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let parsed = parse_call(&call);
        let before = (
            pad.notes().to_string(),
            pad.plan().to_string(),
            pad.refs().to_vec(),
            pad.usage(),
        );
        let out = pad.apply(&call, None);
        if parsed.is_err() {
            assert!(!out.ok, "an unparsable call was accepted: {call}");
        }
        if !out.ok {
            assert!(out.persist.is_empty(), "a rejected call persisted entries");
            let after = (
                pad.notes().to_string(),
                pad.plan().to_string(),
                pad.refs().to_vec(),
                pad.usage(),
            );
            assert_eq!(
                before, after,
                "a rejected call changed the scratchpad: {call}"
            );
        }
        let u = pad.usage();
        assert!(
            u.notes_chars <= 200 && u.plan_chars <= 100 && u.refs <= 4,
            "over a limit: {u:?}"
        );
        assert!(u.tokens <= 300, "over the token budget: {u:?}");
        match pad.content() {
            Some(block) => check_block(&block),
            None => assert!(pad.is_empty()),
        }
    }
}
