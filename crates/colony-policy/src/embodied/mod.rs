//! Embodied policies: drive the agents of an environment episode step by step.
//!
//! The seam (DESIGN.md, "EmbodiedPolicy"): each step the one episode loop
//! ([`crate::eval::embodied::episode`]) snapshots **owned** views of the agents that must decide now
//! ([`StepView`]: id, the environment's instructions, observation text, optional perception and
//! execution prompts, neighbours, feedback on the previous reply), awaits the policy's
//! [`Decision`] (one reply text per agent plus a log of every model call it made), then parses
//! the replies with the environment's lenient parser and steps synchronously, so an
//! environment never crosses an `.await`. This is PettingZoo's Parallel API with the
//! environment's text interface in place of action spaces.
//!
//! Scripted (non-LLM) policies read the whole environment instead; they implement
//! [`EmbodiedPolicy::decide_now`] and go through the same loop ([`Scripted`]).
//!
//! Writing a new policy: implement [`EmbodiedPolicy`] (usually with a [`Caller`] that makes
//! the recorded model calls on a [`Team`](colony_runtime::Team) whose actor ids are the
//! environment's agent ids), and register it in [`registry`].

mod call_roles;
pub(crate) mod caller;
pub mod camon;
pub mod coela;
pub mod embodied_fw;
pub mod factory;
pub mod framework;
pub mod framework_sim;
pub mod framework_step;
pub mod hmas2;
pub(crate) mod independent;
mod script;
mod scripted;
pub mod tags;
mod token_guard;
/// ` (purpose P)` for the last failed call of `calls`, or nothing.
fn failed_purpose(calls: &[CallLog]) -> String {
    calls
        .iter()
        .rev()
        .find(|c| c.error.is_some())
        .map_or(String::new(), |c| format!(" (purpose {})", c.purpose))
}

#[cfg(test)]
pub(crate) mod test_support;

pub use caller::{CallLog, Caller, CallerConfig, CallerSlot, EMBODIED_SAMPLING};
pub use factory::{BuildEmbodied, EmbodiedBuild, EmbodiedFactory, PolicyContext};
pub use independent::Independent;
pub use script::{ReplyScript, ScriptError};
pub use scripted::Scripted;
pub use token_guard::Truncated;

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use colony_env_api::{AgentId, DynEnvironment, EnvError, ExecutionPrompter};
use thiserror::Error;

use colony_runtime::RuntimeError;

/// What one deciding agent sees this step (owned: no borrow of the environment).
#[derive(Clone)]
pub struct AgentView {
    /// The environment's agent id (also the actor id in the policy's team).
    pub id: AgentId,
    /// The benchmark's instructions for this agent (system prompt).
    pub instructions: String,
    /// The agent's own rules for prompts that describe several agents
    /// ([`colony_env_api::FrameworkBriefing::agent_card`]); `None`: its instructions serve.
    pub card: Option<String>,
    /// The observation text (`observe_text`).
    pub observation: String,
    /// The PERCEPTION prompt, for benchmarks that turn observations into text with a model
    /// call (docs/design/wildfire.md §11.1).
    pub perception_prompt: Option<String>,
    /// Builds the EXECUTION prompt for a free-text action (docs/design/wildfire.md §11.2).
    pub execution: Option<ExecutionPrompter>,
    /// Agents this one can hear now (filled only for policies that ask for it).
    pub neighbours: Vec<AgentId>,
    /// Feedback on this agent's previous reply (e.g. rejected plan actions).
    pub feedback: Option<String>,
    /// The JSON Schema the agent's action reply must fit, when the policy runs with
    /// `structured=true` ([`colony_env_api::Environment::reply_schema`]); `None` otherwise.
    pub reply_schema: Option<serde_json::Value>,
}

impl std::fmt::Debug for AgentView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentView")
            .field("id", &self.id)
            .field("observation_chars", &self.observation.len())
            .field("perception", &self.perception_prompt.is_some())
            .field("execution", &self.execution.is_some())
            .field("feedback", &self.feedback)
            .finish()
    }
}

/// The decision point of one step.
#[derive(Clone)]
pub struct StepView {
    /// Environment steps taken before this decision (0 at the start).
    pub step: u64,
    /// The episode's seed.
    pub seed: u64,
    /// The environment id (e.g. `swarmbench-v0`).
    pub env_id: String,
    /// Every agent of the environment, in order.
    pub agents: Vec<AgentId>,
    /// The agents that must decide now, in the environment's order.
    pub deciding: Vec<AgentView>,
    /// The environment delivers messages itself (policies must not deliver them again).
    pub env_delivers_messages: bool,
    /// A read-only copy of the environment at this decision, when the policy asked for one
    /// ([`EmbodiedPolicy::wants_snapshot`]).
    pub env: Option<Arc<dyn DynEnvironment + Sync>>,
}

impl StepView {
    /// The environment snapshot a policy asked for with [`EmbodiedPolicy::wants_snapshot`];
    /// [`EmbodiedError::Unsupported`] naming `policy` when the loop gave none.
    pub fn snapshot(&self, policy: &str) -> Result<Arc<dyn DynEnvironment + Sync>, EmbodiedError> {
        self.env.clone().ok_or_else(|| EmbodiedError::Unsupported {
            policy: policy.into(),
            env: self.env_id.clone(),
            reason: "the step view has no environment snapshot".into(),
        })
    }
}

impl std::fmt::Debug for StepView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepView")
            .field("step", &self.step)
            .field("seed", &self.seed)
            .field("env_id", &self.env_id)
            .field("deciding", &self.deciding)
            .field("snapshot", &self.env.is_some())
            .finish()
    }
}

/// A policy's decision for one step.
#[derive(Debug, Clone, Default)]
pub struct Decision {
    /// Reply text per agent, parsed by the environment's lenient parser (agents left out
    /// take the no-op).
    pub replies: BTreeMap<AgentId, String>,
    /// Every model call made for this step, in a deterministic order.
    pub calls: Vec<CallLog>,
}

/// Errors of embodied policies.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum EmbodiedError {
    /// Bad policy name or option (names the option).
    #[error("policy {policy}: {message}")]
    Config {
        /// The policy spec.
        policy: String,
        /// What is wrong.
        message: String,
    },
    /// The policy cannot run on this environment.
    #[error("policy {policy} cannot run on {env}: {reason}")]
    Unsupported {
        /// The policy.
        policy: String,
        /// The environment id.
        env: String,
        /// Why.
        reason: String,
    },
    /// A model call failed (after the client's retries); the step's calls so far are kept.
    /// The message names the failed call's purpose, so a refusal (a prompt too long for the
    /// context) says which of a framework's prompts it was.
    #[error("step {step}{}: {source}", failed_purpose(calls))]
    Call {
        /// The step.
        step: u64,
        /// The runtime's error (names the agent).
        #[source]
        source: Box<RuntimeError>,
        /// The calls made in this step before and including the failed one.
        calls: Vec<CallLog>,
    },
    /// A scripted reply file has no line for this call.
    #[error(transparent)]
    Script(#[from] ScriptError),
    /// The environment refused something (a scripted policy's action, an unknown agent).
    #[error(transparent)]
    Env(#[from] EnvError),
    /// The runtime failed outside a call (e.g. building the team).
    #[error(transparent)]
    Runtime(Box<RuntimeError>),
}

impl From<RuntimeError> for EmbodiedError {
    fn from(e: RuntimeError) -> Self {
        Self::Runtime(Box::new(e))
    }
}

impl EmbodiedError {
    /// A [`EmbodiedError::Config`] of `policy` saying `message` (an option, a template, a
    /// component that could not be built).
    pub fn config(policy: impl Into<String>, message: impl std::fmt::Display) -> Self {
        Self::Config {
            policy: policy.into(),
            message: message.to_string(),
        }
    }
}

impl From<crate::options::OptionError> for EmbodiedError {
    /// An option error of [`crate::PolicyOptions`] (the one parser of reasoning and embodied
    /// options) as a configuration error of the embodied policy it names.
    fn from(e: crate::options::OptionError) -> Self {
        use crate::options::OptionError as O;
        match e {
            O::Unknown { policy, key, known } => {
                Self::config(policy, format!("unknown option `{key}`{known}"))
            }
            O::Invalid {
                policy,
                key,
                reason,
            } => Self::config(policy, format!("option `{key}` {reason}")),
        }
    }
}

/// A coordination policy for environment episodes.
#[async_trait]
pub trait EmbodiedPolicy: Send {
    /// The name used in results (`independent`, `scripted:heuristic`, …).
    fn name(&self) -> &str;

    /// Whether [`AgentView::neighbours`] should be filled (it costs one `hears` test per pair
    /// of agents, so it is opt-in).
    fn wants_neighbours(&self) -> bool {
        false
    }

    /// Whether the policy decides on every step, also when no agent must (frameworks that
    /// re-plan for everybody each step: Embodied, HMAS-2, docs/design/frameworks.md §14.4–14.5); by
    /// default the loop asks only when [`DynEnvironment::deciding_agents`] is not empty.
    fn decides_every_step(&self) -> bool {
        false
    }

    /// Whether [`StepView::env`] should hold a read-only copy of the environment (one clone
    /// per step, so it is opt-in).
    fn wants_snapshot(&self) -> bool {
        false
    }

    /// Whether the policy asks for schema-constrained action replies (`structured=true`,
    /// docs/design/tools.md §8): the episode loop then fills [`AgentView::reply_schema`] and
    /// reads each reply that is JSON fitting it as the action text
    /// ([`colony_env_api::Environment::structured_reply_text`]).
    fn structured(&self) -> bool {
        false
    }

    /// A decision read directly from the environment, for scripted policies; `None` (the
    /// default) means "ask [`EmbodiedPolicy::decide`] with owned views".
    fn decide_now(
        &mut self,
        env: &dyn DynEnvironment,
    ) -> Option<Result<BTreeMap<AgentId, String>, EmbodiedError>> {
        let _ = env;
        None
    }

    /// Decides for the agents in `view.deciding`.
    async fn decide(&mut self, view: StepView) -> Result<Decision, EmbodiedError>;

    /// The policy's model-facing state, for LLM-driven policies (`None`, the default, for
    /// scripted ones): what the default [`EmbodiedPolicy::take_trace`] and
    /// [`EmbodiedPolicy::finish`] work on.
    fn slot(&mut self) -> Option<&mut CallerSlot> {
        None
    }

    /// The policy's trace of the step just decided (e.g. SelfOrg's ψ, edges, order, leader),
    /// written into `steps.jsonl` under `trace`; by default the slot's trace, if any.
    fn take_trace(&mut self) -> Option<serde_json::Value> {
        self.slot().and_then(|s| s.trace.take())
    }

    /// Called once when the episode ends (stop actors, flush state); by default stops the
    /// slot's caller.
    async fn finish(&mut self) {
        if let Some(slot) = self.slot() {
            slot.shutdown().await;
        }
    }
}
