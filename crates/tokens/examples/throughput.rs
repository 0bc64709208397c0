//! `cargo run --release -p context-tokens --example throughput`: table build time, throughput on
//! the bundled transcripts and the two pathological 1 MB inputs, in Rust without the binding.

use context_tokens::{count_tokens, warmup, Encoding};
use std::time::Instant;

fn median_ms(mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut ts = Vec::new();
    let mut r = 0;
    for _ in 0..5 {
        let t = Instant::now();
        r = f();
        ts.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ts.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (ts[2], r)
}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../__test__/fixtures/transcripts");
    let mut text = String::new();
    for name in ["before-compaction.jsonl", "large-session.jsonl"] {
        text.push_str(&std::fs::read_to_string(dir.join(name)).unwrap());
    }
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        let t = Instant::now();
        warmup(enc);
        println!(
            "{}: tables built in {:.1} ms",
            enc.name(),
            t.elapsed().as_secs_f64() * 1e3
        );
        let (ms, n) = median_ms(|| count_tokens(&text, enc));
        println!(
            "  transcripts {} bytes: {ms:.1} ms ({n} tokens, {:.1} MB/s)",
            text.len(),
            text.len() as f64 / ms / 1e3
        );
        let rep = "a".repeat(1 << 20);
        let (ms, n) = median_ms(|| count_tokens(&rep, enc));
        println!("  1 MB of 'a': {ms:.1} ms ({n} tokens)");
        let b64: String = (0..1u32 << 20)
            .map(|i| {
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                    [(i.wrapping_mul(2654435761) >> 26) as usize] as char
            })
            .collect();
        let (ms, n) = median_ms(|| count_tokens(&b64, enc));
        println!("  1 MB of base64: {ms:.1} ms ({n} tokens)");
    }
}
