//! Solving a query on a drawn acyclic communication graph, shared by GPTSwarm and G-Designer
//! (docs/design/baselines.md §3.13–§3.14): nodes run in topological layers (concurrently
//! within a layer), a node without predecessors answering the query and a node with some
//! seeing their solutions (`prompts/debate/update.jinja`); the decision is the plurality vote
//! over every node's answer.

use serde_json::json;

use super::edges::potential_edges;
use crate::reasoning::common::{ask_all, ask_options, baseline_roster, Failures};
use crate::reasoning::vote::decide;
use crate::reasoning::{debate_prompt, PolicyError, PolicyOutput, Query, Roster};

/// How a graph's nodes are asked.
#[derive(Debug, Clone, Copy)]
pub struct Dag<'a> {
    /// The policy's name (recorded in the trace).
    pub method: &'static str,
    /// The method field of the calls' seeds (training steps use their own).
    pub seeds: &'a str,
    /// Nodes.
    pub agents: usize,
    /// A role per node, opening its prompt (`Your role: …`); empty: none.
    pub roles: &'a [String],
}

/// Solves `query` on `graph` (one flag per [`potential_edges`] entry).
pub async fn run_dag(
    query: &Query,
    roster: &Roster,
    graph: &[bool],
    dag: &Dag<'_>,
) -> Result<PolicyOutput, PolicyError> {
    let n = dag.agents;
    let team = baseline_roster(roster, n, false)?.team(n)?;
    let pairs = potential_edges(n);
    let preds: Vec<Vec<usize>> = (0..n)
        .map(|j| {
            pairs
                .iter()
                .zip(graph)
                .filter(|((_, to), on)| *to == j && **on)
                .map(|((from, _), _)| *from)
                .collect()
        })
        .collect();
    let mut depth = vec![0usize; n];
    for j in 0..n {
        depth[j] = preds[j].iter().map(|&p| depth[p] + 1).max().unwrap_or(0);
    }
    let mut failures = Failures::default();
    let mut texts = vec![String::new(); n];
    for layer in 0..=depth.iter().copied().max().unwrap_or(0) {
        let r = u32::try_from(layer).unwrap_or(u32::MAX);
        let asks = (0..n)
            .filter(|&j| depth[j] == layer)
            .map(|j| {
                let body = if preds[j].is_empty() {
                    query.text()
                } else {
                    let shown: Vec<&str> = preds[j].iter().map(|&p| texts[p].as_str()).collect();
                    debate_prompt(query, &shown)?
                };
                let prompt = match dag.roles.get(j) {
                    Some(role) => format!("Your role: {role}\n\n{body}"),
                    None => body,
                };
                Ok((j, prompt, ask_options(query, dag.seeds, Some(r), j)))
            })
            .collect::<Result<Vec<_>, PolicyError>>()?;
        for (j, result) in ask_all(&team, asks).await {
            texts[j] = failures.turn(Some(r), j, result).text;
        }
    }
    let answers: Vec<Option<String>> = texts.iter().map(|t| query.extract(t)).collect();
    let shown: Vec<&str> = texts.iter().map(String::as_str).collect();
    let d = decide(&shown, &answers, &query.item.answer_type);
    let on: Vec<[usize; 2]> = pairs
        .iter()
        .zip(graph)
        .filter(|(_, on)| **on)
        .map(|(&(i, j), _)| [i, j])
        .collect();
    failures
        .finish(team, |errors| {
            let trace = json!({
                "method": dag.method, "agents": n, "edges": on, "depth": depth,
                "answers": answers, "winner": d.vote.winner, "answer": d.answer,
                "errors": errors,
            });
            (d.text.clone(), d.answer.clone(), trace)
        })
        .await
}
