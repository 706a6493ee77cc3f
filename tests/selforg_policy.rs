//! The SelfOrg policy on the simulated model: DAG-parallel rounds equal sequential ones,
//! round and call structure, prompts, early stopping, determinism.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use colony::embed::default_embedder;
use colony::llm::{AnswerKey, SharedModel, SimulatedConfig, SimulatedModel};
use colony::policy::reasoning::{
    Member, PolicyOutput, Query, ReasoningPolicy, Roster, MASLAB_SAMPLING,
};
use colony::policy::selforg::reasoning::{SelfOrg, SelfOrgOptions};
use colony::runtime::{Event, RoleCard};
use colony_qa::{AnswerType, Item};

fn item(i: usize) -> Item {
    Item {
        id: format!("q{i}"),
        question: format!(
            "A shop sells {} pens at 3 dollars each. How many dollars in total?",
            i + 2
        ),
        choices: vec![],
        gold: ((i + 2) * 3).to_string(),
        answer_type: AnswerType::Numeric,
        meta: Default::default(),
    }
}

fn roster(accuracy: f64) -> Roster {
    let mut key = AnswerKey::new();
    for i in 0..10 {
        let it = item(i);
        key.insert(&it.question, it.gold);
    }
    let model: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig {
        accuracy,
        answer_key: key,
        seed: 11,
        responders: colony::registry::Registry::builtin().responders(),
        ..SimulatedConfig::default()
    }));
    let members = ["assistant", "programmer", "mathematician", "economist"]
        .iter()
        .map(|r| {
            Member::new(
                Arc::new(RoleCard::new(*r, format!("You are a {r}."))),
                model.clone(),
            )
        })
        .collect();
    Roster {
        members,
        sampling: MASLAB_SAMPLING,
    }
}

async fn solve(opts: SelfOrgOptions, accuracy: f64, i: usize) -> PolicyOutput {
    let policy = SelfOrg::new(opts, Arc::new(default_embedder())).unwrap();
    policy
        .solve(
            &Query {
                item: item(i),
                run_seed: 3,
            },
            &roster(accuracy),
        )
        .await
        .unwrap()
}

fn json(o: &PolicyOutput) -> String {
    serde_json::to_string(o).unwrap()
}

#[tokio::test]
async fn dag_parallel_rounds_equal_sequential_rounds() {
    for i in 0..6 {
        let parallel = solve(SelfOrgOptions::default(), 0.5, i).await;
        let sequential = solve(
            SelfOrgOptions {
                sequential: true,
                ..SelfOrgOptions::default()
            },
            0.5,
            i,
        )
        .await;
        assert_eq!(json(&parallel), json(&sequential), "item {i}");
        // And run to run.
        assert_eq!(
            json(&parallel),
            json(&solve(SelfOrgOptions::default(), 0.5, i).await)
        );
    }
}

#[tokio::test]
async fn three_rounds_of_four_agents_with_graph_traces() {
    let out = solve(SelfOrgOptions::default(), 1.0, 0).await;
    assert_eq!(out.usage.run.calls, 12, "N × rounds calls");
    assert_eq!(out.answer.as_deref(), Some("6"));
    let rounds = out.trace["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 3);
    for r in rounds {
        assert_eq!(r["psi"].as_array().unwrap().len(), 4);
        assert_eq!(r["order"].as_array().unwrap().len(), 4);
        assert!(r["leader"].is_u64());
    }
    assert_eq!(out.trace["stop"], "max_rounds");
    assert_eq!(out.trace["embedder"], "hashing-v1-512");
}

#[tokio::test]
async fn round_one_prompts_follow_the_graph() {
    let out = solve(SelfOrgOptions::default(), 0.5, 1).await;
    let g0 = &out.trace["rounds"][0];
    let leader = g0["leader"].as_u64().unwrap() as usize;
    let edges: Vec<(usize, usize)> = serde_json::from_value(g0["edges"].clone()).unwrap();
    let round1: Vec<(String, String)> = out
        .transcript
        .calls()
        .filter(|(_, c)| c.tag.as_deref() == Some("round 1"))
        .map(|(_, c)| {
            (
                c.request.messages.last().unwrap().content.clone(),
                c.text.clone(),
            )
        })
        .collect();
    assert_eq!(round1.len(), 4);
    let prompt_of = |agent: usize| {
        out.transcript
            .entries()
            .iter()
            .filter(|e| e.agent.as_str() == format!("agent_{agent}"))
            .filter_map(|e| match &e.event {
                Event::Call(c) if c.tag.as_deref() == Some("round 1") => {
                    Some(c.request.messages.last().unwrap().content.clone())
                }
                _ => None,
            })
            .next()
            .unwrap()
    };
    let leader_prompt = prompt_of(leader);
    assert!(
        leader_prompt.contains("most representative"),
        "the leader gets Rstar or the self-reflection sentence"
    );
    for n in 0..4 {
        let p = prompt_of(n);
        assert!(p.contains("Your previous answer:"));
        let has_parents = edges.iter().any(|&(_, to)| to == n);
        assert_eq!(
            p.contains("Answers of other agents in this round:"),
            has_parents,
            "agent {n}"
        );
        if n != leader {
            assert!(
                !p.contains("currently judged most representative"),
                "only the leader gets Rstar"
            );
        }
    }
}

#[tokio::test]
async fn early_stopping_ends_after_round_zero_when_all_agree() {
    let opts = SelfOrgOptions {
        gamma: Some(0.0),
        ..SelfOrgOptions::default()
    };
    let out = solve(opts, 1.0, 2).await;
    assert_eq!(out.usage.run.calls, 4);
    assert_eq!(out.trace["stop"], "early_stop");
    assert_eq!(out.answer.as_deref(), Some("12"));
}

/// Records what SelfOrg hands the embedder.
struct Recording {
    inner: colony::embed::HashingEmbedder,
    texts: std::sync::Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl colony::embed::Embedder for Recording {
    async fn embed(
        &self,
        texts: &[String],
    ) -> Result<ndarray::Array2<f32>, colony::embed::EmbedError> {
        self.texts.lock().unwrap().extend(texts.iter().cloned());
        self.inner.embed(texts).await
    }
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn id(&self) -> &str {
        "recording"
    }
}

#[tokio::test]
async fn the_embedding_window_decides_what_is_embedded() {
    use colony::policy::selforg::reasoning::EmbedInput;
    for (embed, name) in [
        (EmbedInput::Full, "selforg"),
        (EmbedInput::Tail, "selforg_tail"),
        (EmbedInput::Answer, "selforg_answer"),
    ] {
        let rec = Arc::new(Recording {
            inner: default_embedder(),
            texts: Default::default(),
        });
        let opts = SelfOrgOptions {
            embed,
            ..SelfOrgOptions::default()
        };
        let policy = SelfOrg::new(opts, rec.clone()).unwrap();
        assert_eq!(policy.name(), name);
        let q = Query {
            item: item(1),
            run_seed: 3,
        };
        let out = policy.solve(&q, &roster(0.5)).await.unwrap();
        assert_eq!(out.trace["embed"], embed.name());
        let texts = rec.texts.lock().unwrap().clone();
        assert_eq!(texts.len(), 12, "4 agents × 3 rounds");
        for t in &texts {
            match embed {
                // The simulated replies are short: the tail is the whole reply.
                EmbedInput::Full | EmbedInput::Tail => {
                    assert!(t.contains("\\boxed{") && t.lines().count() > 2, "{t}")
                }
                EmbedInput::Answer => {
                    assert!(t.starts_with("The answer is ") && !t.contains('\n'), "{t}")
                }
            }
        }
    }
}
