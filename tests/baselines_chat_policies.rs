//! The Self-Refine, MultiPersona, AutoGen and MAD baselines (docs/design/baselines.md
//! §3.8, §3.10–§3.12): their call pattern per item under a scripted model, early stops,
//! counted fallbacks, failures, options, and end-to-end runs on the simulated model.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod baseline_support;

use std::sync::Arc;

use baseline_support::*;
use colony::llm::ChatRequest;
use colony::policy::reasoning::autogen::{CRITIC_MARKER, SELECT_MARKER};
use colony::policy::reasoning::mad::{JUDGE_MARKER, MODERATOR_MARKER};
use colony::policy::reasoning::self_refine::FEEDBACK_MARKER;
use colony::policy::reasoning::ReasoningPolicy;
use serde_json::json;

const NEW: [&str; 6] = [
    "self_refine",
    "multipersona",
    "autogen",
    "mad",
    "gptswarm",
    "gdesigner",
];

fn new_baselines() -> Vec<Box<dyn ReasoningPolicy>> {
    NEW.iter().map(|p| policy_by_name(p).unwrap()).collect()
}

/// Calls per agent, `agent_0` first.
fn per_agent(out: &colony::policy::reasoning::PolicyOutput) -> Vec<usize> {
    let mut n = vec![0; 4];
    for (a, _) in out.transcript.calls() {
        let i: usize = a.as_str().trim_start_matches("agent_").parse().unwrap();
        n[i] += 1;
    }
    while n.last() == Some(&0) {
        n.pop();
    }
    n
}

/// The user messages of `agent`'s calls, in its order.
fn prompts_of(out: &colony::policy::reasoning::PolicyOutput, agent: &str) -> Vec<String> {
    calls(out)
        .into_iter()
        .filter(|(a, _)| a == agent)
        .map(|(_, u)| u)
        .collect()
}

/// Each call's (agent, user message), by agent and then in the agent's order.
fn calls(out: &colony::policy::reasoning::PolicyOutput) -> Vec<(String, String)> {
    out.transcript
        .calls()
        .map(|(a, c)| (a.to_string(), user(&c.request).to_string()))
        .collect()
}

// ---------------------------------------------------------------- shared behaviour

#[tokio::test]
async fn each_runs_end_to_end_on_the_simulated_model_and_ignores_completion_order() {
    for policy in new_baselines() {
        let mut right = 0;
        for i in 0..6 {
            let a = policy
                .solve(&query(i), &roster(Arc::new(sim(0.6, 0.4))))
                .await
                .unwrap();
            let b = policy
                .solve(&query(i), &roster(Arc::new(Jitter(sim(0.6, 0.4)))))
                .await
                .unwrap();
            assert_eq!(json(&a), json(&b), "{} item {i}", policy.name());
            assert_eq!(a.trace["errors"], json!([]), "{}", policy.name());
            if let Some(f) = a.trace.get("fallbacks") {
                assert_eq!(f, 0, "{} item {i}: {}", policy.name(), a.trace);
            }
            assert!(
                !a.trace
                    .get("fallback")
                    .and_then(|f| f.as_bool())
                    .unwrap_or(false),
                "{}: {}",
                policy.name(),
                a.trace
            );
            right += usize::from(a.answer.as_deref() == Some(item(i).gold.as_str()));
        }
        assert!(right >= 2, "{}: {right} of 6", policy.name());
    }
}

#[tokio::test]
async fn failed_calls_are_counted_and_leave_no_answer() {
    for policy in new_baselines() {
        let out = policy
            .solve(&query(0), &roster(Arc::new(Broken)))
            .await
            .unwrap();
        assert_eq!(out.answer, None, "{}", policy.name());
        let errors = out.trace["errors"].as_array().unwrap();
        assert!(!errors.is_empty(), "{}", policy.name());
        assert_eq!(out.usage.run.failed_calls, errors.len() as u64);
        assert_eq!(out.usage.run.calls, 0);
    }
}

#[test]
fn options_and_bounds() {
    for spec in [
        "self_refine:iterations=2",
        "multipersona:demonstrations=0",
        "spp",
        "autogen:rounds=5",
        "mad:rounds=1",
    ] {
        assert!(policy_by_name(spec).is_ok(), "{spec}");
    }
    for (spec, needle) in [
        (
            "self_refine:iterations=11",
            "option `iterations` must be from 1 to 10",
        ),
        (
            "multipersona:demonstrations=3",
            "option `demonstrations` must be a whole number in 0..=2",
        ),
        ("autogen:rounds=21", "option `rounds` must be from 1 to 20"),
        ("mad:rounds=11", "option `rounds` must be from 1 to 10"),
        ("mad:judge=no", "unknown option `judge`"),
    ] {
        let err = policy_by_name(spec).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains(needle)),
            "{spec}: {err:?}"
        );
    }
}

// ---------------------------------------------------------------- Self-Refine

fn refine_script(r: &ChatRequest) -> String {
    let u = user(r);
    if u.contains(FEEDBACK_MARKER) {
        // The second refinement is right.
        return if u.contains("SECOND") {
            "All steps hold. [Stop]".into()
        } else {
            "Step 1 multiplies wrongly.".into()
        };
    }
    if u.contains("Attempt 2:") {
        "SECOND. The answer is 12.".into()
    } else if u.contains("Attempt 1:") {
        "FIRST. The answer is 13.".into()
    } else {
        "Draft. The answer is 11.".into()
    }
}

#[tokio::test]
async fn self_refine_answers_then_feedback_and_refine_until_stop() {
    let out = policy_by_name("self_refine")
        .unwrap()
        .solve(&query(0), &roster(Arc::new(Scripted(refine_script))))
        .await
        .unwrap();
    // answer, feedback, refine, feedback, refine, feedback (stop): six calls, one agent.
    let c = calls(&out);
    assert_eq!(c.len(), 6, "{:?}", out.trace);
    assert_eq!(per_agent(&out), [6]);
    let kinds: Vec<bool> = c.iter().map(|(_, u)| u.contains(FEEDBACK_MARKER)).collect();
    assert_eq!(kinds, [false, true, false, true, false, true]);
    // The second refinement sees both earlier answers and both feedbacks.
    assert!(
        c[4].1.contains("Draft.") && c[4].1.contains("FIRST.") && c[4].1.contains("Attempt 2:")
    );
    assert_eq!(out.answer.as_deref(), Some("12"));
    assert_eq!(out.trace["stop"], "feedback");
    assert_eq!(out.trace["refinements"], 2);
    assert_eq!(out.trace["answers"], json!(["11", "13", "12"]));
    // Without a stop the iteration cap ends it: 1 + 2·iterations calls.
    fn never_stops(r: &ChatRequest) -> String {
        if user(r).contains(FEEDBACK_MARKER) {
            "Try again.".into()
        } else {
            "The answer is 11.".into()
        }
    }
    let out = policy_by_name("self_refine:iterations=3")
        .unwrap()
        .solve(&query(0), &roster(Arc::new(Scripted(never_stops))))
        .await
        .unwrap();
    assert_eq!(out.usage.run.calls, 7);
    assert_eq!(out.trace["stop"], "iterations");
}

// ---------------------------------------------------------------- MultiPersona

#[tokio::test]
async fn multipersona_makes_one_call_and_reads_the_final_answer_line() {
    fn spp(_: &ChatRequest) -> String {
        "Participants: AI Assistant (you); Accountant; Clerk\n\nAccountant: I think 13.\n\
         Clerk: No, 3 × 4 = 12.\n\nFinal answer: 12"
            .into()
    }
    let out = policy_by_name("multipersona")
        .unwrap()
        .solve(&query(0), &roster(Arc::new(Scripted(spp))))
        .await
        .unwrap();
    let c = calls(&out);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].1.matches("Example task:").count(), 2);
    assert!(c[0].1.contains(&item(0).question));
    assert_eq!(out.answer.as_deref(), Some("12"));
    assert_eq!(out.trace["personas"], 3);
    assert_eq!(out.trace["fallback"], false);
    fn plain(_: &ChatRequest) -> String {
        "The answer is 12.".into()
    }
    let out = policy_by_name("multipersona:demonstrations=0")
        .unwrap()
        .solve(&query(0), &roster(Arc::new(Scripted(plain))))
        .await
        .unwrap();
    assert_eq!(out.answer.as_deref(), Some("12"));
    assert_eq!(
        out.trace["fallback"], true,
        "no Final answer line is a counted fallback"
    );
}

// ---------------------------------------------------------------- AutoGen

fn autogen_script(r: &ChatRequest) -> String {
    let u = user(r);
    if u.contains(SELECT_MARKER) {
        // The manager alternates: the critic after the assistant and back.
        let last = u.rfind("<message from=\"").map(|i| &u[i..]).unwrap_or("");
        return if last.starts_with("<message from=\"assistant\"") {
            "critic".into()
        } else {
            "I pick the assistant.".into()
        };
    }
    if u.contains(CRITIC_MARKER) {
        return if u.contains("REVISED") {
            "Correct now. TERMINATE".into()
        } else {
            "The product is wrong.".into()
        };
    }
    if u.contains("The product is wrong.") {
        "REVISED. The answer is 12.".into()
    } else {
        "First try. The answer is 11.".into()
    }
}

#[tokio::test]
async fn autogen_manager_selects_speakers_until_terminate_or_the_cap() {
    let out = policy_by_name("autogen:rounds=6")
        .unwrap()
        .solve(&query(0), &roster(Arc::new(Scripted(autogen_script))))
        .await
        .unwrap();
    // assistant; select, critic; select, assistant; select, critic (TERMINATE).
    assert_eq!(per_agent(&out), [2, 2, 3]);
    assert_eq!(
        out.trace["speakers"],
        json!(["assistant", "critic", "assistant", "critic"])
    );
    assert_eq!(out.trace["stop"], "terminate");
    assert_eq!(out.answer.as_deref(), Some("12"));
    assert!(
        out.final_text.starts_with("REVISED"),
        "the assistant's last message"
    );
    // Every speaker reads the whole chat, task first.
    let critic = prompts_of(&out, "agent_1");
    assert!(
        critic[1].contains("<message from=\"user_proxy\">") && critic[1].contains("First try.")
    );
    assert!(critic[1].contains("REVISED"));
    // The SelfOrg setting (3 messages): the cap ends the chat before the critic's approval.
    let out = policy_by_name("autogen")
        .unwrap()
        .solve(&query(0), &roster(Arc::new(Scripted(autogen_script))))
        .await
        .unwrap();
    assert_eq!(out.usage.run.calls, 5);
    assert_eq!(out.trace["stop"], "rounds");
    // A manager reply naming no role falls back to alternation, counted.
    fn mute_manager(r: &ChatRequest) -> String {
        if user(r).contains(SELECT_MARKER) {
            "hmm".into()
        } else {
            autogen_script(r)
        }
    }
    let out = policy_by_name("autogen:rounds=4")
        .unwrap()
        .solve(&query(0), &roster(Arc::new(Scripted(mute_manager))))
        .await
        .unwrap();
    assert_eq!(out.trace["fallbacks"], 3);
    assert_eq!(
        out.trace["speakers"],
        json!(["assistant", "critic", "assistant", "critic"])
    );
}

// ---------------------------------------------------------------- MAD

fn mad_script(r: &ChatRequest) -> String {
    let u = user(r);
    if u.contains(MODERATOR_MARKER) {
        return if u.contains("Round 2 of the debate") {
            r#"{"Whether there is a preference": "Yes", "Supported Side": "Negative", "Reason": "sound", "debate_answer": "12"}"#.into()
        } else {
            r#"{"Whether there is a preference": "No", "Supported Side": "", "Reason": "", "debate_answer": ""}"#.into()
        };
    }
    if u.contains("You disagree with my answer") {
        "No: 3 × 4 = 12. The answer is 12.".into()
    } else {
        "The answer is 11.".into()
    }
}

#[tokio::test]
async fn mad_debates_in_turn_and_the_moderator_ends_it_early() {
    let out = policy_by_name("mad")
        .unwrap()
        .solve(&query(0), &roster(Arc::new(Scripted(mad_script))))
        .await
        .unwrap();
    // Two rounds of affirmative, negative, moderator; the round-2 verdict ends it.
    assert_eq!(per_agent(&out), [2, 2, 2]);
    assert_eq!(out.trace["decided_by"], "moderator");
    assert_eq!(out.answer.as_deref(), Some("12"));
    assert_eq!(out.trace["fallbacks"], 0);
    // The debaters and the moderator get the meta prompts as system prompts, with the topic.
    for (agent, call) in out.transcript.calls() {
        let s = system(&call.request);
        assert!(s.contains(&item(0).question), "{agent}");
        let debater = s.starts_with("You are a debater");
        assert_eq!(debater, agent.as_str() != "agent_2", "{agent}: {s}");
    }
    // Round 2: each side answers the other's latest argument.
    let aff = prompts_of(&out, "agent_0");
    assert!(aff[1].contains("3 × 4 = 12") && aff[1].contains("Do you agree"));
    let neg = prompts_of(&out, "agent_1");
    assert!(neg[0].contains("The answer is 11.") && neg[0].contains("You disagree"));
    // No preference in any round: the two-stage judge decides.
    fn undecided(r: &ChatRequest) -> String {
        let u = user(r);
        if u.contains(MODERATOR_MARKER) {
            "no preference, sorry".into()
        } else if u.contains(JUDGE_MARKER) {
            r#"{"Reason": "arithmetic", "debate_answer": "12"}"#.into()
        } else {
            mad_script(r)
        }
    }
    let out = policy_by_name("mad:rounds=2")
        .unwrap()
        .solve(&query(0), &roster(Arc::new(Scripted(undecided))))
        .await
        .unwrap();
    assert_eq!(out.usage.run.calls, 3 * 2 + 2);
    assert_eq!(out.trace["decided_by"], "judge");
    assert_eq!(out.answer.as_deref(), Some("12"));
    // Two unreadable moderator replies, counted.
    assert_eq!(out.trace["fallbacks"], 2);
}

// ---------------------------------------------------------------- GPTSwarm

#[tokio::test]
async fn gptswarm_runs_its_nodes_in_topological_layers_over_the_drawn_graph() {
    use colony::policy::reasoning::gptswarm::edges::EdgeModel;
    fn node(r: &ChatRequest) -> String {
        let shown = user(r).matches("One agent solution:").count();
        format!("I saw {shown}. The answer is {}.", 12 + shown)
    }
    let policy = policy_by_name("gptswarm").unwrap();
    // Every edge on: a chain of four layers, the last node seeing all three others.
    let mut all_on = EdgeModel::new(4, 0.5);
    all_on.logits.iter_mut().for_each(|l| *l = 40.0);
    let state = json!({"method": "gptswarm", "agents": 4, "edges": all_on.edges()});
    policy.load_learnt(&state).unwrap();
    let out = policy
        .solve(&query(0), &roster(Arc::new(Scripted(node))))
        .await
        .unwrap();
    assert_eq!(per_agent(&out), [1, 1, 1, 1]);
    assert_eq!(out.trace["depth"], json!([0, 1, 2, 3]));
    assert_eq!(out.trace["edges"].as_array().unwrap().len(), 6);
    assert_eq!(out.trace["trained"], true);
    assert_eq!(out.trace["answers"], json!(["12", "13", "14", "15"]));
    assert!(prompts_of(&out, "agent_3")[0].contains("I saw 2."));
    // Every edge off: four independent answers in one layer, then the vote.
    let mut all_off = all_on.clone();
    all_off.logits.iter_mut().for_each(|l| *l = -40.0);
    let state = json!({"method": "gptswarm", "agents": 4, "edges": all_off.edges()});
    policy.load_learnt(&state).unwrap();
    let out = policy
        .solve(&query(0), &roster(Arc::new(Scripted(node))))
        .await
        .unwrap();
    assert_eq!(out.trace["depth"], json!([0, 0, 0, 0]));
    assert_eq!(out.answer.as_deref(), Some("12"));
}

#[tokio::test]
async fn gdesigner_gives_each_agent_its_role_and_records_the_edge_probabilities() {
    fn node(r: &ChatRequest) -> String {
        let _ = r;
        "The answer is 12.".into()
    }
    let policy = policy_by_name("gdesigner:hidden=8,latent=4").unwrap();
    let out = policy
        .solve(&query(0), &roster(Arc::new(Scripted(node))))
        .await
        .unwrap();
    assert_eq!(per_agent(&out), [1, 1, 1, 1]);
    assert_eq!(out.trace["trained"], false);
    let p = out.trace["probabilities"].as_array().unwrap();
    assert_eq!(p.len(), 6);
    assert!(p.iter().all(|q| (0.0..=1.0).contains(&q.as_f64().unwrap())));
    assert!(prompts_of(&out, "agent_3")[0].starts_with("Your role: An inspector"));
    assert_eq!(out.answer.as_deref(), Some("12"));
    // Untrained, the generator starts near 0.5 on every edge (Glorot weights, unit-length
    // embeddings): an uninformed but valid distribution.
    assert!(
        p.iter().all(|q| (q.as_f64().unwrap() - 0.5).abs() < 0.2),
        "{p:?}"
    );
}
