//! MacNet, compact with a random topology (docs/design/baselines.md §3.6): agents on a random DAG
//! refine each other's answers layer by layer, from a virtual source to a virtual sink.
//!
//! * **Topology:** `m ~ Uniform{N−1, …, N(N−1)/2}` distinct pairs `u < v` (edge `u → v`),
//!   drawn from the item's `purpose = "topology"` stream; the graph may be disconnected. A
//!   virtual source feeds every node without parents, a virtual sink reads every node without
//!   children. A node's depth is its longest path from the source; the sink's is `D`.
//! * **Agents:** real node `v` is `agent_v`, with a persona system prompt drawn from the role
//!   pool of §1.3 (`purpose = "persona"`) and temperature `1 − depth/D` on all its calls; the
//!   sink is `agent_N` (no system prompt, temperature 0).
//! * **Layers**, in depth order, each in three concurrent phases (so every agent receives its
//!   asks in a fixed order and transcripts do not depend on completion order): reviews (for
//!   each edge `u → v`, `v` names the one most important improvement of `u`'s answer), then
//!   improvements (`v` rewrites `u`'s answer given that review; a source edge is a plain
//!   answer), then syntheses (a node with two or more incoming edges merges its improved
//!   answers in one call). The sink synthesises its inputs the same way or passes a single
//!   input through; its answer is the output.
//!
//! Decisions where the spec leaves room:
//!
//! * **Personas** are drawn with replacement, node by node, from the eight pool cards.
//! * **`fixed_topology=true`** draws the graph and the personas from the run seed alone
//!   (empty sample id), so every item shares them.
//! * **Failed calls** leave empty text (counted in `failed_calls`): an edge whose source
//!   answer is empty is run as a source edge (no review of nothing), and a synthesis with
//!   fewer than two non-empty inputs is skipped (the one input passes, or the node stays
//!   empty); both are counted in the trace (`empty_inputs`, `skipped_syntheses`).
//! * **Bounds:** at most [`MacNetOptions::MAX_AGENTS`] agents (the edge count grows with N²).

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde::Serialize;
use serde_json::json;

use super::common::{ask_all, format_suffix, resized, Failures};
use super::common::{shown_text, step_options};
use super::role_pool::{role_pool, with_prompt_of};
use super::seeds::{below, shuffle, stream};
use super::{check_range, prompts, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};
use crate::options::{choice, PolicyOptions};
use colony_runtime::{AskOptions, RoleCard};

/// `prompts/macnet/review.jinja`: `v` reviews `u`'s answer.
pub const REVIEW: &str = include_str!("../../../../prompts/macnet/review.jinja");
/// `prompts/macnet/improve.jinja`: `v` improves `u`'s answer (or answers, on a source edge).
pub const IMPROVE: &str = include_str!("../../../../prompts/macnet/improve.jinja");
/// `prompts/macnet/synthesize.jinja`: a node (or the sink) merges several answers.
pub const SYNTHESIZE: &str = include_str!("../../../../prompts/macnet/synthesize.jinja");

const METHOD: &str = "macnet";

/// Settings of MacNet (§3.6; SelfOrg's setting: 5 agents, random topology).
#[derive(Debug, Clone, PartialEq)]
pub struct MacNetOptions {
    /// Agents N (default 5).
    pub agents: usize,
    /// One topology (and persona draw) for every item instead of one per item.
    pub fixed_topology: bool,
}

impl Default for MacNetOptions {
    fn default() -> Self {
        Self {
            agents: 5,
            fixed_topology: false,
        }
    }
}

impl MacNetOptions {
    /// The most agents: up to N(N−1)/2 edges, two calls each.
    pub const MAX_AGENTS: usize = 16;

    /// Options from `macnet:agents=5,fixed_topology=false`.
    pub(crate) fn from_options(o: &mut PolicyOptions) -> Result<Self, PolicyError> {
        let d = Self::default();
        Ok(Self {
            agents: o.count("agents")?.unwrap_or(d.agents),
            fixed_topology: choice(o, "fixed_topology", "true|false")?
                .map_or(d.fixed_topology, |v| v == "true"),
        })
    }
}

/// A MacNet graph over `agents` real nodes, with its virtual source and sink implied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Topology {
    /// Real nodes N.
    pub agents: usize,
    /// Edges `(u, v)` with `u < v`, sorted.
    pub edges: Vec<(usize, usize)>,
    /// Per node, the longest path from the virtual source (nodes without parents: 1).
    pub depth: Vec<usize>,
    /// The virtual sink's depth `D` (one more than the deepest node).
    pub sink_depth: usize,
}

impl Topology {
    /// The topology of `edges` (each `u < v < agents`; others are dropped).
    pub fn new(agents: usize, mut edges: Vec<(usize, usize)>) -> Self {
        edges.retain(|&(u, v)| u < v && v < agents);
        edges.sort_unstable();
        edges.dedup();
        let mut depth = vec![1usize; agents];
        // u < v: ids are a topological order.
        for &(u, v) in &edges {
            depth[v] = depth[v].max(depth[u] + 1);
        }
        let sink_depth = depth.iter().copied().max().unwrap_or(0) + 1;
        Self {
            agents,
            edges,
            depth,
            sink_depth,
        }
    }

    /// The random topology of §3.6: `m ~ Uniform{N−1, …, N(N−1)/2}`, then the first `m` of all
    /// pairs `u < v` (in lexicographic order) shuffled with `rng`.
    pub fn random(agents: usize, rng: &mut rand_chacha::ChaCha8Rng) -> Self {
        let lo = agents.saturating_sub(1);
        let hi = agents * agents.saturating_sub(1) / 2;
        let m = lo + below(rng, hi - lo + 1);
        let mut pairs: Vec<(usize, usize)> = (0..agents)
            .flat_map(|u| (u + 1..agents).map(move |v| (u, v)))
            .collect();
        shuffle(rng, &mut pairs);
        pairs.truncate(m);
        Self::new(agents, pairs)
    }

    /// Parents of `v`, ascending.
    pub fn parents(&self, v: usize) -> Vec<usize> {
        self.edges
            .iter()
            .filter(|&&(_, w)| w == v)
            .map(|&(u, _)| u)
            .collect()
    }

    /// Nodes without children (the virtual sink's inputs), ascending.
    pub fn sinks(&self) -> Vec<usize> {
        (0..self.agents)
            .filter(|&u| !self.edges.iter().any(|&(a, _)| a == u))
            .collect()
    }

    /// Real nodes by depth: `layers()[d − 1]` holds the nodes of depth `d`, ascending.
    pub fn layers(&self) -> Vec<Vec<usize>> {
        (1..self.sink_depth)
            .map(|d| (0..self.agents).filter(|&v| self.depth[v] == d).collect())
            .collect()
    }

    /// Temperature of node `v` (`1 − depth/D`); the sink's (`agents`) is 0.
    pub fn temperature(&self, v: usize) -> f64 {
        let d = self.depth.get(v).copied().unwrap_or(self.sink_depth);
        1.0 - d as f64 / self.sink_depth.max(1) as f64
    }
}

/// The MacNet policy.
#[derive(Clone)]
pub struct MacNet {
    options: MacNetOptions,
    pool: Vec<Arc<RoleCard>>,
}

impl MacNet {
    /// MacNet with 1 to [`MacNetOptions::MAX_AGENTS`] agents ([`PolicyError::OutOfRange`]
    /// otherwise).
    pub fn new(options: MacNetOptions) -> Result<Self, PolicyError> {
        check_range(
            METHOD,
            "agents",
            options.agents,
            1,
            MacNetOptions::MAX_AGENTS,
        )?;
        let pool = role_pool()?;
        Ok(Self { options, pool })
    }

    /// The options.
    pub fn options(&self) -> &MacNetOptions {
        &self.options
    }

    /// The sample id topology and personas are drawn for (empty with `fixed_topology`).
    fn sample<'a>(&self, query: &'a Query) -> &'a str {
        if self.options.fixed_topology {
            ""
        } else {
            &query.item.id
        }
    }

    /// The item's random stream for `purpose` (see [`stream`]).
    fn item_stream(&self, query: &Query, purpose: &str) -> rand_chacha::ChaCha8Rng {
        stream(
            query.run_seed,
            self.sample(query),
            METHOD,
            None,
            None,
            purpose,
        )
    }

    /// The item's topology (the `purpose = "topology"` stream).
    pub fn topology(&self, query: &Query) -> Topology {
        let mut rng = self.item_stream(query, "topology");
        Topology::random(self.options.agents, &mut rng)
    }

    /// The item's persona per node: indices into the role pool (`purpose = "persona"`).
    pub fn personas(&self, query: &Query) -> Vec<usize> {
        let mut rng = self.item_stream(query, "persona");
        (0..self.options.agents)
            .map(|_| below(&mut rng, self.pool.len()))
            .collect()
    }
}

/// The review prompt of edge `u → v`.
pub fn review_prompt(query: &Query, previous: &str) -> Result<String, PolicyError> {
    prompts::render(
        REVIEW,
        minijinja::context! { question => &query.item.question, previous => shown_text(previous) },
    )
}

/// The improvement prompt of an edge (`previous` and `review` empty on a source edge).
pub fn improve_prompt(query: &Query, previous: &str, review: &str) -> Result<String, PolicyError> {
    prompts::render(
        IMPROVE,
        minijinja::context! {
            question => &query.item.question, previous => previous.trim(),
            review => shown_text(review), suffix => format_suffix(query),
        },
    )
}

/// The synthesis prompt over `solutions`.
pub fn synthesize_prompt(query: &Query, solutions: &[&str]) -> Result<String, PolicyError> {
    let solutions: Vec<String> = solutions.iter().map(|s| shown_text(s)).collect();
    prompts::render(
        SYNTHESIZE,
        minijinja::context! {
            question => &query.item.question, solutions => solutions, suffix => format_suffix(query),
        },
    )
}

/// Call counts and degenerate cases of one item.
#[derive(Debug, Default, Serialize)]
struct Counts {
    reviews: u32,
    improvements: u32,
    syntheses: u32,
    empty_inputs: u32,
    skipped_syntheses: u32,
}

/// Options of node `agent`'s call at `step` in layer `depth`, at its temperature.
fn options(query: &Query, depth: usize, agent: usize, step: &str, temperature: f64) -> AskOptions {
    let round = u32::try_from(depth).unwrap_or(u32::MAX);
    step_options(query, METHOD, round, agent, step).temperature(temperature as f32)
}

/// What a node (or the sink) does with its improved answers: `Ok(text)` when there is no
/// call to make (one non-empty input passes, none leaves it empty), else the inputs to merge.
fn merge_or_pass(inputs: &[String], counts: &mut Counts) -> Result<String, Vec<String>> {
    let full: Vec<String> = inputs
        .iter()
        .filter(|t| !t.trim().is_empty())
        .cloned()
        .collect();
    if full.len() >= 2 {
        return Err(full);
    }
    if inputs.len() >= 2 {
        counts.skipped_syntheses += 1;
    }
    Ok(full.into_iter().next().unwrap_or_default())
}

#[async_trait]
impl ReasoningPolicy for MacNet {
    fn name(&self) -> &str {
        METHOD
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let n = self.options.agents;
        let topo = self.topology(query);
        let personas = self.personas(query);
        let mut members = resized(roster, n + 1, false)?;
        let sink_card = RoleCard::new("sink", "");
        for (i, m) in members.members.iter_mut().enumerate() {
            let card = personas
                .get(i)
                .and_then(|&p| self.pool.get(p))
                .map_or(&sink_card, |c| c.as_ref());
            m.role = with_prompt_of(&m.role, card);
        }
        let team = members.team(n + 1)?;
        let mut failures = Failures::default();
        let mut counts = Counts::default();
        let mut answer: Vec<String> = vec![String::new(); n];
        let mut nodes: BTreeMap<String, serde_json::Value> = BTreeMap::new();
        for (d0, layer) in topo.layers().into_iter().enumerate() {
            let depth = d0 + 1;
            let round = u32::try_from(depth).unwrap_or(u32::MAX);
            // Inputs per node: (parent or None for the source edge, its answer).
            let inputs: Vec<Vec<Option<usize>>> = layer
                .iter()
                .map(|&v| {
                    let p = topo.parents(v);
                    if p.is_empty() {
                        vec![None]
                    } else {
                        p.into_iter().map(Some).collect()
                    }
                })
                .collect();
            let reviewed = |u: Option<usize>| u.filter(|&u| !answer[u].trim().is_empty());
            // Phase 1: reviews of non-empty parent answers.
            let mut asks = Vec::new();
            for (&v, ins) in layer.iter().zip(&inputs) {
                for u in ins.iter().filter_map(|&u| reviewed(u)) {
                    let step = format!("review {}", Roster::agent_id(u));
                    let o = options(query, depth, v, &step, topo.temperature(v));
                    asks.push((v, review_prompt(query, &answer[u])?, o));
                }
            }
            counts.reviews += asks.len() as u32;
            let reviews: Vec<String> = failures.ask_texts(&team, Some(round), asks).await;
            let mut reviews = reviews.into_iter();
            // Phase 2: improvements, one per input edge.
            let mut asks = Vec::new();
            for (&v, ins) in layer.iter().zip(&inputs) {
                for &u in ins {
                    let (prompt, step) = match reviewed(u) {
                        Some(u) => {
                            let review = reviews.next().unwrap_or_default();
                            let step = format!("improve {}", Roster::agent_id(u));
                            (improve_prompt(query, &answer[u], &review)?, step)
                        }
                        None => {
                            counts.empty_inputs += u32::from(u.is_some());
                            (improve_prompt(query, "", "")?, "answer".to_string())
                        }
                    };
                    asks.push((
                        v,
                        prompt,
                        options(query, depth, v, &step, topo.temperature(v)),
                    ));
                }
            }
            counts.improvements += asks.len() as u32;
            let improved: Vec<String> = failures.ask_texts(&team, Some(round), asks).await;
            let mut improved = improved.into_iter();
            // Phase 3: syntheses of nodes with two or more inputs.
            let mut asks = Vec::new();
            for (&v, ins) in layer.iter().zip(&inputs) {
                let texts: Vec<String> = ins
                    .iter()
                    .map(|_| improved.next().unwrap_or_default())
                    .collect();
                match merge_or_pass(&texts, &mut counts) {
                    Ok(text) => answer[v] = text,
                    Err(full) => {
                        let refs: Vec<&str> = full.iter().map(String::as_str).collect();
                        let o = options(query, depth, v, "synthesize", topo.temperature(v));
                        asks.push((v, synthesize_prompt(query, &refs)?, o));
                    }
                }
                let from: Vec<String> = ins
                    .iter()
                    .map(|u| u.map_or_else(|| "source".to_string(), Roster::agent_id))
                    .collect();
                nodes.insert(
                    Roster::agent_id(v),
                    json!({ "depth": depth, "inputs": from, "synthesis": false }),
                );
            }
            counts.syntheses += asks.len() as u32;
            for (v, r) in ask_all(&team, asks).await {
                answer[v] = failures.turn(Some(round), v, r).text;
                if let Some(node) = nodes.get_mut(&Roster::agent_id(v)) {
                    node["synthesis"] = json!(true);
                }
            }
            for &v in &layer {
                if let Some(node) = nodes.get_mut(&Roster::agent_id(v)) {
                    node["answer"] = json!(query.extract(&answer[v]));
                }
            }
        }
        // The virtual sink.
        let sinks = topo.sinks();
        let sink_inputs: Vec<String> = sinks.iter().map(|&u| answer[u].clone()).collect();
        let mut sink_synthesis = false;
        let final_text = match merge_or_pass(&sink_inputs, &mut counts) {
            Ok(text) => text,
            Err(full) => {
                sink_synthesis = true;
                counts.syntheses += 1;
                let refs: Vec<&str> = full.iter().map(String::as_str).collect();
                let depth = topo.sink_depth;
                let o = options(query, depth, n, "synthesize", topo.temperature(n));
                let asks = vec![(n, synthesize_prompt(query, &refs)?, o)];
                let round = u32::try_from(depth).unwrap_or(u32::MAX);
                let mut text = String::new();
                for (a, r) in ask_all(&team, asks).await {
                    text = failures.turn(Some(round), a, r).text;
                }
                text
            }
        };
        let final_answer = query.extract(&final_text);
        let by_node =
            |f: &dyn Fn(usize) -> serde_json::Value| -> BTreeMap<String, serde_json::Value> {
                (0..n).map(|v| (Roster::agent_id(v), f(v))).collect()
            };
        let depth = by_node(&|v| json!(topo.depth[v]));
        let temperature = by_node(&|v| json!(topo.temperature(v)));
        let persona = by_node(&|v| {
            json!(personas
                .get(v)
                .and_then(|&p| self.pool.get(p))
                .map(|c| c.name.clone()))
        });
        let layers: Vec<Vec<String>> = topo
            .layers()
            .iter()
            .map(|l| l.iter().map(|&v| Roster::agent_id(v)).collect())
            .collect();
        failures
            .finish(team, |errors| {
                let trace = json!({
                    "method": METHOD, "agents": n, "fixed_topology": self.options.fixed_topology,
                    "m": topo.edges.len(), "edges": topo.edges, "depth": depth,
                    "sink_depth": topo.sink_depth, "temperature": temperature, "personas": persona,
                    "layers": layers, "nodes": nodes,
                    "sink": {
                        "agent": Roster::agent_id(n),
                        "inputs": sinks.iter().map(|&u| Roster::agent_id(u)).collect::<Vec<_>>(),
                        "synthesis": sink_synthesis,
                    },
                    "counts": counts, "answer": final_answer, "errors": errors,
                });
                (final_text, final_answer.clone(), trace)
            })
            .await
    }
}
