//! `demo_vote`: three voters answer independently; a judge call is made only when they
//! disagree. Written against colony's public API only.

use async_trait::async_trait;
use colony::policy::reasoning::{
    llm_seed, PolicyError, PolicyOptions, PolicyOutput, Query, ReasoningContext, ReasoningPolicy,
    Roster,
};
use colony::runtime::AskOptions;
use futures::future::join_all;

/// The judge's instruction, after the question and the three answers (registered as the
/// template `demo/vote_judge`, so suite manifests record its hash).
pub const JUDGE: &str = "Decide which answer is right and state the final answer.";

/// The policy (no options).
pub struct DemoVote;

/// The registry constructor: `demo_vote` takes no options.
pub fn build(
    _options: &mut PolicyOptions,
    _ctx: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    Ok(Box::new(DemoVote))
}

#[async_trait]
impl ReasoningPolicy for DemoVote {
    fn name(&self) -> &str {
        "demo_vote"
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let team = roster.team(3)?;
        let ids = team.agents();
        let item = &query.item.id;
        let options = |round: u32, agent: &str| {
            AskOptions::new()
                .seed(llm_seed(
                    query.run_seed,
                    item,
                    self.name(),
                    Some(round),
                    agent,
                ))
                .tag(if round == 0 { "vote" } else { "judge" })
                .purpose(if round == 0 {
                    "demo_vote.vote"
                } else {
                    "demo_vote.judge"
                })
        };
        let votes = join_all(
            ids.iter()
                .map(|id| team.ask_with(id, query.text(), options(0, id.as_str()))),
        )
        .await;
        // A failed vote fails the item (an error, never a wrong answer).
        let votes = votes.into_iter().collect::<Result<Vec<_>, _>>()?;
        let answers: Vec<Option<String>> = votes.iter().map(|v| query.extract(&v.text)).collect();
        let agree = answers[0].is_some() && answers.iter().all(|a| *a == answers[0]);
        let final_text = if agree {
            votes[0].text.clone()
        } else {
            let listed: Vec<String> = votes
                .iter()
                .enumerate()
                .map(|(i, v)| format!("Agent {}:\n{}", i + 1, v.text))
                .collect();
            let prompt = format!(
                "{}\n\nThree agents answered differently:\n\n{}\n\n{JUDGE}",
                query.text(),
                listed.join("\n\n")
            );
            team.ask_with(&ids[0], prompt, options(1, ids[0].as_str()))
                .await?
                .text
        };
        let output = PolicyOutput {
            answer: query.extract(&final_text),
            trace: serde_json::json!({ "votes": answers, "judged": !agree }),
            final_text,
            transcript: team.transcript(),
            usage: team.usage(),
        };
        team.shutdown().await;
        Ok(output)
    }
}
