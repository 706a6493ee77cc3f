//! Part (d) of the amplification study: which variant closes SelfOrg's gap to
//! self-consistency, and at what token cost.
//!
//! Self-consistency (the reference), SelfOrg with the three embedding windows (`selforg`,
//! `selforg:embed=tail`, `selforg:embed=answer`) and SwarmSys run on the items of part (b) at
//! each accuracy of `gap_p`, under two reply styles:
//!
//! * `short`: the simulated model's replies as they are (about 50 tokens, the answer in the
//!   last lines);
//! * `long`: each reply preceded by a chain of thought of about `long_reply_tokens` (400)
//!   tokens — seeded paragraphs of generic, answer-free reasoning sentences, different for
//!   every reply, as an LLM writes before its answer ([`LongReplies`]). A 256-token encoder
//!   reading a whole reply then sees only reasoning, never the answer.
//!
//! The encoder: an embedder that reports no input limit (the hashing embedder) is given
//! `encoder_tokens` (256, all-MiniLM-L6-v2's limit): it reads the first 4 × 256 characters
//! (colony's four characters per token) and reports that limit ([`Truncated`]), so `full`
//! behaves as with MiniLM and `tail` takes 256 tokens. MiniLM truncates by itself.
//!
//! Everything is seeded: the same configuration gives the same rows.

use std::sync::Arc;

use async_trait::async_trait;
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::amplification::StudyConfig;
use super::amplification::{run_policy_with, simulated_items, simulated_model, PolicyRow};
use colony_llm::embed::{EmbedError, Embedder};
use colony_llm::stable_hash::hash_strs;
use colony_llm::{approx_tokens, ChatModel, ChatRequest, ChatResponse, ModelError, SharedModel};
use colony_policy::reasoning::PolicyError;
use colony_policy::selforg::reasoning::embed_input::APPROX_CHARS_PER_TOKEN;
use colony_runtime::RoleCard;

/// The reference policy the gap is measured to.
pub const REFERENCE: &str = "self_consistency";

/// Generic reasoning sentences of the long replies: no digits, no answer markers.
const REASONING: [&str; 16] = [
    "First, I restate what the problem describes and which quantities matter.",
    "It helps to name each quantity before combining anything.",
    "I check whether each quantity is given per item, per group or in total.",
    "Next, I decide the order in which the operations should be applied.",
    "The multiplication comes before the subtraction or addition at the end.",
    "I keep track of the units so that every intermediate value makes sense.",
    "Before going on, I re-read the question to make sure nothing is missed.",
    "A common mistake here would be to add where the text asks to multiply.",
    "I also consider whether anything is removed, sold or lost along the way.",
    "Each intermediate result should be a whole number in this kind of problem.",
    "Let me verify the intermediate values once more against the wording.",
    "The wording is a little indirect, so I translate it into simple relations.",
    "Now I combine the relations step by step, carefully and in order.",
    "I double-check each step of the arithmetic rather than trusting a first guess.",
    "Sanity check: the result should have a plausible size for this situation.",
    "With the structure clear, the remaining computation is straightforward.",
];

/// A seeded chain of thought of about `tokens` tokens: paragraphs of three or four
/// [`REASONING`] sentences separated by blank lines.
pub fn chain_of_thought(seed: u64, tokens: usize) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let target = tokens * APPROX_CHARS_PER_TOKEN;
    let mut out = String::new();
    while out.len() < target {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        let sentences = rng.random_range(3..=4);
        let paragraph: Vec<&str> = (0..sentences)
            .map(|_| REASONING[rng.random_range(0..REASONING.len())])
            .collect();
        out.push_str(&paragraph.join(" "));
    }
    out
}

/// A model whose replies are the inner model's preceded by a [`chain_of_thought`] of about
/// `tokens` tokens (seeded by the reply and the request), with completion tokens recounted.
pub struct LongReplies {
    inner: SharedModel,
    tokens: usize,
}

impl LongReplies {
    /// `inner`'s replies, each after about `tokens` tokens of reasoning.
    pub fn new(inner: SharedModel, tokens: usize) -> Self {
        Self { inner, tokens }
    }
}

#[async_trait]
impl ChatModel for LongReplies {
    fn id(&self) -> &str {
        self.inner.id()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let mut response = self.inner.chat(request).await?;
        let last = request.messages.last().map_or("", |m| m.content.as_str());
        let seed = hash_strs(&[&response.text, last]);
        response.text = format!(
            "{}\n\n{}",
            chain_of_thought(seed, self.tokens),
            response.text
        );
        response.usage.completion_tokens = approx_tokens(&response.text);
        Ok(response)
    }
}

/// An embedder that reads only the first `tokens` tokens' worth of characters of each text
/// and reports that limit (the truncation of all-MiniLM-L6-v2, for embedders without one).
pub struct Truncated {
    inner: Arc<dyn Embedder>,
    tokens: usize,
    id: String,
}

impl Truncated {
    /// `inner`, truncated at `tokens` tokens (at least 1).
    pub fn new(inner: Arc<dyn Embedder>, tokens: usize) -> Self {
        let tokens = tokens.max(1);
        let id = format!("{}+first{tokens}tokens", inner.id());
        Self { inner, tokens, id }
    }
}

#[async_trait]
impl Embedder for Truncated {
    async fn embed(&self, texts: &[String]) -> Result<Array2<f32>, EmbedError> {
        let limit = self.tokens * APPROX_CHARS_PER_TOKEN;
        let cut: Vec<String> = texts
            .iter()
            .map(|t| t.chars().take(limit).collect())
            .collect();
        self.inner.embed(&cut).await
    }

    fn dim(&self) -> usize {
        self.inner.dim()
    }

    fn id(&self) -> &str {
        &self.id
    }

    fn max_input_tokens(&self) -> Option<usize> {
        Some(self.tokens)
    }
}

/// One row of part (d): a policy at one accuracy with one reply style.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GapRow {
    /// `short` or `long`.
    pub replies: String,
    /// The policy's figures.
    #[serde(flatten)]
    pub row: PolicyRow,
    /// Accuracy minus [`REFERENCE`]'s at the same p and reply style, in points (None for the
    /// reference itself or when it did not run).
    pub gap_points: Option<f64>,
}

/// The embedder of part (d): `embedder` itself when it reports an input limit, else
/// [`Truncated`] at `config.encoder_tokens`.
pub fn part_d_embedder(config: &StudyConfig, embedder: Arc<dyn Embedder>) -> Arc<dyn Embedder> {
    if embedder.max_input_tokens().is_some() {
        embedder
    } else {
        Arc::new(Truncated::new(embedder, config.encoder_tokens))
    }
}

/// Part (d): every policy of `config.gap_policies` at every accuracy of `config.gap_p`, with
/// short replies and (when `long_reply_tokens > 0`) long ones; `progress` sees each row.
pub async fn closing_the_gap(
    config: &StudyConfig,
    roles: &[Arc<RoleCard>],
    embedder: Arc<dyn Embedder>,
    progress: &(dyn Fn(&GapRow) + Sync),
) -> Result<Vec<GapRow>, PolicyError> {
    let items = simulated_items(config.items, config.seed);
    let embedder = part_d_embedder(config, embedder);
    let mut styles = vec![("short", 0)];
    if config.long_reply_tokens > 0 {
        styles.push(("long", config.long_reply_tokens));
    }
    let mut rows: Vec<GapRow> = Vec::new();
    for (style, tokens) in styles {
        for &p in &config.gap_p {
            let base = simulated_model(config, p, &items);
            let model: SharedModel = if tokens > 0 {
                Arc::new(LongReplies::new(base, tokens))
            } else {
                base
            };
            let mut reference: Option<f64> = None;
            for spec in &config.gap_policies {
                let row = run_policy_with(
                    config,
                    spec,
                    p,
                    &items,
                    roles,
                    embedder.clone(),
                    model.clone(),
                )
                .await?;
                let accuracy = row.summary.accuracy_or_nan();
                let gap_points = if spec == REFERENCE {
                    reference = Some(accuracy);
                    None
                } else {
                    reference.map(|r| 100.0 * (accuracy - r))
                };
                let row = GapRow {
                    replies: style.to_string(),
                    row,
                    gap_points,
                };
                progress(&row);
                rows.push(row);
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use colony_llm::embed::HashingEmbedder;
    use colony_llm::{Message, SimulatedModel};
    use colony_policy::selforg::reasoning::EmbedInput;

    #[test]
    fn chains_of_thought_are_seeded_answer_free_and_long_enough() {
        let a = chain_of_thought(1, 400);
        assert_eq!(a, chain_of_thought(1, 400));
        assert_ne!(a, chain_of_thought(2, 400));
        assert!(
            approx_tokens(&a) >= 400 && approx_tokens(&a) < 480,
            "{}",
            a.len()
        );
        assert!(!a.chars().any(|c| c.is_ascii_digit()));
        assert!(!a.to_lowercase().contains("answer") && a.contains("\n\n"));
    }

    #[tokio::test]
    async fn long_replies_keep_the_answer_last_and_recount_tokens() {
        let inner: SharedModel = Arc::new(SimulatedModel::scripted(
            "s",
            vec!["Step one.\nThe answer is 4.".into()],
        ));
        let m = LongReplies::new(inner.clone(), 300);
        let req = ChatRequest::new(vec![Message::user("hello")]);
        let short = inner.chat(&req).await.unwrap();
        let long = m.chat(&req).await.unwrap();
        assert!(long.text.ends_with(&short.text));
        assert_eq!(long.usage.completion_tokens, approx_tokens(&long.text));
        assert_eq!(long.text, m.chat(&req).await.unwrap().text);
        // The answer window of a long reply is the original reply's last paragraph.
        assert_eq!(
            EmbedInput::Answer.select(&long.text, Some(256)),
            short.text.trim()
        );
    }

    #[tokio::test]
    async fn truncated_embedder_reads_the_first_tokens_only() {
        let inner: Arc<dyn Embedder> = Arc::new(HashingEmbedder::new(64));
        let t = Truncated::new(inner.clone(), 2);
        assert_eq!(t.max_input_tokens(), Some(2));
        let texts = vec!["abcdefgh and more".to_string(), "abcdefgh".to_string()];
        let r = t.embed(&texts).await.unwrap();
        assert_eq!(r.row(0), r.row(1));
        let config = StudyConfig::default();
        assert_eq!(
            part_d_embedder(&config, inner).max_input_tokens(),
            Some(256)
        );
    }
}
