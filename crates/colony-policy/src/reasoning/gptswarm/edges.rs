//! GPTSwarm's edge distribution (docs/design/baselines.md §3.13): one independent Bernoulli
//! per potential edge `i → j` (i < j, so every sampled graph is acyclic), parameterised by a
//! logit θ with probability σ(θ), optimised by REINFORCE with Adam.
//!
//! The score-function gradient of a sampled graph's log-probability is `x_e − σ(θ_e)` per edge
//! (x_e = 1 when the edge was drawn); a batch's gradient is the utility-weighted mean of those,
//! ascended with Adam (β₁ 0.9, β₂ 0.999, ε 1e-8), as GPTSwarm optimises its edge logits.

use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::reasoning::uniform;

/// The potential edges of `n` nodes, `(i, j)` with i < j, in lexicographic order.
pub fn potential_edges(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect()
}

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// One learnt edge, as the saved file lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    /// Source node.
    pub from: usize,
    /// Target node.
    pub to: usize,
    /// The logit θ.
    pub logit: f64,
    /// σ(θ), for readers of the file (recomputed from the logit when loaded).
    pub probability: f64,
}

/// The edge logits and Adam's moments.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeModel {
    /// Nodes.
    pub nodes: usize,
    /// One logit per [`potential_edges`] entry.
    pub logits: Vec<f64>,
    m: Vec<f64>,
    v: Vec<f64>,
    steps: i32,
}

impl EdgeModel {
    /// Every edge at probability `p0` (GPTSwarm starts at 0.5).
    pub fn new(nodes: usize, p0: f64) -> Self {
        let k = potential_edges(nodes).len();
        let logit = (p0 / (1.0 - p0)).ln();
        Self {
            nodes,
            logits: vec![logit; k],
            m: vec![0.0; k],
            v: vec![0.0; k],
            steps: 0,
        }
    }

    /// The edge probabilities.
    pub fn probabilities(&self) -> Vec<f64> {
        self.logits.iter().map(|&t| sigmoid(t)).collect()
    }

    /// A graph drawn from `rng`: one flag per potential edge.
    pub fn sample(&self, rng: &mut ChaCha8Rng) -> Vec<bool> {
        self.logits
            .iter()
            .map(|&t| uniform(rng) < sigmoid(t))
            .collect()
    }

    /// One REINFORCE step over `(graph, utility)` samples, ascending the mean utility with
    /// learning rate `lr`; no step without samples.
    pub fn reinforce(&mut self, samples: &[(Vec<bool>, f64)], lr: f64) {
        if samples.is_empty() {
            return;
        }
        let p = self.probabilities();
        let mut grad = vec![0.0; self.logits.len()];
        for (graph, utility) in samples {
            for (e, g) in grad.iter_mut().enumerate() {
                let x = if graph.get(e).copied().unwrap_or(false) {
                    1.0
                } else {
                    0.0
                };
                *g += utility * (x - p[e]);
            }
        }
        let n = samples.len() as f64;
        let (b1, b2, eps) = (0.9_f64, 0.999_f64, 1e-8);
        self.steps += 1;
        for (e, &g) in grad.iter().enumerate() {
            let g = g / n;
            self.m[e] = b1 * self.m[e] + (1.0 - b1) * g;
            self.v[e] = b2 * self.v[e] + (1.0 - b2) * g * g;
            let m_hat = self.m[e] / (1.0 - b1.powi(self.steps));
            let v_hat = self.v[e] / (1.0 - b2.powi(self.steps));
            self.logits[e] += lr * m_hat / (v_hat.sqrt() + eps);
        }
    }

    /// The edges as the saved file lists them.
    pub fn edges(&self) -> Vec<Edge> {
        potential_edges(self.nodes)
            .into_iter()
            .zip(&self.logits)
            .map(|((from, to), &logit)| Edge {
                from,
                to,
                logit,
                probability: sigmoid(logit),
            })
            .collect()
    }

    /// A model from saved edges: they must be exactly the potential edges of `nodes`, in order,
    /// with finite logits; the error says which is not.
    pub fn from_edges(nodes: usize, edges: &[Edge]) -> Result<Self, String> {
        let expected = potential_edges(nodes);
        if edges.len() != expected.len() {
            return Err(format!(
                "{} edges, but {nodes} agents have {} potential edges",
                edges.len(),
                expected.len()
            ));
        }
        let mut model = Self::new(nodes, 0.5);
        for (k, (e, (i, j))) in edges.iter().zip(expected).enumerate() {
            if (e.from, e.to) != (i, j) {
                return Err(format!(
                    "edges[{k}] is {} → {}, expected {i} → {j}",
                    e.from, e.to
                ));
            }
            if !e.logit.is_finite() {
                return Err(format!("edges[{k}].logit is not a finite number"));
            }
            model.logits[k] = e.logit;
        }
        Ok(model)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn reinforce_raises_the_edges_of_rewarded_graphs_and_lowers_the_others() {
        let mut m = EdgeModel::new(3, 0.5);
        assert_eq!(potential_edges(3), [(0, 1), (0, 2), (1, 2)]);
        assert!(m.probabilities().iter().all(|p| (p - 0.5).abs() < 1e-12));
        // Graphs with edge 0 earn utility, graphs without it earn none.
        for _ in 0..20 {
            m.reinforce(
                &[
                    (vec![true, false, true], 1.0),
                    (vec![false, true, true], 0.0),
                ],
                0.1,
            );
        }
        let p = m.probabilities();
        assert!(p[0] > 0.7, "{p:?}");
        assert!(p[1] < 0.3, "{p:?}");
        // A step without samples changes nothing.
        let before = m.clone();
        m.reinforce(&[], 0.1);
        assert_eq!(m, before);
    }

    #[test]
    fn samples_follow_the_probabilities_and_edges_round_trip() {
        let mut m = EdgeModel::new(4, 0.5);
        m.logits[0] = 30.0;
        m.logits[1] = -30.0;
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..50 {
            let g = m.sample(&mut rng);
            assert!(g[0] && !g[1]);
        }
        let back = EdgeModel::from_edges(4, &m.edges()).unwrap();
        assert_eq!(back.logits, m.logits);
        assert!(EdgeModel::from_edges(3, &m.edges())
            .unwrap_err()
            .contains("6 edges"));
        let mut bad = m.edges();
        bad.swap(0, 1);
        assert!(EdgeModel::from_edges(4, &bad)
            .unwrap_err()
            .contains("edges[0]"));
    }
}
