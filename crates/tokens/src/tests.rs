//! Exactness against tiktoken-rs (the reference implementation) on real transcripts, hand-picked
//! edge cases and random strings biased towards the pattern's corner cases.

use super::*;

fn reference(text: &str, encoding: Encoding) -> usize {
    let bpe = match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
    };
    bpe.encode_ordinary(text).len()
}

fn assert_same(text: &str) {
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        assert_eq!(
            count_tokens(text, enc),
            reference(text, enc),
            "{} differs on {:?}",
            enc.name(),
            text.chars().take(200).collect::<String>()
        );
    }
}

#[test]
fn edge_cases_match_tiktoken() {
    let cases = [
        "",
        " ",
        "  ",
        "a",
        "hello world",
        "Hello  world",
        "hello   \tworld",
        "  leading",
        "trailing  ",
        "trailing \n",
        "a\n\n\nb",
        " \n \n x",
        "\r\n\r\n",
        "x\u{3000}\u{3000}y",
        "x\u{a0}\u{a0}\u{a0}y",
        "tab\t\tx",
        "I'm they'll WE'RE don'T",
        "12345678901",
        "3.14159 1,000,000",
        "<|endoftext|> special <|fim_prefix|>",
        "fn main() { println!(\"hi\"); }\n    let x = 1;\n",
        "😀😀 emoji 👩‍👩‍👧‍👦 family",
        "日本語のテキストと中文文本",
        "Ça va? Über straße ΑΒΓ αβγ кириллица",
        "combining e\u{301}\u{301} marks",
        "///\\\\\n\n",
        "a  \n",
        "   \n\n   \t",
    ];
    for c in cases {
        assert_same(c);
    }
}

#[test]
fn long_pieces_use_the_heap_merge_and_agree() {
    for n in [127, 128, 129, 200, 1000, 5000] {
        assert_same(&"a".repeat(n));
        assert_same(&"ab".repeat(n / 2));
        assert_same(&" ".repeat(n));
        assert_same(&"!".repeat(n));
        assert_same(&format!("x{}y", "é".repeat(n / 2)));
    }
    // Long pieces with varied content: lower-case runs with mixed letters.
    let mut s = String::new();
    let mut seed = 7u64;
    for _ in 0..3000 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        s.push((b'a' + (seed >> 59) as u8 % 26) as char);
    }
    assert_same(&s);
}

/// A small deterministic PRNG (no dev-dependency needed).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, xs: &'a [&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

#[test]
fn random_strings_match_tiktoken() {
    let atoms = [
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\u{a0}",
        "\u{3000}",
        "a",
        "Z",
        "hello",
        "World",
        "'s",
        "'LL",
        "'",
        "1",
        "42",
        "12345",
        ".",
        ",",
        "!?",
        "/",
        "\\",
        "-",
        "_",
        "(",
        ")",
        "{",
        "}",
        "é",
        "ß",
        "ı",
        "İ",
        "日本",
        "中",
        "😀",
        "👍🏽",
        "\u{301}",
        "\u{200d}",
        "ـ",
        "१२",
        "Ⅻ",
        "<|endoftext|>",
        "\u{0}",
        "\u{7f}",
        "\u{feff}",
        "x\u{2028}y",
    ];
    let mut rng = Rng(0x9E3779B97F4A7C15);
    for _ in 0..4000 {
        let len = (rng.next() % 24) as usize;
        let s: String = (0..len).map(|_| rng.pick(&atoms)).collect();
        assert_same(&s);
    }
}

#[test]
fn real_transcripts_match_tiktoken() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../__test__/fixtures/transcripts");
    let mut texts = 0;
    for name in ["before-compaction.jsonl", "large-session.jsonl"] {
        let data = std::fs::read_to_string(dir.join(name)).expect("fixture transcript");
        // Every line whole (JSON as the model sees tool arguments) and every string inside it.
        for line in data.lines().step_by(3) {
            assert_same(line);
            texts += 1;
            let v: serde_json::Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(_) => continue,
            };
            let mut stack = vec![&v];
            while let Some(v) = stack.pop() {
                match v {
                    serde_json::Value::String(s) if s.len() > 2 => {
                        assert_same(s);
                        texts += 1;
                    }
                    serde_json::Value::Array(a) => stack.extend(a),
                    serde_json::Value::Object(o) => stack.extend(o.values()),
                    _ => {}
                }
            }
        }
    }
    assert!(texts > 1000, "compared only {texts} texts");
}

#[test]
fn warmup_is_idempotent_and_thread_safe() {
    let handles: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(|| count_tokens("hello world", Encoding::Cl100kBase)))
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 2);
    }
    warmup(Encoding::Cl100kBase);
    assert!(is_warm(Encoding::Cl100kBase));
}

#[test]
fn chunked_counts_equal_whole_counts() {
    let atoms = [
        "\n",
        "\n\n",
        "\r\n",
        " \n",
        "\n ",
        "\n/",
        "/",
        "//x",
        "\t",
        " ",
        "  ",
        "- ",
        "* ",
        "a",
        "Word",
        "word's",
        "42",
        "1234",
        ")",
        "].",
        "!?",
        "#",
        "<checkpoint-data>",
        "é",
        "日本",
        "😀",
        "\u{2028}",
        "\u{a0}",
        "x/y",
        "/path/to",
        ":",
        "\"",
        "'",
    ];
    let mut rng = Rng(0xD1B54A32D192ED03);
    for _ in 0..3000 {
        let len = (rng.next() % 40) as usize;
        let s: String = (0..len).map(|_| rng.pick(&atoms)).collect();
        let rejoined: String = chunks(&s).collect();
        assert_eq!(rejoined, s);
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let mut counter = ChunkCounter::new(enc);
            assert_eq!(
                counter.count(&s),
                count_tokens(&s, enc),
                "{} on {s:?}",
                enc.name()
            );
            // and again, from memory
            assert_eq!(
                counter.count(&s),
                count_tokens(&s, enc),
                "{} on {s:?}",
                enc.name()
            );
        }
    }
    // Whole transcripts: many lines, code, JSON.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../__test__/fixtures/transcripts");
    let text = std::fs::read_to_string(dir.join("large-session.jsonl")).unwrap();
    let v: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let mut joined = String::new();
    for m in &v {
        if let Some(parts) = m.pointer("/message/content").and_then(|c| c.as_array()) {
            for p in parts {
                if let Some(t) = p.get("text").and_then(|t| t.as_str()) {
                    joined.push_str(t);
                    joined.push('\n');
                }
            }
        }
    }
    assert!(chunks(&joined).count() > 1000);
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        assert_eq!(
            ChunkCounter::new(enc).count(&joined),
            count_tokens(&joined, enc)
        );
    }
}
