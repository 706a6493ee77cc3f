//! SwarmSys embeddings and compatibility (docs/design/swarmsys.md §2.4–§2.5): the texts that are
//! encoded, the encoder call with a per-task cache, vector maths (normalise, cosine,
//! pheromone deposit) and `s_ij = (1 + cos(v_i, e_j)) / 2`.
//!
//! None of colony's encoders takes instructions natively, so every instruction is prepended
//! as plain text (`instruction ⊕ text`, joined with one space, §2.4). An encoder that does not
//! report its input limit (hashing, remote) gets the long competence instruction.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::reasoning::prompts;
use crate::reasoning::PolicyError;
use colony_llm::embed::{EmbedError, Embedder};

/// `prompts/swarmsys/competence.jinja`: the long competence instruction (§2.2, worded for
/// colony), with `ability` and `history` filled in.
pub const COMPETENCE: &str = include_str!("../../../../../prompts/swarmsys/competence.jinja");
/// The one-line competence instruction of short encoders (§2.4 decision).
pub const SHORT_COMPETENCE: &str =
    "Represent this agent's competence at collaborative mathematical reasoning:";
/// `I_avail` (§2.4).
pub const AVAILABILITY: &str =
    "Represent this agent's current availability and readiness for new work:";
/// `I_event` (§2.4).
pub const EVENT: &str = "Represent this reasoning sub-task for matching it to capable agents:";
/// Encoders whose maximum input is below this many tokens get the one-line instruction.
pub const LONG_INSTRUCTION_TOKENS: usize = 512;

/// Which competence instruction to use (§2.4 decision, option `instruction=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Instruction {
    /// Long unless the encoder reports a maximum input below 512 tokens.
    #[default]
    Auto,
    /// The long instruction with its placeholders filled.
    Long,
    /// The one-line instruction followed by ability and history.
    Short,
}

impl Instruction {
    /// Whether the long instruction is used with `embedder` (an encoder that does not report
    /// its maximum input counts as long enough).
    pub fn long_for(self, embedder: &dyn Embedder) -> bool {
        match self {
            Instruction::Long => true,
            Instruction::Short => false,
            Instruction::Auto => embedder
                .max_input_tokens()
                .is_none_or(|n| n >= LONG_INSTRUCTION_TOKENS),
        }
    }
}

/// The text of the competence base `b_i` (§2.4).
pub fn competence_text(long: bool, ability: &str, history: &str) -> Result<String, PolicyError> {
    if long {
        prompts::render(
            COMPETENCE,
            minijinja::context! { ability => ability, history => history },
        )
    } else {
        Ok(format!(
            "{SHORT_COMPETENCE} Agent Ability Description: {ability} Agent Performance History: \
             {history}"
        ))
    }
}

/// The text of the availability embedding `s_i` (§2.4): `I_avail ⊕ status text`.
pub fn availability_text(status: &str) -> String {
    format!("{AVAILABILITY} {status}")
}

/// What the event text of §2.4 is built from.
#[derive(Debug, Clone, Copy)]
pub struct EventText<'a> {
    /// Event id.
    pub id: &'a str,
    /// `composite` | `leaf`.
    pub kind: &'a str,
    /// Task-type label.
    pub task_type: &'a str,
    /// Description.
    pub description: &'a str,
    /// "title: result" of each dependency, or empty.
    pub dependencies: &'a [String],
    /// Status name.
    pub status: &'a str,
    /// The last two progress summaries.
    pub progress: &'a [String],
    /// Milestone.
    pub milestone: &'a str,
}

/// `I_event ⊕ event text` (§2.4).
pub fn event_text(e: &EventText<'_>) -> String {
    let deps = if e.dependencies.is_empty() {
        "none".to_string()
    } else {
        e.dependencies.join("; ")
    };
    let progress = if e.progress.is_empty() {
        String::new()
    } else {
        format!("; {}", e.progress.join(" "))
    };
    format!(
        "{EVENT} Event {} ({}, {}). Description: {}. Depends on: {deps}. Progress: {}{progress}. \
         Milestone: {}.",
        e.id, e.kind, e.task_type, e.description, e.status, e.milestone
    )
}

/// `a·b / (‖a‖‖b‖)` in f64; 0 when either is the zero vector (§0.1).
pub fn cos(a: &[f64], b: &[f64]) -> f64 {
    let (mut ab, mut aa, mut bb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        0.0
    } else {
        ab / (aa.sqrt() * bb.sqrt())
    }
}

/// ‖v‖.
pub fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// `v / ‖v‖`; `normalise(0) = 0` (§0.1).
pub fn normalise(v: &[f64]) -> Vec<f64> {
    let n = norm(v);
    if n == 0.0 {
        v.to_vec()
    } else {
        v.iter().map(|x| x / n).collect()
    }
}

/// `a + w·b`.
pub fn add_scaled(a: &[f64], w: f64, b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x + w * y).collect()
}

/// Compatibility `s_ij = (1 + cos(v_i, e_j)) / 2 ∈ [0, 1]` (§2.5).
pub fn compatibility(v: &[f64], e: &[f64]) -> f64 {
    ((1.0 + cos(v, e)) / 2.0).clamp(0.0, 1.0)
}

/// Pheromone deposit (§2.8): `p ← p + η·e`, then scaled back to unit length if longer
/// (saturation cap, not a decay).
pub fn deposit(p: &mut [f64], eta: f64, e: &[f64]) {
    for (x, y) in p.iter_mut().zip(e) {
        *x += eta * y;
    }
    let n = norm(p);
    if n > 1.0 {
        for x in p.iter_mut() {
            *x /= n;
        }
    }
}

/// Embeddings of one task, cached by text (a text is encoded once per task).
#[derive(Debug, Default)]
pub struct Cache {
    vectors: HashMap<String, Vec<f64>>,
    /// Texts sent to the encoder so far.
    pub encoded: usize,
}

impl Cache {
    /// Encodes every text of `texts` not yet cached, in one call.
    pub async fn fill(
        &mut self,
        embedder: &dyn Embedder,
        texts: &[String],
    ) -> Result<(), EmbedError> {
        let mut missing: Vec<String> = Vec::new();
        for t in texts {
            if !self.vectors.contains_key(t) && !missing.contains(t) {
                missing.push(t.clone());
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        let rows = embedder.embed(&missing).await?;
        for (t, row) in missing.into_iter().zip(rows.rows()) {
            self.encoded += 1;
            self.vectors
                .insert(t, row.iter().map(|&x| f64::from(x)).collect());
        }
        Ok(())
    }

    /// The vector of a cached text (empty if it was never filled).
    pub fn get(&self, text: &str) -> Vec<f64> {
        self.vectors.get(text).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn compatibility_maps_cosine_to_unit_interval() {
        let a = [1.0, 0.0];
        assert_eq!(compatibility(&a, &[1.0, 0.0]), 1.0);
        assert!((compatibility(&a, &[0.5, 0.75f64.sqrt()]) - 0.75).abs() < 1e-12);
        assert_eq!(compatibility(&a, &[0.0, 1.0]), 0.5);
        assert_eq!(compatibility(&a, &[-1.0, 0.0]), 0.0);
        assert_eq!(compatibility(&a, &[0.0, 0.0]), 0.5, "cos with zero is 0");
    }

    #[test]
    fn deposits_saturate_at_unit_length() {
        let mut p = vec![0.0, 0.0];
        deposit(&mut p, 0.2, &[1.0, 0.0]);
        assert_eq!(p, vec![0.2, 0.0]);
        for _ in 0..10 {
            deposit(&mut p, 0.2, &[1.0, 0.0]);
        }
        assert!((norm(&p) - 1.0).abs() < 1e-12);
        deposit(&mut p, 0.2, &[0.0, 1.0]);
        assert!((norm(&p) - 1.0).abs() < 1e-12);
        assert!(p[1] > 0.0);
        assert_eq!(normalise(&[0.0, 0.0]), vec![0.0, 0.0]);
    }

    #[test]
    fn texts_follow_the_templates() {
        let t = competence_text(false, "solves", "No recorded activity yet.").unwrap();
        assert_eq!(
            t,
            "Represent this agent's competence at collaborative mathematical reasoning: Agent \
             Ability Description: solves Agent Performance History: No recorded activity yet."
        );
        let long = competence_text(true, "ABILITY", "HISTORY").unwrap();
        assert!(long.contains("ABILITY") && long.contains("HISTORY"));
        assert!(!long.contains("{{"));
        let e = event_text(&EventText {
            id: "E1",
            kind: "leaf",
            task_type: "general",
            description: "How many?",
            dependencies: &[],
            status: "open",
            progress: &[],
            milestone: "the answer",
        });
        assert_eq!(
            e,
            "Represent this reasoning sub-task for matching it to capable agents: Event E1 \
             (leaf, general). Description: How many?. Depends on: none. Progress: open. \
             Milestone: the answer."
        );
        assert!(availability_text("Role: worker.").starts_with(AVAILABILITY));
    }

    #[tokio::test]
    async fn the_cache_encodes_each_text_once() {
        let emb = colony_llm::embed::default_embedder();
        let mut c = Cache::default();
        let texts = vec!["a b".to_string(), "c".to_string(), "a b".to_string()];
        c.fill(&emb, &texts).await.unwrap();
        assert_eq!(c.encoded, 2);
        c.fill(&emb, &texts).await.unwrap();
        assert_eq!(c.encoded, 2);
        assert_eq!(c.get("c").len(), emb.dim());
        assert!(
            Instruction::Auto.long_for(&emb),
            "hashing has no input limit"
        );
    }
}
