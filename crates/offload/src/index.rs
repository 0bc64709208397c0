//! The sparse index written beside every text entry, so a read costs in proportion to its slice:
//! the byte offset of every `CHAR_STEP`-th character and the (byte, character) offset of every
//! `LINE_STEP`-th line start. Fixed-width records: a lookup is one `pread` of 8 or 16 bytes plus a
//! scan of at most one step of the content.
//!
//! Layout (little-endian): magic `OCXIDX1\0`, `u32` char step, `u32` line step, `u64` number of
//! char marks, `u64` number of line marks, then the char marks (`u64` byte offset each, mark `k` for
//! character `k * CHAR_STEP`), then the line marks (`u64` byte, `u64` char; mark `k` for line
//! `1 + k * LINE_STEP`).

use context_fsio::{Error, Result};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// Characters between two char marks (a range lookup scans at most this many characters).
pub const CHAR_STEP: u64 = 4096;
/// Lines between two line marks (a `lines` lookup scans at most this many lines).
pub const LINE_STEP: u64 = 256;
const MAGIC: &[u8; 8] = b"OCXIDX1\0";
const HEADER: u64 = 32;
const SCAN_CHUNK: usize = 64 * 1024;

/// Whether `b` starts a UTF-8 character (is not a continuation byte).
#[inline]
pub fn is_char_start(b: u8) -> bool {
    (b as i8) >= -0x40
}

/// The number of UTF-8 characters in `bytes` (valid UTF-8 assumed).
pub fn count_chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| is_char_start(b)).count() as u64
}

/// Totals and marks of one text entry, computed in one pass over its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextIndex {
    pub chars: u64,
    pub lines: u64,
    pub char_marks: Vec<u64>,
    pub line_marks: Vec<(u64, u64)>,
}

impl TextIndex {
    /// Indexes valid UTF-8 `bytes`.
    pub fn build(bytes: &[u8]) -> TextIndex {
        let mut char_marks = Vec::with_capacity(bytes.len() / CHAR_STEP as usize + 1);
        let mut chars = 0u64;
        let mut next_mark = 0u64;
        let mut pos = 0u64;
        // A 4,096-byte block holds at most 4,096 characters, so at most one mark: find its
        // 64-byte sub-block by counting, then its byte.
        for block in bytes.chunks(4096) {
            let c = count_chars(block);
            if chars + c > next_mark {
                let mut cc = chars;
                let mut base = 0usize;
                for sub in block.chunks(64) {
                    let sc = count_chars(sub);
                    if cc + sc > next_mark {
                        for (j, &b) in sub.iter().enumerate() {
                            if is_char_start(b) {
                                if cc == next_mark {
                                    char_marks.push(pos + (base + j) as u64);
                                    next_mark += CHAR_STEP;
                                    break;
                                }
                                cc += 1;
                            }
                        }
                        break;
                    }
                    cc += sc;
                    base += sub.len();
                }
            }
            chars += c;
            pos += block.len() as u64;
        }
        let mut line_marks = vec![(0u64, 0u64)];
        let mut newlines = 0u64;
        let (mut last, mut chars_at_last) = (0usize, 0u64);
        for p in memchr::memchr_iter(b'\n', bytes) {
            newlines += 1;
            if newlines.is_multiple_of(LINE_STEP) {
                chars_at_last += count_chars(&bytes[last..p + 1]);
                last = p + 1;
                line_marks.push((last as u64, chars_at_last));
            }
        }
        let lines = newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'));
        TextIndex {
            chars,
            lines,
            char_marks,
            line_marks,
        }
    }

    /// Serialises the index (see the module docs for the layout).
    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        let mut buf = Vec::with_capacity(
            HEADER as usize + self.char_marks.len() * 8 + self.line_marks.len() * 16,
        );
        buf.extend_from_slice(MAGIC);
        buf.extend_from_slice(&(CHAR_STEP as u32).to_le_bytes());
        buf.extend_from_slice(&(LINE_STEP as u32).to_le_bytes());
        buf.extend_from_slice(&(self.char_marks.len() as u64).to_le_bytes());
        buf.extend_from_slice(&(self.line_marks.len() as u64).to_le_bytes());
        for m in &self.char_marks {
            buf.extend_from_slice(&m.to_le_bytes());
        }
        for (b, c) in &self.line_marks {
            buf.extend_from_slice(&b.to_le_bytes());
            buf.extend_from_slice(&c.to_le_bytes());
        }
        w.write_all(&buf)
    }
}

/// An open index file: lookups read single records, never the whole index.
pub struct IndexReader {
    file: File,
    char_step: u64,
    line_step: u64,
    n_char: u64,
    n_line: u64,
    what: String,
}

fn corrupt(what: &str, detail: &str) -> Error {
    Error::corrupt(format!(
        "observation index {what} is damaged ({detail}); delete the entry and store it again"
    ))
}

fn read_u64s<const N: usize>(f: &mut File, at: u64, what: &str) -> Result<[u64; N]> {
    let mut buf = [0u8; 16];
    f.seek(SeekFrom::Start(at))
        .and_then(|_| f.read_exact(&mut buf[..N * 8]))
        .map_err(|e| Error::io(format!("reading {what}"), e))?;
    let mut out = [0u64; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u64::from_le_bytes(buf[i * 8..i * 8 + 8].try_into().unwrap());
    }
    Ok(out)
}

impl IndexReader {
    /// Opens and checks the header of an index file.
    pub fn open(mut file: File, what: String) -> Result<IndexReader> {
        let mut h = [0u8; HEADER as usize];
        file.read_exact(&mut h)
            .map_err(|_| corrupt(&what, "short header"))?;
        if &h[..8] != MAGIC {
            return Err(corrupt(&what, "bad magic"));
        }
        let char_step = u32::from_le_bytes(h[8..12].try_into().unwrap()) as u64;
        let line_step = u32::from_le_bytes(h[12..16].try_into().unwrap()) as u64;
        let n_char = u64::from_le_bytes(h[16..24].try_into().unwrap());
        let n_line = u64::from_le_bytes(h[24..32].try_into().unwrap());
        if char_step == 0 || line_step == 0 || n_line == 0 {
            return Err(corrupt(&what, "bad header"));
        }
        Ok(IndexReader {
            file,
            char_step,
            line_step,
            n_char,
            n_line,
            what,
        })
    }

    /// The byte offset of character `c` (`c < chars`) in `data`.
    pub fn char_to_byte(&mut self, data: &mut File, c: u64) -> Result<u64> {
        let k = c / self.char_step;
        if k >= self.n_char {
            return Err(corrupt(&self.what, "char mark out of range"));
        }
        let [b0] = read_u64s::<1>(&mut self.file, HEADER + 8 * k, &self.what)?;
        let skip = c - k * self.char_step;
        if skip == 0 {
            return Ok(b0);
        }
        // `skip` characters take at most 4 bytes each.
        let mut buf = vec![0u8; (skip as usize) * 4 + 1];
        let got = read_at_most(data, b0, &mut buf, &self.what)?;
        let mut seen = 0u64;
        for (j, &b) in buf[..got].iter().enumerate() {
            if is_char_start(b) {
                if seen == skip {
                    return Ok(b0 + j as u64);
                }
                seen += 1;
            }
        }
        Ok(b0 + got as u64)
    }

    /// The (byte, char) offsets of the start of 1-based `line` (`line <= lines`).
    pub fn line_start(&mut self, data: &mut File, line: u64) -> Result<(u64, u64)> {
        let k = ((line - 1) / self.line_step).min(self.n_line - 1);
        let [b0, c0] = read_u64s::<2>(
            &mut self.file,
            HEADER + 8 * self.n_char + 16 * k,
            &self.what,
        )?;
        let mut to_skip = (line - 1) - k * self.line_step;
        if to_skip == 0 {
            return Ok((b0, c0));
        }
        data.seek(SeekFrom::Start(b0))
            .map_err(|e| Error::io(format!("reading {}", self.what), e))?;
        let (mut pos, mut chars) = (b0, c0);
        let mut buf = vec![0u8; SCAN_CHUNK];
        loop {
            let got = read_some(data, &mut buf, &self.what)?;
            if got == 0 {
                return Ok((pos, chars));
            }
            let chunk = &buf[..got];
            for p in memchr::memchr_iter(b'\n', chunk) {
                to_skip -= 1;
                if to_skip == 0 {
                    chars += count_chars(&chunk[..p + 1]);
                    return Ok((pos + p as u64 + 1, chars));
                }
            }
            chars += count_chars(chunk);
            pos += got as u64;
        }
    }
}

/// Reads into `buf` from `at` until it is full or the file ends; returns the bytes read.
pub fn read_at_most(f: &mut File, at: u64, buf: &mut [u8], what: &str) -> Result<usize> {
    f.seek(SeekFrom::Start(at))
        .map_err(|e| Error::io(format!("reading {what}"), e))?;
    let mut got = 0;
    while got < buf.len() {
        let n = read_some(f, &mut buf[got..], what)?;
        if n == 0 {
            break;
        }
        got += n;
    }
    Ok(got)
}

/// One `read`, retrying on `Interrupted`.
pub fn read_some(f: &mut File, buf: &mut [u8], what: &str) -> Result<usize> {
    loop {
        match f.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(format!("reading {what}"), e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(text: &str) -> TextIndex {
        let mut char_marks = vec![];
        let mut line_marks = vec![(0, 0)];
        let mut line = 1u64;
        for (c, (b, ch)) in text.char_indices().enumerate() {
            if (c as u64).is_multiple_of(CHAR_STEP) {
                char_marks.push(b as u64);
            }
            if ch == '\n' {
                line += 1;
                if (line - 1).is_multiple_of(LINE_STEP) {
                    line_marks.push(((b + 1) as u64, c as u64 + 1));
                }
            }
        }
        let lines = text.lines().count() as u64;
        TextIndex {
            chars: text.chars().count() as u64,
            lines,
            char_marks,
            line_marks,
        }
    }

    #[test]
    fn fast_index_matches_a_naive_one() {
        let mut s = String::new();
        for i in 0..20_000 {
            s.push_str(&format!("line {i} é日本🎉{}\n", "x".repeat(i % 7)));
            if i % 3 == 0 {
                s.push_str("no newline yet ");
            }
        }
        s.push_str("last line without newline ü");
        assert_eq!(TextIndex::build(s.as_bytes()), naive(&s));
        assert_eq!(TextIndex::build(b"").lines, 0);
        assert_eq!(TextIndex::build(b"a\n").lines, 1);
        assert_eq!(TextIndex::build(b"a\nb").lines, 2);
        assert_eq!(TextIndex::build(b"\n\n").lines, 2);
    }
}
