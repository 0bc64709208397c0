//! Property of the checkpoint YAML reader (fuzz target `checkpoint_yaml`, replayed by
//! `crates/checkpoint/tests/fuzz_corpus.rs`): any bytes either fail with `Corrupt` or give a
//! checkpoint that writes back to YAML reading back to the same checkpoint, and whose restore
//! text has exactly one fence open and one fence close, in that order.

use context_checkpoint::{from_yaml, render, to_yaml, RenderOptions};
use context_fsio::ErrorCode;

/// Positions of every `<` that opens something reading as a `checkpoint...` tag, in any case and
/// spacing (`< / Checkpoint-Data >`).
pub fn fence_like_tags(text: &str) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    for (i, c) in text.char_indices() {
        if c != '<' {
            continue;
        }
        let rest = text[i + 1..].trim_start();
        let (closing, rest) = match rest.strip_prefix('/') {
            Some(r) => (true, r.trim_start()),
            None => (false, rest),
        };
        let head: String = rest.chars().take(10).collect();
        if head.eq_ignore_ascii_case("checkpoint") {
            out.push((i, closing));
        }
    }
    out
}

pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let cp = match from_yaml(text) {
        Ok(cp) => cp,
        Err(e) => {
            assert_eq!(
                e.code,
                ErrorCode::Corrupt,
                "reader error with code {:?}",
                e.code
            );
            return;
        }
    };
    let yaml = to_yaml(&cp);
    let back = from_yaml(&yaml).unwrap_or_else(|e| {
        panic!("a checkpoint written by to_yaml does not read back: {e}\n{yaml}")
    });
    assert_eq!(back, cp, "YAML round trip changed the checkpoint:\n{yaml}");
    assert_eq!(to_yaml(&back), yaml, "to_yaml is not stable");
    match render(&cp, RenderOptions::default()) {
        Ok(restore) => {
            let tags = fence_like_tags(&restore);
            assert_eq!(
                tags.iter().map(|t| t.1).collect::<Vec<_>>(),
                vec![false, true],
                "restore text must hold exactly one fence open then one close:\n{restore}"
            );
        }
        Err(e) => assert_eq!(e.code, ErrorCode::InvalidArg, "render failed: {e}"),
    }
}
