//! Helpers the heuristic's level files share: primitives as actions (keep executing an equal
//! primitive rather than restart it), distances, clearing a set of cells, and the search sweep.
//! Kept apart from the level files so that the Suppress/Full file and the others depend on
//! this one and not on each other.

use std::collections::{BTreeMap, BTreeSet};

use colony_env_api::AgentId;

use crate::config::AgentKind;
use crate::env::WildfireAction;
use crate::grid::Cell;
use crate::primitive::Primitive;
use crate::state::{Agent, WildfireState};

pub(crate) fn dist2(a: Cell, b: Cell) -> i64 {
    let (dx, dy) = (i64::from(a.0 - b.0), i64::from(a.1 - b.1));
    dx * dx + dy * dy
}

pub(crate) fn chebyshev(a: Cell, b: Cell) -> i32 {
    (a.0 - b.0).abs().max((a.1 - b.1).abs())
}

/// `Continue` if the agent already executes `p` (same type and parameters), else `p`.
pub(crate) fn want(a: &Agent, p: Primitive) -> WildfireAction {
    match &a.action {
        Some(q) if q.kind == p.kind && q.p1 == p.p1 && q.p2 == p.p2 => WildfireAction::Continue,
        _ => WildfireAction::Primitive(p),
    }
}

pub(crate) fn go(a: &Agent, kind: u8, c: Cell) -> WildfireAction {
    want(
        a,
        Primitive::new(kind, c.0, c.1, &format!("move to ({}, {})", c.0, c.1)),
    )
}

pub(crate) fn act(p: Primitive) -> WildfireAction {
    WildfireAction::Primitive(p)
}

/// Ground agents clear `remaining` cells: firefighters standing on one cut it, agents heading
/// to an unclaimed one keep going, the others take the nearest unclaimed cell (bulldozers
/// plow their way there).
pub(crate) fn clear_cells(
    s: &WildfireState,
    out: &mut BTreeMap<AgentId, WildfireAction>,
    remaining: &[Cell],
) {
    let mut claimed: BTreeSet<Cell> = BTreeSet::new();
    let workers: Vec<&Agent> = s
        .agents
        .iter()
        .filter(|a| a.is_active() && a.kind.is_ground())
        .collect();
    // Firefighters standing on a target keep cutting it.
    let mut free = Vec::new();
    for a in workers {
        let here = a.cell();
        if a.kind == AgentKind::Firefighter && remaining.contains(&here) && !claimed.contains(&here)
        {
            claimed.insert(here);
            out.insert(
                a.id.to_string(),
                want(
                    a,
                    Primitive::new(3, 0, 0, "cut all trees in the current cell"),
                ),
            );
        } else {
            free.push(a);
        }
    }
    // Agents already heading to an unclaimed target keep it; the others take the nearest.
    let mut rest = Vec::new();
    for a in free {
        match &a.action {
            Some(p)
                if p.kind >= 1
                    && remaining.contains(&(p.p1, p.p2))
                    && !claimed.contains(&(p.p1, p.p2)) =>
            {
                claimed.insert((p.p1, p.p2));
                out.insert(a.id.to_string(), WildfireAction::Continue);
            }
            _ => rest.push(a),
        }
    }
    for a in rest {
        let here = a.cell();
        let pick = remaining
            .iter()
            .filter(|&&c| {
                let standing_dozer = a.kind == AgentKind::Bulldozer && c == here;
                !claimed.contains(&c) && !standing_dozer
            })
            .min_by_key(|&&c| dist2(c, here))
            .or_else(|| remaining.iter().min_by_key(|&&c| dist2(c, here)));
        if let Some(&c) = pick {
            claimed.insert(c);
            let kind = if a.kind == AgentKind::Bulldozer { 2 } else { 1 };
            out.insert(a.id.to_string(), go(a, kind, c));
        }
    }
}

/// Lawnmower waypoint `k` of agent `j` of `n` sweeping strips of a map of side `size`.
fn sweep(size: i32, r: i32, j: usize, n: usize, k: usize) -> Cell {
    let strip = (size / n.max(1) as i32).max(1);
    let x0 = strip * j as i32;
    let cols: Vec<i32> = (0..)
        .map(|m| x0 + r + 2 * r * m)
        .take_while(|&x| x < x0 + strip)
        .collect();
    let cols = if cols.is_empty() {
        vec![x0 + strip / 2]
    } else {
        cols
    };
    let m = (k / 2) % cols.len();
    let (top, bottom) = (r.min(size - 1), (size - 1 - r).max(0));
    let (first, second) = if m.is_multiple_of(2) {
        (top, bottom)
    } else {
        (bottom, top)
    };
    let y = if k.is_multiple_of(2) { first } else { second };
    (cols[m].clamp(0, size - 1), y)
}

/// Moves every selected agent to `found` if known, else along its sweep.
pub(crate) fn search(
    s: &WildfireState,
    out: &mut BTreeMap<AgentId, WildfireAction>,
    found: Option<Cell>,
    select: impl Fn(&Agent) -> bool,
) {
    let searchers: Vec<&Agent> = s.agents.iter().filter(|a| select(a)).collect();
    let n = searchers.len();
    for (j, a) in searchers.iter().enumerate() {
        let c = found.unwrap_or_else(|| {
            sweep(
                s.grid.size as i32,
                a.kind.view_radius(),
                j,
                n,
                a.history.len(),
            )
        });
        out.insert(a.id.to_string(), go(a, 1, c));
    }
}
