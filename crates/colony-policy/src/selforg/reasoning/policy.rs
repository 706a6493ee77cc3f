//! The SelfOrg policy (docs/design/selforg.md §1.2, §1.5, §1.10, §1.12, §1.13): round 0 of
//! independent answers, then collaboration rounds over a DAG rebuilt from response embeddings,
//! with the contribution-weighted centroid's nearest response as each round's output.
//!
//! Within a round, agents whose parents are all done run concurrently (in-degree counters and
//! a ready set); the result equals processing the topological order one by one, because a
//! prompt depends only on round-start state and the parents' finished responses, seeds depend
//! on (item, round, agent), and results are stored by agent id. `sequential = true` runs the
//! order one by one, which the tests use to check that equality.

use crate::reasoning::prompts;
use std::sync::Arc;

use async_trait::async_trait;
use futures::stream::{FuturesUnordered, StreamExt};
use ndarray::Array2;
use serde_json::json;

use super::{
    aggregate_masked, build_graph_from, early_stop, similarity, EmbedInput, Graph, GraphOptions,
};
use crate::reasoning::common::{ask_options, format_suffix, Failures};
use crate::reasoning::{check_range, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};
use colony_llm::embed::Embedder;
use colony_runtime::Team;

/// Settings of SelfOrg (defaults of §1.2).
#[derive(Debug, Clone, PartialEq)]
pub struct SelfOrgOptions {
    /// Agents (4 for math sets, 5 for knowledge sets).
    pub agents: usize,
    /// Rounds including round 0 (3).
    pub max_rounds: u32,
    /// Graph rule, k and tau.
    pub graph: GraphOptions,
    /// Rebuild the graph after every round (true) or keep the round-0 graph.
    pub reform: bool,
    /// Early stopping threshold on `S_min` (off by default).
    pub gamma: Option<f64>,
    /// Show each agent its own previous answer (true).
    pub include_own_previous: bool,
    /// Run each round's agents one by one in topological order (for equivalence checks).
    pub sequential: bool,
    /// Which part of each response is embedded (`embed=full|tail|answer`; full by default).
    pub embed: EmbedInput,
}

impl Default for SelfOrgOptions {
    fn default() -> Self {
        Self {
            agents: 4,
            max_rounds: 3,
            graph: GraphOptions::default(),
            reform: true,
            gamma: None,
            include_own_previous: true,
            sequential: false,
            embed: EmbedInput::Full,
        }
    }
}

/// The SelfOrg policy with its embedder (the paper uses all-MiniLM-L6-v2; results must name it).
#[derive(Clone)]
pub struct SelfOrg {
    options: SelfOrgOptions,
    embedder: Arc<dyn Embedder>,
    name: String,
}

impl SelfOrgOptions {
    /// The most agents SelfOrg takes (the graph and every round grow with N²).
    pub const MAX_AGENTS: usize = 64;
    /// The most rounds SelfOrg takes, round 0 included.
    pub const MAX_ROUNDS: u32 = 20;
    /// The largest neighbour budget `k` (0 = no limit stays allowed).
    pub const MAX_K: usize = 64;
}

impl SelfOrg {
    /// SelfOrg with `options`, embedding responses with `embedder`.
    ///
    /// `agents` must be from 1 to [`SelfOrgOptions::MAX_AGENTS`], `max_rounds` from 1 to
    /// [`SelfOrgOptions::MAX_ROUNDS`], `graph.k` at most [`SelfOrgOptions::MAX_K`]
    /// ([`PolicyError::OutOfRange`]); `graph.tau` and `gamma` must be finite
    /// ([`PolicyError::NotFinite`]). Results are filed under `selforg`, or `selforg_tail` /
    /// `selforg_answer` with another embedding window, so the variants share one table.
    pub fn new(options: SelfOrgOptions, embedder: Arc<dyn Embedder>) -> Result<Self, PolicyError> {
        type O = SelfOrgOptions;
        check_range("selforg", "agents", options.agents, 1, O::MAX_AGENTS)?;
        let rounds = options.max_rounds as usize;
        check_range("selforg", "rounds", rounds, 1, O::MAX_ROUNDS as usize)?;
        check_range("selforg", "k", options.graph.k, 0, O::MAX_K)?;
        for (option, value) in [("tau", Some(options.graph.tau)), ("gamma", options.gamma)] {
            if let Some(value) = value.filter(|v| !v.is_finite()) {
                return Err(PolicyError::NotFinite {
                    policy: "selforg",
                    option,
                    value,
                });
            }
        }
        let name = match options.embed {
            EmbedInput::Full => "selforg".to_string(),
            other => format!("selforg_{}", other.name()),
        };
        Ok(Self {
            options,
            embedder,
            name,
        })
    }

    /// The options.
    pub fn options(&self) -> &SelfOrgOptions {
        &self.options
    }
}

/// Embeddings of a round's responses, each cut to the `window` (§1.6, `embed=`); empty
/// responses get the zero vector.
async fn embed_round(
    embedder: &dyn Embedder,
    window: EmbedInput,
    texts: &[String],
) -> Result<Array2<f32>, PolicyError> {
    let limit = embedder.max_input_tokens();
    let inputs: Vec<String> = match window {
        EmbedInput::Full => texts.to_vec(),
        w => texts.iter().map(|t| w.select(t, limit)).collect(),
    };
    let mut r = embedder
        .embed(&inputs)
        .await
        .map_err(|source| PolicyError::Embedding {
            policy: "selforg",
            source,
        })?;
    for (i, t) in texts.iter().enumerate() {
        if t.trim().is_empty() {
            r.row_mut(i).fill(0.0);
        }
    }
    Ok(r)
}

/// Round-start state every prompt of a round reads (never mutated during the round).
struct RoundInput<'a> {
    previous: &'a [String],
    rstar: &'a str,
    nstar: usize,
    graph: &'a Graph,
}

/// Agent `n`'s round-t prompt (§1.10), given its parents' finished current-round responses
/// (`prompts/selforg/collaborate.jinja`).
fn collaboration_prompt(
    query: &Query,
    opts: &SelfOrgOptions,
    input: &RoundInput<'_>,
    n: usize,
    current: &[Option<String>],
) -> Result<String, PolicyError> {
    let leader = n == input.graph.leader;
    let self_reflect = leader && input.nstar == n;
    let parents: Vec<serde_json::Value> = input
        .graph
        .parents_by_psi(n)
        .into_iter()
        .filter_map(|m| current.get(m).and_then(|r| r.as_ref()).map(|r| (m, r)))
        .filter(|(_, r)| !r.trim().is_empty())
        .map(|(m, r)| serde_json::json!({ "id": m, "text": r }))
        .collect();
    prompts::render(
        prompts::SELFORG_COLLABORATE,
        minijinja::context! {
            question => &query.item.question,
            show_previous => opts.include_own_previous || self_reflect,
            previous => &input.previous[n],
            self_reflect => self_reflect,
            rstar => if leader { input.rstar } else { "" },
            parents => parents,
            suffix => format_suffix(query),
        },
    )
}

impl SelfOrg {
    /// One collaboration round over `input.graph`: DAG-parallel unless `sequential`.
    async fn run_round(
        &self,
        team: &Team,
        query: &Query,
        round: u32,
        input: &RoundInput<'_>,
        failures: &mut Failures,
    ) -> Result<Vec<String>, PolicyError> {
        let n = input.previous.len();
        let graph = input.graph;
        let mut current: Vec<Option<String>> = vec![None; n];
        let ask = |agent: usize, current: &[Option<String>]| {
            let prompt = collaboration_prompt(query, &self.options, input, agent, current)?;
            let options = ask_options(query, "selforg", Some(round), agent).stateless();
            Ok::<_, PolicyError>(async move {
                (
                    agent,
                    team.ask_with(crate::reasoning::Roster::agent_id(agent), prompt, options)
                        .await,
                )
            })
        };
        if self.options.sequential {
            for &agent in &graph.order {
                let (i, result) = ask(agent, &current)?.await;
                current[i] = Some(failures.turn(Some(round), i, result).text);
            }
        } else {
            let mut waiting: Vec<usize> = (0..n).map(|m| graph.parents(m).len()).collect();
            let mut running = FuturesUnordered::new();
            for &agent in &graph.order {
                if waiting[agent] == 0 {
                    running.push(ask(agent, &current)?);
                }
            }
            // Results are stored by agent id; failures are recorded in a fixed order below.
            let mut results = Vec::with_capacity(n);
            while let Some((i, result)) = running.next().await {
                let text = match &result {
                    Ok(reply) => reply.text.clone(),
                    Err(_) => String::new(),
                };
                current[i] = Some(text);
                results.push((i, result));
                for child in graph.children(i) {
                    waiting[child] = waiting[child].saturating_sub(1);
                    if waiting[child] == 0 {
                        running.push(ask(child, &current)?);
                    }
                }
            }
            // Record turns in topological order, as the sequential run does.
            results.sort_by_key(|(i, _)| graph.order.iter().position(|o| o == i));
            for (i, result) in results {
                failures.turn(Some(round), i, result);
            }
        }
        Ok(current.into_iter().map(Option::unwrap_or_default).collect())
    }
}

#[async_trait]
impl ReasoningPolicy for SelfOrg {
    fn name(&self) -> &str {
        &self.name
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let opts = &self.options;
        let roster = crate::reasoning::common::resized(roster, opts.agents, false)?;
        let n = opts.agents;
        let team = roster.team(n)?;
        let mut failures = Failures::default();
        let mut rounds = Vec::new();

        // Round 0: independent answers (§1.5).
        let asks = (0..n)
            .map(|i| {
                (
                    i,
                    query.text(),
                    ask_options(query, "selforg", Some(0), i).stateless(),
                )
            })
            .collect();
        let mut responses: Vec<String> = failures.ask_texts(&team, Some(0), asks).await;
        let mut rstar = String::new();
        let mut nstar = 0usize;
        let mut graph_in_use: Option<Graph> = None;
        let mut stop = "max_rounds";
        for t in 0..opts.max_rounds {
            if t > 0 {
                let Some(graph) = graph_in_use.as_ref() else {
                    break;
                };
                let input = RoundInput {
                    previous: &responses,
                    rstar: &rstar,
                    nstar,
                    graph,
                };
                let next = self
                    .run_round(&team, query, t, &input, &mut failures)
                    .await?;
                responses = next;
            }
            let r = embed_round(self.embedder.as_ref(), opts.embed, &responses).await?;
            let s = similarity(r.view());
            let psi = super::contributions(r.view());
            let graph = build_graph_from(s.view(), &psi, &opts.graph).map_err(|source| {
                PolicyError::Graph {
                    policy: "selforg",
                    source,
                }
            })?;
            let empty: Vec<bool> = responses.iter().map(|x| x.trim().is_empty()).collect();
            let agg = aggregate_masked(r.view(), &psi, &empty);
            let all_empty = agg.as_ref().is_none_or(|a| a.all_empty);
            if !all_empty {
                if let Some(a) = &agg {
                    nstar = a.nstar;
                    rstar = responses[nstar].clone();
                }
                if opts.reform || graph_in_use.is_none() {
                    graph_in_use = Some(graph.clone());
                }
            }
            rounds.push(json!({
                "round": t,
                "answers": responses.iter().map(|x| query.extract(x)).collect::<Vec<_>>(),
                "psi": graph.psi,
                "s": s.rows().into_iter().map(|row| row.to_vec()).collect::<Vec<_>>(),
                "edges": graph.edges,
                "removed": graph.removed,
                "order": graph.order,
                "leader": graph.leader,
                "nstar": nstar,
                "all_empty": all_empty,
            }));
            if t + 1 < opts.max_rounds && n >= 2 && early_stop(s.view(), opts.gamma) {
                stop = "early_stop";
                break;
            }
        }
        let answer = query.extract(&rstar);
        let embedder = self.embedder.id().to_string();
        failures
            .finish(team, |errors| {
                let trace = json!({
                    "method": "selforg",
                    "embedder": embedder,
                    "embed": opts.embed.name(),
                    "rounds": rounds,
                    "stop": stop,
                    "answer": answer,
                    "errors": errors,
                });
                (rstar, answer.clone(), trace)
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use colony_qa::{AnswerType, Item};

    fn query() -> Query {
        Query {
            item: Item {
                id: "0".into(),
                question: "What is 2 + 3?".into(),
                choices: vec![],
                gold: "5".into(),
                answer_type: AnswerType::Numeric,
                meta: Default::default(),
            },
            run_seed: 0,
        }
    }

    /// The exact wording of §1.10's prompts (the template must reproduce it byte for byte).
    #[test]
    fn collaboration_prompts_word_for_word() {
        let q = query();
        let suffix = format_suffix(&q);
        // Agent 2 listens to 0 and 1 (ψ: 1 before 0); agent 0 leads; agent 1 is R*'s author.
        let graph = Graph {
            psi: vec![0.5, 0.9, 0.1],
            edges: vec![(0, 2), (1, 0), (1, 2)],
            order: vec![1, 0, 2],
            leader: 1,
            removed: vec![],
        };
        let previous = vec!["p0".to_string(), "p1".to_string(), "p2".to_string()];
        let input = RoundInput {
            previous: &previous,
            rstar: "R*",
            nstar: 0,
            graph: &graph,
        };
        let opts = SelfOrgOptions::default();
        let current = vec![Some("c0".to_string()), Some("c1".to_string()), None];
        let tail = "\n\nUse the information above as additional input. Check it critically, it \
                    may be wrong, and give a complete, updated solution.";
        assert_eq!(
            collaboration_prompt(&q, &opts, &input, 2, &current).unwrap(),
            format!(
                "What is 2 + 3?\n\nYour previous answer:\np2\n\nAnswers of other agents in \
                 this round:\n\n[Agent 1]\nc1\n\n[Agent 0]\nc0{tail}{suffix}"
            )
        );
        // The leader sees R* (written by someone else) and no parents.
        assert_eq!(
            collaboration_prompt(&q, &opts, &input, 1, &current).unwrap(),
            format!(
                "What is 2 + 3?\n\nYour previous answer:\np1\n\nThe answer currently judged \
                 most representative of the team:\nR*{tail}{suffix}"
            )
        );
        // The leader wrote R* itself: asked to re-examine; without its own previous answer
        // by default it still sees it (self-reflection needs it).
        let own = RoundInput { nstar: 1, ..input };
        let no_prev = SelfOrgOptions {
            include_own_previous: false,
            ..SelfOrgOptions::default()
        };
        assert_eq!(
            collaboration_prompt(&q, &no_prev, &own, 1, &current).unwrap(),
            format!(
                "What is 2 + 3?\n\nYour previous answer:\np1\n\nYour previous answer was judged \
                 the most representative of the team. Re-examine it critically before answering \
                 again.{tail}{suffix}"
            )
        );
        // Not the leader, no previous answer, empty parent responses are skipped.
        let blank = vec![Some("  ".to_string()), Some(String::new()), None];
        assert_eq!(
            collaboration_prompt(&q, &no_prev, &input, 2, &blank).unwrap(),
            format!("What is 2 + 3?{tail}{suffix}")
        );
    }
}
