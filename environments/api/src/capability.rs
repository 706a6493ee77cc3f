//! Capabilities an environment opts into beside its small required core
//! (docs/design/architecture.md §4).
//!
//! [`Environment`](crate::Environment)'s required methods are what every environment has:
//! agents, reset, step, the observation as text, the action's text form, score and state
//! (PettingZoo's core plus the text codec an LLM framework cannot do without). Everything a
//! benchmark may or may not offer is one trait here, and the environment says it has it by
//! returning itself from the matching accessor (`fn briefing(&self) -> Option<&dyn
//! FrameworkBriefing> { Some(self) }`), the way `std::error::Error::source` discovers a cause.
//! Callers ask the accessor, so no capability is found by downcasting (`as_any`).
//!
//! Every method of a capability has a default, so an environment implements only the parts its
//! benchmark defines; an environment that does not opt in gets the defaults the callers apply
//! (every agent hears every agent, frameworks describe the team from the instructions, no paper
//! metrics, …).

use std::collections::BTreeMap;

use crate::describe::{AgentProfile, SubGoal, TeamBriefing};
use crate::{EnvError, ExecutionPrompter, NumericSpaces};

/// Extra model calls around an agent's action, for benchmarks whose protocol has them: a
/// PERCEPTION call that turns the observation into what the agent acts on, and an EXECUTION
/// call that translates a free-text action (docs/design/wildfire.md §11).
pub trait CallProtocol {
    /// The prompt of the PERCEPTION call for `agent`. `None` (the default): the observation
    /// text is what the agent acts on.
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

    /// The EXECUTION prompt builder for `agent`; its translated reply then goes to
    /// [`Environment::parse_reply`](crate::Environment::parse_reply). `None` (the default):
    /// replies are parsed directly.
    fn execution_prompter(&self, agent: &str) -> Option<ExecutionPrompter> {
        let _ = agent;
        None
    }
}

/// Who hears whom, for benchmarks that limit or carry agents' messages themselves.
pub trait Messaging {
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
}

/// The team and agent descriptions framework prompts (CAMON, COELA, HMAS-2, Embodied) open
/// with, as the benchmark words them (WILDFIRE-ORCH's prompts).
pub trait FrameworkBriefing {
    /// The team briefing framework prompts open with. `None`: frameworks describe the team
    /// from the agents' instructions.
    fn team_briefing(&self) -> Option<TeamBriefing> {
        None
    }

    /// What `agent` can do, as framework prompts list it.
    fn agent_abilities(&self, agent: &str) -> Option<String> {
        let _ = agent;
        None
    }

    /// `agent`'s own rules for prompts that describe several agents, where the team-wide
    /// part of the instructions is stated once by [`FrameworkBriefing::team_briefing`]. `None`:
    /// its whole instructions. An environment with a team briefing should give one, or every
    /// agent of a framework prompt repeats the whole briefing (WILDFIRE-ORCH's prompts carry
    /// each agent's abilities only).
    fn agent_card(&self, agent: &str) -> Option<String> {
        let _ = agent;
        None
    }

    /// `agent`'s kind and position as framework prompts introduce it.
    fn agent_profile(&self, agent: &str) -> Option<AgentProfile> {
        let _ = agent;
        None
    }

    /// What `agent` has done so far, as the benchmark reports it to frameworks (oldest
    /// first). `None`: frameworks keep their own record.
    fn agent_history(&self, agent: &str) -> Option<String> {
        let _ = agent;
        None
    }

    /// The map's dimensions as text, when the benchmark tells agents.
    fn map_dimensions(&self) -> Option<String> {
        None
    }
}

/// Sub-goals agents can be matched to (SwarmSys on embodied tasks), and where agents stand.
pub trait SubGoals {
    /// The sub-goals open now, in a stable order.
    fn sub_goals(&self) -> Vec<SubGoal>;

    /// Where `agent` stands, as short text (`at row 3, col 4`); `None` for an unknown agent.
    fn agent_position(&self, agent: &str) -> Option<String> {
        let _ = agent;
        None
    }
}

/// How the benchmark's paper reports results beyond the score.
pub trait PaperProtocol {
    /// Metrics the paper reports beside the score, read at the end of an episode (CUBE:
    /// delivered weight and fraction). Default: none.
    fn paper_metrics(&self) -> BTreeMap<String, f64> {
        BTreeMap::new()
    }

    /// The seeds this configuration is evaluated on by the paper's protocol (Wildfire levels
    /// carry their own), for `--seeds level`. Default: `None`.
    fn evaluation_seeds(&self) -> Option<Vec<u64>> {
        None
    }

    /// `score` normalized against the baseline's mean score `baseline` on this configuration,
    /// as the paper defines it (Wildfire's NS). Default: `None`.
    fn normalized_score(&self, score: f64, baseline: f64) -> Option<f64> {
        let _ = (score, baseline);
        None
    }
}

/// Fixed-size numeric action and observation spaces, for reinforcement-learning front ends
/// (the Python package's PettingZoo environments); see [`crate::numeric`].
pub trait NumericInterface<A> {
    /// Agent `agent`'s spaces; `None` for an unknown agent.
    fn numeric_spaces(&self, agent: &str) -> Option<NumericSpaces>;

    /// The action a numeric code stands for; every code inside the agent's spaces must decode,
    /// and any other code is an error naming the agent ([`NumericSpaces::check_code`]).
    fn action_from_code(&self, agent: &str, code: &[i64]) -> Result<A, EnvError>;

    /// Writes agent `agent`'s numeric observation into `out` (of the spaces' length).
    fn observe_numeric(&self, agent: &str, out: &mut [f32]) -> Result<(), EnvError>;
}

/// [`NumericInterface`] as the object-safe [`DynEnvironment`](crate::DynEnvironment) offers
/// it: actions are stepped from codes directly.
pub trait DynNumeric {
    /// See [`NumericInterface::numeric_spaces`].
    fn numeric_spaces(&self, agent: &str) -> Option<NumericSpaces>;
    /// See [`NumericInterface::observe_numeric`].
    fn observe_numeric(&self, agent: &str, out: &mut [f32]) -> Result<(), EnvError>;
    /// One step from numeric codes laid end to end in agent order, each agent's as many
    /// components as its action space has; a code outside the space is an error naming the
    /// agent, and nothing is stepped.
    fn step_codes(&mut self, codes: &[i64]) -> Result<crate::StepOutcome, EnvError>;
}
