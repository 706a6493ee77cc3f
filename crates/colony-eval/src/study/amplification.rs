//! The SelfOrg amplification study (SelfOrg §2.6; docs/design/selforg.md §1.16), run on colony's
//! simulated model so it needs no LLM:
//!
//! (a) P(at least two of N agents correct): the closed form `1 − (1−p)^N − N·p·(1−p)^(N−1)`
//!     next to a Monte-Carlo estimate, N = 1..10, p ∈ {0.2, 0.4, 0.6};
//! (b) accuracy of single, self-consistency, debate and SelfOrg on a simulated GSM8K-format set
//!     for p ∈ {0.2 … 0.8}, wrong answers dispersed over K = 10 values (the end-to-end variant
//!     of design §1.16: the real policies, prompts, DAG scheduling, embeddings and grading);
//! (c) SelfOrg with and without early stopping (γ = 0.9): accuracy and tokens;
//! (d) which variant closes SelfOrg's gap to self-consistency, and at what token cost: SelfOrg
//!     with the embedding windows `full`, `tail` and `answer`, and SwarmSys, with short and
//!     long (chain-of-thought) replies ([`super::gap`]).
//!
//! The simulated agents are not LLMs: an agent is right with probability p and adopts a peer
//! answer it reads with probability `susceptibility` (the spec's "adoption model"). The study
//! exercises the orchestration; it makes no claim about LLMs.

use std::sync::Arc;

use colony_qa::{AnswerType, Item};
use futures::stream::{self, StreamExt};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::eval::{solve_item, ItemResult, PolicySummary};
use colony_llm::embed::Embedder;
use colony_llm::{AnswerKey, SharedModel, SimulatedConfig, SimulatedModel};
use colony_policy::reasoning::{Member, ReasoningContext, Roster, MASLAB_SAMPLING};
use colony_policy::registry::{DatasetEntry, Registry};
use colony_runtime::RoleCard;

/// Settings of the study.
#[derive(Debug, Clone, Serialize)]
pub struct StudyConfig {
    /// The registry the policies resolve in (it teaches the simulated model too).
    #[serde(skip)]
    pub registry: Arc<Registry>,
    /// Seed of every draw (Monte-Carlo, simulated model, item generation, run seed).
    pub seed: u64,
    /// Monte-Carlo trials per (N, p) in part (a).
    pub trials: usize,
    /// Agent counts of part (a).
    pub agent_counts: Vec<usize>,
    /// Accuracies of part (a).
    pub closed_form_p: Vec<f64>,
    /// Accuracies of parts (b) and (c).
    pub policy_p: Vec<f64>,
    /// Simulated GSM8K-format items per accuracy in parts (b) and (c).
    pub items: usize,
    /// Distinct wrong answers per question (dispersed, uniform).
    pub wrong_answers: usize,
    /// Probability that an agent adopts a peer answer present in its prompt.
    pub susceptibility: f64,
    /// Policies of part (b), as `colony eval --policy` specs.
    pub policies: Vec<String>,
    /// Early-stopping threshold γ of part (c).
    pub gamma: f64,
    /// Items solved at once.
    pub concurrency: usize,
    /// Name of the embedder used by SelfOrg (for the record).
    pub embedder: String,
    /// Accuracies of part (d) ([`super::gap`]).
    pub gap_p: Vec<f64>,
    /// Policies of part (d), self-consistency (the reference) first.
    pub gap_policies: Vec<String>,
    /// Approximate tokens of reasoning before the answer in part (d)'s long replies
    /// (0: short replies only).
    pub long_reply_tokens: usize,
    /// Input limit, in tokens, given in part (d) to an embedder that reports none.
    pub encoder_tokens: usize,
}

impl Default for StudyConfig {
    fn default() -> Self {
        Self {
            registry: Arc::new(Registry::builtin()),
            seed: 2024,
            trials: 20_000,
            agent_counts: (1..=10).collect(),
            closed_form_p: vec![0.2, 0.4, 0.6],
            policy_p: vec![0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
            items: 100,
            wrong_answers: 10,
            susceptibility: 0.4,
            policies: vec![
                "single".into(),
                "self_consistency".into(),
                "debate".into(),
                "selforg".into(),
            ],
            gamma: 0.9,
            concurrency: 32,
            embedder: String::new(),
            gap_p: vec![0.3, 0.5, 0.7],
            gap_policies: vec![
                "self_consistency".into(),
                "selforg".into(),
                "selforg:embed=tail".into(),
                "selforg:embed=answer".into(),
                "swarmsys".into(),
            ],
            long_reply_tokens: 400,
            encoder_tokens: 256,
        }
    }
}

/// `1 − (1−p)^N − N·p·(1−p)^(N−1)`: P(at least two of N independent agents are correct).
pub fn p_at_least_two(n: usize, p: f64) -> f64 {
    let n_f = n as f64;
    let q = 1.0 - p;
    (1.0 - q.powi(n as i32) - n_f * p * q.powi(n as i32 - 1)).max(0.0)
}

/// One row of part (a).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ClosedFormRow {
    /// Agents.
    pub n: usize,
    /// Per-agent accuracy.
    pub p: f64,
    /// Closed form.
    pub closed_form: f64,
    /// Monte-Carlo estimate.
    pub monte_carlo: f64,
    /// Half-width of the estimate's 95% normal confidence interval.
    pub ci95: f64,
}

/// Part (a): the closed form next to a seeded Monte-Carlo estimate.
pub fn closed_form_vs_monte_carlo(config: &StudyConfig) -> Vec<ClosedFormRow> {
    let mut rows = Vec::new();
    for &p in &config.closed_form_p {
        for &n in &config.agent_counts {
            // One stream per cell, so adding cells does not change the others.
            let cell = (n as u64) << 32 | (p * 1000.0).round() as u64;
            let mut rng = ChaCha8Rng::seed_from_u64(config.seed ^ cell);
            let hits = (0..config.trials)
                .filter(|_| (0..n).filter(|_| rng.random::<f64>() < p).count() >= 2)
                .count();
            let trials = config.trials.max(1) as f64;
            let est = hits as f64 / trials;
            rows.push(ClosedFormRow {
                n,
                p,
                closed_form: p_at_least_two(n, p),
                monte_carlo: est,
                ci95: 1.96 * (est * (1.0 - est) / trials).sqrt(),
            });
        }
    }
    rows
}

/// The simulated GSM8K-format set: word problems with integer answers, seeded.
pub fn simulated_items(count: usize, seed: u64) -> Vec<Item> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0067_736d_386b);
    const TEMPLATES: [(&str, &str); 4] = [
        ("A baker makes {a} trays of {b} muffins and sells {c} muffins. How many muffins are left?", "ab-c"),
        ("Sam reads {a} pages a day for {b} days, then {c} more pages. How many pages does Sam read?", "ab+c"),
        ("A farm has {a} pens with {b} sheep each and buys {c} more sheep. How many sheep are there?", "ab+c"),
        ("A class of {a} rows of {b} desks loses {c} desks. How many desks remain?", "ab-c"),
    ];
    (0..count)
        .map(|i| {
            let (text, op) = TEMPLATES[i % TEMPLATES.len()];
            let a: i64 = rng.random_range(3..20);
            let b: i64 = rng.random_range(3..20);
            let c: i64 = rng.random_range(1..(a * b).min(40));
            let gold = if op == "ab-c" { a * b - c } else { a * b + c };
            Item {
                id: format!("sim-{i}"),
                question: text
                    .replace("{a}", &a.to_string())
                    .replace("{b}", &b.to_string())
                    .replace("{c}", &c.to_string()),
                choices: vec![],
                gold: gold.to_string(),
                answer_type: AnswerType::Numeric,
                meta: Default::default(),
            }
        })
        .collect()
}

/// The simulated model with accuracy `p` that knows `items`.
pub(crate) fn simulated_model(config: &StudyConfig, p: f64, items: &[Item]) -> SharedModel {
    let mut key = AnswerKey::new();
    for item in items {
        key.insert(&item.question, item.gold.clone());
    }
    Arc::new(SimulatedModel::new(SimulatedConfig {
        name: format!("sim-p{p:.1}"),
        seed: config.seed,
        accuracy: p,
        susceptibility: config.susceptibility,
        wrong_answers: config.wrong_answers,
        wrong_skew: 0.0,
        answer_key: key,
        responders: config.registry.responders(),
    }))
}

/// The studies' generated GSM8K-style items, graded as GSM8K is, recorded as
/// `simulated-gsm8k`.
pub(crate) fn study_dataset() -> DatasetEntry {
    let mut d = DatasetEntry::published(colony_qa::Dataset::Gsm8k);
    d.name = "simulated-gsm8k".into();
    d
}

/// A roster of `roles.len()` agents, all `model`.
fn roster_of(model: SharedModel, roles: &[Arc<RoleCard>]) -> Roster {
    Roster {
        members: roles
            .iter()
            .map(|role| Member::new(role.clone(), model.clone()))
            .collect(),
        sampling: MASLAB_SAMPLING,
    }
}

/// One row of parts (b) and (c): a policy at one accuracy.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PolicyRow {
    /// Policy spec as run.
    pub policy: String,
    /// Per-agent accuracy of the simulated model.
    pub p: f64,
    /// Totals over the items.
    pub summary: PolicySummary,
    /// Mean LLM calls per item.
    pub calls_per_item: f64,
    /// Mean tokens (prompt + completion) per item.
    pub tokens_per_item: f64,
}

/// Runs `spec` over `items` at accuracy `p`.
async fn run_policy_at(
    config: &StudyConfig,
    spec: &str,
    p: f64,
    items: &[Item],
    roles: &[Arc<RoleCard>],
    embedder: Arc<dyn Embedder>,
) -> Result<PolicyRow, colony_policy::reasoning::PolicyError> {
    let model = simulated_model(config, p, items);
    run_policy_with(config, spec, p, items, roles, embedder, model).await
}

/// Runs `spec` over `items` with every agent played by `model` (accuracy `p`, for the row).
pub(crate) async fn run_policy_with(
    config: &StudyConfig,
    spec: &str,
    p: f64,
    items: &[Item],
    roles: &[Arc<RoleCard>],
    embedder: Arc<dyn Embedder>,
    model: SharedModel,
) -> Result<PolicyRow, colony_policy::reasoning::PolicyError> {
    let policy = config
        .registry
        .reasoning(spec, &ReasoningContext::new(embedder))?;
    let roster = roster_of(model, roles);
    let dataset = study_dataset();
    let results: Vec<ItemResult> = stream::iter(items)
        .map(|item| solve_item(policy.as_ref(), item, &roster, config.seed, &dataset))
        .buffer_unordered(config.concurrency.max(1))
        .collect()
        .await;
    let summary = PolicySummary::of(&results);
    let n = summary.n.max(1) as f64;
    Ok(PolicyRow {
        policy: spec.to_string(),
        p,
        calls_per_item: summary.calls as f64 / n,
        tokens_per_item: (summary.prompt_tokens + summary.completion_tokens) as f64 / n,
        summary,
    })
}

/// Parts (b) and (c): every policy of `config.policies` (b), then SelfOrg with early stopping
/// at γ and without (c), at every accuracy of `config.policy_p`; `progress` sees each row.
pub async fn policy_accuracy(
    config: &StudyConfig,
    roles: &[Arc<RoleCard>],
    embedder: Arc<dyn Embedder>,
    progress: &(dyn Fn(&PolicyRow) + Sync),
) -> Result<(Vec<PolicyRow>, Vec<PolicyRow>), colony_policy::reasoning::PolicyError> {
    let items = simulated_items(config.items, config.seed);
    let mut policies = Vec::new();
    let mut early = Vec::new();
    for &p in &config.policy_p {
        for spec in &config.policies {
            let row = run_policy_at(config, spec, p, &items, roles, embedder.clone()).await?;
            progress(&row);
            policies.push(row);
        }
        for spec in [
            "selforg".to_string(),
            format!("selforg:gamma={}", config.gamma),
        ] {
            // Same seed, same items: part (b)'s SelfOrg row is the run without early stopping.
            let done = policies
                .iter()
                .find(|r: &&PolicyRow| r.p == p && r.policy == spec)
                .cloned();
            let row = match done {
                Some(row) => row,
                None => {
                    let row =
                        run_policy_at(config, &spec, p, &items, roles, embedder.clone()).await?;
                    progress(&row);
                    row
                }
            };
            early.push(row);
        }
    }
    Ok((policies, early))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_form_matches_the_spec_reference_values() {
        // Design §1.16 reference values (N rows; p = 0.1 / 0.3 / 0.5 / 0.7).
        let cases = [
            (2, [0.0100, 0.0900, 0.2500, 0.4900]),
            (4, [0.0523, 0.3483, 0.6875, 0.9163]),
            (7, [0.1497, 0.6706, 0.9375, 0.9962]),
            (10, [0.2639, 0.8507, 0.9893, 0.9999]),
        ];
        for (n, values) in cases {
            for (p, want) in [0.1, 0.3, 0.5, 0.7].into_iter().zip(values) {
                let got = p_at_least_two(n, p);
                assert!((got - want).abs() < 5e-5, "N={n} p={p}: {got} vs {want}");
            }
        }
        assert_eq!(p_at_least_two(1, 0.9), 0.0);
    }

    #[test]
    fn monte_carlo_agrees_with_the_closed_form_and_is_seeded() {
        let config = StudyConfig {
            trials: 4000,
            agent_counts: vec![1, 3, 6],
            ..StudyConfig::default()
        };
        let rows = closed_form_vs_monte_carlo(&config);
        assert_eq!(rows.len(), 9);
        for r in &rows {
            // 4.5 standard errors (plus a floor for p̂ = 0): fails only when the sampler is wrong.
            let se = (r.closed_form * (1.0 - r.closed_form) / 4000.0).sqrt();
            assert!(
                (r.monte_carlo - r.closed_form).abs() <= 4.5 * se + 1e-3,
                "{r:?}"
            );
        }
        assert_eq!(rows, closed_form_vs_monte_carlo(&config));
        let other = StudyConfig {
            seed: 1,
            ..config.clone()
        };
        assert_ne!(rows, closed_form_vs_monte_carlo(&other));
    }

    #[test]
    fn simulated_items_are_seeded_and_answers_are_right() {
        let items = simulated_items(8, 3);
        assert_eq!(items, simulated_items(8, 3));
        assert_ne!(items, simulated_items(8, 4));
        for item in &items {
            let nums: Vec<i64> = item
                .question
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            let (a, b, c) = (nums[0], nums[1], nums[2]);
            let gold: i64 = item.gold.parse().unwrap();
            assert!(gold == a * b - c || gold == a * b + c, "{item:?}");
            assert!(gold > 0);
        }
    }
}
