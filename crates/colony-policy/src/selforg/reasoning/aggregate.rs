//! SelfOrg round output (docs/design/selforg.md §1.11, edge cases §1.15): contribution-weighted
//! centroid of the round's embeddings and the response nearest to it.

use ndarray::ArrayView2;
use serde::{Deserialize, Serialize};

use super::graph::{cos, unit_rows, zero_rows};
use super::ties::tie_key;

/// Weight sums at or below this fall back to uniform weights (§1.11 **Decision**).
pub const WEIGHT_SUM_GUARD: f64 = 1e-12;

/// Result of [`aggregate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    /// `nstar`: the agent whose response is the round output `Rstar`.
    pub nstar: usize,
    /// `cos(r[n], r_cent)` for every agent.
    pub cos: Vec<f64>,
    /// Whether Σψ ≤ 1e-12 forced uniform weights.
    pub uniform_weights: bool,
    /// Whether every response was empty. §1.15: the caller then keeps the previous round's
    /// output and graph (at round 0 the output is empty text); `nstar` is still a valid index.
    pub all_empty: bool,
}

/// §1.11 with empty responses detected as zero rows of `r`.
///
/// Returns `None` only when there are no agents or `psi` has the wrong length.
pub fn aggregate(r: ArrayView2<f32>, psi: &[f64]) -> Option<Aggregate> {
    let empty = zero_rows(r);
    aggregate_masked(r, psi, &empty)
}

/// §1.11 with an explicit mask of empty responses (`empty[n]`: agent n's call failed or
/// returned nothing). Empty agents are excluded from the argmax unless all are empty;
/// ties go to higher ψ, then lower id, cosines and ψ compared rounded to 1e-9 (`ties`).
pub fn aggregate_masked(r: ArrayView2<f32>, psi: &[f64], empty: &[bool]) -> Option<Aggregate> {
    let n = r.nrows();
    if n == 0 || psi.len() != n || empty.len() != n {
        return None;
    }
    let rows = unit_rows(r);
    let total: f64 = psi.iter().sum();
    let uniform_weights = total.is_nan() || total <= WEIGHT_SUM_GUARD;
    let w: Vec<f64> = if uniform_weights {
        vec![1.0; n]
    } else {
        psi.to_vec()
    };
    let wsum: f64 = w.iter().sum();
    let mut cent = vec![0.0f64; r.ncols()];
    for (row, &wn) in rows.iter().zip(&w) {
        for (c, x) in cent.iter_mut().zip(row) {
            *c += wn * x;
        }
    }
    for c in &mut cent {
        *c /= wsum;
    }
    let cosines: Vec<f64> = rows.iter().map(|row| cos(row, &cent)).collect();
    let all_empty = empty.iter().all(|&e| e);
    let mut best: Option<usize> = None;
    for i in (0..n).filter(|&i| all_empty || !empty[i]) {
        best = match best {
            None => Some(i),
            Some(b) => {
                // Rounded to 1e-9 (`ties`): equal cosines and ψ go to the lower id.
                let better = tie_key(cosines[i])
                    .total_cmp(&tie_key(cosines[b]))
                    .then(tie_key(psi[i]).total_cmp(&tie_key(psi[b])))
                    .is_gt();
                Some(if better { i } else { b })
            }
        };
    }
    Some(Aggregate {
        nstar: best.unwrap_or(0),
        cos: cosines,
        uniform_weights,
        all_empty,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use ndarray::{array, Array2};

    #[test]
    fn empty_excluded_unless_all_empty() {
        // Agent 0 is empty (zero vector); agents 1 and 2 are orthogonal with equal ψ → tie on
        // cos, tie on ψ → lower id (1).
        let r = array![[0.0f32, 0.0], [1.0, 0.0], [0.0, 1.0]];
        let a = aggregate(r.view(), &[0.0, 0.5, 0.5]).unwrap();
        assert_eq!(a.nstar, 1);
        assert!(!a.all_empty);
        let z = Array2::<f32>::zeros((3, 2));
        let a = aggregate(z.view(), &[0.0, 0.0, 0.0]).unwrap();
        assert!(a.all_empty && a.uniform_weights);
        assert_eq!(a.nstar, 0);
    }

    #[test]
    fn guard_on_non_positive_sum() {
        // ψ sums to −0.2 → uniform weights; centroid ∝ (1, 1, 0)… agent 2 (1,1) is nearest.
        let r = array![[1.0f32, 0.0], [0.0, 1.0], [1.0, 1.0]];
        let a = aggregate(r.view(), &[0.1, -0.5, 0.2]).unwrap();
        assert!(a.uniform_weights);
        assert_eq!(a.nstar, 2);
        assert!(aggregate(r.view(), &[0.1]).is_none());
    }
}
