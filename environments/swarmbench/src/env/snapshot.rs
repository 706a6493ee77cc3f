//! Conversion between the live environment and its saved [`SwarmState`] (docs/design/swarmbench.md
//! Appendix A): capture, and the rebuild that validates every field and names the culprit.
//! It lives under `env` because both directions read and write the private fields.

use std::collections::VecDeque;

use colony_env_api::EnvError;

use super::{Memory, SwarmEnv};
use crate::config::Task;
use crate::rng::TaskRng;
use crate::state::{MemoryState, SwarmState, TaskState, ViewState};
use crate::view::{View, ViewCell};
use crate::world::{MeshKind, World};

fn state_err(field: impl Into<String>, message: impl Into<String>) -> EnvError {
    EnvError::State {
        field: field.into(),
        message: message.into(),
    }
}

impl SwarmState {
    /// Captures an environment.
    pub fn capture(env: &SwarmEnv) -> Self {
        Self {
            config: env.cfg.clone(),
            seed: env.seed,
            round: env.round,
            score: env.score,
            grid: env.world.grid_rows(),
            agents: (0..env.agents.len())
                .map(|i| {
                    let (a, b) = env.agent_pos(i);
                    (env.names[i].clone(), [a, b])
                })
                .collect(),
            escaped: env.escaped.clone(),
            objects: env.world.meshes.clone(),
            agent_objects: env.agents.clone(),
            task_state: env.task.clone(),
            rng: env.rng.state(),
            comm_rng: env.comm_rng,
            messages: env.messages.clone(),
            memory: env
                .memory
                .iter()
                .map(|m| MemoryState {
                    views: m
                        .views
                        .iter()
                        .map(|v| ViewState {
                            origin: v.origin,
                            own: v.own,
                            rows: v.rows_text().into_iter().map(|r| r.join(" ")).collect(),
                        })
                        .collect(),
                    history: m.history.iter().cloned().collect(),
                    decisions: m.decisions,
                })
                .collect(),
        }
    }

    /// Rebuilds an environment, validating every field (errors name the field).
    pub fn into_env(self) -> Result<SwarmEnv, EnvError> {
        self.config
            .validate()
            .map_err(|e| state_err(format!("config.{}", e.key), e.message))?;
        if self.round > self.config.max_round {
            return Err(state_err(
                "round",
                format!(
                    "round {} is past config.max_round {}",
                    self.round, self.config.max_round
                ),
            ));
        }
        let n = self.agent_objects.len();
        if n != self.config.agents {
            return Err(state_err(
                "agent_objects",
                format!("{n} agents but config.agents = {}", self.config.agents),
            ));
        }
        let mut env = SwarmEnv::from_parts(self.config.clone(), self.seed);
        let mut world = World::new(self.config.height, self.config.width);
        let mut objects = self.objects;
        for (i, &k) in self.agent_objects.iter().enumerate() {
            let field = format!("agent_objects[{i}]");
            let m = objects
                .get_mut(k)
                .ok_or_else(|| state_err(&field, "no such object"))?;
            if m.kind != MeshKind::Agent || m.cells.len() != 1 {
                return Err(state_err(field, "not a 1x1 agent object"));
            }
            let name = crate::layout::agent_name(i);
            if let Some(&[a, b]) = self.agents.get(&name) {
                m.pos = (a, b);
            }
        }
        if let Some(name) = self.agents.keys().find(|k| !is_agent_below(k, n)) {
            return Err(state_err(format!("agents.{name}"), "unknown agent"));
        }
        for (k, m) in objects.into_iter().enumerate() {
            let was_present = m.present;
            for (c, _) in m.abs_cells() {
                if world.on_map(c) && was_present && world.occupant(c).is_some() {
                    return Err(state_err(
                        format!("objects[{k}]"),
                        format!("{} overlaps another object at {c:?}", m.id),
                    ));
                }
            }
            let idx = if was_present {
                world.add(m)
            } else {
                world.meshes.push(m);
                world.meshes.len() - 1
            };
            debug_assert_eq!(idx, k);
        }
        if self.escaped.len() != n {
            return Err(state_err("escaped", format!("expected {n} flags")));
        }
        env.world = world;
        env.agents = self.agent_objects;
        env.rebuild_index();
        env.escaped = self.escaped;
        for i in 0..n {
            if !env.escaped[i] && !env.world.meshes[env.agents[i]].present {
                return Err(state_err(
                    format!("agents.Agent_{i}"),
                    "is off the map but not marked escaped",
                ));
            }
        }
        check_task(&self.task_state, self.config.task, n, &env.world)?;
        env.task = self.task_state;
        env.rng = TaskRng::restore(&self.rng)
            .map_err(|(field, message)| state_err(format!("rng.{field}"), message))?;
        env.score = self.score;
        env.round = self.round;
        env.comm_rng = self.comm_rng;
        for (x, m) in self.messages.iter().enumerate() {
            if m.speaker >= n {
                return Err(state_err(format!("messages[{x}].speaker"), "no such agent"));
            }
        }
        env.messages = self.messages;
        if !self.memory.is_empty() && self.memory.len() != n {
            return Err(state_err("memory", format!("expected {n} entries")));
        }
        env.memory = (0..n).map(|_| Memory::new()).collect();
        for (i, m) in self.memory.into_iter().enumerate() {
            if m.decisions > self.round {
                return Err(state_err(
                    format!("memory[{i}].decisions"),
                    format!("{} decisions in {} rounds", m.decisions, self.round),
                ));
            }
            if m.views.len() > self.config.memory || m.history.len() > self.config.memory {
                return Err(state_err(
                    format!("memory[{i}]"),
                    format!(
                        "keeps more than config.memory = {} entries",
                        self.config.memory
                    ),
                ));
            }
            let mut views = VecDeque::new();
            for (v, vs) in m.views.into_iter().enumerate() {
                views.push_back(
                    parse_view(vs).map_err(|e| state_err(format!("memory[{i}].views[{v}]"), e))?,
                );
            }
            env.memory[i] = Memory {
                views,
                history: m.history.into_iter().collect(),
                decisions: m.decisions,
            };
        }
        Ok(env)
    }
}

fn is_agent_below(name: &str, n: usize) -> bool {
    name.strip_prefix("Agent_")
        .and_then(|x| x.parse::<usize>().ok())
        .is_some_and(|i| i < n && crate::layout::agent_name(i) == name)
}

fn parse_view(vs: ViewState) -> Result<View, String> {
    let mut cells = Vec::new();
    let mut cols = 0;
    for row in &vs.rows {
        let parsed: Option<Vec<ViewCell>> = row.split(' ').map(ViewCell::parse).collect();
        let parsed = parsed.ok_or_else(|| format!("bad cell in row {row:?}"))?;
        cols = parsed.len();
        cells.extend(parsed);
    }
    Ok(View {
        origin: vs.origin,
        rows: vs.rows.len() as i32,
        cols: cols as i32,
        own: vs.own,
        cells,
    })
}

fn check_task(t: &TaskState, task: Task, n: usize, world: &World) -> Result<(), EnvError> {
    let len_ok = |len: usize, field: &str| {
        if len == n {
            Ok(())
        } else {
            Err(state_err(
                format!("task_state.{field}"),
                format!("expected {n} entries"),
            ))
        }
    };
    let task_of = match t {
        TaskState::Pursuit { .. } => Task::Pursuit,
        TaskState::Synchronization { .. } => Task::Synchronization,
        TaskState::Foraging { .. } => Task::Foraging,
        TaskState::Flocking { .. } => Task::Flocking,
        TaskState::Transport { .. } => Task::Transport,
    };
    if task_of != task {
        return Err(state_err(
            "task_state.task",
            format!("{} but config.task is {}", task_of.name(), task.name()),
        ));
    }
    match t {
        TaskState::Pursuit { prey } => {
            if world.meshes.get(*prey).map(|m| m.kind) != Some(MeshKind::Prey) {
                return Err(state_err("task_state.prey", "not a prey object"));
            }
            Ok(())
        }
        TaskState::Synchronization { lights, .. } => len_ok(lights.len(), "lights"),
        TaskState::Foraging { carrying } => len_ok(carrying.len(), "carrying"),
        TaskState::Flocking { .. } => Ok(()),
        TaskState::Transport { counted } => len_ok(counted.len(), "counted"),
    }
}
