//! MAD, Multi-Agent Debate of Liang et al. (2024) (docs/design/baselines.md §3.12): an
//! affirmative and a negative debater argue "tit for tat" under a moderator who may end the
//! debate early; a judge decides when the moderator never does.
//!
//! Round 1: the affirmative answers the query; the negative is shown the affirmative's answer
//! and told it disagrees (`prompts/mad/negative.jinja`). Rounds r ≥ 2: each side is shown the
//! other's latest argument and asked whether it agrees (`rebut.jinja`). After every round the
//! moderator reads both sides and replies with a JSON verdict (`moderator.jinja`); a verdict
//! with a preference and a `debate_answer` ends the debate. After `rounds` rounds without one,
//! the judge lists the answer candidates (`candidates.jinja`) and then decides (`judge.jinja`),
//! the paper's two-stage judge (§3.2). Every agent keeps its own conversation, and the debaters
//! and the moderator get the paper's meta prompts as system prompts (`debater_system.jinja`,
//! `moderator_system.jinja`, also the judge's). Calls: 3·rounds + 2 at most, 3 at least.
//!
//! Decisions where the paper leaves room:
//! * **Default** `rounds = 3`, the paper's maximum number of debate rounds (§4).
//! * **Verdict parsing:** the last `{…}` object of the reply, keys matched by what they
//!   contain (`preference`, `side`, `answer`) in any case. A moderator reply that cannot be
//!   read counts as "no preference" (the debate goes on) and is counted in `fallbacks`.
//! * **Answer:** read from the deciding verdict's `debate_answer`; when that states none, from
//!   the whole deciding reply, then from the supported side's (or, from the judge, the
//!   affirmative's) latest argument, each step counted in `fallbacks`. The output text is the
//!   deciding reply.
//! * **The negative's first prompt restates the topic** before the affirmative's answer: its
//!   system prompt already has it, but a reader of one call (a model's logs, the offline
//!   simulated model) sees the question in the conversation itself.
//! * Agents: `agent_0` affirmative, `agent_1` negative, `agent_2` moderator, `agent_3` judge.

use async_trait::async_trait;
use serde_json::{json, Value};

use super::common::{ask_options, baseline_roster, format_suffix, shown_text, Failures};
use super::{check_range, prompts, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};
use crate::options::PolicyOptions;

/// `prompts/mad/debater_system.jinja`.
pub const DEBATER_SYSTEM: &str = include_str!("../../../../prompts/mad/debater_system.jinja");
/// `prompts/mad/moderator_system.jinja`.
pub const MODERATOR_SYSTEM: &str = include_str!("../../../../prompts/mad/moderator_system.jinja");
/// `prompts/mad/negative.jinja`.
pub const NEGATIVE: &str = include_str!("../../../../prompts/mad/negative.jinja");
/// `prompts/mad/rebut.jinja`.
pub const REBUT: &str = include_str!("../../../../prompts/mad/rebut.jinja");
/// `prompts/mad/moderator.jinja`.
pub const MODERATOR: &str = include_str!("../../../../prompts/mad/moderator.jinja");
/// `prompts/mad/candidates.jinja`.
pub const CANDIDATES: &str = include_str!("../../../../prompts/mad/candidates.jinja");
/// `prompts/mad/judge.jinja`.
pub const JUDGE: &str = include_str!("../../../../prompts/mad/judge.jinja");
/// Stated by every moderator prompt (the simulated model keys on it).
pub const MODERATOR_MARKER: &str = "As the moderator, evaluate both sides";
/// Stated by the judge's deciding prompt.
pub const JUDGE_MARKER: &str = "give the answer you judge correct. Reply with one JSON";

const METHOD: &str = "mad";
/// The most opening braces tried when looking for a reply's verdict object.
pub const MAX_BRACES: usize = 64;

/// MAD with at most `rounds` debate rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mad {
    /// Debate rounds at most (default 3, the paper's).
    pub rounds: usize,
}

impl Default for Mad {
    fn default() -> Self {
        Self { rounds: 3 }
    }
}

impl Mad {
    /// The most rounds.
    pub const MAX_ROUNDS: usize = 10;

    /// MAD with 1 to [`Self::MAX_ROUNDS`] rounds.
    pub fn new(rounds: usize) -> Result<Self, PolicyError> {
        check_range(METHOD, "rounds", rounds, 1, Self::MAX_ROUNDS)?;
        Ok(Self { rounds })
    }

    /// From `mad:rounds=N`.
    pub(crate) fn from_options(o: &mut PolicyOptions) -> Result<Self, PolicyError> {
        Self::new(o.count("rounds")?.unwrap_or(Self::default().rounds))
    }
}

/// A moderator's or judge's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MadVerdict {
    /// Whether one side is clearly preferred (the judge's verdict always is).
    pub preference: bool,
    /// `Some(true)` affirmative, `Some(false)` negative.
    pub affirmative: Option<bool>,
    /// The answer the verdict states (empty: none).
    pub answer: String,
}

/// The verdict of `reply`: its last `{…}` object, keys matched loosely (see the module docs).
/// The object is found by trying the opening braces before the last closing one, nearest
/// first (a reason may quote braces, `\boxed{12}`), at most [`MAX_BRACES`] of them.
pub fn parse_verdict(reply: &str) -> Option<MadVerdict> {
    let end = reply.rfind('}')?;
    let object: serde_json::Map<String, Value> = reply[..end]
        .rmatch_indices('{')
        .take(MAX_BRACES)
        .find_map(|(start, _)| serde_json::from_str(&reply[start..=end]).ok())?;
    let field = |needle: &str| {
        object
            .iter()
            .find(|(k, _)| k.to_lowercase().contains(needle))
            .map(|(_, v)| match v {
                Value::String(s) => s.trim().to_string(),
                other => other.to_string(),
            })
    };
    let preference = field("preference").is_some_and(|p| p.to_lowercase().starts_with('y'));
    let affirmative = field("side").and_then(|s| {
        let s = s.to_lowercase();
        match (s.contains("affirmative"), s.contains("negative")) {
            (true, false) => Some(true),
            (false, true) => Some(false),
            _ => None,
        }
    });
    Some(MadVerdict {
        preference,
        affirmative,
        answer: field("answer").unwrap_or_default(),
    })
}

fn render(template: &'static str, query: &Query, ctx: Value) -> Result<String, PolicyError> {
    let mut ctx = ctx;
    ctx["question"] = json!(query.item.question);
    ctx["suffix"] = json!(format_suffix(query));
    prompts::render(template, ctx)
}

/// The moderator's prompt after `round` with both sides' latest arguments.
pub fn moderator_prompt(
    query: &Query,
    round: usize,
    affirmative: &str,
    negative: &str,
) -> Result<String, PolicyError> {
    render(
        MODERATOR,
        query,
        json!({ "round": round, "affirmative": shown_text(affirmative), "negative": shown_text(negative) }),
    )
}

#[async_trait]
impl ReasoningPolicy for Mad {
    fn name(&self) -> &str {
        METHOD
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let debater = render(DEBATER_SYSTEM, query, json!({}))?;
        let moderator = render(MODERATOR_SYSTEM, query, json!({}))?;
        let mut members = baseline_roster(roster, 4, false)?;
        for (i, m) in members.members.iter_mut().enumerate() {
            let (name, system) = match i {
                0 => ("affirmative", &debater),
                1 => ("negative", &debater),
                2 => ("moderator", &moderator),
                _ => ("judge", &moderator),
            };
            let card = colony_runtime::RoleCard::new(name, system.trim());
            m.role = super::role_pool::with_prompt_of(&m.role, &card);
        }
        let team = members.team(4)?;
        let mut failures = Failures::default();
        let ask = |agent: usize, round: usize, prompt: String| {
            let r = u32::try_from(round).unwrap_or(u32::MAX);
            (agent, prompt, ask_options(query, METHOD, Some(r), agent))
        };
        let (mut aff, mut neg) = (String::new(), String::new());
        let mut fallbacks = 0u32;
        let mut verdicts = Vec::new();
        let mut decided: Option<(String, MadVerdict, &str)> = None;
        for round in 1..=self.rounds {
            let r = Some(u32::try_from(round).unwrap_or(u32::MAX));
            let aff_prompt = if round == 1 {
                query.text()
            } else {
                render(REBUT, query, json!({ "opponent": shown_text(&neg) }))?
            };
            // The negative answers the affirmative's argument of this round, so the sides speak
            // in turn, as in the paper.
            aff = failures
                .ask_texts(&team, r, vec![ask(0, round, aff_prompt)])
                .await
                .concat();
            let neg_prompt = if round == 1 {
                render(NEGATIVE, query, json!({ "affirmative": shown_text(&aff) }))?
            } else {
                render(REBUT, query, json!({ "opponent": shown_text(&aff) }))?
            };
            neg = failures
                .ask_texts(&team, r, vec![ask(1, round, neg_prompt)])
                .await
                .concat();
            let prompt = moderator_prompt(query, round, &aff, &neg)?;
            let reply = failures
                .ask_texts(&team, r, vec![ask(2, round, prompt)])
                .await
                .concat();
            let verdict = parse_verdict(&reply);
            if verdict.is_none() && !reply.trim().is_empty() {
                fallbacks += 1;
            }
            verdicts.push(json!({
                "round": round,
                "aff_answer": query.extract(&aff),
                "neg_answer": query.extract(&neg),
                "preference": verdict.as_ref().map(|v| v.preference),
                "affirmative": verdict.as_ref().and_then(|v| v.affirmative),
                "answer": verdict.as_ref().map(|v| v.answer.clone()),
            }));
            if let Some(v) = verdict.filter(|v| v.preference && !v.answer.is_empty()) {
                decided = Some((reply, v, "moderator"));
                break;
            }
        }
        let (reply, verdict, by) = match decided {
            Some(d) => d,
            None => {
                let last = self.rounds + 1;
                let sides =
                    json!({ "affirmative": shown_text(&aff), "negative": shown_text(&neg) });
                let p = render(CANDIDATES, query, sides)?;
                failures
                    .ask_texts(&team, Some(0), vec![ask(3, last, p)])
                    .await
                    .concat();
                let p = render(JUDGE, query, json!({}))?;
                let reply = failures
                    .ask_texts(&team, Some(0), vec![ask(3, last + 1, p)])
                    .await
                    .concat();
                let v = parse_verdict(&reply).unwrap_or_else(|| {
                    fallbacks += u32::from(!reply.trim().is_empty());
                    MadVerdict::default()
                });
                (reply, v, "judge")
            }
        };
        let side = if verdict.affirmative == Some(false) {
            &neg
        } else {
            &aff
        };
        let mut answer = query.extract(&verdict.answer);
        for text in [&reply, side] {
            if answer.is_none() {
                fallbacks += 1;
                answer = query.extract(text);
            }
        }
        failures
            .finish(team, |errors| {
                let trace = json!({
                    "method": METHOD, "rounds": self.rounds, "verdicts": verdicts,
                    "decided_by": by, "fallbacks": fallbacks, "answer": answer, "errors": errors,
                });
                (reply, answer.clone(), trace)
            })
            .await
    }
}

/// Teaches the simulated model MAD's machine-read turns: the moderator prefers the side whose
/// argument states the answer the simulated agent settled on (no preference when neither
/// does); the judge states that answer. Debaters' turns are ordinary answers.
#[derive(Debug, Clone, Copy, Default)]
pub struct MadResponder;

impl colony_llm::responder::Responder for MadResponder {
    fn name(&self) -> &str {
        METHOD
    }

    fn purposes(&self) -> &[&str] {
        &[METHOD]
    }

    fn keyed(&self, t: &colony_llm::responder::KeyedTurn<'_>) -> Option<String> {
        let reason = t.body.replace(['"', '\\', '\n'], " ");
        if t.user.contains(JUDGE_MARKER) {
            return Some(json!({ "Reason": reason, "debate_answer": t.answer }).to_string());
        }
        if !t.user.contains(MODERATOR_MARKER) {
            return None;
        }
        let side = |tag: &str| {
            let text = super::baseline_sim::blocks(t.user, tag)
                .into_iter()
                .next_back()
                .unwrap_or("");
            super::baseline_sim::states(text, t.answer, t.extract) == Some(true)
        };
        let verdict = match (side("affirmative"), side("negative")) {
            (true, _) => {
                json!({ "Whether there is a preference": "Yes", "Supported Side": "Affirmative", "Reason": reason, "debate_answer": t.answer })
            }
            (false, true) => {
                json!({ "Whether there is a preference": "Yes", "Supported Side": "Negative", "Reason": reason, "debate_answer": t.answer })
            }
            _ => {
                json!({ "Whether there is a preference": "No", "Supported Side": "", "Reason": reason, "debate_answer": "" })
            }
        };
        Some(verdict.to_string())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_parse_loosely_and_refuse_what_is_not_json() {
        let v = parse_verdict(
            "Sure.\n```json\n{\"Whether there is a preference\": \"Yes\", \"Supported Side\": \
             \"Negative\", \"Reason\": \"r\", \"debate_answer\": \"7\"}\n```",
        )
        .unwrap();
        assert_eq!(
            v,
            MadVerdict {
                preference: true,
                affirmative: Some(false),
                answer: "7".into()
            }
        );
        let v = parse_verdict("{\"Reason\": \"x\", \"debate_answer\": 12}").unwrap();
        assert_eq!(v.answer, "12");
        let v =
            parse_verdict(r#"{"Reason": "so \\boxed{12} holds", "debate_answer": "12"}"#).unwrap();
        assert_eq!((v.preference, v.answer.as_str()), (false, "12"));
        assert_eq!(parse_verdict("no json here"), None);
        assert_eq!(parse_verdict("{broken"), None);
        assert!(Mad::new(0).is_err() && Mad::new(11).is_err());
    }
}
