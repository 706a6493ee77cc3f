//! `swarmsys`: SwarmSys as an embodied policy (docs/design/swarmsys.md §2.13). The events of
//! the reasoning policy become the environment's sub-goals
//! ([`colony_env_api::SubGoals::sub_goals`], each environment crate documents its own); each
//! decision matches the deciding agents to the open sub-goals with the reasoning policy's
//! dynamic ε-greedy matching, and reinforces agents whose sub-goal made progress.
//!
//! Each decision:
//! 1. **Outcomes.** Every agent matched at the previous decision gets one outcome: success
//!    when its sub-goal's progress grew since then (a block delivered or pushed closer, fire
//!    cells suppressed, a civilian picked up or rescued, the prey caught, task progress), else
//!    failure. A success deposits the sub-goal's embedding into the agent's pheromone
//!    (`p ← p + η·e`, η = 0.2, scaled back to unit length when longer: a saturation cap, no
//!    decay; docs/design/swarmsys.md §2.8) and adds a line to its history.
//! 2. **Embeddings** (§2.4), all from one encoder: competence `c_i = normalise(b_i + p_i)`
//!    with `b_i` the agent's abilities and its last five successes; availability `s_i` (its
//!    position); event `e_j` (the sub-goal's description); `v_i = c_i + s_i`, compatibility
//!    `s_ij = (1 + cos(v_i, e_j)) / 2` (§2.5). Decision: the embodied policy context has no
//!    embedder, so this is the deterministic hashing embedder (512 dimensions).
//! 3. **Matching** (§2.6): ε from each agent's last five outcomes in [0.15, 0.35], `P(j|i)`
//!    the mixture of exploration ∝ compatibility and the centred sigmoid (γ = 10), one seeded
//!    draw per agent (`derive_seed(seed, "", "swarmsys", step, agent, "match")`, so results
//!    do not depend on completion order), all through
//!    [`crate::swarmsys::reasoning::assign()`]. Decision: every agent is a worker with
//!    capacity 1 and each sub-goal has `ceil(agents / open sub-goals)` slots, so every
//!    deciding agent draws a sub-goal; coverage repair may give a sub-goal nobody drew to an
//!    agent that already has one, which then keeps the one it drew.
//! 4. **Calls.** Each matched agent makes one act call (purpose `swarmsys.act`), the prompt
//!    being its observation followed by `Your current sub-goal: …` (and the parser's feedback),
//!    with the environment's PERCEPTION and EXECUTION calls around it where it has them
//!    (Wildfire), exactly as `independent`. Agents with no open sub-goal make no call and take
//!    the no-op.
//!
//! The step's trace (`steps.jsonl`, key `trace`) holds `events`, `epsilon`, `p`, `matches`,
//! `outcomes` and `pheromone` (per-agent norms), by agent id.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use colony_env_api::AgentId;
use futures::future::join_all;
use serde_json::json;

use crate::embodied::caller::merge_failure;
use crate::embodied::framework::abilities;
use crate::embodied::independent::decide_agent_with;
use crate::embodied::{
    CallerConfig, CallerSlot, Decision, EmbodiedError, EmbodiedPolicy, StepView,
};
use crate::reasoning::stream;
use crate::swarmsys::reasoning::encode::{
    add_scaled, compatibility, deposit, norm, normalise, Cache,
};
use crate::swarmsys::reasoning::matching::{epsilon, uniform, EpsilonBounds, Role, GAMMA, WINDOW};
use crate::swarmsys::reasoning::{assign, AssignInput, MatchAgent};
use colony_env_api::{EnvEntry, EnvParams, SubGoal};
use colony_llm::embed::Embedder;

/// Pheromone deposit rate η (docs/design/swarmsys.md §2.8 decision).
pub const ETA: f64 = 0.2;
/// Successes kept in an agent's history text (§2.4: up to five).
pub const HISTORY: usize = 5;
/// Competence instruction of the embodied setting (§2.4's one-line form, worded for
/// environments).
pub const COMPETENCE: &str = "Represent this agent's competence at cooperative embodied tasks:";
/// Availability instruction `I_avail` (§2.4).
pub const AVAILABILITY: &str =
    "Represent this agent's current availability and readiness for new work:";
/// Event instruction (§2.4, worded for environments).
pub const EVENT: &str = "Represent this sub-goal for matching it to capable agents:";

/// What the policy remembers of one agent across the episode.
#[derive(Debug, Clone, Default)]
struct Memory {
    pheromone: Vec<f64>,
    outcomes: Vec<u8>,
    /// Successes, oldest first (only the last [`HISTORY`] are kept).
    history: Vec<String>,
}

/// One assignment awaiting its outcome.
#[derive(Debug, Clone)]
struct Pending {
    agent: AgentId,
    event: String,
    description: String,
    progress: f64,
    vector: Vec<f64>,
}

/// The embodied SwarmSys policy (see the module docs).
pub struct EmbodiedSwarmSys {
    slot: CallerSlot,
    embedder: Arc<dyn Embedder>,
    memory: BTreeMap<AgentId, Memory>,
    pending: Vec<Pending>,
    structured: bool,
}

impl std::fmt::Debug for EmbodiedSwarmSys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbodiedSwarmSys")
            .field("agents", &self.memory.len())
            .field("pending", &self.pending.len())
            .finish()
    }
}

impl EmbodiedSwarmSys {
    /// The policy for one episode on `entry`'s environment; it takes no options, and
    /// environments without sub-goals are refused here with [`EmbodiedError::Unsupported`]
    /// (judged on the environment built with default settings; a decision on a state without
    /// sub-goals is refused too).
    pub fn new(
        config: CallerConfig,
        options: &str,
        entry: &dyn EnvEntry,
    ) -> Result<Self, EmbodiedError> {
        crate::embodied::framework::no_options("swarmsys", options)?;
        if let Ok(env) = entry.make(EnvParams::default()) {
            if env.goals().is_none() {
                return Err(unsupported(&entry.info().id));
            }
        }
        Ok(Self {
            slot: CallerSlot::new(config),
            embedder: Arc::new(colony_llm::embed::default_embedder()),
            memory: BTreeMap::new(),
            pending: Vec::new(),
            structured: false,
        })
    }

    /// This policy asking for schema-constrained action replies (`structured=true`, as
    /// `independent`: the act or EXECUTION call whose reply is the action).
    pub fn structured(mut self, on: bool) -> Self {
        self.structured = on;
        self
    }

    /// The same policy with another encoder (tests, or a configured embedder).
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.embedder = embedder;
        self
    }

    /// Step 1 of the module docs: outcomes and pheromone of the previous assignments.
    fn reinforce(&mut self, goals: &[SubGoal], step: u64) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        for p in std::mem::take(&mut self.pending) {
            let now = goals.iter().find(|g| g.id == p.event).map(|g| g.progress);
            let gain = now.map_or(0.0, |n| n - p.progress);
            let success = gain > 1e-9;
            let m = self.memory.entry(p.agent.clone()).or_default();
            m.outcomes.push(u8::from(success));
            if m.outcomes.len() > WINDOW {
                m.outcomes.remove(0);
            }
            if success {
                if m.pheromone.len() != p.vector.len() {
                    m.pheromone = vec![0.0; p.vector.len()];
                }
                deposit(&mut m.pheromone, ETA, &p.vector);
                m.history.push(format!("[step {step}] {}", p.description));
                if m.history.len() > HISTORY {
                    m.history.remove(0);
                }
            }
            out.push(json!({"agent": p.agent, "event": p.event, "success": success, "gain": gain}));
        }
        out
    }
}

fn unsupported(env: &str) -> EmbodiedError {
    EmbodiedError::Unsupported {
        policy: "swarmsys".into(),
        env: env.to_string(),
        reason: "it exposes no sub-goals to match agents to (an environment opts in with \
                 `SubGoals::sub_goals`)"
            .to_string(),
    }
}

fn embed_error(e: impl std::fmt::Display) -> EmbodiedError {
    EmbodiedError::config("swarmsys", format!("embedding: {e}"))
}

/// `I_comp ⊕ abilities ⊕ history` (§2.4, newest success first).
fn competence_text(ability: &str, history: &[String]) -> String {
    let h = if history.is_empty() {
        "No recorded activity yet.".to_string()
    } else {
        history.iter().rev().cloned().collect::<Vec<_>>().join(" ")
    };
    format!("{COMPETENCE} Agent Ability Description: {ability} Agent Performance History: {h}")
}

#[async_trait]
impl EmbodiedPolicy for EmbodiedSwarmSys {
    fn name(&self) -> &str {
        "swarmsys"
    }

    fn wants_snapshot(&self) -> bool {
        true
    }

    fn structured(&self) -> bool {
        self.structured
    }

    async fn decide(&mut self, view: StepView) -> Result<Decision, EmbodiedError> {
        let env = view.snapshot("swarmsys")?;
        let goals = env
            .goals()
            .map(|g| g.sub_goals())
            .ok_or_else(|| unsupported(&view.env_id))?;
        let step = view.step;
        let outcomes = self.reinforce(&goals, step);
        let open: Vec<&SubGoal> = goals.iter().filter(|g| g.open).collect();
        let agents: Vec<&AgentId> = view.deciding.iter().map(|a| &a.id).collect();

        // Embeddings (§2.4), one encoder call per decision.
        let comp: Vec<String> = agents
            .iter()
            .map(|a| {
                let history = self.memory.get(*a).map_or(&[][..], |m| &m.history[..]);
                competence_text(&abilities(env.as_ref(), a), history)
            })
            .collect();
        let avail: Vec<String> = agents
            .iter()
            .map(|a| {
                format!(
                    "{AVAILABILITY} Role: worker. State: {}.",
                    env.goals()
                        .and_then(|g| g.agent_position(a))
                        .unwrap_or_default()
                )
            })
            .collect();
        let event_texts: Vec<String> = open
            .iter()
            .map(|g| format!("{EVENT} {}: {}", g.id, g.description))
            .collect();
        let mut cache = Cache::default();
        let all: Vec<String> = comp
            .iter()
            .chain(&avail)
            .chain(&event_texts)
            .cloned()
            .collect();
        cache
            .fill(self.embedder.as_ref(), &all)
            .await
            .map_err(embed_error)?;
        let e: Vec<Vec<f64>> = event_texts.iter().map(|t| cache.get(t)).collect();
        let compat: Vec<Vec<f64>> = agents
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let b = cache.get(&comp[i]);
                let c = match self.memory.get(*a) {
                    Some(m) if m.pheromone.len() == b.len() => {
                        normalise(&add_scaled(&b, 1.0, &m.pheromone))
                    }
                    _ => normalise(&b),
                };
                let v = add_scaled(&c, 1.0, &cache.get(&avail[i]));
                e.iter().map(|ej| compatibility(&v, ej)).collect()
            })
            .collect();

        // Matching (§2.6).
        let eps: Vec<f64> = agents
            .iter()
            .map(|a| {
                let o = self.memory.get(*a).map_or(&[][..], |m| &m.outcomes[..]);
                epsilon(o, WINDOW, EpsilonBounds::default())
            })
            .collect();
        let draws: Vec<f64> = agents
            .iter()
            .map(|a| {
                let round = u32::try_from(step).unwrap_or(u32::MAX);
                uniform(&mut stream(
                    view.seed,
                    "",
                    "swarmsys",
                    Some(round),
                    Some(a),
                    "match",
                ))
            })
            .collect();
        let match_agents = vec![
            MatchAgent {
                role: Role::Worker,
                capacity: 1,
            };
            agents.len()
        ];
        let a = assign(&AssignInput {
            agents: &match_agents,
            compat: &compat,
            rank: &compat,
            eps: &eps,
            gamma: GAMMA,
            draws: &draws,
            worker_slots: agents.len().div_ceil(open.len().max(1)),
        });
        let matched: Vec<Option<usize>> = (0..agents.len())
            .map(|i| {
                a.drawn[i].or_else(|| (0..open.len()).find(|&j| a.slots[j].workers.contains(&i)))
            })
            .collect();

        // One act call per matched agent, in parallel; results are kept in agent order.
        let caller = self.slot.caller(view.seed, &view.agents, &view.deciding)?;
        let env_ref = Some(&env);
        let results = join_all(view.deciding.iter().zip(&matched).filter_map(|(ag, j)| {
            let goal = open.get((*j)?)?.description.clone();
            Some(async move {
                decide_agent_with(caller, env_ref, step, ag, "swarmsys.act", Some(&goal)).await
            })
        }))
        .await;
        caller.forget_transcript();
        let calls = merge_failure(step, results)?;
        let replies = calls
            .iter()
            .filter(|c| c.decides)
            .map(|c| (c.agent.clone(), c.reply.clone().unwrap_or_default()))
            .collect();

        // Pending outcomes and the trace.
        for (i, j) in matched.iter().enumerate() {
            if let Some(&j) = j.as_ref() {
                self.pending.push(Pending {
                    agent: agents[i].clone(),
                    event: open[j].id.clone(),
                    description: open[j].description.clone(),
                    progress: open[j].progress,
                    vector: e[j].clone(),
                });
            }
        }
        let by_agent = |f: &dyn Fn(usize) -> serde_json::Value| -> serde_json::Map<_, _> {
            agents
                .iter()
                .enumerate()
                .map(|(i, id)| ((*id).clone(), f(i)))
                .collect()
        };
        // Per-agent pheromone norms of every agent of the environment (0 before any success;
        // `abs` turns the empty sum's −0 into 0).
        let pheromone: serde_json::Map<_, _> = view
            .agents
            .iter()
            .map(|id| {
                let n = self
                    .memory
                    .get(id)
                    .map_or(0.0, |m| norm(&m.pheromone).abs());
                (id.clone(), json!(n))
            })
            .collect();
        self.slot.trace = Some(json!({
            "events": goals.iter().map(|g| json!({
                "id": g.id, "description": g.description, "progress": g.progress, "open": g.open,
            })).collect::<Vec<_>>(),
            "epsilon": by_agent(&|i| json!(eps[i])),
            "p": by_agent(&|i| json!(a.p[i])),
            "matches": by_agent(&|i| json!(matched[i].map(|j| &open[j].id))),
            "outcomes": outcomes,
            "pheromone": pheromone,
        }));
        Ok(Decision { replies, calls })
    }

    fn slot(&mut self) -> Option<&mut CallerSlot> {
        Some(&mut self.slot)
    }
}

#[cfg(test)]
mod tests;
