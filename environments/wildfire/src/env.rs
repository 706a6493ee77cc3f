//! `wildfire-v0` behind the shared [`Environment`] trait (DESIGN.md contract): actions are
//! primitives handed to the executor (docs/design/wildfire.md §10), low-level vectors (§6.3), or
//! `continue`.

use std::collections::BTreeMap;

use std::sync::Arc;

use colony_env_api::clip;
use colony_env_api::{
    AgentId, EnvError, Environment, Event, ExecutionPrompter, ParsedReply, StepResult,
};
use rand_chacha::ChaCha8Rng;

use crate::config::{AgentKind, LevelConfig};
use crate::executor::{emit, is_complete};
use crate::generate::{stream, streams};
use crate::metrics::score;
use crate::observe::{observe_agent, AgentObservation};
pub use crate::primitive::WildfireAction;
use crate::primitive::{max_type, parse_action_code, validate, LowLevel, Primitive};
use crate::setup::new_episode;
use crate::sim::step_low_level;
use crate::state::WildfireState;
use crate::{llm_play, prompts, render};

/// The wildfire environment: a level configuration and the current episode.
#[derive(Debug, Clone)]
pub struct WildfireEnv {
    level: LevelConfig,
    state: WildfireState,
    rng: ChaCha8Rng,
}

impl WildfireEnv {
    /// An environment for `level`, with an episode generated from seed 0 (call `reset`).
    pub fn new(level: LevelConfig) -> Result<Self, crate::WildfireError> {
        let state = new_episode(&level, 0)?;
        Ok(Self {
            level,
            state,
            rng: stream(0, streams::RUNTIME),
        })
    }

    /// An environment continuing from `state`.
    pub fn from_state(state: WildfireState) -> Result<Self, EnvError> {
        let mut env = Self {
            level: state.level.clone(),
            rng: stream(state.seed, streams::RUNTIME),
            state: state.clone(),
        };
        env.restore(state)?;
        Ok(env)
    }

    /// The current state (borrowed; [`Environment::state`] clones it).
    pub fn world(&self) -> &WildfireState {
        &self.state
    }

    /// Mutable access to the state, for scenario tests that set cells directly.
    pub fn world_mut(&mut self) -> &mut WildfireState {
        &mut self.state
    }

    /// Starts an episode from `seed`, or reports a setup error.
    pub fn try_reset(&mut self, seed: u64) -> Result<(), crate::WildfireError> {
        self.state = new_episode(&self.level, seed)?;
        self.rng = stream(seed, streams::RUNTIME);
        crate::sim::reveal(&mut self.state);
        Ok(())
    }

    fn index(&self, agent: &str) -> Result<usize, EnvError> {
        agent
            .trim_start_matches("AGENT_")
            .parse::<usize>()
            .ok()
            .filter(|&id| id >= 1 && id <= self.state.agents.len())
            .map(|id| id - 1)
            .ok_or_else(|| EnvError::UnknownAgent(agent.into()))
    }

    fn observations(&self) -> BTreeMap<AgentId, AgentObservation> {
        (0..self.state.agents.len())
            .map(|i| ((i + 1).to_string(), observe_agent(&self.state, i)))
            .collect()
    }

    fn kind_of(&self, agent: &str) -> AgentKind {
        self.index(agent)
            .map_or(AgentKind::Drone, |i| self.state.agents[i].kind)
    }
}

fn parse_low(rest: &str) -> Option<LowLevel> {
    let nums: Vec<i32> = rest
        .split(|c: char| c == ',' || c.is_whitespace() || c == '[' || c == ']')
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<f64>().ok().map(|v| v.round() as i32))
        .collect::<Option<Vec<_>>>()?;
    match nums[..] {
        [code, x, y] => Some(LowLevel { code, x, y }),
        _ => None,
    }
}

impl Environment for WildfireEnv {
    type Action = WildfireAction;
    type Observation = AgentObservation;
    type State = WildfireState;

    fn id(&self) -> &'static str {
        "wildfire-v0"
    }

    fn agents(&self) -> Vec<AgentId> {
        (1..=self.state.agents.len())
            .map(|i| i.to_string())
            .collect()
    }

    fn reset(&mut self, seed: u64) -> BTreeMap<AgentId, AgentObservation> {
        if self.try_reset(seed).is_err() {
            // Setup only fails on degenerate maps that `make` already rejected; keep the old
            // episode rather than panic.
            return self.observations();
        }
        self.observations()
    }

    fn step(
        &mut self,
        actions: &BTreeMap<AgentId, WildfireAction>,
    ) -> StepResult<AgentObservation> {
        let mut events = Vec::new();
        if self.state.terminated || self.state.truncated {
            events.push(Event {
                agent: None,
                kind: "episode_over".into(),
                detail: serde_json::json!("the episode ended; reset first"),
            });
            return StepResult {
                observations: self.observations(),
                rewards: self.agents().into_iter().map(|a| (a, 0.0)).collect(),
                terminated: self.state.terminated,
                truncated: self.state.truncated,
                events,
            };
        }
        let before = score(&self.state);
        let n = self.state.agents.len();
        let mut commands = vec![LowLevel::STOP; n];
        for (i, command) in commands.iter_mut().enumerate() {
            let id = (i + 1).to_string();
            // An agent left out keeps executing its current primitive (§10 step 2; idle if it
            // has none), so policies may send actions only for the deciding agents.
            let action = actions
                .get(&id)
                .cloned()
                .unwrap_or(WildfireAction::Continue);
            let a = &mut self.state.agents[i];
            if !a.is_active() {
                continue;
            }
            match action {
                WildfireAction::Continue => {}
                WildfireAction::Primitive(p) => {
                    a.action = Some(p);
                    a.emitted = 0;
                }
                WildfireAction::Low(l) => {
                    a.action = None;
                    *command = l;
                    continue;
                }
            }
            *command = match &a.action {
                Some(p) => emit(a, p),
                None => emit(a, &Primitive::do_nothing()),
            };
            a.emitted += 1;
        }
        let lost_before: Vec<bool> = self.state.agents.iter().map(|a| a.alive).collect();
        step_low_level(&mut self.state, &commands, &mut self.rng);
        for (i, was_alive) in lost_before.into_iter().enumerate() {
            if was_alive && !self.state.agents[i].alive {
                events.push(Event {
                    agent: Some((i + 1).to_string()),
                    kind: "agent_lost".into(),
                    detail: serde_json::Value::Null,
                });
            }
        }
        // Zero-time completion check (§10 step 1), done here so that policies see `None`
        // for finished primitives when they decide.
        for i in 0..n {
            let a = &self.state.agents[i];
            let done = match &a.action {
                Some(p) => a.is_active() && is_complete(a, p, &self.state.grid),
                None => false,
            };
            if done {
                let a = &mut self.state.agents[i];
                if let Some(p) = a.action.take() {
                    events.push(Event {
                        agent: Some((i + 1).to_string()),
                        kind: "primitive_complete".into(),
                        detail: serde_json::json!(p.description),
                    });
                    a.history.push(p.description);
                }
            }
        }
        let delta = score(&self.state) - before;
        StepResult {
            observations: self.observations(),
            rewards: self.agents().into_iter().map(|a| (a, delta)).collect(),
            terminated: self.state.terminated,
            truncated: self.state.truncated,
            events,
        }
    }

    /// `continue`: keep the current primitive, idle without one (§10 step 2). With no primitive
    /// ever assigned this emits exactly the "do nothing" vector every step (§13.1 baseline).
    fn noop(&self, _agent: &str) -> WildfireAction {
        WildfireAction::Continue
    }

    fn random_action(&self, agent: &str, draw: u64) -> WildfireAction {
        let kind = self.kind_of(agent);
        let s = u64::from(self.level.map_size.max(1));
        let t = (draw % (u64::from(max_type(kind)) + 1)) as u8;
        let x = ((draw >> 8) % s) as i32;
        let y = ((draw >> 32) % s) as i32;
        let p = Primitive::new(t, x, y, "random");
        let p = match validate(&p, kind, self.level.map_size) {
            Ok(p) => p,
            Err(_) => Primitive::new(t, 1, 0, "random"),
        };
        WildfireAction::Primitive(p)
    }

    fn parse_action(&self, agent: &str, text: &str) -> Result<WildfireAction, EnvError> {
        let i = self.index(agent)?;
        if self.state.terminated || self.state.truncated {
            // §12.4: after the episode ended, stepping is an error until reset.
            return Err(EnvError::Action {
                agent: agent.into(),
                message: format!(
                    "the episode ended at step {} (terminated {}, truncated {}); reset first",
                    self.state.step, self.state.terminated, self.state.truncated
                ),
            });
        }
        let t = text.trim();
        if t.eq_ignore_ascii_case("continue") || t.is_empty() {
            return Ok(WildfireAction::Continue);
        }
        let err = |message: String| EnvError::Action {
            agent: agent.into(),
            message,
        };
        if let Some(rest) = t.strip_prefix("low") {
            return parse_low(rest)
                .map(WildfireAction::Low)
                .ok_or_else(|| err(format!("{:?}: expected `low code x y`", clip(t))));
        }
        let p = parse_action_code(t).map_err(|e| err(e.to_string()))?;
        let kind = self.state.agents[i].kind;
        validate(&p, kind, self.state.grid.size as u32)
            .map(WildfireAction::Primitive)
            .map_err(|m| err(format!("{:?}: {m}", clip(t))))
    }

    fn format_action(&self, _agent: &str, action: &WildfireAction) -> String {
        match action {
            WildfireAction::Continue => "continue".into(),
            WildfireAction::Primitive(p) => p.to_code(),
            WildfireAction::Low(l) => format!("low {} {} {}", l.code, l.x, l.y),
        }
    }

    fn observe_text(&self, agent: &str) -> Result<String, EnvError> {
        let i = self.index(agent)?;
        Ok(prompts::perception_prompt(&self.state, i))
    }

    fn score(&self) -> f64 {
        score(&self.state)
    }

    fn state(&self) -> WildfireState {
        let mut s = self.state.clone();
        s.runtime_rng_pos = self.rng.get_word_pos() as u64;
        s
    }

    fn restore(&mut self, state: WildfireState) -> Result<(), EnvError> {
        crate::validate::check_state(&state)?;
        let mut rng = stream(state.seed, streams::RUNTIME);
        rng.set_word_pos(u128::from(state.runtime_rng_pos));
        self.level = state.level.clone();
        self.state = state;
        self.rng = rng;
        Ok(())
    }

    fn render(&self) -> String {
        render::render_ascii(&self.state)
    }

    /// §11.3: who the agent is, map, team, task, abilities and the act reply format
    /// ([`llm_play::instructions`]).
    fn instructions(&self, agent: &str) -> String {
        match self.index(agent) {
            Ok(i) => llm_play::instructions(&self.state, i),
            Err(e) => e.to_string(),
        }
    }

    /// §14.1: live, non-passenger agents without a current primitive (completed or never
    /// set), in id order; the others keep executing theirs.
    fn deciding_agents(&self) -> Vec<AgentId> {
        if self.state.terminated || self.state.truncated {
            return Vec::new();
        }
        self.state
            .agents
            .iter()
            .filter(|a| a.is_active() && a.action.is_none())
            .map(|a| a.id.to_string())
            .collect()
    }

    /// §10/§11.2: the EXECUTION reply through [`crate::primitive::translate`] (type 0
    /// `ERROR EXECUTING` fallback, reported with feedback); never an error
    /// ([`llm_play::parse_reply`]).
    fn parse_reply(&self, agent: &str, text: &str) -> ParsedReply<WildfireAction> {
        match self.index(agent) {
            Ok(i) => llm_play::parse_reply(&self.state, i, text),
            Err(e) => ParsedReply {
                action: WildfireAction::Primitive(Primitive::do_nothing()),
                feedback: None,
                fallback: Some(e.to_string()),
            },
        }
    }
    fn reply_schema(&self, agent: &str) -> serde_json::Value {
        let kind = self
            .index(agent)
            .map_or(crate::config::AgentKind::Firefighter, |i| {
                self.state.agents[i].kind
            });
        crate::structured::reply_schema(kind)
    }
    fn structured_reply_text(&self, _agent: &str, reply: &serde_json::Value) -> Option<String> {
        crate::structured::reply_text(reply)
    }
    fn calls(&self) -> Option<&dyn colony_env_api::CallProtocol> {
        Some(self)
    }
    fn briefing(&self) -> Option<&dyn colony_env_api::FrameworkBriefing> {
        Some(self)
    }
    fn goals(&self) -> Option<&dyn colony_env_api::SubGoals> {
        Some(self)
    }
    fn paper(&self) -> Option<&dyn colony_env_api::PaperProtocol> {
        Some(self)
    }
    fn numeric(&self) -> Option<&dyn colony_env_api::NumericInterface<Self::Action>> {
        Some(self)
    }
}

impl colony_env_api::CallProtocol for WildfireEnv {
    /// §11.1: the PERCEPTION prompt of a live, non-passenger agent (passengers and lost agents
    /// need no call: their fixed text is [`Environment::observe_text`]).
    fn perception_prompt(&self, agent: &str) -> Option<String> {
        let i = self.index(agent).ok()?;
        self.state.agents[i]
            .is_active()
            .then(|| prompts::perception_prompt(&self.state, i))
    }
    /// §11.3 `PERCEPTION` + `PAST ACTIONS` ([`llm_play::perceived_text`]).
    fn perceived_text(&self, agent: &str, summary: &str) -> String {
        match self.index(agent) {
            Ok(i) => llm_play::perceived_text(&self.state, i, summary),
            Err(_) => summary.to_string(),
        }
    }
    /// §11.2: [`prompts::execution_prompt`] for the agent's kind and the map size.
    fn execution_prompter(&self, agent: &str) -> Option<ExecutionPrompter> {
        let i = self.index(agent).ok()?;
        let kind = self.state.agents[i].kind;
        let size = self.state.grid.size;
        Some(Arc::new(move |action: &str| {
            prompts::execution_prompt(kind, size, action)
        }))
    }
}

impl colony_env_api::FrameworkBriefing for WildfireEnv {
    fn team_briefing(&self) -> Option<colony_env_api::TeamBriefing> {
        Some(crate::describe::briefing(&self.state))
    }
    fn agent_abilities(&self, agent: &str) -> Option<String> {
        crate::describe::abilities(&self.state, agent)
    }
    fn agent_card(&self, agent: &str) -> Option<String> {
        crate::describe::card(&self.state, agent)
    }
    fn agent_profile(&self, agent: &str) -> Option<colony_env_api::AgentProfile> {
        crate::describe::profile(&self.state, agent)
    }
    fn agent_history(&self, agent: &str) -> Option<String> {
        crate::describe::history(&self.state, agent)
    }
    fn map_dimensions(&self) -> Option<String> {
        Some(crate::prompts::map_dimensions(&self.state))
    }
}

impl colony_env_api::SubGoals for WildfireEnv {
    fn sub_goals(&self) -> Vec<colony_env_api::SubGoal> {
        crate::describe::sub_goals(&self.state)
    }
    fn agent_position(&self, agent: &str) -> Option<String> {
        crate::describe::position(&self.state, agent)
    }
}

impl colony_env_api::PaperProtocol for WildfireEnv {
    fn evaluation_seeds(&self) -> Option<Vec<u64>> {
        Some(self.state.level.seeds.clone())
    }
    fn normalized_score(&self, score: f64, baseline: f64) -> Option<f64> {
        Some(crate::metrics::level_ns(&self.state.level, score, baseline))
    }
}

impl colony_env_api::NumericInterface<WildfireAction> for WildfireEnv {
    fn numeric_spaces(&self, agent: &str) -> Option<colony_env_api::NumericSpaces> {
        crate::numeric::spaces(&self.state, self.index(agent).ok()?)
    }
    fn action_from_code(&self, agent: &str, code: &[i64]) -> Result<WildfireAction, EnvError> {
        crate::numeric::action(&self.state, self.index(agent)?, agent, code)
    }
    fn observe_numeric(&self, agent: &str, out: &mut [f32]) -> Result<(), EnvError> {
        crate::numeric::observe(&self.state, self.index(agent)?, agent, out)
    }
}
