//! `hmas2` end to end (docs/design/frameworks.md §14.5): the exact call pattern on Wildfire level 1
//! with scripted replies (perceptions, a plan, feedback from every live agent, re-plan and
//! feedback again while someone does not accept, at most 3 re-plans, then one execution per
//! live agent), then every environment with the in-process simulated model, and once against
//! `serve-mock` over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::frameworks::*;
use common::user_prompt;
use serde_json::{json, Value};

const AGENTS: [&str; 3] = ["1", "2", "3"];

#[test]
fn wildfire_call_pattern_with_scripted_replies() {
    let lines = vec![
        // Step 0: everybody accepts (in different spellings); agent 3 gets no action.
        (
            "1",
            0,
            "hmas2.plan",
            "<reasoning>split up</reasoning>\n<AGENT_1>move to (28, 28)</AGENT_1>\n<AGENT 2>cut all trees in the current cell<AGENT 2>\n<AGENT_7>fly</AGENT_7>",
        ),
        ("1", 0, "hmas2.feedback", "<feedback>ACCEPT</feedback>"),
        ("2", 0, "hmas2.feedback", "<feedback> 'accept' </feedback>"),
        ("3", 0, "hmas2.feedback", "<feedback>\"Accept\"</feedback>"),
        ("1", 0, "execution", "[1, 28, 28, \"move to (28, 28)\"]"),
        ("2", 0, "execution", "[3, 0, 0, \"cut all trees\"]"),
        ("3", 0, "execution", DO_NOTHING),
        // Step 1: agent 2 always rejects: 1 plan + 3 re-plans, each reviewed by everybody.
        (
            "1",
            1,
            "hmas2.plan",
            "<AGENT_1>do nothing</AGENT_1><AGENT_2>do nothing</AGENT_2><AGENT_3>move to (5, 5)</AGENT_3>",
        ),
        ("1", 1, "hmas2.feedback", "<feedback>accept</feedback>"),
        ("2", 1, "hmas2.feedback", "<feedback>REJECT: I should move to (1, 1)</feedback>"),
        ("3", 1, "hmas2.feedback", "<feedback>ACCEPT</feedback>"),
        ("1", 1, "execution", DO_NOTHING),
        ("2", 1, "execution", DO_NOTHING),
        ("3", 1, "execution", "[1, 5, 5, \"move to (5, 5)\"]"),
    ];
    let (_, calls, steps) = scripted_wildfire("hmas2", 2, &lines);
    let pattern = |step: u64| call_pattern(&calls, step);
    let expected = |rounds: usize| -> Vec<(String, String)> {
        let mut v: Vec<(&str, &str)> = AGENTS.iter().map(|a| (*a, "perception")).collect();
        for _ in 0..rounds {
            v.push(("1", "hmas2.plan"));
            v.extend(AGENTS.iter().map(|a| (*a, "hmas2.feedback")));
        }
        v.extend(AGENTS.iter().map(|a| (*a, "execution")));
        pairs(&v)
    };
    // Step 0: one plan, accepted by everybody (quotes, spaces and case do not matter).
    assert_eq!(pattern(0), expected(1));
    // Step 1: agent 1 is still moving, but the planner decides for everybody (its new action
    // interrupts); agent 2 keeps rejecting: 1 + 3 plans, then the latest plan is used.
    assert_eq!(pattern(1), expected(4));
    let step_calls = |step: u64, purpose: &str| -> Vec<&Value> {
        calls
            .iter()
            .filter(|c| c["step"] == step && c["purpose"] == purpose)
            .collect()
    };
    let plans = step_calls(1, "hmas2.plan");
    assert!(user_prompt(plans[0]).contains("STEP 0:"));
    assert!(!user_prompt(plans[0]).contains("version 1"));
    for (k, plan) in plans.iter().enumerate().skip(1) {
        let p = user_prompt(plan);
        assert!(p.contains(&format!("version {k}")), "{p}");
        assert!(!p.contains(&format!("version {}", k + 1)));
        assert!(p.contains("AGENT_2: REJECT: I should move to (1, 1)"));
        assert!(!p.contains("AGENT_1: accept"));
        assert!(p.contains("AGENT_3: move to (5, 5)"));
    }
    for plan in &plans {
        let last = user_prompt(plan).lines().last().unwrap();
        assert!(last.starts_with("Reply with:") && last.contains("<AGENT_k>action</AGENT_k>"));
    }
    // Step 0's missing action of agent 3 is "do nothing" through EXECUTION; every live agent
    // gets an executed action each step.
    let exec0 = step_calls(0, "execution");
    assert!(user_prompt(exec0[0]).contains("move to (28, 28)"));
    assert!(user_prompt(exec0[1]).contains("cut all trees in the current cell"));
    assert!(user_prompt(exec0[2]).contains("do nothing"));
    assert!(exec0.iter().all(|c| c["action"].is_string()));
    assert!(user_prompt(step_calls(1, "execution")[2]).contains("move to (5, 5)"));
    // Feedback prompts mark the speaker's block as self.
    for c in step_calls(1, "hmas2.feedback") {
        let me = format!(
            "<agent name=\"AGENT_{}\" self=\"true\">",
            c["agent"].as_str().unwrap()
        );
        assert!(user_prompt(c).contains(&me));
    }
    // The trace counts the loops and the fallbacks.
    assert_eq!(steps.len(), 2);
    let t0 = &steps[0]["trace"];
    assert_eq!(t0["plans"], 1, "{t0}");
    assert_eq!(t0["accepted"], true, "{t0}");
    assert_eq!(t0["counts"]["missing_action"], 1, "{t0}");
    let t1 = &steps[1]["trace"];
    assert_eq!(t1["plans"], 4, "{t1}");
    assert_eq!(t1["accepted"], false, "{t1}");
    assert_eq!(
        t1["rejected_by"],
        json!([["2"], ["2"], ["2"], ["2"]]),
        "{t1}"
    );
    assert_eq!(t1["counts"]["replans"], 3, "{t1}");
    assert_eq!(t1["counts"]["capped_steps"], 1, "{t1}");
    assert_eq!(t1["history_len"], 2, "{t1}");
}

#[test]
fn every_environment_with_the_simulated_model() {
    on_every_environment("hmas2", |env, calls, steps| {
        assert!(calls.iter().any(|c| c["purpose"] == "hmas2.plan"), "{env}");
        // Every plan is followed by feedback from every live agent.
        let framework = purpose_calls(calls, "hmas2.");
        assert_eq!(framework[0]["purpose"], "hmas2.plan", "{env}");
        assert!(framework.len() > 1 && framework[1]["purpose"] == "hmas2.feedback");
        // The simulated model answers every tag and always accepts: no loop, no fallback.
        let counts = &last_trace(steps)["counts"];
        assert!(counts["plans"].as_u64().unwrap() > 0, "{env}: {counts}");
        assert_eq!(counts["replans"], 0, "{env}: {counts}");
        assert_eq!(counts["missing_feedback"], 0, "{env}: {counts}");
        assert_eq!(counts["missing_action"], 0, "{env}: {counts}");
    });
}

#[test]
fn against_serve_mock_the_tokens_are_the_servers() {
    assert_tokens_are_the_servers_on("hmas2", 0);
}
