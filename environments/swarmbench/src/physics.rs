//! One round of physics: forces from actions, four directional passes, the contact graph of a
//! pass, SCC condensation and the exact resolution by one maximum flow per pass
//! (docs/design/swarmbench.md §4).
//!
//! Only objects reachable from an agent pushing along the pass direction can move (any other
//! node would have to pay its mass with no incoming force), so each pass works on that
//! subgraph alone; this keeps a pass proportional to the pushers' neighbourhood.

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::{Deserialize, Serialize};

use crate::maxflow::FlowNet;
use crate::world::{Cell, MeshKind, World};

/// Push force of one agent (design §4.1).
pub const PUSH_FORCE: i64 = 2;

/// A movement direction (design §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Dir {
    /// (−1, 0)
    Up,
    /// (+1, 0)
    Down,
    /// (0, −1)
    Left,
    /// (0, +1)
    Right,
}

impl Dir {
    /// The pass order of design §4.2.
    pub const PASSES: [Dir; 4] = [Dir::Up, Dir::Down, Dir::Left, Dir::Right];

    /// The unit vector `(di, dj)`.
    pub fn delta(self) -> Cell {
        match self {
            Dir::Up => (-1, 0),
            Dir::Down => (1, 0),
            Dir::Left => (0, -1),
            Dir::Right => (0, 1),
        }
    }

    /// The opposite direction.
    pub fn opposite(self) -> Dir {
        match self {
            Dir::Up => Dir::Down,
            Dir::Down => Dir::Up,
            Dir::Left => Dir::Right,
            Dir::Right => Dir::Left,
        }
    }

    /// The action name (`UP`, …).
    pub fn name(self) -> &'static str {
        match self {
            Dir::Up => "UP",
            Dir::Down => "DOWN",
            Dir::Left => "LEFT",
            Dir::Right => "RIGHT",
        }
    }
}

const NONE: u32 = u32::MAX;

/// Reusable buffers for the physics passes (no allocation in the common case).
#[derive(Debug, Default, Clone)]
pub struct Physics {
    local: Vec<u32>,
    nodes: Vec<usize>,
    edges: Vec<(u32, u32)>,
    offmap: Vec<usize>,
    moving: Vec<usize>,
    net: FlowNet,
}

impl Physics {
    /// Runs the four passes UP, DOWN, LEFT, RIGHT (design §4.2). `actions[k]` is the direction
    /// object `k` pushes in (only agents push; others `None`).
    pub fn step(&mut self, world: &mut World, actions: &[Option<Dir>]) {
        for d in Dir::PASSES {
            self.pass(world, actions, d);
        }
    }

    /// One directional pass (design §4.3–4.7).
    pub fn pass(&mut self, world: &mut World, actions: &[Option<Dir>], d: Dir) {
        let n = world.meshes.len();
        self.local.clear();
        self.local.resize(n, NONE);
        self.nodes.clear();
        self.edges.clear();
        for (k, m) in world.meshes.iter().enumerate() {
            if m.present && m.kind == MeshKind::Agent && actions.get(k) == Some(&Some(d)) {
                self.local[k] = self.nodes.len() as u32;
                self.nodes.push(k);
            }
        }
        if self.nodes.is_empty() {
            return;
        }
        self.offmap.clear();
        for (k, m) in world.meshes.iter().enumerate() {
            if m.present && m.abs_cells().any(|(c, _)| !world.on_map(c)) {
                self.offmap.push(k);
            }
        }
        let (di, dj) = d.delta();
        let mut q = 0;
        while q < self.nodes.len() {
            let u = self.nodes[q];
            q += 1;
            if world.meshes[u].is_static {
                continue; // edges leaving static nodes never matter (design §4.6 step 1)
            }
            for ((ci, cj), _) in world.meshes[u].abs_cells() {
                let next = (ci + di, cj + dj);
                if world.on_map(next) {
                    if let Some(v) = world.occupant(next) {
                        if v != u {
                            self.touch(u, v);
                        }
                    }
                } else {
                    for oi in 0..self.offmap.len() {
                        let v = self.offmap[oi];
                        if v != u && world.meshes[v].abs_cells().any(|(c, _)| c == next) {
                            self.touch(u, v);
                        }
                    }
                }
            }
        }
        self.edges.sort_unstable();
        self.edges.dedup();
        self.moving.clear();
        if self.edges.is_empty() {
            for &k in &self.nodes {
                let m = &world.meshes[k];
                if !m.is_static && self.force(world, actions, k, d) >= m.mass {
                    self.moving.push(k);
                }
            }
        } else {
            self.resolve(world, actions, d);
        }
        apply_move(world, &self.moving, (di, dj));
    }

    fn touch(&mut self, u: usize, v: usize) {
        if self.local[v] == NONE {
            self.local[v] = self.nodes.len() as u32;
            self.nodes.push(v);
        }
        self.edges.push((u as u32, v as u32));
    }

    fn force(&self, world: &World, actions: &[Option<Dir>], k: usize, d: Dir) -> i64 {
        if world.meshes[k].kind != MeshKind::Agent {
            return 0;
        }
        match actions.get(k).copied().flatten() {
            Some(a) if a == d => PUSH_FORCE,
            Some(a) if a == d.opposite() => -PUSH_FORCE,
            _ => 0,
        }
    }

    /// SCC condensation, candidates, max flow, moving set (design §4.4–4.6).
    fn resolve(&mut self, world: &World, actions: &[Option<Dir>], d: Dir) {
        let n = self.nodes.len();
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, self.edges.len());
        for _ in 0..n {
            g.add_node(());
        }
        for &(u, v) in &self.edges {
            let (lu, lv) = (self.local[u as usize], self.local[v as usize]);
            g.add_edge(NodeIndex::new(lu as usize), NodeIndex::new(lv as usize), ());
        }
        // Tarjan yields components in reverse topological order (successors first).
        let sccs = tarjan_scc(&g);
        let nc = sccs.len();
        let mut comp = vec![0usize; n];
        let mut force = vec![0i64; nc];
        let mut mass = vec![0i64; nc];
        let mut fixed = vec![false; nc];
        for (c, members) in sccs.iter().enumerate() {
            for &x in members {
                let k = self.nodes[x.index()];
                comp[x.index()] = c;
                force[c] += self.force(world, actions, k, d);
                mass[c] += world.meshes[k].mass;
                fixed[c] |= world.meshes[k].is_static;
            }
            if force[c] < 0 {
                mass[c] -= force[c];
                force[c] = 0;
            }
        }
        let mut cedges: Vec<(usize, usize)> = self
            .edges
            .iter()
            .map(|&(u, v)| {
                (
                    comp[self.local[u as usize] as usize],
                    comp[self.local[v as usize] as usize],
                )
            })
            .filter(|(a, b)| a != b)
            .collect();
        cedges.sort_unstable();
        cedges.dedup();
        // Successors come first in `sccs`, so one sweep settles "reaches a static node".
        let mut blocked = fixed.clone();
        let mut by_src: Vec<Vec<usize>> = vec![Vec::new(); nc];
        for &(a, b) in &cedges {
            by_src[a].push(b);
        }
        for c in 0..nc {
            if by_src[c].iter().any(|&b| blocked[b]) {
                blocked[c] = true;
            }
        }
        let (s, t) = (nc, nc + 1);
        let infinity = 1 + force.iter().sum::<i64>();
        self.net.reset(nc + 2);
        for c in 0..nc {
            if blocked[c] {
                continue;
            }
            if force[c] > 0 {
                self.net.add_edge(s, c, force[c]);
            }
            self.net.add_edge(c, t, mass[c]);
            for &b in &by_src[c] {
                self.net.add_edge(c, b, infinity);
            }
        }
        self.net.max_flow(s, t);
        let z = self.net.reaches_sink(t);
        for (x, &k) in self.nodes.iter().enumerate() {
            let c = comp[x];
            if !blocked[c] && !z[c] {
                self.moving.push(k);
            }
        }
    }
}

/// Lifts every moving object, then redraws each one cell further (design §4.7).
fn apply_move(world: &mut World, moving: &[usize], (di, dj): Cell) {
    for &k in moving {
        world.lift(k);
    }
    for &k in moving {
        let (i, j) = world.meshes[k].pos;
        world.meshes[k].pos = (i + di, j + dj);
        world.draw(k);
    }
}
