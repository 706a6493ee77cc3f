//! `camon` end to end (docs/design/frameworks.md §14.2): the exact call pattern on Wildfire level 1
//! with scripted replies (the leader plans, every other idle agent proposes and the leader
//! reviews, leadership moves to the last proposer, an override pair interrupts a busy agent,
//! a missing proposal gets no review and no EXECUTION, as in WILDFIRE-ORCH's `propose_plan`;
//! missing tags fall back as documented), then every environment with the in-process
//! simulated model, and once against `serve-mock` over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::frameworks::*;
use common::user_prompt;
use serde_json::Value;

#[test]
fn wildfire_call_pattern_with_scripted_replies() {
    let lines = vec![
        // Step 0, leader 1: it plans for itself; 2 proposes a far move, accepted; 3 proposes
        // to wait, rejected without an action (the proposal stands).
        (
            "1",
            0,
            "camon.generate_plan",
            "<reasoning>wait</reasoning><action>do nothing</action>",
        ),
        ("1", 0, "execution", DO_NOTHING),
        ("2", 0, "camon.propose", "<action>move to (28, 28)</action>"),
        (
            "1",
            0,
            "camon.review",
            "<decision>ACCEPT</decision><action>move to (28, 28)</action><message>go far</message>",
        ),
        ("2", 0, "execution", "[1, 28, 28, \"move to (28, 28)\"]"),
        ("3", 0, "camon.propose", "<action>do nothing</action>"),
        (
            "2",
            0,
            "camon.review",
            "<DECISION>REJECT<DECISION><message>stay put<message>",
        ),
        ("3", 0, "execution", DO_NOTHING),
        // Step 1, leader 3, agent 2 still moving: 1 proposes and 3 reviews, interrupting 2
        // (`AGENT 2`, repeated-tag closing); then 3 proposes nothing: no review, and it
        // idles with no EXECUTION call.
        ("1", 1, "camon.propose", "<action>do nothing</action>"),
        (
            "3",
            1,
            "camon.review",
            "<decision>ACCEPT</decision><action>do nothing</action><message>ok</message>\
             <AGENT 2-action>move to (5, 5)<AGENT 2-action><AGENT 2-message>come back<AGENT 2-message>",
        ),
        ("1", 1, "execution", DO_NOTHING),
        ("2", 1, "execution", "[1, 5, 5, \"move to (5, 5)\"]"),
        ("3", 1, "camon.propose", "<reasoning>no idea</reasoning>"),
    ];
    let (_, calls, steps) = scripted_wildfire("camon", 2, &lines);
    let pattern = |step: u64| call_pattern(&calls, step);
    assert_eq!(
        pattern(0),
        pairs(&[
            ("1", "perception"),
            ("2", "perception"),
            ("3", "perception"),
            ("1", "camon.generate_plan"),
            ("2", "camon.propose"),
            ("1", "camon.review"),
            ("3", "camon.propose"),
            ("2", "camon.review"),
            ("1", "execution"),
            ("2", "execution"),
            ("3", "execution"),
        ])
    );
    // Leadership went 1 → 2 → 3; at step 1 agent 1 proposes to leader 3, then 3 proposes
    // nothing (no review; it leads again). Agent 2 is busy but interrupted by the override
    // pair: it gets an execution too.
    assert_eq!(
        pattern(1),
        pairs(&[
            ("1", "perception"),
            ("2", "perception"),
            ("3", "perception"),
            ("1", "camon.propose"),
            ("3", "camon.review"),
            ("3", "camon.propose"),
            ("1", "execution"),
            ("2", "execution"),
        ])
    );
    let find = |step, agent, purpose| find_call(&calls, step, agent, purpose);
    // The interrupt became agent 2's action.
    let exec = find(1, "2", "execution");
    assert!(user_prompt(exec).contains("move to (5, 5)"), "{exec}");
    assert!(exec["action"].is_string(), "{exec}");
    // A review without an action keeps the proposal (here the words "do nothing").
    assert!(user_prompt(find(0, "3", "execution")).contains("do nothing"));
    assert!(user_prompt(find(0, "2", "execution")).contains("move to (28, 28)"));
    // Prompts: the review marks the proposer's block, shows the proposal and who is busy;
    // messages reach the proposer's chat history.
    let review = user_prompt(find(1, "3", "camon.review"));
    assert!(
        review.contains("<agent name=\"AGENT_1\" self=\"true\">"),
        "{review}"
    );
    assert!(review
        .lines()
        .any(|l| l.starts_with("Current action:") && l.contains("28")));
    let last = review.lines().last().unwrap();
    assert!(
        last.starts_with("Reply with:") && last.contains("<decision>"),
        "{last}"
    );
    assert!(
        last.contains("<AGENT_k-action>…</AGENT_k-action> <AGENT_k-message>…</AGENT_k-message>")
    );
    assert!(user_prompt(find(1, "3", "camon.propose")).contains("TIME 0: AGENT_2: stay put"));
    assert!(user_prompt(find(0, "1", "camon.generate_plan")).contains("Current action: IDLE"));
    // The trace: leaders, the interrupt and the fallbacks.
    assert_eq!(steps.len(), 2);
    let t0 = &steps[0]["trace"];
    assert_eq!(
        (t0["leader_before"].as_str(), t0["leader"].as_str()),
        (Some("1"), Some("3"))
    );
    assert_eq!(t0["counts"]["missing_review_action"], 1, "{t0}");
    assert_eq!(t0["counts"]["rejected"], 1, "{t0}");
    let t1 = &steps[1]["trace"];
    assert_eq!(
        (t1["leader_before"].as_str(), t1["leader"].as_str()),
        (Some("3"), Some("3"))
    );
    assert_eq!(t1["counts"]["overrides"], 1, "{t1}");
    assert_eq!(t1["counts"]["missing_proposal"], 1, "{t1}");
    assert_eq!(t1["counts"]["do_nothing"], 1, "{t1}");
    assert_eq!(t1["counts"]["transfers"], 4, "{t1}");
    assert_eq!(
        steps[1]["actions"]["2"].as_str().map(|a| a.contains('5')),
        Some(true),
        "{}",
        steps[1]
    );
}

#[test]
fn every_environment_with_the_simulated_model() {
    on_every_environment("camon", |env, calls, steps| {
        check_sequence(env, calls);
        // The simulated model answers every tag the framework asks for.
        let trace = last_trace(steps);
        let counts = &trace["counts"];
        assert!(counts["plans"].as_u64().unwrap() > 0, "{env}: {trace}");
        assert_eq!(counts["missing_plan_action"], 0, "{env}: {trace}");
        assert_eq!(counts["missing_proposal"], 0, "{env}: {trace}");
        assert_eq!(counts["missing_review_action"], 0, "{env}: {trace}");
        assert_eq!(counts["missing_decision"], 0, "{env}: {trace}");
        assert_eq!(counts["missing_message"], 0, "{env}: {trace}");
    });
}

/// Every framework call is a leader's plan or a proposal followed by the review of the
/// same step, and the leader after a review is the proposer.
fn check_sequence(env: &str, calls: &[Value]) {
    let framework = purpose_calls(calls, "camon.");
    assert!(!framework.is_empty(), "{env}");
    let mut leader: Option<&str> = None;
    let mut i = 0;
    while i < framework.len() {
        let c = framework[i];
        let agent = c["agent"].as_str().unwrap();
        match c["purpose"].as_str().unwrap() {
            "camon.generate_plan" => {
                if let Some(l) = leader {
                    assert_eq!(agent, l, "{env}: only the leader plans");
                }
                leader = Some(agent);
                i += 1;
            }
            "camon.propose" => {
                let r = framework[i + 1];
                assert_eq!(r["purpose"], "camon.review", "{env}");
                assert_eq!(r["step"], c["step"], "{env}");
                assert_ne!(r["agent"], c["agent"], "{env}");
                if let Some(l) = leader {
                    assert_eq!(r["agent"], l, "{env}: the leader reviews");
                }
                leader = Some(agent);
                i += 2;
            }
            other => panic!("{env}: unexpected {other}"),
        }
    }
}

#[test]
fn against_serve_mock_the_tokens_are_the_servers() {
    assert_tokens_are_the_servers_on("camon", 2);
}
