//! A small Dinic maximum flow with the residual "can reach the sink" set, for the exact
//! resolution of a physics pass (docs/design/swarmbench.md §4.6).

/// A flow network with integer capacities.
#[derive(Debug, Default, Clone)]
pub struct FlowNet {
    head: Vec<usize>,
    to: Vec<usize>,
    cap: Vec<i64>,
    next: Vec<usize>,
    level: Vec<i32>,
    iter: Vec<usize>,
    queue: Vec<usize>,
}

const NIL: usize = usize::MAX;

impl FlowNet {
    /// Clears the network to `n` nodes and no arcs (keeps allocations).
    pub fn reset(&mut self, n: usize) {
        self.head.clear();
        self.head.resize(n, NIL);
        self.to.clear();
        self.cap.clear();
        self.next.clear();
    }

    /// Adds an arc `u → v` with capacity `c` (and its residual twin).
    pub fn add_edge(&mut self, u: usize, v: usize, c: i64) {
        for (a, b, cc) in [(u, v, c), (v, u, 0)] {
            self.to.push(b);
            self.cap.push(cc);
            self.next.push(self.head[a]);
            self.head[a] = self.to.len() - 1;
        }
    }

    fn bfs(&mut self, s: usize, t: usize) -> bool {
        self.level.clear();
        self.level.resize(self.head.len(), -1);
        self.queue.clear();
        self.level[s] = 0;
        self.queue.push(s);
        let mut q = 0;
        while q < self.queue.len() {
            let u = self.queue[q];
            q += 1;
            let mut e = self.head[u];
            while e != NIL {
                let v = self.to[e];
                if self.cap[e] > 0 && self.level[v] < 0 {
                    self.level[v] = self.level[u] + 1;
                    self.queue.push(v);
                }
                e = self.next[e];
            }
        }
        self.level[t] >= 0
    }

    fn dfs(&mut self, u: usize, t: usize, f: i64) -> i64 {
        if u == t {
            return f;
        }
        while self.iter[u] != NIL {
            let e = self.iter[u];
            let v = self.to[e];
            if self.cap[e] > 0 && self.level[v] == self.level[u] + 1 {
                let d = self.dfs(v, t, f.min(self.cap[e]));
                if d > 0 {
                    self.cap[e] -= d;
                    self.cap[e ^ 1] += d;
                    return d;
                }
            }
            self.iter[u] = self.next[e];
        }
        0
    }

    /// Runs a maximum flow from `s` to `t`; returns its value.
    pub fn max_flow(&mut self, s: usize, t: usize) -> i64 {
        let mut total = 0;
        while self.bfs(s, t) {
            self.iter.clone_from(&self.head);
            loop {
                let f = self.dfs(s, t, i64::MAX);
                if f == 0 {
                    break;
                }
                total += f;
            }
        }
        total
    }

    /// After [`FlowNet::max_flow`]: for every node, whether `t` is reachable from it in the
    /// residual graph.
    pub fn reaches_sink(&self, t: usize) -> Vec<bool> {
        let n = self.head.len();
        // Reverse residual adjacency: x can reach t if some residual arc x→y has y marked.
        let mut marked = vec![false; n];
        marked[t] = true;
        let mut stack = vec![t];
        while let Some(y) = stack.pop() {
            // Arcs into y are the twins of arcs out of y.
            let mut e = self.head[y];
            while e != NIL {
                let x = self.to[e];
                if self.cap[e ^ 1] > 0 && !marked[x] {
                    marked[x] = true;
                    stack.push(x);
                }
                e = self.next[e];
            }
        }
        marked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_flow_and_residual_sink_side() {
        // s=0, a=1, b=2, t=3: s→a 2, a→b inf, a→t 1, b→t 2.
        let mut net = FlowNet::default();
        net.reset(4);
        net.add_edge(0, 1, 2);
        net.add_edge(1, 2, 100);
        net.add_edge(1, 3, 1);
        net.add_edge(2, 3, 2);
        assert_eq!(net.max_flow(0, 3), 2);
        let z = net.reaches_sink(3);
        // b's arc to t is not saturated, and a reaches b.
        assert_eq!(z, vec![false, true, true, true]);
    }
}
