//! The built-in scripted `heuristic` policy (issue item 8): per level type, primitives chosen
//! from the state, so `colony env run wildfire` compares noop / random / heuristic offline.
//!
//! It reads ground truth only where the level's task text gives it (cut targets, transport and
//! rescue targets, known civilian clusters); unknown fires and civilians are searched for
//! through the team map. Suppress and Full levels use water (see `suppress.rs`); without a
//! water source ground agents stay idle.
//!
//! Layout: this file holds the policy and the Cut, Transport, Scout and Rescue levels;
//! `suppress.rs` the Suppress and Full levels; `common` the primitives-as-actions and
//! distance helpers both use, so the level files depend on it and not on each other.

use std::collections::{BTreeMap, BTreeSet};

use colony_env_api::{AgentId, Policy};

use crate::config::{AgentKind, LevelKind};
use crate::env::{WildfireAction, WildfireEnv};
use crate::grid::Cell;
use crate::observe::CIVILIAN;
use crate::primitive::Primitive;
use crate::state::{Agent, WildfireState};

use common::{act, chebyshev, clear_cells, dist2, go, search};

mod common;
mod suppress;

/// The scripted heuristic (stateless: everything it needs is in the state).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicPolicy;

impl Policy<WildfireEnv> for HeuristicPolicy {
    fn act(&mut self, env: &WildfireEnv) -> BTreeMap<AgentId, WildfireAction> {
        let s = env.world();
        let mut out = BTreeMap::new();
        match s.level.kind {
            LevelKind::Cut => cut(s, &mut out),
            LevelKind::Transport => transport(s, &mut out),
            LevelKind::Rescue => rescue(s, &mut out),
            LevelKind::Scout => scout(s, &mut out),
            LevelKind::Suppress | LevelKind::Full => suppress::suppress(s, &mut out),
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

fn scout(s: &WildfireState, out: &mut BTreeMap<AgentId, WildfireAction>) {
    let fire = (0..s.team_map.len())
        .find(|&i| (9..=12).contains(&s.team_map[i]))
        .map(|i| s.grid.cell(i));
    search(s, out, fire, |a| a.is_active());
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
