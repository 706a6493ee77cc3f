//! Ties in SelfOrg's graph and aggregate (docs/design/selforg.md §1.9.1).
//!
//! With N = 2 the two contributions ψ are mathematically equal, and in symmetric configurations
//! (equilateral answers, duplicated responses) so are several similarities; computed in
//! floating point they differ in the last bits, and which one is "larger" then depends on the
//! summation order. **Decision:** ψ, S (and the aggregate's cosines to the centroid) are
//! rounded to [`TIE_PRECISION`] = 1e-9 before every comparison and sort key — the candidate
//! filter (`S ≥ tau`, gated `ψ[m] > ψ[n]`), top-k, cycle removal, topological order, leader,
//! prompt order of parents and the aggregate's argmax — and exact ties then break by agent id
//! as the spec orders them (docs/design/selforg.md §1.9.1–§1.9.4, §1.11). Logged values (ψ, S,
//! cosines in the trace and in `colony selforg graph`) stay unrounded.
//!
//! Values within 1e-9 of each other but on either side of a rounding boundary
//! (`x.5 · 1e-9`) still compare unequal; real contributions that differ by less than 1e-9 are
//! indistinguishable from noise anyway, and the boundary is hit with probability ~1e-6 per
//! comparison.

use std::cmp::Ordering;

/// The precision ψ and S are rounded to before they are compared.
pub const TIE_PRECISION: f64 = 1e-9;

/// `x` rounded to a multiple of [`TIE_PRECISION`]: the value every comparison of ψ, S and
/// aggregate cosines uses. Exact (an integer-valued f64 scaled by 1e9), and `-0` becomes `0`,
/// so rounded keys compare equal under `total_cmp` exactly when they are equal.
pub fn tie_key(x: f64) -> f64 {
    (x / TIE_PRECISION).round() + 0.0
}

/// `(psi descending, id ascending)` on rounded ψ; NaN-safe via `total_cmp`.
pub(crate) fn by_psi_desc(psi: &[f64], a: usize, b: usize) -> Ordering {
    let pa = psi.get(a).copied().map_or(f64::NEG_INFINITY, tie_key);
    let pb = psi.get(b).copied().map_or(f64::NEG_INFINITY, tie_key);
    pb.total_cmp(&pa).then(a.cmp(&b))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use ndarray::{array, Array2};
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::super::{aggregate, build_graph, build_graph_from, Graph, GraphOptions, Rule};
    use super::*;

    fn gated() -> GraphOptions {
        GraphOptions {
            rule: Rule::Gated,
            ..GraphOptions::default()
        }
    }

    /// Edges, order, leader and removed edges: what ties decide.
    type Shape = (Vec<(usize, usize)>, Vec<usize>, usize, Vec<(usize, usize)>);

    fn shape(g: &Graph) -> Shape {
        (
            g.edges.clone(),
            g.order.clone(),
            g.leader,
            g.removed.clone(),
        )
    }

    #[test]
    fn keys_round_to_1e9_and_zero_has_one_sign() {
        assert_eq!(tie_key(0.5), tie_key(0.5 + 1e-15));
        assert_eq!(tie_key(0.5), tie_key(0.5 - 4e-10));
        assert_ne!(tie_key(0.5), tie_key(0.5 + 2e-9));
        assert_eq!(tie_key(-1e-13).total_cmp(&tie_key(1e-13)), Ordering::Equal);
        assert_eq!(
            by_psi_desc(&[0.7, 0.7 + 1e-14], 0, 1),
            Ordering::Less,
            "equal ψ: lower id first"
        );
    }

    /// Exact-tie configurations `(S, ψ)`: N = 2 above and below tau, an equilateral triple,
    /// two symmetric pairs, duplicates next to a stranger.
    fn exact_configurations() -> Vec<(Array2<f64>, Vec<f64>)> {
        vec![
            (array![[1.0, 0.75], [0.75, 1.0]], vec![0.875, 0.875]),
            (array![[1.0, 0.25], [0.25, 1.0]], vec![0.625, 0.625]),
            (
                array![[1.0, 0.6, 0.6], [0.6, 1.0, 0.6], [0.6, 0.6, 1.0]],
                vec![0.8, 0.8, 0.8],
            ),
            (
                array![
                    [1.0, 0.9, 0.55, 0.55],
                    [0.9, 1.0, 0.55, 0.55],
                    [0.55, 0.55, 1.0, 0.9],
                    [0.55, 0.55, 0.9, 1.0]
                ],
                vec![0.75, 0.75, 0.75, 0.75],
            ),
            (
                array![
                    [1.0, 1.0, 1.0, 0.5],
                    [1.0, 1.0, 1.0, 0.5],
                    [1.0, 1.0, 1.0, 0.5],
                    [0.5, 0.5, 0.5, 1.0]
                ],
                vec![0.95, 0.95, 0.95, 0.625],
            ),
        ]
    }

    #[test]
    fn noise_below_1e9_never_changes_the_graph() {
        let mut rng = ChaCha8Rng::seed_from_u64(15);
        for (case, (s, psi)) in exact_configurations().into_iter().enumerate() {
            let n = psi.len();
            for opts in [GraphOptions::default(), gated()] {
                let exact = build_graph_from(s.view(), &psi, &opts).unwrap();
                for trial in 0..300 {
                    // Perturbations of the size summation order produces (1e-15), and larger.
                    let scale = [1e-15, 1e-13, 1e-11][trial % 3];
                    let mut noisy_s = s.clone();
                    for i in 0..n {
                        for j in (i + 1)..n {
                            let d = scale * rng.random_range(-1.0..1.0);
                            noisy_s[[i, j]] += d;
                            noisy_s[[j, i]] += d;
                        }
                    }
                    let noisy_psi: Vec<f64> = psi
                        .iter()
                        .map(|p| p + scale * rng.random_range(-1.0..1.0))
                        .collect();
                    let g = build_graph_from(noisy_s.view(), &noisy_psi, &opts).unwrap();
                    assert_eq!(shape(&g), shape(&exact), "case {case} trial {trial}");
                    assert_eq!(g.psi, noisy_psi, "logged ψ stays unrounded");
                }
            }
        }
    }

    #[test]
    fn exact_ties_break_by_id_as_the_spec_orders_them() {
        let configs = exact_configurations();
        // N = 2 above tau: 0 → 1 and 1 → 0; the cycle's first minimal node is 0 → remove 0 → 1.
        let g =
            build_graph_from(configs[0].0.view(), &configs[0].1, &GraphOptions::default()).unwrap();
        assert_eq!(
            shape(&g),
            (vec![(1, 0)], vec![1, 0], 1, vec![(0, 1)]),
            "N = 2, Alg2"
        );
        // N = 2 gated, or below tau: no edges, order by id.
        let g = build_graph_from(configs[0].0.view(), &configs[0].1, &gated()).unwrap();
        assert_eq!(shape(&g), (vec![], vec![0, 1], 0, vec![]));
        let g =
            build_graph_from(configs[1].0.view(), &configs[1].1, &GraphOptions::default()).unwrap();
        assert_eq!(shape(&g), (vec![], vec![0, 1], 0, vec![]));
        // Equilateral triple: all six edges; DFS 0 → 1 → 0 removes 0 → 1, then 0 → 2 → 0
        // removes 0 → 2, then 1 → 2 → 1 removes 1 → 2: a chain 2 → 1 → 0.
        let g =
            build_graph_from(configs[2].0.view(), &configs[2].1, &GraphOptions::default()).unwrap();
        assert_eq!(
            shape(&g),
            (
                vec![(1, 0), (2, 0), (2, 1)],
                vec![2, 1, 0],
                2,
                vec![(0, 1), (0, 2), (1, 2)]
            )
        );
    }

    /// Rows of `r` with their columns permuted: every cosine is mathematically the same, but
    /// each dot product sums in another order.
    fn permute_columns(r: &Array2<f32>, perm: &[usize]) -> Array2<f32> {
        Array2::from_shape_fn(r.dim(), |(i, j)| r[[i, perm[j]]])
    }

    /// `n` rows, each the same random vector cyclically shifted by 8 more coordinates: every
    /// row has the same ψ and `S[i][j]` depends only on `(j − i) mod n`, mathematically; in
    /// floating point each dot product sums in its own order. `offset` sets how similar the
    /// rows are (0: about orthogonal, 1: about 0.8).
    fn symmetric_rows(n: usize, offset: f32, rng: &mut ChaCha8Rng) -> Array2<f32> {
        let d = 8 * n;
        let v: Vec<f32> = (0..d)
            .map(|_| offset + rng.random_range(-0.5..0.5))
            .collect();
        Array2::from_shape_fn((n, d), |(i, j)| v[(j + 8 * i) % d])
    }

    #[test]
    fn summation_order_never_changes_order_leader_edges_or_output() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut cases: Vec<Array2<f32>> = Vec::new();
        for _ in 0..20 {
            // N = 2: any two responses have equal ψ.
            cases.push(Array2::from_shape_fn((2, 24), |_| {
                rng.random_range(-1.0..1.0)
            }));
        }
        for n in 2..=6 {
            for offset in [0.0, 0.5, 1.0, 3.0] {
                cases.push(symmetric_rows(n, offset, &mut rng));
            }
        }
        for (case, r) in cases.iter().enumerate() {
            for opts in [GraphOptions::default(), gated()] {
                let base = build_graph(r.view(), &opts).unwrap();
                let nstar = aggregate(r.view(), &base.psi).unwrap().nstar;
                // Equal ψ everywhere: the id-ordered result.
                if opts.rule == Rule::Gated {
                    assert!(base.edges.is_empty(), "case {case}");
                    assert_eq!(base.order, (0..r.nrows()).collect::<Vec<_>>());
                }
                assert_eq!(nstar, 0, "case {case}: the aggregate's tie goes to agent 0");
                let mut perm: Vec<usize> = (0..r.ncols()).collect();
                for _ in 0..30 {
                    perm.shuffle(&mut rng);
                    let p = permute_columns(r, &perm);
                    let g = build_graph(p.view(), &opts).unwrap();
                    assert_eq!(shape(&g), shape(&base), "case {case} {perm:?}");
                    assert_eq!(aggregate(p.view(), &g.psi).unwrap().nstar, nstar);
                }
            }
        }
    }
}
