//! The SwarmSys item trace (docs/design/reasoning.md §0.1, docs/design/swarmsys.md §2.3,
//! §2.10): per global round the
//! keys `epsilon` (per agent), `p` (matching probabilities), `matches`, `verdicts` and
//! `pheromone` (per-agent norms), plus compatibilities, draws, repairs, outcomes, drift,
//! interaction clustering and profile snapshots; at the end the metrics, fallbacks, final
//! profiles and outputs. Per-agent maps are JSON objects keyed by agent id; the agent order
//! of §2.2 is the top-level `agents` list.

use serde_json::{json, Map, Value};

use super::matching::Role;
use super::metrics::{average_clustering, contribution_entropy, interaction_edges, MeanStd};
use super::options::RolesMode;
use super::parse::role_switch_lines;
use super::state::{Embeds, Matching, Task};

/// What one round contributes to the trace.
pub(crate) struct RoundFacts<'a> {
    /// Global round.
    pub g: u32,
    /// Open events (indices).
    pub open: &'a [usize],
    /// The turn permutation under `roles=none`.
    pub turns: Option<&'a [usize]>,
    /// Embeddings (matched roles only).
    pub embeds: Option<&'a Embeds>,
    /// The matching.
    pub matching: &'a Matching,
    /// What settling the round returned.
    pub settled: Value,
    /// The round's messages: (author, text, turn).
    pub messages: &'a [(usize, String, Role)],
    /// Calls made.
    pub calls: usize,
    /// Calls failed.
    pub failed: usize,
}

fn per_agent(task: &Task<'_>, f: impl Fn(usize) -> Value) -> Value {
    let mut m = Map::new();
    for (i, a) in task.agents.iter().enumerate() {
        m.insert(a.slot.id.clone(), f(i));
    }
    Value::Object(m)
}

fn pick(settled: &Value, key: &str) -> Value {
    let mut m = Map::new();
    if let Some(events) = settled["events"].as_object() {
        for (id, v) in events {
            m.insert(id.clone(), v[key].clone());
        }
    }
    Value::Object(m)
}

/// The trace of one global round.
pub(crate) fn round_trace(task: &Task<'_>, f: &RoundFacts<'_>) -> Value {
    let ids: Vec<String> = f
        .open
        .iter()
        .map(|&k| task.events[k].profile.event_id.clone())
        .collect();
    let a = &f.matching.assignment;
    let event_map = |row: &[f64]| {
        let mut m = Map::new();
        for (id, x) in ids.iter().zip(row) {
            m.insert(id.clone(), json!(x));
        }
        Value::Object(m)
    };
    let agent_id = |i: usize| task.agents[i].slot.id.clone();
    let mut matches = Map::new();
    for (id, s) in ids.iter().zip(&a.slots) {
        matches.insert(
            id.clone(),
            json!({
                "explorer": s.explorers.iter().map(|&i| agent_id(i)).collect::<Vec<_>>(),
                "workers": s.workers.iter().map(|&i| agent_id(i)).collect::<Vec<_>>(),
                "validator": s.validators.iter().map(|&i| agent_id(i)).collect::<Vec<_>>(),
            }),
        );
    }
    let repairs: Vec<Value> = a
        .repairs
        .iter()
        .map(|r| {
            json!({
                "event": ids.get(r.event),
                "role": r.role,
                "agent": agent_id(r.agent),
                "over_capacity": r.over_capacity,
            })
        })
        .collect();
    let agent_ids: Vec<String> = task.agents.iter().map(|a| a.slot.id.clone()).collect();
    let texts: Vec<(usize, &str)> = f
        .messages
        .iter()
        .map(|(i, t, _)| (*i, t.as_str()))
        .collect();
    let edges = interaction_edges(&agent_ids, &texts);
    let switches: Vec<Value> = f
        .messages
        .iter()
        .filter(|(_, _, role)| *role != Role::Worker)
        .flat_map(|(i, t, _)| {
            role_switch_lines(t)
                .into_iter()
                .map(move |line| json!({ "agent": agent_id(*i), "text": line }))
        })
        .collect();
    json!({
        "round": f.g,
        "run_round": task.round_offset + f.g,
        "open": ids,
        "turns": f.turns.map(|_| per_agent(task, |i| json!(task.agents[i].role))),
        "epsilon": per_agent(task, |i| json!(f.matching.eps[i])),
        "compat": f.embeds.map(|e| per_agent(task, |i| event_map(&e.compat[i]))),
        "p": per_agent(task, |i| a.p[i].as_ref().map_or(Value::Null, |p| event_map(p))),
        "draws": per_agent(task, |i| json!(f.matching.draws[i])),
        "drawn": per_agent(task, |i| json!(a.drawn[i].and_then(|j| ids.get(j)))),
        "matches": matches,
        "repairs": repairs,
        "verdicts": pick(&f.settled, "verdicts"),
        "terminate": pick(&f.settled, "terminate"),
        "answers": pick(&f.settled, "answers"),
        "status": pick(&f.settled, "status"),
        "decomposition": pick(&f.settled, "decomposition"),
        "outcomes": f.settled["outcomes"],
        "pheromone": per_agent(task, |i| json!(task.agents[i].profile.pheromone_trace_norm)),
        "drift": per_agent(task, |i| json!(f.embeds.and_then(|e| e.drift[i]))),
        "interactions": edges
            .iter()
            .map(|&(x, y)| [agent_id(x), agent_id(y)])
            .collect::<Vec<_>>(),
        "clustering": average_clustering(task.agents.len(), &edges),
        "role_switches": switches,
        "calls": f.calls,
        "failed_calls": f.failed,
        "profiles": task.profiles(),
        "events": task.events.iter().map(|e| &e.profile).collect::<Vec<_>>(),
    })
}

/// The task trace: settings, rounds, final profiles and event outputs, metrics (§2.10),
/// fallbacks, stop reason and call errors. The scalar metrics (`h_c`, `drift_mean`,
/// `drift_final` — mean over agents of the last round with drift —, `clustering_mean`,
/// `clustering_final`, `acceptance_mean` — mean over agents that submitted work) are
/// top-level numbers of `metrics`, which `colony eval` averages per policy.
pub(crate) fn final_trace(
    task: &Task<'_>,
    embedder: &str,
    rounds: Vec<Value>,
    final_outcomes: Value,
    stop: &str,
    rounds_run: u32,
    errors: Vec<Value>,
) -> Value {
    let o = task.opts;
    let accepted: Vec<u32> = task
        .agents
        .iter()
        .map(|a| a.profile.performance.accepted)
        .collect();
    // Drift over every (agent, round) pair, and per role.
    let mut all = Vec::new();
    let mut by_role: Vec<(Role, Vec<f64>)> = Role::ALL.iter().map(|&r| (r, Vec::new())).collect();
    for r in &rounds {
        for a in &task.agents {
            if let Some(d) = r["drift"][&a.slot.id].as_f64() {
                all.push(d);
                if let Some((_, v)) = by_role.iter_mut().find(|(x, _)| *x == a.slot.role) {
                    v.push(d);
                }
            }
        }
    }
    let mut drift_roles = Map::new();
    for (role, v) in &by_role {
        drift_roles.insert(role.name().to_string(), json!(MeanStd::of(v)));
    }
    let clustering: Vec<Value> = rounds.iter().map(|r| r["clustering"].clone()).collect();
    // Scalar summaries, which `colony eval` averages per policy (top-level numbers of
    // `metrics`): the last round with drift values, and clustering over the rounds.
    let final_drift: Vec<f64> = rounds
        .iter()
        .rev()
        .map(|r| {
            task.agents
                .iter()
                .filter_map(|a| r["drift"][&a.slot.id].as_f64())
                .collect::<Vec<_>>()
        })
        .find(|v| !v.is_empty())
        .unwrap_or_default();
    let cluster_values: Vec<f64> = clustering.iter().filter_map(Value::as_f64).collect();
    let rates: Vec<f64> = task
        .agents
        .iter()
        .map(|a| &a.profile.performance)
        .filter(|p| p.submitted > 0)
        .map(|p| f64::from(p.accepted) / f64::from(p.submitted))
        .collect();
    let mean = |v: &[f64]| MeanStd::of(v).map(|m| m.mean);
    let mut outputs = Map::new();
    for e in &task.events {
        outputs.insert(e.profile.event_id.clone(), json!(e.output));
    }
    json!({
        "method": "swarmsys",
        "mode": o.mode.name(),
        "roles": o.roles.name(),
        "profile_scope": o.profile_scope,
        "embedder": embedder,
        "instruction": (o.roles == RolesMode::Matched)
            .then_some(if task.long_instruction { "long" } else { "short" }),
        "agents": task.agents.iter().map(|a| &a.slot.id).collect::<Vec<_>>(),
        "counts": o.counts,
        "params": {
            "gamma": o.gamma, "eps_min": o.eps.min, "eps_max": o.eps.max, "window": o.window,
            "eta": o.eta, "w_s": o.w_s, "event_rounds": o.event_rounds,
            "max_rounds": o.max_rounds,
        },
        "rounds_run": rounds_run,
        "stop": stop,
        "rounds": rounds,
        "final_outcomes": final_outcomes,
        "events": task.events.iter().map(|e| &e.profile).collect::<Vec<_>>(),
        "profiles": task.profiles(),
        "outputs": outputs,
        "metrics": {
            "h_c": contribution_entropy(&accepted),
            "accepted": per_agent(task, |i| json!(accepted[i])),
            "acceptance_rate": per_agent(task, |i| {
                let p = &task.agents[i].profile.performance;
                json!((p.submitted > 0).then(|| f64::from(p.accepted) / f64::from(p.submitted)))
            }),
            "drift": MeanStd::of(&all),
            "drift_by_role": drift_roles,
            "clustering": clustering,
            "drift_mean": mean(&all),
            "drift_final": mean(&final_drift),
            "clustering_mean": mean(&cluster_values),
            "clustering_final": cluster_values.last(),
            "acceptance_mean": mean(&rates),
        },
        "embeddings_encoded": task.cache.encoded,
        "fallbacks": task.fallbacks,
        "errors": errors,
    })
}
