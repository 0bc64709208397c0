//! Sentence salience and selection: LexRank (Erkan and Radev, 2004) over TF-IDF cosine
//! similarity, weighted by a prior the caller gives (position, recency, speaker), and maximal
//! marginal relevance (Carbonell and Goldstein, 1998) to select under a budget without saying a
//! thing twice.

use std::collections::HashMap;

/// Most sentences ranked together (the latest ones): the similarity graph is quadratic.
pub const MAX_POOL: usize = 800;
/// Cosine similarity from which two sentences say the same thing.
pub const SAME_STATEMENT: f64 = 0.8;
/// LexRank's damping factor.
const DAMPING: f64 = 0.85;
/// Power iterations of LexRank (it converges well before on a conversation's graph).
const ITERATIONS: usize = 40;

fn unspaced(c: char) -> bool {
    context_state::substance::unspaced(c)
}

/// The terms of a text: its words of letters and digits, lower-cased, each character of a script
/// written without spaces (Han, Kana, Hangul) a term of its own.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            out.push(std::mem::take(word));
        }
    };
    for c in text.chars() {
        if unspaced(c) {
            flush(&mut word, &mut out);
            out.push(c.to_string());
        } else if c.is_alphanumeric() || c == '_' {
            word.extend(c.to_lowercase());
        } else {
            flush(&mut word, &mut out);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Sentences as TF-IDF vectors (sparse, unit length) over the terms of all of them.
pub struct Ranking {
    vectors: Vec<Vec<(u32, f64)>>,
}

impl Ranking {
    /// The vectors of `texts`; a term's IDF is over the texts themselves.
    pub fn new<S: AsRef<str>>(texts: &[S]) -> Ranking {
        let mut ids: HashMap<String, u32> = HashMap::new();
        let docs: Vec<HashMap<u32, f64>> = texts
            .iter()
            .map(|t| {
                let mut tf: HashMap<u32, f64> = HashMap::new();
                for term in terms(t.as_ref()) {
                    let next = ids.len() as u32;
                    let id = *ids.entry(term).or_insert(next);
                    *tf.entry(id).or_default() += 1.0;
                }
                tf
            })
            .collect();
        let mut df = vec![0usize; ids.len()];
        for d in &docs {
            for id in d.keys() {
                df[*id as usize] += 1;
            }
        }
        let n = texts.len().max(1) as f64;
        let vectors = docs
            .into_iter()
            .map(|tf| {
                let mut v: Vec<(u32, f64)> = tf
                    .into_iter()
                    .map(|(id, f)| (id, f * (1.0 + (n / df[id as usize] as f64).ln())))
                    .collect();
                // sorted before the norm is summed: a sum in the map's order (random per
                // process) rounds differently, and ties between equal sentences broke another
                // way in each run (the same session gave two checkpoints)
                v.sort_by_key(|(id, _)| *id);
                let norm = v.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
                if norm > 0.0 {
                    v.iter_mut().for_each(|(_, w)| *w /= norm);
                }
                v
            })
            .collect();
        Ranking { vectors }
    }

    /// Cosine similarity of sentences `i` and `j` (0..1).
    pub fn similarity(&self, i: usize, j: usize) -> f64 {
        let (a, b) = (&self.vectors[i], &self.vectors[j]);
        let (mut x, mut y, mut dot) = (0, 0, 0.0);
        while x < a.len() && y < b.len() {
            match a[x].0.cmp(&b[y].0) {
                std::cmp::Ordering::Less => x += 1,
                std::cmp::Ordering::Greater => y += 1,
                std::cmp::Ordering::Equal => {
                    dot += a[x].1 * b[y].1;
                    x += 1;
                    y += 1;
                }
            }
        }
        dot
    }

    /// How many sentences.
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// No sentences.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// Continuous LexRank: the stationary distribution of a random walk over the similarity
    /// graph, teleporting by `prior` (a personalised PageRank: the walk restarts at the sentences
    /// the prior favours). Scaled so that the highest is 1.
    pub fn lexrank(&self, prior: &[f64]) -> Vec<f64> {
        let n = self.len();
        if n == 0 {
            return Vec::new();
        }
        let psum: f64 = prior.iter().sum::<f64>().max(f64::MIN_POSITIVE);
        let teleport: Vec<f64> = prior.iter().map(|p| p / psum).collect();
        let mut sims = vec![0.0; n * n];
        for i in 0..n {
            for j in i + 1..n {
                let s = self.similarity(i, j);
                sims[i * n + j] = s;
                sims[j * n + i] = s;
            }
        }
        let rows: Vec<f64> = (0..n)
            .map(|i| sims[i * n..(i + 1) * n].iter().sum())
            .collect();
        let mut p = teleport.clone();
        let mut next = vec![0.0; n];
        for _ in 0..ITERATIONS {
            next.iter_mut()
                .zip(&teleport)
                .for_each(|(x, t)| *x = (1.0 - DAMPING) * t);
            let mut dangling = 0.0;
            for i in 0..n {
                if rows[i] == 0.0 {
                    dangling += p[i];
                    continue;
                }
                let w = DAMPING * p[i] / rows[i];
                for (x, s) in next.iter_mut().zip(&sims[i * n..(i + 1) * n]) {
                    *x += w * s;
                }
            }
            for (x, t) in next.iter_mut().zip(&teleport) {
                *x += DAMPING * dangling * t;
            }
            std::mem::swap(&mut p, &mut next);
        }
        let max = p.iter().copied().fold(0.0, f64::max);
        if max > 0.0 {
            p.iter_mut().for_each(|x| *x /= max);
        }
        p
    }
}

/// The salience of each text: its LexRank centrality under `prior` (one weight per text, > 0),
/// times the prior itself, scaled so that the highest is 1. Only the last [`MAX_POOL`] texts
/// are ranked; the earlier ones score 0.
pub fn salience<S: AsRef<str>>(texts: &[S], prior: &[f64]) -> (Ranking, Vec<f64>) {
    let from = texts.len().saturating_sub(MAX_POOL);
    let ranking = Ranking::new(&texts[from..]);
    let prior = &prior[from..];
    let central = ranking.lexrank(prior);
    let mut scores = vec![0.0; from];
    scores.extend(central.iter().zip(prior).map(|(c, p)| c * p));
    let max = scores.iter().copied().fold(0.0, f64::max);
    if max > 0.0 {
        scores.iter_mut().for_each(|x| *x /= max);
    }
    (ranking, scores)
}

/// Maximal marginal relevance: the texts, best first, each the one whose salience less its
/// greatest similarity to those already chosen (weighted `1 - lambda`) is highest, while their
/// characters fit `max_chars`; at most `max` of them, and none [`SAME_STATEMENT`]-similar to one
/// chosen before it. `scores` and `chars` are per text, the
/// ranking's indices offset by `from` (the texts before it are not candidates).
pub fn select(
    ranking: &Ranking,
    scores: &[f64],
    chars: &[usize],
    lambda: f64,
    max_chars: usize,
    max: usize,
) -> Vec<usize> {
    let from = scores.len() - ranking.len();
    let mut chosen: Vec<usize> = Vec::new();
    let mut used = 0;
    let mut nearest = vec![0.0f64; ranking.len()];
    let mut open: Vec<bool> = (0..ranking.len()).map(|i| scores[from + i] > 0.0).collect();
    while chosen.len() < max {
        let mut best: Option<(usize, f64)> = None;
        for i in 0..ranking.len() {
            if !open[i] {
                continue;
            }
            if used + chars[from + i] > max_chars {
                open[i] = false;
                continue;
            }
            let v = lambda * scores[from + i] - (1.0 - lambda) * nearest[i];
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((i, v));
            }
        }
        let Some((i, _)) = best else { break };
        open[i] = false;
        used += chars[from + i];
        chosen.push(from + i);
        for (j, near) in nearest.iter_mut().enumerate() {
            if open[j] {
                *near = near.max(ranking.similarity(i, j));
                // a restatement of a chosen one is never chosen (a retried reply, the same
                // narration with another number)
                if *near >= SAME_STATEMENT {
                    open[j] = false;
                }
            }
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_words_and_unspaced_characters() {
        assert_eq!(
            terms("Fixed `auth.ts` — 定时任务 OK_2"),
            vec!["fixed", "auth", "ts", "定", "时", "任", "务", "ok_2"]
        );
    }

    #[test]
    fn the_central_sentence_ranks_first_and_mmr_skips_a_repeat() {
        let texts = [
            "the deploy of the api failed on the missing key",
            "the api deploy failed because the key is missing",
            "lunch was good today",
            "the deploy failed: missing key for the api",
        ];
        let prior = [1.0; 4];
        let (ranking, scores) = salience(&texts, &prior);
        let best = (0..4)
            .max_by(|&a, &b| scores[a].partial_cmp(&scores[b]).unwrap())
            .unwrap();
        assert_ne!(best, 2, "{scores:?}");
        assert!(scores[2] < scores[best] / 2.0, "{scores:?}");
        let chars: Vec<usize> = texts.iter().map(|t| t.len()).collect();
        // two picks: the best, then not a paraphrase of it while the unrelated one is left
        let picked = select(&ranking, &scores, &chars, 0.3, 1000, 2);
        assert_eq!(picked[0], best);
        assert_eq!(picked[1], 2, "{picked:?} {scores:?}");
        // the budget holds
        let picked = select(&ranking, &scores, &chars, 0.7, 60, 4);
        assert_eq!(picked.len(), 1);
    }

    #[test]
    fn the_same_sentences_rank_the_same_every_time() {
        // each map the ranking builds iterates in its own random order: nothing it sums may
        // follow that order, or equal sentences tie differently from one checkpoint to the next
        let texts: Vec<String> = (0..12)
            .map(|i| {
                format!(
                    "at render{i} (http://localhost:3000/chunk-36jrqfj4.js:{}:{}) via commit work loop fiber reconcile update host component",
                    31000 + i * 7,
                    i % 5
                )
            })
            .collect();
        let prior = vec![1.0; texts.len()];
        let (_, first) = salience(&texts, &prior);
        for _ in 0..30 {
            let (_, again) = salience(&texts, &prior);
            let same = first
                .iter()
                .zip(&again)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{first:?} != {again:?}");
        }
    }

    #[test]
    fn the_prior_moves_the_ranking() {
        let texts = ["alpha beta gamma", "alpha beta delta", "epsilon zeta eta"];
        let (_, flat) = salience(&texts, &[1.0, 1.0, 1.0]);
        let (_, late) = salience(&texts, &[1.0, 1.0, 5.0]);
        assert!(late[2] > flat[2]);
        assert_eq!(late[2], 1.0);
    }
}
