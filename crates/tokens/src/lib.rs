//! Exact tiktoken-compatible token counting (o200k_base, cl100k_base). Knows nothing of napi.
//!
//! Same two stages as OpenAI's tiktoken, both linear:
//! 1. pre-tokenisation with the encoding's split pattern, run by the `regex` crate (a finite
//!    automaton, linear in the input). tiktoken's pattern has one lookahead, `\s+(?!\S)`, which
//!    `regex` cannot run; it is emulated exactly by giving back the last whitespace character of a
//!    run that is followed by a non-space (see [`Pretokenizer::next_piece`]);
//! 2. byte-pair merging of each piece with the encoding's ranks. Pieces that are one token are a
//!    single hash look-up; short pieces use tiktoken's own quadratic loop (fastest when small);
//!    long pieces (1 MB of one repeated character is one piece) use a heap, O(n log n), with the
//!    same merge order (lowest rank first, leftmost on ties), so the count is identical.
//!
//! The rank tables come from tiktoken-rs at build time (see `build.rs`) and are built into hash
//! maps once per process, on first use or by [`warmup`], behind a `OnceLock` (thread-safe).

use regex_automata::meta::{Cache, Regex};
use regex_automata::Input;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::sync::{Mutex, OnceLock};

/// A BPE encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// GPT-4o / GPT-5 family (the default).
    #[default]
    O200kBase,
    /// GPT-4 / GPT-3.5 family.
    Cl100kBase,
}

impl Encoding {
    /// The tiktoken name of the encoding.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// Parses a tiktoken encoding name.
    pub fn from_name(name: &str) -> Option<Encoding> {
        match name {
            "o200k_base" => Some(Encoding::O200kBase),
            "cl100k_base" => Some(Encoding::Cl100kBase),
            _ => None,
        }
    }
}

/// o200k_base's split pattern with `\s+(?!\S)|\s+` folded into `\s+` (the lookahead is
/// emulated in code).
const O200K_PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"|\s*[\r\n]+",
    r"|\s+",
);

/// cl100k_base's split pattern: possessive quantifiers dropped (they cannot change a match of this
/// pattern), `\s+(?!\S)|\s` folded into `\s+` (emulated in code).
const CL100K_PATTERN: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)",
    r"|[^\r\n\p{L}\p{N}]?\p{L}+",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*",
    r"|\s+$",
    r"|\s*[\r\n]",
    r"|\s+",
);

static O200K_BLOB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.bin"));
static CL100K_BLOB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.bin"));

/// Pieces up to this many bytes are merged with tiktoken's simple loop; longer ones with a heap.
const HEAP_MERGE_FROM: usize = 128;

struct Tables {
    ranks: FxHashMap<&'static [u8], u32>,
    split: Regex,
    /// Search caches already warmed by [`warmup`] on a worker thread, handed to the next thread
    /// that counts, so its first count does not pay for building the automaton's states.
    spare_caches: Mutex<Vec<Cache>>,
}

/// Text that takes the split automaton through the states real text needs (letters of several
/// scripts and cases, contractions, digits, punctuation, whitespace runs, line breaks, emoji).
const WARM_TEXT: &str = "The quick brown fox, it's 2026: don't PANIC! x=42; y = [1, 2, 3]\n\
    \tfn main() { println!(\"héllo\"); }  // ok\r\n\n  Ünïcödé ÇA VA? Straße ΑΒΓ αβγ кириллица \
    日本語のテキスト 中文 한국어 العربية हिन्दी १२३ 😀👍🏽 — “quotes” ‘single’ … $100.00 50% ~/path/to/file.rs \
    https://example.com/a?b=c&d=e#f {\"json\": true, \"n\": null}   \u{3000}end.\n";

/// Every pair of printable ASCII characters (and tab, newline, space), each pair followed by a
/// space or a line break: the byte transitions ordinary text takes, about 40 KB.
fn ascii_pairs() -> String {
    let chars: Vec<char> = (b' '..=b'~').map(char::from).chain(['\t', '\n']).collect();
    let mut out = String::with_capacity(chars.len() * chars.len() * 4);
    for (i, &a) in chars.iter().enumerate() {
        for &b in &chars {
            out.push(a);
            out.push(b);
            out.push(if i % 2 == 0 { ' ' } else { '\n' });
        }
    }
    out
}

thread_local! {
    /// Per thread, the search cache of each encoding (the automaton's lazily built states live
    /// there). Index 0: o200k_base, 1: cl100k_base.
    static CACHES: RefCell<[Option<Cache>; 2]> = const { RefCell::new([None, None]) };
}

static O200K: OnceLock<Tables> = OnceLock::new();
static CL100K: OnceLock<Tables> = OnceLock::new();

fn tables(encoding: Encoding) -> &'static Tables {
    match encoding {
        Encoding::O200kBase => O200K.get_or_init(|| Tables::load(O200K_BLOB, O200K_PATTERN)),
        Encoding::Cl100kBase => CL100K.get_or_init(|| Tables::load(CL100K_BLOB, CL100K_PATTERN)),
    }
}

impl Tables {
    fn load(blob: &'static [u8], pattern: &str) -> Tables {
        let count = u32::from_le_bytes(blob[..4].try_into().expect("blob header")) as usize;
        let mut ranks = FxHashMap::with_capacity_and_hasher(count, Default::default());
        let mut at = 4;
        for rank in 0..count as u32 {
            let len = blob[at] as usize;
            at += 1;
            if len > 0 {
                ranks.insert(&blob[at..at + len], rank);
                at += len;
            }
        }
        let split = Regex::new(pattern).expect("split pattern compiles");
        Tables {
            ranks,
            split,
            spare_caches: Mutex::new(Vec::new()),
        }
    }

    fn new_cache(&self) -> Cache {
        let spare = self.spare_caches.lock().ok().and_then(|mut v| v.pop());
        spare.unwrap_or_else(|| self.split.create_cache())
    }

    #[inline]
    fn rank(&self, bytes: &[u8]) -> u32 {
        self.ranks.get(bytes).copied().unwrap_or(u32::MAX)
    }

    fn count_with(&self, text: &str, cache: &mut Cache) -> usize {
        let mut total = 0;
        let mut pre = Pretokenizer {
            text,
            pos: 0,
            split: &self.split,
            cache,
        };
        while let Some(piece) = pre.next_piece() {
            total += self.count_piece(piece.as_bytes());
        }
        total
    }

    #[inline]
    fn count_piece(&self, piece: &[u8]) -> usize {
        if piece.len() == 1 || self.ranks.contains_key(piece) {
            return 1;
        }
        if piece.len() <= HEAP_MERGE_FROM {
            self.merge_small(piece)
        } else {
            self.merge_large(piece)
        }
    }

    /// tiktoken's `_byte_pair_merge`, returning only the number of parts.
    fn merge_small(&self, piece: &[u8]) -> usize {
        // (start, rank of merging this part with the next)
        let mut parts: Vec<(usize, u32)> = Vec::with_capacity(piece.len() + 1);
        for i in 0..piece.len() - 1 {
            parts.push((i, self.rank(&piece[i..i + 2])));
        }
        parts.push((piece.len() - 1, u32::MAX));
        parts.push((piece.len(), u32::MAX));
        loop {
            let mut min = (u32::MAX, usize::MAX);
            for (i, &(_, r)) in parts[..parts.len() - 1].iter().enumerate() {
                if r < min.0 {
                    min = (r, i);
                }
            }
            if min.0 == u32::MAX {
                break;
            }
            let i = min.1;
            let rank_at = |parts: &Vec<(usize, u32)>, i: usize| {
                if i + 3 < parts.len() {
                    self.rank(&piece[parts[i].0..parts[i + 3].0])
                } else {
                    u32::MAX
                }
            };
            parts[i].1 = rank_at(&parts, i);
            if i > 0 {
                parts[i - 1].1 = rank_at(&parts, i - 1);
            }
            parts.remove(i + 1);
        }
        parts.len() - 1
    }

    /// The same merge order (lowest rank first, leftmost on ties) for long pieces, in
    /// O(n log n): a linked list of parts and a [`MergeQueue`].
    fn merge_large(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        assert!(n < (u32::MAX - 2) as usize, "piece too long");
        const NONE: u32 = u32::MAX;
        // Part i starts at byte i; next/prev link live parts; rank[i] is the rank of merging part
        // i with its next part (NONE if impossible); a dead part has rank DEAD.
        const DEAD: u32 = u32::MAX - 1;
        let n32 = n as u32;
        let mut next: Vec<u32> = (1..=n32).collect();
        let mut prev: Vec<u32> = (0..n32).map(|i| i.wrapping_sub(1)).collect();
        let mut rank: Vec<u32> = Vec::with_capacity(n);
        let mut queue = MergeQueue::default();
        for i in 0..n - 1 {
            let r = self.rank(&piece[i..i + 2]);
            rank.push(r);
            if r != NONE {
                queue.push(r, i as u32);
            }
        }
        rank.push(NONE);
        let mut parts = n;
        let pair_rank = |next: &[u32], j: u32| -> u32 {
            let k = next[j as usize];
            if k >= n32 {
                NONE
            } else {
                self.rank(&piece[j as usize..next[k as usize] as usize])
            }
        };
        while let Some((r, i)) = queue.pop() {
            if rank[i as usize] != r {
                continue; // stale: the part died or its rank changed since this was pushed
            }
            let j = next[i as usize];
            rank[j as usize] = DEAD;
            let after = next[j as usize];
            next[i as usize] = after;
            if after < n32 {
                prev[after as usize] = i;
            }
            parts -= 1;
            let ri = pair_rank(&next, i);
            rank[i as usize] = ri;
            if ri != NONE {
                queue.push(ri, i);
            }
            let p = prev[i as usize];
            if p < n32 {
                let rp = pair_rank(&next, p);
                if rp != rank[p as usize] {
                    rank[p as usize] = rp;
                    if rp != NONE {
                        queue.push(rp, p);
                    }
                }
            }
        }
        parts
    }
}

/// A priority queue of (rank, position), popping the lowest rank, leftmost first.
///
/// Ranks are few and positions mostly arrive in ascending order (merges sweep left to right), so
/// each rank keeps a sorted deque for in-order pushes and a small heap for the rest; the lowest
/// rank is found in a `BTreeMap`. Memory access stays sequential, unlike one big binary heap.
#[derive(Default)]
struct MergeQueue {
    by_rank: BTreeMap<u32, RankQueue>,
}

#[derive(Default)]
struct RankQueue {
    sorted: VecDeque<u32>,
    heap: BinaryHeap<Reverse<u32>>,
}

impl MergeQueue {
    fn push(&mut self, rank: u32, pos: u32) {
        let q = self.by_rank.entry(rank).or_default();
        match q.sorted.back() {
            Some(&last) if last >= pos => q.heap.push(Reverse(pos)),
            _ => q.sorted.push_back(pos),
        }
    }

    fn pop(&mut self) -> Option<(u32, u32)> {
        let mut entry = self.by_rank.first_entry()?;
        let rank = *entry.key();
        let q = entry.get_mut();
        let from_heap = match (q.sorted.front(), q.heap.peek()) {
            (Some(&a), Some(&Reverse(b))) => b < a,
            (None, Some(_)) => true,
            _ => false,
        };
        let pos = if from_heap {
            q.heap.pop().map(|Reverse(p)| p)
        } else {
            q.sorted.pop_front()
        }
        .expect("a rank queue in the map is never empty");
        if q.sorted.is_empty() && q.heap.is_empty() {
            entry.remove();
        }
        Some((rank, pos))
    }
}

/// Splits text into pieces exactly as tiktoken's split pattern does.
struct Pretokenizer<'t> {
    text: &'t str,
    pos: usize,
    split: &'t Regex,
    cache: &'t mut Cache,
}

impl<'t> Pretokenizer<'t> {
    #[inline]
    fn next_piece(&mut self) -> Option<&'t str> {
        if self.pos >= self.text.len() {
            return None;
        }
        let input = Input::new(self.text).range(self.pos..);
        let m = self.split.search_with(self.cache, &input)?;
        let (start, mut end) = (m.start(), m.end());
        debug_assert_eq!(start, self.pos, "the split pattern covers every character");
        let piece = &self.text[start..end];
        // Emulate `\s+(?!\S)`: a whitespace run (no line break in it, or an earlier alternative
        // would have matched) followed by a non-space gives its last character to the next piece,
        // unless the run is a single character.
        if end < self.text.len() {
            let mut chars = piece.chars();
            if let Some(last) = chars.next_back() {
                if last.is_whitespace()
                    && last != '\n'
                    && last != '\r'
                    && chars.clone().next().is_some()
                    && piece.chars().all(char::is_whitespace)
                {
                    end -= last.len_utf8();
                }
            }
        }
        self.pos = end;
        Some(&self.text[start..end])
    }
}

/// Counts tokens of `text` as ordinary text (special-token strings count as plain text), exactly
/// as tiktoken's `encode_ordinary(text).len()`.
pub fn count_tokens(text: &str, encoding: Encoding) -> usize {
    if text.is_empty() {
        return 0;
    }
    let t = tables(encoding);
    CACHES.with(|caches| match caches.try_borrow_mut() {
        Ok(mut caches) => {
            let cache = caches[encoding as usize].get_or_insert_with(|| t.new_cache());
            t.count_with(text, cache)
        }
        // Re-entered on this thread (not possible today): use a fresh cache.
        Err(_) => t.count_with(text, &mut t.split.create_cache()),
    })
}

/// Builds the tables of `encoding` now (idempotent, thread-safe; at most once per process), and
/// leaves one warmed search cache for the next thread that counts, so that its first count costs
/// what later ones do. Meant to run off the main thread.
pub fn warmup(encoding: Encoding) {
    let t = tables(encoding);
    let mut cache = t.split.create_cache();
    t.count_with(WARM_TEXT, &mut cache);
    t.count_with(&ascii_pairs(), &mut cache);
    if let Ok(mut spare) = t.spare_caches.lock() {
        if spare.len() < 4 {
            spare.push(cache);
        }
    }
}

/// Whether the tables of `encoding` are already built (for tests and diagnostics).
pub fn is_warm(encoding: Encoding) -> bool {
    match encoding {
        Encoding::O200kBase => O200K.get().is_some(),
        Encoding::Cl100kBase => CL100K.get().is_some(),
    }
}

/// Counts drafts of one document that share most of their lines (a restore text trimmed step by
/// step, a scratchpad block after one change) without recounting the shared lines.
///
/// Exact: a text is cut only where a line break is followed by a character that is neither
/// white space nor `/`. No piece of either split pattern crosses such a point (pieces that hold a
/// line break end with line breaks or, in o200k, `/`), and nothing in the patterns looks back, so
/// the count of the text is the sum of the counts of its chunks. Each distinct chunk is counted
/// once and remembered.
pub struct ChunkCounter {
    encoding: Encoding,
    memo: FxHashMap<String, usize>,
}

impl ChunkCounter {
    /// A counter with an empty memory.
    pub fn new(encoding: Encoding) -> ChunkCounter {
        ChunkCounter {
            encoding,
            memo: FxHashMap::default(),
        }
    }

    /// Exactly `count_tokens(text, encoding)`.
    pub fn count(&mut self, text: &str) -> usize {
        chunks(text)
            .map(|chunk| match self.memo.get(chunk) {
                Some(&n) => n,
                None => {
                    let n = count_tokens(chunk, self.encoding);
                    self.memo.insert(chunk.to_owned(), n);
                    n
                }
            })
            .sum()
    }
}

/// Whether a chunk may end before `next`, the character after a line break (see [`ChunkCounter`]).
fn starts_chunk(next: char) -> bool {
    !next.is_whitespace() && next != '/'
}

/// Splits `text` after each line break that is followed by a character other than white space
/// and `/` (see [`ChunkCounter`]).
pub fn chunks(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        while let Some(off) = bytes[at..].iter().position(|&b| b == b'\n') {
            let cut = at + off + 1;
            at = cut;
            if text[cut..].chars().next().is_some_and(starts_chunk) {
                let chunk = &text[start..cut];
                start = cut;
                return Some(chunk);
            }
        }
        let chunk = &text[start..];
        start = text.len();
        Some(chunk)
    })
}

#[cfg(test)]
mod tests;
