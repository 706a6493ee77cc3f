//! The SwarmBench environment: reset, the round structure, task updates and scoring
//! (docs/design/swarmbench.md §3, §9), behind the shared `Environment` trait.
//!
//! The live environment's methods are split by topic into child modules, which see its
//! private fields: `observe` (what an agent receives: messages, the observation line, the
//! assembled §11.2 prompt, who decides and who hears whom), `rules` (the task rules after
//! physics) and `snapshot` (conversion to and from the saved [`SwarmState`]). The saved
//! data types live in [`crate::state`], so saving a state does not depend on this module.

pub mod describe;
mod dynamics;
mod numeric;
mod observe;
mod rules;
mod snapshot;

use std::collections::{BTreeMap, VecDeque};

use colony_env_api::{AgentId, EnvError, Environment, Event, StepResult};
use serde::{Deserialize, Serialize};

use crate::config::{Config, ConfigError, Task};
use crate::flocking;
use crate::layout::{self, agent_name, flocking_target};
use crate::physics::{Dir, Physics};
use crate::prompt::HistoryEntry;
use crate::reply::{Move, Reply};
use crate::rng::TaskRng;
use crate::state::SwarmState;
pub use crate::state::{PendingMessage, TaskState};
use crate::view::{local_view, View};
use crate::world::{Cell, World};

/// One agent's prompt memory (design §10.4).
#[derive(Debug, Clone, PartialEq)]
pub struct Memory {
    /// Views at past decisions, newest last (at most `memory`).
    pub views: VecDeque<View>,
    /// History entries, newest last (at most `memory`).
    pub history: VecDeque<HistoryEntry>,
    /// Number of decisions so far.
    pub decisions: u32,
}

/// A cheap per-agent observation; the prompt text comes from `observe_text`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwarmObs {
    /// Current round.
    pub round: u32,
    /// The agent's cell (off the map once escaped).
    pub pos: Cell,
    /// Whether the agent has left the map.
    pub escaped: bool,
}

/// The SwarmBench environment (`swarmbench-v0`).
#[derive(Debug, Clone)]
pub struct SwarmEnv {
    pub(crate) cfg: Config,
    pub(crate) seed: i64,
    pub(crate) world: World,
    pub(crate) agents: Vec<usize>,
    pub(crate) agent_of_mesh: Vec<u32>,
    pub(crate) names: Vec<String>,
    pub(crate) escaped: Vec<bool>,
    pub(crate) rng: TaskRng,
    pub(crate) task: TaskState,
    pub(crate) target: Vec<Cell>,
    pub(crate) score: f64,
    pub(crate) round: u32,
    pub(crate) memory: Vec<Memory>,
    pub(crate) messages: Vec<PendingMessage>,
    pub(crate) comm_rng: u64,
    physics: Physics,
    phys_actions: Vec<Option<Dir>>,
    /// Last Flocking optimum's translation: a speed hint only (not part of the state).
    flock_hint: Option<Cell>,
    /// Running group-dynamics metrics of this episode (paper App. F). Decision: not part of
    /// the saved state; an environment restored from a state file counts from there.
    pub(crate) dynamics: crate::group_dynamics::GroupDynamics,
}

impl SwarmEnv {
    /// A validated environment, reset with seed 42 (the reference's default seed).
    pub fn new(cfg: Config) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let mut env = Self::from_parts(cfg, 42);
        env.reset_seed(42);
        Ok(env)
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The map and its objects.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Current round (0-based; the number of rounds played).
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Agent `i`'s cell (its last, off-map cell once escaped).
    pub fn agent_pos(&self, i: usize) -> Cell {
        self.world.meshes[self.agents[i]].pos
    }

    /// Whether agent `i` has left the map.
    pub fn is_escaped(&self, i: usize) -> bool {
        self.escaped[i]
    }

    /// Number of agents.
    pub fn num_agents(&self) -> usize {
        self.agents.len()
    }

    /// The task state (lights, carrying flags, distances, …).
    pub fn task_state(&self) -> &TaskState {
        &self.task
    }

    /// The Flocking target cells (relative to its corner); empty for other tasks.
    pub fn flocking_target(&self) -> &[Cell] {
        &self.target
    }

    /// Mesh index of the prey (Pursuit) or box (Transport).
    pub fn special_mesh(&self) -> Option<usize> {
        match self.task {
            TaskState::Pursuit { prey } => Some(prey),
            _ => self.world.meshes.iter().position(|m| m.id == "box"),
        }
    }

    /// Agent index of an id (`Agent_3` → 3).
    pub fn agent_index(&self, agent: &str) -> Result<usize, EnvError> {
        agent
            .strip_prefix("Agent_")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&i| i < self.agents.len() && self.names[i] == agent)
            .ok_or_else(|| EnvError::UnknownAgent(agent.to_string()))
    }

    /// Creates the layout for `seed` with a fresh task RNG (design §3 decision: every reset of
    /// one configuration gives the same layout).
    pub fn reset_seed(&mut self, seed: i64) {
        self.seed = seed;
        self.dynamics.clear();
        let rng_seed = if self.cfg.task == Task::Flocking {
            42
        } else {
            seed
        };
        self.rng = TaskRng::new(rng_seed);
        let lay = layout::generate(&self.cfg, &mut self.rng);
        self.world = lay.world;
        self.agents = lay.agents;
        self.rebuild_index();
        let n = self.agents.len();
        self.escaped = vec![false; n];
        self.target = Vec::new();
        self.task = match self.cfg.task {
            Task::Pursuit => TaskState::Pursuit {
                prey: lay.special.unwrap_or(0),
            },
            Task::Synchronization => TaskState::Synchronization {
                lights: lay.lights,
                prev: -1,
            },
            Task::Foraging => TaskState::Foraging {
                carrying: vec![false; n],
            },
            Task::Flocking => {
                self.target = flocking_target(n).1;
                let d = self.flock_distance();
                TaskState::Flocking { d0: d, d }
            }
            Task::Transport => TaskState::Transport {
                counted: vec![false; n],
            },
        };
        self.score = 0.0;
        self.round = 0;
        self.memory = (0..n).map(|_| Memory::new()).collect();
        self.messages.clear();
        self.comm_rng = (seed as u64) ^ 0x636f_6d6d_5f72_6e67;
    }

    pub(crate) fn rebuild_index(&mut self) {
        self.agent_of_mesh = vec![u32::MAX; self.world.meshes.len()];
        for (i, &k) in self.agents.iter().enumerate() {
            self.agent_of_mesh[k] = i as u32;
        }
        self.names = (0..self.agents.len()).map(agent_name).collect();
        self.phys_actions = vec![None; self.world.meshes.len()];
        if self.cfg.task == Task::Flocking {
            self.target = flocking_target(self.agents.len()).1;
        }
    }

    pub(crate) fn flock_distance(&mut self) -> i64 {
        let cells: Vec<Cell> = self
            .agents
            .iter()
            .filter(|&&k| self.world.meshes[k].present)
            .map(|&k| self.world.meshes[k].pos)
            .collect();
        let (d, shift) = flocking::distance_with_hint(&cells, &self.target, self.flock_hint);
        self.flock_hint = Some(shift);
        d
    }

    /// The task's own completion test (Flocking: D = 0; Transport: every agent escaped).
    pub fn task_complete(&self) -> bool {
        match &self.task {
            TaskState::Flocking { d, .. } => *d == 0,
            TaskState::Transport { .. } => self.escaped.iter().all(|&e| e),
            _ => false,
        }
    }

    /// Whether the episode is over (design §3 step 1).
    pub fn is_done(&self) -> bool {
        self.task_complete() || self.round >= self.cfg.max_round
    }

    /// The view of agent `i` at the current state (design §10.1).
    pub fn view_of(&self, i: usize, out: &mut View) {
        if self.cfg.commander && i == 0 {
            crate::view::global_view(&self.world, &self.agent_of_mesh, self.agent_pos(i), out);
        } else {
            local_view(
                &self.world,
                &self.agent_of_mesh,
                self.agent_pos(i),
                self.cfg.view,
                out,
            );
        }
    }

    fn observations(&self) -> BTreeMap<AgentId, SwarmObs> {
        self.names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                (
                    n.clone(),
                    SwarmObs {
                        round: self.round,
                        pos: self.agent_pos(i),
                        escaped: self.escaped[i],
                    },
                )
            })
            .collect()
    }

    /// Plays one round (design §3 steps 2–8) with one reply per agent (missing: STAY).
    pub fn play_round(&mut self, actions: &BTreeMap<AgentId, Reply>) -> (f64, Vec<Event>) {
        let picked: Vec<Option<&Reply>> = self.names.iter().map(|n| actions.get(n)).collect();
        self.play_replies(&picked)
    }

    /// [`SwarmEnv::play_round`] with one optional reply per agent index (None: STAY).
    pub fn play_replies(&mut self, replies: &[Option<&Reply>]) -> (f64, Vec<Event>) {
        let mut events = Vec::new();
        if self.is_done() {
            return (0.0, events);
        }
        let r = self.round;
        let before = self.score;
        let stay = Reply {
            action: Some(Move::Stay),
            message: String::new(),
        };
        self.phys_actions.iter_mut().for_each(|a| *a = None);
        let mut switches = Vec::new();
        for i in 0..self.agents.len() {
            if self.escaped[i] {
                continue;
            }
            let reply = replies.get(i).copied().flatten().unwrap_or(&stay);
            self.record_decision(i, reply);
            if !reply.message.is_empty() {
                self.send(i, r, &reply.message);
            }
            self.phys_actions[self.agents[i]] = reply.action.and_then(Move::dir);
            if reply.action == Some(Move::Switch) {
                switches.push(i);
            }
        }
        self.messages.retain(|m| m.deliver > r);
        self.physics.step(&mut self.world, &self.phys_actions);
        self.task_update(r, &switches, &mut events);
        for i in 0..self.agents.len() {
            if !self.escaped[i] && !self.world.meshes[self.agents[i]].present {
                self.escaped[i] = true;
            }
        }
        self.round += 1;
        (self.score - before, events)
    }

    fn record_decision(&mut self, i: usize, reply: &Reply) {
        let mut view = if self.memory[i].views.len() >= self.cfg.memory {
            self.memory[i].views.pop_front().unwrap_or_else(View::empty)
        } else {
            View::empty()
        };
        self.view_of(i, &mut view);
        let mem = &mut self.memory[i];
        mem.views.push_back(view);
        mem.decisions += 1;
        if mem.history.len() >= self.cfg.memory {
            mem.history.pop_front();
        }
        mem.history.push_back(HistoryEntry {
            round: mem.decisions,
            action: reply.action.map_or("NONE", Move::name).to_string(),
            message: reply.message.clone(),
        });
    }

    /// Next draw of the message-options RNG (SplitMix64; separate from the task RNG so the
    /// robustness options never change layouts or prey moves).
    fn comm_draw(&mut self) -> u64 {
        colony_env_api::rng::splitmix64(&mut self.comm_rng)
    }

    fn send(&mut self, speaker: usize, r: u32, text: &str) {
        let mut text = text.to_string();
        if self.cfg.corruption > 0.0 {
            let u = (self.comm_draw() >> 11) as f64 / (1u64 << 53) as f64;
            if u < self.cfg.corruption {
                text = crate::messages::corrupt(&text, self.comm_draw());
            }
        }
        let span = u64::from(self.cfg.delay_max - self.cfg.delay_min) + 1;
        let delay = if self.cfg.delay_max > 0 {
            self.cfg.delay_min + (self.comm_draw() % span) as u32
        } else {
            0
        };
        self.messages.push(PendingMessage {
            sent: r,
            deliver: r + 1 + delay,
            speaker,
            text,
        });
    }

    /// The random action of `draw`: a uniformly chosen valid move, no message.
    fn random_reply(&self, draw: u64) -> Reply {
        let valid = Move::valid(self.cfg.task == Task::Synchronization);
        Reply {
            action: Some(valid[(draw % valid.len() as u64) as usize]),
            message: String::new(),
        }
    }

    /// A snapshot for save files.
    pub fn snapshot(&self) -> SwarmState {
        SwarmState::capture(self)
    }

    /// An empty environment of `cfg` (nothing placed yet): what `new` resets and what a
    /// snapshot restores into.
    pub(crate) fn from_parts(cfg: Config, seed: i64) -> Self {
        Self {
            cfg,
            seed,
            world: World::new(0, 0),
            agents: Vec::new(),
            agent_of_mesh: Vec::new(),
            names: Vec::new(),
            escaped: Vec::new(),
            rng: TaskRng::new(seed),
            task: TaskState::Flocking { d0: 0, d: 0 },
            target: Vec::new(),
            score: 0.0,
            round: 0,
            memory: Vec::new(),
            messages: Vec::new(),
            comm_rng: 0,
            physics: Physics::default(),
            phys_actions: Vec::new(),
            flock_hint: None,
            dynamics: crate::group_dynamics::GroupDynamics::default(),
        }
    }
}

impl Memory {
    /// Empty memory.
    pub fn new() -> Self {
        Self {
            views: VecDeque::new(),
            history: VecDeque::new(),
            decisions: 0,
        }
    }
}

impl Default for Memory {
    fn default() -> Self {
        Self::new()
    }
}

impl Environment for SwarmEnv {
    type Action = Reply;
    type Observation = SwarmObs;
    type State = SwarmState;

    fn id(&self) -> &'static str {
        "swarmbench-v0"
    }

    fn agents(&self) -> Vec<AgentId> {
        self.names.clone()
    }

    fn reset(&mut self, seed: u64) -> BTreeMap<AgentId, SwarmObs> {
        // Seeds are integers (design §5); u64 seeds above i64::MAX wrap.
        self.reset_seed(seed as i64);
        self.observations()
    }

    fn step(&mut self, actions: &BTreeMap<AgentId, Reply>) -> StepResult<SwarmObs> {
        self.record_dynamics(actions);
        let (delta, events) = self.play_round(actions);
        let terminated = self.task_complete();
        let truncated = !terminated && self.round >= self.cfg.max_round;
        StepResult {
            observations: self.observations(),
            rewards: self.names.iter().map(|n| (n.clone(), delta)).collect(),
            terminated,
            truncated,
            events,
        }
    }

    fn step_random(&mut self, rng: &mut u64) -> bool {
        // The same draws as the generic path (one per agent, in index order), without the
        // per-agent maps and observations.
        let replies: Vec<Reply> = (0..self.agents.len())
            .map(|_| self.random_reply(colony_env_api::rng::splitmix64(rng)))
            .collect();
        let picked: Vec<Option<&Reply>> = replies.iter().map(Some).collect();
        self.play_replies(&picked);
        self.is_done()
    }

    fn noop(&self, _agent: &str) -> Reply {
        Reply {
            action: Some(Move::Stay),
            message: String::new(),
        }
    }

    fn random_action(&self, _agent: &str, draw: u64) -> Reply {
        self.random_reply(draw)
    }

    fn parse_action(&self, agent: &str, text: &str) -> Result<Reply, EnvError> {
        self.agent_index(agent)?;
        crate::messages::parse_action_text(text, self.cfg.task, self.cfg.msg_cap).map_err(|e| {
            EnvError::Action {
                agent: agent.to_string(),
                message: e.to_string(),
            }
        })
    }

    fn format_action(&self, _agent: &str, action: &Reply) -> String {
        crate::messages::format_action(action)
    }

    fn observe_text(&self, agent: &str) -> Result<String, EnvError> {
        let i = self.agent_index(agent)?;
        Ok(self.prompt(i))
    }

    fn score(&self) -> f64 {
        self.score
    }

    fn state(&self) -> SwarmState {
        self.snapshot()
    }

    fn restore(&mut self, state: SwarmState) -> Result<(), EnvError> {
        *self = state.into_env()?;
        Ok(())
    }

    /// The system message of design §11.1, the same for every agent.
    fn instructions(&self, _agent: &str) -> String {
        crate::llm_play::SYSTEM.to_string()
    }

    /// The non-escaped agents, in index order (escaped agents get no prompt, design §10.1).
    fn deciding_agents(&self) -> Vec<AgentId> {
        self.deciding_names()
    }

    /// The §12.1 parser, lenient: see [`crate::llm_play::lenient_reply`] (feedback always
    /// `None`; no action found → action `None`, history `NONE`, physically STAY).
    fn parse_reply(&self, _agent: &str, text: &str) -> colony_env_api::ParsedReply<Reply> {
        crate::llm_play::lenient_reply(text, self.cfg.task, self.cfg.msg_cap)
    }

    fn reply_schema(&self, _agent: &str) -> serde_json::Value {
        crate::structured::reply_schema(self.cfg.task, self.cfg.msg_cap)
    }

    fn structured_reply_text(&self, _agent: &str, reply: &serde_json::Value) -> Option<String> {
        crate::structured::reply_text(reply)
    }

    fn render(&self) -> String {
        let mut s = self.world.grid_rows().join("\n");
        s.push_str(&format!(
            "\n{} round {}/{} score {}\n",
            self.cfg.task.name(),
            self.round,
            self.cfg.max_round,
            self.score
        ));
        s
    }
    fn messaging(&self) -> Option<&dyn colony_env_api::Messaging> {
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

impl colony_env_api::Messaging for SwarmEnv {
    /// The §10.3 visibility at the current positions ([`SwarmEnv::hears_index`]); unknown
    /// agents hear nothing.
    fn hears(&self, listener: &str, speaker: &str) -> bool {
        match (self.agent_index(listener), self.agent_index(speaker)) {
            (Ok(l), Ok(s)) => self.hears_index(l, s),
            _ => false,
        }
    }
    /// True: messages travel inside replies (`MSG:`) and the environment delivers them
    /// (radius, delay, corruption; design §10.3, appendix L.4).
    fn delivers_messages(&self) -> bool {
        true
    }
}

impl colony_env_api::SubGoals for SwarmEnv {
    fn sub_goals(&self) -> Vec<colony_env_api::SubGoal> {
        describe::sub_goals(self)
    }
    fn agent_position(&self, agent: &str) -> Option<String> {
        describe::position(self, agent)
    }
}

impl colony_env_api::PaperProtocol for SwarmEnv {
    /// The paper's group-dynamics metrics (App. F) averaged over this episode's states, as
    /// `compare` records them per episode.
    fn paper_metrics(&self) -> BTreeMap<String, f64> {
        self.dynamics.means(self.round, &self.dynamics_positions())
    }
}

impl colony_env_api::NumericInterface<Reply> for SwarmEnv {
    fn numeric_spaces(&self, agent: &str) -> Option<colony_env_api::NumericSpaces> {
        self.numeric(agent)
    }
    fn action_from_code(&self, agent: &str, code: &[i64]) -> Result<Reply, EnvError> {
        self.reply_from_code(agent, code)
    }
    fn observe_numeric(&self, agent: &str, out: &mut [f32]) -> Result<(), EnvError> {
        self.observe_view_numeric(agent, out)
    }
}
