//! The rule-based Transport policy: plan the box's way out by BFS over box positions, fill
//! the push slots behind it (lines two deep), push when five agents are in place, then walk
//! out through the gap (docs/design/swarmbench.md §9.5: every push needs five agents).

use std::collections::{BTreeMap, VecDeque};

use super::field::{assign, bfs_field, bfs_field_strict, field_at};
use super::Heuristic;
use crate::env::SwarmEnv;
use crate::physics::Dir;
use crate::reply::Reply;
use crate::world::{Cell, MeshKind, World};

/// Agents (each brings one unit of spare force) needed to move the box.
const PUSHERS: usize = 5;

/// Distances at or above this are "unreachable".
const FAR_ENOUGH: i32 = 1 << 20;

/// First move of a shortest sequence of box moves that takes it off the map, ignoring agents.
fn first_box_move(world: &World, cells: &[Cell]) -> Option<Dir> {
    let free = |c: Cell| {
        !world.on_map(c) || world.symbol(c) == '.' || {
            world
                .occupant(c)
                .is_some_and(|k| matches!(world.meshes[k].kind, MeshKind::Agent | MeshKind::Block))
        }
    };
    let limit = world.height.max(world.width) + 6;
    let mut seen: BTreeMap<Cell, Option<Dir>> = BTreeMap::new();
    let mut q = VecDeque::new();
    seen.insert((0, 0), None);
    q.push_back((0, 0));
    while let Some(off) = q.pop_front() {
        if cells
            .iter()
            .all(|c| !world.on_map((c.0 + off.0, c.1 + off.1)))
        {
            return seen.get(&off).copied().flatten();
        }
        for d in Dir::PASSES {
            let (di, dj) = d.delta();
            let next = (off.0 + di, off.1 + dj);
            if next.0.abs() > limit || next.1.abs() > limit || seen.contains_key(&next) {
                continue;
            }
            if cells.iter().all(|c| free((c.0 + next.0, c.1 + next.1))) {
                let first = seen.get(&off).copied().flatten().or(Some(d));
                seen.insert(next, first);
                q.push_back(next);
            }
        }
    }
    None
}

/// The Transport rules (see the module docs).
pub(crate) fn act(h: &mut Heuristic, env: &SwarmEnv) -> Vec<Reply> {
    let world = env.world();
    let n = env.num_agents();
    let mut out = vec![Heuristic::reply(None); n];
    let box_mesh = world
        .meshes
        .iter()
        .position(|m| m.kind == MeshKind::Block && m.present);
    if let Some(b) = box_mesh {
        let cells: Vec<Cell> = world.meshes[b].abs_cells().map(|(c, _)| c).collect();
        let Some(d) = first_box_move(world, &cells) else {
            return out;
        };
        let (di, dj) = d.delta();
        let usable = |c: Cell| world.on_map(c) && world.symbol(c) != 'W' && !cells.contains(&c);
        let mut front: Vec<Cell> = cells
            .iter()
            .map(|c| (c.0 - di, c.1 - dj))
            .filter(|&c| usable(c))
            .collect();
        front.sort_unstable();
        front.dedup();
        let mut slots = front.clone();
        slots.extend(
            front
                .iter()
                .map(|c| (c.0 - di, c.1 - dj))
                .filter(|&c| usable(c)),
        );
        if slots.len() < PUSHERS {
            return out;
        }
        slots.truncate(PUSHERS);
        let agent_at = |c: Cell| {
            world
                .occupant(c)
                .filter(|&k| world.meshes[k].kind == MeshKind::Agent)
                .and_then(|k| (0..n).find(|&i| env.agent_pos(i) == c && world.meshes[k].present))
        };
        // Agents already on a slot keep it; the free slots get the nearest free agents (optimal
        // assignment by BFS distance; ties keep last round's roles so agents do not swap).
        let fields: Vec<Vec<i32>> = slots.iter().map(|&s| bfs_field(world, &[s])).collect();
        let mut assigned: Vec<(usize, Cell, &Vec<i32>)> = Vec::new();
        let mut busy = vec![false; n];
        let mut open = Vec::new();
        for (x, &s) in slots.iter().enumerate() {
            match agent_at(s) {
                Some(a) => {
                    busy[a] = true;
                    assigned.push((a, s, &fields[x]));
                }
                None => open.push(x),
            }
        }
        let free: Vec<usize> = (0..n).filter(|&i| !busy[i] && !env.is_escaped(i)).collect();
        if !open.is_empty() && open.len() <= free.len() {
            let mut cost = Vec::with_capacity(open.len() * free.len());
            for &x in &open {
                for &i in &free {
                    let d = i64::from(field_at(world, &fields[x], env.agent_pos(i)).min(1 << 20));
                    cost.push(2 * d + i64::from(!h.roles.contains(&(slots[x], i))));
                }
            }
            let rows = assign(&cost, open.len(), free.len());
            for (c, r) in rows.iter().enumerate() {
                if let Some(r) = *r {
                    let x = open[r];
                    assigned.push((free[c], slots[x], &fields[x]));
                }
            }
        }
        h.roles = assigned.iter().map(|(i, s, _)| (*s, *i)).collect();
        // Pushing capacity of the lines behind the box: one unit per agent, the second agent
        // of a line counting only behind a first one.
        let mut pushers = Vec::new();
        for &f in &front {
            if let Some(a) = agent_at(f) {
                pushers.push(a);
                if let Some(b) = agent_at((f.0 - di, f.1 - dj)) {
                    pushers.push(b);
                }
            }
        }
        // Idle agents in the cells the box will enter step aside (they would block the push).
        let ahead: Vec<Cell> = cells
            .iter()
            .map(|c| (c.0 + di, c.1 + dj))
            .filter(|c| !cells.contains(c))
            .collect();
        let mut clear = Vec::new();
        for i in 0..world.height {
            for j in 0..world.width {
                if world.is_empty((i, j)) && !ahead.contains(&(i, j)) {
                    clear.push((i, j));
                }
            }
        }
        let away = bfs_field_strict(world, &clear);
        for (i, reply) in out.iter_mut().enumerate() {
            let p = env.agent_pos(i);
            if env.is_escaped(i) || !ahead.contains(&p) || assigned.iter().any(|a| a.0 == i) {
                continue;
            }
            *reply = h.step_on(world, &away, p);
        }
        if pushers.len() >= PUSHERS {
            for &i in &pushers {
                out[i] = Heuristic::reply(Some(d));
            }
            return out;
        }
        for (i, s, f) in &assigned {
            let p = env.agent_pos(*i);
            let ahead = (p.0 + di, p.1 + dj);
            out[*i] = if front.contains(&ahead) && world.is_empty(ahead) {
                // Second in a line with an empty first place: step up.
                Heuristic::reply(Some(d))
            } else if p == *s || front.contains(&p) {
                Heuristic::reply(None)
            } else {
                // Walk around other agents when possible (pushing a line of them fails).
                let strict = bfs_field_strict(world, &[*s]);
                let around = Dir::PASSES.iter().any(|d| {
                    let (a, b) = d.delta();
                    field_at(world, &strict, (p.0 + a, p.1 + b)) < FAR_ENOUGH
                });
                if around {
                    h.step_on(world, &strict, p)
                } else {
                    h.step_on(world, f, p)
                }
            };
        }
        return out;
    }
    // The box is gone: walk out through the gap.
    let mut exits = Vec::new();
    for i in 0..world.height {
        for j in 0..world.width {
            let border = i == 0 || j == 0 || i == world.height - 1 || j == world.width - 1;
            if border && world.symbol((i, j)) != 'W' {
                exits.push((i, j));
            }
        }
    }
    let f = bfs_field(world, &exits);
    for (i, reply) in out.iter_mut().enumerate() {
        if env.is_escaped(i) {
            continue;
        }
        let p = env.agent_pos(i);
        *reply = if exits.contains(&p) {
            let outward = Dir::PASSES.into_iter().find(|d| {
                let (a, b) = d.delta();
                !world.on_map((p.0 + a, p.1 + b))
            });
            Heuristic::reply(outward)
        } else {
            h.step_on(world, &f, p)
        };
    }
    out
}
