//! The DAG half of SelfOrg's `build_graph` (docs/design/selforg.md §1.9.2–§1.9.3): deterministic
//! cycle removal and the topological order. Every ψ comparison goes through
//! [`super::ties::tie_key`] (ψ rounded to 1e-9), so exact ties break by agent id whatever the
//! floating-point noise (docs/design/selforg.md §1.9.1).

use super::ties::{by_psi_desc, tie_key};

/// Adjacency lists (targets ascending, since `edges` is sorted by `(m, n)`).
fn adjacency(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); n];
    for &(m, k) in edges {
        if m < n && k < n {
            adj[m].push(k);
        }
    }
    for a in &mut adj {
        a.sort_unstable();
    }
    adj
}

#[derive(Clone, Copy, PartialEq)]
enum Colour {
    White,
    Grey,
    Black,
}

/// The weakest edge of `cycle` (§1.9.2): `(w, next)` where `w` is the first node of minimal ψ
/// (ψ rounded to 1e-9, so equal contributions count as equal). Returns its position in `cycle`.
fn weakest(cycle: &[usize], psi: &[f64]) -> usize {
    let mut w_pos = 0;
    for i in 1..cycle.len() {
        if tie_key(psi[cycle[i]]) < tie_key(psi[cycle[w_pos]]) {
            w_pos = i;
        }
    }
    w_pos
}

/// Cycle removal of §1.9.2: repeatedly find a cycle with `find_cycle` (DFS from each white node
/// in ascending order, neighbours ascending), remove its weakest edge, and search again from
/// scratch. Returns the removed edges in removal order and leaves the rest in `edges`, sorted.
///
/// Restarting the search from scratch costs O(E) per removal, O(E²) in all (minutes for a few
/// hundred fully connected agents), so the search is resumed instead, with the same result:
/// a restarted DFS replays the previous one until it would take the removed edge `a → b`, so
/// the search continues at `a` past that edge, with the nodes above `a` on the path white again.
/// Nodes already finished (black) stay black: everything they reach was finished without a
/// cycle, and removing edges cannot create one, so a restart would revisit them in vain.
pub(super) fn remove_cycles(
    n: usize,
    edges: &mut Vec<(usize, usize)>,
    psi: &[f64],
) -> Vec<(usize, usize)> {
    let mut adj = adjacency(n, edges);
    let mut colour = vec![Colour::White; n];
    // The DFS path: (node, index of the next neighbour to look at).
    let mut path: Vec<(usize, usize)> = Vec::new();
    let mut removed = Vec::new();
    let mut root = 0;
    loop {
        let Some(&(u, next)) = path.last() else {
            while root < n && colour[root] != Colour::White {
                root += 1;
            }
            if root == n {
                break;
            }
            colour[root] = Colour::Grey;
            path.push((root, 0));
            continue;
        };
        let Some(&v) = adj[u].get(next) else {
            colour[u] = Colour::Black;
            path.pop();
            continue;
        };
        if let Some(top) = path.last_mut() {
            top.1 = next + 1;
        }
        match colour[v] {
            Colour::Black => {}
            Colour::White => {
                colour[v] = Colour::Grey;
                path.push((v, 0));
            }
            Colour::Grey => {
                let at = path.iter().position(|&(p, _)| p == v).unwrap_or(0);
                let cycle: Vec<usize> = path[at..].iter().map(|&(p, _)| p).collect();
                let w_pos = weakest(&cycle, psi);
                let e = (cycle[w_pos], cycle[(w_pos + 1) % cycle.len()]);
                removed.push(e);
                // `a` = path[at + w_pos] took `e` last: its next index is just past `b`.
                let a_pos = at + w_pos;
                let (a, a_next) = path[a_pos];
                let b_index = a_next.saturating_sub(1);
                if adj[a].get(b_index) == Some(&e.1) {
                    adj[a].remove(b_index);
                    path[a_pos].1 = b_index;
                } else {
                    // Unreachable by construction; stay correct anyway.
                    adj[a].retain(|&x| x != e.1);
                }
                for &(p, _) in &path[a_pos + 1..] {
                    colour[p] = Colour::White;
                }
                path.truncate(a_pos + 1);
            }
        }
    }
    *edges = adj
        .iter()
        .enumerate()
        .flat_map(|(m, list)| list.iter().map(move |&k| (m, k)))
        .collect();
    removed
}

/// Kahn's algorithm, ready nodes picked by `(psi descending, id ascending)` (§1.9.3), ψ rounded
/// to 1e-9.
/// Should a cycle remain (impossible after removal), the leftover nodes follow in that key order.
pub(crate) fn topo_order(n: usize, edges: &[(usize, usize)], psi: &[f64]) -> Vec<usize> {
    let adj = adjacency(n, edges);
    let mut indeg = vec![0usize; n];
    for list in &adj {
        for &v in list {
            indeg[v] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        ready.sort_by(|&a, &b| by_psi_desc(psi, a, b));
        let u = ready.remove(0);
        done[u] = true;
        order.push(u);
        for &v in &adj[u] {
            indeg[v] -= 1;
            if indeg[v] == 0 {
                ready.push(v);
            }
        }
    }
    if order.len() < n {
        let mut rest: Vec<usize> = (0..n).filter(|&v| !done[v]).collect();
        rest.sort_by(|&a, &b| by_psi_desc(psi, a, b));
        order.extend(rest);
    }
    order
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    /// `find_cycle` of §1.9.2: DFS from each white node in ascending order; returns the cycle as the
    /// node sequence `v → … → u` (the closing edge is `u → v`).
    fn find_cycle(n: usize, edges: &[(usize, usize)]) -> Option<Vec<usize>> {
        fn dfs(
            u: usize,
            adj: &[Vec<usize>],
            colour: &mut [Colour],
            path: &mut Vec<usize>,
        ) -> Option<Vec<usize>> {
            colour[u] = Colour::Grey;
            path.push(u);
            for &v in &adj[u] {
                match colour[v] {
                    Colour::Grey => {
                        let at = path.iter().position(|&p| p == v).unwrap_or(0);
                        return Some(path[at..].to_vec());
                    }
                    Colour::White => {
                        if let Some(c) = dfs(v, adj, colour, path) {
                            return Some(c);
                        }
                    }
                    Colour::Black => {}
                }
            }
            colour[u] = Colour::Black;
            path.pop();
            None
        }
        let adj = adjacency(n, edges);
        let mut colour = vec![Colour::White; n];
        let mut path = Vec::new();
        for s in 0..n {
            if colour[s] == Colour::White {
                if let Some(c) = dfs(s, &adj, &mut colour, &mut path) {
                    return Some(c);
                }
            }
        }
        None
    }

    /// The literal §1.9.2 procedure: restart `find_cycle` from scratch after each removal.
    fn remove_cycles_by_restart(
        n: usize,
        edges: &mut Vec<(usize, usize)>,
        psi: &[f64],
    ) -> Vec<(usize, usize)> {
        let mut removed = Vec::new();
        while let Some(cycle) = find_cycle(n, edges) {
            let w_pos = weakest(&cycle, psi);
            let e = (cycle[w_pos], cycle[(w_pos + 1) % cycle.len()]);
            edges.retain(|&x| x != e);
            removed.push(e);
        }
        removed
    }

    #[test]
    fn resumed_cycle_removal_equals_restarting() {
        // Deterministic pseudo-random graphs, dense and sparse, with ψ ties.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..400 {
            let n = if case % 8 == 0 {
                20 + case % 24
            } else {
                2 + case % 12
            };
            let density = 1 + rand() % 10;
            let mut edges = Vec::new();
            for m in 0..n {
                for k in 0..n {
                    if m != k && rand() % 10 < density {
                        edges.push((m, k));
                    }
                }
            }
            let psi: Vec<f64> = (0..n).map(|_| (rand() % 4) as f64 / 4.0).collect();
            let mut fast = edges.clone();
            let mut slow = edges.clone();
            let r_fast = remove_cycles(n, &mut fast, &psi);
            let r_slow = remove_cycles_by_restart(n, &mut slow, &psi);
            assert_eq!(r_fast, r_slow, "case {case}: {edges:?} {psi:?}");
            assert_eq!(fast, slow, "case {case}");
            assert_eq!(find_cycle(n, &fast), None);
        }
    }

    #[test]
    fn dense_cycle_removal_is_fast() {
        let n = 300;
        let edges: Vec<(usize, usize)> = (0..n)
            .flat_map(|m| (0..n).filter(move |&k| k != m).map(move |k| (m, k)))
            .collect();
        let mut kept = edges.clone();
        let removed = remove_cycles(n, &mut kept, &vec![0.5; n]);
        assert_eq!(removed.len() + kept.len(), edges.len());
        assert_eq!(find_cycle(n, &kept), None);
    }

    #[test]
    fn find_cycle_returns_path_suffix() {
        // 0 → 1 → 2 → 1: DFS from 0 reaches 2, sees grey 1 → cycle [1, 2].
        let c = find_cycle(3, &[(0, 1), (1, 2), (2, 1)]);
        assert_eq!(c, Some(vec![1, 2]));
        assert_eq!(find_cycle(3, &[(0, 1), (1, 2), (0, 2)]), None);
    }

    #[test]
    fn topo_ties_by_psi_then_id() {
        // No edges: order is ψ descending, ties by id.
        let o = topo_order(4, &[], &[0.5, 0.9, 0.9, 0.1]);
        assert_eq!(o, vec![1, 2, 0, 3]);
    }
}
