//! DyLAN, compact (docs/design/baselines.md §3.5): a layered agent network with early consensus,
//! peer ratings, an LLM ranker that keeps the best two agents, and agent importance scores.
//!
//! * **Round 1:** the agents answer `query(item)` independently, in a seeded order.
//! * **Round 2:** each agent sees every round-1 response (shuffled for it, numbered), writes
//!   an updated solution and rates each response 1–5 on a last `Ratings: [...]` line.
//! * **Ranking:** one call by the ranker (agent `N`, no system prompt) sees the round-2
//!   responses (shuffled, numbered) and names the best two as `[i, j]`.
//! * **Round 3:** the two picked agents answer again, seeing the round-2 responses.
//! * **Consensus:** within a round of `k` agents, as soon as more than ⌊2k/3⌋ answers exist
//!   and one answer (equivalence-aware) is held by more than ⌊2k/3⌋ of them, the run stops
//!   with it. **Final:** the plurality of the last round's answers, ties to the first in
//!   processing order; the output text is the first response carrying it (the last response
//!   when nothing is extractable), so re-grading reproduces the vote.
//!
//! Decisions where the spec leaves room:
//!
//! * **Parallel where equivalent.** Answers within a round depend only on earlier rounds, so
//!   the first ⌊2k/3⌋ + 1 answers of a round (no check can stop the round before them) are
//!   asked concurrently, then the rest one at a time with the consensus check after each:
//!   the same calls and results as the one-by-one method, whatever the completion order.
//! * **Roles** (`roles=auto`): the mixed team Assistant, Mathematician, Economist,
//!   Psychologist (cycled beyond four) for knowledge items — multiple choice with a `subject`
//!   (MMLU, MMLU-Pro, GPQA) — and Assistants otherwise (math sets, AQUA-RAT); the role prompts
//!   are the pool's of §1.3, compiled in ([`super::role_pool`]), so they do not depend on the
//!   run's `--roles` folder. Models and sampling are the roster's members', cyclically.
//! * **Each agent sees its own earlier response** among the numbered ones (the layers of
//!   DyLAN are fully connected), shuffled with `purpose = "shown"` per (round, agent).
//! * **Ratings** are read from the last `Ratings: [...]` list and removed from the text before
//!   the answer is extracted (a rating must never be read as the answer). A reply without
//!   exactly `n` scores in 1–5 counts in `fallbacks.ratings` and rates everyone equally.
//! * **Ranking fallback:** a reply without two valid distinct numbers counts in
//!   `fallbacks.ranking`; the missing picks come from a seeded shuffle (`purpose =
//!   "rank_fallback"`). With two agents or fewer there is nothing to rank and no call.
//!   Round 3 runs the picks in the ranker's order, so a 1–1 split goes to its first pick.
//! * **Importance scores** (trace only; accuracy does not depend on them): the last round's
//!   nodes share 1; a node passes its score back to the previous round's nodes — round-2
//!   nodes in proportion to the ratings they gave, round-3 nodes equally (they rate nothing);
//!   an agent's importance is the mean over the rounds of its nodes' scores (they sum to 1).

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use colony_qa::{AnswerType, Item};
use serde::Serialize;
use serde_json::{json, Value};

use super::common::shown_text;
use super::common::{ask_all, ask_options, format_suffix, resized, Failures};
use super::role_pool::{pool_card, role_pool, with_prompt_of};
use super::seeds::{shuffle, stream};
use super::vote::{plurality_vote, supermajority};
use super::{check_range, prompts, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};
use crate::options::{choice, PolicyOptions};
use colony_runtime::{RoleCard, Team};

/// `prompts/dylan/respond.jinja`: rounds 2 and 3 (numbered responses; ratings in round 2).
pub const RESPOND: &str = include_str!("../../../../prompts/dylan/respond.jinja");
/// `prompts/dylan/rank.jinja`: the ranker's call.
pub const RANK: &str = include_str!("../../../../prompts/dylan/rank.jinja");
/// Stated by every round-2 prompt (the simulated model keys on it).
pub const RATINGS_MARKER: &str = "Ratings: [score of response 1";
/// Stated by every ranking prompt (the simulated model keys on it).
pub const RANK_MARKER: &str = "write the numbers of your two choices in square brackets";

const METHOD: &str = "dylan";
/// The mixed team of §3.5, cycled.
const MIXED: [&str; 4] = ["assistant", "mathematician", "economist", "psychologist"];

/// Which role prompts the agents get (§3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DylanRoles {
    /// Mixed for multiple-choice items with a `subject`, Assistants otherwise.
    #[default]
    Auto,
    /// Every agent is an Assistant (open and math tasks).
    Assistant,
    /// Assistant, Mathematician, Economist, Psychologist, cycled (MMLU-style tasks).
    Mixed,
}

/// Settings of DyLAN (§3.5; SelfOrg's setting: 4 agents, 3 rounds).
#[derive(Debug, Clone, PartialEq)]
pub struct DylanOptions {
    /// Agents N (default 4).
    pub agents: usize,
    /// Rounds run at most (default 3: answers, updates with ratings, the ranked two).
    pub rounds: usize,
    /// Role prompts.
    pub roles: DylanRoles,
}

impl Default for DylanOptions {
    fn default() -> Self {
        Self {
            agents: 4,
            rounds: 3,
            roles: DylanRoles::Auto,
        }
    }
}

impl DylanOptions {
    /// The most agents (every round-2 prompt quotes all of them).
    pub const MAX_AGENTS: usize = 32;
    /// The most rounds: the method has three.
    pub const MAX_ROUNDS: usize = 3;

    /// Options from `dylan:agents=4,rounds=3,roles=auto|assistant|mixed`.
    pub(crate) fn from_options(o: &mut PolicyOptions) -> Result<Self, PolicyError> {
        let d = Self::default();
        let roles = match choice(o, "roles", "auto|assistant|mixed")?.as_deref() {
            Some("assistant") => DylanRoles::Assistant,
            Some("mixed") => DylanRoles::Mixed,
            Some(_) => DylanRoles::Auto,
            None => d.roles,
        };
        Ok(Self {
            agents: o.count("agents")?.unwrap_or(d.agents),
            rounds: o.count("rounds")?.unwrap_or(d.rounds),
            roles,
        })
    }
}

/// The DyLAN policy.
#[derive(Clone)]
pub struct Dylan {
    options: DylanOptions,
    pool: Vec<Arc<RoleCard>>,
}

impl Dylan {
    /// DyLAN with `options`: 1 to [`DylanOptions::MAX_AGENTS`] agents, 1 to
    /// [`DylanOptions::MAX_ROUNDS`] rounds ([`PolicyError::OutOfRange`] otherwise).
    pub fn new(options: DylanOptions) -> Result<Self, PolicyError> {
        type O = DylanOptions;
        check_range(METHOD, "agents", options.agents, 1, O::MAX_AGENTS)?;
        check_range(METHOD, "rounds", options.rounds, 1, O::MAX_ROUNDS)?;
        let pool = role_pool()?;
        Ok(Self { options, pool })
    }

    /// The options.
    pub fn options(&self) -> &DylanOptions {
        &self.options
    }

    /// Whether `item` gets the mixed team.
    fn mixed(&self, item: &Item) -> bool {
        match self.options.roles {
            DylanRoles::Mixed => true,
            DylanRoles::Assistant => false,
            DylanRoles::Auto => {
                matches!(item.answer_type, AnswerType::Choice { .. })
                    && item.meta.contains_key("subject")
            }
        }
    }
}

/// `shown` as the prompts number them: `{id, text}` from 1, blank replies marked.
fn numbered(shown: &[&str]) -> Vec<Value> {
    let number = |(i, t): (usize, &&str)| json!({ "id": i + 1, "text": shown_text(t) });
    shown.iter().enumerate().map(number).collect()
}

/// The prompt of rounds 2 (`rate`) and 3: the question, `shown` (texts in the order shown)
/// numbered from 1, the request to update, and the answer-format suffix.
pub fn respond_prompt(query: &Query, shown: &[&str], rate: bool) -> Result<String, PolicyError> {
    prompts::render(
        RESPOND,
        minijinja::context! {
            question => &query.item.question, responses => numbered(shown), rate => rate,
            n => shown.len(), suffix => format_suffix(query),
        },
    )
}

/// The ranker's prompt over `shown` (texts in the order shown, numbered from 1).
pub fn rank_prompt(query: &Query, shown: &[&str]) -> Result<String, PolicyError> {
    prompts::render(
        RANK,
        minijinja::context! { question => &query.item.question, responses => numbered(shown) },
    )
}

/// Byte span of the last `Ratings: [...]` of `text`: (label start, `]` end).
fn ratings_span(text: &str) -> Option<(usize, usize, usize)> {
    let lower = text.to_ascii_lowercase();
    let label = lower.rfind("ratings")?;
    let after = label + "ratings".len();
    let rest = &text[after..];
    let skipped = rest.len()
        - rest
            .trim_start_matches(|c: char| c == ':' || c == '*' || c.is_whitespace())
            .len();
    let open = after + skipped;
    if !text[open..].starts_with('[') {
        return None;
    }
    let close = open + text[open..].find(']')?;
    Some((label, open, close))
}

/// The scores of a round-2 reply: the last `Ratings: [...]` list, when it holds exactly `n`
/// integers from 1 to 5 (None otherwise: the caller's counted fallback).
pub fn parse_ratings(text: &str, n: usize) -> Option<Vec<u8>> {
    let (_, open, close) = ratings_span(text)?;
    let scores: Option<Vec<u8>> = text[open + 1..close]
        .split(',')
        .map(|x| x.trim().parse::<u8>().ok().filter(|s| (1..=5).contains(s)))
        .collect();
    scores.filter(|s| s.len() == n)
}

/// `text` without its last `Ratings: [...]` list (the solution the answer is read from).
pub fn strip_ratings(text: &str) -> String {
    match ratings_span(text) {
        Some((label, _, close)) => {
            let mut t = text[..label].trim_end().to_string();
            let tail = text[close + 1..].trim();
            if !tail.is_empty() {
                t.push('\n');
                t.push_str(tail);
            }
            t
        }
        None => text.to_string(),
    }
}

/// The ranker's picks: the numbers (1-based, each in `1..=n`, distinct, at most two, in the
/// order given) of the last bracketed list of integers in `text`; fewer than two means the
/// caller falls back.
pub fn parse_ranking(text: &str, n: usize) -> Vec<usize> {
    let mut end = text.len();
    while let Some(close) = text[..end].rfind(']') {
        let Some(open) = text[..close].rfind('[') else {
            break;
        };
        let items: Option<Vec<usize>> = text[open + 1..close]
            .split(',')
            .map(|x| x.trim().trim_start_matches('#').parse().ok())
            .collect();
        if let Some(items) = items {
            let mut picks = Vec::new();
            for i in items {
                if (1..=n).contains(&i) && !picks.contains(&i) && picks.len() < 2 {
                    picks.push(i);
                }
            }
            return picks;
        }
        end = open;
    }
    Vec::new()
}

/// Agent importance (trace only): `layers[t]` are the agents that answered round `t + 1`;
/// `ratings[a]` the weights round-2 node `a` gave every agent's round-1 node (None: equal).
/// The last layer's nodes share 1, each node passes its score to the previous layer in
/// proportion to its weights (round 2 → 1) or equally (round 3 → 2); an agent's importance
/// is the mean over layers of its nodes' scores.
pub fn importance(n: usize, layers: &[Vec<usize>], ratings: &[Option<Vec<f64>>]) -> Vec<f64> {
    let mut out = vec![0.0; n];
    let Some(last) = layers.len().checked_sub(1) else {
        return out;
    };
    let mut score = vec![0.0; n];
    for &a in &layers[last] {
        score[a] = 1.0 / layers[last].len() as f64;
    }
    for t in (0..=last).rev() {
        for a in 0..n {
            out[a] += score[a] / layers.len() as f64;
        }
        if t == 0 {
            break;
        }
        let prev = &layers[t - 1];
        let mut back = vec![0.0; n];
        for &a in &layers[t] {
            let weights: Vec<f64> = prev
                .iter()
                .map(|&b| match ratings.get(a) {
                    Some(Some(w)) if t == 1 => w.get(b).copied().unwrap_or(0.0).max(0.0),
                    _ => 1.0,
                })
                .collect();
            let sum: f64 = weights.iter().sum();
            for (&b, w) in prev.iter().zip(&weights) {
                let share = if sum > 0.0 {
                    w / sum
                } else {
                    1.0 / prev.len() as f64
                };
                back[b] += score[a] * share;
            }
        }
        score = back;
    }
    out
}

/// Per agent, the agents whose responses it was shown, in the order shown.
type Shown = BTreeMap<usize, Vec<usize>>;

/// One round's outcome, in processing order.
#[derive(Debug, Default)]
struct Round {
    order: Vec<usize>,
    raw: Vec<String>,
    texts: Vec<String>,
    answers: Vec<Option<String>>,
    consensus: Option<usize>,
}

impl Round {
    /// The round's trace entry: order, shown orders, answers by agent, consensus answer.
    fn trace(&self, round: u32, shown: Option<&Shown>) -> Value {
        // Only the agents asked before the round stopped saw anything.
        let shown: Option<BTreeMap<String, Vec<String>>> = shown.map(|m| {
            m.iter()
                .filter(|(a, _)| self.order.contains(a))
                .map(|(&a, v)| (Roster::agent_id(a), ids(v)))
                .collect()
        });
        json!({
            "round": round, "order": ids(&self.order), "shown": shown,
            "answers": ids(&self.order).into_iter().zip(&self.answers).collect::<BTreeMap<_, _>>(),
            "consensus": self.consensus.and_then(|p| self.answers.get(p).cloned().flatten()),
        })
    }

    /// The text of agent `a` in this round (empty when it did not answer).
    fn text_of(&self, a: usize) -> &str {
        self.order
            .iter()
            .position(|&x| x == a)
            .and_then(|p| self.texts.get(p))
            .map_or("", String::as_str)
    }
}

/// `0..n` shuffled with the item's stream for (round, agent, purpose).
fn shuffled(query: &Query, n: usize, round: u32, agent: Option<&str>, purpose: &str) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    let id = query.item.id.as_str();
    shuffle(
        &mut stream(query.run_seed, id, METHOD, Some(round), agent, purpose),
        &mut v,
    );
    v
}

/// Agent ids of `agents`.
fn ids(agents: &[usize]) -> Vec<String> {
    agents.iter().map(|&a| Roster::agent_id(a)).collect()
}

/// Reads round 2's ratings into `ratings` (per rater, weights by ratee); replies without a
/// valid list count in `fallbacks.ratings`. Returns rater → {ratee → score} (null: none).
fn read_ratings(
    r2: &Round,
    shown: &Shown,
    ratings: &mut [Option<Vec<f64>>],
    fallbacks: &mut Fallbacks,
) -> BTreeMap<String, Option<BTreeMap<String, u8>>> {
    let n = ratings.len();
    let mut given = BTreeMap::new();
    for (&a, raw) in r2.order.iter().zip(&r2.raw) {
        let parsed = parse_ratings(raw, n);
        if parsed.is_none() && !raw.trim().is_empty() {
            fallbacks.ratings += 1;
        }
        let by = parsed.map(|scores| {
            let mut w = vec![0.0; n];
            let mut by = BTreeMap::new();
            for (s, &b) in scores.iter().zip(shown.get(&a).into_iter().flatten()) {
                w[b] = f64::from(*s);
                by.insert(Roster::agent_id(b), *s);
            }
            ratings[a] = Some(w);
            by
        });
        given.insert(Roster::agent_id(a), by);
    }
    given
}

impl Dylan {
    /// Runs one round over `order` (prompts by position), consensus-checked as the module
    /// docs say; `rated` strips the ratings line before answers are read.
    async fn run_round(
        team: &Team,
        query: &Query,
        round: u32,
        order: &[usize],
        prompts: &[String],
        rated: bool,
        failures: &mut Failures,
    ) -> Round {
        let k = order.len();
        let quorum = 2 * k / 3;
        let mut r = Round::default();
        let mut next = 0;
        while next < k {
            let end = if next == 0 {
                (quorum + 1).min(k)
            } else {
                next + 1
            };
            let asks = (next..end)
                .map(|p| {
                    let options = ask_options(query, METHOD, Some(round), order[p]).stateless();
                    (order[p], prompts[p].clone(), options)
                })
                .collect();
            for (agent, result) in ask_all(team, asks).await {
                let raw = failures.turn(Some(round), agent, result).text;
                let text = if rated {
                    strip_ratings(&raw)
                } else {
                    raw.clone()
                };
                r.answers.push(query.extract(&text));
                r.order.push(agent);
                r.raw.push(raw);
                r.texts.push(text);
            }
            next = end;
            if r.answers.len() > quorum {
                r.consensus = supermajority(&r.answers, k, &query.item.answer_type);
                if r.consensus.is_some() {
                    break;
                }
            }
        }
        r
    }

    /// The prompts of a round whose agents `order` see `previous` (shuffled per agent with
    /// `purpose = "shown"`); returns the prompts and each agent's shown order.
    fn seeing(
        query: &Query,
        round: u32,
        order: &[usize],
        previous: &Round,
        n: usize,
        rate: bool,
    ) -> Result<(Vec<String>, Shown), PolicyError> {
        let mut prompts = Vec::with_capacity(order.len());
        let mut shown_map = BTreeMap::new();
        for &a in order {
            let shown = shuffled(query, n, round, Some(&Roster::agent_id(a)), "shown");
            let texts: Vec<&str> = shown.iter().map(|&b| previous.text_of(b)).collect();
            prompts.push(respond_prompt(query, &texts, rate)?);
            shown_map.insert(a, shown);
        }
        Ok((prompts, shown_map))
    }
}

/// Parse fallbacks of one item.
#[derive(Debug, Default, Serialize)]
struct Fallbacks {
    /// Round-2 replies without a valid ratings list.
    ratings: u32,
    /// Ranker replies without two valid picks.
    ranking: u32,
}

#[async_trait]
impl ReasoningPolicy for Dylan {
    fn name(&self) -> &str {
        METHOD
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let n = self.options.agents;
        let mixed = self.mixed(&query.item);
        let mut members = resized(roster, n + 1, false)?;
        let ranker = RoleCard::new("ranker", "");
        for (i, m) in members.members.iter_mut().enumerate() {
            let name = if mixed {
                MIXED[i % MIXED.len()]
            } else {
                "assistant"
            };
            let card = match pool_card(&self.pool, name) {
                Some(c) if i < n => c,
                _ => Arc::new(ranker.clone()),
            };
            m.role = with_prompt_of(&m.role, &card);
        }
        let roles: Vec<String> = members.members[..n]
            .iter()
            .map(|m| m.role.name.clone())
            .collect();
        let team = members.team(n + 1)?;
        let mut failures = Failures::default();
        let mut fallbacks = Fallbacks::default();
        let mut trace_rounds: Vec<Value> = Vec::new();

        // Round 1: independent answers in a seeded order.
        let order = shuffled(query, n, 1, None, "order");
        let prompts = vec![query.text(); n];
        let r1 = Self::run_round(&team, query, 1, &order, &prompts, false, &mut failures).await;
        trace_rounds.push(r1.trace(1, None));
        let mut rounds = vec![r1];
        let mut ratings: Vec<Option<Vec<f64>>> = vec![None; n];
        let mut ranking = Value::Null;

        // Round 2: updates with ratings of the round-1 responses.
        if self.options.rounds >= 2 && rounds[0].consensus.is_none() {
            let order = shuffled(query, n, 2, None, "order");
            let (prompts, shown) = Self::seeing(query, 2, &order, &rounds[0], n, true)?;
            let r2 = Self::run_round(&team, query, 2, &order, &prompts, true, &mut failures).await;
            let given = read_ratings(&r2, &shown, &mut ratings, &mut fallbacks);
            let mut entry = r2.trace(2, Some(&shown));
            entry["ratings"] = json!(given);
            trace_rounds.push(entry);
            rounds.push(r2);
        }

        // Ranking, then round 3 with the two picked agents.
        if self.options.rounds >= 3 && rounds.len() == 2 && rounds[1].consensus.is_none() {
            let (selected, rank_trace) = self
                .rank(&team, query, &rounds[1], n, &mut failures, &mut fallbacks)
                .await?;
            ranking = rank_trace;
            let (prompts, shown) = Self::seeing(query, 3, &selected, &rounds[1], n, false)?;
            let r3 =
                Self::run_round(&team, query, 3, &selected, &prompts, false, &mut failures).await;
            trace_rounds.push(r3.trace(3, Some(&shown)));
            rounds.push(r3);
        }

        let last = rounds.last();
        let (chosen, stop) = match last {
            Some(r) => match r.consensus {
                Some(p) => (Some(p), format!("consensus_round_{}", rounds.len())),
                None => (
                    plurality_vote(&r.answers, &query.item.answer_type)
                        .first_winner()
                        .or(r.texts.len().checked_sub(1)),
                    "final_vote".to_string(),
                ),
            },
            None => (None, "no_rounds".to_string()),
        };
        let final_text = last
            .zip(chosen)
            .map(|(r, p)| r.texts[p].clone())
            .unwrap_or_default();
        let answer = last.zip(chosen).and_then(|(r, p)| r.answers[p].clone());
        let chosen_agent = last.zip(chosen).map(|(r, p)| Roster::agent_id(r.order[p]));
        let layers: Vec<Vec<usize>> = rounds.iter().map(|r| r.order.clone()).collect();
        let scores: BTreeMap<String, f64> = importance(n, &layers, &ratings)
            .into_iter()
            .enumerate()
            .map(|(a, s)| (Roster::agent_id(a), s))
            .collect();
        failures
            .finish(team, |errors| {
                let trace = json!({
                    "method": METHOD, "agents": n, "roles": roles, "mixed_roles": mixed,
                    "rounds": trace_rounds, "ranking": ranking, "importance": scores,
                    "fallbacks": fallbacks, "stop": stop,
                    "chosen": {"round": rounds.len(), "agent": chosen_agent},
                    "answer": answer, "errors": errors,
                });
                (final_text, answer.clone(), trace)
            })
            .await
    }
}

impl Dylan {
    /// The ranking step: the two agents whose round-2 responses the ranker (agent `n`) picks,
    /// in its order (fallback picks seeded), and the step's trace.
    async fn rank(
        &self,
        team: &Team,
        query: &Query,
        r2: &Round,
        n: usize,
        failures: &mut Failures,
        fallbacks: &mut Fallbacks,
    ) -> Result<(Vec<usize>, Value), PolicyError> {
        if n <= 2 {
            let all: Vec<usize> = r2.order.clone();
            return Ok((
                all.clone(),
                json!({"skipped": "two agents or fewer", "selected": ids(&all)}),
            ));
        }
        let shown = shuffled(query, n, 2, None, "rank");
        let texts: Vec<&str> = shown.iter().map(|&a| r2.text_of(a)).collect();
        let prompt = rank_prompt(query, &texts)?;
        let options = ask_options(query, METHOD, Some(2), n).stateless();
        let mut raw = String::new();
        for (agent, result) in ask_all(team, vec![(n, prompt, options)]).await {
            raw = failures.turn(Some(2), agent, result).text;
        }
        let picks: Vec<usize> = parse_ranking(&raw, n)
            .into_iter()
            .map(|p| shown[p - 1])
            .collect();
        let mut selected = picks.clone();
        let fallback = selected.len() < 2;
        if fallback {
            fallbacks.ranking += 1;
            for a in shuffled(query, n, 2, None, "rank_fallback") {
                if selected.len() < 2 && !selected.contains(&a) {
                    selected.push(a);
                }
            }
        }
        let trace = json!({
            "ranker": Roster::agent_id(n), "shown": ids(&shown), "picks": ids(&picks),
            "selected": ids(&selected), "fallback": fallback,
        });
        Ok((selected, trace))
    }
}
