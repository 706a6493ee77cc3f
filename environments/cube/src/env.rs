//! `CubeEnv`: the world, the plan executor and the episode flags behind the shared
//! `Environment` trait (docs/design/cube.md §5–9, §14), with a self-contained JSON state.

use std::collections::BTreeMap;
use std::sync::Arc;

use colony_env_api::{AgentId, EnvError, Environment, Event, ParsedReply, StepResult};
use serde::{Deserialize, Serialize};

use crate::config::CubeConfig;
use crate::dynamics::{CubeEvent, RewardParams, Scratch};
use crate::event_json::to_events;
use crate::executor::Executor;
use crate::feedback::{Feedback, FeedbackHook};
use crate::generate::generate;
use crate::geometry::{Cell, Prim};
use crate::observation::{symbolic_observation, HistoryWindow, SymbolicObservation};
use crate::plan_parser::{format_plan, parse_plan};
pub use crate::symbolic::CubeAction;
use crate::symbolic::SymbolicCall;
use crate::world::{Block, DeliveredBlock, World};
use crate::CubeError;

/// What every agent sees after a step: a shared frame plus the observer's id. The full
/// symbolic observation with history is [`CubeEnv::symbolic_observation`]; the grid is
/// [`CubeEnv::grid_observation`] (built on demand so a step stays cheap at n = 256).
#[derive(Debug, Clone, PartialEq)]
pub struct CubeObservation {
    /// The observing agent.
    pub self_id: usize,
    /// The shared world frame.
    pub frame: Arc<Frame>,
}

/// The world as seen by all agents at one step.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Steps taken.
    pub step: u32,
    /// Agent positions.
    pub agents: Vec<Cell>,
    /// Remaining blocks.
    pub blocks: Vec<Block>,
    /// Team score.
    pub team_score: f64,
}

/// The whole serializable state (design §14): configuration, world, flags, executor, history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CubeState {
    /// Grid side `K`.
    pub grid_size: u32,
    /// Steps taken.
    pub t: u32,
    /// Agent positions `[row, col]` in index order.
    pub agents: Vec<Cell>,
    /// Blocks not yet delivered (top-left cell), ascending id.
    pub blocks: Vec<Block>,
    /// Delivered blocks.
    #[serde(default)]
    pub delivered: Vec<DeliveredBlock>,
    /// Team score.
    #[serde(default)]
    pub score: f64,
    /// Configuration (horizon, rewards, generation settings).
    pub config: CubeConfig,
    /// Seed of the episode.
    #[serde(default)]
    pub seed: u64,
    /// Blocks at reset (for the observation bound).
    #[serde(default)]
    pub blocks_at_reset: usize,
    /// The episode ended with success.
    #[serde(default)]
    pub terminated: bool,
    /// The episode was cut by `max_steps`.
    #[serde(default)]
    pub truncated: bool,
    /// Plans, executor state and history.
    #[serde(default)]
    pub executor: Executor,
}

/// The CUBE environment (`cube-v0`).
#[derive(Debug, Clone)]
pub struct CubeEnv {
    config: CubeConfig,
    seed: u64,
    world: World,
    exec: Executor,
    blocks_at_reset: usize,
    terminated: bool,
    truncated: bool,
    ids: Vec<AgentId>,
    /// Per-agent maps built once and cloned each step (cloning a sorted map skips the sort).
    templates: Templates,
    scratch: Scratch,
    events: Vec<CubeEvent>,
    feedback_hook: Option<FeedbackHook>,
    feedback: Vec<Feedback>,
}

impl CubeEnv {
    /// Validates `config` and builds the episode of seed 0 (call `reset` for another seed).
    pub fn new(config: CubeConfig) -> Result<CubeEnv, CubeError> {
        Self::with_seed(config, 0)
    }

    /// Builds the episode of `seed`.
    pub fn with_seed(config: CubeConfig, seed: u64) -> Result<CubeEnv, CubeError> {
        let world = generate(&config, seed)?;
        let n = world.agents.len();
        Ok(CubeEnv {
            blocks_at_reset: world.blocks.len(),
            config,
            seed,
            exec: Executor::new(n),
            ids: (0..n).map(|i| i.to_string()).collect(),
            templates: Templates::new(n),
            world,
            terminated: false,
            truncated: false,
            scratch: Scratch::default(),
            events: Vec::new(),
            feedback_hook: None,
            feedback: Vec::new(),
        })
    }

    /// Starts a new episode; errors for a configuration that cannot be generated.
    pub fn try_reset(&mut self, seed: u64) -> Result<(), CubeError> {
        let hook = self.feedback_hook.take();
        *self = Self::with_seed(self.config.clone(), seed)?;
        self.feedback_hook = hook;
        Ok(())
    }

    /// Installs the per-step feedback hook (design §10); it runs after every step and its
    /// messages appear in [`CubeEnv::last_feedback`] and as `feedback` events.
    pub fn set_feedback_hook(&mut self, hook: Option<FeedbackHook>) {
        self.feedback_hook = hook;
    }

    /// Feedback messages of the last step.
    pub fn last_feedback(&self) -> &[Feedback] {
        &self.feedback
    }

    /// The configuration.
    pub fn config(&self) -> &CubeConfig {
        &self.config
    }
    /// The physical world (for concepts and policies).
    pub fn world(&self) -> &World {
        &self.world
    }
    /// Plans and history.
    pub fn executor(&self) -> &Executor {
        &self.exec
    }
    /// Events of the last step.
    pub fn last_events(&self) -> &[CubeEvent] {
        &self.events
    }
    /// Whether the episode ended.
    pub fn is_done(&self) -> bool {
        self.terminated || self.truncated
    }

    /// Submits a plan for `agent` (design §9.3); an unknown agent is an error.
    pub fn submit_plan(&mut self, agent: usize, plan: Vec<SymbolicCall>) -> Result<(), CubeError> {
        self.submit_plan_with(agent, plan, false)
    }

    /// [`CubeEnv::submit_plan`] with the `abort_on_failure` flag of design §9.3 (stop the plan
    /// at the first failed action).
    pub fn submit_plan_with(
        &mut self,
        agent: usize,
        plan: Vec<SymbolicCall>,
        abort_on_failure: bool,
    ) -> Result<(), CubeError> {
        if agent >= self.world.agents.len() {
            return Err(CubeError::UnknownAgent(agent));
        }
        self.exec.submit(agent, plan, abort_on_failure);
        Ok(())
    }

    /// One step with primitives indexed by agent (shorter lists are padded with `STAY`, a
    /// longer one or a step after the end is an error and changes nothing; design §5, §7).
    /// Agents with a running plan keep executing it unless given a primitive other than
    /// [`None`]: `actions[i] = Some(p)` takes manual control.
    pub fn step_primitives(&mut self, actions: &[Prim]) -> Result<CubeStepInfo, CubeError> {
        if actions.len() > self.world.agents.len() {
            return Err(CubeError::TooManyActions {
                given: actions.len(),
                agents: self.world.agents.len(),
            });
        }
        let manual: Vec<Option<Prim>> = (0..self.world.agents.len())
            .map(|i| Some(actions.get(i).copied().unwrap_or(Prim::Stay)))
            .collect();
        self.advance(&manual)
    }

    /// One step where every agent follows its plan (the executor, design §9.4).
    pub fn step_plans(&mut self) -> Result<CubeStepInfo, CubeError> {
        let manual = vec![None; self.world.agents.len()];
        self.advance(&manual)
    }

    fn advance(&mut self, manual: &[Option<Prim>]) -> Result<CubeStepInfo, CubeError> {
        if self.is_done() {
            return Err(CubeError::EpisodeOver);
        }
        for (i, m) in manual.iter().enumerate() {
            if m.is_some() && !self.exec.agents[i].is_exhausted() {
                self.exec.clear(i);
            }
        }
        self.events.clear();
        let (prims, records) = if self.exec.is_active() {
            self.exec.poll_all(&self.world, manual)
        } else {
            (
                manual.iter().map(|m| m.unwrap_or(Prim::Stay)).collect(),
                Vec::new(),
            )
        };
        let params = RewardParams {
            step_cost: self.config.step_cost,
            deliver_reward: self.config.deliver_reward,
        };
        let out = self
            .world
            .apply(&prims, params, &mut self.scratch, &mut self.events);
        if !records.is_empty() {
            self.exec.record(self.world.t, records);
        }
        self.feedback = match &self.feedback_hook {
            Some(hook) => (hook.0)(&self.world, &self.events),
            None => Vec::new(),
        };
        self.terminated = out.terminated;
        // The shared conformance test forbids both flags at once; success wins (design §7 lets
        // consumers check termination first anyway).
        self.truncated = !out.terminated && self.world.t >= self.config.max_steps;
        Ok(CubeStepInfo {
            primitives: prims,
            reward: out.reward,
            delivered_value: out.delivered_value,
            terminated: self.terminated,
            truncated: self.truncated,
        })
    }

    /// The symbolic observation of `agent` (design §8.1) with the whole history.
    pub fn symbolic_observation(&self, agent: usize) -> Result<SymbolicObservation, CubeError> {
        self.symbolic_observation_window(agent, HistoryWindow::All)
    }

    /// The symbolic observation with a chosen history window.
    pub fn symbolic_observation_window(
        &self,
        agent: usize,
        window: HistoryWindow,
    ) -> Result<SymbolicObservation, CubeError> {
        if agent >= self.world.agents.len() {
            return Err(CubeError::UnknownAgent(agent));
        }
        Ok(symbolic_observation(
            &self.world,
            &self.exec,
            self.config.max_steps,
            agent,
            window,
        ))
    }

    /// The 5-channel grid observation, flat `(row, col, channel)` (design §8.2).
    pub fn grid_observation(&self) -> Vec<f32> {
        crate::observation::grid_observation(&self.world)
    }

    /// The 5-channel grid as `ndarray` `(K, K, 5)`.
    pub fn grid_array(&self) -> ndarray::Array3<f32> {
        crate::observation::grid_array(&self.world)
    }

    /// Upper bound of the grid observation values (design §8.2).
    pub fn grid_bound(&self) -> f32 {
        let w_max = self.config.block_specs().first().map_or(1, |s| s.0);
        crate::observation::grid_bound(w_max, self.world.agents.len(), self.blocks_at_reset)
    }

    fn agent_index(&self, agent: &str) -> Result<usize, EnvError> {
        agent
            .parse::<usize>()
            .ok()
            .filter(|&i| i < self.world.agents.len())
            .ok_or_else(|| EnvError::UnknownAgent(agent.into()))
    }

    fn frame(&self) -> BTreeMap<AgentId, CubeObservation> {
        let frame = Arc::new(Frame {
            step: self.world.t,
            agents: self.world.agents.clone(),
            blocks: self.world.blocks.clone(),
            team_score: self.world.score,
        });
        let mut obs = self.templates.observations.clone();
        obs.values_mut().for_each(|o| o.frame = Arc::clone(&frame));
        obs
    }
}

/// Sorted per-agent maps, built once per episode.
#[derive(Debug, Clone)]
struct Templates {
    rewards: BTreeMap<AgentId, f64>,
    observations: BTreeMap<AgentId, CubeObservation>,
}

impl Templates {
    fn new(n: usize) -> Templates {
        let empty = Arc::new(Frame {
            step: 0,
            agents: Vec::new(),
            blocks: Vec::new(),
            team_score: 0.0,
        });
        Templates {
            rewards: (0..n).map(|i| (i.to_string(), 0.0)).collect(),
            observations: (0..n)
                .map(|i| {
                    let o = CubeObservation {
                        self_id: i,
                        frame: Arc::clone(&empty),
                    };
                    (i.to_string(), o)
                })
                .collect(),
        }
    }
}

/// Summary of one step of the typed API.
#[derive(Debug, Clone, PartialEq)]
pub struct CubeStepInfo {
    /// The primitive each agent executed.
    pub primitives: Vec<Prim>,
    /// The shared reward `−r_s + D/|A|`.
    pub reward: f64,
    /// `D`.
    pub delivered_value: f64,
    /// No block remains.
    pub terminated: bool,
    /// Horizon reached.
    pub truncated: bool,
}

impl Environment for CubeEnv {
    type Action = CubeAction;
    type Observation = CubeObservation;
    type State = CubeState;

    fn id(&self) -> &'static str {
        "cube-v0"
    }
    fn agents(&self) -> Vec<AgentId> {
        self.ids.clone()
    }
    fn reset(&mut self, seed: u64) -> BTreeMap<AgentId, CubeObservation> {
        // The configuration was validated when the environment was made; a layout that fails
        // for this seed (placement retries exhausted) keeps the previous world.
        let _ = self.try_reset(seed);
        self.frame()
    }
    fn step(&mut self, actions: &BTreeMap<AgentId, CubeAction>) -> StepResult<CubeObservation> {
        let n = self.world.agents.len();
        let mut manual = vec![None; n];
        for (agent, action) in actions {
            let Ok(i) = agent.parse::<usize>() else {
                continue;
            };
            if i >= n {
                continue;
            }
            match action {
                CubeAction::Prim(p) => manual[i] = Some(*p),
                CubeAction::Plan(plan) => self.exec.submit(i, plan.clone(), false),
                CubeAction::Continue => {}
            }
        }
        let (reward, events) = match self.advance(&manual) {
            Ok(info) => {
                let mut events = to_events(&self.events);
                events.extend(self.feedback.iter().map(|f| Event {
                    agent: f.agent.map(|a| a.to_string()),
                    kind: "feedback".into(),
                    detail: serde_json::Value::String(f.text.clone()),
                }));
                (info.reward, events)
            }
            Err(e) => (
                0.0,
                vec![Event {
                    agent: None,
                    kind: "episode_over".into(),
                    detail: serde_json::Value::String(e.to_string()),
                }],
            ),
        };
        StepResult {
            observations: self.frame(),
            rewards: {
                let mut r = self.templates.rewards.clone();
                r.values_mut().for_each(|v| *v = reward);
                r
            },
            terminated: self.terminated,
            truncated: self.truncated,
            events,
        }
    }
    fn noop(&self, _agent: &str) -> CubeAction {
        CubeAction::Continue
    }
    fn random_action(&self, _agent: &str, draw: u64) -> CubeAction {
        CubeAction::Prim(Prim::ALL[(draw % 5) as usize])
    }
    /// The same random primitives as the default (one draw per agent in index order), on the
    /// typed path: no per-agent maps, so `env bench` times the physics (design §13).
    fn step_random(&mut self, rng: &mut u64) -> bool {
        let actions: Vec<Prim> = (0..self.world.agents.len())
            .map(|_| Prim::ALL[(colony_env_api::rng::splitmix64(rng) % 5) as usize])
            .collect();
        match self.step_primitives(&actions) {
            Ok(info) => info.terminated || info.truncated,
            Err(_) => true,
        }
    }
    fn parse_action(&self, agent: &str, text: &str) -> Result<CubeAction, EnvError> {
        let t = text.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("continue") {
            return Ok(CubeAction::Continue);
        }
        if !t.contains(['(', '[', '{']) {
            return t
                .parse::<Prim>()
                .map(CubeAction::Prim)
                .map_err(|m| EnvError::Action {
                    agent: agent.into(),
                    message: format!("{m}, \"continue\", or a symbolic plan"),
                });
        }
        let plan = parse_plan(t, self.world.k as u32);
        if !plan.errors.is_empty() {
            return Err(EnvError::Action {
                agent: agent.into(),
                message: plan.error_text(),
            });
        }
        if plan.calls.is_empty() {
            return Err(EnvError::Action {
                agent: agent.into(),
                message: "empty plan".into(),
            });
        }
        Ok(CubeAction::Plan(plan.calls))
    }
    fn format_action(&self, _agent: &str, action: &CubeAction) -> String {
        match action {
            CubeAction::Prim(p) => p.name().to_string(),
            CubeAction::Plan(calls) => format_plan(calls),
            CubeAction::Continue => "continue".into(),
        }
    }
    /// The compact text of design §8.1 with the agent's own history of the last 10 steps
    /// (§12.2), the outcomes of its previous plan
    /// ([`previous_plan_outcomes`](crate::llm_play::previous_plan_outcomes)) and the map.
    fn observe_text(&self, agent: &str) -> Result<String, EnvError> {
        let i = self.agent_index(agent)?;
        let obs = self
            .symbolic_observation_window(i, HistoryWindow::OwnRecent(10))
            .map_err(|e| EnvError::UnknownAgent(e.to_string()))?;
        let mut text = obs.to_text(None);
        if let Some(previous) = crate::llm_play::previous_plan_outcomes(&self.exec, i) {
            text.push_str(&previous);
        }
        text.push_str("map:\n");
        text.push_str(&self.render());
        Ok(text)
    }
    fn score(&self) -> f64 {
        self.world.score
    }
    fn state(&self) -> CubeState {
        CubeState {
            grid_size: self.world.k as u32,
            t: self.world.t,
            agents: self.world.agents.clone(),
            blocks: self.world.blocks.clone(),
            delivered: self.world.delivered.clone(),
            score: self.world.score,
            config: self.config.clone(),
            seed: self.seed,
            blocks_at_reset: self.blocks_at_reset,
            terminated: self.terminated,
            truncated: self.truncated,
            executor: self.exec.clone(),
        }
    }
    fn restore(&mut self, state: CubeState) -> Result<(), EnvError> {
        let to_env = |e: CubeError| match e {
            CubeError::Invalid { field, message } => EnvError::State { field, message },
            other => EnvError::State {
                field: "<root>".into(),
                message: other.to_string(),
            },
        };
        state.config.validate().map_err(|e| match e {
            CubeError::Invalid { field, message } => EnvError::State {
                field: format!("config.{field}"),
                message,
            },
            other => to_env(other),
        })?;
        if state.t > state.config.max_steps {
            return Err(EnvError::State {
                field: "t".into(),
                message: format!(
                    "step {} is past config.max_steps {}",
                    state.t, state.config.max_steps
                ),
            });
        }
        if state.grid_size > crate::config::MAX_GRID_SIZE {
            return Err(EnvError::State {
                field: "grid_size".into(),
                message: format!(
                    "{} is above the maximum {}",
                    state.grid_size,
                    crate::config::MAX_GRID_SIZE
                ),
            });
        }
        let mut world =
            World::new(state.grid_size as i32, state.agents, state.blocks).map_err(to_env)?;
        world.t = state.t;
        world.delivered = state.delivered;
        world.score = state.score;
        let n = world.agents.len();
        let mut exec = state.executor;
        if exec.agents.len() > n {
            return Err(EnvError::State {
                field: "executor.agents".into(),
                message: format!("{} plans for {n} agents", exec.agents.len()),
            });
        }
        exec.agents.resize(n, Default::default());
        self.blocks_at_reset = state.blocks_at_reset.max(world.blocks.len());
        self.ids = (0..n).map(|i| i.to_string()).collect();
        self.templates = Templates::new(n);
        self.world = world;
        self.exec = exec;
        self.config = state.config;
        self.seed = state.seed;
        self.terminated = state.terminated;
        self.truncated = state.truncated;
        self.events.clear();
        Ok(())
    }
    fn render(&self) -> String {
        crate::layout::render(&self.world)
    }

    /// The naive language agent's system prompt (design §12.2,
    /// [`naive_agent_instructions`](crate::llm_play::naive_agent_instructions)).
    fn instructions(&self, agent: &str) -> String {
        crate::llm_play::naive_agent_instructions(agent)
    }

    /// The agents whose plan is exhausted, in index order (design §12.2 "Trigger"): all of them
    /// at the start, later those whose last action ended. Empty once the episode is over.
    fn deciding_agents(&self) -> Vec<AgentId> {
        if self.is_done() {
            return Vec::new();
        }
        self.exec
            .agents
            .iter()
            .zip(&self.ids)
            .filter(|(plan, _)| plan.is_exhausted())
            .map(|(_, id)| id.clone())
            .collect()
    }

    /// The lenient plan parser of design §12.2
    /// ([`parse_plan_reply`](crate::llm_play::parse_plan_reply)): at most three actions,
    /// invalid ones dropped and named in the feedback, an empty plan becomes `[idle(1)]`.
    fn parse_reply(&self, _agent: &str, text: &str) -> ParsedReply<CubeAction> {
        crate::llm_play::parse_plan_reply(text, self.world.k as u32)
    }
    fn reply_schema(&self, _agent: &str) -> serde_json::Value {
        crate::structured::reply_schema()
    }
    fn structured_reply_text(&self, _agent: &str, reply: &serde_json::Value) -> Option<String> {
        crate::structured::reply_text(reply)
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

impl colony_env_api::SubGoals for CubeEnv {
    fn sub_goals(&self) -> Vec<colony_env_api::SubGoal> {
        crate::describe::sub_goals(self.world())
    }
    fn agent_position(&self, agent: &str) -> Option<String> {
        crate::describe::position(self.world(), agent)
    }
}

impl colony_env_api::PaperProtocol for CubeEnv {
    fn paper_metrics(&self) -> BTreeMap<String, f64> {
        crate::describe::paper_metrics(self.world())
    }
}

impl colony_env_api::NumericInterface<CubeAction> for CubeEnv {
    /// Numeric spaces: the five primitives of design §9.1 by code, and the
    /// `K × K × 5` grid of §8.2 with its bound.
    fn numeric_spaces(&self, agent: &str) -> Option<colony_env_api::NumericSpaces> {
        let k = self
            .agent_index(agent)
            .ok()
            .map(|_| self.world.k.max(0) as usize)?;
        Some(colony_env_api::NumericSpaces {
            actions: vec![Prim::ALL.len() as u32],
            shape: vec![k, k, crate::observation::CHANNELS],
            low: 0.0,
            high: self.grid_bound(),
        })
    }
    fn action_from_code(&self, agent: &str, code: &[i64]) -> Result<CubeAction, EnvError> {
        self.agent_index(agent)?;
        match code {
            [c @ 0..=4] => Ok(CubeAction::Prim(Prim::from_code(*c))),
            _ => Err(colony_env_api::numeric::code_error(
                agent,
                format!("{code:?} is not one code in 0..5"),
            )),
        }
    }
    fn observe_numeric(&self, agent: &str, out: &mut [f32]) -> Result<(), EnvError> {
        self.agent_index(agent)?;
        let k = self.world.k.max(0) as usize;
        if out.len() != k * k * crate::observation::CHANNELS {
            return Err(colony_env_api::numeric::code_error(
                agent,
                format!("an observation buffer of {} values", out.len()),
            ));
        }
        crate::observation::grid_into(&self.world, out);
        Ok(())
    }
}
