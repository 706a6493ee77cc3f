//! `hmas2` end to end (docs/design/frameworks.md §14.5): the exact call pattern on Wildfire level 1
//! with scripted replies, in WILDFIRE-ORCH's order (perceptions, a plan, asked again up to
//! twice while it leaves a live agent out, feedback from every live agent and no re-plan,
//! then one execution per agent the plan gave an action), the paper's re-plan loop with
//! `hmas2:replans=3`, then every environment with the in-process simulated model, and once
//! against `serve-mock` over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::frameworks::*;
use common::user_prompt;
use serde_json::{json, Value};

const AGENTS: [&str; 3] = ["1", "2", "3"];

#[test]
fn wildfire_call_pattern_with_scripted_replies() {
    let lines = vec![
        // Step 0: everybody accepts (in different spellings); agent 3 gets no action, even
        // when asked again (the script answers the same).
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
        // Step 1: agent 2 rejects; the feedback is collected and the plan stands.
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
    let expected = |plans: usize, executed: &[&str]| -> Vec<(String, String)> {
        let mut v: Vec<(&str, &str)> = AGENTS.iter().map(|a| (*a, "perception")).collect();
        v.extend(std::iter::repeat_n(("1", "hmas2.plan"), plans));
        v.extend(AGENTS.iter().map(|a| (*a, "hmas2.feedback")));
        v.extend(executed.iter().map(|a| (*a, "execution")));
        pairs(&v)
    };
    // Step 0: the plan leaves agent 3 out: asked twice more, then used as it is; agent 3
    // takes the no-op with no EXECUTION call.
    assert_eq!(pattern(0), expected(3, &["1", "2"]));
    // Step 1: agent 1 is still moving, but the planner decides for everybody (its new action
    // interrupts); agent 2 rejects, and there is no re-plan.
    assert_eq!(pattern(1), expected(1, &AGENTS));
    let step_calls = |step: u64, purpose: &str| -> Vec<&Value> {
        calls
            .iter()
            .filter(|c| c["step"] == step && c["purpose"] == purpose)
            .collect()
    };
    let plans0 = step_calls(0, "hmas2.plan");
    assert!(user_prompt(plans0[1]).contains("no action for AGENT_3"));
    let plan1 = user_prompt(step_calls(1, "hmas2.plan")[0]);
    // The history holds each agent's position and action, not its perception.
    assert!(plan1.contains("STEP 0:") && plan1.contains("AGENT_3: do nothing"));
    assert!(!plan1.contains("Trees all around me.\nActions"), "{plan1}");
    assert!(!plan1.contains("version 1"));
    // Each block carries its agent's card; the team and the task are stated once.
    assert_eq!(plan1.matches("Your abilities (one per action):").count(), 3);
    assert_eq!(plan1.matches("Firefighters (").count(), 1, "{plan1}");
    assert!(!plan1.contains("Current task:"));
    assert!(plan1
        .lines()
        .last()
        .unwrap()
        .contains("<AGENT_k>action</AGENT_k>"));
    let exec0 = step_calls(0, "execution");
    assert!(user_prompt(exec0[0]).contains("move to (28, 28)"));
    assert!(user_prompt(exec0[1]).contains("cut all trees in the current cell"));
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
    assert_eq!(t0["counts"]["reasks"], 2, "{t0}");
    let t1 = &steps[1]["trace"];
    assert_eq!(t1["plans"], 1, "{t1}");
    assert_eq!(t1["accepted"], false, "{t1}");
    assert_eq!(t1["rejected_by"], json!([["2"]]), "{t1}");
    assert_eq!(t1["counts"]["replans"], 0, "{t1}");
    assert_eq!(t1["history_len"], 2, "{t1}");
}

#[test]
fn with_replans_3_agent_2_rejecting_makes_3_replans() {
    let lines = vec![
        (
            "1",
            0,
            "hmas2.plan",
            "<AGENT_1>do nothing</AGENT_1><AGENT_2>do nothing</AGENT_2><AGENT_3>move to (5, 5)</AGENT_3>",
        ),
        ("1", 0, "hmas2.feedback", "<feedback>ACCEPT</feedback>"),
        ("2", 0, "hmas2.feedback", "<feedback>REJECT: I should move to (1, 1)</feedback>"),
        ("3", 0, "hmas2.feedback", "<feedback>ACCEPT</feedback>"),
        ("1", 0, "execution", DO_NOTHING),
        ("2", 0, "execution", DO_NOTHING),
        ("3", 0, "execution", "[1, 5, 5, \"move to (5, 5)\"]"),
    ];
    let (_, calls, steps) = scripted_wildfire("hmas2:replans=3", 1, &lines);
    let mut want: Vec<(&str, &str)> = AGENTS.iter().map(|a| (*a, "perception")).collect();
    for _ in 0..4 {
        want.push(("1", "hmas2.plan"));
        want.extend(AGENTS.iter().map(|a| (*a, "hmas2.feedback")));
    }
    want.extend(AGENTS.iter().map(|a| (*a, "execution")));
    assert_eq!(call_pattern(&calls, 0), pairs(&want));
    let plans: Vec<&Value> = calls
        .iter()
        .filter(|c| c["purpose"] == "hmas2.plan")
        .collect();
    for (k, plan) in plans.iter().enumerate().skip(1) {
        let p = user_prompt(plan);
        assert!(p.contains(&format!("version {k}")), "{p}");
        assert!(!p.contains(&format!("version {}", k + 1)));
        assert!(p.contains("AGENT_2: REJECT: I should move to (1, 1)"));
        assert!(!p.contains("AGENT_1: ACCEPT"));
        assert!(p.contains("AGENT_3: move to (5, 5)"));
    }
    let t0 = &steps[0]["trace"];
    assert_eq!(
        t0["rejected_by"],
        json!([["2"], ["2"], ["2"], ["2"]]),
        "{t0}"
    );
    assert_eq!(t0["counts"]["replans"], 3, "{t0}");
    assert_eq!(t0["counts"]["capped_steps"], 1, "{t0}");
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

/// The token guard (WILDFIRE-ORCH `core/token_guard.py`): against a real server on
/// loopback, with a context smaller than HMAS-2's plan and feedback prompts (1,050 tokens:
/// perceptions and executions fit), those prompts are cut in the middle to fit (less the
/// reply's room, a quarter of this small context) and asked again. Each cut call says
/// so in `calls.jsonl`, the episode counts it as a fallback, and no episode fails; a context
/// too small for any prompt still fails each episode with one clear error.
#[test]
fn prompts_too_long_for_the_context_are_cut_to_fit_and_counted() {
    let m = common::Mock::start(&[], &[]);
    let dir = tempfile::tempdir().unwrap();
    let model = ["--base-url", m.url.as_str(), "--model", "sim"];
    let fits = [&model[..], &["--context-tokens", "1050"]].concat();
    let rows = common::compare_policy(
        "hmas2",
        "wildfire",
        &["--set", "level=1"],
        "2",
        &fits,
        dir.path(),
    );
    let calls = common::jsonl(&dir.path().join("episodes/hmas2/0/calls.jsonl"));
    let cut: Vec<&Value> = calls.iter().filter(|c| !c["truncated"].is_null()).collect();
    assert!(!cut.is_empty(), "no prompt was cut");
    for c in &cut {
        assert!(c["purpose"].as_str().unwrap().starts_with("hmas2."), "{c}");
        let t = &c["truncated"];
        assert!(t["from_tokens"].as_u64() > Some(1050), "{t}");
        assert!(t["to_tokens"].as_u64() <= Some(1050 - 1050 / 4), "{t}");
        let user = user_prompt(c);
        assert!(
            user.contains("was cut to fit the model's context"),
            "{user}"
        );
        assert!(c["reply"].is_string() && c["error"].is_null(), "{c}");
    }
    // Perception and execution prompts fit as they are.
    assert!(calls
        .iter()
        .filter(|c| c["purpose"] == "perception")
        .all(|c| c["truncated"].is_null()));
    let fallbacks = rows[0]["fallbacks"].as_u64().unwrap();
    assert!(fallbacks >= cut.len() as u64, "{fallbacks} < {}", cut.len());
    // Recorded, the run replays call for call: the replay refuses the same prompts as the
    // recorded client did, and the guard cuts them the same way.
    let run = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let args = [&["--seeds", "0", "--max-steps", "2"][..], &fits, extra].concat();
        let (ok, _, err) = common::colony(&common::compare_args(
            "wildfire",
            &["--set", "level=1"],
            "hmas2",
            &args,
            &out,
        ));
        assert!(ok, "{name}: {err}");
        common::timeless(&common::summary(&out))
    };
    let rec = dir.path().join("rec");
    let recorded = run("recorded", &["--record", rec.to_str().unwrap()]);
    let replayed = run("replayed", &["--replay", rec.to_str().unwrap()]);
    assert_eq!(replayed, recorded);
    // Too small for anything: the episodes fail, they are not played on cut prompts.
    let tiny = [&model[..], &["--context-tokens", "30"]].concat();
    let out = dir.path().join("tiny");
    let (ok, _, err) = common::colony(&common::compare_args(
        "wildfire",
        &["--set", "level=1"],
        "hmas2",
        &[&["--seeds", "0", "--max-steps", "1"][..], &tiny].concat(),
        &out,
    ));
    assert!(!ok, "{err}");
    let row = common::jsonl(&out.join("episodes.jsonl")).remove(0);
    assert!(
        row["error"]
            .as_str()
            .unwrap()
            .contains("does not fit the context"),
        "{row}"
    );
}

/// A context the client learnt from the server (`GET /props`, no `--context-tokens`) is
/// recorded with the calls, so the replay, which asks no server, refuses and cuts the same
/// prompts and finds every cut one in the cache (before, it stopped at a cache miss).
#[test]
fn a_context_learnt_from_the_server_replays_as_it_ran() {
    let m = common::Mock::start(&["--context-tokens", "1050"], &[]);
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let run = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let args = [
            &[
                "--seeds",
                "0",
                "--max-steps",
                "2",
                "--base-url",
                m.url.as_str(),
                "--model",
                "sim",
            ][..],
            extra,
        ]
        .concat();
        let (ok, _, err) = common::colony(&common::compare_args(
            "wildfire",
            &["--set", "level=1"],
            "hmas2",
            &args,
            &out,
        ));
        assert!(ok, "{name}: {err}");
        (out.clone(), common::timeless(&common::summary(&out)))
    };
    let (out, recorded) = run("recorded", &["--record", rec.to_str().unwrap()]);
    let calls = common::jsonl(&out.join("episodes/hmas2/0/calls.jsonl"));
    assert!(
        calls.iter().any(|c| !c["truncated"].is_null()),
        "the server's context cut no prompt"
    );
    let context: Value =
        serde_json::from_str(&std::fs::read_to_string(rec.join("context.json")).unwrap()).unwrap();
    assert_eq!(context["sim"], 1050, "{context}");
    let (_, replayed) = run("replayed", &["--replay", rec.to_str().unwrap()]);
    assert_eq!(replayed, recorded);
}
