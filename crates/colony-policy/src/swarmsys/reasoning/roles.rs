//! SwarmSys roles (docs/design/swarmsys.md §2.2): the role split for A agents, agent ids and agent
//! order, the role cards of `roles/swarmsys/` and the shared task context.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::matching::Role;
use crate::reasoning::{check_range, PolicyError};
use colony_runtime::{RoleCard, RoleError};

/// `roles/swarmsys/explorer.toml`.
pub const EXPLORER_CARD: &str = include_str!("../../../../../roles/swarmsys/explorer.toml");
/// `roles/swarmsys/worker.toml`.
pub const WORKER_CARD: &str = include_str!("../../../../../roles/swarmsys/worker.toml");
/// `roles/swarmsys/validator.toml`.
pub const VALIDATOR_CARD: &str = include_str!("../../../../../roles/swarmsys/validator.toml");
/// `roles/swarmsys/member.toml`: the neutral card of `roles=none` (Rand-NoRoles).
pub const MEMBER_CARD: &str = include_str!("../../../../../roles/swarmsys/member.toml");
/// `prompts/swarmsys/task_context.jinja`: the task context every system prompt ends with
/// (§2.2 decision: appended after the role prompt).
pub const TASK_CONTEXT: &str = include_str!("../../../../../prompts/swarmsys/task_context.jinja");

/// How many agents hold each role (§2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleCounts {
    /// Explorers (`X1…`).
    pub explorers: usize,
    /// Workers (`W1…`).
    pub workers: usize,
    /// Validators (`V1…`).
    pub validators: usize,
}

impl RoleCounts {
    /// The most agents a SwarmSys team takes.
    pub const MAX_AGENTS: usize = 64;

    /// The split rule of §2.2: explorers = validators = `max(1, floor(A/8 + 0.5))`, workers
    /// the rest (8 → 1/6/1, 4 → 1/2/1, 14 → 2/10/2, 32 → 4/24/4). `A` must be from 3 to
    /// [`Self::MAX_AGENTS`].
    pub fn for_agents(agents: usize) -> Result<Self, PolicyError> {
        check_range("swarmsys", "agents", agents, 3, Self::MAX_AGENTS)?;
        let edge = ((agents as f64 / 8.0 + 0.5).floor() as usize).max(1);
        Ok(Self {
            explorers: edge,
            workers: agents - 2 * edge,
            validators: edge,
        })
    }

    /// Counts from options: per-role counts override the split of `agents` (default 8) for
    /// their role; when `agents` is given too it must equal the sum. Every role needs at least
    /// one agent and the team at most [`Self::MAX_AGENTS`].
    pub fn from_options(
        agents: Option<usize>,
        explorers: Option<usize>,
        workers: Option<usize>,
        validators: Option<usize>,
    ) -> Result<Self, PolicyError> {
        let base = Self::for_agents(agents.unwrap_or(8).clamp(3, Self::MAX_AGENTS))?;
        if agents.is_some() && explorers.is_none() && workers.is_none() && validators.is_none() {
            return Self::for_agents(agents.unwrap_or(8));
        }
        let counts = Self {
            explorers: explorers.unwrap_or(base.explorers),
            workers: workers.unwrap_or(base.workers),
            validators: validators.unwrap_or(base.validators),
        };
        for (option, n) in [
            ("explorers", counts.explorers),
            ("workers", counts.workers),
            ("validators", counts.validators),
        ] {
            check_range("swarmsys", option, n, 1, Self::MAX_AGENTS)?;
        }
        check_range("swarmsys", "agents", counts.total(), 3, Self::MAX_AGENTS)?;
        if let Some(a) = agents.filter(|&a| a != counts.total()) {
            return Err(PolicyError::Config(format!(
                "swarmsys: agents={a} but explorers + workers + validators = {} + {} + {} = {}",
                counts.explorers,
                counts.workers,
                counts.validators,
                counts.total()
            )));
        }
        Ok(counts)
    }

    /// A = explorers + workers + validators.
    pub fn total(&self) -> usize {
        self.explorers + self.workers + self.validators
    }

    /// How many agents hold `role`.
    pub fn of(&self, role: Role) -> usize {
        match role {
            Role::Explorer => self.explorers,
            Role::Worker => self.workers,
            Role::Validator => self.validators,
        }
    }
}

impl Default for RoleCounts {
    /// SwarmSys-8: 1 explorer, 6 workers, 1 validator.
    fn default() -> Self {
        Self {
            explorers: 1,
            workers: 6,
            validators: 1,
        }
    }
}

/// One agent of the team, in agent order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    /// `X1…`, `W1…`, `V1…` (or `A1…` under `roles=none`).
    pub id: String,
    /// The role it was created with (its position in agent order).
    pub role: Role,
}

/// The agents in agent order (§2.2 decision): explorers, then workers, then validators, each
/// by number (so W2 precedes W10). Under `roles=none` the ids are `A1…A<n>` in the same
/// order, the roles only fixing how many agents take each turn.
pub fn agent_order(counts: &RoleCounts, neutral_ids: bool) -> Vec<Slot> {
    let mut out = Vec::with_capacity(counts.total());
    for role in Role::ALL {
        let prefix = match role {
            Role::Explorer => "X",
            Role::Worker => "W",
            Role::Validator => "V",
        };
        for k in 1..=counts.of(role) {
            let id = if neutral_ids {
                format!("A{}", out.len() + 1)
            } else {
                format!("{prefix}{k}")
            };
            out.push(Slot { id, role });
        }
    }
    out
}

/// The role cards of `roles/swarmsys/` with the task context appended to each system prompt.
#[derive(Debug, Clone)]
pub struct Cards {
    explorer: Arc<RoleCard>,
    worker: Arc<RoleCard>,
    validator: Arc<RoleCard>,
    member: Arc<RoleCard>,
}

fn card(text: &str, file: &str) -> Result<Arc<RoleCard>, RoleError> {
    let mut c = RoleCard::parse(text, format!("roles/swarmsys/{file}"))?;
    let context = TASK_CONTEXT.trim();
    c.system_prompt = format!("{}\n\n{context}", c.system_prompt.trim());
    Ok(Arc::new(c))
}

impl Cards {
    /// The compiled-in cards.
    pub fn builtin() -> Result<Self, RoleError> {
        Ok(Self {
            explorer: card(EXPLORER_CARD, "explorer.toml")?,
            worker: card(WORKER_CARD, "worker.toml")?,
            validator: card(VALIDATOR_CARD, "validator.toml")?,
            member: card(MEMBER_CARD, "member.toml")?,
        })
    }

    /// The card of `role`, or the neutral member card when roles are off.
    pub fn of(&self, role: Role, neutral: bool) -> Arc<RoleCard> {
        if neutral {
            return self.member.clone();
        }
        match role {
            Role::Explorer => self.explorer.clone(),
            Role::Worker => self.worker.clone(),
            Role::Validator => self.validator.clone(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn split_rule_reproduces_the_spec_table() {
        for (a, want) in [
            (3, (1, 1, 1)),
            (4, (1, 2, 1)),
            (8, (1, 6, 1)),
            (12, (2, 8, 2)),
            (14, (2, 10, 2)),
            (20, (3, 14, 3)),
            (32, (4, 24, 4)),
        ] {
            let c = RoleCounts::for_agents(a).unwrap();
            assert_eq!((c.explorers, c.workers, c.validators), want, "A = {a}");
        }
        assert!(RoleCounts::for_agents(2).is_err());
        assert!(RoleCounts::for_agents(65).is_err());
        assert_eq!(
            RoleCounts::for_agents(8).unwrap(),
            RoleCounts::default(),
            "SwarmSys-8"
        );
    }

    #[test]
    fn per_role_counts_override_the_split() {
        let c = RoleCounts::from_options(None, None, Some(3), None).unwrap();
        assert_eq!((c.explorers, c.workers, c.validators), (1, 3, 1));
        let c = RoleCounts::from_options(Some(10), Some(2), Some(6), Some(2)).unwrap();
        assert_eq!(c.total(), 10);
        let e = RoleCounts::from_options(Some(8), None, Some(3), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("agents=8"), "{e}");
        assert!(RoleCounts::from_options(Some(16), None, None, None).is_ok());
        assert!(RoleCounts::from_options(None, None, Some(64), None).is_err());
    }

    #[test]
    fn agent_order_puts_w2_before_w10() {
        let c = RoleCounts::for_agents(14).unwrap();
        let ids: Vec<String> = agent_order(&c, false).into_iter().map(|s| s.id).collect();
        assert_eq!(ids[..4], ["X1", "X2", "W1", "W2"]);
        assert_eq!(ids[11], "W10");
        assert_eq!(ids[12..], ["V1", "V2"]);
        let neutral: Vec<String> = agent_order(&c, true).into_iter().map(|s| s.id).collect();
        assert_eq!(neutral[0], "A1");
        assert_eq!(neutral[13], "A14");
    }

    #[test]
    fn cards_load_and_end_with_the_task_context() {
        let cards = Cards::builtin().unwrap();
        for role in Role::ALL {
            let c = cards.of(role, false);
            assert_eq!(c.name, role.name());
            assert!(c.system_prompt.ends_with(TASK_CONTEXT.trim()));
            assert!(!c.description.is_empty());
        }
        assert_eq!(cards.of(Role::Worker, true).name, "member");
        assert!(cards
            .of(Role::Validator, false)
            .system_prompt
            .contains("TERMINATE: The answer is:"));
    }
}
