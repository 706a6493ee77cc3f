//! Reasoning policies: solve one QA item with a team of LLM agents.
//!
//! Design notes: docs/design/reasoning.md §0 (shared conventions), docs/design/selforg.md §1
//! (SelfOrg), docs/design/swarmsys.md §2 (SwarmSys), docs/design/baselines.md §3 (baselines:
//! single, CoT, self-consistency, debate, and the compact DyLAN, MacNet and AgentVerse).
//! A policy gets a [`Query`] (the item, the run seed) and a [`Roster`] (role cards and models
//! of its agents), builds a [`Team`](colony_runtime::Team) for the query, and returns a
//! [`PolicyOutput`]: final text, extracted answer, the full transcript and a policy-specific
//! trace.
//!
//! Writing a new policy means implementing [`ReasoningPolicy`]; see
//! `examples/custom_policy.rs`.

pub mod agentverse;
pub mod autogen;
pub mod baseline_sim;
pub mod code_sim;
pub mod common;
mod context;
mod cot;
mod debate;
pub mod dylan;
pub mod gdesigner;
pub mod gptswarm;
mod graph_error;
pub mod macnet;
pub mod mad;
pub mod multipersona;
pub mod prompts;
mod react;
pub mod role_pool;
mod seeds;
mod self_consistency;
pub mod self_refine;
mod single;
pub mod vote;

pub use agentverse::{AgentVerse, AgentVerseOptions};
pub use autogen::AutoGen;
pub use dylan::{Dylan, DylanOptions, DylanRoles};
pub use gdesigner::{GDesigner, GDesignerOptions};
pub use gptswarm::{GptSwarm, GptSwarmOptions};
pub use macnet::{MacNet, MacNetOptions, Topology};
pub use mad::Mad;
pub use multipersona::MultiPersona;
pub use self_refine::SelfRefine;

pub use crate::options::{choice, OptionError, PolicyOptions};
pub use context::{BuildReasoning, ReasoningContext};
pub use cot::{cot_prompt, ChainOfThought, STEP_BY_STEP};
pub use debate::{debate_prompt, Debate};
pub use graph_error::GraphError;
pub use react::{React, REACT_SYSTEM};
pub use seeds::{below, derive_seed, llm_seed, shuffle, stream, uniform};
pub use self_consistency::SelfConsistency;
pub use single::Single;

use std::sync::Arc;

use async_trait::async_trait;
use colony_qa::{extract, Item, JudgeOptions};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use colony_llm::{Sampling, SharedModel, UsageReport};
use colony_runtime::{AgentSpec, RoleCard, RuntimeError, Team, Transcript};

/// The built-in sampling of the reasoning policies, the MASLab protocol's (design §0.2):
/// temperature 0.5, at most 2,048 completion tokens. It is the weakest layer: `models.toml`,
/// the command-line flags, role cards and per-call options all beat it (see [`Sampling`]).
pub const MASLAB_SAMPLING: Sampling = Sampling {
    temperature: Some(0.5),
    top_p: None,
    max_tokens: Some(2048),
    seed: None,
    stop: Vec::new(),
};

/// One member of a roster: its role card, model and the sampling its model is configured with.
#[derive(Clone)]
pub struct Member {
    /// Role card (system prompt; its sampling keys beat [`Member::sampling`]).
    pub role: Arc<RoleCard>,
    /// Model answering for this agent.
    pub model: SharedModel,
    /// Sampling of this member's model: the command-line flags over its `models.toml` entry
    /// (empty when neither sets anything); it beats [`Roster::sampling`].
    pub sampling: Sampling,
}

impl Member {
    /// A member with no sampling of its own (the roster's default applies).
    pub fn new(role: Arc<RoleCard>, model: SharedModel) -> Self {
        Self {
            role,
            model,
            sampling: Sampling::default(),
        }
    }
}

/// The agents a policy may use, in order (agent `i` is `agent_{i}`), plus default sampling.
#[derive(Clone)]
pub struct Roster {
    /// Members; policies that need fewer agents take the first ones.
    pub members: Vec<Member>,
    /// Default sampling under every member's (usually [`MASLAB_SAMPLING`]).
    pub sampling: Sampling,
}

impl std::fmt::Debug for Roster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let members: Vec<(&str, &str)> = self
            .members
            .iter()
            .map(|m| (m.role.name.as_str(), m.model.id()))
            .collect();
        f.debug_struct("Roster")
            .field("members", &members)
            .field("sampling", &self.sampling)
            .finish()
    }
}

impl Roster {
    /// The id of agent `i`.
    pub fn agent_id(i: usize) -> String {
        format!("agent_{i}")
    }

    /// What member `i`'s calls ask for unless a policy sets a field for one call: its role
    /// card over its model's sampling over the roster's default (None past the roster).
    pub fn effective_sampling(&self, i: usize) -> Option<Sampling> {
        let m = self.members.get(i)?;
        Some(m.role.sampling.or(&m.sampling).or(&self.sampling))
    }

    /// A team of the first `n` members (all when `n` exceeds the roster).
    pub fn team(&self, n: usize) -> Result<Team, PolicyError> {
        let ids: Vec<String> = (0..n.max(1).min(self.members.len().max(1)))
            .map(Self::agent_id)
            .collect();
        self.team_for(&ids)
    }

    /// A team whose agent `k` is called `ids[k]` (an environment's agent ids, say) and is
    /// member `k` of the roster, round-robin when there are more ids than members.
    pub fn team_for<S: AsRef<str>>(&self, ids: &[S]) -> Result<Team, PolicyError> {
        let specs: Option<Vec<AgentSpec>> = ids
            .iter()
            .enumerate()
            .map(|(k, id)| self.spec(k, id.as_ref()))
            .collect();
        match specs {
            Some(specs) if !specs.is_empty() => Ok(Team::builder().agents(specs).build()?),
            _ => Err(PolicyError::Config("the roster has no agents".into())),
        }
    }

    /// The agent `id` played by member `k` (round-robin past the roster): its role card and
    /// model, with its model's sampling over the roster's default. `None` for an empty
    /// roster. Reasoning teams and the embodied policies' callers build agents with it.
    pub fn spec(&self, k: usize, id: &str) -> Option<AgentSpec> {
        let m = self.members.get(k % self.members.len().max(1))?;
        Some(
            AgentSpec::new(id, m.role.clone(), m.model.clone())
                .with_sampling(m.sampling.or(&self.sampling)),
        )
    }
}

/// What a policy is asked to solve.
#[derive(Debug, Clone)]
pub struct Query {
    /// The item (question, gold, answer type).
    pub item: Item,
    /// The run seed every orchestration decision derives from (design §0.3).
    pub run_seed: u64,
}

impl Query {
    /// The prompt text of the query: question and answer-format instruction (design §0.4).
    pub fn text(&self) -> String {
        self.item.prompt()
    }

    /// The answer stated in `output`, per the item's answer type (docs/design/grading.md §4), if
    /// any.
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
///
/// Each failure class has its own variant so callers can branch; the enum grows with the
/// policies, hence `#[non_exhaustive]`. Every message is one line.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// Bad policy configuration that no more specific variant describes (an empty roster,
    /// inconsistent agent counts, …).
    #[error("policy configuration: {0}")]
    Config(String),
    /// The policy name is not one of the registered policies.
    #[error("policy configuration: unknown policy `{name}` (known: {known})")]
    UnknownPolicy {
        /// The name given (clipped).
        name: String,
        /// The registered names, comma-separated.
        known: String,
    },
    /// An option that is unknown, malformed or invalid, from the one option parser
    /// ([`crate::PolicyOptions`]; e.g. `debate:foo=1`, `debate:rounds=x`).
    #[error(transparent)]
    Option(#[from] OptionError),
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
    /// The policy's embedder failed (SwarmSys matching, docs/design/swarmsys.md §2.4).
    #[error("{policy}: embedding failed: {source}")]
    Embedding {
        /// The policy.
        policy: &'static str,
        /// What the embedder reported.
        #[source]
        source: colony_llm::embed::EmbedError,
    },
    /// The policy's communication graph could not be built (SelfOrg, docs/design/selforg.md §1.7).
    #[error("policy configuration: {policy}: {source}")]
    Graph {
        /// The policy.
        policy: &'static str,
        /// What the graph builder reported.
        #[source]
        source: GraphError,
    },
    /// A prompt template failed to compile or render.
    #[error("policy configuration: prompt template: {0}")]
    Template(#[source] minijinja::Error),
    /// A built-in role card could not be loaded.
    #[error("policy configuration: {0}")]
    Role(#[from] colony_runtime::RoleError),
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
    /// Called once before a run with every item it evaluates, in dataset order (finished
    /// items included, so the call is the same when a run resumes). Policies that solve items
    /// together use it (SwarmSys mode C groups items into exams, design §2.7); the default does
    /// nothing.
    fn prepare(&self, _items: &[Item], _run_seed: u64) {}
    /// Whether the policy learns from a training split (`--train`; GPTSwarm's edge
    /// probabilities, docs/design/baselines.md §3.13). The runner then trains it once per run
    /// label before it solves anything, or loads what an earlier run of the label learnt.
    fn learns(&self) -> bool {
        false
    }
    /// Learns from `split` with agents from `roster`; returns what it learnt (saved with the
    /// run and given back to [`Self::load_learnt`] on a resumed run). The default learns
    /// nothing.
    async fn train(&self, split: &TrainSplit<'_>, roster: &Roster) -> Result<Learnt, PolicyError> {
        let _ = (split, roster);
        Err(PolicyError::Config(format!(
            "{} does not learn",
            self.name()
        )))
    }
    /// Takes back what [`Self::train`] returned in an earlier run (the file saved with the
    /// run); an error names what does not fit.
    fn load_learnt(&self, state: &serde_json::Value) -> Result<(), PolicyError> {
        let _ = state;
        Ok(())
    }
}

/// A training split, as the runner hands it to a policy that learns.
pub struct TrainSplit<'a> {
    /// The training items (never among the evaluated ones).
    pub items: &'a [Item],
    /// Whether `answer` is correct for the item, by the dataset's grader.
    pub grade: &'a (dyn Fn(&Item, &str) -> bool + Send + Sync),
    /// The run seed (training draws derive from it).
    pub run_seed: u64,
}

/// What a policy learnt from a training split.
#[derive(Debug, Clone)]
pub struct Learnt {
    /// Its learnt state, saved as JSON with the run and reloadable.
    pub state: serde_json::Value,
    /// The calls and tokens training spent (charged to the run, reported apart from the
    /// evaluation's).
    pub usage: colony_llm::UsageTotals,
}

#[cfg(test)]
mod tests {
    use super::*;
    use colony_llm::{SimulatedConfig, SimulatedModel};

    #[test]
    fn effective_sampling_is_role_over_member_over_roster_default() {
        let model: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig::default()));
        let mut card = RoleCard::new("critic", "Be critical.");
        card.sampling.temperature = Some(0.2);
        let flags_over_model = Sampling {
            temperature: Some(0.9),
            max_tokens: Some(17),
            ..Sampling::default()
        };
        let roster = Roster {
            members: vec![
                Member {
                    sampling: flags_over_model,
                    ..Member::new(Arc::new(card), model.clone())
                },
                Member::new(Arc::new(RoleCard::new("plain", "")), model),
            ],
            sampling: MASLAB_SAMPLING,
        };
        let critic = roster.effective_sampling(0).unwrap();
        assert_eq!(
            (critic.temperature, critic.max_tokens),
            (Some(0.2), Some(17))
        );
        assert_eq!(roster.effective_sampling(1), Some(MASLAB_SAMPLING));
        assert_eq!(roster.effective_sampling(2), None);
    }
}

#[cfg(test)]
mod roster_tests {
    use super::*;
    use colony_llm::{SimulatedConfig, SimulatedModel};

    fn roster(n: usize) -> Roster {
        let model: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig::default()));
        Roster {
            members: (0..n)
                .map(|i| Member {
                    role: Arc::new(RoleCard::new(format!("role{i}"), "You help.")),
                    model: model.clone(),
                    sampling: Sampling::default(),
                })
                .collect(),
            sampling: MASLAB_SAMPLING,
        }
    }

    #[tokio::test]
    async fn teams_take_any_ids_and_reuse_members_round_robin() {
        let team = roster(2).team_for(&["1", "2", "3"]).unwrap();
        let ids: Vec<String> = team.agents().iter().map(|a| a.to_string()).collect();
        assert_eq!(ids, ["1", "2", "3"]);
        team.shutdown().await;
        let team = roster(3).team(2).unwrap();
        assert!(team.contains("agent_0") && team.contains("agent_1") && !team.contains("agent_2"));
        team.shutdown().await;
        assert!(roster(0).team(2).is_err());
        assert!(roster(2).team_for::<&str>(&[]).is_err());
    }
}
