//! Its own process: nothing builds the BPE tables until the first count or `warmup`.

use context_tokens::{count_tokens, is_warm, warmup, Encoding};

#[test]
fn tables_are_built_on_first_use_only() {
    assert!(!is_warm(Encoding::O200kBase));
    assert!(!is_warm(Encoding::Cl100kBase));
    assert_eq!(count_tokens("", Encoding::O200kBase), 0);
    assert!(!is_warm(Encoding::O200kBase), "empty text needs no tables");
    assert_eq!(count_tokens("hello world", Encoding::O200kBase), 2);
    assert!(is_warm(Encoding::O200kBase));
    assert!(!is_warm(Encoding::Cl100kBase));
    warmup(Encoding::Cl100kBase);
    assert!(is_warm(Encoding::Cl100kBase));
}
