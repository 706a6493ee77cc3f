//! Unit tests of the embodied SwarmSys policy: the call pattern with scripted replies, the
//! trace, reinforcement (outcomes, pheromone with its cap, ε), the refusal of environments
//! without sub-goals, and determinism.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use crate::embodied::test_support::{first_view, script};

fn swarmbench_view() -> StepView {
    first_view("swarmbench", &["agents=3", "max_round=3"])
}

#[tokio::test]
async fn one_act_call_per_matched_agent_with_its_sub_goal() {
    let lines: Vec<(&str, u64, &str, &str)> = ["Agent_0", "Agent_1", "Agent_2"]
        .iter()
        .map(|a| (*a, 0, "swarmsys.act", "ACTION: UP"))
        .collect();
    let mut p = EmbodiedSwarmSys::new(script(&lines), "", entry("swarmbench")).unwrap();
    let d = p.decide(swarmbench_view()).await.unwrap();
    assert_eq!(d.calls.len(), 3);
    for c in &d.calls {
        assert_eq!(c.purpose, "swarmsys.act");
        assert!(c.decides);
        let user = &c.messages.last().unwrap().content;
        assert!(
            user.contains("Your current sub-goal: surround and capture the prey"),
            "{user}"
        );
    }
    assert_eq!(d.replies.len(), 3);
    assert!(d.replies.values().all(|r| r == "ACTION: UP"));
    let t = p.take_trace().unwrap();
    for key in ["events", "epsilon", "p", "matches", "pheromone", "outcomes"] {
        assert!(!t[key].is_null(), "{key}");
    }
    assert_eq!(t["matches"]["Agent_1"], "prey");
    assert_eq!(t["epsilon"]["Agent_0"], 0.15);
    assert_eq!(t["p"]["Agent_2"], json!([1.0]));
    assert_eq!(t["pheromone"]["Agent_0"], 0.0);
}

#[tokio::test]
async fn cube_matches_blocks_and_reruns_are_identical() {
    let view = first_view("cube", &["n=2"]);
    let lines: Vec<(&str, u64, &str, &str)> = view
        .deciding
        .iter()
        .map(|a| (a.id.as_str(), 0, "swarmsys.act", "[]"))
        .collect();
    let mut traces = Vec::new();
    for _ in 0..2 {
        let mut p = EmbodiedSwarmSys::new(script(&lines), "", entry("cube")).unwrap();
        let d = p.decide(view.clone()).await.unwrap();
        assert_eq!(d.calls.len(), view.deciding.len());
        traces.push(p.take_trace().unwrap());
    }
    assert_eq!(traces[0], traces[1]);
    let m = traces[0]["matches"].as_object().unwrap();
    assert!(m.values().all(|v| v.as_str().unwrap().starts_with("block")));
    // Probabilities over the open blocks sum to 1 for every agent.
    for p in traces[0]["p"].as_object().unwrap().values() {
        let s: f64 = p
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .sum();
        assert!((s - 1.0).abs() < 1e-9);
    }
}

fn goal(id: &str, progress: f64) -> SubGoal {
    SubGoal {
        id: id.into(),
        description: format!("do {id}"),
        progress,
        open: true,
    }
}

fn pending(agent: &str, event: &str, progress: f64, vector: Vec<f64>) -> Pending {
    Pending {
        agent: agent.into(),
        event: event.into(),
        description: format!("do {event}"),
        progress,
        vector,
    }
}

#[test]
fn progress_is_success_and_deposits_pheromone_up_to_the_cap() {
    let mut p = EmbodiedSwarmSys::new(CallerConfig::default(), "", entry("cube")).unwrap();
    let e = vec![1.0, 0.0];
    p.pending = vec![
        pending("0", "block0", -3.0, e.clone()),
        pending("1", "block1", -5.0, vec![0.0, 1.0]),
    ];
    let out = p.reinforce(&[goal("block0", -2.0), goal("block1", -5.0)], 4);
    assert_eq!(out[0]["success"], true);
    assert_eq!(out[0]["gain"], 1.0);
    assert_eq!(out[1]["success"], false);
    let m0 = &p.memory["0"];
    assert_eq!(m0.pheromone, vec![ETA, 0.0]);
    assert_eq!(m0.history, vec!["[step 4] do block0".to_string()]);
    assert_eq!(m0.outcomes, vec![1]);
    let m1 = &p.memory["1"];
    assert!(m1.pheromone.is_empty() && m1.history.is_empty());
    assert_eq!(m1.outcomes, vec![0]);
    // A failure raises ε: one failure of one outcome → ε_max.
    let eps = epsilon(&m1.outcomes, WINDOW, EpsilonBounds::default());
    assert!((eps - 0.35).abs() < 1e-12);
    assert!(p.pending.is_empty(), "outcomes are counted once");
    // Many successes: the pheromone saturates at unit length (no decay), history keeps 5.
    for s in 0..10 {
        p.pending = vec![pending("0", "block0", -3.0, e.clone())];
        p.reinforce(&[goal("block0", -1.0)], s);
    }
    let m0 = &p.memory["0"];
    assert!((norm(&m0.pheromone) - 1.0).abs() < 1e-12);
    assert_eq!(m0.history.len(), HISTORY);
    assert_eq!(m0.outcomes.len(), WINDOW);
    // A sub-goal that vanished counts as no progress.
    p.pending = vec![pending("0", "gone", 0.0, e)];
    assert_eq!(p.reinforce(&[], 20)[0]["success"], false);
}

#[test]
fn options_are_refused() {
    let err = EmbodiedSwarmSys::new(CallerConfig::default(), "eta=1", entry("cube"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("takes no options"), "{err}");
}

fn entry(name: &str) -> &'static dyn colony_env_api::EnvEntry {
    crate::registry::Registry::builtin()
        .environment_entry(name)
        .unwrap()
}
