//! G-Designer's graph generator (docs/design/baselines.md §3.14): a two-layer GCN over the
//! agents' profile embeddings and a task node holding the query's embedding, on an anchor
//! topology, and an inner-product decoder giving the probability of every potential edge
//! `i → j` (i < j) between agents; trained by REINFORCE with a sparsity penalty, backpropagated
//! by hand through the GCN (it is small: two weight matrices).
//!
//! Forward: `Â = D^-½ (A + I) D^-½` of the anchor `A` (the task node linked to every agent, the
//! agents in a chain); `H = relu(Â X W₁)`, `Z = Â H W₂`; logit `s_ij = z_i · z_j / √k`.

use ndarray::{Array1, Array2, Axis};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::reasoning::gptswarm::edges::{potential_edges, sigmoid};
use crate::reasoning::uniform;

/// The generator's weights and Adam's moments.
#[derive(Debug, Clone, PartialEq)]
pub struct Generator {
    /// Agents (the task node is one more).
    pub agents: usize,
    /// `d × h`.
    pub w1: Array2<f64>,
    /// `h × k`.
    pub w2: Array2<f64>,
    adam: [(Array2<f64>, Array2<f64>); 2],
    steps: i32,
}

/// One forward pass, kept for the backward one.
#[derive(Debug, Clone)]
pub struct Forward {
    ax: Array2<f64>,
    pre: Array2<f64>,
    ah: Array2<f64>,
    z: Array2<f64>,
    a_hat: Array2<f64>,
    /// The probability of every potential edge, in [`potential_edges`] order.
    pub probabilities: Vec<f64>,
}

/// The weights as the saved file holds them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// `W₁` by rows.
    pub w1: Vec<Vec<f64>>,
    /// `W₂` by rows.
    pub w2: Vec<Vec<f64>>,
}

/// `Â` of the anchor topology on `agents` agents plus the task node (the last).
pub fn normalized_anchor(agents: usize) -> Array2<f64> {
    let n = agents + 1;
    let mut a = Array2::<f64>::eye(n);
    for i in 0..agents {
        a[[i, agents]] = 1.0;
        a[[agents, i]] = 1.0;
        if i + 1 < agents {
            a[[i, i + 1]] = 1.0;
            a[[i + 1, i]] = 1.0;
        }
    }
    let d: Array1<f64> = a.sum_axis(Axis(1)).mapv(|x| 1.0 / x.sqrt());
    let mut out = a;
    for i in 0..n {
        for j in 0..n {
            out[[i, j]] *= d[i] * d[j];
        }
    }
    out
}

fn glorot(rows: usize, cols: usize, rng: &mut ChaCha8Rng) -> Array2<f64> {
    let limit = (6.0 / (rows + cols) as f64).sqrt();
    Array2::from_shape_fn((rows, cols), |_| (2.0 * uniform(rng) - 1.0) * limit)
}

impl Generator {
    /// A generator for `dim`-dimensional embeddings with `hidden` and `latent` widths,
    /// Glorot-initialised from `rng`.
    pub fn new(
        agents: usize,
        dim: usize,
        hidden: usize,
        latent: usize,
        rng: &mut ChaCha8Rng,
    ) -> Self {
        let (w1, w2) = (glorot(dim, hidden, rng), glorot(hidden, latent, rng));
        let zeros = |m: &Array2<f64>| (Array2::zeros(m.raw_dim()), Array2::zeros(m.raw_dim()));
        Self {
            agents,
            adam: [zeros(&w1), zeros(&w2)],
            w1,
            w2,
            steps: 0,
        }
    }

    /// The edge probabilities for node features `x` (agents' rows, then the task's).
    pub fn forward(&self, x: &Array2<f64>) -> Forward {
        let a_hat = normalized_anchor(self.agents);
        let ax = a_hat.dot(x);
        let pre = ax.dot(&self.w1);
        let h = pre.mapv(|v| v.max(0.0));
        let ah = a_hat.dot(&h);
        let z = ah.dot(&self.w2);
        let scale = (self.w2.ncols() as f64).sqrt();
        let probabilities = potential_edges(self.agents)
            .into_iter()
            .map(|(i, j)| sigmoid(z.row(i).dot(&z.row(j)) / scale))
            .collect();
        Forward {
            ax,
            pre,
            ah,
            z,
            a_hat,
            probabilities,
        }
    }

    /// The gradients of `Σ g_e · s_e` with respect to `W₁` and `W₂`, given `g` (one per
    /// potential edge) at the pass `f`.
    pub fn backward(&self, f: &Forward, g: &[f64]) -> (Array2<f64>, Array2<f64>) {
        let scale = (self.w2.ncols() as f64).sqrt();
        let mut dz = Array2::<f64>::zeros(f.z.raw_dim());
        for ((i, j), &ge) in potential_edges(self.agents).into_iter().zip(g) {
            let (zi, zj) = (f.z.row(i).to_owned(), f.z.row(j).to_owned());
            let mut ri = dz.row_mut(i);
            ri.scaled_add(ge / scale, &zj);
            let mut rj = dz.row_mut(j);
            rj.scaled_add(ge / scale, &zi);
        }
        let dw2 = f.ah.t().dot(&dz);
        let dah = dz.dot(&self.w2.t());
        let dh = f.a_hat.t().dot(&dah);
        let dpre = &dh * &f.pre.mapv(|v| if v > 0.0 { 1.0 } else { 0.0 });
        let dw1 = f.ax.t().dot(&dpre);
        (dw1, dw2)
    }

    /// One Adam ascent step along `(dW₁, dW₂)` at learning rate `lr`.
    pub fn ascend(&mut self, grads: (Array2<f64>, Array2<f64>), lr: f64) {
        let (b1, b2, eps) = (0.9_f64, 0.999_f64, 1e-8);
        self.steps += 1;
        let (c1, c2) = (1.0 - b1.powi(self.steps), 1.0 - b2.powi(self.steps));
        for (k, g) in [grads.0, grads.1].into_iter().enumerate() {
            let (m, v) = &mut self.adam[k];
            *m = &*m * b1 + &g * (1.0 - b1);
            *v = &*v * b2 + &g.mapv(|x| x * x) * (1.0 - b2);
            let step = (&*m / c1) / ((&*v / c2).mapv(f64::sqrt) + eps) * lr;
            if k == 0 {
                self.w1 += &step;
            } else {
                self.w2 += &step;
            }
        }
    }

    /// A graph drawn from probabilities `p`.
    pub fn sample(p: &[f64], rng: &mut ChaCha8Rng) -> Vec<bool> {
        p.iter().map(|&q| uniform(rng) < q).collect()
    }

    /// The weights for the saved file.
    pub fn weights(&self) -> Weights {
        let rows = |m: &Array2<f64>| m.rows().into_iter().map(|r| r.to_vec()).collect();
        Weights {
            w1: rows(&self.w1),
            w2: rows(&self.w2),
        }
    }

    /// A generator from saved weights of the shapes `dim × hidden` and `hidden × latent`.
    pub fn from_weights(
        agents: usize,
        w: &Weights,
        (dim, hidden, latent): (usize, usize, usize),
    ) -> Result<Self, String> {
        let matrix = |name: &str, rows: &[Vec<f64>], r: usize, c: usize| {
            if rows.len() != r || rows.iter().any(|row| row.len() != c) {
                return Err(format!("{name} is not {r} × {c}"));
            }
            if rows.iter().flatten().any(|x| !x.is_finite()) {
                return Err(format!("{name} has a value that is not a finite number"));
            }
            Array2::from_shape_vec((r, c), rows.concat()).map_err(|e| format!("{name}: {e}"))
        };
        let w1 = matrix("w1", &w.w1, dim, hidden)?;
        let w2 = matrix("w2", &w.w2, hidden, latent)?;
        let zeros = |m: &Array2<f64>| (Array2::zeros(m.raw_dim()), Array2::zeros(m.raw_dim()));
        Ok(Self {
            agents,
            adam: [zeros(&w1), zeros(&w2)],
            w1,
            w2,
            steps: 0,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn features(agents: usize, dim: usize, seed: u64) -> Array2<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Array2::from_shape_fn((agents + 1, dim), |_| uniform(&mut rng) - 0.5)
    }

    #[test]
    fn the_backward_pass_matches_finite_differences() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let g = Generator::new(3, 5, 4, 3, &mut rng);
        let x = features(3, 5, 9);
        let weights = [0.7, -1.3, 0.4];
        let objective = |gen: &Generator| {
            let f = gen.forward(&x);
            let scale = (gen.w2.ncols() as f64).sqrt();
            potential_edges(3)
                .into_iter()
                .zip(weights)
                .map(|((i, j), w)| w * f.z.row(i).dot(&f.z.row(j)) / scale)
                .sum::<f64>()
        };
        let (dw1, dw2) = g.backward(&g.forward(&x), &weights);
        let h = 1e-6;
        for (r, c) in [(0, 0), (2, 3), (4, 1)] {
            let (mut up, mut down) = (g.clone(), g.clone());
            up.w1[[r, c]] += h;
            down.w1[[r, c]] -= h;
            let numeric = (objective(&up) - objective(&down)) / (2.0 * h);
            assert!(
                (numeric - dw1[[r, c]]).abs() < 1e-6,
                "w1[{r},{c}]: {numeric} vs {}",
                dw1[[r, c]]
            );
        }
        for (r, c) in [(0, 0), (3, 2)] {
            let (mut up, mut down) = (g.clone(), g.clone());
            up.w2[[r, c]] += h;
            down.w2[[r, c]] -= h;
            let numeric = (objective(&up) - objective(&down)) / (2.0 * h);
            assert!((numeric - dw2[[r, c]]).abs() < 1e-6, "w2[{r},{c}]");
        }
    }

    #[test]
    fn ascending_a_reward_for_one_edge_raises_its_probability() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut g = Generator::new(3, 6, 8, 4, &mut rng);
        let x = features(3, 6, 2);
        let before = g.forward(&x).probabilities;
        for _ in 0..50 {
            let f = g.forward(&x);
            let grads = g.backward(&f, &[1.0, 0.0, -1.0]);
            g.ascend(grads, 0.05);
        }
        let after = g.forward(&x).probabilities;
        // The ascended objective is s₀ − s₂ (edge 0 rewarded, edge 2 penalised).
        let logit = |p: f64| (p / (1.0 - p)).ln();
        let gap = |p: &[f64]| logit(p[0]) - logit(p[2]);
        assert!(after[0] > before[0], "{before:?} -> {after:?}");
        assert!(gap(&after) > gap(&before) + 0.5, "{before:?} -> {after:?}");
        let back = Generator::from_weights(3, &g.weights(), (6, 8, 4)).unwrap();
        assert_eq!(back.forward(&x).probabilities, after);
        assert!(Generator::from_weights(3, &g.weights(), (5, 8, 4))
            .unwrap_err()
            .contains("w1 is not 5 × 8"));
    }
}
