//! Baseline reasoning policies (docs/design/baselines.md §3.1–§3.4) against the simulated model.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod baseline_support;
use baseline_support::policy_by_name;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baseline_support::Broken;
use colony::llm::{
    AnswerKey, ChatModel, ChatRequest, ChatResponse, FinishReason, ModelError, SharedModel,
    SimulatedConfig, SimulatedModel, Usage,
};
use colony::policy::reasoning::{
    ChainOfThought, Debate, Member, PolicyOutput, Query, ReasoningPolicy, Roster, SelfConsistency,
    Single, MASLAB_SAMPLING,
};
use colony::runtime::RoleCard;
use colony_qa::{AnswerType, Item};

const QUESTIONS: [(&str, &str, &str); 3] = [
    (
        "q1",
        "Tom has 3 apples and buys 4 more. How many apples does he have?",
        "7",
    ),
    (
        "q2",
        "A box holds 12 eggs. How many eggs are in 5 boxes?",
        "60",
    ),
    (
        "q3",
        "Sara reads 15 pages a day. How many pages does she read in 6 days?",
        "90",
    ),
];

fn item(i: usize) -> Item {
    let (id, question, gold) = QUESTIONS[i];
    Item {
        id: id.into(),
        question: question.into(),
        choices: vec![],
        gold: gold.into(),
        answer_type: AnswerType::Numeric,
        meta: BTreeMap::new(),
    }
}

fn query(i: usize) -> Query {
    Query {
        item: item(i),
        run_seed: 42,
    }
}

fn sim(accuracy: f64, susceptibility: f64) -> SharedModel {
    let mut key = AnswerKey::new();
    for (_, q, gold) in QUESTIONS {
        key.insert(q, gold);
    }
    Arc::new(SimulatedModel::new(SimulatedConfig {
        accuracy,
        susceptibility,
        answer_key: key,
        responders: colony::registry::Registry::builtin().responders(),
        ..SimulatedConfig::default()
    }))
}

fn roster(model: SharedModel, n: usize) -> Roster {
    Roster {
        members: (0..n)
            .map(|_| Member::new(Arc::new(RoleCard::new("assistant", "")), model.clone()))
            .collect(),
        sampling: MASLAB_SAMPLING,
    }
}

fn policies() -> Vec<(Box<dyn ReasoningPolicy>, u64)> {
    vec![
        (Box::new(Single), 1),
        (Box::new(ChainOfThought), 1),
        (Box::new(SelfConsistency::default()), 5),
        (Box::new(Debate::default()), 6),
    ]
}

/// User messages of agent `agent`'s calls tagged `tag`.
fn prompts(out: &PolicyOutput, agent: &str) -> Vec<(Option<String>, ChatRequest, String)> {
    out.transcript
        .calls()
        .filter(|(a, _)| a.as_str() == agent)
        .map(|(_, c)| (c.tag.clone(), c.request.clone(), c.text.clone()))
        .collect()
}

#[tokio::test]
async fn perfect_agents_return_the_gold_with_the_right_number_of_calls() {
    for (policy, calls) in policies() {
        for (i, (_, _, gold)) in QUESTIONS.iter().enumerate() {
            let out = policy
                .solve(&query(i), &roster(sim(1.0, 0.0), 1))
                .await
                .unwrap();
            assert_eq!(out.answer.as_deref(), Some(*gold), "{}", policy.name());
            assert!(out.final_text.contains(gold));
            assert_eq!(out.usage.run.calls, calls, "{}", policy.name());
            assert_eq!(out.transcript.calls().count() as u64, calls);
            assert_eq!(out.trace["errors"], serde_json::json!([]));
        }
    }
}

#[tokio::test]
async fn hopeless_agents_are_wrong() {
    for (policy, _) in policies() {
        for (i, (_, _, gold)) in QUESTIONS.iter().enumerate() {
            let out = policy
                .solve(&query(i), &roster(sim(0.0, 0.0), 3))
                .await
                .unwrap();
            let answer = out.answer.expect("an answer is extracted");
            assert_ne!(answer, *gold, "{}", policy.name());
        }
    }
}

#[tokio::test]
async fn prompts_follow_the_spec() {
    let q = query(0);
    let single = Single.solve(&q, &roster(sim(1.0, 0.0), 1)).await.unwrap();
    let (_, request, _) = &prompts(&single, "agent_0")[0];
    assert_eq!(request.messages.last().unwrap().content, q.text());
    assert_eq!(request.sampling.temperature, Some(0.5));
    assert_eq!(request.sampling.max_tokens, Some(2048));
    let cot = ChainOfThought
        .solve(&q, &roster(sim(1.0, 0.0), 1))
        .await
        .unwrap();
    let (_, request, _) = &prompts(&cot, "agent_0")[0];
    let text = &request.messages.last().unwrap().content;
    assert!(text.starts_with(&format!(
        "{}\n\nLet's think step by step.\n\n",
        q.item.question
    )));
    assert!(text.ends_with(q.text().strip_prefix(q.item.question.as_str()).unwrap()));
}

/// Answers `answers[sample_index]` (`None` = no extractable answer).
struct BySample(Vec<Option<&'static str>>);

#[async_trait]
impl ChatModel for BySample {
    fn id(&self) -> &str {
        "by-sample"
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let i = request.sample_index as usize;
        let name = ["zero", "one", "two", "three", "four"][i];
        let text = match self.0[i] {
            Some(a) => format!("Sample {name}. The answer is {a}."),
            None => format!("Sample {name}. I am not sure."),
        };
        Ok(ChatResponse {
            text,
            usage: Usage {
                prompt_tokens: 1,
                completion_tokens: 1,
                ..Usage::default()
            },
            finish_reason: FinishReason::Stop,
            latency: Duration::ZERO,
            model: "by-sample".into(),
            retries: 0,
            cached: false,
            tool_calls: Vec::new(),
            tool_trace: Vec::new(),
        })
    }
}

#[tokio::test]
async fn self_consistency_majority_and_tie_break() {
    let sc = SelfConsistency::new(5).unwrap();
    let run = |answers: Vec<Option<&'static str>>| {
        let model: SharedModel = Arc::new(BySample(answers));
        async move { sc.solve(&query(0), &roster(model, 1)).await.unwrap() }
    };
    // Majority: 5 (samples 1, 2 and "5.0" at 4, equivalent) beats 3.
    let out = run(vec![Some("3"), Some("5"), Some("5"), None, Some("5.0")]).await;
    assert_eq!(out.answer.as_deref(), Some("5"));
    assert!(out.final_text.starts_with("Sample one."));
    assert_eq!(
        out.trace["clusters"][1]["members"],
        serde_json::json!([1, 2, 4])
    );
    // Tie 2–2: the cluster whose first member has the lowest sample index wins.
    let out = run(vec![None, Some("9"), Some("4"), Some("4"), Some("9")]).await;
    assert_eq!(out.answer.as_deref(), Some("9"));
    assert!(out.final_text.starts_with("Sample one."));
    // Nobody answers: sample 0.
    let out = run(vec![None, None, None, None, None]).await;
    assert_eq!(out.answer, None);
    assert!(out.final_text.starts_with("Sample zero."));
}

#[tokio::test]
async fn debate_rounds_see_the_other_agents_previous_answers() {
    let q = query(1);
    let out = Debate::new(3, 3)
        .unwrap()
        .solve(&q, &roster(sim(0.5, 0.3), 3))
        .await
        .unwrap();
    assert_eq!(out.usage.run.calls, 9);
    let calls: Vec<_> = (0..3)
        .map(|i| prompts(&out, &format!("agent_{i}")))
        .collect();
    for (i, own) in calls.iter().enumerate() {
        assert_eq!(own.len(), 3);
        assert_eq!(own[0].1.messages.last().unwrap().content, q.text());
        for r in 1..3 {
            let (tag, request, _) = &own[r];
            assert_eq!(tag.as_deref(), Some(format!("round {r}").as_str()));
            // Own history: every earlier prompt and reply, then the new prompt.
            assert_eq!(request.messages.len(), 2 * r + 1);
            assert_eq!(request.messages[2 * r - 1].content, own[r - 1].2);
            let prompt = &request.messages.last().unwrap().content;
            assert_eq!(prompt.matches("One agent solution").count(), 2);
            for (j, other) in calls.iter().enumerate().filter(|(j, _)| *j != i) {
                assert!(
                    prompt.contains(&other[r - 1].2),
                    "agent {i} round {r} misses agent {j}"
                );
            }
            assert!(prompt.contains(&q.item.question));
        }
    }
    let answers = out.trace["answers"].as_array().unwrap();
    assert_eq!(answers.len(), 3);
    assert_eq!(
        out.answer.as_ref().map(|a| serde_json::json!(a)).unwrap(),
        answers[2][out.trace["chosen_agent"].as_u64().unwrap() as usize]
    );
}

#[tokio::test]
async fn runs_are_deterministic() {
    for (policy, _) in policies() {
        for i in 0..QUESTIONS.len() {
            let a = policy
                .solve(&query(i), &roster(sim(0.4, 0.4), 3))
                .await
                .unwrap();
            let b = policy
                .solve(&query(i), &roster(sim(0.4, 0.4), 3))
                .await
                .unwrap();
            assert_eq!(
                serde_json::to_string(&a).unwrap(),
                serde_json::to_string(&b).unwrap(),
                "{}",
                policy.name()
            );
        }
    }
}

#[tokio::test]
async fn failing_models_give_an_output_with_the_errors_recorded() {
    for (policy, calls) in policies() {
        let out = policy
            .solve(&query(0), &roster(Arc::new(Broken), 3))
            .await
            .unwrap();
        assert_eq!(out.answer, None, "{}", policy.name());
        assert_eq!(out.final_text, "");
        let errors = out.trace["errors"].as_array().unwrap();
        assert_eq!(errors.len() as u64, calls, "{}", policy.name());
        assert!(errors[0]["error"]
            .as_str()
            .unwrap()
            .contains("always fails"));
        assert_eq!(out.usage.run.failed_calls, calls);
    }
}

#[test]
fn registry_parses_options_and_rejects_bad_ones() {
    for (spec, name) in [
        ("single", "single"),
        ("io", "single"),
        ("cot", "cot"),
        ("self_consistency:k=3", "self_consistency"),
        ("sc", "self_consistency"),
        (" debate:agents=4, rounds=3 ", "debate"),
    ] {
        assert_eq!(policy_by_name(spec).unwrap().name(), name, "{spec}");
    }
    for (spec, needle) in [
        ("majority", "unknown policy `majority`"),
        ("cot:k=2", "unknown option `k`"),
        ("debate:agents=0", "positive integer"),
        ("debate:agents=three", "positive integer"),
        ("debate:agents", "needs a value"),
        ("self_consistency:k=2,k=3", "twice"),
    ] {
        let err = policy_by_name(spec).err().expect(spec).to_string();
        assert!(err.contains(needle), "{spec}: {err}");
    }
}

#[tokio::test]
async fn registry_options_take_effect() {
    let sc = policy_by_name("self_consistency:k=3").unwrap();
    let out = sc
        .solve(&query(0), &roster(sim(1.0, 0.0), 1))
        .await
        .unwrap();
    assert_eq!(out.usage.run.calls, 3);
    let debate = policy_by_name("debate:agents=2,rounds=3").unwrap();
    let out = debate
        .solve(&query(0), &roster(sim(1.0, 0.0), 1))
        .await
        .unwrap();
    assert_eq!(out.usage.run.calls, 6);
}

#[test]
fn selforg_role_pool_is_complete_and_ordered() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/roles/selforg");
    let cards = RoleCard::load_dir(dir).unwrap();
    let mut pool: Vec<_> = cards.values().collect();
    pool.sort_by_key(|c| c.params["pool_index"].as_integer().unwrap());
    // The shipped files are the compiled-in pool (whose order its unit test pins), card for
    // card, in `pool_index` order.
    let compiled = colony::policy::reasoning::role_pool::role_pool().unwrap();
    let names =
        |cards: &[&RoleCard]| -> Vec<String> { cards.iter().map(|c| c.name.clone()).collect() };
    let compiled: Vec<&RoleCard> = compiled.iter().map(|c| &**c).collect();
    assert_eq!(names(&pool), names(&compiled));
    assert_eq!(pool.len(), 8);
    for (file, built_in) in pool.iter().zip(&compiled) {
        assert_eq!(file.system_prompt, built_in.system_prompt, "{}", file.name);
    }
    assert_eq!(
        pool[6].system_prompt,
        "You are a lawyer. You are good at law, politics, and history."
    );
}

/// Design §3.1–3.4: baselines send no system prompt even when the roster has role cards;
/// SelfOrg (§1.3) gives each agent its role card's system prompt.
#[tokio::test]
async fn baselines_send_no_system_prompt_and_selforg_sends_the_role_cards() {
    let model = sim(0.6, 0.4);
    let cards = [
        "You are an assistant.",
        "You are a programmer.",
        "You are a mathematician.",
        "You are an economist.",
    ];
    let with_roles = Roster {
        members: cards
            .iter()
            .map(|c| Member::new(Arc::new(RoleCard::new("r", *c)), model.clone()))
            .collect(),
        sampling: MASLAB_SAMPLING,
    };
    let is_system = |r: &ChatRequest| {
        r.messages
            .iter()
            .filter(|m| m.role == colony::llm::Role::System)
            .map(|m| m.content.clone())
            .collect::<Vec<_>>()
    };
    for (policy, _) in policies() {
        let out = policy.solve(&query(0), &with_roles).await.unwrap();
        for (_, call) in out.transcript.calls() {
            assert!(
                is_system(&call.request).is_empty(),
                "{} sent a system prompt",
                policy.name()
            );
        }
    }
    let selforg = colony::policy::selforg::reasoning::SelfOrg::new(
        Default::default(),
        Arc::new(colony::embed::default_embedder()),
    )
    .unwrap();
    let out = selforg.solve(&query(0), &with_roles).await.unwrap();
    assert_eq!(out.transcript.calls().count(), 12);
    for (agent, call) in out.transcript.calls() {
        let i: usize = agent
            .to_string()
            .trim_start_matches(|c: char| !c.is_ascii_digit())
            .parse()
            .unwrap();
        assert_eq!(
            is_system(&call.request),
            vec![cards[i].to_string()],
            "agent {agent}"
        );
    }
}
