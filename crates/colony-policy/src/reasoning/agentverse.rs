//! AgentVerse, compact (docs/design/baselines.md §3.7): recruit experts, draft, criticise and
//! revise, evaluate; repeat with the evaluator's advice until it judges the solution correct.
//!
//! Per turn (at most `turns`, default 3):
//!
//! 1. **Recruit:** the recruiter lists `experts` (default 2) expert descriptions as a numbered
//!    list, given the question and the previous turn's advice.
//! 2. **Draft:** the solver (expert 1) writes a solution.
//! 3. **Criticise** (at most `critic_rounds`, default 3): the critics (experts 2…) solve the
//!    question privately and compare; each replies with criticism only, or ends with `[Agree]`
//!    when the final answers match. If every critic agrees the round ends; otherwise the solver
//!    revises, seeing its last solution and the criticism.
//! 4. **Evaluate:** the evaluator ends with `Correctness: 0|1` and `Advice: …`; 1 ends the run,
//!    0 starts the next turn with the advice.
//!
//! The output is the last solution. No answer is extracted during the run (§3.9).
//!
//! Decisions where the spec leaves room:
//!
//! * **Agents:** `agent_0` is the solver, `agent_1…` the critics, then the recruiter and the
//!   evaluator; like the other baselines they send no system prompt. A recruited description
//!   opens each expert's prompt (`Your role: …`), so the team and its seeds stay fixed while
//!   the roles change from turn to turn. Critics run concurrently.
//! * **Shared history:** the solver's revision sees its last solution and this round's
//!   criticism (the last messages of the exchange); the advice goes to the recruiter and to
//!   the next draft.
//! * **Fallbacks** (counted in the trace's `fallbacks`): a recruiter reply with fewer than
//!   `experts` numbered items is completed with generic descriptions (`recruit`); an
//!   evaluator reply without a `Correctness: 0|1` line ends the run with the current solution
//!   (`evaluator`; stopping bounds the cost of an evaluator that cannot be read); an empty
//!   last solution is replaced by the latest non-empty one (`empty_solution`).
//! * **Failed critics** neither agree nor object: the round ends when every critic that
//!   answered agrees (or none answered); a failed revision keeps the previous solution.

use async_trait::async_trait;
use serde::Serialize;
use serde_json::{json, Value};

use super::common::{ask_all, baseline_roster, format_suffix, Failures};
use super::common::{shown_text, step_options};
use super::role_pool::with_prompt_of;
use super::{check_range, prompts, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};
use crate::options::PolicyOptions;
use colony_runtime::{RoleCard, Team};

/// `prompts/agentverse/recruit.jinja`: the recruiter's call.
pub const RECRUIT: &str = include_str!("../../../../prompts/agentverse/recruit.jinja");
/// `prompts/agentverse/solve.jinja`: the solver's draft and revisions.
pub const SOLVE: &str = include_str!("../../../../prompts/agentverse/solve.jinja");
/// `prompts/agentverse/critic.jinja`: a critic's call.
pub const CRITIC: &str = include_str!("../../../../prompts/agentverse/critic.jinja");
/// `prompts/agentverse/evaluate.jinja`: the evaluator's call.
pub const EVALUATE: &str = include_str!("../../../../prompts/agentverse/evaluate.jinja");
/// Stated by every recruiter prompt, followed by the number of experts (the simulated model
/// keys on it).
pub const RECRUIT_MARKER: &str = "Describe exactly ";
/// The agreement marker a critic ends with (stated by every critic prompt).
pub const AGREE_MARKER: &str = "[Agree]";
/// Stated by every evaluator prompt (the simulated model keys on it).
pub const EVALUATE_MARKER: &str = "Correctness: <1 if";
/// Descriptions that complete a short recruiter list, cycled (a counted fallback).
pub const GENERIC_EXPERTS: [&str; 2] = [
    "A careful problem solver who works through the question step by step.",
    "A meticulous reviewer who checks every step and the final answer of a solution.",
];

const METHOD: &str = "agentverse";

/// Settings of AgentVerse (§3.7; SelfOrg's setting, the public defaults: 2 experts, up to 3
/// turns, up to 3 criticising rounds).
#[derive(Debug, Clone, PartialEq)]
pub struct AgentVerseOptions {
    /// Experts per turn: the solver and `experts − 1` critics (default 2).
    pub experts: usize,
    /// Turns (recruit, solve, evaluate) at most (default 3).
    pub turns: usize,
    /// Criticising rounds per turn at most (default 3).
    pub critic_rounds: usize,
}

impl Default for AgentVerseOptions {
    fn default() -> Self {
        Self {
            experts: 2,
            turns: 3,
            critic_rounds: 3,
        }
    }
}

impl AgentVerseOptions {
    /// The most experts per turn.
    pub const MAX_EXPERTS: usize = 8;
    /// The most turns.
    pub const MAX_TURNS: usize = 10;
    /// The most criticising rounds per turn.
    pub const MAX_CRITIC_ROUNDS: usize = 10;

    /// Options from `agentverse:experts=2,turns=3,critic_rounds=3`.
    pub(crate) fn from_options(o: &mut PolicyOptions) -> Result<Self, PolicyError> {
        let d = Self::default();
        Ok(Self {
            experts: o.count("experts")?.unwrap_or(d.experts),
            turns: o.count("turns")?.unwrap_or(d.turns),
            critic_rounds: o.count("critic_rounds")?.unwrap_or(d.critic_rounds),
        })
    }
}

/// The AgentVerse policy.
#[derive(Debug, Clone)]
pub struct AgentVerse {
    options: AgentVerseOptions,
}

impl AgentVerse {
    /// AgentVerse with 2 to [`AgentVerseOptions::MAX_EXPERTS`] experts, 1 to
    /// [`AgentVerseOptions::MAX_TURNS`] turns and 1 to
    /// [`AgentVerseOptions::MAX_CRITIC_ROUNDS`] criticising rounds
    /// ([`PolicyError::OutOfRange`] otherwise).
    pub fn new(options: AgentVerseOptions) -> Result<Self, PolicyError> {
        type O = AgentVerseOptions;
        check_range(METHOD, "experts", options.experts, 2, O::MAX_EXPERTS)?;
        check_range(METHOD, "turns", options.turns, 1, O::MAX_TURNS)?;
        let rounds = options.critic_rounds;
        check_range(METHOD, "critic_rounds", rounds, 1, O::MAX_CRITIC_ROUNDS)?;
        Ok(Self { options })
    }

    /// The options.
    pub fn options(&self) -> &AgentVerseOptions {
        &self.options
    }
}

/// The expert descriptions of a recruiter reply: the items of its numbered lines (`1. …`,
/// `2) …`), in order, at most `n`, markdown emphasis removed, each at most 400 characters.
pub fn parse_recruits(text: &str, n: usize) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let l = line.trim().trim_start_matches(['*', '-', '#', ' ']);
            let digits = l.len() - l.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits == 0 {
                return None;
            }
            let rest = l[digits..].strip_prefix(['.', ')', ':'])?;
            let item = rest.trim().trim_matches('*').trim();
            (!item.is_empty()).then(|| item.chars().take(400).collect())
        })
        .take(n)
        .collect()
}

/// Whether a critic's reply carries the agreement marker (any case).
pub fn agrees(text: &str) -> bool {
    text.to_lowercase().contains(&AGREE_MARKER.to_lowercase())
}

/// The evaluator's verdict: the digit of its last `Correctness: 0|1` line (true for 1) and
/// the text after its last `Advice:` (None when absent or `none`); None without a verdict.
pub fn parse_evaluation(text: &str) -> Option<(bool, Option<String>)> {
    let lower = text.to_ascii_lowercase();
    let at = lower.rfind("correctness")? + "correctness".len();
    let rest = text[at..].trim_start_matches(|c: char| c == ':' || c == '*' || c.is_whitespace());
    let correct = match rest.chars().next()? {
        '1' => true,
        '0' => false,
        _ => return None,
    };
    let advice = lower.rfind("advice").map(|i| {
        text[i + "advice".len()..]
            .trim_start_matches(|c: char| c == ':' || c == '*' || c.is_whitespace())
            .trim()
            .to_string()
    });
    let advice = advice.filter(|a| {
        let a = a.trim_end_matches('.').to_ascii_lowercase();
        !a.is_empty() && a != "none"
    });
    Some((correct, advice))
}

/// The recruiter's prompt.
pub fn recruit_prompt(query: &Query, n: usize, advice: &str) -> Result<String, PolicyError> {
    prompts::render(
        RECRUIT,
        minijinja::context! { question => &query.item.question, n => n, advice => advice },
    )
}

/// A criticism as the solver's revision prompt shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Critique {
    /// The critic's recruited description.
    pub role: String,
    /// Its reply.
    pub text: String,
}

/// The solver's prompt: a draft (no `previous`) or a revision of `previous` given
/// `critiques`; `advice` from the last evaluation, if any.
pub fn solve_prompt(
    query: &Query,
    role: &str,
    advice: &str,
    previous: &str,
    critiques: &[Critique],
) -> Result<String, PolicyError> {
    prompts::render(
        SOLVE,
        minijinja::context! {
            role => role, question => &query.item.question, advice => advice,
            previous => previous, critiques => critiques, suffix => format_suffix(query),
        },
    )
}

/// A critic's prompt on `solution`.
pub fn critic_prompt(query: &Query, role: &str, solution: &str) -> Result<String, PolicyError> {
    prompts::render(
        CRITIC,
        minijinja::context! {
            role => role, question => &query.item.question, solution => shown_text(solution),
        },
    )
}

/// The evaluator's prompt on `solution`.
pub fn evaluate_prompt(query: &Query, solution: &str) -> Result<String, PolicyError> {
    prompts::render(
        EVALUATE,
        minijinja::context! { question => &query.item.question, solution => shown_text(solution) },
    )
}

/// Parse fallbacks of one item.
#[derive(Debug, Default, Serialize)]
struct Fallbacks {
    recruit: u32,
    evaluator: u32,
    empty_solution: u32,
}

/// One asked call: its text after the failure bookkeeping.
async fn ask_one(
    team: &Team,
    query: &Query,
    turn: u32,
    agent: usize,
    step: &str,
    prompt: String,
    failures: &mut Failures,
) -> String {
    let options = step_options(query, METHOD, turn, agent, step);
    let mut text = String::new();
    for (a, r) in ask_all(team, vec![(agent, prompt, options)]).await {
        text = failures.turn(Some(turn), a, r).text;
    }
    text
}

#[async_trait]
impl ReasoningPolicy for AgentVerse {
    fn name(&self) -> &str {
        METHOD
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let o = &self.options;
        let e = o.experts;
        let (recruiter, evaluator) = (e, e + 1);
        let mut members = baseline_roster(roster, e + 2, false)?;
        for (i, m) in members.members.iter_mut().enumerate() {
            let name = match i {
                0 => "solver",
                _ if i == recruiter => "recruiter",
                _ if i == evaluator => "evaluator",
                _ => "critic",
            };
            m.role = with_prompt_of(&m.role, &RoleCard::new(name, ""));
        }
        let team = members.team(e + 2)?;
        let mut failures = Failures::default();
        let mut fallbacks = Fallbacks::default();
        let mut turns: Vec<Value> = Vec::new();
        let mut advice = String::new();
        let mut solutions: Vec<String> = Vec::new();
        let mut stop = "max_turns";
        for t in 1..=o.turns {
            let turn = u32::try_from(t).unwrap_or(u32::MAX);
            // 1. Recruit.
            let prompt = recruit_prompt(query, e, &advice)?;
            let reply = ask_one(
                &team,
                query,
                turn,
                recruiter,
                "recruit",
                prompt,
                &mut failures,
            )
            .await;
            let mut roles = parse_recruits(&reply, e);
            let recruit_fallback = roles.len() < e;
            if recruit_fallback {
                fallbacks.recruit += 1;
                for k in roles.len()..e {
                    roles.push(GENERIC_EXPERTS[k.min(1)].to_string());
                }
            }
            // 2. Draft.
            let prompt = solve_prompt(query, &roles[0], &advice, "", &[])?;
            let mut current = ask_one(&team, query, turn, 0, "draft", prompt, &mut failures).await;
            let draft_answer = query.extract(&current);
            // 3. Criticise and revise.
            let mut rounds = Vec::new();
            for r in 1..=o.critic_rounds {
                let step = format!("critique {r}");
                let asks = (1..e)
                    .map(|k| {
                        let p = critic_prompt(query, &roles[k], &current)?;
                        Ok((k, p, step_options(query, METHOD, turn, k, &step)))
                    })
                    .collect::<Result<Vec<_>, PolicyError>>()?;
                let replies: Vec<(usize, String)> = ask_all(&team, asks)
                    .await
                    .into_iter()
                    .map(|(k, res)| (k, failures.turn(Some(turn), k, res).text))
                    .collect();
                let agree: Vec<Option<bool>> = replies
                    .iter()
                    .map(|(_, t)| (!t.trim().is_empty()).then(|| agrees(t)))
                    .collect();
                let critiques: Vec<Critique> = replies
                    .iter()
                    .zip(&agree)
                    .filter(|(_, a)| **a == Some(false))
                    .map(|((k, t), _)| Critique {
                        role: roles[*k].clone(),
                        text: t.trim().to_string(),
                    })
                    .collect();
                let mut entry = json!({
                    "round": r,
                    "agree": replies.iter().zip(&agree)
                        .map(|((k, _), a)| (Roster::agent_id(*k), json!(a)))
                        .collect::<serde_json::Map<String, Value>>(),
                    "revised": false,
                });
                if critiques.is_empty() {
                    rounds.push(entry);
                    break;
                }
                let prompt = solve_prompt(query, &roles[0], &advice, &current, &critiques)?;
                let step = format!("revise {r}");
                let revised = ask_one(&team, query, turn, 0, &step, prompt, &mut failures).await;
                if !revised.trim().is_empty() {
                    current = revised;
                    entry["revised"] = json!(true);
                }
                entry["answer"] = json!(query.extract(&current));
                rounds.push(entry);
            }
            solutions.push(current.clone());
            // 4. Evaluate.
            let prompt = evaluate_prompt(query, &current)?;
            let verdict = ask_one(
                &team,
                query,
                turn,
                evaluator,
                "evaluate",
                prompt,
                &mut failures,
            )
            .await;
            let parsed = parse_evaluation(&verdict);
            turns.push(json!({
                "turn": t, "advice_in": (!advice.is_empty()).then_some(advice.clone()),
                "experts": roles, "recruit_fallback": recruit_fallback,
                "draft_answer": draft_answer, "rounds": rounds,
                "solution_answer": query.extract(&current),
                "correctness": parsed.as_ref().map(|(c, _)| u8::from(*c)),
                "advice": parsed.as_ref().and_then(|(_, a)| a.clone()),
            }));
            match parsed {
                Some((true, _)) => {
                    stop = "correct";
                    break;
                }
                Some((false, a)) => advice = a.unwrap_or_default(),
                None => {
                    if !verdict.trim().is_empty() {
                        fallbacks.evaluator += 1;
                    }
                    stop = "evaluator_unparsed";
                    break;
                }
            }
        }
        let mut final_text = solutions.last().cloned().unwrap_or_default();
        if final_text.trim().is_empty() {
            if let Some(s) = solutions.iter().rev().find(|s| !s.trim().is_empty()) {
                fallbacks.empty_solution += 1;
                final_text = s.clone();
            }
        }
        let answer = query.extract(&final_text);
        failures
            .finish(team, |errors| {
                let trace = json!({
                    "method": METHOD, "experts": e, "max_turns": o.turns,
                    "critic_rounds": o.critic_rounds, "turns": turns, "fallbacks": fallbacks,
                    "stop": stop, "answer": answer, "errors": errors,
                });
                (final_text, answer.clone(), trace)
            })
            .await
    }
}
