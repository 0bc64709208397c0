//! Exact tiktoken-compatible token counting (o200k_base, cl100k_base). Knows nothing of napi.

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
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }
    pub fn from_name(name: &str) -> Option<Encoding> {
        match name {
            "o200k_base" => Some(Encoding::O200kBase),
            "cl100k_base" => Some(Encoding::Cl100kBase),
            _ => None,
        }
    }
}

/// Counts tokens of `text` as ordinary text (special-token strings count as plain text).
pub fn count_tokens(text: &str, encoding: Encoding) -> usize {
    let bpe = match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
    };
    bpe.encode_ordinary(text).len()
}

/// Builds the tables of `encoding` now (idempotent, thread-safe).
pub fn warmup(encoding: Encoding) {
    count_tokens("", encoding);
}
