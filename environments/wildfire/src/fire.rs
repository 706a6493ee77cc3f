//! The fire model: spread value, the three-phase synchronous fire tick, water and cutting
//! (docs/design/wildfire.md §5, §6.4 cutting rule).

use crate::grid::{Cell, Fire, Grid, WET_TICKS};
use crate::state::Counters;

/// Slope coefficient `k` per degree (§2).
const SLOPE_K: f64 = 0.069;
/// Terrain relief over cell size: elevation difference → rise over run (§2: 890 m / 30 m).
const RELIEF_OVER_CELL: f64 = 890.0 / 30.0;
/// Moisture constant and wet bonus (§2).
const MOISTURE_CONSTANT: f64 = 10.0;
const WET_BONUS: f64 = 20.0;
/// Ignition and immediate-burn thresholds (§2).
pub const IGNITION_THRESHOLD: f64 = 0.5;
/// Spread value above which a cell goes straight to `OnFire`.
pub const IMMEDIATE_BURN_THRESHOLD: f64 = 10.0;
/// Extinguishing duration in fire ticks (§2).
const EXTINGUISH_TICKS: u8 = 10;

/// Slope angle in degrees from an elevation difference (uphill positive).
pub fn slope_degrees(delta_elevation: f64) -> f64 {
    (delta_elevation * RELIEF_OVER_CELL).atan().to_degrees()
}

/// Slope factor `f(θ)` (§5.2).
pub fn slope_factor(theta: f64) -> f64 {
    if theta >= 0.0 {
        (SLOPE_K * theta).exp()
    } else {
        let e = (-SLOPE_K * theta).exp();
        e / (2.0 * e - 1.0)
    }
}

/// Spread value `p(s → c)` from source `s` to neighbour `c` (§5.2).
pub fn spread_value(grid: &Grid, s: Cell, c: Cell) -> f64 {
    let (si, ci) = (grid.idx(s), grid.idx(c));
    let f = slope_factor(slope_degrees(grid.elevation[ci] - grid.elevation[si]));
    let wet = if grid.wet[ci] > 0 { WET_BONUS } else { 0.0 };
    let dryness = 1.0 - (grid.moisture[ci] + wet) / MOISTURE_CONSTANT;
    let (wx, wy) = (grid.wind_x[si], grid.wind_y[si]);
    let wn = (wx * wx + wy * wy).sqrt();
    let (dx, dy) = ((c.0 - s.0) as f64, (c.1 - s.1) as f64);
    let dn = (dx * dx + dy * dy).sqrt();
    let align = if wn > 0.0 && dn > 0.0 {
        (wx * dx + wy * dy) / (wn * dn)
    } else {
        0.0
    };
    f * dryness * (align + 1.0) / 2.0
}

/// Ignites a cell at setup (`Ignited`).
pub fn ignite(grid: &mut Grid, c: Cell) {
    let i = grid.idx(c);
    grid.fire[i] = Fire::Ignited;
}

/// Destroys a cell's contents when it starts burning (§5.3 phase 1).
fn burn_contents(grid: &mut Grid, i: usize, counters: &mut Counters) {
    counters.trees_burned += u64::from(grid.trees[i]);
    grid.trees[i] = 0;
    if grid.building[i] {
        grid.building[i] = false;
        counters.buildings_destroyed += 1;
    }
}

const NEIGHBOURS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// One fire tick: ageing, spread, drying, each reading only the previous phase (§5.3).
/// Returns whether fire is still active (some cell `Ignited` or `OnFire`).
pub fn fire_tick(grid: &mut Grid, counters: &mut Counters) -> bool {
    let n = grid.len();
    let mut sources = Vec::new();
    // Phase 1: ageing.
    for i in 0..n {
        match grid.fire[i] {
            Fire::Ignited => {
                grid.fire[i] = Fire::OnFire;
                grid.spread_pending[i] = true;
                burn_contents(grid, i, counters);
                sources.push(i);
            }
            Fire::OnFire if grid.spread_pending[i] => sources.push(i),
            Fire::OnFire => {
                grid.fire[i] = Fire::Extinguishing;
                grid.ext_timer[i] = 0;
            }
            Fire::Extinguishing => {
                grid.ext_timer[i] = grid.ext_timer[i].saturating_add(1);
                if grid.ext_timer[i] >= EXTINGUISH_TICKS {
                    grid.fire[i] = Fire::Extinguished;
                }
            }
            _ => {}
        }
    }
    // Phase 2: spread, evaluated against the phase-1 grid; outcomes applied afterwards.
    let mut outcomes: Vec<(usize, bool)> = Vec::new();
    for &si in &sources {
        let s = grid.cell(si);
        for (dx, dy) in NEIGHBOURS {
            let c = (s.0 + dx, s.1 + dy);
            if !grid.contains(c) {
                continue;
            }
            let ci = grid.idx(c);
            if grid.fire[ci] != Fire::Burnable {
                continue;
            }
            let p = spread_value(grid, s, c);
            if p > IMMEDIATE_BURN_THRESHOLD {
                outcomes.push((ci, true));
            } else if p > IGNITION_THRESHOLD {
                outcomes.push((ci, false));
            }
        }
    }
    for (ci, immediate) in outcomes {
        match (grid.fire[ci], immediate) {
            (Fire::Burnable, false) => grid.fire[ci] = Fire::Ignited,
            (Fire::Burnable | Fire::Ignited, true) => {
                grid.fire[ci] = Fire::OnFire;
                grid.spread_pending[ci] = true;
                burn_contents(grid, ci, counters);
            }
            _ => {}
        }
    }
    for &si in &sources {
        grid.spread_pending[si] = false;
    }
    // Phase 3: drying.
    let mut active = false;
    for i in 0..n {
        if grid.wet[i] > 0 {
            grid.wet[i] -= 1;
        }
        active |= grid.fire[i].is_burning();
    }
    active
}

/// Whether some cell is `Ignited` or `OnFire`.
pub fn fire_active(grid: &Grid) -> bool {
    grid.fire.iter().any(|f| f.is_burning())
}

/// Water on a cell (§5.4): puts out a hot cell, otherwise wets it for 25 ticks.
pub fn apply_water(grid: &mut Grid, c: Cell, counters: &mut Counters) {
    if !grid.contains(c) {
        return;
    }
    let i = grid.idx(c);
    if grid.fire[i].is_lethal() {
        grid.fire[i] = Fire::Extinguished;
        grid.spread_pending[i] = false;
        counters.extinguished_by_water += 1;
    } else {
        grid.wet[i] = WET_TICKS;
    }
}

/// Removes up to `n` trees from a cell by an agent; a `Burnable` cell cut to 0 trees becomes
/// an `Unburnable` firebreak (§6.4). Returns the trees removed.
pub fn cut_trees(grid: &mut Grid, c: Cell, n: u8, counters: &mut Counters) -> u8 {
    let i = grid.idx(c);
    let removed = grid.trees[i].min(n);
    if removed == 0 {
        return 0;
    }
    grid.trees[i] -= removed;
    counters.trees_removed += u64::from(removed);
    if grid.trees[i] == 0 && grid.fire[i] == Fire::Burnable {
        grid.fire[i] = Fire::Unburnable;
    }
    removed
}

/// Cells hit by a firefighter's spray from `o` aimed at `aim` (§6.4): Euclidean `≤ 3` and
/// within 60° of the aim; the full disc for a zero aim.
pub fn spray_cells(grid: &Grid, o: Cell, aim: Cell) -> Vec<Cell> {
    let (ax, ay) = ((aim.0 - o.0) as f64, (aim.1 - o.1) as f64);
    let an = (ax * ax + ay * ay).sqrt();
    let mut cells = Vec::new();
    for dy in -3..=3 {
        for dx in -3..=3 {
            let d2 = dx * dx + dy * dy;
            if d2 > 9 {
                continue;
            }
            let c = (o.0 + dx, o.1 + dy);
            if !grid.contains(c) {
                continue;
            }
            let inside = if d2 == 0 || an == 0.0 {
                true
            } else {
                let cos = (dx as f64 * ax + dy as f64 * ay) / ((d2 as f64).sqrt() * an);
                cos >= 0.5 - 1e-12
            };
            if inside {
                cells.push(c);
            }
        }
    }
    cells
}

/// Cells under a helicopter's water dump: Euclidean `≤ 4.5` of its cell (§6.4).
pub fn dump_cells(grid: &Grid, o: Cell) -> Vec<Cell> {
    let mut cells = Vec::new();
    for dy in -4..=4 {
        for dx in -4..=4 {
            let c = (o.0 + dx, o.1 + dy);
            if f64::from(dx * dx + dy * dy) <= 20.25 && grid.contains(c) {
                cells.push(c);
            }
        }
    }
    cells
}
