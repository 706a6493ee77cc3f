//! `spread-v0`: N agents and N landmarks on a square grid, the grid version of the classic
//! multi-agent "simple spread" task. Every step each agent moves up, down, left, right or
//! stays; all agents share one reward: minus the summed Manhattan distance from each landmark
//! to its nearest agent, minus a penalty per pair of agents sharing a cell. The episode ends
//! (terminated) when every landmark has an agent on it, or is truncated after `max_steps`.
//!
//! Written against `colony_env_api` only: synchronous, deterministic, no LLM.

use std::collections::BTreeMap;

use colony_env_api::rng::splitmix64;
use colony_env_api::{
    boxed, clip, typed_policy, AgentId, DynEnvironment, DynPolicy, EnvEntry, EnvError, EnvInfo,
    EnvParams, Environment, ParamSpec, Policy, StepResult,
};
use serde::{Deserialize, Serialize};

/// The environment id.
pub const ID: &str = "spread-v0";
/// Penalty per pair of agents on one cell.
pub const COLLISION_PENALTY: f64 = 1.0;
/// Bounds of the settings (and of a loaded state).
const MAX_AGENTS: usize = 16;
const MAX_SIZE: i64 = 64;
const MAX_STEPS: u32 = 1000;

/// One move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Move {
    /// y − 1.
    Up,
    /// y + 1.
    Down,
    /// x − 1.
    Left,
    /// x + 1.
    Right,
    /// No move.
    Stay,
}

/// The moves, in the order their names are listed.
pub const MOVES: [(Move, &str); 5] = [
    (Move::Up, "up"),
    (Move::Down, "down"),
    (Move::Left, "left"),
    (Move::Right, "right"),
    (Move::Stay, "stay"),
];

/// The whole state: settings, step count, positions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Side of the grid.
    pub size: i64,
    /// Step cap.
    pub max_steps: u32,
    /// Steps taken.
    pub step: u32,
    /// Agent positions `[x, y]`, by id.
    pub agents: BTreeMap<AgentId, [i64; 2]>,
    /// Landmark positions `[x, y]`.
    pub landmarks: Vec<[i64; 2]>,
}

/// The environment.
#[derive(Debug, Clone)]
pub struct Spread {
    n: usize,
    state: State,
}

impl Spread {
    /// `n` agents and landmarks on a `size` × `size` grid, `max_steps` per episode.
    pub fn new(n: usize, size: i64, max_steps: u32) -> Result<Self, EnvError> {
        let bad = |key: &str, message: String| EnvError::Param {
            key: key.into(),
            message,
        };
        if !(1..=MAX_AGENTS).contains(&n) {
            return Err(bad("agents", format!("must be 1 to {MAX_AGENTS}, got {n}")));
        }
        if !(3..=MAX_SIZE).contains(&size) || (size * size) < 2 * n as i64 {
            return Err(bad(
                "size",
                format!(
                    "must be 3 to {MAX_SIZE} with room for every agent and landmark, got {size}"
                ),
            ));
        }
        if !(1..=MAX_STEPS).contains(&max_steps) {
            return Err(bad(
                "max_steps",
                format!("must be 1 to {MAX_STEPS}, got {max_steps}"),
            ));
        }
        let mut env = Self {
            n,
            state: State {
                size,
                max_steps,
                step: 0,
                agents: BTreeMap::new(),
                landmarks: Vec::new(),
            },
        };
        env.reset(0);
        Ok(env)
    }

    /// The current state (read by policies of this crate).
    pub fn view(&self) -> &State {
        &self.state
    }

    /// Summed distance from each landmark to its nearest agent, and colliding pairs.
    fn cost(&self) -> (i64, usize) {
        let s = &self.state;
        let dist: i64 = s
            .landmarks
            .iter()
            .map(|l| {
                s.agents
                    .values()
                    .map(|a| manhattan(*a, *l))
                    .min()
                    .unwrap_or(0)
            })
            .sum();
        let mut cells: BTreeMap<[i64; 2], usize> = BTreeMap::new();
        for a in s.agents.values() {
            *cells.entry(*a).or_default() += 1;
        }
        let pairs = cells.values().map(|k| k * k.saturating_sub(1) / 2).sum();
        (dist, pairs)
    }
}

/// Manhattan distance.
pub fn manhattan(a: [i64; 2], b: [i64; 2]) -> i64 {
    (a[0] - b[0]).abs() + (a[1] - b[1]).abs()
}

/// The move from `from` one step towards `to` (x first), or stay when there.
pub fn towards(from: [i64; 2], to: [i64; 2]) -> Move {
    match (to[0] - from[0], to[1] - from[1]) {
        (dx, _) if dx > 0 => Move::Right,
        (dx, _) if dx < 0 => Move::Left,
        (_, dy) if dy > 0 => Move::Down,
        (_, dy) if dy < 0 => Move::Up,
        _ => Move::Stay,
    }
}

/// Greedy targets: agents in id order each take the nearest landmark no earlier agent took.
pub fn greedy_targets(s: &State) -> BTreeMap<AgentId, [i64; 2]> {
    let mut free = s.landmarks.clone();
    let mut out = BTreeMap::new();
    for (id, pos) in &s.agents {
        let best = free
            .iter()
            .enumerate()
            .min_by_key(|(_, l)| manhattan(*pos, **l))
            .map(|(i, _)| i);
        if let Some(i) = best {
            out.insert(id.clone(), free.remove(i));
        }
    }
    out
}

impl Environment for Spread {
    type Action = Move;
    type Observation = String;
    type State = State;

    fn id(&self) -> &'static str {
        ID
    }

    fn agents(&self) -> Vec<AgentId> {
        self.state.agents.keys().cloned().collect()
    }

    fn reset(&mut self, seed: u64) -> BTreeMap<AgentId, String> {
        let size = self.state.size;
        let mut rng = seed ^ 0x5350_5245_4144;
        let mut taken = std::collections::BTreeSet::new();
        let mut cell = |rng: &mut u64| loop {
            let c = (splitmix64(rng) % (size * size) as u64) as i64;
            if taken.insert(c) {
                return [c % size, c / size];
            }
        };
        let agents = (0..self.n)
            .map(|i| (format!("agent_{i}"), cell(&mut rng)))
            .collect();
        let landmarks = (0..self.n).map(|_| cell(&mut rng)).collect();
        self.state = State {
            step: 0,
            agents,
            landmarks,
            ..self.state.clone()
        };
        self.agents()
            .into_iter()
            .map(|a| {
                let text = self.observe_text(&a).unwrap_or_default();
                (a, text)
            })
            .collect()
    }

    fn step(&mut self, actions: &BTreeMap<AgentId, Move>) -> StepResult<String> {
        let size = self.state.size;
        for (id, pos) in self.state.agents.iter_mut() {
            let [x, y] = *pos;
            *pos = match actions.get(id).copied().unwrap_or(Move::Stay) {
                Move::Up => [x, (y - 1).max(0)],
                Move::Down => [x, (y + 1).min(size - 1)],
                Move::Left => [(x - 1).max(0), y],
                Move::Right => [(x + 1).min(size - 1), y],
                Move::Stay => [x, y],
            };
        }
        self.state.step += 1;
        let (dist, pairs) = self.cost();
        let reward = 0.0 - dist as f64 - COLLISION_PENALTY * pairs as f64;
        let terminated = dist == 0;
        let observations = self
            .agents()
            .into_iter()
            .map(|a| {
                let text = self.observe_text(&a).unwrap_or_default();
                (a, text)
            })
            .collect();
        StepResult {
            observations,
            rewards: self.agents().into_iter().map(|a| (a, reward)).collect(),
            terminated,
            truncated: !terminated && self.state.step >= self.state.max_steps,
            events: Vec::new(),
        }
    }

    fn noop(&self, _agent: &str) -> Move {
        Move::Stay
    }

    fn random_action(&self, _agent: &str, draw: u64) -> Move {
        MOVES[(draw % MOVES.len() as u64) as usize].0
    }

    fn parse_action(&self, agent: &str, text: &str) -> Result<Move, EnvError> {
        // Lenient: the last move word of the reply (models often explain first).
        let lower = text.to_ascii_lowercase();
        let word = lower
            .split(|c: char| !c.is_ascii_alphabetic())
            .rev()
            .find_map(|w| MOVES.iter().find(|(_, n)| *n == w));
        word.map(|(m, _)| *m).ok_or_else(|| EnvError::Action {
            agent: agent.into(),
            message: format!("no move (up, down, left, right, stay) in {:?}", clip(text)),
        })
    }

    fn format_action(&self, _agent: &str, action: &Move) -> String {
        MOVES
            .iter()
            .find(|(m, _)| m == action)
            .map_or("stay", |(_, n)| n)
            .to_string()
    }

    fn observe_text(&self, agent: &str) -> Result<String, EnvError> {
        let s = &self.state;
        let me = s
            .agents
            .get(agent)
            .ok_or_else(|| EnvError::UnknownAgent(agent.into()))?;
        let others: Vec<String> = s
            .agents
            .iter()
            .filter(|(id, _)| id.as_str() != agent)
            .map(|(id, p)| format!("{id} at ({}, {})", p[0], p[1]))
            .collect();
        let landmarks: Vec<String> = s
            .landmarks
            .iter()
            .map(|l| format!("({}, {})", l[0], l[1]))
            .collect();
        Ok(format!(
            "[{ID}] You are {agent} at ({}, {}) on a {size}x{size} grid (x grows right, y grows down).\n\
             Landmarks: {}.\nOther agents: {}.\nCover every landmark with one agent; do not share cells.\n\
             Reply with one word: up, down, left, right or stay.",
            me[0],
            me[1],
            landmarks.join(", "),
            if others.is_empty() { "none".into() } else { others.join(", ") },
            size = s.size,
        ))
    }

    fn score(&self) -> f64 {
        let (dist, pairs) = self.cost();
        // 0.0 − x, not −x: a perfect cover scores 0, never −0.
        0.0 - dist as f64 - COLLISION_PENALTY * pairs as f64
    }

    fn state(&self) -> State {
        self.state.clone()
    }

    fn restore(&mut self, state: State) -> Result<(), EnvError> {
        let bad = |field: &str, message: String| EnvError::State {
            field: field.into(),
            message,
        };
        if !(3..=MAX_SIZE).contains(&state.size) {
            return Err(bad("size", format!("must be 3 to {MAX_SIZE}")));
        }
        if !(1..=MAX_STEPS).contains(&state.max_steps) || state.step > state.max_steps {
            return Err(bad("step", "must be at most max_steps (1 to 1000)".into()));
        }
        if state.agents.len() != self.n || state.landmarks.len() != self.n {
            return Err(bad(
                "agents",
                format!("must hold {} agents and landmarks", self.n),
            ));
        }
        let inside =
            |p: &[i64; 2]| (0..state.size).contains(&p[0]) && (0..state.size).contains(&p[1]);
        if let Some(id) = state
            .agents
            .iter()
            .find(|(_, p)| !inside(p))
            .map(|(id, _)| id)
        {
            return Err(bad(
                &format!("agents.{}", clip(id)),
                "outside the grid".into(),
            ));
        }
        if let Some(i) = state.landmarks.iter().position(|p| !inside(p)) {
            return Err(bad(&format!("landmarks[{i}]"), "outside the grid".into()));
        }
        if state.agents.keys().ne((0..self.n)
            .map(|i| format!("agent_{i}"))
            .collect::<Vec<_>>()
            .iter())
        {
            return Err(bad("agents", "ids must be agent_0 … agent_{n-1}".into()));
        }
        self.state = state;
        Ok(())
    }

    fn render(&self) -> String {
        let s = &self.state;
        let mut rows = vec![vec!['.'; s.size as usize]; s.size as usize];
        for l in &s.landmarks {
            rows[l[1] as usize][l[0] as usize] = 'L';
        }
        for a in s.agents.values() {
            let c = &mut rows[a[1] as usize][a[0] as usize];
            *c = if *c == 'L' { '*' } else { 'A' };
        }
        rows.into_iter()
            .map(|r| r.into_iter().collect::<String>() + "\n")
            .collect()
    }

    fn instructions(&self, _agent: &str) -> String {
        "You control one agent of a team on a grid. Together, put one agent on every landmark."
            .into()
    }
    fn numeric(&self) -> Option<&dyn colony_env_api::NumericInterface<Self::Action>> {
        Some(self)
    }
}

impl colony_env_api::NumericInterface<Move> for Spread {
    /// Numeric spaces, for RL front ends such as colony's Python package: the five moves as a
    /// `Discrete(5)` in [`MOVES`] order, and the positions `[x, y]` of the agent itself, the
    /// other agents (id order) and the landmarks, flat.
    fn numeric_spaces(&self, agent: &str) -> Option<colony_env_api::NumericSpaces> {
        self.state
            .agents
            .contains_key(agent)
            .then(|| colony_env_api::NumericSpaces {
                actions: vec![MOVES.len() as u32],
                shape: vec![4 * self.n],
                low: 0.0,
                high: (self.state.size - 1) as f32,
            })
    }
    fn action_from_code(&self, agent: &str, code: &[i64]) -> Result<Move, EnvError> {
        match code {
            [c] if (0..MOVES.len() as i64).contains(c) => Ok(MOVES[*c as usize].0),
            _ => Err(EnvError::Action {
                agent: agent.into(),
                message: format!("{code:?} is not one move code in 0..{}", MOVES.len()),
            }),
        }
    }
    fn observe_numeric(&self, agent: &str, out: &mut [f32]) -> Result<(), EnvError> {
        let s = &self.state;
        let me = s
            .agents
            .get(agent)
            .ok_or_else(|| EnvError::UnknownAgent(agent.into()))?;
        let others = s.agents.iter().filter(|(id, _)| id.as_str() != agent);
        let cells = std::iter::once(me)
            .chain(others.map(|(_, p)| p))
            .chain(s.landmarks.iter());
        let values: Vec<f32> = cells.flat_map(|p| [p[0] as f32, p[1] as f32]).collect();
        if values.len() != out.len() {
            return Err(EnvError::Action {
                agent: agent.into(),
                message: format!(
                    "an observation buffer of {} for {} values",
                    out.len(),
                    values.len()
                ),
            });
        }
        out.copy_from_slice(&values);
        Ok(())
    }
}

/// The scripted heuristic (`scripted:heuristic`): greedy nearest-landmark targets.
struct Heuristic;

impl Policy<Spread> for Heuristic {
    fn act(&mut self, env: &Spread) -> BTreeMap<AgentId, Move> {
        let s = env.view();
        greedy_targets(s)
            .into_iter()
            .map(|(id, target)| {
                let m = towards(s.agents[&id], target);
                (id, m)
            })
            .collect()
    }
}

/// The simulated agent: reads a `spread-v0` prompt, moves towards the nearest landmark with
/// probability `accuracy`, otherwise a random move.
pub fn simulated_reply(_system: &str, user: &str, accuracy: f64, draw: u64) -> Option<String> {
    if !user.starts_with(&format!("[{ID}]")) {
        return None;
    }
    let nums = |line: &str| -> Vec<i64> {
        line.split(|c: char| !c.is_ascii_digit() && c != '-')
            .filter_map(|t| t.parse().ok())
            .collect()
    };
    let mut lines = user.lines();
    let me = nums(lines.next()?.split(" on a ").next()?);
    let marks = nums(lines.next()?);
    let pos = [*me.get(1)?, *me.get(2)?];
    let nearest = marks
        .chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| [c[0], c[1]])
        .min_by_key(|l| manhattan(pos, *l))?;
    let mut rng = draw;
    let u = (splitmix64(&mut rng) >> 11) as f64 / (1u64 << 53) as f64;
    let m = if u < accuracy {
        towards(pos, nearest)
    } else {
        MOVES[(splitmix64(&mut rng) % 5) as usize].0
    };
    MOVES
        .iter()
        .find(|(x, _)| *x == m)
        .map(|(_, n)| n.to_string())
}

/// How `colony env …` sees `spread-v0`.
pub struct SpreadEntry;

fn params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::new("agents", "3", "agents and landmarks (1 to 16)"),
        ParamSpec::new("size", "8", "side of the grid (3 to 64)"),
        ParamSpec::new("max_steps", "25", "steps per episode (1 to 1000)"),
    ]
}

impl EnvEntry for SpreadEntry {
    fn info(&self) -> EnvInfo {
        EnvInfo {
            id: ID.into(),
            description: "N agents cover N landmarks on a grid (simple spread), a plugin example"
                .into(),
            params: params(),
        }
    }

    fn make(&self, mut params: EnvParams) -> Result<Box<dyn DynEnvironment>, EnvError> {
        let n = params.take("agents", 3usize)?;
        let size = params.take("size", 8i64)?;
        let max_steps = params.take("max_steps", 25u32)?;
        params.finish(&self.info().params)?;
        Ok(boxed(Spread::new(n, size, max_steps)?))
    }

    fn policy_names(&self) -> Vec<&'static str> {
        vec!["heuristic"]
    }

    fn make_own_policy(&self, name: &str, _seed: u64) -> Result<Box<dyn DynPolicy>, EnvError> {
        match name {
            "heuristic" => Ok(typed_policy::<Spread, _>(Heuristic)),
            other => Err(colony_env_api::registry::unknown_policy(
                other,
                &self.policy_names(),
            )),
        }
    }

    fn simulated_agent(&self) -> Option<colony_env_api::SimulatedAgent> {
        Some(simulated_reply)
    }
}

/// The entry to register (`Registry::environment(spread::entry())`).
pub fn entry() -> &'static dyn EnvEntry {
    &SpreadEntry
}
