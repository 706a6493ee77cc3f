//! The compact DyLAN, MacNet and AgentVerse baselines (docs/design/baselines.md §3.5–§3.7), what
//! they share (completion-order independence, end-to-end runs on the simulated model,
//! failures, options) and DyLAN in detail: calls per round, ratings and ranking parsing,
//! counted fallbacks, consensus, importance scores. MacNet and AgentVerse in detail:
//! `tests/baselines_graph_policies.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod baseline_support;
use baseline_support::policy_by_name;

use std::sync::Arc;

use baseline_support::*;
use colony::llm::ChatRequest;
use colony::policy::reasoning::dylan::{
    parse_ranking, parse_ratings, strip_ratings, RANK_MARKER, RATINGS_MARKER,
};
use colony::policy::reasoning::{Dylan, DylanOptions, DylanRoles, ReasoningPolicy};
use colony_qa::AnswerType;
use serde_json::Value;

// ---------------------------------------------------------------- shared behaviour

#[tokio::test]
async fn results_do_not_depend_on_completion_order() {
    for policy in baselines() {
        for i in 0..4 {
            let a = policy
                .solve(&query(i), &roster(Arc::new(sim(0.4, 0.4))))
                .await
                .unwrap();
            let b = policy
                .solve(&query(i), &roster(Arc::new(Jitter(sim(0.4, 0.4)))))
                .await
                .unwrap();
            assert_eq!(json(&a), json(&b), "{} item {i}", policy.name());
        }
    }
}

#[tokio::test]
async fn the_simulated_model_drives_each_end_to_end_without_fallbacks() {
    for policy in baselines() {
        let mut right = 0;
        for i in 0..6 {
            let out = policy
                .solve(&query(i), &roster(Arc::new(sim(0.6, 0.4))))
                .await
                .unwrap();
            assert_eq!(
                out.trace["errors"],
                serde_json::json!([]),
                "{}",
                policy.name()
            );
            if let Some(f) = out.trace.get("fallbacks") {
                for (k, v) in f.as_object().unwrap() {
                    assert_eq!(v, 0, "{} item {i}: fallback {k}", policy.name());
                }
            }
            right += usize::from(out.answer.as_deref() == Some(item(i).gold.as_str()));
        }
        assert!(right >= 2, "{}: {right} of 6", policy.name());
    }
}

#[tokio::test]
async fn failed_calls_are_counted_and_leave_no_answer() {
    for policy in baselines() {
        let out = policy
            .solve(&query(0), &roster(Arc::new(Broken)))
            .await
            .unwrap();
        assert_eq!(out.answer, None, "{}", policy.name());
        let errors = out.trace["errors"].as_array().unwrap();
        assert!(!errors.is_empty(), "{}", policy.name());
        assert_eq!(
            out.usage.run.failed_calls,
            errors.len() as u64,
            "{}",
            policy.name()
        );
        assert_eq!(out.usage.run.calls, 0);
    }
}

#[test]
fn registry_options_and_bounds() {
    for spec in [
        "dylan:agents=5,rounds=2,roles=mixed",
        "macnet:agents=3,fixed_topology=true",
        "agentverse:experts=3,turns=2,critic_rounds=1",
    ] {
        assert!(policy_by_name(spec).is_ok(), "{spec}");
    }
    for (spec, needle) in [
        ("dylan:rounds=4", "option `rounds` must be from 1 to 3"),
        ("dylan:agents=33", "option `agents` must be from 1 to 32"),
        ("dylan:roles=chefs", "option `roles` must be one of"),
        ("macnet:agents=17", "option `agents` must be from 1 to 16"),
        (
            "macnet:fixed_topology=maybe",
            "option `fixed_topology` must be one of",
        ),
        (
            "agentverse:experts=1",
            "option `experts` must be from 2 to 8",
        ),
        ("agentverse:turns=11", "option `turns` must be from 1 to 10"),
        ("agentverse:colour=red", "unknown option `colour`"),
    ] {
        let err = policy_by_name(spec).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains(needle)),
            "{spec}: {err:?}"
        );
    }
}

// ---------------------------------------------------------------- DyLAN

#[test]
fn dylan_ratings_and_ranking_parse() {
    let reply = "Work.\nThe answer is 7.\nRatings: [5, 2, 4]";
    assert_eq!(parse_ratings(reply, 3), Some(vec![5, 2, 4]));
    assert_eq!(strip_ratings(reply), "Work.\nThe answer is 7.");
    assert_eq!(parse_ratings("**Ratings:** [1,1]", 2), Some(vec![1, 1]));
    // Wrong count, out of range, not numbers, no label: None (a counted fallback).
    assert_eq!(parse_ratings(reply, 4), None);
    assert_eq!(parse_ratings("Ratings: [6, 1, 1]", 3), None);
    assert_eq!(parse_ratings("Ratings: [a, b]", 2), None);
    assert_eq!(parse_ratings("[5, 2, 4]", 3), None);
    assert_eq!(
        strip_ratings("The answer is [1, 5]."),
        "The answer is [1, 5]."
    );
    let two = "Ratings: [1, 1]\nmore\nratings: [3, 3] (done)";
    assert_eq!(parse_ratings(two, 2), Some(vec![3, 3]));
    assert_eq!(strip_ratings(two), "Ratings: [1, 1]\nmore\n(done)");

    assert_eq!(parse_ranking("I pick [3, 1].", 4), vec![3, 1]);
    assert_eq!(parse_ranking("[2, 4] then [#4, 2]", 4), vec![4, 2]);
    assert_eq!(parse_ranking("best [3, 3, 2, 1]", 4), vec![3, 2]);
    assert_eq!(parse_ranking("[9, 2] [see above]", 4), vec![2]);
    assert!(parse_ranking("no list", 4).is_empty());
    assert!(parse_ranking("[x, y]", 4).is_empty());
}

#[test]
fn dylan_importance_flows_back_by_ratings() {
    use colony::policy::reasoning::dylan::importance;
    let layers = vec![vec![0, 1, 2], vec![2, 1, 0]];
    let mut ratings = vec![None; 3];
    ratings[0] = Some(vec![1.0, 8.0, 1.0]);
    let s = importance(3, &layers, &ratings);
    assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    // Agent 1: 1/3 in round 2, plus 1/3·0.8 + 2·(1/3)·(1/3) in round 1; halved.
    let want1 = (1.0 / 3.0 + 0.8 / 3.0 + 2.0 / 9.0) / 2.0;
    assert!((s[1] - want1).abs() < 1e-12, "{s:?}");
    // Round 3 of agents 2 and 0 passes equal shares back.
    let s = importance(
        3,
        &[vec![0, 1, 2], vec![0, 1, 2], vec![2, 0]],
        &[None, None, None],
    );
    assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert!(s[1] < s[0] && (s[0] - s[2]).abs() < 1e-12);
    // Stopped in round 1 after three of four answered: the fourth scores 0.
    let s = importance(4, &[vec![3, 1, 0]], &[]);
    assert_eq!(s[2], 0.0);
    assert!((s[3] - 1.0 / 3.0).abs() < 1e-12);
}

/// Mixed roles answer by their system prompt (all different); the ranker picks `[1, 2]`.
fn dylan_script(r: &ChatRequest) -> String {
    let u = user(r);
    if u.contains(RANK_MARKER) {
        return "Both look fine.\n[1, 2]".into();
    }
    let n = match system(r) {
        s if s.contains("mathematician") => 2,
        s if s.contains("economist") => 3,
        s if s.contains("psychologist") => 4,
        _ => 1,
    };
    if u.contains(RATINGS_MARKER) {
        format!("Updated. The answer is {n}.\nRatings: [5, 4, 3, 2]")
    } else {
        format!("Solved. The answer is {n}.")
    }
}

fn dylan_mixed() -> Dylan {
    Dylan::new(DylanOptions {
        roles: DylanRoles::Mixed,
        ..DylanOptions::default()
    })
    .unwrap()
}

#[tokio::test]
async fn dylan_runs_four_then_four_then_the_ranker_then_two() {
    let out = dylan_mixed()
        .solve(&query(0), &roster(Arc::new(Scripted(dylan_script))))
        .await
        .unwrap();
    let t = &out.trace;
    assert_eq!(out.usage.run.calls, 11, "{t}");
    assert_eq!(t["stop"], "final_vote");
    assert_eq!(
        t["roles"],
        serde_json::json!(["assistant", "mathematician", "economist", "psychologist"])
    );
    assert_eq!(t["rounds"][0]["order"].as_array().unwrap().len(), 4);
    assert_eq!(t["rounds"][1]["order"].as_array().unwrap().len(), 4);
    // Ratings are read and stripped: round-2 answers are the agents' own, not a score.
    let r2 = &t["rounds"][1];
    assert_eq!(r2["answers"]["agent_2"], "3");
    for (_, given) in r2["ratings"].as_object().unwrap() {
        assert_eq!(given.as_object().unwrap().len(), 4);
    }
    // The ranker named the first two it was shown; round 3 runs them in that order and the
    // 1–1 split goes to the first.
    let shown = t["ranking"]["shown"].as_array().unwrap();
    assert_eq!(
        t["ranking"]["selected"],
        serde_json::json!([shown[0], shown[1]])
    );
    assert_eq!(t["rounds"][2]["order"], t["ranking"]["selected"]);
    assert_eq!(t["chosen"]["agent"], shown[0]);
    assert_eq!(
        t["fallbacks"],
        serde_json::json!({"ratings": 0, "ranking": 0})
    );
    let sum: f64 = t["importance"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert!((sum - 1.0).abs() < 1e-9);
    // System prompts are the pool's; the ranker sends none.
    for (agent, call) in out.transcript.calls() {
        let s = system(&call.request);
        if agent.as_str() == "agent_4" {
            assert_eq!(s, "");
            assert!(user(&call.request).contains(RANK_MARKER));
        } else {
            assert!(s.starts_with("You are"), "{agent}: {s}");
        }
    }
}

#[tokio::test]
async fn dylan_counts_fallbacks_and_stops_on_consensus() {
    fn sloppy(r: &ChatRequest) -> String {
        let u = user(r);
        if u.contains(RANK_MARKER) {
            return "I cannot decide.".into();
        }
        // Round 2 agrees on 9 but gives no ratings; round 1 disagrees.
        if u.contains(RATINGS_MARKER) {
            return "Updated. The answer is 9.".into();
        }
        dylan_script(r)
    }
    let out = dylan_mixed()
        .solve(&query(1), &roster(Arc::new(Scripted(sloppy))))
        .await
        .unwrap();
    let t = &out.trace;
    // Round 1: 4 calls; round 2 stops after 3 agreeing answers (3 > ⌊8/3⌋).
    assert_eq!(out.usage.run.calls, 7, "{t}");
    assert_eq!(t["stop"], "consensus_round_2");
    assert_eq!(out.answer.as_deref(), Some("9"));
    assert_eq!(t["fallbacks"]["ratings"], 3);
    assert!(t["ranking"].is_null());

    // The ranker's unreadable reply: two seeded picks, counted, the same every run.
    fn no_rank(r: &ChatRequest) -> String {
        if user(r).contains(RANK_MARKER) {
            return "I cannot decide.".into();
        }
        dylan_script(r)
    }
    let a = dylan_mixed()
        .solve(&query(1), &roster(Arc::new(Scripted(no_rank))))
        .await
        .unwrap();
    let b = dylan_mixed()
        .solve(&query(1), &roster(Arc::new(Scripted(no_rank))))
        .await
        .unwrap();
    assert_eq!(a.trace["fallbacks"]["ranking"], 1);
    assert_eq!(a.trace["ranking"]["fallback"], true);
    let sel = a.trace["ranking"]["selected"].as_array().unwrap();
    assert!(sel.len() == 2 && sel[0] != sel[1]);
    assert_eq!(json(&a), json(&b));
}

#[tokio::test]
async fn dylan_perfect_agents_agree_in_round_one_and_roles_follow_the_item() {
    let out = policy_by_name("dylan")
        .unwrap()
        .solve(&query(2), &roster(Arc::new(sim(1.0, 0.0))))
        .await
        .unwrap();
    assert_eq!(out.usage.run.calls, 3, "three agreeing answers end round 1");
    assert_eq!(out.trace["stop"], "consensus_round_1");
    assert_eq!(out.answer.as_deref(), Some("20"));
    assert_eq!(out.trace["mixed_roles"], false);
    let mut knowledge = query(2);
    knowledge.item.answer_type = AnswerType::Choice {
        options: vec!["x".into(), "y".into()],
    };
    knowledge
        .item
        .meta
        .insert("subject".into(), Value::from("economics"));
    let d = Dylan::new(DylanOptions::default()).unwrap();
    let out = d
        .solve(&knowledge, &roster(Arc::new(sim(1.0, 0.0))))
        .await
        .unwrap();
    assert_eq!(out.trace["mixed_roles"], true);
}
