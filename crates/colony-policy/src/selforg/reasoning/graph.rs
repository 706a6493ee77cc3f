//! SelfOrg graph formation: docs/design/reasoning.md §0.1 (cosine conventions), §1.7 (contributions
//! ψ), §1.8 (similarity matrix, `S_min`), §1.9 (`build_graph`: candidate parents, deterministic
//! cycle removal, topological order, leader) and the early-stopping test of §1.12.
//!
//! Embeddings come as an `ndarray::Array2<f32>` with one row per agent; all arithmetic is f64.
//! A zero row (empty response, §1.6) has cosine 0 with everything (§0.1 **Decision**).
//!
//! Every comparison of ψ and S (and of `tau`) uses the values rounded to 1e-9
//! ([`super::ties`]); the returned [`Graph`] keeps them unrounded. Cycle removal and the
//! topological order live in `dag`.

use ndarray::{Array2, ArrayView1, ArrayView2};
use serde::{Deserialize, Serialize};

use super::dag::{remove_cycles, topo_order};
use super::ties::{by_psi_desc, tie_key};

/// Candidate-parent rule of §1.9.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The paper's Algorithm 2 (default): `Cand(n) = { m ≠ n : S[n][m] ≥ tau }`.
    #[default]
    Alg2,
    /// `ContributionGated` (the paper's §2.4 text): additionally `psi[m] > psi[n]` (strict).
    #[serde(alias = "contribution_gated")]
    Gated,
}

/// Options of `build_graph` (defaults of §1.2: `Alg2`, k = 2, tau = 0.5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GraphOptions {
    /// Candidate-parent rule.
    pub rule: Rule,
    /// Neighbour budget: keep at most `k` parents per agent. `0` means "k not set" (no limit).
    pub k: usize,
    /// Similarity threshold: a parent needs `S[n][m] ≥ tau`.
    pub tau: f64,
}

impl Default for GraphOptions {
    fn default() -> Self {
        Self {
            rule: Rule::Alg2,
            k: 2,
            tau: 0.5,
        }
    }
}

/// The most agents [`build_graph`] and [`build_graph_from`] accept. The similarity matrix is
/// N×N f64 and, with no neighbour budget (`k = 0`) and a low `tau`, the candidate edges are
/// N(N−1): at 1,024 agents that is 8 MiB and a million edges, a second or so; SelfOrg teams
/// are far smaller.
pub const MAX_GRAPH_AGENTS: usize = 1024;

pub use crate::reasoning::GraphError;

/// Result of `build_graph` (§1.9.5) without S (compute it with [`similarity`]).
///
/// JSON: `{"psi": […], "edges": [[m, n], …], "order": […], "leader": i, "removed": [[m, n], …]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    /// Contribution estimate ψ per agent (§1.7).
    pub psi: Vec<f64>,
    /// Final edges `(m, n)` = `m → n` ("n listens to m"), sorted ascending by `(m, n)`.
    pub edges: Vec<(usize, usize)>,
    /// Topological order π of all agents (§1.9.3).
    pub order: Vec<usize>,
    /// Leader `π[0]` (§1.9.4).
    pub leader: usize,
    /// Edges removed by cycle removal, in removal order (§1.9.2).
    pub removed: Vec<(usize, usize)>,
}

impl Graph {
    /// Number of agents.
    pub fn len(&self) -> usize {
        self.psi.len()
    }

    /// Whether the graph has no agents (never true for a built graph).
    pub fn is_empty(&self) -> bool {
        self.psi.is_empty()
    }

    /// Parents of `n` (every m with an edge `m → n`), ascending by id.
    pub fn parents(&self, n: usize) -> Vec<usize> {
        self.edges
            .iter()
            .filter(|&&(_, to)| to == n)
            .map(|&(from, _)| from)
            .collect()
    }

    /// Parents of `n` ordered by ψ descending (rounded to 1e-9), then id ascending (prompt
    /// order of §1.10).
    pub fn parents_by_psi(&self, n: usize) -> Vec<usize> {
        let mut p = self.parents(n);
        p.sort_by(|&a, &b| by_psi_desc(&self.psi, a, b));
        p
    }

    /// Children of `m` (every n with an edge `m → n`), ascending by id.
    pub fn children(&self, m: usize) -> Vec<usize> {
        self.edges
            .iter()
            .filter(|&&(from, _)| from == m)
            .map(|&(_, to)| to)
            .collect()
    }
}

fn dot(a: ArrayView1<f32>, b: ArrayView1<f32>) -> f64 {
    a.iter()
        .zip(b.iter())
        .map(|(&x, &y)| x as f64 * y as f64)
        .sum()
}

fn norm(a: ArrayView1<f32>) -> f64 {
    dot(a, a).sqrt()
}

/// `cos(a, b) = a·b / (‖a‖‖b‖)` in f64; 0 when either vector is zero (§0.1 **Decision**).
pub fn cos(a: &[f64], b: &[f64]) -> f64 {
    let ab: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        ab / (na * nb)
    }
}

/// Unit-normalised copy; `normalise(0) = 0` (§0.1 **Decision**).
pub fn normalise(a: &[f64]) -> Vec<f64> {
    let n = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    if n == 0.0 {
        a.to_vec()
    } else {
        a.iter().map(|x| x / n).collect()
    }
}

/// Rows of `r` as f64, each unit-normalised (§1.6: "normalise explicitly anyway").
pub(crate) fn unit_rows(r: ArrayView2<f32>) -> Vec<Vec<f64>> {
    r.rows()
        .into_iter()
        .map(|row| {
            let v: Vec<f64> = row.iter().map(|&x| x as f64).collect();
            normalise(&v)
        })
        .collect()
}

/// Whether each row of `r` is the zero vector (an empty response, §1.6).
pub(crate) fn zero_rows(r: ArrayView2<f32>) -> Vec<bool> {
    r.rows().into_iter().map(|row| norm(row) == 0.0).collect()
}

/// Contributions ψ (§1.7): `psi[n] = cos(r[n], r_avg)`, `r_avg` the mean of the unit-normalised
/// rows. A zero row gets ψ = 0; all-zero input gives all zeros.
pub fn contributions(r: ArrayView2<f32>) -> Vec<f64> {
    let rows = unit_rows(r);
    let n = rows.len();
    if n == 0 {
        return Vec::new();
    }
    let dim = r.ncols();
    let mut avg = vec![0.0f64; dim];
    for row in &rows {
        for (a, x) in avg.iter_mut().zip(row) {
            *a += x;
        }
    }
    for a in &mut avg {
        *a /= n as f64;
    }
    rows.iter().map(|row| cos(row, &avg)).collect()
}

/// Similarity matrix `S[n][m] = cos(r[n], r[m])` (§1.8), symmetric. The diagonal is 1, except
/// for a zero row, whose whole row and column (diagonal included) is 0 (§0.1).
pub fn similarity(r: ArrayView2<f32>) -> Array2<f64> {
    let rows = unit_rows(r);
    let zero = zero_rows(r);
    let n = rows.len();
    let mut s = Array2::<f64>::zeros((n, n));
    for i in 0..n {
        if zero[i] {
            continue;
        }
        s[[i, i]] = 1.0;
        for j in (i + 1)..n {
            let c = cos(&rows[i], &rows[j]);
            s[[i, j]] = c;
            s[[j, i]] = c;
        }
    }
    s
}

/// `S_min = min_{n≠m} S[n][m]` (§1.8); `None` for N < 2.
pub fn s_min(s: ArrayView2<f64>) -> Option<f64> {
    let n = s.nrows().min(s.ncols());
    let mut best: Option<f64> = None;
    for i in 0..n {
        for j in 0..n {
            if i != j {
                let v = s[[i, j]];
                best = Some(best.map_or(v, |b: f64| b.min(v)));
            }
        }
    }
    best
}

/// Early-stopping test of §1.12: `gamma` set, N ≥ 2 and `S_min ≥ gamma`.
/// (The caller also requires `t < T` inside the loop.)
pub fn early_stop(s: ArrayView2<f64>, gamma: Option<f64>) -> bool {
    match (gamma, s_min(s)) {
        (Some(g), Some(m)) => m >= g,
        _ => false,
    }
}

/// `build_graph` (§1.9) from embeddings: computes S and ψ, then [`build_graph_from`].
///
/// Refuses, before allocating S, more than [`MAX_GRAPH_AGENTS`] rows, non-finite entries and a
/// non-finite `tau`.
pub fn build_graph(r: ArrayView2<f32>, opts: &GraphOptions) -> Result<Graph, GraphError> {
    check_agents(r.nrows())?;
    check_tau(opts.tau)?;
    for (agent, row) in r.rows().into_iter().enumerate() {
        if let Some(index) = row.iter().position(|x| !x.is_finite()) {
            return Err(GraphError::NonFiniteEmbedding { agent, index });
        }
    }
    let s = similarity(r);
    let psi = contributions(r);
    build_graph_from(s.view(), &psi, opts)
}

/// `build_graph` (§1.9) from a similarity matrix and contributions.
pub fn build_graph_from(
    s: ArrayView2<f64>,
    psi: &[f64],
    opts: &GraphOptions,
) -> Result<Graph, GraphError> {
    let n = psi.len();
    if s.nrows() != n || s.ncols() != n {
        return Err(GraphError::Shape {
            rows: s.nrows(),
            cols: s.ncols(),
            psi: n,
        });
    }
    if n == 0 {
        return Err(GraphError::Empty);
    }
    check_agents(n)?;
    check_tau(opts.tau)?;
    let finite_row = |i: usize| psi[i].is_finite() && s.row(i).iter().all(|x| x.is_finite());
    if let Some(agent) = (0..n).find(|&i| !finite_row(i)) {
        return Err(GraphError::NonFiniteInput { agent });
    }
    // §1.9.1 candidate parents and top-k.
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for child in 0..n {
        let tau = tie_key(opts.tau);
        let sim = |m: usize| tie_key(s[[child, m]]);
        let mut cand: Vec<usize> = (0..n)
            .filter(|&m| m != child && sim(m) >= tau)
            .filter(|&m| match opts.rule {
                Rule::Alg2 => true,
                Rule::Gated => tie_key(psi[m]) > tie_key(psi[child]),
            })
            .collect();
        cand.sort_by(|&a, &b| sim(b).total_cmp(&sim(a)).then(by_psi_desc(psi, a, b)));
        if opts.k > 0 {
            cand.truncate(opts.k);
        }
        edges.extend(cand.into_iter().map(|m| (m, child)));
    }
    edges.sort_unstable();
    // §1.9.2 cycle removal.
    let removed = remove_cycles(n, &mut edges, psi);
    let order = topo_order(n, &edges, psi);
    let leader = order.first().copied().unwrap_or(0);
    Ok(Graph {
        psi: psi.to_vec(),
        edges,
        order,
        leader,
        removed,
    })
}

fn check_agents(agents: usize) -> Result<(), GraphError> {
    if agents > MAX_GRAPH_AGENTS {
        return Err(GraphError::TooManyAgents {
            agents,
            max: MAX_GRAPH_AGENTS,
        });
    }
    Ok(())
}

fn check_tau(tau: f64) -> Result<(), GraphError> {
    if !tau.is_finite() {
        return Err(GraphError::NonFiniteTau(tau));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use ndarray::array;
    #[test]
    fn cos_zero_is_zero() {
        assert_eq!(cos(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert_eq!(normalise(&[0.0, 0.0]), vec![0.0, 0.0]);
        assert!((cos(&[1.0, 1.0], &[2.0, 2.0]) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn s_min_and_early_stop() {
        let s = array![[1.0, 0.8, 0.6], [0.8, 1.0, 0.9], [0.6, 0.9, 1.0]];
        assert_eq!(s_min(s.view()), Some(0.6));
        assert!(early_stop(s.view(), Some(0.6)));
        assert!(!early_stop(s.view(), Some(0.61)));
        assert!(!early_stop(s.view(), None));
        let one = array![[1.0]];
        assert_eq!(s_min(one.view()), None);
        assert!(!early_stop(one.view(), Some(0.0)));
    }

    #[test]
    fn shape_errors() {
        let s = array![[1.0, 0.5], [0.5, 1.0]];
        assert!(matches!(
            build_graph_from(s.view(), &[1.0], &GraphOptions::default()),
            Err(GraphError::Shape { .. })
        ));
        let e = Array2::<f64>::zeros((0, 0));
        assert_eq!(
            build_graph_from(e.view(), &[], &GraphOptions::default()),
            Err(GraphError::Empty)
        );
    }

    #[test]
    fn refuses_too_many_agents_and_non_finite_input() {
        let big = Array2::<f32>::zeros((MAX_GRAPH_AGENTS + 1, 2));
        assert_eq!(
            build_graph(big.view(), &GraphOptions::default()),
            Err(GraphError::TooManyAgents {
                agents: MAX_GRAPH_AGENTS + 1,
                max: MAX_GRAPH_AGENTS
            })
        );
        let inf = array![[1.0f32, 0.0], [0.0, f32::INFINITY]];
        assert_eq!(
            build_graph(inf.view(), &GraphOptions::default()),
            Err(GraphError::NonFiniteEmbedding { agent: 1, index: 1 })
        );
        let ok = array![[1.0f32, 0.0], [0.0, 1.0]];
        let nan_tau = GraphOptions {
            tau: f64::NAN,
            ..GraphOptions::default()
        };
        assert!(matches!(
            build_graph(ok.view(), &nan_tau),
            Err(GraphError::NonFiniteTau(t)) if t.is_nan()
        ));
        let s = array![[1.0, f64::NAN], [f64::NAN, 1.0]];
        assert_eq!(
            build_graph_from(s.view(), &[0.5, 0.5], &GraphOptions::default()),
            Err(GraphError::NonFiniteInput { agent: 0 })
        );
    }
}
