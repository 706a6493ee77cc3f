//! The `heuristic` policy on Suppress and Full levels: drones search and then hover over the
//! fire, firefighters shuttle between the water source and a stand-off cell next to the
//! nearest burning cell and spray it, helicopters dump water on it (they cannot burn).
//! Bulldozers stay idle there. Without water (Contain), ground agents cut a square firebreak
//! ring at Chebyshev distance 6 around the known fire cell.

use std::collections::BTreeMap;

use colony_env_api::AgentId;

use super::common::{act, chebyshev, clear_cells, dist2, go, search};
use crate::config::{AgentKind, LevelKind};
use crate::env::WildfireAction;
use crate::grid::Cell;
use crate::primitive::Primitive;
use crate::state::{Agent, WildfireState};

/// Team-map codes of burning cells (`i`, `f`) and of every hot cell (`i`, `f`, `e`).
fn is_burning_code(c: u8) -> bool {
    c == 9 || c == 10
}

fn is_hot_code(c: u8) -> bool {
    (9..=11).contains(&c)
}

fn nearest(cells: &[Cell], from: Cell) -> Option<Cell> {
    cells.iter().copied().min_by_key(|&c| dist2(c, from))
}

/// A cell about `d` cells from `h` toward `from`, not known to be hot.
fn stand_off(s: &WildfireState, h: Cell, from: Cell) -> Cell {
    let (dx, dy) = (f64::from(from.0 - h.0), f64::from(from.1 - h.1));
    let n = (dx * dx + dy * dy).sqrt().max(1e-9);
    let last = s.grid.size as i32 - 1;
    let mut best = h;
    for d in [2.0, 3.0, 1.0] {
        let c = (
            (f64::from(h.0) + dx / n * d).round() as i32,
            (f64::from(h.1) + dy / n * d).round() as i32,
        );
        let c = (c.0.clamp(0, last), c.1.clamp(0, last));
        best = c;
        if !is_hot_code(s.team_map[s.grid.idx(c)]) {
            return c;
        }
    }
    best
}

/// Actions of the suppress heuristic.
pub fn suppress(s: &WildfireState, out: &mut BTreeMap<AgentId, WildfireAction>) {
    let g = &s.grid;
    let burning: Vec<Cell> = (0..s.team_map.len())
        .filter(|&i| is_burning_code(s.team_map[i]))
        .map(|i| g.cell(i))
        .collect();
    // Known fire location from the task text until the team has seen burning cells.
    let known_fire = s
        .targets
        .fire
        .filter(|_| s.level.known && burning.is_empty() && s.fire_active);
    let water = s
        .targets
        .water
        .filter(|&w| s.level.kind == LevelKind::Suppress || s.team_map[g.idx(w)] == 13);
    let drones_found = nearest(&burning, s.targets.spawn);
    search(s, out, drones_found, |a| {
        a.is_active() && a.kind == AgentKind::Drone
    });
    let Some(w) = water else {
        contain(s, out);
        return;
    };
    for a in s.agents.iter().filter(|a| a.is_active()) {
        let action = match a.kind {
            AgentKind::Firefighter => firefighter(s, a, w, &burning, known_fire),
            AgentKind::Helicopter => helicopter(a, w, &burning, known_fire),
            _ => continue,
        };
        out.insert(a.id.to_string(), action);
    }
}

fn firefighter(
    s: &WildfireState,
    a: &Agent,
    w: Cell,
    burning: &[Cell],
    known_fire: Option<Cell>,
) -> WildfireAction {
    let me = a.cell();
    if a.water == 0 {
        return if chebyshev(me, w) <= 3 {
            act(Primitive::new(7, 0, 0, "refill water"))
        } else {
            go(a, 1, w)
        };
    }
    match nearest(burning, me).or(known_fire) {
        Some(h) if dist2(me, h) <= 9 && !burning.is_empty() => act(Primitive::new(
            6,
            h.0,
            h.1,
            &format!("spray water toward ({}, {})", h.0, h.1),
        )),
        Some(h) => go(a, 1, stand_off(s, h, me)),
        None => act(Primitive::do_nothing()),
    }
}

fn helicopter(a: &Agent, w: Cell, burning: &[Cell], known_fire: Option<Cell>) -> WildfireAction {
    let me = a.cell();
    if a.water == 0 {
        return if chebyshev(me, w) <= 3 {
            act(Primitive::new(4, 0, 0, "refill water"))
        } else {
            go(a, 1, w)
        };
    }
    match nearest(burning, me).or(known_fire) {
        Some(h) if dist2(me, h) <= 4 && !burning.is_empty() => {
            act(Primitive::new(5, 0, 0, "drop water"))
        }
        Some(h) => go(a, 1, h),
        None => act(Primitive::do_nothing()),
    }
}

/// Radius of the firebreak ring around a known fire (fire ticks every 5 steps on Contain, so
/// the front needs about 30 steps to reach it).
const RING: i32 = 6;

/// Cuts a firebreak ring around the known fire cell: its cells that still have trees, are
/// `Burnable` and are not next to a hot cell (too late there, and deadly).
fn contain(s: &WildfireState, out: &mut BTreeMap<AgentId, WildfireAction>) {
    let Some(f) = s.targets.fire.filter(|_| s.level.known && s.fire_active) else {
        return;
    };
    let g = &s.grid;
    let near_hot = |c: Cell| {
        (c.1 - 1..=c.1 + 1).any(|y| {
            (c.0 - 1..=c.0 + 1).any(|x| g.contains((x, y)) && g.fire[g.idx((x, y))].is_lethal())
        })
    };
    let mut ring = Vec::new();
    for y in f.1 - RING..=f.1 + RING {
        for x in f.0 - RING..=f.0 + RING {
            let c = (x, y);
            if chebyshev(c, f) != RING || !g.contains(c) {
                continue;
            }
            let i = g.idx(c);
            if g.trees[i] > 0 && g.fire[i] == crate::grid::Fire::Burnable && !near_hot(c) {
                ring.push(c);
            }
        }
    }
    clear_cells(s, out, &ring);
}
