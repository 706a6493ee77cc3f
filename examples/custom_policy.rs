//! A complete custom reasoning policy: "answer, then self-check".
//!
//! Agent 0 answers; agent 1 checks that answer and gives the final one. Runs offline on the
//! built-in simulated model: `cargo run --example custom_policy`.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use colony::llm::{AnswerKey, SharedModel, SimulatedConfig, SimulatedModel};
use colony::policy::reasoning::{
    llm_seed, Member, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster, MASLAB_SAMPLING,
};
use colony::runtime::{AskOptions, RoleCard};
use colony_qa::{AnswerType, Item};

/// Answer with agent 0, then let agent 1 check the answer and state the final one.
struct AnswerThenCheck;

#[async_trait]
impl ReasoningPolicy for AnswerThenCheck {
    fn name(&self) -> &str {
        "answer_then_check"
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let team = roster.team(2)?;
        let ids = team.agents();
        // Temperature and token limit come from the team (role card, flags, models.toml,
        // roster default); a call sets only what it needs: its seed.
        let options = |round: u32, agent: &str| {
            AskOptions::new()
                .seed(llm_seed(
                    query.run_seed,
                    &query.item.id,
                    self.name(),
                    Some(round),
                    agent,
                ))
                .tag(format!("round {round}"))
        };
        let first = team
            .ask_with(&ids[0], query.text(), options(0, ids[0].as_str()))
            .await?;
        let checker = ids.last().unwrap_or(&ids[0]);
        let review = format!(
            "{}\n\nAnother agent answered:\n```\n{}\n```\nCheck it step by step and give your final answer.",
            query.text(),
            first.text
        );
        let second = team
            .ask_with(checker, review, options(1, checker.as_str()))
            .await?;
        let output = PolicyOutput {
            answer: query.extract(&second.text),
            trace: serde_json::json!({
                "first": query.extract(&first.text),
                "checked": query.extract(&second.text),
            }),
            final_text: second.text,
            transcript: team.transcript(),
            usage: team.usage(),
        };
        team.shutdown().await;
        Ok(output)
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let question = "A box holds 12 eggs. How many eggs are in 5 boxes?";
    let mut key = AnswerKey::new();
    key.insert(question, "60");
    let model: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig {
        accuracy: 0.7,
        answer_key: key,
        ..SimulatedConfig::default()
    }));
    let role = Arc::new(RoleCard::new("assistant", "You are a careful assistant."));
    let member = Member::new(role, model);
    let roster = Roster {
        members: vec![member.clone(), member],
        sampling: MASLAB_SAMPLING,
    };
    let item = Item {
        id: "eggs".into(),
        question: question.into(),
        choices: vec![],
        gold: "60".into(),
        answer_type: AnswerType::Numeric,
        meta: BTreeMap::new(),
    };
    let out = AnswerThenCheck
        .solve(&Query { item, run_seed: 1 }, &roster)
        .await?;
    println!("answer: {}", out.answer.as_deref().unwrap_or("(none)"));
    println!("calls: {}, trace: {}", out.usage.run.calls, out.trace);
    Ok(())
}
