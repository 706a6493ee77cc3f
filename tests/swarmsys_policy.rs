//! The SwarmSys policy (docs/design/swarmsys.md §2) on the simulated model and on scripted
//! models: end to end, trace keys, completion-order independence, modes A/B/C, limits,
//! fallbacks, ablations, failures.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod baseline_support;
use baseline_support::policy_by_name;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baseline_support::{item, json, roster, Broken, Jitter};
use colony::embed::default_embedder;
use colony::llm::{
    ChatModel, ChatRequest, ChatResponse, FinishReason, ModelError, Role as MsgRole, SharedModel,
    SimulatedConfig, SimulatedModel, Usage,
};
use colony::policy::reasoning::{PolicyOutput, Query, ReasoningPolicy};
use colony::policy::swarmsys::reasoning::{
    Mode, ProfileScope, RolesMode, SwarmSys, SwarmSysOptions, SUBEVENTS_MARKER,
};
use colony_qa::Item;
use serde_json::Value;

fn query(i: usize) -> Query {
    Query {
        item: item(i),
        run_seed: 5,
    }
}

fn sim(accuracy: f64) -> SimulatedModel {
    baseline_support::sim(accuracy, SimulatedConfig::default().susceptibility)
}

fn policy(opts: SwarmSysOptions) -> SwarmSys {
    SwarmSys::new(opts, Arc::new(default_embedder())).unwrap()
}

async fn solve(opts: SwarmSysOptions, model: SharedModel, i: usize) -> PolicyOutput {
    policy(opts).solve(&query(i), &roster(model)).await.unwrap()
}

#[tokio::test]
async fn the_simulated_model_drives_it_end_to_end_with_an_auditable_trace() {
    let out = solve(SwarmSysOptions::default(), Arc::new(sim(1.0)), 0).await;
    assert_eq!(out.answer.as_deref(), Some("12"));
    // One round: explorer, 6 workers, validator; the validator terminated it.
    assert_eq!(out.usage.run.calls, 8);
    assert!(out.final_text.contains("TERMINATE: The answer is: 12"));
    let t = &out.trace;
    assert_eq!(t["stop"], "root_closed");
    assert_eq!(
        t["agents"],
        serde_json::json!(["X1", "W1", "W2", "W3", "W4", "W5", "W6", "V1"])
    );
    let r0 = &t["rounds"][0];
    for key in [
        "epsilon",
        "p",
        "matches",
        "verdicts",
        "pheromone",
        "compat",
        "drift",
    ] {
        assert!(r0.get(key).is_some(), "round trace lacks {key}");
    }
    assert_eq!(r0["epsilon"]["W3"], 0.15, "no outcomes yet: ε = ε_min");
    assert_eq!(r0["p"]["W1"]["E1"], 1.0);
    assert_eq!(r0["matches"]["E1"]["workers"].as_array().unwrap().len(), 6);
    assert_eq!(r0["verdicts"]["E1"]["W2"], "valid");
    // Every agent's success deposited η·e_j: pheromone norm 0.2.
    for a in ["X1", "W1", "W6", "V1"] {
        assert!(
            (r0["pheromone"][a].as_f64().unwrap() - 0.2).abs() < 1e-6,
            "{a}"
        );
    }
    let s = r0["compat"]["W1"]["E1"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&s));
    // Profiles follow §2.3 and are written into the trace.
    let w1 = &t["profiles"][1];
    assert_eq!(w1["agent_id"], "W1");
    assert_eq!(w1["performance"]["accepted"], 1);
    assert_eq!(w1["performance"]["history"][0]["outcome"], "validated");
    assert_eq!(t["events"][0]["status"], "validated");
    assert_eq!(t["events"][0]["consensus"]["answer"], "12");
    assert!(
        (t["metrics"]["h_c"].as_f64().unwrap() - 1.0).abs() < 1e-9,
        "balanced shares"
    );
    // Scalar metrics for `colony eval`'s per-policy averages (one round: no drift yet).
    for key in ["clustering_mean", "clustering_final"] {
        assert!(
            t["metrics"][key].as_f64().is_some(),
            "{key}: {}",
            t["metrics"]
        );
    }
    for key in ["drift_mean", "drift_final"] {
        assert!(t["metrics"][key].is_null(), "{key}: {}", t["metrics"]);
    }
    assert!((t["metrics"]["acceptance_mean"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    assert_eq!(t["errors"], serde_json::json!([]));
    // System prompts are the role cards plus the task context.
    for (agent, call) in out.transcript.calls() {
        let system = &call.request.messages[0];
        assert_eq!(system.role, MsgRole::System);
        let card = match &agent.to_string()[..1] {
            "X" => "explorer",
            "W" => "worker",
            _ => "validator",
        };
        assert!(
            system.content.contains(&format!("You are the {card}")) || card == "worker",
            "{agent}"
        );
        assert!(system
            .content
            .contains("Turn order: every round runs explorer"));
    }
}

#[tokio::test]
async fn results_do_not_depend_on_completion_order() {
    for mode in [Mode::Single, Mode::Decomposed] {
        for i in 0..4 {
            let opts = SwarmSysOptions {
                mode,
                ..SwarmSysOptions::default()
            };
            let parallel = solve(opts.clone(), Arc::new(sim(0.4)), i).await;
            let jittered = solve(opts.clone(), Arc::new(Jitter(sim(0.4))), i).await;
            let sequential = solve(
                SwarmSysOptions {
                    sequential: true,
                    ..opts.clone()
                },
                Arc::new(sim(0.4)),
                i,
            )
            .await;
            assert_eq!(json(&parallel), json(&sequential), "{mode:?} item {i}");
            assert_eq!(json(&parallel), json(&jittered), "{mode:?} item {i}");
        }
    }
    // Events in parallel: an exam of 5 questions with 2 explorers and validators.
    let exam = |sequential: bool, model: SharedModel| async move {
        let p = policy(SwarmSysOptions {
            mode: Mode::Exam,
            counts: colony::policy::swarmsys::reasoning::RoleCounts::for_agents(12).unwrap(),
            sequential,
            ..SwarmSysOptions::default()
        });
        let items: Vec<Item> = (0..5).map(item).collect();
        p.prepare(&items, 5);
        let r = roster(model);
        let mut outs = Vec::new();
        for i in 0..5 {
            outs.push(json(&p.solve(&query(i), &r).await.unwrap()));
        }
        outs
    };
    let a = exam(false, Arc::new(Jitter(sim(0.5)))).await;
    let b = exam(true, Arc::new(sim(0.5))).await;
    assert_eq!(a, b);
}

#[tokio::test]
async fn exam_mode_groups_questions_and_splits_usage_exactly() {
    let p = policy(SwarmSysOptions {
        mode: Mode::Exam,
        exam_size: 3,
        ..SwarmSysOptions::default()
    });
    let items: Vec<Item> = (0..5).map(item).collect();
    p.prepare(&items, 5);
    let r = roster(Arc::new(sim(1.0)));
    let outs: Vec<PolicyOutput> = {
        let mut v = Vec::new();
        for i in 0..5 {
            v.push(p.solve(&query(i), &r).await.unwrap());
        }
        v
    };
    let mut exams: BTreeMap<String, (u64, u64, Vec<String>)> = BTreeMap::new();
    for (i, o) in outs.iter().enumerate() {
        assert_eq!(o.answer.as_deref(), Some(item(i).gold.as_str()), "q{i}");
        let e = exams
            .entry(o.trace["exam"].as_str().unwrap().to_string())
            .or_default();
        e.0 += o.usage.run.calls;
        e.2.push(o.trace["event"].as_str().unwrap().to_string());
        if !o.trace["exam_trace"].is_null() {
            let rounds = o.trace["exam_trace"]["rounds"].as_array().unwrap();
            e.1 = rounds.iter().map(|r| r["calls"].as_u64().unwrap()).sum();
            assert_eq!(o.trace["exam_trace"]["stop"], "all_closed");
        }
    }
    assert_eq!(exams.len(), 2, "5 questions in exams of 3 and 2");
    for (exam, (calls, total, events)) in &exams {
        assert_eq!(
            calls, total,
            "{exam}: per-question calls add up to the exam's"
        );
        assert!(events.len() == 3 || events.len() == 2);
    }
}

/// A model that answers by the turn its prompt asks for.
struct ByTurn(Box<dyn Fn(&str) -> String + Send + Sync>);

#[async_trait]
impl ChatModel for ByTurn {
    fn id(&self) -> &str {
        "by-turn"
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let user = request.messages.last().map_or("", |m| m.content.as_str());
        Ok(ChatResponse {
            text: (self.0)(user),
            usage: Usage {
                prompt_tokens: 10,
                completion_tokens: 5,
                ..Usage::default()
            },
            finish_reason: FinishReason::Stop,
            latency: Duration::ZERO,
            model: "by-turn".into(),
            retries: 0,
            cached: false,
            tool_calls: Vec::new(),
            tool_trace: Vec::new(),
        })
    }
}

fn turn_of(user: &str) -> &'static str {
    if user.contains(", the explorer of event") {
        "explorer"
    } else if user.contains(", the validator of event") {
        "validator"
    } else {
        "worker"
    }
}

fn verdicts(user: &str) -> String {
    (1..=6)
        .map(|k| format!("VERDICT W{k}: valid"))
        .filter(|l| user.contains(&format!("### {} (worker)", &l[8..10])))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn mode_b_runs_sub_events_then_the_root_synthesis() {
    let model = ByTurn(Box::new(|user: &str| match turn_of(user) {
        "explorer" if user.contains(SUBEVENTS_MARKER) => "Plan.\n{\"subevents\": [\
            {\"id\": \"a\", \"title\": \"First\", \"description\": \"Count one crate.\", \
             \"depends_on\": [], \"milestone\": \"count\"}, \
            {\"id\": \"b\", \"title\": \"Second\", \"description\": \"Multiply.\", \
             \"depends_on\": [\"a\"]}]}"
            .to_string(),
        "explorer" => "Plan.".to_string(),
        "worker" => "Work. The answer is 12.".to_string(),
        _ if user.contains("Event E1: ")
            && !user.contains("sub-events are closed")
            && !user.contains("Discussion so far") =>
        {
            format!("{}\nNot yet.", verdicts(user))
        }
        _ => format!("{}\nTERMINATE: The answer is: 12", verdicts(user)),
    }));
    let opts = SwarmSysOptions {
        mode: Mode::Decomposed,
        ..SwarmSysOptions::default()
    };
    let out = solve(opts, Arc::new(model), 0).await;
    let t = &out.trace;
    let opened: Vec<Value> = t["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["open"].clone())
        .collect();
    assert_eq!(
        opened,
        vec![
            serde_json::json!(["E1"]),
            serde_json::json!(["E1.1"]),
            serde_json::json!(["E1.2"]),
            serde_json::json!(["E1"]),
        ]
    );
    assert_eq!(t["events"][0]["kind"], "composite");
    assert_eq!(
        t["events"][0]["dependencies"],
        serde_json::json!(["E1.1", "E1.2"])
    );
    assert_eq!(t["events"][2]["dependencies"], serde_json::json!(["E1.1"]));
    assert_eq!(t["rounds"][0]["decomposition"]["E1"]["run"], true);
    assert_eq!(out.answer.as_deref(), Some("12"));
    assert_eq!(t["stop"], "root_closed");
    assert_eq!(t["fallbacks"]["mode_b_to_a"], 0);
    // The synthesis round's explorer sees the sub-events' results.
    let synthesis = out
        .transcript
        .calls()
        .find(|(_, c)| c.tag.as_deref() == Some("round 4 E1 explorer"))
        .map(|(_, c)| c.request.messages.last().unwrap().content.clone())
        .unwrap();
    assert!(synthesis.contains("- E1.1 (First): 12"), "{synthesis}");
    assert!(synthesis.contains("sub-events are closed"));
}

#[tokio::test]
async fn mode_b_falls_back_to_mode_a_on_invalid_json() {
    let model = ByTurn(Box::new(|user: &str| match turn_of(user) {
        "explorer" => "Plan. {\"subevents\": [oops".to_string(),
        "worker" => "Work. The answer is 12.".to_string(),
        _ if user.contains("Discussion so far") => {
            format!("{}\nTERMINATE: The answer is: 12", verdicts(user))
        }
        _ => "Not yet.".to_string(),
    }));
    let opts = SwarmSysOptions {
        mode: Mode::Decomposed,
        ..SwarmSysOptions::default()
    };
    let out = solve(opts, Arc::new(model), 0).await;
    let t = &out.trace;
    assert_eq!(t["fallbacks"]["mode_b_to_a"], 1);
    assert_eq!(t["events"].as_array().unwrap().len(), 1, "no sub-events");
    assert_eq!(t["events"][0]["kind"], "leaf");
    assert_eq!(t["rounds"].as_array().unwrap().len(), 2);
    assert_eq!(out.answer.as_deref(), Some("12"));
    // Round 1 had no VERDICT lines: counted, and no worker outcome.
    assert_eq!(t["fallbacks"]["missing_verdicts"], 6);
    assert_eq!(t["rounds"][0]["verdicts"]["E1"]["W1"], Value::Null);
}

#[tokio::test]
async fn round_and_task_limits_always_end_a_task() {
    // Nobody ever terminates; workers disagree (7 vs 8, then 9): the event fails at its
    // round limit and the plurality answer of the last round is the output.
    let model = || {
        ByTurn(Box::new(|user: &str| match turn_of(user) {
            "worker" if user.contains("You are W1,") || user.contains("You are W2,") => {
                "Mine. The answer is 8.".to_string()
            }
            "worker" if user.contains("You are W6,") => "Odd. The answer is 9.".to_string(),
            "worker" => "Work. The answer is 7.".to_string(),
            _ => "Keep going.".to_string(),
        }))
    };
    let out = solve(SwarmSysOptions::default(), Arc::new(model()), 0).await;
    let t = &out.trace;
    assert_eq!(
        t["rounds"].as_array().unwrap().len(),
        4,
        "4 rounds per event"
    );
    assert_eq!(out.usage.run.calls, 32);
    assert_eq!(t["events"][0]["status"], "failed");
    assert_eq!(t["fallbacks"]["round_limit"], 1);
    assert_eq!(t["output"]["source"], "vote");
    assert_eq!(out.answer.as_deref(), Some("7"));
    assert_eq!(t["stop"], "root_closed");
    // The scalar drift metrics: the last round's mean over agents, and the overall mean.
    let last: Vec<f64> = t["rounds"][3]["drift"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(Value::as_f64)
        .collect();
    assert_eq!(last.len(), 8);
    let want = last.iter().sum::<f64>() / 8.0;
    assert!((t["metrics"]["drift_final"].as_f64().unwrap() - want).abs() < 1e-12);
    assert_eq!(t["metrics"]["drift_mean"], t["metrics"]["drift"]["mean"]);
    // The global limit ends a task whose event still has rounds left.
    let opts = SwarmSysOptions {
        event_rounds: 20,
        max_rounds: 3,
        ..SwarmSysOptions::default()
    };
    let out = solve(opts, Arc::new(model()), 0).await;
    let t = &out.trace;
    assert_eq!(t["rounds"].as_array().unwrap().len(), 3);
    assert_eq!(t["stop"], "max_rounds");
    assert_eq!(t["fallbacks"]["task_end"], 1);
    assert_eq!(out.answer.as_deref(), Some("7"));
    // The explorer and validator of the failed event got a failure outcome.
    assert_eq!(
        t["profiles"][0]["performance"]["recent_outcomes"],
        serde_json::json!([0])
    );
    assert_eq!(t["profiles"][7]["performance"]["accepted"], 0);
    // No worker answer at all: the last validator message is the output.
    let silent = ByTurn(Box::new(|_: &str| "Hmm.".to_string()));
    let out = solve(SwarmSysOptions::default(), Arc::new(silent), 0).await;
    assert_eq!(out.trace["output"]["source"], "validator");
    assert_eq!(out.final_text, "Hmm.");
    assert_eq!(out.answer, None);
}

#[tokio::test]
async fn failed_calls_are_counted_and_never_scored() {
    let out = solve(SwarmSysOptions::default(), Arc::new(Broken), 0).await;
    assert_eq!(out.answer, None);
    assert_eq!(out.final_text, "");
    assert_eq!(
        out.usage.run.failed_calls, 8,
        "a round whose every call failed ends the task"
    );
    assert_eq!(out.trace["stop"], "all_calls_failed");
    let errors = out.trace["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 8);
    assert!(errors[0]["error"]
        .as_str()
        .unwrap()
        .contains("always fails"));
    assert_eq!(errors[0]["turn"], "explorer");
}

#[tokio::test]
async fn ablations_random_roles_and_no_roles() {
    for (spec, roles) in [
        ("swarmsys:roles=random", "random"),
        ("swarmsys:roles=none", "none"),
    ] {
        let p = policy_by_name(spec).unwrap();
        assert_eq!(
            p.name(),
            format!(
                "swarmsys_rand_{}",
                if roles == "none" { "noroles" } else { "roles" }
            )
        );
        let out = p
            .solve(&query(1), &roster(Arc::new(sim(0.8))))
            .await
            .unwrap();
        let t = &out.trace;
        assert_eq!(t["roles"], roles);
        assert!(t["rounds"][0]["compat"].is_null(), "no embeddings");
        assert!(t["instruction"].is_null());
        let first = if roles == "none" { "A2" } else { "W1" };
        assert_eq!(
            t["rounds"][0]["pheromone"][first], 0.0,
            "no pheromone deposits"
        );
        assert!(out.answer.is_some());
        if roles == "none" {
            let ids = t["agents"].as_array().unwrap();
            assert_eq!(ids[0], "A1");
            let turns = t["rounds"][0]["turns"].as_object().unwrap();
            assert_eq!(turns.values().filter(|v| *v == "explorer").count(), 1);
            assert_eq!(turns.values().filter(|v| *v == "worker").count(), 6);
            for (_, call) in out.transcript.calls() {
                assert!(call.request.messages[0]
                    .content
                    .starts_with("You are a member"));
            }
        }
    }
}

#[tokio::test]
async fn run_scope_carries_profiles_across_items() {
    let p = policy(SwarmSysOptions {
        profile_scope: ProfileScope::Run,
        ..SwarmSysOptions::default()
    });
    let r = roster(Arc::new(sim(1.0)));
    let first = p.solve(&query(0), &r).await.unwrap();
    let second = p.solve(&query(1), &r).await.unwrap();
    assert_eq!(first.trace["profiles"][1]["performance"]["submitted"], 1);
    assert_eq!(second.trace["profiles"][1]["performance"]["submitted"], 2);
    assert_eq!(second.trace["rounds"][0]["run_round"], 2);
    // The second item's competence moved: drift is measured against the first item's.
    assert!(second.trace["rounds"][0]["drift"]["W1"].as_f64().unwrap() > 0.0);
    let fresh = policy(SwarmSysOptions::default())
        .solve(&query(1), &r)
        .await
        .unwrap();
    assert_eq!(fresh.trace["profiles"][1]["performance"]["submitted"], 1);
    let _ = RolesMode::Matched;
}
