//! Rectangular min-cost assignment (rows ≤ columns, non-negative integer costs) by
//! shortest augmenting paths with potentials, with early abandonment: after
//! each row the cost of the optimal assignment of the rows so far is a lower bound on the
//! full optimum (costs are non-negative), so a candidate that cannot beat `bound` stops early.
//!
//! It replaces `pathfinding::kuhn_munkres` on the Flocking hot path (spec §9.4, Q18): same
//! optimum, no allocation per call, and most losing candidates stop before the last row.

/// Reusable buffers of the solver.
#[derive(Debug, Default, Clone)]
pub struct Lap {
    u: Vec<i64>,
    v: Vec<i64>,
    path: Vec<usize>,
    col4row: Vec<usize>,
    row4col: Vec<usize>,
    spc: Vec<i64>,
    remaining: Vec<usize>,
    sr: Vec<bool>,
    sc: Vec<bool>,
    visited_rows: Vec<usize>,
    visited_cols: Vec<usize>,
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
        let (nr, nc) = (rows, cols);
        self.u.clear();
        self.u.resize(nr, 0);
        self.v.clear();
        self.v.resize(nc, 0);
        self.path.clear();
        self.path.resize(nc, NONE);
        self.col4row.clear();
        self.col4row.resize(nr, NONE);
        self.row4col.clear();
        self.row4col.resize(nc, NONE);
        self.spc.clear();
        self.spc.resize(nc, INF);
        self.sr.clear();
        self.sr.resize(nr, false);
        self.sc.clear();
        self.sc.resize(nc, false);
        let mut total = 0i64;
        for cur in 0..nr {
            self.remaining.clear();
            self.remaining.extend((0..nc).rev());
            self.spc.iter_mut().for_each(|x| *x = INF);
            let mut min_val = 0i64;
            let mut i = cur;
            let sink;
            self.visited_rows.clear();
            self.visited_cols.clear();
            loop {
                self.sr[i] = true;
                self.visited_rows.push(i);
                let row = &cost[i * nc..(i + 1) * nc];
                let ui = self.u[i];
                let mut lowest = INF;
                let mut index = NONE;
                for (it, &j) in self.remaining.iter().enumerate() {
                    let r = min_val + row[j] - ui - self.v[j];
                    if r < self.spc[j] {
                        self.path[j] = i;
                        self.spc[j] = r;
                    }
                    let s = self.spc[j];
                    if s < lowest || (s == lowest && self.row4col[j] == NONE) {
                        lowest = s;
                        index = it;
                    }
                }
                if index == NONE {
                    return None; // cannot happen with rows ≤ cols and finite costs
                }
                min_val = lowest;
                let j = self.remaining.swap_remove(index);
                self.sc[j] = true;
                self.visited_cols.push(j);
                if self.row4col[j] == NONE {
                    sink = j;
                    break;
                }
                i = self.row4col[j];
            }
            self.u[cur] += min_val;
            for &r in &self.visited_rows {
                if r != cur {
                    self.u[r] += min_val - self.spc[self.col4row[r]];
                }
                self.sr[r] = false;
            }
            for &j in &self.visited_cols {
                self.v[j] -= min_val - self.spc[j];
                self.sc[j] = false;
            }
            let mut j = sink;
            loop {
                let r = self.path[j];
                self.row4col[j] = r;
                let prev = std::mem::replace(&mut self.col4row[r], j);
                if r == cur {
                    break;
                }
                j = prev;
            }
            // The running total is the optimum of rows 0..=cur: a lower bound on the full one.
            total += min_val;
            if total >= bound {
                return None;
            }
        }
        Some(total)
    }

    /// For each column, the row assigned to it by the last completed solve.
    pub fn row_of_column(&self) -> Vec<Option<usize>> {
        self.row4col
            .iter()
            .map(|&r| (r != NONE).then_some(r))
            .collect()
    }

    /// Column potentials of the last completed solve (all ≤ 0).
    pub fn column_potentials(&self) -> &[i64] {
        &self.v
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
                    .map(|_| (colony_env_api::policy::splitmix64(&mut seed) % 50) as i64)
                    .collect();
                let want = kuhn_munkres_min(&Matrix::from_vec(rows, cols, cost.clone()).unwrap()).0;
                assert_eq!(lap.solve(&cost, rows, cols, i64::MAX), Some(want));
                assert_eq!(lap.solve(&cost, rows, cols, want), None);
                assert_eq!(lap.solve(&cost, rows, cols, want + 1), Some(want));
            }
        }
    }
}
