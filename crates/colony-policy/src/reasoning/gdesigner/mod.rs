//! G-Designer of Zhang et al. (2025b) (docs/design/baselines.md §3.14): a small graph neural
//! network designs each query's communication topology among role-playing agents; it is
//! trained on a training split, then generates one graph per evaluated query. As in the SelfOrg
//! paper, it is a baseline for small models.
//!
//! Per item: the run's embedder (`--embedder`) embeds the agents' role profiles and the query;
//! the generator ([`gnn::Generator`]: a two-layer GCN on an anchor topology and an
//! inner-product decoder) gives every potential edge `i → j` (i < j) a probability; a graph is
//! drawn from them (seeded by the item) and solved in topological layers, each agent's prompt
//! opening with its role, the plurality vote deciding (the runner GPTSwarm uses,
//! [`super::gptswarm::dag`]). Calls: `agents` per item.
//!
//! Training (`--train N`, like GPTSwarm): `iterations` steps of `batch` items; per sampled
//! graph the utility is 1 when the grader accepts the answer, else 0; the generator ascends the
//! REINFORCE objective `u · log p(G) − sparsity · mean(p)` (G-Designer regularises towards
//! sparse topologies), backpropagated through the GCN, with Adam at `lr`. The weights are saved
//! as `<label>.<dataset>.learnt.json` with the embedder's id (features from another embedder do not
//! fit), loaded on resume, and reusable with `weights=FILE`.
//!
//! Decisions where the paper leaves room:
//! * **Profiles:** four roles in our own words (a solver, an analyst, a programmer-minded
//!   reasoner, an inspector), cycled over the agents, as G-Designer's reasoning setups use such
//!   roles; the SelfOrg pool is SelfOrg's.
//! * **Anchor:** the task node linked to every agent and the agents in a chain; the sparsity
//!   penalty stands in for G-Designer's anchor and sparsity regularisers.
//! * **Defaults:** `agents = 4`, `hidden = 32`, `latent = 16`, `lr = 0.01`, `sparsity = 0.1`,
//!   `iterations = 20`, `batch = 4` (training is bounded; raise `iterations` for a real run).
//!   The initial weights are Glorot-uniform from the run seed.
//! * Failures and untrained runs as in GPTSwarm (§3.13): a sample with a failed call is left out
//!   of the gradient and counted; without a split the untrained generator is used, with a
//!   warning, and `trained` is false in the traces.

pub mod gnn;

use std::path::Path;
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use colony_llm::embed::Embedder;
use futures::future::join_all;
use ndarray::Array2;
use serde_json::json;

use super::gptswarm::dag::{run_dag, Dag};
use super::gptswarm::read_state_file;
use super::gptswarm::training::{absorb, Batches};
use super::{
    check_range, stream, Learnt, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster,
    TrainSplit,
};
use crate::options::PolicyOptions;
use gnn::Generator;

const METHOD: &str = "gdesigner";

/// The agents' role profiles, cycled.
pub const PROFILES: [&str; 4] = [
    "A math solver who works the problem step by step and states the result.",
    "An analyst who first lays out the quantities and their relations, then computes.",
    "A programmer who reasons as if writing a short program, checking every operation.",
    "An inspector who checks the other agents' steps for errors and states the corrected answer.",
];

/// G-Designer's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct GDesignerOptions {
    /// Agents, 2 to 8 (default 4).
    pub agents: usize,
    /// GCN hidden width (default 32).
    pub hidden: usize,
    /// Latent width of the decoder (default 16).
    pub latent: usize,
    /// Training steps (default 20).
    pub iterations: usize,
    /// Items per step (default 4).
    pub batch: usize,
    /// Adam's learning rate (default 0.01).
    pub lr: f64,
    /// Weight of the sparsity penalty (default 0.1).
    pub sparsity: f64,
    /// Saved weights to use instead of training (`weights=FILE`).
    pub weights: Option<String>,
}

impl Default for GDesignerOptions {
    fn default() -> Self {
        Self {
            agents: 4,
            hidden: 32,
            latent: 16,
            iterations: 20,
            batch: 4,
            lr: 0.01,
            sparsity: 0.1,
            weights: None,
        }
    }
}

impl GDesignerOptions {
    /// From `gdesigner:agents=4,hidden=32,latent=16,iterations=20,batch=4,lr=0.01,…`.
    pub(crate) fn from_options(o: &mut PolicyOptions) -> Result<Self, PolicyError> {
        let d = Self::default();
        Ok(Self {
            agents: o.count("agents")?.unwrap_or(d.agents),
            hidden: o.count("hidden")?.unwrap_or(d.hidden),
            latent: o.count("latent")?.unwrap_or(d.latent),
            iterations: o.count("iterations")?.unwrap_or(d.iterations),
            batch: o.count("batch")?.unwrap_or(d.batch),
            lr: o.float("lr")?.unwrap_or(d.lr),
            sparsity: o.float("sparsity")?.unwrap_or(d.sparsity),
            weights: o.text("weights"),
        })
    }
}

/// The G-Designer policy.
pub struct GDesigner {
    options: GDesignerOptions,
    embedder: Arc<dyn Embedder>,
    /// The generator (created from the run seed at first use) and whether it was learnt.
    state: RwLock<(Option<Generator>, bool)>,
}

impl std::fmt::Debug for GDesigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GDesigner")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl GDesigner {
    /// G-Designer with checked `options` and the run's embedder.
    pub fn new(
        options: GDesignerOptions,
        embedder: Arc<dyn Embedder>,
    ) -> Result<Self, PolicyError> {
        check_range(METHOD, "agents", options.agents, 2, 8)?;
        check_range(METHOD, "hidden", options.hidden, 1, 256)?;
        check_range(METHOD, "latent", options.latent, 1, 128)?;
        check_range(METHOD, "iterations", options.iterations, 1, 1000)?;
        check_range(METHOD, "batch", options.batch, 1, 64)?;
        let bad = |key: &str, v: f64, range: &str| {
            PolicyError::Config(format!(
                "gdesigner: option `{key}` must be in {range}, got {v}"
            ))
        };
        if !(options.lr.is_finite() && options.lr > 0.0 && options.lr <= 10.0) {
            return Err(bad("lr", options.lr, "(0, 10]"));
        }
        if !(options.sparsity.is_finite() && (0.0..=10.0).contains(&options.sparsity)) {
            return Err(bad("sparsity", options.sparsity, "[0, 10]"));
        }
        let saved = match &options.weights {
            Some(path) => Some(read_state_file(Path::new(path), "gdesigner: weights")?),
            None => None,
        };
        let policy = Self {
            options,
            embedder,
            state: RwLock::new((None, false)),
        };
        if let Some(state) = &saved {
            policy.load_learnt(state)?;
        }
        Ok(policy)
    }

    fn shape(&self) -> (usize, usize, usize) {
        (
            self.embedder.dim(),
            self.options.hidden,
            self.options.latent,
        )
    }

    fn roles(&self) -> Vec<String> {
        (0..self.options.agents)
            .map(|i| PROFILES[i % PROFILES.len()].to_string())
            .collect()
    }

    /// The generator, created from `run_seed` when there is none yet, and whether it was
    /// learnt.
    fn generator(&self, run_seed: u64) -> (Generator, bool) {
        let mut state = self
            .state
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let trained = state.1;
        let (dim, hidden, latent) = self.shape();
        let agents = self.options.agents;
        let generator = state.0.get_or_insert_with(|| {
            let mut rng = stream(run_seed, "", METHOD, None, None, "init");
            Generator::new(agents, dim, hidden, latent, &mut rng)
        });
        (generator.clone(), trained)
    }

    /// The node features of `query`: the profiles' embeddings, then the query's.
    async fn features(&self, query: &Query) -> Result<Array2<f64>, PolicyError> {
        let mut texts = self.roles();
        texts.push(query.text());
        let rows = self
            .embedder
            .embed(&texts)
            .await
            .map_err(|source| PolicyError::Embedding {
                policy: METHOD,
                source,
            })?;
        Ok(rows.mapv(f64::from))
    }

    fn dag<'a>(&self, seeds: &'a str, roles: &'a [String]) -> Dag<'a> {
        Dag {
            method: METHOD,
            seeds,
            agents: self.options.agents,
            roles,
        }
    }
}

#[async_trait]
impl ReasoningPolicy for GDesigner {
    fn name(&self) -> &str {
        METHOD
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let (generator, trained) = self.generator(query.run_seed);
        let x = self.features(query).await?;
        let p = generator.forward(&x).probabilities;
        let mut rng = stream(query.run_seed, &query.item.id, METHOD, None, None, "graph");
        let graph = Generator::sample(&p, &mut rng);
        let roles = self.roles();
        let mut out = run_dag(query, roster, &graph, &self.dag(METHOD, &roles)).await?;
        out.trace["trained"] = json!(trained);
        out.trace["probabilities"] = json!(p
            .iter()
            .map(|q| (q * 1000.0).round() / 1000.0)
            .collect::<Vec<_>>());
        Ok(out)
    }

    fn learns(&self) -> bool {
        true
    }

    async fn train(&self, split: &TrainSplit<'_>, roster: &Roster) -> Result<Learnt, PolicyError> {
        let o = &self.options;
        if o.weights.is_some() {
            return Err(PolicyError::Config(
                "gdesigner: weights= starts from saved weights; a training split (--train) \
                 would replace them: give one or the other"
                    .into(),
            ));
        }
        if split.items.is_empty() {
            return Err(PolicyError::Config(
                "gdesigner: the training split is empty".into(),
            ));
        }
        let (mut generator, _) = self.generator(split.run_seed);
        let roles = self.roles();
        let mut batches = Batches::new(split.items, split.run_seed, METHOD);
        let mut usage = colony_llm::UsageTotals::default();
        let (mut utility, mut failed_samples) = (Vec::new(), 0u64);
        for step in 0..o.iterations {
            let t = u32::try_from(step).unwrap_or(u32::MAX);
            let mut batch = Vec::with_capacity(o.batch);
            for item in batches.take(o.batch) {
                let query = Query {
                    item: item.clone(),
                    run_seed: split.run_seed,
                };
                let x = self.features(&query).await?;
                let forward = generator.forward(&x);
                let mut rng = stream(
                    split.run_seed,
                    &query.item.id,
                    METHOD,
                    Some(t),
                    None,
                    "train-graph",
                );
                let graph = Generator::sample(&forward.probabilities, &mut rng);
                batch.push((query, forward, graph));
            }
            let seeds = format!("{METHOD}.train{step}");
            let dag = self.dag(&seeds, &roles);
            let outs = join_all(batch.iter().map(|(q, _, g)| run_dag(q, roster, g, &dag))).await;
            let (mut dw1, mut dw2) = (
                Array2::<f64>::zeros(generator.w1.raw_dim()),
                Array2::<f64>::zeros(generator.w2.raw_dim()),
            );
            let (mut used, mut total) = (0usize, 0.0);
            for ((query, forward, graph), out) in batch.iter().zip(outs) {
                let out = out?;
                if absorb(&mut usage, &out) {
                    failed_samples += 1;
                    continue;
                }
                let u = f64::from(u8::from(
                    out.answer
                        .as_deref()
                        .is_some_and(|a| (split.grade)(&query.item, a)),
                ));
                let g: Vec<f64> = forward
                    .probabilities
                    .iter()
                    .zip(graph)
                    .map(|(&p, &on)| u * (f64::from(u8::from(on)) - p) - o.sparsity * p * (1.0 - p))
                    .collect();
                let (a, b) = generator.backward(forward, &g);
                dw1 += &a;
                dw2 += &b;
                used += 1;
                total += u;
            }
            utility.push((used > 0).then(|| total / used as f64));
            if used > 0 {
                let n = used as f64;
                generator.ascend((dw1 / n, dw2 / n), o.lr);
            }
        }
        let ids: Vec<&str> = split.items.iter().map(|i| i.id.as_str()).collect();
        let (dim, hidden, latent) = self.shape();
        let state = json!({
            "method": METHOD, "agents": o.agents, "embedder": self.embedder.id(),
            "dim": dim, "hidden": hidden, "latent": latent,
            "weights": generator.weights(),
            "training": {
                "items": ids.len(), "item_ids": ids, "iterations": o.iterations,
                "batch": o.batch, "lr": o.lr, "sparsity": o.sparsity, "utility": utility,
                "failed_samples": failed_samples,
            },
        });
        *self
            .state
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = (Some(generator), true);
        Ok(Learnt { state, usage })
    }

    fn load_learnt(&self, state: &serde_json::Value) -> Result<(), PolicyError> {
        let err = |m: String| PolicyError::Config(format!("gdesigner: saved weights: {m}"));
        if state["method"] != METHOD {
            return Err(err(format!(
                "written by {}, not gdesigner",
                state["method"]
            )));
        }
        if state["agents"].as_u64() != Some(self.options.agents as u64) {
            return Err(err(format!(
                "learnt for {} agents, but this run has agents={}",
                state["agents"], self.options.agents
            )));
        }
        if state["embedder"].as_str() != Some(self.embedder.id()) {
            return Err(err(format!(
                "learnt on embeddings of {}, but this run embeds with {}",
                state["embedder"],
                self.embedder.id()
            )));
        }
        let weights: gnn::Weights = serde_json::from_value(state["weights"].clone())
            .map_err(|e| err(format!("weights: {e}")))?;
        let generator =
            Generator::from_weights(self.options.agents, &weights, self.shape()).map_err(err)?;
        *self
            .state
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = (Some(generator), true);
        Ok(())
    }
}
