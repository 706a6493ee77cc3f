//! `coela` end to end (docs/design/frameworks.md §14.3): the exact call pattern on Wildfire level 1
//! with scripted replies (message then action per idle agent in id order, sending a message
//! in any case costs the step, a missing `<action>` is "do nothing" and counted), then every
//! environment with the in-process simulated model, and once against `serve-mock` over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{call_pattern, compare_policy, jsonl, scripted_wildfire, user_prompt};
use serde_json::Value;

#[test]
fn wildfire_call_pattern_with_scripted_replies() {
    let dir = tempfile::tempdir().unwrap();
    let nothing = "[0, 0, 0, \"do nothing\"]";
    let mut lines = vec![
        // Step 0: agent 1 sends, agent 2 moves far (still busy at step 1), agent 3 gives
        // neither a message nor an action.
        (
            "1",
            0,
            "coela.message",
            "<message>fire spotted north</message>",
        ),
        (
            "1",
            0,
            "coela.action",
            "<reasoning>tell them</reasoning><action>SEND MESSAGE fire spotted north</action>",
        ),
        ("1", 0, "execution", nothing),
        ("2", 0, "coela.message", "<message>heading out</message>"),
        ("2", 0, "coela.action", "<action>move to (28, 28)</action>"),
        ("2", 0, "execution", "[1, 28, 28, \"move to (28, 28)\"]"),
        ("3", 0, "coela.message", "<reasoning>silent</reasoning>"),
        ("3", 0, "coela.action", "<reasoning>no idea</reasoning>"),
        ("3", 0, "execution", nothing),
        // Step 1: agent 1 sends again in lower case, agent 3 acts.
        ("1", 1, "coela.message", "<message>still burning</message>"),
        (
            "1",
            1,
            "coela.action",
            "<action>send message still burning</action>",
        ),
        ("1", 1, "execution", nothing),
        ("3", 1, "coela.message", "<message>ok</message>"),
        (
            "3",
            1,
            "coela.action",
            "<action>cut all trees in the current cell</action>",
        ),
        ("3", 1, "execution", "[3, 0, 0, \"cut all trees\"]"),
    ];
    for step in 0..2u64 {
        for a in ["1", "2", "3"] {
            lines.push((a, step, "perception", "Trees all around me."));
        }
    }
    let (_, calls) = scripted_wildfire(dir.path(), "coela", 2, &lines);
    let pattern = |step: u64| call_pattern(&calls, step);
    let want = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, p)| (a.to_string(), p.to_string()))
            .collect()
    };
    assert_eq!(
        pattern(0),
        want(&[
            ("1", "perception"),
            ("2", "perception"),
            ("3", "perception"),
            ("1", "coela.message"),
            ("1", "coela.action"),
            ("2", "coela.message"),
            ("2", "coela.action"),
            ("3", "coela.message"),
            ("3", "coela.action"),
            ("1", "execution"),
            ("2", "execution"),
            ("3", "execution"),
        ])
    );
    // Agent 2 is still moving at step 1: only the idle agents 1 and 3 decide; every live
    // agent is perceived (§14.1 step 3).
    assert_eq!(
        pattern(1),
        want(&[
            ("1", "perception"),
            ("2", "perception"),
            ("3", "perception"),
            ("1", "coela.message"),
            ("1", "coela.action"),
            ("3", "coela.message"),
            ("3", "coela.action"),
            ("1", "execution"),
            ("3", "execution"),
        ])
    );
    let find = |step: u64, agent: &str, purpose: &str| {
        calls
            .iter()
            .find(|c| c["step"] == step && c["agent"] == agent && c["purpose"] == purpose)
            .unwrap()
    };
    // Sending (any case) and a missing action both become "do nothing" through EXECUTION.
    for (step, agent) in [(0, "1"), (0, "3"), (1, "1")] {
        let exec = find(step, agent, "execution");
        assert!(user_prompt(exec).contains("do nothing"), "{exec}");
        assert!(exec["action"].is_string(), "{exec}");
    }
    assert!(user_prompt(find(0, "2", "execution")).contains("move to (28, 28)"));
    // Later agents see earlier messages of the same step; the next step sees the chat.
    assert!(
        user_prompt(find(0, "2", "coela.message")).contains("TIME 0: AGENT_1: fire spotted north")
    );
    assert!(!user_prompt(find(0, "1", "coela.message")).contains("fire spotted north"));
    let offered = user_prompt(find(0, "1", "coela.action"));
    assert!(offered.contains("- [send message to groupchat] fire spotted north"));
    assert!(offered.contains("cost"));
    assert!(offered.lines().last().unwrap().starts_with("Reply with:"));
    assert!(user_prompt(find(1, "3", "coela.action")).contains("TIME 1: AGENT_1: still burning"));
    // The trace counts the fallbacks and the messages.
    let steps = jsonl(&dir.path().join("run/episodes/coela/0/steps.jsonl"));
    assert_eq!(steps.len(), 2);
    let t0 = &steps[0]["trace"];
    assert_eq!(t0["missing_action"], 1, "{t0}");
    assert_eq!(t0["missing_message"], 1, "{t0}");
    assert_eq!(t0["messages_sent"], 1, "{t0}");
    let t1 = &steps[1]["trace"];
    assert_eq!(t1["messages_sent"], 2, "{t1}");
    assert_eq!(t1["chat_len"], 2, "{t1}");
    assert_eq!(t1["sent"][0]["message"], "still burning", "{t1}");
}

/// Small settings per environment (environment, settings, max steps).
const ENVS: &[(&str, &[&str], &str)] = &[
    (
        "swarmbench",
        &["--set", "agents=4", "--set", "max_round=5"],
        "40",
    ),
    ("cube", &["--set", "n=2"], "60"),
    ("wildfire", &["--set", "level=1"], "20"),
];

#[test]
fn every_environment_with_the_simulated_model() {
    for (env, set, max_steps) in ENVS {
        let dir = tempfile::tempdir().unwrap();
        compare_policy("coela", env, set, max_steps, &[], dir.path());
        let calls = jsonl(&dir.path().join("episodes/coela/0/calls.jsonl"));
        assert!(
            calls.iter().any(|c| c["purpose"] == "coela.message"),
            "{env}"
        );
        assert!(
            calls.iter().any(|c| c["purpose"] == "coela.action"),
            "{env}"
        );
        // Every ProposeMessage is followed by the same agent's ChooseAction.
        let framework: Vec<&Value> = calls
            .iter()
            .filter(|c| c["purpose"].as_str().unwrap().starts_with("coela."))
            .collect();
        for pair in framework.chunks(2) {
            assert_eq!(pair[0]["purpose"], "coela.message", "{env}");
            assert_eq!(pair[1]["purpose"], "coela.action", "{env}");
            assert_eq!(pair[0]["agent"], pair[1]["agent"], "{env}");
            assert_eq!(pair[0]["step"], pair[1]["step"], "{env}");
        }
        // The simulated model answers both tags on every environment.
        let steps = jsonl(&dir.path().join("episodes/coela/0/steps.jsonl"));
        // Steps in which nobody decided carry no trace; the counts are cumulative.
        let trace = &steps.iter().rev().find(|s| !s["trace"].is_null()).unwrap()["trace"];
        assert_eq!(trace["missing_message"], 0, "{env}: {trace}");
        assert_eq!(trace["missing_action"], 0, "{env}: {trace}");
    }
}

#[test]
fn against_serve_mock_the_tokens_are_the_servers() {
    let (env, set, max_steps) = ENVS[2];
    common::assert_tokens_are_the_servers("coela", env, set, max_steps);
}
