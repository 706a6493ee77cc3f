//! `embodied` end to end (docs/design/frameworks.md §14.4): the exact call pattern on Wildfire
//! level 1 with scripted replies, in WILDFIRE-ORCH's order (per step: perceptions, one round
//! × live agents of `embodied.messages`, live agents × `embodied.action`, an `execution` per
//! agent that gave an action, busy agents included), private messages in both chats, GLOBAL in
//! everyone's, unknown agents ignored, messages purged at `t0 + 2`; then every environment
//! with the in-process simulated model, and once against `serve-mock` over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::frameworks::*;
use common::user_prompt;

const AGENTS: [&str; 3] = ["1", "2", "3"];

#[test]
fn wildfire_call_pattern_chats_and_lifespan_with_scripted_replies() {
    let quiet = "<reasoning>nothing to say</reasoning>";
    let idle = "<action>do nothing</action>";
    let mut lines: Vec<(&str, u64, &str, &str)> = vec![
        // Step 0: agent 1 writes privately to 2 (and to an unknown AGENT_9), agent 2 stays
        // silent, agent 3 writes to everyone; agent 2 starts a long move, agent 3 gives no
        // action (the no-op, no EXECUTION call).
        (
            "1",
            0,
            "embodied.messages",
            "<AGENT_2>fire at (3, 4)</AGENT_2><AGENT_9>ghost</AGENT_9>",
        ),
        ("2", 0, "embodied.messages", quiet),
        ("3", 0, "embodied.messages", "<GLOBAL>cutting west<GLOBAL>"),
        ("1", 0, "embodied.action", idle),
        (
            "2",
            0,
            "embodied.action",
            "<action>move to (28, 28)</action>",
        ),
        ("3", 0, "embodied.action", "<reasoning>unsure</reasoning>"),
        ("1", 0, "execution", DO_NOTHING),
        ("2", 0, "execution", "[1, 28, 28, \"move to (28, 28)\"]"),
    ];
    for step in 1..4u64 {
        for a in AGENTS {
            lines.push((a, step, "embodied.messages", quiet));
            lines.push((a, step, "embodied.action", idle));
            lines.push((a, step, "execution", DO_NOTHING));
        }
    }
    let (row, calls, steps) = scripted_wildfire("embodied", 4, &lines);
    assert_eq!(row["steps"], 4, "{row}");
    // Every step, every live agent (agent 2 still moving at step 1 included): perceptions,
    // one message round in id order, actions, executions of the actions given.
    let want = |executed: &[&str]| {
        let mut v: Vec<(String, String)> = Vec::new();
        for purpose in ["perception", "embodied.messages", "embodied.action"] {
            v.extend(AGENTS.map(|a| (a.to_string(), purpose.to_string())));
        }
        v.extend(
            executed
                .iter()
                .map(|a| (a.to_string(), "execution".to_string())),
        );
        v
    };
    assert_eq!(call_pattern(&calls, 0), want(&["1", "2"]), "step 0");
    for step in 1..4u64 {
        assert_eq!(call_pattern(&calls, step), want(&AGENTS), "step {step}");
    }
    let find = |step, agent, purpose, nth| nth_call(&calls, step, agent, purpose, nth);
    let msg = |step, agent| user_prompt(find(step, agent, "embodied.messages", 0));
    let act = |step, agent| user_prompt(find(step, agent, "embodied.action", 0));
    // Later speakers see earlier messages of the same round; private stays private.
    assert!(msg(0, "2").contains("Private with AGENT_1:\nTIME 0: AGENT_1: fire at (3, 4)"));
    assert!(!msg(0, "1").contains("cutting west"));
    assert!(msg(1, "1").contains("GLOBAL:\nTIME 0: AGENT_3: cutting west"));
    assert!(!msg(0, "3").contains("fire at (3, 4)"));
    assert!(act(0, "1").contains("Private with AGENT_2:\nTIME 0: AGENT_1: fire at (3, 4)"));
    // The messages prompt names the teammates and carries nothing of theirs.
    let m = msg(0, "1");
    assert!(m.contains("<agent name=\"AGENT_1\" self=\"true\">"));
    assert!(!m.contains("<agent name=\"AGENT_2\">") && m.contains("(AGENT_2, AGENT_3)"));
    assert!(m.contains("cost") && m.contains("visible for 2 steps"));
    assert!(m
        .lines()
        .last()
        .unwrap()
        .contains("<AGENT_k>message</AGENT_k> … <GLOBAL>"));
    let a = act(0, "2");
    assert!(a.contains("explicit target coordinates") && a.contains("located at ("));
    assert!(a.lines().last().unwrap().starts_with("Reply with:"));
    // The agent's past actions are the framework's record of each step's action.
    assert!(
        act(1, "2").contains("1. move to (28, 28)"),
        "{}",
        act(1, "2")
    );
    assert!(act(1, "3").contains("1. do nothing"));
    // The unknown agent's message went nowhere.
    assert!(calls.iter().all(|c| !user_prompt(c).contains("ghost")));
    // Visible at steps 0 and 1, purged at the start of step 2 (lifespan 2).
    assert_eq!(act(1, "2").matches("fire at (3, 4)").count(), 1);
    assert_eq!(act(1, "1").matches("cutting west").count(), 1);
    assert!(!act(1, "3").contains("fire at"));
    for a in AGENTS {
        assert!(!msg(2, a).contains("fire at") && !msg(2, a).contains("cutting west"));
    }
    // Every execution became the action, the busy agent 2's re-decision at step 1 included.
    assert!(user_prompt(find(0, "2", "execution", 0)).contains("move to (28, 28)"));
    for step in 0..4u64 {
        for a in AGENTS {
            if step == 0 && a == "3" {
                continue;
            }
            let e = find(step, a, "execution", 0);
            assert!(e["action"].is_string(), "{e}");
        }
    }
    assert!(find(1, "2", "execution", 0)["action"]
        .as_str()
        .unwrap()
        .contains("do nothing"));
    // The trace counts messages, fallbacks and purges.
    let t = |s: usize| &steps[s]["trace"];
    assert_eq!(t(0)["private_sent"], 1, "{}", t(0));
    assert_eq!(t(0)["global_sent"], 1, "{}", t(0));
    assert_eq!(t(0)["missing_action"], 1, "{}", t(0));
    assert_eq!(t(0)["silent_turns"], 1, "{}", t(0));
    assert_eq!(t(0)["sent"].as_array().unwrap().len(), 2, "{}", t(0));
    // 1 private message × 2 chats + 1 global × 3 chats.
    assert_eq!(t(1)["chat_entries"], 5, "{}", t(1));
    assert_eq!(t(1)["purged"], 0, "{}", t(1));
    assert_eq!(t(2)["purged"], 5, "{}", t(2));
    assert_eq!(t(2)["chat_entries"], 0, "{}", t(2));
}

#[test]
fn every_environment_with_the_simulated_model() {
    on_every_environment("embodied", |env, calls, _| {
        // Per decided step: one round of messages over the same agents, then their actions.
        let mut steps: Vec<u64> = calls.iter().map(|c| c["step"].as_u64().unwrap()).collect();
        steps.dedup();
        assert!(!steps.is_empty(), "{env}");
        for s in steps {
            let of = |p: &str| -> Vec<&str> {
                calls
                    .iter()
                    .filter(|c| c["step"] == s && c["purpose"] == p)
                    .map(|c| c["agent"].as_str().unwrap())
                    .collect()
            };
            let messages = of("embodied.messages");
            let actions = of("embodied.action");
            assert!(!actions.is_empty(), "{env} step {s}");
            assert_eq!(messages, actions, "{env} step {s}");
        }
    });
}

#[test]
fn against_serve_mock_the_tokens_are_the_servers() {
    assert_tokens_are_the_servers_on("embodied", 2);
}
