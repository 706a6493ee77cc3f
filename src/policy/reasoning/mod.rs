//! Reasoning policies: solve one QA item with a team of LLM agents.
//!
//! Spec: `reasoning.md` §0 (shared conventions), §1 (SelfOrg), §3 (baselines). A policy gets a
//! [`Query`] (the item, the run seed) and a [`Roster`] (role cards and models of its agents),
//! builds a [`Team`](crate::runtime::Team) for the query, and returns a [`PolicyOutput`]:
//! final text, extracted answer, the full transcript and a policy-specific trace.
//!
//! Writing a new policy means implementing [`ReasoningPolicy`]; see
//! `examples/custom_policy.rs`.

mod cot;
mod debate;
pub mod prompts;
mod registry;
mod seeds;
mod self_consistency;
pub mod selforg;
mod single;
pub mod vote;

pub use cot::{cot_prompt, ChainOfThought, STEP_BY_STEP};
pub use debate::{debate_prompt, Debate};
pub use registry::{policy_by_name, policy_with_embedder, POLICY_NAMES};
pub use seeds::{derive_seed, llm_seed};
pub use self_consistency::SelfConsistency;
pub use single::Single;

use std::sync::Arc;

use async_trait::async_trait;
use colony_qa::{extract, Item, JudgeOptions};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::llm::{SharedModel, UsageReport};
use crate::runtime::{AgentSpec, RoleCard, RuntimeError, Team, Transcript};

/// Generation defaults of the MASLab protocol (spec §0.2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    /// Sampling temperature (0.5).
    pub temperature: f32,
    /// Completion-token limit (2048).
    pub max_tokens: u32,
}

impl Default for Generation {
    fn default() -> Self {
        Self {
            temperature: 0.5,
            max_tokens: 2048,
        }
    }
}

/// One member of a roster: its role card and model.
#[derive(Clone)]
pub struct Member {
    /// Role card (system prompt).
    pub role: Arc<RoleCard>,
    /// Model answering for this agent.
    pub model: SharedModel,
}

/// The agents a policy may use, in order (agent `i` is `agent_{i}`), plus generation settings.
#[derive(Clone)]
pub struct Roster {
    /// Members; policies that need fewer agents take the first ones.
    pub members: Vec<Member>,
    /// Sampling settings.
    pub generation: Generation,
}

impl Roster {
    /// The id of agent `i`.
    pub fn agent_id(i: usize) -> String {
        format!("agent_{i}")
    }

    /// A team of the first `n` members (all when `n` exceeds the roster).
    pub fn team(&self, n: usize) -> Result<Team, PolicyError> {
        if self.members.is_empty() {
            return Err(PolicyError::Config("the roster has no agents".into()));
        }
        let specs = self
            .members
            .iter()
            .take(n.max(1))
            .enumerate()
            .map(|(i, m)| AgentSpec::new(Self::agent_id(i), m.role.clone(), m.model.clone()));
        Ok(Team::builder().agents(specs).build()?)
    }
}

/// What a policy is asked to solve.
#[derive(Debug, Clone)]
pub struct Query {
    /// The item (question, gold, answer type).
    pub item: Item,
    /// The run seed every orchestration decision derives from (spec §0.3).
    pub run_seed: u64,
}

impl Query {
    /// The prompt text of the query: question and answer-format instruction (spec §0.4).
    pub fn text(&self) -> String {
        self.item.prompt()
    }

    /// The answer stated in `output`, per the item's answer type (spec §4), if any.
    pub fn extract(&self, output: &str) -> Option<String> {
        extract(output, &self.item.answer_type, &JudgeOptions::default()).answer
    }
}

/// The result of solving one query.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PolicyOutput {
    /// The final response text.
    pub final_text: String,
    /// The answer extracted from it (None when there is none).
    pub answer: Option<String>,
    /// Every call and message, deterministic order.
    pub transcript: Transcript,
    /// Token and call totals of this query.
    pub usage: UsageReport,
    /// Policy-specific trace (votes, rounds, graphs, …).
    pub trace: serde_json::Value,
}

/// Errors of policies.
#[derive(Debug, Error)]
pub enum PolicyError {
    /// Bad policy configuration (unknown option, impossible value).
    #[error("policy configuration: {0}")]
    Config(String),
    /// A count option outside its range (e.g. `debate:rounds=1000000`).
    #[error("policy configuration: {policy}: option `{option}` must be from {min} to {max}, got {value}")]
    OutOfRange {
        /// The policy (`debate`, `selforg`, …).
        policy: &'static str,
        /// The option (`agents`, `rounds`, `k`, …).
        option: &'static str,
        /// The value given.
        value: usize,
        /// The smallest value allowed.
        min: usize,
        /// The largest value allowed (a documented constant of the policy).
        max: usize,
    },
    /// A number option that is NaN or infinite (e.g. `selforg:tau=inf`).
    #[error(
        "policy configuration: {policy}: option `{option}` must be a finite number, got {value}"
    )]
    NotFinite {
        /// The policy.
        policy: &'static str,
        /// The option (`tau`, `gamma`).
        option: &'static str,
        /// The value given.
        value: f64,
    },
    /// The runtime failed (budget exhausted, agent stopped, …).
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

/// `Ok` when `min ≤ value ≤ max`, else [`PolicyError::OutOfRange`].
pub(crate) fn check_range(
    policy: &'static str,
    option: &'static str,
    value: usize,
    min: usize,
    max: usize,
) -> Result<(), PolicyError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(PolicyError::OutOfRange {
            policy,
            option,
            value,
            min,
            max,
        })
    }
}

/// A way of solving a query with a team of agents.
#[async_trait]
pub trait ReasoningPolicy: Send + Sync {
    /// Name used in results (`single`, `cot`, `selforg`, …).
    fn name(&self) -> &str;
    /// Solves one query with agents from `roster`.
    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError>;
}
