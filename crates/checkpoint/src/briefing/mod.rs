//! The briefing (issue 51): what the conversation said, as extractive summarisation selects it.
//! The document model is built once from the cleaned, redacted dialogue
//! ([`read_dialogue`](context_state::dialogue::read_dialogue)): every sentence the user asked with
//! and every sentence the agent wrote, with who said it, where (message, turn) and whether it is
//! the agent's closing report of a turn ([`document`]). The ranking ([`rank`]) scores them by
//! centrality over the conversation (LexRank over TF-IDF cosine similarity), position and recency,
//! and selects under a budget with maximal marginal relevance. The thread's key exchanges are the
//! selection; the render uses the same ranking to drop the least salient first.
//!
//! Structure only (roles, order, the words' own statistics): no keywords, any language.

mod document;
mod rank;

pub use document::{document, sentences_of, Note, Sentence, SENTENCE_CHARS};
pub use rank::{salience, select, terms, Ranking};
