//! Test-only: a small deterministic PRNG and a generator of strings biased towards what breaks
//! YAML writers (indicators, YAML 1.1 booleans, numbers in every base, line breaks of every
//! kind, control characters, non-characters, surrogate-pair emoji, CJK).

/// xorshift64* (deterministic, no dependency).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Pieces that each break some naive YAML writer.
pub const NASTY: &[&str] = &[
    "",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "\t",
    " \t",
    "0o17",
    "0x1F",
    "017",
    "1e3",
    "+.inf",
    "-.inf",
    ".nan",
    ".NaN",
    "1_000",
    "12:30:00",
    "2001-12-14",
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "Yes",
    "NO",
    "null",
    "Null",
    "~",
    "true",
    "False",
    "---",
    "...",
    "--- x",
    "#",
    " #",
    "# c",
    ": ",
    ":",
    "a: b",
    "- ",
    "-",
    "? ",
    "?",
    "|",
    "|-",
    "|+",
    ">",
    ">-",
    "&a",
    "*a",
    "!tag",
    "!!str",
    "%YAML 1.2",
    "@",
    "`",
    "'",
    "\"",
    "\\",
    "\\n",
    "{",
    "}",
    "[",
    "]",
    ",",
    "{a: 1}",
    "[1, 2]",
    "<<",
    "=",
    "\u{85}",
    "\u{2028}",
    "\u{2029}",
    "\u{FEFF}",
    "\u{A0}",
    "\0",
    "\x07",
    "\x08",
    "\x0B",
    "\x0C",
    "\x1B",
    "\x7F",
    "\u{9F}",
    "\u{80}",
    "😀",
    "👨\u{200D}👩\u{200D}👧",
    "日本語",
    "中文の文字",
    "é",
    "e\u{301}",
    "\u{FFFE}",
    "\u{FFFF}",
    "\u{10FFFF}",
    "\u{E000}",
    "\u{FDD0}",
    "\u{D7FF}",
    "</checkpoint-data>",
    "cp_001",
    "0",
    "-1",
    "1.5",
    "word",
    "hello world",
    "  indented",
    "trailing  ",
    "\n  x",
    "x\n",
    "x\n\n",
];

/// A random string made of 0..10 pieces: nasty pieces, random code points, ASCII words.
pub fn nasty_string(rng: &mut Rng) -> String {
    let n = rng.below(11);
    let mut s = String::new();
    for _ in 0..n {
        match rng.below(10) {
            0..=4 => s.push_str(NASTY[rng.below(NASTY.len())]),
            5 => {
                // any scalar value
                let c = loop {
                    if let Some(c) = char::from_u32(rng.below(0x11_0000) as u32) {
                        break c;
                    }
                };
                s.push(c);
            }
            6 => s.push(char::from_u32(rng.below(0x100) as u32).unwrap()),
            7 => s.push(char::from_u32(0x3000 + rng.below(0x6000) as u32).unwrap_or('x')),
            _ => {
                for _ in 0..rng.below(12) {
                    s.push((b'a' + rng.below(26) as u8) as char);
                }
                if rng.chance(30) {
                    s.push(' ');
                }
            }
        }
    }
    s
}
