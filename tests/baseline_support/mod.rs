//! Items, models and rosters the baseline policy tests share (`tests/baselines_*.rs`): the
//! keyed simulated model, a scripted model whose reply is a function of the request, the
//! simulated model behind scrambling delays, and a model that always fails.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use colony::llm::{
    AnswerKey, ChatModel, ChatRequest, ChatResponse, FinishReason, ModelError, Role as MsgRole,
    SharedModel, SimulatedConfig, SimulatedModel, Usage,
};
use colony::policy::reasoning::{
    Member, PolicyOutput, Query, ReasoningPolicy, Roster, MASLAB_SAMPLING,
};
use colony::runtime::RoleCard;
use colony_qa::{AnswerType, Item};

pub fn item(i: usize) -> Item {
    Item {
        id: format!("q{i}"),
        question: format!(
            "A crate holds {} bottles and a shop gets 4 crates. How many bottles does it get?",
            i + 3
        ),
        choices: vec![],
        gold: ((i + 3) * 4).to_string(),
        answer_type: AnswerType::Numeric,
        meta: BTreeMap::new(),
    }
}

pub fn query(i: usize) -> Query {
    Query {
        item: item(i),
        run_seed: 11,
    }
}

/// The built-in policy `spec` with the default embedder.
pub fn policy_by_name(
    spec: &str,
) -> Result<Box<dyn ReasoningPolicy>, colony::policy::reasoning::PolicyError> {
    let ctx = colony::policy::reasoning::ReasoningContext::new(std::sync::Arc::new(
        colony::embed::default_embedder(),
    ));
    colony::registry::Registry::builtin().reasoning(spec, &ctx)
}

pub fn sim(accuracy: f64, susceptibility: f64) -> SimulatedModel {
    // The simulated model learns the DyLAN, AgentVerse and SwarmSys turns from the responders
    // of the built-in registry.
    let mut key = AnswerKey::new();
    for i in 0..12 {
        let it = item(i);
        key.insert(&it.question, it.gold);
    }
    SimulatedModel::new(SimulatedConfig {
        accuracy,
        susceptibility,
        answer_key: key,
        seed: 3,
        responders: colony::registry::Registry::builtin().responders(),
        ..SimulatedConfig::default()
    })
}

pub fn roster(model: SharedModel) -> Roster {
    Roster {
        members: (0..2)
            .map(|_| {
                Member::new(
                    Arc::new(RoleCard::new("assistant", "unused")),
                    model.clone(),
                )
            })
            .collect(),
        sampling: MASLAB_SAMPLING,
    }
}

pub fn json(o: &PolicyOutput) -> String {
    serde_json::to_string(o).unwrap()
}

/// A model whose reply is a function of the request.
pub struct Scripted(pub fn(&ChatRequest) -> String);

#[async_trait]
impl ChatModel for Scripted {
    fn id(&self) -> &str {
        "scripted"
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let text = (self.0)(request);
        Ok(ChatResponse {
            usage: Usage {
                prompt_tokens: 10,
                completion_tokens: 5,
                ..Usage::default()
            },
            text,
            finish_reason: FinishReason::Stop,
            latency: Duration::ZERO,
            model: "scripted".into(),
            retries: 0,
            cached: false,
            tool_calls: Vec::new(),
            tool_trace: Vec::new(),
        })
    }
}

pub fn user(r: &ChatRequest) -> &str {
    &r.messages.last().unwrap().content
}

pub fn system(r: &ChatRequest) -> &str {
    r.messages
        .first()
        .filter(|m| m.role == MsgRole::System)
        .map_or("", |m| m.content.as_str())
}

/// The simulated model behind random delays: calls complete in a scrambled order.
pub struct Jitter(pub SimulatedModel);

#[async_trait]
impl ChatModel for Jitter {
    fn id(&self) -> &str {
        self.0.id()
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        user(request).hash(&mut h);
        request.sampling.seed.hash(&mut h);
        tokio::time::sleep(Duration::from_millis(h.finish() % 9)).await;
        self.0.chat(request).await
    }
}

pub struct Broken;

#[async_trait]
impl ChatModel for Broken {
    fn id(&self) -> &str {
        "broken"
    }
    async fn chat(&self, _: &ChatRequest) -> Result<ChatResponse, ModelError> {
        Err(ModelError::Simulated {
            model: "broken".into(),
            message: "always fails".into(),
        })
    }
}

pub fn baselines() -> Vec<Box<dyn ReasoningPolicy>> {
    ["dylan", "macnet", "agentverse"]
        .iter()
        .map(|p| policy_by_name(p).unwrap())
        .collect()
}
