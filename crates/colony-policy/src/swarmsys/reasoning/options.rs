//! Settings of the SwarmSys policy (docs/design/swarmsys.md §2.12 defaults) and their checks.

use serde::{Deserialize, Serialize};

use super::encode::Instruction;
use super::matching::{EpsilonBounds, GAMMA, WINDOW};
use super::roles::RoleCounts;
use crate::reasoning::{check_range, PolicyError};

/// How a task is made of events (§2.7, option `mode=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A: the question is the one event (default for per-question datasets).
    #[default]
    Single,
    /// B: the explorer may split the root event into 1–4 sub-events in its first round.
    Decomposed,
    /// C: groups of `exam_size` questions, each a leaf event, form one task.
    Exam,
}

impl Mode {
    /// The option value (`a`/`single`, `b`/`decomposed`, `c`/`exam`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "a" | "A" | "single" => Some(Mode::Single),
            "b" | "B" | "decomposed" => Some(Mode::Decomposed),
            "c" | "C" | "exam" => Some(Mode::Exam),
            _ => None,
        }
    }

    /// The name in traces.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Single => "single",
            Mode::Decomposed => "decomposed",
            Mode::Exam => "exam",
        }
    }
}

/// Roles and matching (option `roles=`; the paper's ablations, §3.3 of the paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RolesMode {
    /// Fixed roles, profiles, embeddings and ε-greedy matching (SwarmSys itself).
    #[default]
    Matched,
    /// Rand-Roles: fixed roles, but no profile-driven embeddings or pheromone, and matching
    /// draws uniformly over the free slots (coverage repair by seeded random scores).
    Random,
    /// Rand-NoRoles: every agent gets the neutral member card; each round a seeded shuffle
    /// decides who takes the explorer, worker and validator turns (in the role split's
    /// numbers), then matching is uniform as in `Random`.
    None,
}

impl RolesMode {
    /// The option value (`matched`, `random`, `none`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "matched" | "learned" | "swarm" => Some(RolesMode::Matched),
            "random" | "rand" => Some(RolesMode::Random),
            "none" => Some(RolesMode::None),
            _ => None,
        }
    }

    /// The name in traces.
    pub fn name(self) -> &'static str {
        match self {
            RolesMode::Matched => "matched",
            RolesMode::Random => "random",
            RolesMode::None => "none",
        }
    }
}

/// How long agent profiles live (§2.8 decision, option `profile_scope=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProfileScope {
    /// Fresh profiles for every task (items independent and parallel).
    #[default]
    Task,
    /// Profiles persist across the items of a run, which are then solved one at a time.
    Run,
}

/// Settings of SwarmSys; the defaults are §2.12's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwarmSysOptions {
    /// Agents per role (default 1/6/1).
    pub counts: RoleCounts,
    /// Events of a task (default mode A).
    pub mode: Mode,
    /// Roles and matching (default: matched).
    pub roles: RolesMode,
    /// Profile lifetime (default: per task).
    pub profile_scope: ProfileScope,
    /// Sharpness γ (10).
    pub gamma: f64,
    /// ε bounds ([0.15, 0.35]).
    pub eps: EpsilonBounds,
    /// Outcome window W (5).
    pub window: usize,
    /// Pheromone step η (0.2).
    pub eta: f64,
    /// Weight w_s of the availability embedding (1.0).
    pub w_s: f64,
    /// Rounds per event (4).
    pub event_rounds: u32,
    /// Global rounds per task (8).
    pub max_rounds: u32,
    /// Questions per exam in mode C (10).
    pub exam_size: usize,
    /// End the task once its calls used this many tokens (none by default).
    pub token_budget: Option<u64>,
    /// Competence instruction (auto: by the encoder's input limit).
    pub instruction: Instruction,
    /// Declared abilities given to the workers in turn (`W1` the first, …), appended to the
    /// worker card's description; empty = identical workers (§2.4 decision).
    pub worker_abilities: Vec<String>,
    /// Run every call of a round one by one in agent order (for equivalence checks; the
    /// default runs events and workers concurrently).
    pub sequential: bool,
}

impl Default for SwarmSysOptions {
    fn default() -> Self {
        Self {
            counts: RoleCounts::default(),
            mode: Mode::Single,
            roles: RolesMode::Matched,
            profile_scope: ProfileScope::Task,
            gamma: GAMMA,
            eps: EpsilonBounds::default(),
            window: WINDOW,
            eta: 0.2,
            w_s: 1.0,
            event_rounds: 4,
            max_rounds: 8,
            exam_size: 10,
            token_budget: None,
            instruction: Instruction::Auto,
            worker_abilities: Vec::new(),
            sequential: false,
        }
    }
}

impl SwarmSysOptions {
    /// The most rounds per event.
    pub const MAX_EVENT_ROUNDS: u32 = 20;
    /// The most global rounds per task.
    pub const MAX_ROUNDS: u32 = 40;
    /// The most questions per exam.
    pub const MAX_EXAM_SIZE: usize = 16;
    /// The longest outcome window.
    pub const MAX_WINDOW: usize = 100;

    /// Checks every setting: counts as [`RoleCounts::from_options`], rounds 1–20 per event
    /// and 1–40 per task, exam size 1–16, window 1–100, finite γ ≥ 0, η ≥ 0 and w_s ≥ 0,
    /// 0 ≤ ε_min ≤ ε_max ≤ 1.
    pub fn validate(&self) -> Result<(), PolicyError> {
        let c = &self.counts;
        for (option, n) in [
            ("explorers", c.explorers),
            ("workers", c.workers),
            ("validators", c.validators),
        ] {
            check_range("swarmsys", option, n, 1, RoleCounts::MAX_AGENTS)?;
        }
        check_range("swarmsys", "agents", c.total(), 3, RoleCounts::MAX_AGENTS)?;
        check_range(
            "swarmsys",
            "event_rounds",
            self.event_rounds as usize,
            1,
            Self::MAX_EVENT_ROUNDS as usize,
        )?;
        check_range(
            "swarmsys",
            "rounds",
            self.max_rounds as usize,
            1,
            Self::MAX_ROUNDS as usize,
        )?;
        check_range(
            "swarmsys",
            "exam_size",
            self.exam_size,
            1,
            Self::MAX_EXAM_SIZE,
        )?;
        check_range("swarmsys", "window", self.window, 1, Self::MAX_WINDOW)?;
        for (option, value) in [
            ("gamma", self.gamma),
            ("eta", self.eta),
            ("w_s", self.w_s),
            ("eps_min", self.eps.min),
            ("eps_max", self.eps.max),
        ] {
            if !value.is_finite() {
                return Err(PolicyError::NotFinite {
                    policy: "swarmsys",
                    option,
                    value,
                });
            }
            if value < 0.0 {
                return Err(PolicyError::from(crate::OptionError::Invalid {
                    policy: "swarmsys".into(),
                    key: option.to_string(),
                    reason: format!("must not be negative, got {value}"),
                }));
            }
        }
        if self.eps.min > self.eps.max || self.eps.max > 1.0 {
            return Err(PolicyError::Config(format!(
                "swarmsys: options `eps_min` and `eps_max` must satisfy 0 ≤ eps_min ≤ eps_max \
                 ≤ 1, got {} and {}",
                self.eps.min, self.eps.max
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_spec_summary_and_validate() {
        let o = SwarmSysOptions::default();
        assert_eq!(o.counts.total(), 8);
        assert_eq!((o.event_rounds, o.max_rounds, o.exam_size), (4, 8, 10));
        assert_eq!((o.gamma, o.eta, o.w_s, o.window), (10.0, 0.2, 1.0, 5));
        assert_eq!((o.eps.min, o.eps.max), (0.15, 0.35));
        o.validate().unwrap();
        let bad = SwarmSysOptions {
            eps: EpsilonBounds { min: 0.5, max: 0.2 },
            ..SwarmSysOptions::default()
        };
        assert!(bad.validate().unwrap_err().to_string().contains("eps_min"));
        let bad = SwarmSysOptions {
            gamma: f64::INFINITY,
            ..SwarmSysOptions::default()
        };
        assert!(bad.validate().unwrap_err().to_string().contains("gamma"));
        assert_eq!(Mode::parse("b"), Some(Mode::Decomposed));
        assert_eq!(RolesMode::parse("none"), Some(RolesMode::None));
    }
}
