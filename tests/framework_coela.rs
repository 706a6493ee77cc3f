//! `coela` end to end (docs/design/frameworks.md §14.3): the exact call pattern on Wildfire level 1
//! with scripted replies (message then action per idle agent in id order; sending a message
//! costs the step and, like a missing `<action>` (counted), makes no EXECUTION call, as
//! WILDFIRE-ORCH's type-0 options; the action's text is what is sent), then every
//! environment with the in-process simulated model, and once against `serve-mock` over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::frameworks::*;
use common::user_prompt;

#[test]
fn wildfire_call_pattern_with_scripted_replies() {
    let lines = vec![
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
            "<reasoning>tell them</reasoning><action>SEND_MESSAGE fire spotted north, near (3, 30)</action>",
        ),
        ("2", 0, "coela.message", "<message>heading out</message>"),
        ("2", 0, "coela.action", "<action>move to (28, 28)</action>"),
        ("2", 0, "execution", "[1, 28, 28, \"move to (28, 28)\"]"),
        ("3", 0, "coela.message", "<reasoning>silent</reasoning>"),
        ("3", 0, "coela.action", "<reasoning>no idea</reasoning>"),
        // Step 1: agent 1 sends again in lower case, agent 3 acts.
        ("1", 1, "coela.message", "<message>still burning</message>"),
        (
            "1",
            1,
            "coela.action",
            "<action>send message</action>",
        ),
        ("3", 1, "coela.message", "<message>ok</message>"),
        (
            "3",
            1,
            "coela.action",
            "<action>cut all trees in the current cell</action>",
        ),
        ("3", 1, "execution", "[3, 0, 0, \"cut all trees\"]"),
    ];
    let (_, calls, steps) = scripted_wildfire("coela", 2, &lines);
    let pattern = |step: u64| call_pattern(&calls, step);
    // Every live agent is perceived (§14.1 step 3); each deciding agent, in id order, sends
    // a message then chooses an action; only chosen abilities are executed.
    let expected = |deciding: &[&str], executed: &[&str]| {
        let mut v: Vec<(&str, &str)> = ["1", "2", "3"].map(|a| (a, "perception")).to_vec();
        for a in deciding {
            v.extend([(*a, "coela.message"), (*a, "coela.action")]);
        }
        v.extend(executed.iter().map(|a| (*a, "execution")));
        pairs(&v)
    };
    assert_eq!(pattern(0), expected(&["1", "2", "3"], &["2"]));
    // Agent 2 is still moving at step 1: only the idle agents 1 and 3 decide.
    assert_eq!(pattern(1), expected(&["1", "3"], &["3"]));
    let find = |step, agent, purpose| find_call(&calls, step, agent, purpose);
    assert!(user_prompt(find(0, "2", "execution")).contains("move to (28, 28)"));
    // Later agents see earlier messages of the same step (the action's own text); the next
    // step sees the chat.
    assert!(user_prompt(find(0, "2", "coela.message"))
        .contains("TIME 0: AGENT_1: fire spotted north, near (3, 30)"));
    assert!(!user_prompt(find(0, "1", "coela.message")).contains("fire spotted north"));
    let offered = user_prompt(find(0, "1", "coela.action"));
    assert!(offered.contains("- [SEND_MESSAGE] fire spotted north"));
    assert!(offered.contains("cost"));
    assert!(offered.lines().last().unwrap().starts_with("Reply with:"));
    assert!(user_prompt(find(1, "3", "coela.action")).contains("TIME 1: AGENT_1: still burning"));
    // The trace counts the fallbacks and the messages.
    assert_eq!(steps.len(), 2);
    let t0 = &steps[0]["trace"];
    assert_eq!(t0["missing_action"], 1, "{t0}");
    assert_eq!(t0["missing_message"], 1, "{t0}");
    assert_eq!(t0["messages_sent"], 1, "{t0}");
    let t1 = &steps[1]["trace"];
    assert_eq!(t1["messages_sent"], 2, "{t1}");
    assert_eq!(t1["chat_len"], 2, "{t1}");
    // "send message" with nothing after it sends the proposed message.
    assert_eq!(t1["sent"][0]["message"], "still burning", "{t1}");
}

#[test]
fn every_environment_with_the_simulated_model() {
    on_every_environment("coela", |env, calls, steps| {
        assert!(
            calls.iter().any(|c| c["purpose"] == "coela.message"),
            "{env}"
        );
        assert!(
            calls.iter().any(|c| c["purpose"] == "coela.action"),
            "{env}"
        );
        // Every ProposeMessage is followed by the same agent's ChooseAction.
        let framework = purpose_calls(calls, "coela.");
        for pair in framework.chunks(2) {
            assert_eq!(pair[0]["purpose"], "coela.message", "{env}");
            assert_eq!(pair[1]["purpose"], "coela.action", "{env}");
            assert_eq!(pair[0]["agent"], pair[1]["agent"], "{env}");
            assert_eq!(pair[0]["step"], pair[1]["step"], "{env}");
        }
        // The simulated model answers both tags on every environment; the counts are
        // cumulative.
        let trace = last_trace(steps);
        assert_eq!(trace["missing_message"], 0, "{env}: {trace}");
        assert_eq!(trace["missing_action"], 0, "{env}: {trace}");
    });
}

#[test]
fn against_serve_mock_the_tokens_are_the_servers() {
    assert_tokens_are_the_servers_on("coela", 2);
}
