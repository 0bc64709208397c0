//! The read modes of `scratchpad_read` (seeds 003 and 004): head, tail, range, full, lines, grep.
//! Each costs in proportion to its slice: offsets go through the sparse index, grep streams.

use crate::index::{count_chars, is_char_start, read_at_most, read_some, IndexReader};
use crate::observation::{hex, Kind};
use crate::store::{Entry, Session};
use context_fsio::{open_regular, Error, ErrorCode, Result};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};

/// Characters (bytes for binary) returned by `head` / `tail` without `n`, and by `range` without `end`.
pub const DEFAULT_N: u64 = 2000;
/// Most characters one read returns (and the largest entry `full` accepts), unless `max_chars` says otherwise.
pub const DEFAULT_MAX_CHARS: u64 = 50_000;
/// Most matching lines one grep returns.
pub const MAX_GREP_MATCHES: u64 = 100;
/// Most context lines around a grep match.
pub const MAX_GREP_CONTEXT: u64 = 50;
const CHUNK: usize = 64 * 1024;

/// A read mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The first `n` characters.
    Head,
    /// The last `n` characters.
    Tail,
    /// Characters `[start, end)`.
    Range,
    /// Everything (refused above `max_chars`).
    Full,
    /// Lines `start..=end` (1-based).
    Lines,
    /// Lines matching a regex, with their line numbers.
    Grep,
}

impl Mode {
    /// Parses `head` / `tail` / `range` / `full` / `lines` / `grep`.
    pub fn parse(s: &str) -> Result<Mode> {
        Ok(match s {
            "head" => Mode::Head,
            "tail" => Mode::Tail,
            "range" => Mode::Range,
            "full" => Mode::Full,
            "lines" => Mode::Lines,
            "grep" => Mode::Grep,
            other => {
                return Err(Error::invalid_arg(format!(
                    "mode must be 'head', 'tail', 'range', 'full', 'lines' or 'grep', got {other:?}"
                )))
            }
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Head => "head",
            Mode::Tail => "tail",
            Mode::Range => "range",
            Mode::Full => "full",
            Mode::Lines => "lines",
            Mode::Grep => "grep",
        }
    }
}

/// A read's `(mode, start, end, n)` once seed 004's `offset` / `limit` / `regex` are resolved.
pub type Resolved = (Mode, Option<u64>, Option<u64>, Option<u64>);

/// Seed 004's `limit`: characters a read by `offset` returns without one.
pub const DEFAULT_LIMIT: u64 = 30_000;

/// The mode, first character and end of a read given in seed 004's terms as well as seed 003's:
/// without a `mode`, a `pattern` (the tool's `regex`) means `grep`, an `offset` or a `limit` means
/// `range` over `[offset, offset + limit)` (`limit` 30,000), and nothing means `head`. With a mode,
/// `offset` stands for `start` and `limit` for the slice's length (`end = start + limit` for
/// `range`, `n` for head / tail / grep) where those are not given.
pub fn resolve_mode(
    mode: Option<&str>,
    pattern: bool,
    start: Option<u64>,
    end: Option<u64>,
    n: Option<u64>,
    offset: Option<u64>,
    limit: Option<u64>,
) -> Result<Resolved> {
    let mode = match mode {
        Some(m) => Mode::parse(m)?,
        None if pattern => Mode::Grep,
        None if offset.is_some() || limit.is_some() => Mode::Range,
        None => Mode::Head,
    };
    let start = start.or(offset);
    Ok(match mode {
        Mode::Range => {
            let end = end.or_else(|| {
                (offset.is_some() || limit.is_some()).then(|| {
                    start
                        .unwrap_or(0)
                        .saturating_add(limit.unwrap_or(DEFAULT_LIMIT))
                })
            });
            (mode, start, end, n)
        }
        _ => (mode, start, end, n.or(limit)),
    })
}

/// What to read and how.
#[derive(Debug, Clone)]
pub struct ReadRequest {
    pub id: Option<String>,
    pub name: Option<String>,
    /// Only an entry of this turn is found.
    pub turn_id: Option<String>,
    pub mode: Mode,
    /// head / tail: how many characters ([`DEFAULT_N`]); grep: most matching lines (100).
    pub n: Option<u64>,
    /// range: first character (0); lines: first line (1).
    pub start: Option<u64>,
    /// range: character after the last (`start + n`); lines: last line, inclusive (the last line).
    pub end: Option<u64>,
    /// grep: the regex.
    pub pattern: Option<String>,
    /// grep: lines of context before and after each match (0).
    pub context: Option<u64>,
    /// Most characters returned ([`DEFAULT_MAX_CHARS`]); `full` refuses larger entries.
    pub max_chars: Option<u64>,
}

impl ReadRequest {
    /// A head read of the entry named by `id` (an id or a name).
    pub fn new(id: &str, mode: Mode) -> ReadRequest {
        ReadRequest {
            id: Some(id.to_string()),
            name: None,
            turn_id: None,
            mode,
            n: None,
            start: None,
            end: None,
            pattern: None,
            context: None,
            max_chars: None,
        }
    }
}

/// The slice read and where it sits in the entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOutcome {
    pub entry: Entry,
    pub mode: Mode,
    /// The text read; hex for binary entries; grep: `N:line` for matches, `N-line` for context,
    /// `--` between groups.
    pub content: String,
    /// `utf-8` or `hex`.
    pub encoding: &'static str,
    /// First offset returned (characters, or bytes for binary); not set for grep.
    pub start: Option<u64>,
    /// Offset after the last one returned; not set for grep.
    pub end: Option<u64>,
    /// lines: the first and last line returned.
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
    /// grep: matching lines returned.
    pub matches: Option<u64>,
    /// The slice was cut at `max_chars`, or grep stopped at its match limit with more to find.
    pub truncated: bool,
}

/// A content or index file that cannot be opened: `Corrupt` when missing (the entry is
/// damaged), the refusal itself (`UnsafeFile`: a link or special file, never read) otherwise.
fn missing(err: Error, what: &str, e: &Entry) -> Error {
    if err.code == ErrorCode::NotFound {
        Error::corrupt(format!(
            "the {what} of observation entry {:?} is missing ({}); delete the entry",
            e.name, err.message
        ))
    } else {
        err
    }
}

/// Opens an entry's content file: no link followed, regular files only, size as catalogued.
fn open_data(s: &Session, e: &Entry) -> Result<File> {
    let path = s.data_path(e);
    let (f, m) = open_regular(&path).map_err(|err| missing(err, "content", e))?;
    let len = m.len();
    if len != e.size_bytes {
        return Err(Error::corrupt(format!(
            "the content of observation entry {:?} has {len} bytes, the catalog says {}; delete the entry",
            e.name, e.size_bytes
        )));
    }
    Ok(f)
}

fn open_index(s: &Session, e: &Entry) -> Result<IndexReader> {
    let path = s.index_path(e);
    let (f, _) = open_regular(&path).map_err(|err| missing(err, "index", e))?;
    IndexReader::open(f, path.display().to_string())
}

fn read_bytes(data: &mut File, from: u64, to: u64, e: &Entry) -> Result<Vec<u8>> {
    let mut buf = vec![0u8; (to - from) as usize];
    let got = read_at_most(data, from, &mut buf, &e.name)?;
    if got != buf.len() {
        return Err(Error::corrupt(format!(
            "observation entry {:?} is shorter than its catalog says",
            e.name
        )));
    }
    Ok(buf)
}

fn utf8(bytes: Vec<u8>, e: &Entry) -> Result<String> {
    String::from_utf8(bytes).map_err(|_| {
        Error::corrupt(format!(
            "observation entry {:?} is not valid UTF-8 where its index says it is",
            e.name
        ))
    })
}

/// Reads characters (bytes for binary) `[start, end)` of an entry, both already clamped.
fn slice(s: &Session, e: &Entry, start: u64, end: u64) -> Result<String> {
    if start >= end {
        return Ok(String::new());
    }
    let mut data = open_data(s, e)?;
    match e.kind {
        Kind::Binary => Ok(hex(&read_bytes(&mut data, start, end, e)?)),
        Kind::Text => {
            let mut idx = open_index(s, e)?;
            let bs = idx.char_to_byte(&mut data, start)?;
            let be = if end >= e.chars {
                e.size_bytes
            } else {
                idx.char_to_byte(&mut data, end)?
            };
            utf8(read_bytes(&mut data, bs, be, e)?, e)
        }
    }
}

/// The whole content of an entry as bytes (for reference expansion and edits).
pub fn read_all(s: &Session, e: &Entry) -> Result<Vec<u8>> {
    let mut data = open_data(s, e)?;
    read_bytes(&mut data, 0, e.size_bytes, e)
}

/// Runs one read of entry `e` of session `s`.
pub fn read_entry(s: &Session, e: &Entry, req: &ReadRequest) -> Result<ReadOutcome> {
    let max = req.max_chars.unwrap_or(DEFAULT_MAX_CHARS);
    let total = e.chars;
    let mut out = ReadOutcome {
        entry: e.clone(),
        mode: req.mode,
        content: String::new(),
        encoding: match e.kind {
            Kind::Text => "utf-8",
            Kind::Binary => "hex",
        },
        start: None,
        end: None,
        start_line: None,
        end_line: None,
        matches: None,
        truncated: false,
    };
    let n = req.n.unwrap_or(DEFAULT_N);
    let (start, end) = match req.mode {
        Mode::Head => (0, n.min(total)),
        Mode::Tail => (total.saturating_sub(n), total),
        Mode::Range => {
            let start = req.start.unwrap_or(0);
            let end = req.end.unwrap_or(start.saturating_add(n));
            if end < start {
                return Err(Error::invalid_arg(format!(
                    "range end ({end}) must not be before start ({start}); end is exclusive"
                )));
            }
            (start.min(total), end.min(total))
        }
        Mode::Full => {
            if total > max {
                let unit = if e.kind == Kind::Text { "characters" } else { "bytes" };
                return Err(Error::new(
                    ErrorCode::TooLarge,
                    format!(
                        "observation entry {:?} has {total} {unit}, more than the {max} mode 'full' returns; \
                         read it by slices with mode 'range' (start, end) or 'lines', or search it with mode 'grep'",
                        e.name
                    ),
                ));
            }
            (0, total)
        }
        Mode::Lines | Mode::Grep if e.kind == Kind::Binary => {
            return Err(Error::invalid_arg(format!(
                "observation entry {:?} is binary: read it with mode 'head', 'tail' or 'range' (byte offsets)",
                e.name
            )))
        }
        Mode::Lines => {
            read_lines(s, e, req, max, &mut out)?;
            return Ok(out);
        }
        Mode::Grep => {
            grep(s, e, req, max, &mut out)?;
            return Ok(out);
        }
    };
    let (start, end) = if end - start > max {
        out.truncated = true;
        match req.mode {
            Mode::Tail => (end - max, end),
            _ => (start, start + max),
        }
    } else {
        (start, end)
    };
    out.content = slice(s, e, start, end)?;
    out.start = Some(start);
    out.end = Some(end);
    Ok(out)
}

/// The byte offset of the `k`-th (0-based) character start in `bytes`, or its length.
fn byte_of_char(bytes: &[u8], k: u64) -> usize {
    let mut seen = 0;
    for (j, &b) in bytes.iter().enumerate() {
        if is_char_start(b) {
            if seen == k {
                return j;
            }
            seen += 1;
        }
    }
    bytes.len()
}

fn read_lines(
    s: &Session,
    e: &Entry,
    req: &ReadRequest,
    max: u64,
    out: &mut ReadOutcome,
) -> Result<()> {
    let first = req.start.unwrap_or(1);
    if first == 0 {
        return Err(Error::invalid_arg(
            "lines are numbered from 1: start must be at least 1",
        ));
    }
    let last = req.end.unwrap_or(e.lines.max(first));
    if last < first {
        return Err(Error::invalid_arg(format!(
            "lines end ({last}) must not be before start ({first}); end is inclusive"
        )));
    }
    if first > e.lines {
        out.start = Some(e.chars);
        out.end = Some(e.chars);
        return Ok(());
    }
    let mut data = open_data(s, e)?;
    let mut idx = open_index(s, e)?;
    let (bs, cs) = idx.line_start(&mut data, first)?;
    data.seek(SeekFrom::Start(bs))
        .map_err(|err| Error::io(format!("reading {}", e.name), err))?;
    let mut remaining = last - first + 1;
    let mut bytes = Vec::new();
    let mut chars = 0u64;
    let mut buf = vec![0u8; CHUNK];
    loop {
        let got = read_some(&mut data, &mut buf, &e.name)?;
        if got == 0 {
            break;
        }
        let chunk = &buf[..got];
        let mut take = got;
        let mut seen = 0;
        let mut done = false;
        for p in memchr::memchr_iter(b'\n', chunk) {
            seen += 1;
            if seen == remaining {
                take = p + 1;
                done = true;
                break;
            }
        }
        let part = &chunk[..take];
        let c = count_chars(part);
        if chars + c > max {
            let cut = byte_of_char(part, max - chars);
            bytes.extend_from_slice(&part[..cut]);
            chars = max;
            out.truncated = true;
            break;
        }
        bytes.extend_from_slice(part);
        chars += c;
        remaining -= seen;
        if done {
            break;
        }
    }
    let newlines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
    let ends_line = bytes.last() == Some(&b'\n');
    out.content = utf8(bytes, e)?;
    out.start = Some(cs);
    out.end = Some(cs + chars);
    out.start_line = Some(first);
    out.end_line = Some(first + newlines - u64::from(ends_line && newlines > 0));
    Ok(())
}

fn grep(s: &Session, e: &Entry, req: &ReadRequest, max: u64, out: &mut ReadOutcome) -> Result<()> {
    let pattern = req
        .pattern
        .as_deref()
        .ok_or_else(|| Error::invalid_arg("mode 'grep' needs a `pattern` (a regex)"))?;
    let re = regex::Regex::new(pattern)
        .map_err(|err| Error::invalid_arg(format!("invalid regex {pattern:?}: {err}")))?;
    let limit = req.n.unwrap_or(MAX_GREP_MATCHES).min(MAX_GREP_MATCHES);
    let ctx = req.context.unwrap_or(0).min(MAX_GREP_CONTEXT) as usize;
    let mut reader = BufReader::with_capacity(CHUNK, open_data(s, e)?);
    let mut line = Vec::new();
    let mut before: VecDeque<(u64, String)> = VecDeque::with_capacity(ctx);
    let mut after = 0usize;
    let mut last_printed = 0u64;
    let mut lines_out: Vec<String> = Vec::new();
    let mut chars_out = 0u64;
    let mut matches = 0u64;
    let mut n = 0u64;
    let mut emit = |no: u64, sep: char, text: &str, last_printed: &mut u64| -> bool {
        if ctx > 0 && *last_printed != 0 && no > *last_printed + 1 {
            lines_out.push("--".into());
            chars_out += 3;
        }
        let l = format!("{no}{sep}{text}");
        chars_out += l.chars().count() as u64 + 1;
        lines_out.push(l);
        *last_printed = no;
        chars_out <= max
    };
    loop {
        line.clear();
        let got = reader
            .read_until(b'\n', &mut line)
            .map_err(|err| Error::io(format!("reading {}", e.name), err))?;
        if got == 0 {
            break;
        }
        n += 1;
        let mut text: &[u8] = &line;
        if let Some(t) = text.strip_suffix(b"\n") {
            text = t;
        }
        if let Some(t) = text.strip_suffix(b"\r") {
            text = t;
        }
        let text = std::str::from_utf8(text).map_err(|_| {
            Error::corrupt(format!("observation entry {:?} is not valid UTF-8", e.name))
        })?;
        if re.is_match(text) {
            if matches == limit {
                out.truncated = true;
                break;
            }
            matches += 1;
            let mut fits = true;
            for (no, l) in before.drain(..) {
                fits &= emit(no, '-', &l, &mut last_printed);
            }
            fits &= emit(n, ':', text, &mut last_printed);
            after = ctx;
            if !fits {
                out.truncated = true;
                break;
            }
        } else if after > 0 {
            after -= 1;
            if !emit(n, '-', text, &mut last_printed) {
                out.truncated = true;
                break;
            }
        } else if ctx > 0 {
            if before.len() == ctx {
                before.pop_front();
            }
            before.push_back((n, text.to_string()));
        }
    }
    let mut content = lines_out.join("\n");
    if content.chars().count() as u64 > max {
        let cut = byte_of_char(content.as_bytes(), max);
        content.truncate(cut);
    }
    out.content = content;
    out.matches = Some(matches);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_004_arguments_map_onto_the_modes() {
        // Nothing: head, as before.
        assert_eq!(
            resolve_mode(None, false, None, None, None, None, None).unwrap(),
            (Mode::Head, None, None, None)
        );
        // A regex alone: grep; a limit there is the most matches.
        assert_eq!(
            resolve_mode(None, true, None, None, None, None, Some(5)).unwrap(),
            (Mode::Grep, None, None, Some(5))
        );
        // offset / limit alone: a range of `limit` (30,000 by default) from `offset` (0).
        assert_eq!(
            resolve_mode(None, false, None, None, None, Some(100), None).unwrap(),
            (Mode::Range, Some(100), Some(100 + DEFAULT_LIMIT), None)
        );
        assert_eq!(
            resolve_mode(None, false, None, None, None, None, Some(50)).unwrap(),
            (Mode::Range, None, Some(50), None)
        );
        // An explicit mode wins; offset and limit fill start and the length only where not given.
        assert_eq!(
            resolve_mode(
                Some("range"),
                false,
                Some(3),
                Some(9),
                None,
                Some(100),
                Some(1)
            )
            .unwrap(),
            (Mode::Range, Some(3), Some(9), None)
        );
        assert_eq!(
            resolve_mode(Some("head"), false, None, None, None, None, Some(10)).unwrap(),
            (Mode::Head, None, None, Some(10))
        );
        assert_eq!(
            resolve_mode(Some("lines"), false, None, Some(4), None, Some(2), None).unwrap(),
            (Mode::Lines, Some(2), Some(4), None)
        );
        // A range without offset or limit keeps its own default (start + n).
        assert_eq!(
            resolve_mode(Some("range"), false, Some(7), None, None, None, None).unwrap(),
            (Mode::Range, Some(7), None, None)
        );
        assert!(resolve_mode(Some("nope"), false, None, None, None, None, None).is_err());
    }
}
