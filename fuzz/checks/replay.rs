//! Replays the seeds of a cargo-fuzz target (`fuzz/seeds/<target>/`, a few dozen inputs kept in
//! git) and, when present, the local corpus a fuzzer run grew (`fuzz/corpus/<target>/`, ignored by
//! git) through the property its fuzz target checks, so both stay regression tests under a plain
//! `cargo test`. Included with `#[path]` by the `tests/fuzz_corpus.rs` of the crates under test.

/// Feeds every file of `<manifest_dir>/../../fuzz/seeds/<target>/` and of
/// `<manifest_dir>/../../fuzz/corpus/<target>/` (if it exists) to `check` (which panics on a
/// violated property). Fails when the seeds are missing or empty.
pub fn replay(manifest_dir: &str, target: &str, check: fn(&[u8])) {
    let fuzz = std::path::Path::new(manifest_dir).join("../../fuzz");
    let seeds = fuzz.join("seeds").join(target);
    let n =
        feed(&seeds, check).unwrap_or_else(|| panic!("no seed directory at {}", seeds.display()));
    assert!(n > 0, "the seed directory {} is empty", seeds.display());
    let _ = feed(&fuzz.join("corpus").join(target), check);
}

/// Feeds the files of `dir` to `check`; how many, or `None` when `dir` cannot be read.
fn feed(dir: &std::path::Path, check: fn(&[u8])) -> Option<usize> {
    let rd = std::fs::read_dir(dir).ok()?;
    let mut n = 0;
    for e in rd.flatten() {
        let Ok(data) = std::fs::read(e.path()) else {
            continue; // removed by a running fuzzer
        };
        check(&data);
        n += 1;
    }
    Some(n)
}
