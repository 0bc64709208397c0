//! Extracts the BPE rank tables from tiktoken-rs (the reference) into a compact blob that the
//! crate embeds: `u32 count`, then per rank in order `u8 len` + bytes (len 0 = unused rank).
//! Loading that blob at run time is a single pass, much cheaper than parsing base64 `.tiktoken`.

use std::io::Write;

fn dump(name: &str, bpe: &tiktoken_rs::CoreBPE, max_rank: u32) {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join(name);
    let mut blob = Vec::with_capacity(2_000_000);
    blob.extend_from_slice(&max_rank.to_le_bytes());
    for rank in 0..max_rank {
        match bpe.decode_bytes(&[rank]) {
            Ok(bytes) => {
                let len = u8::try_from(bytes.len()).expect("token longer than 255 bytes");
                blob.push(len);
                blob.extend_from_slice(&bytes);
            }
            Err(_) => blob.push(0),
        }
    }
    std::fs::File::create(out)
        .unwrap()
        .write_all(&blob)
        .unwrap();
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // Ordinary ranks only: specials (199999+, 100257+) count as plain text by design.
    dump(
        "o200k_base.bin",
        &tiktoken_rs::o200k_base().unwrap(),
        199_998,
    );
    dump(
        "cl100k_base.bin",
        &tiktoken_rs::cl100k_base().unwrap(),
        100_256,
    );
}
