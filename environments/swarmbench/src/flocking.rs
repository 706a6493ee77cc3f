//! The Flocking distance D (spec §9.4, Q18): the minimum over the reference's candidate
//! translations (pair differences agent − target) of the optimal assignment cost
//! (Kuhn–Munkres, `pathfinding`), with exact lower bounds to skip candidates.
//!
//! Only the minimum value matters, so a candidate is solved only if a lower bound on its cost
//! is below the best cost found so far. Bounds: the 1-D optimal assignment of rows plus that of
//! columns (a relaxation of the 2-D problem, computed once per distinct shift), then the sum over
//! targets of the cheapest agent and the sum of the cheapest per-agent costs.

use std::collections::{BTreeSet, HashMap};

use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;

use crate::world::Cell;

/// Minimum-cost order-preserving 1-D assignment of every target to a distinct agent
/// (both sorted; optimal for absolute differences). `agents.len() ≥ targets.len()`.
fn assign_1d(targets: &[i32], agents: &[i32], shift: i32) -> i64 {
    let (m, n) = (targets.len(), agents.len());
    let slack = n - m;
    // dp[s] = best cost with the current target matched to agent i + s.
    let mut dp = vec![0i64; slack + 1];
    let mut next = vec![0i64; slack + 1];
    for (i, &t) in targets.iter().enumerate() {
        let mut run = i64::MAX;
        for s in 0..=slack {
            let prev = if i == 0 { 0 } else { dp[s] };
            run = run.min(prev);
            next[s] = run + i64::from((agents[i + s] - t - shift).abs());
        }
        std::mem::swap(&mut dp, &mut next);
    }
    if m == 0 {
        return 0;
    }
    dp.into_iter().min().unwrap_or(0)
}

/// D for agents `agents` and target cells `target` (spec §9.4), and the translation that
/// achieves it. Needs `agents.len() ≥ target.len()`; otherwise returns 0.
pub fn distance(agents: &[Cell], target: &[Cell]) -> (i64, Cell) {
    if target.is_empty() || agents.len() < target.len() {
        return (0, (0, 0));
    }
    let mut cands: BTreeSet<Cell> = BTreeSet::new();
    for p in agents {
        for t in target {
            cands.insert((p.0 - t.0, p.1 - t.1));
        }
    }
    let sorted = |v: Vec<i32>| {
        let mut v = v;
        v.sort_unstable();
        v
    };
    let (tr, tc) = (
        sorted(target.iter().map(|t| t.0).collect()),
        sorted(target.iter().map(|t| t.1).collect()),
    );
    let (ar, ac) = (
        sorted(agents.iter().map(|p| p.0).collect()),
        sorted(agents.iter().map(|p| p.1).collect()),
    );
    let mut row_lb: HashMap<i32, i64> = HashMap::new();
    let mut col_lb: HashMap<i32, i64> = HashMap::new();
    let mut order: Vec<(i64, Cell)> = cands
        .into_iter()
        .map(|(dx, dy)| {
            let r = *row_lb.entry(dx).or_insert_with(|| assign_1d(&tr, &ar, dx));
            let c = *col_lb.entry(dy).or_insert_with(|| assign_1d(&tc, &ac, dy));
            (r + c, (dx, dy))
        })
        .collect();
    order.sort_unstable();
    let (m, n) = (target.len(), agents.len());
    let mut best = i64::MAX;
    let mut best_shift = (0, 0);
    let mut costs = vec![0i64; m * n];
    let mut agent_min = vec![i64::MAX; n];
    for (lb, (dx, dy)) in order {
        if lb >= best {
            break;
        }
        agent_min.iter_mut().for_each(|x| *x = i64::MAX);
        let mut target_bound = 0;
        for (ti, t) in target.iter().enumerate() {
            let mut tmin = i64::MAX;
            for (pi, p) in agents.iter().enumerate() {
                let c = i64::from((p.0 - t.0 - dx).abs() + (p.1 - t.1 - dy).abs());
                costs[ti * n + pi] = c;
                tmin = tmin.min(c);
                agent_min[pi] = agent_min[pi].min(c);
            }
            target_bound += tmin;
        }
        agent_min.sort_unstable();
        let agent_bound: i64 = agent_min[..m].iter().sum();
        if target_bound.max(agent_bound) >= best {
            continue;
        }
        let cost = match Matrix::from_vec(m, n, costs.clone()) {
            Ok(matrix) => kuhn_munkres_min(&matrix).0,
            Err(_) => continue,
        };
        if cost < best {
            best = cost;
            best_shift = (dx, dy);
        }
    }
    (if best == i64::MAX { 0 } else { best }, best_shift)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::flocking_target;

    /// Brute force over the same candidates with full assignment enumeration (small N).
    fn brute(agents: &[Cell], target: &[Cell]) -> i64 {
        fn rec(ti: usize, used: &mut Vec<bool>, a: &[Cell], t: &[Cell], s: Cell) -> i64 {
            if ti == t.len() {
                return 0;
            }
            let mut best = i64::MAX;
            for p in 0..a.len() {
                if !used[p] {
                    used[p] = true;
                    let c =
                        i64::from((a[p].0 - t[ti].0 - s.0).abs() + (a[p].1 - t[ti].1 - s.1).abs());
                    best = best.min(c + rec(ti + 1, used, a, t, s));
                    used[p] = false;
                }
            }
            best
        }
        let mut best = i64::MAX;
        for p in agents {
            for t in target {
                let s = (p.0 - t.0, p.1 - t.1);
                best = best.min(rec(0, &mut vec![false; agents.len()], agents, target, s));
            }
        }
        best
    }

    #[test]
    fn formed_square_is_zero_and_appendix_a_start_is_eleven() {
        let (_, t) = flocking_target(10);
        let mut agents: Vec<Cell> = t.iter().map(|&(r, c)| (r + 3, c + 4)).collect();
        agents.extend([(8, 8), (1, 1)]);
        assert_eq!(distance(&agents, &t).0, 0);
        let start = [
            (1, 2),
            (4, 5),
            (3, 4),
            (2, 2),
            (1, 7),
            (2, 1),
            (4, 4),
            (4, 1),
            (4, 7),
            (5, 8),
        ];
        assert_eq!(distance(&start, &t).0, 11);
    }

    #[test]
    fn one_agent_off_by_one_costs_one_and_matches_brute_force() {
        let (_, t) = flocking_target(8);
        let mut agents: Vec<Cell> = t.iter().map(|&(r, c)| (r + 2, c + 2)).collect();
        agents[0].0 -= 1;
        assert_eq!(distance(&agents, &t).0, 1);
        let (_, t6) = flocking_target(6);
        let scattered = [(1, 1), (5, 7), (3, 3), (8, 2), (2, 6), (6, 6)];
        assert_eq!(distance(&scattered, &t6).0, brute(&scattered, &t6));
    }
}
