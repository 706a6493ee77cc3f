//! The built-in scripted `heuristic` policy (issue item 8): per level type, primitives chosen
//! from the state, so `colony env run wildfire` compares noop / random / heuristic offline.
//!
//! It reads ground truth only where the level's task text gives it (cut targets, transport and
//! rescue targets, known civilian clusters); unknown fires and civilians are searched for
//! through the team map. Suppress and Full levels use water (see `suppress.rs`); without a
//! water source ground agents stay idle.

use std::collections::{BTreeMap, BTreeSet};

use colony_env_api::{AgentId, Policy};

use crate::config::{AgentKind, LevelKind};
use crate::env::{WildfireAction, WildfireEnv};
use crate::grid::Cell;
use crate::observe::CIVILIAN;
use crate::primitive::Primitive;
use crate::state::{Agent, WildfireState};

/// The scripted heuristic (stateless: everything it needs is in the state).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicPolicy;

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

impl Policy<WildfireEnv> for HeuristicPolicy {
    fn act(&mut self, env: &WildfireEnv) -> BTreeMap<AgentId, WildfireAction> {
        let s = env.world();
        let mut out = BTreeMap::new();
        match s.level.kind {
            LevelKind::Cut => cut(s, &mut out),
            LevelKind::Transport => transport(s, &mut out),
            LevelKind::Rescue => rescue(s, &mut out),
            LevelKind::Scout => scout(s, &mut out),
            LevelKind::Suppress | LevelKind::Full => crate::suppress::suppress(s, &mut out),
        }
        for a in s.agents.iter().filter(|a| a.is_active()) {
            out.entry(a.id.to_string())
                .or_insert_with(|| act(Primitive::do_nothing()));
        }
        out
    }
}

fn cut(s: &WildfireState, out: &mut BTreeMap<AgentId, WildfireAction>) {
    let g = &s.grid;
    let remaining: Vec<Cell> = s
        .targets
        .cut_cells
        .iter()
        .copied()
        .filter(|&c| g.trees[g.idx(c)] > 0)
        .collect();
    clear_cells(s, out, &remaining);
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

/// Transport: helicopter `j` first carries firefighters `5j … 5j+4` (they wait at the spawn),
/// the others walk; a helicopter with nobody left to wait for fetches the nearest walker, and
/// walkers stop while a helicopter is free so that it can catch them.
fn transport(s: &WildfireState, out: &mut BTreeMap<AgentId, WildfireAction>) {
    let Some(t) = s.targets.transport else { return };
    let helis: Vec<&Agent> = s
        .agents
        .iter()
        .filter(|a| a.kind == AgentKind::Helicopter)
        .collect();
    let firefighters: Vec<&Agent> = s
        .agents
        .iter()
        .filter(|a| a.kind == AgentKind::Firefighter)
        .collect();
    let riders = 5 * helis.len();
    let pending = |f: &Agent| f.is_active() && !s.transported.contains(&f.id);
    let waiting = |k: usize, f: &Agent| k < riders && pending(f);
    let assigned = |j: usize| -> Vec<&Agent> {
        firefighters
            .iter()
            .enumerate()
            .filter(|(k, f)| *k / 5 == j && waiting(*k, f))
            .map(|(_, f)| *f)
            .collect()
    };
    let free_heli = helis
        .iter()
        .enumerate()
        .any(|(j, h)| h.passengers.is_empty() && assigned(j).is_empty());
    for (k, f) in firefighters.iter().enumerate() {
        if !f.is_active() {
            continue;
        }
        let stay = chebyshev(f.cell(), t) <= 1 || waiting(k, f) || free_heli;
        let action = if stay {
            act(Primitive::do_nothing())
        } else {
            go(f, 1, t)
        };
        out.insert(f.id.to_string(), action);
    }
    for (j, h) in helis.iter().enumerate() {
        let action = if !h.passengers.is_empty() {
            if h.cell() == t {
                act(Primitive::new(3, 0, 0, "drop off firefighters"))
            } else {
                go(h, 1, t)
            }
        } else {
            let mine = assigned(j);
            let mine = if mine.is_empty() {
                firefighters
                    .iter()
                    .copied()
                    .filter(|f| pending(f) && chebyshev(f.cell(), t) > 3)
                    .collect()
            } else {
                mine
            };
            let pickable = |f: &&Agent| pending(f) && dist2(f.cell(), h.cell()) < 9;
            if mine.iter().any(pickable) && h.water == 0 {
                act(Primitive::new(2, 0, 0, "pick up firefighters"))
            } else if let Some(f) = mine.iter().min_by_key(|f| dist2(f.cell(), h.cell())) {
                go(h, 1, f.cell())
            } else {
                act(Primitive::do_nothing())
            }
        };
        out.insert(h.id.to_string(), action);
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

fn scout(s: &WildfireState, out: &mut BTreeMap<AgentId, WildfireAction>) {
    let fire = (0..s.team_map.len())
        .find(|&i| (9..=12).contains(&s.team_map[i]))
        .map(|i| s.grid.cell(i));
    search(s, out, fire, |a| a.is_active());
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

/// Chebyshev distance from the safe location beyond which a carrying firefighter waits for a
/// helicopter rather than walking.
const FERRY_DISTANCE: i32 = 30;

fn rescue(s: &WildfireState, out: &mut BTreeMap<AgentId, WildfireAction>) {
    let Some(r) = s.targets.rescue else { return };
    let g = &s.grid;
    // Civilians the team knows about: all in known-location levels, else those on the map.
    let visible: Vec<(usize, Cell)> = s
        .civilians
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is_free())
        .map(|(k, c)| (k, c.cell()))
        .filter(|&(_, c)| s.level.known || s.team_map[g.idx(c)] == CIVILIAN)
        .collect();
    let mut claimed = BTreeSet::new();
    let firefighters: Vec<&Agent> = s
        .agents
        .iter()
        .filter(|a| a.kind == AgentKind::Firefighter && a.is_active())
        .collect();
    // Helicopters ferry firefighters that carry a civilian far from the safe location (the
    // civilian rides along); those firefighters wait while a helicopter is free to fetch them.
    let far = |f: &Agent| f.carrying.is_some() && chebyshev(f.cell(), r) > FERRY_DISTANCE;
    let helis: Vec<&Agent> = s
        .agents
        .iter()
        .filter(|a| a.kind == AgentKind::Helicopter && a.is_active())
        .collect();
    let free_heli = helis.iter().any(|h| h.passengers.is_empty());
    let mut idle = Vec::new();
    for h in &helis {
        let action = if !h.passengers.is_empty() {
            if h.cell() == r {
                act(Primitive::new(3, 0, 0, "drop off firefighters"))
            } else {
                go(h, 1, r)
            }
        } else if let Some(f) = firefighters
            .iter()
            .filter(|f| far(f))
            .min_by_key(|f| dist2(f.cell(), h.cell()))
        {
            if dist2(f.cell(), h.cell()) < 9 && h.water == 0 {
                act(Primitive::new(2, 0, 0, "pick up firefighters"))
            } else {
                go(h, 1, f.cell())
            }
        } else {
            idle.push(h.id);
            act(Primitive::do_nothing())
        };
        out.insert(h.id.to_string(), action);
    }
    for f in &firefighters {
        let here = f.cell();
        let action = if f.carrying.is_some() {
            if chebyshev(here, r) <= 2 {
                act(Primitive::new(5, 0, 0, "drop off civilian"))
            } else if free_heli && far(f) {
                act(Primitive::do_nothing())
            } else {
                go(f, 1, r)
            }
        } else if let Some(&(k, c)) = visible
            .iter()
            .filter(|(k, _)| !claimed.contains(k))
            .min_by_key(|(_, c)| dist2(*c, here))
        {
            claimed.insert(k);
            if dist2(c, here) < 16 {
                act(Primitive::new(4, 0, 0, "pick up the closest civilian"))
            } else {
                go(f, 1, c)
            }
        } else {
            idle.push(f.id);
            continue;
        };
        out.insert(f.id.to_string(), action);
    }
    if !s.level.known {
        let found = visible.first().map(|&(_, c)| c);
        let idle_ids: BTreeSet<u32> = idle.into_iter().collect();
        search(s, out, None, |a| {
            a.is_active()
                && (a.kind == AgentKind::Drone
                    || (idle_ids.contains(&a.id)
                        && found.is_none()
                        && a.kind == AgentKind::Firefighter))
        });
    }
}
