//! One environment step in the specified order (docs/design/wildfire.md §8): commands, 100 frames
//! of agent motion and actions (§6), civilians (§7), fire ticks (§5.3) and task zones, then reveal,
//! scout count and termination (§12). The fog-of-war update (revealing the team map around the
//! agents, §9.1) is part of the step, so it lives here with the cell codes it writes; the
//! observations in [`crate::observe`] only read the team map. The score is [`crate::metrics`].

use std::collections::HashSet;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::config::{AgentKind, LevelKind, DELAY_FRAMES, FPS};
use crate::config::{FRAMES_PER_STEP, PASSENGER_CAPACITY, WATER_CAPACITY};
use crate::fire::{
    apply_water_with, cut_trees, dump_cells, fire_active, fire_tick_with, spray_cells,
};
use crate::grid::{Cell, Fire, Grid, Land};
use crate::primitive::LowLevel;
use crate::state::{Delayed, WildfireState};

// The score is a metric, but termination (§12.4) depends on it and callers name it `sim::score`.
pub use crate::metrics::{score, trees_destroyed};

/// Chebyshev radius of the rescue zone (§2).
const RESCUE_ZONE: i32 = 4;
/// Chebyshev radius of the transport zone (§2).
const TRANSPORT_ZONE: i32 = 3;

fn chebyshev(a: Cell, b: Cell) -> i32 {
    (a.0 - b.0).abs().max((a.1 - b.1).abs())
}

fn euclid2(a: Cell, b: Cell) -> i32 {
    let (dx, dy) = (a.0 - b.0, a.1 - b.1);
    dx * dx + dy * dy
}

/// Code of an unrevealed or off-map cell.
pub const UNREVEALED: u8 = 0;
/// Code of a civilian (§9.1).
pub const CIVILIAN: u8 = 15;

/// The current code of a cell (§9.1 precedence: civilian > building > fire state > water >
/// wet/dry tree count).
pub fn cell_code(grid: &Grid, c: Cell, civilians: &HashSet<Cell>) -> u8 {
    if !grid.contains(c) {
        return UNREVEALED;
    }
    if !civilians.is_empty() && civilians.contains(&c) {
        return CIVILIAN;
    }
    let i = grid.idx(c);
    if grid.building[i] {
        return 14;
    }
    match grid.fire[i] {
        Fire::Ignited => 9,
        Fire::OnFire => 10,
        Fire::Extinguishing => 11,
        Fire::Extinguished => 12,
        _ if grid.land[i] == Land::Water => 13,
        _ if grid.wet[i] > 0 => 1 + grid.trees[i].min(3),
        _ => 5 + grid.trees[i].min(3),
    }
}

/// Cells holding a visible civilian (alive, not carried).
pub fn civilian_cells(s: &WildfireState) -> HashSet<Cell> {
    s.civilians
        .iter()
        .filter(|c| c.alive && c.carried_by.is_none())
        .map(|c| c.cell())
        .collect()
}

/// Refreshes the team map around every live agent (§9.1). Cells seen by several agents are
/// coded once (a visibility mask first), which matters with thousands of agents.
pub fn reveal(s: &mut WildfireState) {
    let civ = civilian_cells(s);
    let size = s.grid.size as i32;
    let mut visible = vec![false; s.grid.len()];
    for a in s.agents.iter().filter(|a| a.alive) {
        let (x, y) = a.cell();
        let r = a.kind.view_radius();
        let (x0, x1) = ((x - r).max(0), (x + r).min(size - 1));
        for ny in (y - r).max(0)..=(y + r).min(size - 1) {
            let row = (ny * size) as usize;
            visible[row + x0 as usize..=row + x1 as usize].fill(true);
        }
    }
    for (i, _) in visible.iter().enumerate().filter(|(_, v)| **v) {
        s.team_map[i] = cell_code(&s.grid, s.grid.cell(i), &civ);
    }
}

/// Runs one step with one low-level vector per agent (index = agent id − 1; §6.3 error cases:
/// commands of lost agents and passengers are ignored).
pub fn step_low_level(s: &mut WildfireState, commands: &[LowLevel], rng: &mut ChaCha8Rng) {
    s.step += 1;
    for i in 0..s.agents.len() {
        let cmd = commands.get(i).copied().unwrap_or(LowLevel::STOP);
        if s.agents[i].is_active() {
            apply_command(s, i, cmd);
        }
    }
    for _ in 0..FRAMES_PER_STEP {
        frame(s, rng);
    }
    reveal(s);
    if s.level.kind == LevelKind::Scout {
        s.scouts = concurrent_scouts(s).min(2);
        s.counters.best_scouts = s.counters.best_scouts.max(s.scouts);
    }
    s.fire_active = fire_active(&s.grid);
    s.terminated = is_terminated(s);
    s.truncated = s.step >= s.level.max_steps;
}

/// Sets movement and delayed actions, and runs instantaneous actions (§6.3, §6.4).
fn apply_command(s: &mut WildfireState, i: usize, cmd: LowLevel) {
    let size = s.grid.size as i32;
    let target = (cmd.x.clamp(0, size - 1), cmd.y.clamp(0, size - 1));
    let a = &mut s.agents[i];
    a.target = None;
    a.delayed = None;
    match (a.kind, cmd.code) {
        (AgentKind::Firefighter | AgentKind::Drone | AgentKind::Helicopter, 0) => {
            a.target = Some(target)
        }
        (AgentKind::Bulldozer, 0 | 1) => {
            a.target = Some(target);
            a.plow = cmd.code == 1;
        }
        (AgentKind::Firefighter, 1) => a.delayed = Some(Delayed::Cut),
        (AgentKind::Firefighter, 3) => a.delayed = Some(Delayed::Spray((cmd.x, cmd.y))),
        (AgentKind::Firefighter, 2) => toggle_civilian(s, i),
        (AgentKind::Firefighter, 4) => refill(s, i),
        (AgentKind::Helicopter, 1) => pick_up_firefighters(s, i),
        (AgentKind::Helicopter, 2) if a.passengers.is_empty() => refill(s, i),
        (AgentKind::Helicopter, 3) => drop_off_firefighters(s, i),
        (AgentKind::Helicopter, 5) => dump_water(s, i),
        _ => {}
    }
}

fn toggle_civilian(s: &mut WildfireState, i: usize) {
    let me = s.agents[i].cell();
    let id = s.agents[i].id;
    if let Some(c) = s.agents[i].carrying.take() {
        let (px, py) = (s.agents[i].px, s.agents[i].py);
        let civ = &mut s.civilians[c];
        civ.carried_by = None;
        civ.px = px;
        civ.py = py;
        return;
    }
    // Closest free civilian at Euclidean distance < 4; ties by spawn order (min_by_key keeps
    // the first minimum).
    let best = s
        .civilians
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is_free() && euclid2(c.cell(), me) < 16)
        .min_by_key(|(_, c)| euclid2(c.cell(), me))
        .map(|(k, _)| k);
    if let Some(k) = best {
        s.civilians[k].carried_by = Some(id);
        s.agents[i].carrying = Some(k);
    }
}

fn refill(s: &mut WildfireState, i: usize) {
    let (x, y) = s.agents[i].cell();
    let g = &s.grid;
    let near_water = (y - 3..=y + 3).any(|ny| {
        (x - 3..=x + 3).any(|nx| g.contains((nx, ny)) && g.land[g.idx((nx, ny))] == Land::Water)
    });
    if near_water {
        s.agents[i].water = WATER_CAPACITY;
    }
}

fn pick_up_firefighters(s: &mut WildfireState, i: usize) {
    if s.agents[i].water > 0 {
        return;
    }
    let me = s.agents[i].cell();
    let heli = s.agents[i].id;
    for k in 0..s.agents.len() {
        if s.agents[i].passengers.len() >= PASSENGER_CAPACITY {
            break;
        }
        let f = &s.agents[k];
        if f.kind == AgentKind::Firefighter && f.is_active() && euclid2(f.cell(), me) < 9 {
            let fid = f.id;
            let f = &mut s.agents[k];
            f.passenger_of = Some(heli);
            f.target = None;
            f.delayed = None;
            f.action = None;
            s.agents[i].passengers.push(fid);
        }
    }
}

fn drop_off_firefighters(s: &mut WildfireState, i: usize) {
    let (px, py) = (s.agents[i].px, s.agents[i].py);
    for fid in std::mem::take(&mut s.agents[i].passengers) {
        if let Some(f) = s.agents.get_mut(fid as usize - 1) {
            f.passenger_of = None;
            f.px = px;
            f.py = py;
        }
    }
}

fn dump_water(s: &mut WildfireState, i: usize) {
    if s.agents[i].water == 0 {
        return;
    }
    s.agents[i].water -= 1;
    for c in dump_cells(&s.grid, s.agents[i].cell()) {
        apply_water_with(&mut s.grid, c, &mut s.counters, &s.level.rules.fire());
    }
}

fn delayed_action(s: &mut WildfireState, i: usize, d: Delayed) {
    let o = s.agents[i].cell();
    match d {
        Delayed::Cut => {
            cut_trees(&mut s.grid, o, 1, &mut s.counters);
        }
        Delayed::Spray(aim) => {
            if s.agents[i].water == 0 {
                return;
            }
            s.agents[i].water -= 1;
            for c in spray_cells(&s.grid, o, aim) {
                apply_water_with(&mut s.grid, c, &mut s.counters, &s.level.rules.fire());
            }
        }
    }
}

/// Clears all trees of a bulldozer's current cell (plow down).
fn plow(s: &mut WildfireState, i: usize) {
    let c = s.agents[i].cell();
    if s.grid.contains(c) {
        cut_trees(&mut s.grid, c, u8::MAX, &mut s.counters);
    }
}

/// Moves agent `i` one frame toward its target centre (§6.2).
fn move_agent(s: &mut WildfireState, i: usize) -> bool {
    let a = &s.agents[i];
    let Some((tx, ty)) = a.target else {
        return false;
    };
    let (cx, cy) = (f64::from(tx) + 0.5, f64::from(ty) + 0.5);
    let (dx, dy) = (cx - a.px, cy - a.py);
    let dist = (dx * dx + dy * dy).sqrt();
    if dist == 0.0 {
        return false;
    }
    let factor = if a.kind == AgentKind::Firefighter {
        let c = a.cell();
        f64::from(5 - s.grid.trees[s.grid.idx(c)].min(5)) / 5.0
    } else {
        1.0
    };
    let step = (a.kind.speed(a.plow) * factor / FPS).min(dist);
    let size = s.grid.size as f64;
    let a = &mut s.agents[i];
    if dist - step < 1e-9 {
        a.px = cx;
        a.py = cy;
    } else {
        a.px = (a.px + dx / dist * step).clamp(0.0, size - 1e-9);
        a.py = (a.py + dy / dist * step).clamp(0.0, size - 1e-9);
    }
    true
}

/// Moves an agent's passengers and carried civilians with it.
fn carry_along(s: &mut WildfireState, i: usize) {
    let (px, py) = (s.agents[i].px, s.agents[i].py);
    if let Some(c) = s.agents[i].carrying {
        s.civilians[c].px = px;
        s.civilians[c].py = py;
    }
    for k in 0..s.agents[i].passengers.len() {
        let fid = s.agents[i].passengers[k] as usize;
        if let Some(f) = s.agents.get_mut(fid - 1) {
            f.px = px;
            f.py = py;
            if let Some(c) = f.carrying {
                s.civilians[c].px = px;
                s.civilians[c].py = py;
            }
        }
    }
}

fn frame(s: &mut WildfireState, rng: &mut ChaCha8Rng) {
    let rules = s.level.rules.fire();
    s.frame += 1;
    let local = ((s.frame - 1) % u64::from(FRAMES_PER_STEP)) as u32 + 1;
    for i in 0..s.agents.len() {
        if !s.agents[i].is_active() {
            continue;
        }
        let here = s.agents[i].cell();
        if s.agents[i].kind.is_ground() && rules.kills(s.grid.fire[s.grid.idx(here)]) {
            let a = &mut s.agents[i];
            a.alive = false;
            a.target = None;
            a.delayed = None;
            s.counters.agents_lost += 1;
            if let Some(c) = a.carrying.take() {
                s.civilians[c].alive = false;
                s.counters.civilians_lost += 1;
            }
            continue;
        }
        let plowing = s.agents[i].kind == AgentKind::Bulldozer && s.agents[i].plow;
        let moving = s.agents[i].target.is_some_and(|t| {
            let a = &s.agents[i];
            (a.px - (f64::from(t.0) + 0.5)).abs() > 0.0
                || (a.py - (f64::from(t.1) + 0.5)).abs() > 0.0
        });
        if plowing && moving {
            plow(s, i);
        }
        if move_agent(s, i) && plowing {
            plow(s, i);
        }
        carry_along(s, i);
        if local == DELAY_FRAMES {
            if let Some(d) = s.agents[i].delayed.take() {
                delayed_action(s, i, d);
            }
        }
    }
    civilians(s, rng);
    if s.frame
        .is_multiple_of(u64::from(s.level.fire_frames.max(1)))
    {
        fire_tick_with(&mut s.grid, &mut s.counters, &rules);
    }
    task_zones(s);
}

fn civilians(s: &mut WildfireState, rng: &mut ChaCha8Rng) {
    if s.civilians.is_empty() {
        return;
    }
    let rules = s.level.rules.fire();
    let walk = s.frame.is_multiple_of(u64::from(s.level.civ_frames.max(1)));
    for k in 0..s.civilians.len() {
        if !s.civilians[k].alive || s.civilians[k].carried_by.is_some() {
            continue;
        }
        let c = s.civilians[k].cell();
        if rules.kills(s.grid.fire[s.grid.idx(c)]) {
            s.civilians[k].alive = false;
            s.counters.civilians_lost += 1;
            continue;
        }
        if !walk || s.civilians[k].rescued {
            continue;
        }
        let options: Vec<Cell> = [(1, 0), (-1, 0), (0, 1), (0, -1)]
            .iter()
            .map(|(dx, dy)| (c.0 + dx, c.1 + dy))
            .filter(|&n| {
                s.grid.contains(n) && {
                    let f = s.grid.fire[s.grid.idx(n)];
                    !f.is_lethal() && f != Fire::Extinguished
                }
            })
            .collect();
        if options.is_empty() {
            continue;
        }
        let n = options[rng.random_range(0..=options.len() - 1)];
        s.civilians[k].px = f64::from(n.0) + 0.5;
        s.civilians[k].py = f64::from(n.1) + 0.5;
    }
}

fn task_zones(s: &mut WildfireState) {
    if let Some(t) = s.targets.rescue {
        for c in s.civilians.iter_mut() {
            if c.is_free() && chebyshev(c.cell(), t) <= RESCUE_ZONE {
                c.rescued = true;
            }
        }
    }
    if let Some(t) = s.targets.transport {
        for a in &s.agents {
            if a.kind == AgentKind::Firefighter
                && a.is_active()
                && chebyshev(a.cell(), t) <= TRANSPORT_ZONE
            {
                s.transported.insert(a.id);
            }
        }
    }
}

/// Live agents whose view square contains a cell touched by fire (§12.3, ground truth).
pub fn concurrent_scouts(s: &WildfireState) -> u32 {
    let g = &s.grid;
    let mut n = 0;
    for a in s.agents.iter().filter(|a| a.alive) {
        let (x, y) = a.cell();
        let r = a.kind.view_radius();
        let seen = (y - r..=y + r).any(|ny| {
            (x - r..=x + r).any(|nx| g.contains((nx, ny)) && g.fire[g.idx((nx, ny))].is_fire_seen())
        });
        n += u32::from(seen);
    }
    n
}

/// Termination (§12.4).
fn is_terminated(s: &WildfireState) -> bool {
    match s.level.kind {
        LevelKind::Cut => score(s) >= s.level.max_score,
        LevelKind::Scout => s.scouts >= 2,
        LevelKind::Transport => {
            let firefighters = s
                .agents
                .iter()
                .filter(|a| a.kind == AgentKind::Firefighter)
                .count();
            firefighters > 0 && s.transported.len() == firefighters
        }
        LevelKind::Rescue => !s.civilians.is_empty() && s.civilians.iter().all(|c| c.rescued),
        LevelKind::Suppress | LevelKind::Full => s.fire_ever_ignited && !s.fire_active,
    }
}
