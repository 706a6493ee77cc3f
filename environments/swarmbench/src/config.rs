//! Configuration of an episode: task, sizes, view, rounds, memory, message options
//! (docs/design/swarmbench.md §6), and the validation of configurations the reference crashes or
//! loops on (design §13, Q7, Q26, Q28, Q29).

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Largest map side (height and width).
pub const MAX_SIDE: i32 = 2000;

/// Largest `max_round` (keeps round counters far from overflow).
pub const MAX_ROUND: u32 = 1_000_000_000;

/// Largest `memory` (views and history entries kept per agent).
pub const MAX_MEMORY: usize = 1000;

/// Largest `delay_max` in rounds.
pub const MAX_DELAY: u32 = 1_000_000;

/// Largest `msg_cap` in characters.
pub const MAX_MSG_CAP: usize = 100_000;

/// Most view cells the prompt memories may hold at once: every agent's `view²` cells (the
/// commander's whole map) times `memory`. 2^25 cells is 256 MB at most.
pub const MAX_VIEW_CELLS: u64 = 1 << 25;

/// The five SwarmBench tasks (design §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    /// Catch the prey (§9.1).
    Pursuit,
    /// Alternate unanimous light states (§9.2).
    Synchronization,
    /// Carry food to the nest (§9.3).
    Foraging,
    /// Form the target shape (§9.4).
    Flocking,
    /// Push the box out and escape (§9.5).
    Transport,
}

impl Task {
    /// All tasks, in the paper's order.
    pub const ALL: [Task; 5] = [
        Task::Pursuit,
        Task::Synchronization,
        Task::Foraging,
        Task::Flocking,
        Task::Transport,
    ];

    /// Lower-case name (`pursuit`, …).
    pub fn name(self) -> &'static str {
        match self {
            Task::Pursuit => "pursuit",
            Task::Synchronization => "synchronization",
            Task::Foraging => "foraging",
            Task::Flocking => "flocking",
            Task::Transport => "transport",
        }
    }
}

impl std::str::FromStr for Task {
    type Err = colony_env_api::UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Task::ALL
            .into_iter()
            .find(|t| {
                t.name().eq_ignore_ascii_case(s)
                    || (s.len() >= 4 && t.name().starts_with(&s.to_ascii_lowercase()))
            })
            .ok_or_else(|| {
                colony_env_api::UnknownName::new(
                    "task",
                    s,
                    "pursuit, synchronization, foraging, flocking or transport",
                )
            })
    }
}

/// Everything that fixes an episode besides the seed (design §6 defaults, appendix L options).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// The task.
    pub task: Task,
    /// Number of agents N.
    pub agents: usize,
    /// Map rows.
    pub height: i32,
    /// Map columns.
    pub width: i32,
    /// View size k (odd recommended, Q31).
    pub view: i32,
    /// Maximum number of rounds.
    pub max_round: u32,
    /// Views and history entries kept in the prompt.
    pub memory: usize,
    /// Message cap in characters (code points).
    pub msg_cap: usize,
    /// Probability that a sent message is corrupted (appendix L.4; 0 = off).
    #[serde(default)]
    pub corruption: f64,
    /// Minimum extra delivery delay in rounds (appendix L.4).
    #[serde(default)]
    pub delay_min: u32,
    /// Maximum extra delivery delay in rounds (appendix L.4; 0 = off).
    #[serde(default)]
    pub delay_max: u32,
    /// Agent_0 is a commander with a global view that alone talks to everyone (appendix L.3).
    #[serde(default)]
    pub commander: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            task: Task::Pursuit,
            agents: 10,
            height: 10,
            width: 10,
            view: 5,
            max_round: 100,
            memory: 5,
            msg_cap: 120,
            corruption: 0.0,
            delay_min: 0,
            delay_max: 0,
            commander: false,
        }
    }
}

/// A configuration the environment refuses, naming the parameter.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("parameter {key}: {message}")]
pub struct ConfigError {
    /// The parameter at fault.
    pub key: &'static str,
    /// Why.
    pub message: String,
}

fn err(key: &'static str, message: String) -> ConfigError {
    ConfigError { key, message }
}

impl Config {
    /// Rejects configurations the reference crashes or loops forever on (Q7, Q28, Q29), and
    /// values that make no sense (N = 0, k < 1, …).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let (h, w) = (self.height, self.width);
        if h < 6 || w < 6 {
            return Err(err(
                "height",
                format!("map {h}x{w} is too small: height and width must be at least 6 (Q29)"),
            ));
        }
        if h > MAX_SIDE || w > MAX_SIDE {
            return Err(err(
                if h > MAX_SIDE { "height" } else { "width" },
                format!("map {h}x{w} is too large (max {MAX_SIDE})"),
            ));
        }
        if self.agents == 0 {
            return Err(err("agents", "need at least one agent".into()));
        }
        if self.view < 1 {
            return Err(err(
                "view",
                format!("view size {} must be at least 1", self.view),
            ));
        }
        if self.view > h.max(w) {
            return Err(err(
                "view",
                format!(
                    "view size {} is larger than the map's larger side {}",
                    self.view,
                    h.max(w)
                ),
            ));
        }
        if self.memory == 0 {
            return Err(err("memory", "memory must be at least 1".into()));
        }
        if self.memory > MAX_MEMORY {
            return Err(err(
                "memory",
                format!("{} is above the maximum {MAX_MEMORY}", self.memory),
            ));
        }
        if self.max_round > MAX_ROUND {
            return Err(err(
                "max_round",
                format!("{} is above the maximum {MAX_ROUND}", self.max_round),
            ));
        }
        if self.msg_cap > MAX_MSG_CAP {
            return Err(err(
                "msg_cap",
                format!("{} is above the maximum {MAX_MSG_CAP}", self.msg_cap),
            ));
        }
        if self.delay_max > MAX_DELAY {
            return Err(err(
                "delay_max",
                format!("{} is above the maximum {MAX_DELAY}", self.delay_max),
            ));
        }
        if !(0.0..=1.0).contains(&self.corruption) {
            return Err(err(
                "corruption",
                format!("{} is not a probability", self.corruption),
            ));
        }
        if self.delay_min > self.delay_max {
            return Err(err(
                "delay_min",
                format!(
                    "delay_min {} > delay_max {}",
                    self.delay_min, self.delay_max
                ),
            ));
        }
        let interior = i64::from(h - 2) * i64::from(w - 2);
        let free = match self.task {
            Task::Pursuit => {
                let (max_col, max_row) = ((h / 2).max(5), (w / 2).max(5));
                if max_col >= w || max_row >= h {
                    return Err(err(
                        "width",
                        format!(
                            "pursuit on {h}x{w}: the agent area (columns 1..={max_col}, rows 1..={max_row}, Q7) leaves the map"
                        ),
                    ));
                }
                let rows = i64::from(max_row.min(h - 2));
                let cols = i64::from(max_col.min(w - 2));
                rows * cols - 1
            }
            Task::Synchronization | Task::Flocking => interior,
            Task::Foraging => {
                let horiz = (1..).map(|k| 4 * k).take_while(|&r| r < h - 4).count() as i64;
                let vert = (1..).map(|k| 4 * k).take_while(|&c| c < w - 4).count() as i64;
                let walls = (horiz * i64::from(w - 2)).max(vert * i64::from(h - 2));
                interior - walls - 8
            }
            Task::Transport => interior - 13,
        };
        if i64::try_from(self.agents).unwrap_or(i64::MAX) > free {
            return Err(err(
                "agents",
                format!(
                    "{} agents do not fit: the {} layout on {h}x{w} guarantees only {} free cells (Q28)",
                    self.agents,
                    self.task.name(),
                    free.max(0)
                ),
            ));
        }
        let view = u64::from(self.view.unsigned_abs()).pow(2);
        let commander = if self.commander {
            (i64::from(h) * i64::from(w)) as u64
        } else {
            view
        };
        let cells = (self.agents as u64 - 1) * view + commander;
        let kept = cells.saturating_mul(self.memory as u64);
        if kept > MAX_VIEW_CELLS {
            return Err(err(
                "memory",
                format!(
                    "{} agents × view {} (commander: the whole map) × memory {} keep {kept} view cells; the maximum is {MAX_VIEW_CELLS}",
                    self.agents, self.view, self.memory
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_what_the_reference_cannot_run() {
        let mut c = Config::default();
        assert!(c.validate().is_ok());
        c.height = 5;
        assert_eq!(c.validate().unwrap_err().key, "height");
        let c = Config {
            height: 14,
            width: 6,
            ..Config::default()
        };
        assert_eq!(c.validate().unwrap_err().key, "width");
        let c = Config {
            agents: 70,
            task: Task::Synchronization,
            ..Config::default()
        };
        assert_eq!(c.validate().unwrap_err().key, "agents");
        assert_eq!("sync".parse::<Task>(), Ok(Task::Synchronization));
        assert!("x".parse::<Task>().is_err());
    }
}
