//! GPTSwarm of Zhuge et al. (2024) (docs/design/baselines.md §3.13): agents as the nodes of a
//! graph whose edge probabilities are optimised by REINFORCE on a training split, then frozen
//! and evaluated.
//!
//! Per item: a graph is drawn from the edge distribution ([`edges::EdgeModel`]; edges `i → j`
//! with i < j, so it is acyclic); nodes run in topological layers, a node without predecessors
//! answering the query and a node with some answering with its predecessors' solutions shown
//! (the LLM-Debate update prompt, `prompts/debate/update.jinja`); the final decision is the
//! plurality vote over every node's answer (GPTSwarm's majority-vote decision node). Calls:
//! `agents` per item.
//!
//! Training (`colony eval --train N`): `iterations` steps of `batch` training items, each item
//! solved on its own sampled graph; its utility is 1 when the dataset's grader accepts the
//! answer, else 0; the edge logits ascend the REINFORCE gradient with Adam at `lr`. The learnt
//! edges are saved with the run (`<label>.<dataset>.learnt.json`) and reused by a resumed run, or by
//! another run with `edges=FILE`.
//!
//! Decisions where the paper leaves room:
//! * **Defaults:** `agents = 4`, initial probability 0.5 and `lr = 0.1` as in GPTSwarm's edge
//!   optimisation; `iterations = 20` and `batch = 4` bound the training cost (the paper trains
//!   longer: raise `iterations`).
//! * **Evaluation** draws each item's graph from the frozen distribution (seeded by the item),
//!   as GPTSwarm realises its graph per query; `trained` in the trace says whether the edges
//!   were learnt. Without `--train` or `edges=`, the untrained distribution (every edge at
//!   0.5) is used and a warning is logged.
//! * **Failures in training are not utilities of 0:** a training sample with a failed call is
//!   left out of the gradient and counted (`failed_samples` in the saved file).
//! * The training utility uses the dataset's answer rule (code items are not run in training).

pub mod dag;
pub mod edges;
pub(crate) mod training;

use std::path::Path;
use std::sync::RwLock;

use async_trait::async_trait;
use futures::future::join_all;
use serde_json::json;

use super::{
    check_range, stream, Learnt, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster,
    TrainSplit,
};
use crate::options::PolicyOptions;
use edges::EdgeModel;

const METHOD: &str = "gptswarm";
/// The largest saved-edges file read (`edges=FILE`; a few hundred edges).
pub const MAX_EDGES_FILE_BYTES: u64 = 1 << 20;

/// GPTSwarm's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct GptSwarmOptions {
    /// Nodes (agents), 2 to [`Self::MAX_AGENTS`] (default 4).
    pub agents: usize,
    /// Training steps (default 20).
    pub iterations: usize,
    /// Training items per step (default 4).
    pub batch: usize,
    /// Adam's learning rate (default 0.1).
    pub lr: f64,
    /// Saved edges to start from instead of training (`edges=FILE`).
    pub edges: Option<String>,
}

impl Default for GptSwarmOptions {
    fn default() -> Self {
        Self {
            agents: 4,
            iterations: 20,
            batch: 4,
            lr: 0.1,
            edges: None,
        }
    }
}

impl GptSwarmOptions {
    /// The most nodes.
    pub const MAX_AGENTS: usize = 8;
    /// The most training steps.
    pub const MAX_ITERATIONS: usize = 1000;
    /// The most items per step.
    pub const MAX_BATCH: usize = 64;

    /// From `gptswarm:agents=4,iterations=20,batch=4,lr=0.1,edges=FILE`.
    pub(crate) fn from_options(o: &mut PolicyOptions) -> Result<Self, PolicyError> {
        let d = Self::default();
        Ok(Self {
            agents: o.count("agents")?.unwrap_or(d.agents),
            iterations: o.count("iterations")?.unwrap_or(d.iterations),
            batch: o.count("batch")?.unwrap_or(d.batch),
            lr: o.float("lr")?.unwrap_or(d.lr),
            edges: o.text("edges"),
        })
    }
}

/// The GPTSwarm policy: its options and its (learnt or initial) edge distribution.
#[derive(Debug)]
pub struct GptSwarm {
    options: GptSwarmOptions,
    model: RwLock<(EdgeModel, bool)>,
}

impl GptSwarm {
    /// GPTSwarm with `options` checked; `edges=FILE` is read here (size-bounded).
    pub fn new(options: GptSwarmOptions) -> Result<Self, PolicyError> {
        type O = GptSwarmOptions;
        check_range(METHOD, "agents", options.agents, 2, O::MAX_AGENTS)?;
        check_range(
            METHOD,
            "iterations",
            options.iterations,
            1,
            O::MAX_ITERATIONS,
        )?;
        check_range(METHOD, "batch", options.batch, 1, O::MAX_BATCH)?;
        if !(options.lr.is_finite() && options.lr > 0.0 && options.lr <= 10.0) {
            return Err(PolicyError::Config(format!(
                "gptswarm: option `lr` must be in (0, 10], got {}",
                options.lr
            )));
        }
        let policy = Self {
            model: RwLock::new((EdgeModel::new(options.agents, 0.5), false)),
            options,
        };
        if let Some(path) = policy.options.edges.clone() {
            let state = read_state_file(Path::new(&path), "gptswarm: edges")?;
            policy.load_learnt(&state)?;
        }
        Ok(policy)
    }

    /// The options.
    pub fn options(&self) -> &GptSwarmOptions {
        &self.options
    }

    fn dag<'a>(&self, seeds: &'a str) -> dag::Dag<'a> {
        dag::Dag {
            method: METHOD,
            seeds,
            agents: self.options.agents,
            roles: &[],
        }
    }

    fn snapshot(&self) -> (EdgeModel, bool) {
        self.model
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// Reads a saved learnt-state file (a run's `<label>.<dataset>.learnt.json`), size-bounded; errors
/// start with `what` (`gptswarm: edges`).
pub(crate) fn read_state_file(path: &Path, what: &str) -> Result<serde_json::Value, PolicyError> {
    let err = |m: String| PolicyError::Config(format!("{what}={}: {m}", path.display()));
    let meta = std::fs::metadata(path).map_err(|e| err(e.to_string()))?;
    if meta.len() > MAX_EDGES_FILE_BYTES {
        return Err(err(format!(
            "{} bytes, more than the {MAX_EDGES_FILE_BYTES} a saved graph may have",
            meta.len()
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| err(e.to_string()))
}

#[async_trait]
impl ReasoningPolicy for GptSwarm {
    fn name(&self) -> &str {
        METHOD
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let (model, trained) = self.snapshot();
        let mut rng = stream(query.run_seed, &query.item.id, METHOD, None, None, "graph");
        let graph = model.sample(&mut rng);
        let mut out = dag::run_dag(query, roster, &graph, &self.dag(METHOD)).await?;
        out.trace["trained"] = json!(trained);
        Ok(out)
    }

    fn learns(&self) -> bool {
        true
    }

    async fn train(&self, split: &TrainSplit<'_>, roster: &Roster) -> Result<Learnt, PolicyError> {
        let o = &self.options;
        if o.edges.is_some() {
            return Err(PolicyError::Config(
                "gptswarm: edges= starts from saved edges; a training split (--train) would \
                 replace them: give one or the other"
                    .into(),
            ));
        }
        if split.items.is_empty() {
            return Err(PolicyError::Config(
                "gptswarm: the training split is empty".into(),
            ));
        }
        let mut model = EdgeModel::new(o.agents, 0.5);
        let mut batches = training::Batches::new(split.items, split.run_seed, METHOD);
        let mut usage = colony_llm::UsageTotals::default();
        let (mut utility, mut failed_samples) = (Vec::new(), 0u64);
        for step in 0..o.iterations {
            let t = u32::try_from(step).unwrap_or(u32::MAX);
            let batch = batches.take(o.batch);
            let method = format!("{METHOD}.train{step}");
            let runs = join_all(batch.iter().map(|item| {
                let query = Query {
                    item: (*item).clone(),
                    run_seed: split.run_seed,
                };
                let graph = model.sample(&mut stream(
                    split.run_seed,
                    &item.id,
                    METHOD,
                    Some(t),
                    None,
                    "train-graph",
                ));
                let method = method.clone();
                async move {
                    let out = dag::run_dag(&query, roster, &graph, &self.dag(&method)).await;
                    (query, graph, out)
                }
            }))
            .await;
            let mut samples = Vec::new();
            for (query, graph, out) in runs {
                let out = out?;
                if training::absorb(&mut usage, &out) {
                    failed_samples += 1;
                    continue;
                }
                let right = out
                    .answer
                    .as_deref()
                    .is_some_and(|a| (split.grade)(&query.item, a));
                samples.push((graph, if right { 1.0 } else { 0.0 }));
            }
            let mean = (!samples.is_empty())
                .then(|| samples.iter().map(|(_, u)| u).sum::<f64>() / samples.len() as f64);
            utility.push(mean);
            model.reinforce(&samples, o.lr);
        }
        let ids: Vec<&str> = split.items.iter().map(|i| i.id.as_str()).collect();
        let state = json!({
            "method": METHOD,
            "agents": o.agents,
            "edges": model.edges(),
            "training": {
                "items": ids.len(), "item_ids": ids, "iterations": o.iterations,
                "batch": o.batch, "lr": o.lr, "utility": utility,
                "failed_samples": failed_samples,
            },
        });
        *self
            .model
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = (model, true);
        Ok(Learnt { state, usage })
    }

    fn load_learnt(&self, state: &serde_json::Value) -> Result<(), PolicyError> {
        let err = |m: String| PolicyError::Config(format!("gptswarm: saved edges: {m}"));
        if state["method"] != METHOD {
            return Err(err(format!("written by {}, not gptswarm", state["method"])));
        }
        let agents = state["agents"].as_u64().unwrap_or(0);
        if agents != self.options.agents as u64 {
            return Err(err(format!(
                "learnt for {agents} agents, but this run has agents={}",
                self.options.agents
            )));
        }
        let edges: Vec<edges::Edge> = serde_json::from_value(state["edges"].clone())
            .map_err(|e| err(format!("edges: {e}")))?;
        let model = EdgeModel::from_edges(self.options.agents, &edges).map_err(err)?;
        *self
            .model
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = (model, true);
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn saved_edges_load_and_mismatches_are_named() {
        let p = GptSwarm::new(GptSwarmOptions::default()).unwrap();
        assert!(!p.snapshot().1);
        let mut m = EdgeModel::new(4, 0.5);
        m.logits[2] = 2.0;
        let state = json!({"method": "gptswarm", "agents": 4, "edges": m.edges()});
        p.load_learnt(&state).unwrap();
        assert_eq!(p.snapshot(), (m, true));
        let three = json!({"method": "gptswarm", "agents": 3, "edges": []});
        let e = p.load_learnt(&three).unwrap_err().to_string();
        assert!(e.contains("3 agents"), "{e}");
        let other = json!({"method": "selforg"});
        assert!(p
            .load_learnt(&other)
            .unwrap_err()
            .to_string()
            .contains("selforg"));
        let bad = GptSwarm::new(GptSwarmOptions {
            edges: Some("/nonexistent/edges.json".into()),
            ..GptSwarmOptions::default()
        })
        .unwrap_err()
        .to_string();
        assert!(bad.contains("/nonexistent/edges.json"), "{bad}");
        assert!(GptSwarm::new(GptSwarmOptions {
            lr: 0.0,
            ..GptSwarmOptions::default()
        })
        .is_err());
    }
}
