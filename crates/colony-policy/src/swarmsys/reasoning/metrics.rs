//! SwarmSys metrics (docs/design/swarmsys.md §2.10): contribution-balance entropy `H_c`,
//! embedding drift, interaction clustering.

use serde::{Deserialize, Serialize};

use super::encode::cos;
use super::parse::mentions;

/// `H_c = −Σ p_i ln p_i / ln A` with `p_i = accepted_i / Σ accepted` over all `A` agents;
/// `None` when nothing was accepted (or A < 2, where `ln A` is not positive).
pub fn contribution_entropy(accepted: &[u32]) -> Option<f64> {
    let total: f64 = accepted.iter().map(|&a| f64::from(a)).sum();
    if total <= 0.0 || accepted.len() < 2 {
        return None;
    }
    let h: f64 = accepted
        .iter()
        .map(|&a| f64::from(a) / total)
        .filter(|&p| p > 0.0)
        .map(|p| -p * p.ln())
        .sum();
    Some(h / (accepted.len() as f64).ln())
}

/// Drift of one competence embedding between rounds: `1 − cos(c(g), c(g−1))`.
pub fn drift(current: &[f64], previous: &[f64]) -> f64 {
    1.0 - cos(current, previous)
}

/// Mean and (population) standard deviation; `None` for no values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanStd {
    /// Mean.
    pub mean: f64,
    /// Standard deviation.
    pub std: f64,
    /// Number of values.
    pub n: usize,
}

impl MeanStd {
    /// Mean ± std of `values`.
    pub fn of(values: &[f64]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        Some(Self {
            mean,
            std: var.sqrt(),
            n: values.len(),
        })
    }
}

/// The undirected interaction graph of one round: an edge between two agents when one's
/// message names the other's id; `messages` are `(author index, text)`, `ids` all agents.
pub fn interaction_edges(ids: &[String], messages: &[(usize, &str)]) -> Vec<(usize, usize)> {
    let mut edges = Vec::new();
    for &(a, text) in messages {
        for (b, id) in ids.iter().enumerate() {
            if b != a && mentions(text, id) {
                let e = (a.min(b), a.max(b));
                if !edges.contains(&e) {
                    edges.push(e);
                }
            }
        }
    }
    edges.sort_unstable();
    edges
}

/// Average local clustering coefficient over `n` nodes (degree < 2 → 0).
pub fn average_clustering(n: usize, edges: &[(usize, usize)]) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let mut adj = vec![vec![false; n]; n];
    for &(a, b) in edges {
        if a < n && b < n && a != b {
            adj[a][b] = true;
            adj[b][a] = true;
        }
    }
    let mut total = 0.0;
    for v in 0..n {
        let nb: Vec<usize> = (0..n).filter(|&u| adj[v][u]).collect();
        let k = nb.len();
        if k < 2 {
            continue;
        }
        let mut links = 0usize;
        for (x, &a) in nb.iter().enumerate() {
            for &b in &nb[x + 1..] {
                links += usize::from(adj[a][b]);
            }
        }
        total += links as f64 / (k * (k - 1) / 2) as f64;
    }
    total / n as f64
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn entropy_is_one_when_balanced_and_undefined_without_acceptance() {
        assert!((contribution_entropy(&[2, 2, 2, 2]).unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(contribution_entropy(&[0, 0, 0]), None);
        assert_eq!(contribution_entropy(&[5, 0, 0, 0]), Some(0.0));
        let h = contribution_entropy(&[3, 1, 0, 0]).unwrap();
        let want = -(0.75f64 * 0.75f64.ln() + 0.25 * 0.25f64.ln()) / 4f64.ln();
        assert!((h - want).abs() < 1e-12);
    }

    #[test]
    fn drift_and_summaries() {
        assert!(drift(&[1.0, 0.0], &[1.0, 0.0]).abs() < 1e-12);
        assert!((drift(&[1.0, 0.0], &[0.0, 1.0]) - 1.0).abs() < 1e-12);
        let m = MeanStd::of(&[1.0, 3.0]).unwrap();
        assert_eq!((m.mean, m.std, m.n), (2.0, 1.0, 2));
        assert_eq!(MeanStd::of(&[]), None);
    }

    #[test]
    fn clustering_of_a_triangle_and_a_star() {
        let ids: Vec<String> = ["X1", "W1", "W2", "V1"].map(String::from).to_vec();
        let msgs = [(3, "W1 and W2 agree"), (1, "I follow X1 and W2")];
        let e = interaction_edges(&ids, &msgs);
        assert_eq!(e, vec![(0, 1), (1, 2), (1, 3), (2, 3)]);
        // Triangle 1-2-3 plus the leaf 0 on node 1: c1 = 1/3, c2 = c3 = 1, c0 = 0.
        let c = average_clustering(4, &e);
        assert!((c - (1.0 / 3.0 + 2.0) / 4.0).abs() < 1e-12);
        assert_eq!(average_clustering(3, &[(0, 1), (0, 2)]), 0.0);
    }
}
