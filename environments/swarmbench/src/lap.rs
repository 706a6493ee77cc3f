//! Rectangular min-cost assignment (rows ≤ columns, non-negative integer costs) by
//! shortest augmenting paths with potentials, with early abandonment: after
//! each row the cost of the optimal assignment of the rows so far is a lower bound on the
//! full optimum (costs are non-negative), so a candidate that cannot beat `bound` stops early.
//!
//! It replaces `pathfinding::kuhn_munkres` on the Flocking hot path
//! (docs/design/swarmbench.md §9.4, Q18): same optimum, no allocation per call, and most losing
//! candidates stop before the last row.

/// Per-column solver data, kept together for locality.
#[derive(Debug, Clone, Copy)]
struct Col {
    v: i64,
    spc: i64,
    path: usize,
    row: usize,
}

/// Reusable buffers of the solver.
#[derive(Debug, Default, Clone)]
pub struct Lap {
    u: Vec<i64>,
    cols: Vec<Col>,
    col4row: Vec<usize>,
    remaining: Vec<usize>,
    visited_rows: Vec<usize>,
    visited_cols: Vec<usize>,
    v_out: Vec<i64>,
}

const INF: i64 = i64::MAX / 4;
const NONE: usize = usize::MAX;

impl Lap {
    /// The optimal cost of assigning each of `rows` rows to a distinct column of the
    /// row-major `cost` matrix (`rows × cols`, rows ≤ cols, costs ≥ 0), or `None` as soon as
    /// it is certain to be ≥ `bound`.
    ///
    /// Shortest augmenting paths with potentials (Crouse 2016, as in SciPy's
    /// `linear_sum_assignment`): one Dijkstra per row over the columns not yet reached, ties
    /// broken towards free columns (short paths with the many ties of grid distances). After
    /// each row the running total is the optimum of the rows so far.
    pub fn solve(&mut self, cost: &[i64], rows: usize, cols: usize, bound: i64) -> Option<i64> {
        self.solve_with_rest(cost, rows, cols, bound, &[])
    }

    /// [`Lap::solve`] with `rest[i]` = a lower bound on the cost of rows `i+1..` alone (e.g.
    /// the sum of their row minima): the optimum of rows `0..=i` plus `rest[i]` is then a
    /// lower bound on the full optimum, which abandons losing candidates earlier. Missing
    /// entries count as 0.
    pub fn solve_with_rest(
        &mut self,
        cost: &[i64],
        rows: usize,
        cols: usize,
        bound: i64,
        rest: &[i64],
    ) -> Option<i64> {
        let (nr, nc) = (rows, cols);
        if cost.len() < nr * nc || nr > nc {
            return None;
        }
        self.u.clear();
        self.u.resize(nr, 0);
        self.cols.clear();
        self.cols.resize(
            nc,
            Col {
                v: 0,
                spc: INF,
                path: NONE,
                row: NONE,
            },
        );
        self.col4row.clear();
        self.col4row.resize(nr, NONE);
        let mut total = 0i64;
        for cur in 0..nr {
            // Dijkstra's distances only grow, so once the running total plus the next shortest
            // distance (a lower bound on this row's increment) plus the rest reaches `bound`,
            // the candidate is lost without finishing the row.
            let stop = bound.saturating_sub(total + rest.get(cur).copied().unwrap_or(0));
            self.remaining.clear();
            self.remaining.extend((0..nc).rev());
            for c in &mut self.cols {
                c.spc = INF;
            }
            let mut min_val = 0i64;
            let mut i = cur;
            let sink;
            self.visited_rows.clear();
            self.visited_cols.clear();
            loop {
                self.visited_rows.push(i);
                let row = &cost[i * nc..(i + 1) * nc];
                let base = min_val - self.u[i];
                // Ties go to free columns (short paths with the many ties of grid distances):
                // the key `2·spc + assigned` orders by distance, then free before assigned, in
                // one comparison the compiler can make branch-free.
                let mut lowest_key = 2 * INF + 1;
                let mut index = NONE;
                for (it, &j) in self.remaining.iter().enumerate() {
                    let c = &mut self.cols[j];
                    let r = base + row[j] - c.v;
                    if r < c.spc {
                        c.path = i;
                        c.spc = r;
                    }
                    let key = 2 * c.spc + i64::from(c.row != NONE);
                    if key < lowest_key {
                        lowest_key = key;
                        index = it;
                    }
                }
                if index == NONE {
                    return None; // cannot happen with rows ≤ cols and finite costs
                }
                let lowest = lowest_key >> 1;
                if lowest >= stop {
                    return None;
                }
                min_val = lowest;
                let j = self.remaining.swap_remove(index);
                self.visited_cols.push(j);
                if self.cols[j].row == NONE {
                    sink = j;
                    break;
                }
                i = self.cols[j].row;
            }
            self.u[cur] += min_val;
            for &r in &self.visited_rows {
                if r != cur {
                    self.u[r] += min_val - self.cols[self.col4row[r]].spc;
                }
            }
            for &j in &self.visited_cols {
                let c = &mut self.cols[j];
                c.v -= min_val - c.spc;
            }
            let mut j = sink;
            loop {
                let r = self.cols[j].path;
                self.cols[j].row = r;
                let prev = std::mem::replace(&mut self.col4row[r], j);
                if r == cur {
                    break;
                }
                j = prev;
            }
            // The running total is the optimum of rows 0..=cur; any full assignment also pays
            // at least `rest[cur]` for the other rows.
            total += min_val;
            if total + rest.get(cur).copied().unwrap_or(0) >= bound {
                return None;
            }
        }
        self.v_out.clear();
        self.v_out.extend(self.cols.iter().map(|c| c.v));
        Some(total)
    }

    /// For each column, the row assigned to it by the last completed solve.
    pub fn row_of_column(&self) -> Vec<Option<usize>> {
        self.cols
            .iter()
            .map(|c| (c.row != NONE).then_some(c.row))
            .collect()
    }

    /// Column potentials of the last completed solve (all ≤ 0).
    pub fn column_potentials(&self) -> &[i64] {
        &self.v_out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_kuhn_munkres_and_abandons_losers() {
        use pathfinding::kuhn_munkres::kuhn_munkres_min;
        use pathfinding::matrix::Matrix;
        let mut seed = 7u64;
        let mut lap = Lap::default();
        for (rows, cols) in [(1, 1), (3, 5), (8, 8), (8, 10), (20, 23)] {
            for _ in 0..20 {
                let cost: Vec<i64> = (0..rows * cols)
                    .map(|_| (colony_env_api::rng::splitmix64(&mut seed) % 50) as i64)
                    .collect();
                let want = kuhn_munkres_min(&Matrix::from_vec(rows, cols, cost.clone()).unwrap()).0;
                assert_eq!(lap.solve(&cost, rows, cols, i64::MAX), Some(want));
                assert_eq!(lap.solve(&cost, rows, cols, want), None);
                assert_eq!(lap.solve(&cost, rows, cols, want + 1), Some(want));
                // With the row-minima suffix bound (as Flocking passes it) the abandonment,
                // including in the middle of a row's search, still never loses the optimum.
                let mut rest = vec![0i64; rows];
                let mut acc = 0;
                for r in (0..rows).rev() {
                    rest[r] = acc;
                    acc += cost[r * cols..(r + 1) * cols]
                        .iter()
                        .copied()
                        .min()
                        .unwrap();
                }
                assert_eq!(lap.solve_with_rest(&cost, rows, cols, want, &rest), None);
                for slack in 1..4 {
                    let got = lap.solve_with_rest(&cost, rows, cols, want + slack, &rest);
                    assert_eq!(got, Some(want));
                }
            }
        }
    }
}
