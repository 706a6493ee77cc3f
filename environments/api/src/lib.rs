//! The `Environment` trait shared by every colony environment.
//!
//! Environments are synchronous, deterministic simulation crates with no LLM and no async
//! code (DESIGN.md). The API follows PettingZoo's Parallel API: every agent acts at once,
//! per-agent maps are `BTreeMap`s so outputs are ordered, `terminated` (the task ended) and
//! `truncated` (a time limit cut it) are separate, `reset(seed)` seeds an RNG the environment
//! owns, and the whole state serializes to JSON so a scenario can be saved and restored.
//!
//! [`Environment`] is the typed trait an environment implements; [`DynEnvironment`] is its
//! object-safe, text-and-JSON view (via [`boxed`]) that the CLI and the LLM policies
//! drive without knowing the concrete types. [`conformance`] holds the shared test every
//! environment crate runs.

pub mod bounded;
pub mod capability;
pub mod conformance;
pub mod describe;
mod dyn_env;
pub mod hostile;
pub mod llm_play;
pub mod numeric;
mod params;
pub mod policy;
pub mod pyrandom;
pub mod registry;
pub mod rng;
pub mod suggest;

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use capability::{
    CallProtocol, DynNumeric, FrameworkBriefing, Messaging, NumericInterface, PaperProtocol,
    SubGoals,
};
pub use describe::{
    AgentProfile, GridCell, GridInput, GridReport, LegendEntry, PictureRows, SubGoal, TeamBriefing,
};
pub use dyn_env::{boxed, DynEnvironment, TextEnv};
pub use llm_play::{ExecutionPrompter, ParsedReply, ReplyOutcome};
pub use numeric::NumericSpaces;
pub use params::{EnvParams, ParamSpec};
pub use policy::{typed_policy, DynPolicy, NoopPolicy, Policy, RandomPolicy};
pub use registry::{EnvEntry, SimulatedAgent};

/// An agent's id, e.g. `"0"` or `"Agent_3"`.
pub type AgentId = String;

/// Errors of environments: invalid configuration, state, or action, each naming the culprit.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum EnvError {
    /// A configuration parameter is unknown or has a bad value.
    #[error("parameter {key}: {message}")]
    Param {
        /// The parameter name.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A loaded state is invalid.
    #[error("state field {field}: {message}")]
    State {
        /// Path of the offending field, e.g. `agents[2]`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// An action text does not parse or is not allowed.
    #[error("action of agent {agent}: {message}")]
    Action {
        /// The agent.
        agent: AgentId,
        /// What is wrong.
        message: String,
    },
    /// An agent id that the environment does not have.
    #[error("unknown agent {0:?}")]
    UnknownAgent(AgentId),
}

/// How many characters of a user-given value an error message quotes ([`clip`]).
pub const CLIP_CHARS: usize = 80;

/// Longest error message [`EnvError::clipped`] keeps, in characters.
pub const MAX_MESSAGE_CHARS: usize = 1000;

/// The first [`CLIP_CHARS`] characters of `text`, followed by `…` when it was longer: what
/// error messages quote of user-given values (action texts, parameter values, names), so a
/// huge input is never echoed whole.
pub fn clip(text: &str) -> String {
    clip_to(text, CLIP_CHARS)
}

/// A name outside a fixed set (a task, a face, a primitive), as `FromStr` impls report it:
/// callers can branch on the kind, and the given text is clipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} {given:?}; expected {expected}")]
pub struct UnknownName {
    /// What was being named (`task`, `face`, …).
    pub kind: &'static str,
    /// The text given, clipped with [`clip`].
    pub given: String,
    /// The accepted names.
    pub expected: &'static str,
}

impl UnknownName {
    /// The error for `given` (clipped) among `expected`.
    pub fn new(kind: &'static str, given: &str, expected: &'static str) -> Self {
        Self {
            kind,
            given: clip(given.trim()),
            expected,
        }
    }
}

fn clip_to(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

impl EnvError {
    /// The error with its names (key, field, agent) cut to [`CLIP_CHARS`] and its message to
    /// [`MAX_MESSAGE_CHARS`] characters: the last guard against echoing a huge input whole
    /// (the [`DynEnvironment`] wrapper applies it to every error it returns).
    pub fn clipped(self) -> EnvError {
        let m = |s: String| clip_to(&s, MAX_MESSAGE_CHARS);
        match self {
            EnvError::Param { key, message } => EnvError::Param {
                key: clip(&key),
                message: m(message),
            },
            EnvError::State { field, message } => EnvError::State {
                field: clip(&field),
                message: m(message),
            },
            EnvError::Action { agent, message } => EnvError::Action {
                agent: clip(&agent),
                message: m(message),
            },
            EnvError::UnknownAgent(a) => EnvError::UnknownAgent(clip(&a)),
        }
    }
}

/// Something that happened during a step (a failed move, a delivery, a fire spreading…).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The agent involved, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentId>,
    /// A stable snake_case kind, e.g. `blocked_destination`.
    pub kind: String,
    /// Free-form details.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub detail: serde_json::Value,
}

/// The outcome of one [`Environment::step`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepResult<O> {
    /// Next observation per agent.
    pub observations: BTreeMap<AgentId, O>,
    /// Reward per agent for this step.
    pub rewards: BTreeMap<AgentId, f64>,
    /// The task reached a terminal state (success or failure).
    pub terminated: bool,
    /// The episode was cut by a limit (e.g. max rounds) before a terminal state.
    pub truncated: bool,
    /// What happened, in order.
    pub events: Vec<Event>,
}

/// A multi-agent environment (PettingZoo Parallel style).
///
/// The required core is what every environment has: agents, reset, step, the observation as
/// text, the action's text form (with the no-op and a random action), score and state. What
/// only some benchmarks define (extra model calls, message limits, framework briefings,
/// sub-goals, paper metrics, numeric spaces) is a capability trait of [`capability`] that an
/// environment opts into through its accessor (docs/design/architecture.md §4).
pub trait Environment {
    /// One agent's action.
    type Action: Clone;
    /// One agent's observation.
    type Observation: Clone;
    /// The complete serializable state (a save file / scenario).
    type State: Serialize + DeserializeOwned;

    /// Versioned id, e.g. `cube-v0`.
    fn id(&self) -> &'static str;
    /// Agent ids, in order.
    fn agents(&self) -> Vec<AgentId>;
    /// Starts a new episode from `seed`; returns the first observations.
    fn reset(&mut self, seed: u64) -> BTreeMap<AgentId, Self::Observation>;
    /// Applies one action per agent (agents missing from `actions` take [`Environment::noop`]).
    fn step(&mut self, actions: &BTreeMap<AgentId, Self::Action>) -> StepResult<Self::Observation>;
    /// The action that does nothing.
    fn noop(&self, agent: &str) -> Self::Action;
    /// A valid action chosen by `draw` (a uniform random integer), for random policies and
    /// benchmarks; the same draw gives the same action in the same state.
    fn random_action(&self, agent: &str, draw: u64) -> Self::Action;
    /// Parses an action from its text form (the environment's action syntax).
    fn parse_action(&self, agent: &str, text: &str) -> Result<Self::Action, EnvError>;
    /// The text form of an action (inverse of `parse_action`).
    fn format_action(&self, agent: &str, action: &Self::Action) -> String;
    /// The observation of `agent` rendered as text for a prompt.
    fn observe_text(&self, agent: &str) -> Result<String, EnvError>;
    /// The current score (the benchmark's metric).
    fn score(&self) -> f64;
    /// A snapshot of the whole state.
    fn state(&self) -> Self::State;
    /// Replaces the state (validating it; errors name the field).
    fn restore(&mut self, state: Self::State) -> Result<(), EnvError>;
    /// An ASCII picture of the state. Default: the state as pretty JSON.
    fn render(&self) -> String {
        serde_json::to_string_pretty(&self.state()).unwrap_or_default()
    }

    /// The benchmark's instructions for `agent`: its system prompt (rules, action vocabulary,
    /// reply format). The default names the environment and shows the no-op's action text.
    fn instructions(&self, agent: &str) -> String {
        format!(
            "You are agent {agent} in the environment {}. Each turn you get your observation; \
             reply with one action in the environment's action syntax, for example: {}",
            self.id(),
            self.format_action(agent, &self.noop(agent))
        )
    }

    /// The agents that must decide now (PettingZoo AEC's `agent_selection`, generalised to
    /// many at once). Agents left out keep doing what they do (they take the no-op).
    /// Default: every agent, every step.
    fn deciding_agents(&self) -> Vec<AgentId> {
        self.agents()
    }

    /// Lenient parser of a model reply: always an action, with feedback for the next prompt
    /// and the reason when the benchmark's fallback was taken (see [`llm_play`]). Default: the
    /// strict [`Environment::parse_action`], and the no-op when it fails.
    fn parse_reply(&self, agent: &str, text: &str) -> ParsedReply<Self::Action> {
        match self.parse_action(agent, text) {
            Ok(action) => ParsedReply::ok(action),
            Err(e) => ParsedReply::fallback(self.noop(agent), e.to_string()),
        }
    }

    /// The JSON Schema of `agent`'s action reply under structured output (`response_format`,
    /// docs/design/tools.md §8): a policy run with `structured=true` asks the model for a
    /// reply that fits it, and [`Environment::structured_reply_text`] turns that reply into
    /// the text [`Environment::parse_reply`] reads. Default: `{"action": "<one action in the
    /// environment's syntax>"}`.
    fn reply_schema(&self, agent: &str) -> serde_json::Value {
        let _ = agent;
        serde_json::json!({
            "type": "object",
            "properties": {"action": {
                "type": "string",
                "description": "one action in the environment's action syntax",
            }},
            "required": ["action"],
        })
    }

    /// The reply text of a structured reply (JSON that fits [`Environment::reply_schema`]), or
    /// `None` when it does not fit (the reply then goes to [`Environment::parse_reply`] as it
    /// is, and its fallback is counted as for any reply). Default: the `action` string.
    fn structured_reply_text(&self, agent: &str, reply: &serde_json::Value) -> Option<String> {
        let _ = agent;
        reply.get("action")?.as_str().map(str::to_string)
    }

    // --- Capabilities (opt-in; see [`capability`]): an environment that has one returns
    // `Some(self)`. ---

    /// PERCEPTION and EXECUTION calls around the action, if the benchmark's protocol has them.
    fn calls(&self) -> Option<&dyn CallProtocol> {
        None
    }

    /// Who hears whom, if the benchmark limits or carries messages itself.
    fn messaging(&self) -> Option<&dyn Messaging> {
        None
    }

    /// The team and agent descriptions of framework prompts, if the benchmark words them.
    fn briefing(&self) -> Option<&dyn FrameworkBriefing> {
        None
    }

    /// Sub-goals agents can be matched to, if the benchmark has them.
    fn goals(&self) -> Option<&dyn SubGoals> {
        None
    }

    /// The paper's metrics, evaluation seeds and normalization, if it defines them.
    fn paper(&self) -> Option<&dyn PaperProtocol> {
        None
    }

    /// Numeric spaces for RL front ends, if the environment offers them (text stays primary).
    fn numeric(&self) -> Option<&dyn NumericInterface<Self::Action>> {
        None
    }

    /// One step in which every agent takes [`Environment::random_action`] with draws from
    /// [`rng::splitmix64`] on `rng`; returns whether the episode ended. This is what
    /// `colony env bench` times. The default goes through [`Environment::step`]; environments
    /// may override it with a typed path that skips the per-agent maps of the generic API
    /// (which at hundreds of agents cost more than the physics), as long as the actions are
    /// the same random actions.
    fn step_random(&mut self, rng: &mut u64) -> bool {
        let actions = self.random_actions(rng);
        let r = self.step(&actions);
        r.terminated || r.truncated
    }

    /// Every agent's [`Environment::random_action`], one [`rng::splitmix64`] draw from `rng`
    /// per agent in [`Environment::agents`] order: the actions of [`Environment::step_random`],
    /// for tests and benchmarks that step through the typed API.
    fn random_actions(&self, rng: &mut u64) -> BTreeMap<AgentId, Self::Action> {
        self.agents()
            .into_iter()
            .map(|a| {
                let action = self.random_action(&a, crate::rng::splitmix64(rng));
                (a, action)
            })
            .collect()
    }
}

/// A step's outcome without the state (cheap: no serialization), as [`DynEnvironment`] returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepOutcome {
    /// Reward per agent.
    pub rewards: BTreeMap<AgentId, f64>,
    /// The task ended.
    pub terminated: bool,
    /// A limit cut the episode.
    pub truncated: bool,
    /// Events of the step.
    pub events: Vec<Event>,
}

/// A step as JSON: the shape `colony env step` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepJson {
    /// The state after the step.
    pub state: serde_json::Value,
    /// Reward per agent.
    pub rewards: BTreeMap<AgentId, f64>,
    /// The task ended.
    pub terminated: bool,
    /// A limit cut the episode.
    pub truncated: bool,
    /// Events of the step.
    pub events: Vec<Event>,
}

/// Descriptor of an environment for `colony env list`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EnvInfo {
    /// Versioned id.
    pub id: String,
    /// One-line description.
    pub description: String,
    /// Configurable parameters.
    pub params: Vec<ParamSpec>,
}
