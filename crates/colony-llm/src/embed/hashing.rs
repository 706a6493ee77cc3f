//! A feature-hashing text embedder: deterministic, file-free, fast.
//!
//! Features: lowercase word unigrams and bigrams plus character 3–5-grams of each word (with
//! boundary marks), hashed with FNV-1a into `dim` buckets with a hash-derived sign (the
//! "hashing trick" of Weinberger et al.), term frequencies damped with `1 + ln(tf)`, then the
//! vector is L2-normalized.
//!
//! Numbers are kept distinctive on purpose: a number token gets its own heavily weighted
//! feature and no character n-grams, so `42` and `17` share nothing, and two answers that
//! differ only in the final number are clearly less similar than two that agree.
//!
//! Limits, honestly: this is lexical similarity, not meaning. Paraphrases with different
//! words score low, and texts sharing many words score high even if they disagree on
//! everything else. Collisions are rare at 512 dimensions but not impossible. Use the MiniLM
//! backend for semantic similarity.

use std::collections::HashMap;

use async_trait::async_trait;
use ndarray::Array2;

use super::{EmbedError, Embedder};
use crate::stable_hash::hash_strs as fnv1a;

/// Feature-hashing embedder (the default; see the module docs for its limits).
#[derive(Debug, Clone)]
pub struct HashingEmbedder {
    dim: usize,
    id: String,
}

/// Weight multiplier of number tokens relative to word features.
const NUMBER_WEIGHT: f32 = 6.0;
/// Weight of character n-grams relative to whole-word features.
const CHAR_NGRAM_WEIGHT: f32 = 0.5;

impl HashingEmbedder {
    /// The default dimension.
    pub const DEFAULT_DIM: usize = 512;

    /// The smallest dimension.
    pub const MIN_DIM: usize = 16;

    /// The largest dimension (`hash:DIM` refuses more): 65,536 buckets are far beyond what
    /// collisions need, and keep a batch of vectors (one f32 per bucket) small.
    pub const MAX_DIM: usize = 65_536;

    /// A hashing embedder with `dim` buckets (clamped to [`Self::MIN_DIM`]..=[`Self::MAX_DIM`]).
    pub fn new(dim: usize) -> Self {
        let dim = dim.clamp(Self::MIN_DIM, Self::MAX_DIM);
        Self {
            dim,
            id: format!("hashing-v1-{dim}"),
        }
    }

    /// Embeds one text into a unit vector (zero for text without tokens).
    pub fn embed_one(&self, text: &str) -> Vec<f32> {
        // Per feature: (term count, weight of the feature kind).
        let mut counts: HashMap<u64, (f32, f32)> = HashMap::new();
        let tokens = tokenize(text);
        for (i, tok) in tokens.iter().enumerate() {
            let is_number = tok.chars().any(|c| c.is_ascii_digit());
            if is_number {
                counts
                    .entry(fnv1a(&["num", tok]))
                    .or_insert((0.0, NUMBER_WEIGHT))
                    .0 += 1.0;
            } else {
                counts.entry(fnv1a(&["w", tok])).or_insert((0.0, 1.0)).0 += 1.0;
                let marked: Vec<char> = format!("<{tok}>").chars().collect();
                for n in 3..=5 {
                    for gram in marked.windows(n) {
                        let g: String = gram.iter().collect();
                        counts
                            .entry(fnv1a(&["c", &g]))
                            .or_insert((0.0, CHAR_NGRAM_WEIGHT))
                            .0 += 1.0;
                    }
                }
            }
            if let Some(next) = tokens.get(i + 1) {
                counts
                    .entry(fnv1a(&["b", tok, next]))
                    .or_insert((0.0, 1.0))
                    .0 += 1.0;
            }
        }
        let mut v = vec![0f32; self.dim];
        let dim = self.dim as u64;
        // Sum in a fixed order: HashMap order varies between instances, and float addition
        // is not associative, so an unordered sum would differ in the last bits run to run.
        let mut features: Vec<(u64, (f32, f32))> = counts.into_iter().collect();
        features.sort_unstable_by_key(|(h, _)| *h);
        for (h, (tf, weight)) in features {
            let bucket = usize::try_from(h % dim).unwrap_or(0);
            let sign = if (h >> 63) & 1 == 1 { -1.0 } else { 1.0 };
            // Sublinear term frequency: repeated words matter, but not linearly.
            v[bucket] += sign * weight * (1.0 + tf.ln());
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }
}

impl HashingEmbedder {
    /// Embeds `texts` synchronously (this backend is cheap enough to run inline).
    pub fn embed_sync(&self, texts: &[String]) -> Array2<f32> {
        let mut out = Array2::<f32>::zeros((texts.len(), self.dim));
        for (mut row, text) in out.rows_mut().into_iter().zip(texts) {
            row.assign(&ndarray::ArrayView1::from(&self.embed_one(text)));
        }
        out
    }
}

#[async_trait]
impl Embedder for HashingEmbedder {
    async fn embed(&self, texts: &[String]) -> Result<Array2<f32>, EmbedError> {
        Ok(self.embed_sync(texts))
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn id(&self) -> &str {
        &self.id
    }
}

/// Lowercase tokens: runs of alphanumerics; a number keeps its inner `.`, `,` and `/` so
/// `1,234.5` and `3/4` stay one token, and commas are dropped so `1,234` equals `1234`.
fn tokenize(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let joins_number = matches!(c, '.' | ',' | '/')
            && cur.chars().last().is_some_and(|p| p.is_ascii_digit())
            && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit());
        if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        } else if joins_number {
            if c != ',' {
                cur.push(c);
            }
        } else if !cur.is_empty() {
            tokens.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        tokens.push(cur);
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cos(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn rows_are_unit_or_zero() {
        let e = HashingEmbedder::new(512);
        let m = e.embed_sync(&["hello world".into(), "".into(), "   ".into()]);
        let n0: f32 = m.row(0).iter().map(|x| x * x).sum();
        assert!((n0 - 1.0).abs() < 1e-5);
        assert!(m.row(1).iter().all(|&x| x == 0.0));
        assert!(m.row(2).iter().all(|&x| x == 0.0));
    }

    #[test]
    fn numbers_are_distinctive() {
        let e = HashingEmbedder::new(512);
        let base = "She sold the eggs at the market for two dollars each, so the answer is";
        let a = e.embed_one(&format!("{base} 42"));
        let same = e.embed_one(&format!("{base} 42."));
        let other = e.embed_one(&format!("{base} 17"));
        assert!((cos(&a, &same) - 1.0).abs() < 1e-5);
        let diff = cos(&a, &other);
        assert!(
            diff < 0.9,
            "answers differing in the number are too similar: {diff}"
        );
        assert_eq!(e.embed_one("1,234"), e.embed_one("1234"));
    }

    #[test]
    fn deterministic_and_lexical() {
        let e = HashingEmbedder::new(256);
        assert_eq!(
            e.embed_one("The cat sits outside"),
            e.embed_one("The cat sits outside")
        );
        let a = e.embed_one("the cat sits outside");
        let b = e.embed_one("the cat plays outside");
        let c = e.embed_one("quarterly revenue grew");
        assert!(cos(&a, &b) > cos(&a, &c));
    }
}
