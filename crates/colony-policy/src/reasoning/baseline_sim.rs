//! How colony's offline simulated model answers the machine-read turns of the DyLAN and
//! AgentVerse baselines (docs/design/baselines.md §3.5, §3.7), so both run end to end without an
//! endpoint, as SwarmSys's hook does for its validators. Like an LLM, the hook reads only the
//! prompt; the simulated agent has already settled on its own answer (by its accuracy and the peer
//! answers in the prompt), and the hook states what that agent would reply:
//!
//! * **DyLAN round 2** (the prompt states [`RATINGS_MARKER`]): its reasoning, then
//!   `Ratings: [...]` with 5 for responses stating its answer, 2 for other answers, 1 for
//!   responses without one.
//! * **DyLAN ranking** ([`RANK_MARKER`]): its reasoning, then `[i, j]`: responses stating its
//!   answer first, then the others, by number.
//! * **AgentVerse recruiting** ([`RECRUIT_MARKER`] `n`): a numbered list of `n` generic expert
//!   descriptions and nothing else.
//! * **AgentVerse critics** ([`AGREE_MARKER`]): its reasoning, ending with `[Agree]` when the
//!   proposed solution states its answer, else a short objection before the reasoning.
//! * **AgentVerse evaluator** ([`EVALUATE_MARKER`]): its reasoning, then `Correctness: 1` when
//!   the solution states its answer (else 0) and an `Advice:` line.
//!
//! MacNet needs no hook: none of its replies is parsed.

use super::agentverse::{AGREE_MARKER, EVALUATE_MARKER, RECRUIT_MARKER};
use super::common::normal_answer;
use super::dylan::{RANK_MARKER, RATINGS_MARKER};

/// Descriptions a simulated recruiter lists, cycled.
const SIM_EXPERTS: [&str; 3] = [
    "A mathematician who solves word problems step by step and checks the arithmetic.",
    "A teacher who reviews solutions for wrong steps and misread questions.",
    "An analyst who tests a result against the numbers given in the question.",
];

/// The texts between `<{tag}` … `>` and `</{tag}>` in `text`, in order.
pub(crate) fn blocks<'a>(text: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start..];
        let Some(body_start) = after.find('>').map(|i| i + 1) else {
            break;
        };
        let Some(end) = after[body_start..].find(&close) else {
            break;
        };
        out.push(&after[body_start..body_start + end]);
        rest = &after[body_start + end + close.len()..];
    }
    out
}

/// Whether `text` states `mine` (normalised) by `extract`.
pub(crate) fn states(
    text: &str,
    mine: &str,
    extract: &dyn Fn(&str) -> Option<String>,
) -> Option<bool> {
    extract(text).map(|a| normal_answer(&a) == normal_answer(mine))
}

/// The simulated reply to a DyLAN or AgentVerse prompt whose user message is `user`, given
/// the answer the simulated agent settled on, its ordinary reply `body`, and how it reads the
/// answer a text states; `None` for prompts without a machine-read reply.
pub fn simulated_reply(
    user: &str,
    answer: &str,
    body: &str,
    extract: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    if user.contains(RATINGS_MARKER) {
        let scores: Vec<String> = blocks(user, "response")
            .into_iter()
            .map(|r| match states(r, answer, extract) {
                Some(true) => "5",
                Some(false) => "2",
                None => "1",
            })
            .map(str::to_string)
            .collect();
        return Some(format!("{body}\n\nRatings: [{}]", scores.join(", ")));
    }
    if user.contains(RANK_MARKER) {
        let responses = blocks(user, "response");
        let (mut picks, others): (Vec<usize>, Vec<usize>) = (1..=responses.len())
            .partition(|&i| states(responses[i - 1], answer, extract) == Some(true));
        picks.extend(others);
        let picks: Vec<String> = picks.iter().take(2).map(usize::to_string).collect();
        return Some(format!("{body}\n\n[{}]", picks.join(", ")));
    }
    if let Some(at) = user.find(RECRUIT_MARKER) {
        let rest = &user[at + RECRUIT_MARKER.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let n: usize = digits.parse().unwrap_or(2).min(16);
        let list: Vec<String> = (0..n)
            .map(|i| format!("{}. {}", i + 1, SIM_EXPERTS[i % SIM_EXPERTS.len()]))
            .collect();
        return Some(list.join("\n"));
    }
    let solution = blocks(user, "solution")
        .into_iter()
        .next_back()
        .unwrap_or("");
    if user.contains(EVALUATE_MARKER) {
        return Some(if states(solution, answer, extract) == Some(true) {
            format!("{body}\n\nCorrectness: 1\nAdvice: none")
        } else {
            format!(
                "{body}\n\nCorrectness: 0\nAdvice: Work through the question again from the \
                 given numbers and check every step."
            )
        });
    }
    if user.contains(AGREE_MARKER) {
        return Some(if states(solution, answer, extract) == Some(true) {
            format!("{body}\n\n{AGREE_MARKER}")
        } else {
            format!("The proposed solution does not hold up; my own working differs.\n\n{body}")
        });
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::reasoning::agentverse::{
        critic_prompt, evaluate_prompt, parse_evaluation, parse_recruits, recruit_prompt,
    };
    use crate::reasoning::dylan::{parse_ranking, parse_ratings, rank_prompt, respond_prompt};
    use crate::reasoning::Query;
    use colony_qa::{AnswerType, Item};

    fn last_answer(t: &str) -> Option<String> {
        t.rsplit("The answer is ")
            .next()
            .filter(|_| t.contains("The answer is "))
            .map(|a| a.trim().trim_end_matches('.').to_string())
    }

    fn query() -> Query {
        Query {
            item: Item {
                id: "0".into(),
                question: "What is 3 + 4?".into(),
                choices: vec![],
                gold: "7".into(),
                answer_type: AnswerType::Numeric,
                meta: Default::default(),
            },
            run_seed: 0,
        }
    }

    #[test]
    fn dylan_replies_parse() {
        let q = query();
        let shown = ["So. The answer is 7.", "Hm. The answer is 8.", ""];
        let p = respond_prompt(&q, &shown, true).unwrap();
        let reply = simulated_reply(&p, "7", "Mine. The answer is 7.", &last_answer).unwrap();
        assert_eq!(parse_ratings(&reply, 3), Some(vec![5, 2, 1]));
        let plain = respond_prompt(&q, &shown, false).unwrap();
        assert!(simulated_reply(&plain, "7", "b", &last_answer).is_none());
        let p = rank_prompt(&q, &shown).unwrap();
        let reply = simulated_reply(&p, "8", "Mine.", &last_answer).unwrap();
        assert_eq!(parse_ranking(&reply, 3), vec![2, 1]);
    }

    #[test]
    fn agentverse_replies_parse() {
        let q = query();
        let p = recruit_prompt(&q, 3, "").unwrap();
        let reply = simulated_reply(&p, "7", "ignored", &last_answer).unwrap();
        assert_eq!(parse_recruits(&reply, 3).len(), 3);
        let p = critic_prompt(&q, "A checker.", "Work. The answer is 7.").unwrap();
        let yes = simulated_reply(&p, "7", "Mine. The answer is 7.", &last_answer).unwrap();
        assert!(crate::reasoning::agentverse::agrees(&yes));
        let no = simulated_reply(&p, "8", "Mine. The answer is 8.", &last_answer).unwrap();
        assert!(!crate::reasoning::agentverse::agrees(&no));
        let p = evaluate_prompt(&q, "Work. The answer is 7.").unwrap();
        let ok = simulated_reply(&p, "7", "Checked.", &last_answer).unwrap();
        assert_eq!(parse_evaluation(&ok), Some((true, None)));
        let bad = simulated_reply(&p, "9", "Checked.", &last_answer).unwrap();
        assert!(matches!(parse_evaluation(&bad), Some((false, Some(_)))));
        assert!(simulated_reply("What is 3 + 4?", "7", "b", &last_answer).is_none());
    }
}

/// The DyLAN and AgentVerse responder: teaches the simulated model their machine-read turns
/// ([`simulated_reply`]); registered by `Registry::builtin`.
#[derive(Debug, Clone, Copy, Default)]
pub struct BaselineResponder;

impl colony_llm::responder::Responder for BaselineResponder {
    fn name(&self) -> &str {
        "dylan+agentverse"
    }

    fn purposes(&self) -> &[&str] {
        &["dylan", "agentverse"]
    }

    fn keyed(&self, t: &colony_llm::responder::KeyedTurn<'_>) -> Option<String> {
        simulated_reply(t.user, t.answer, t.body, t.extract)
    }
}
