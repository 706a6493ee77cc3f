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

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use thiserror::Error;

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
    /// An ASCII picture of the state.
    fn render(&self) -> String;

    // --- LLM play (opt-in; see [`llm_play`]) ---

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

    /// The prompt of a PERCEPTION call that turns the observation into the text the agent
    /// acts on, for benchmarks whose protocol has one (docs/design/wildfire.md §11.1). `None` (the
    /// default): [`Environment::observe_text`] is what the agent acts on.
    fn perception_prompt(&self, agent: &str) -> Option<String> {
        let _ = agent;
        None
    }

    /// The text an agent acts on after its PERCEPTION call answered `summary` (e.g. the
    /// summary plus position and status lines). Default: the summary itself.
    fn perceived_text(&self, agent: &str, summary: &str) -> String {
        let _ = agent;
        summary.to_string()
    }

    /// The EXECUTION prompt builder for `agent`, for benchmarks whose protocol translates a
    /// free-text action with another model call (docs/design/wildfire.md §11.2); the translated
    /// reply then goes to [`Environment::parse_reply`]. `None` (the default): replies are parsed
    /// directly.
    fn execution_prompter(&self, agent: &str) -> Option<ExecutionPrompter> {
        let _ = agent;
        None
    }

    /// Lenient parser of a model reply: always an action, with feedback for the next prompt
    /// and the reason when the benchmark's fallback was taken. Default: the strict
    /// [`Environment::parse_action`], and the no-op when it fails.
    fn parse_reply(&self, agent: &str, text: &str) -> ParsedReply<Self::Action> {
        match self.parse_action(agent, text) {
            Ok(action) => ParsedReply::ok(action),
            Err(e) => ParsedReply::fallback(self.noop(agent), e.to_string()),
        }
    }

    /// Whether `listener` can hear `speaker` now, for policies that run their own message
    /// channels. Default: everyone hears everyone.
    fn hears(&self, listener: &str, speaker: &str) -> bool {
        let _ = (listener, speaker);
        true
    }

    /// True when the environment itself carries agents' messages (inside their replies, with
    /// its own radius, delay and corruption, like SwarmBench): policies must not deliver them
    /// a second time. Default: false.
    fn delivers_messages(&self) -> bool {
        false
    }

    // --- Self-description (opt-in; see [`describe`]) ---

    /// The sub-goals agents can be matched to now, in a stable order (SwarmSys on embodied
    /// tasks). `None` (the default): the environment has none, and SwarmSys refuses it.
    fn sub_goals(&self) -> Option<Vec<SubGoal>> {
        None
    }

    /// Where `agent` stands, as short text (`at row 3, col 4`). Default: `None`.
    fn agent_position(&self, agent: &str) -> Option<String> {
        let _ = agent;
        None
    }

    /// The team briefing framework prompts open with. `None` (the default): frameworks
    /// describe the team from the agents' instructions.
    fn team_briefing(&self) -> Option<TeamBriefing> {
        None
    }

    /// What `agent` can do, as framework prompts list it. Default: `None`.
    fn agent_abilities(&self, agent: &str) -> Option<String> {
        let _ = agent;
        None
    }

    /// `agent`'s own rules for prompts that describe several agents, where the team-wide
    /// part of the instructions (team, task) is stated once by [`Self::team_briefing`]: who
    /// the agent is and what it can do. `None` (the default): its whole instructions. An
    /// environment with a team briefing should give one, or every agent of a framework prompt
    /// repeats the whole briefing (WILDFIRE-ORCH's prompts carry each agent's abilities only).
    fn agent_card(&self, agent: &str) -> Option<String> {
        let _ = agent;
        None
    }

    /// `agent`'s kind and position as framework prompts introduce it. Default: `None`.
    fn agent_profile(&self, agent: &str) -> Option<AgentProfile> {
        let _ = agent;
        None
    }

    /// What `agent` has done so far, as the benchmark reports it to frameworks (oldest
    /// first). `None` (the default): frameworks keep their own record.
    fn agent_history(&self, agent: &str) -> Option<String> {
        let _ = agent;
        None
    }

    /// The map's dimensions as text, when the benchmark tells agents. Default: `None`.
    fn map_dimensions(&self) -> Option<String> {
        None
    }

    /// Metrics the benchmark's paper reports beside the score, read at the end of an episode
    /// (CUBE: delivered weight and fraction). Default: none.
    fn paper_metrics(&self) -> BTreeMap<String, f64> {
        BTreeMap::new()
    }

    /// The seeds this configuration is evaluated on by its benchmark's protocol (Wildfire
    /// levels carry their own), for `--seeds level`. Default: `None`.
    fn evaluation_seeds(&self) -> Option<Vec<u64>> {
        None
    }

    /// `score` normalized against the baseline's mean score `baseline` on this
    /// configuration, as the benchmark's paper defines it (Wildfire's NS). Default: `None`.
    fn normalized_score(&self, score: f64, baseline: f64) -> Option<f64> {
        let _ = (score, baseline);
        None
    }

    /// Agent `agent`'s numeric action and observation spaces, for RL front ends.
    /// Default: `None` (text only).
    fn numeric_spaces(&self, agent: &str) -> Option<NumericSpaces> {
        let _ = agent;
        None
    }

    /// The action a numeric code stands for; every code inside
    /// [`Environment::numeric_spaces`] must decode, and any other code is an error naming the
    /// agent ([`NumericSpaces::check_code`] does it). Default: an error (no numeric spaces).
    fn action_from_code(&self, agent: &str, code: &[i64]) -> Result<Self::Action, EnvError> {
        let _ = (agent, code);
        Err(numeric::no_numeric_spaces(self.id()))
    }

    /// Writes agent `agent`'s numeric observation into `out` (of the spaces' length).
    /// Default: an error (no numeric spaces).
    fn observe_numeric(&self, agent: &str, out: &mut [f32]) -> Result<(), EnvError> {
        let _ = (agent, out);
        Err(numeric::no_numeric_spaces(self.id()))
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
