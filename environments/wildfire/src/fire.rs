//! The fire model: spread value, the three-phase synchronous fire tick, water and cutting
//! (docs/design/wildfire.md §5, §6.4 cutting rule).

use crate::config::{FireRules, Rules};
use crate::grid::{Cell, Fire, Grid};
use crate::state::Counters;

/// Slope coefficient `k` per degree (§2).
const SLOPE_K: f64 = 0.069;
/// Terrain relief over cell size: elevation difference → rise over run (§2: 890 m / 30 m).
const RELIEF_OVER_CELL: f64 = 890.0 / 30.0;
/// Moisture constant and wet bonus (§2).
const MOISTURE_CONSTANT: f64 = 10.0;
const WET_BONUS: f64 = 20.0;
/// Ignition and immediate-burn thresholds (§2; the same in every rule set).
pub const IGNITION_THRESHOLD: f64 = 0.5;
/// Spread value above which a cell goes straight to `OnFire` under the default rules (see
/// [`FireRules::immediate_burn`]).
pub const IMMEDIATE_BURN_THRESHOLD: f64 = 10.0;

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
    let (dx, dy) = ((c.0 - s.0) as f64, (c.1 - s.1) as f64);
    spread_value_along(grid, s, c, (dx, dy), WET_BONUS)
}

/// Spread value from `s` to `c` with the wind measured along `dir` (not necessarily the true
/// direction from `s` to `c`: see [`official_direction`]) and a wet cell's moisture raised by
/// `wet_bonus`.
pub fn spread_value_along(grid: &Grid, s: Cell, c: Cell, dir: (f64, f64), wet_bonus: f64) -> f64 {
    let (si, ci) = (grid.idx(s), grid.idx(c));
    let f = slope_factor(slope_degrees(grid.elevation[ci] - grid.elevation[si]));
    let wet = if grid.wet[ci] > 0 { wet_bonus } else { 0.0 };
    let dryness = 1.0 - (grid.moisture[ci] + wet) / MOISTURE_CONSTANT;
    let (wx, wy) = (grid.wind_x[si], grid.wind_y[si]);
    let wn = (wx * wx + wy * wy).sqrt();
    let (dx, dy) = dir;
    let dn = (dx * dx + dy * dy).sqrt();
    let align = if wn > 0.0 && dn > 0.0 {
        (wx * dx + wy * dy) / (wn * dn)
    } else {
        0.0
    };
    f * dryness * (align + 1.0) / 2.0
}

/// The direction the official `CellGrid.Direction()` pairs with the neighbour at offset
/// `(dx, dy)` (docs/design/wildfire.md §19.1). The official grid's first index is our `x` and
/// its second our `y`, and its directions are `(Δy, −Δx)`, except three: the neighbour at
/// `(+1, 0)` gets `(−1, 0)`, the one at `(0, −1)` gets `(0, −1)`, and the one at `(−1, −1)`
/// gets `(1/√2, −1/√2)`.
pub fn official_direction(dx: i32, dy: i32) -> (f64, f64) {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    match (dx, dy) {
        (-1, -1) => (h, -h),
        (-1, 0) => (0.0, 1.0),
        (-1, 1) => (h, h),
        (0, 1) => (1.0, 0.0),
        (1, 1) => (h, -h),
        (1, 0) => (-1.0, 0.0),
        (1, -1) => (-h, -h),
        (0, -1) => (0.0, -1.0),
        _ => (0.0, 0.0),
    }
}

/// Ignites a cell at setup (`Ignited`).
pub fn ignite(grid: &mut Grid, c: Cell) {
    let i = grid.idx(c);
    grid.fire[i] = Fire::Ignited;
    mark_fresh(grid, i);
}

/// Records that cell `i`'s fire state changed outside a tick (see [`Grid::fresh`]).
fn mark_fresh(grid: &mut Grid, i: usize) {
    fresh_flags(grid)[i] = true;
}

/// The grid's fresh flags, one per cell (a state saved without them has none: all false).
fn fresh_flags(grid: &mut Grid) -> &mut Vec<bool> {
    let n = grid.len();
    if grid.fresh.len() != n {
        grid.fresh = vec![false; n];
    }
    &mut grid.fresh
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

/// One fire tick under the default rules ([`Rules::Orch`]); see [`fire_tick_with`].
pub fn fire_tick(grid: &mut Grid, counters: &mut Counters) -> bool {
    fire_tick_with(grid, counters, &Rules::Orch.fire())
}

/// One fire tick under `rules`, then drying. Returns whether fire is still active (some cell
/// `Ignited` or `OnFire`).
pub fn fire_tick_with(grid: &mut Grid, counters: &mut Counters, rules: &FireRules) -> bool {
    if rules.in_place {
        in_place_tick(grid, counters, rules);
    } else {
        synchronous_tick(grid, counters, rules);
    }
    // Drying.
    let mut active = false;
    for i in 0..grid.len() {
        if grid.wet[i] > 0 {
            grid.wet[i] -= 1;
        }
        active |= grid.fire[i].is_burning();
    }
    active
}

/// The official update (`CellGrid.Simulate` of the paper-era code), in place: interior cells
/// only, the official grid's rows (our `x`) outer and columns (our `y`) inner. Each cell ages
/// first (an `Ignited` or `OnFire` cell that was so before this tick moves on; an
/// `Extinguishing` one counts a tick); then, if it is `OnFire`, it spreads to its `Burnable`
/// neighbours at once. So a neighbour pushed straight to `OnFire` that comes later in the scan
/// spreads in the same tick, and one that came earlier never spreads. Border cells are never
/// updated: one that is ignited stays `Ignited`.
fn in_place_tick(grid: &mut Grid, counters: &mut Counters, rules: &FireRules) {
    fresh_flags(grid);
    let s = grid.size as i32;
    for x in 1..s - 1 {
        for y in 1..s - 1 {
            let i = grid.idx((x, y));
            let fresh = grid.fresh[i];
            match grid.fire[i] {
                Fire::Ignited if !fresh => {
                    grid.fire[i] = Fire::OnFire;
                    grid.fresh[i] = true;
                    burn_contents(grid, i, counters);
                }
                Fire::OnFire if !fresh => {
                    grid.fire[i] = Fire::Extinguishing;
                    grid.ext_timer[i] = 0;
                    grid.fresh[i] = true;
                }
                Fire::Extinguishing if !fresh => {
                    grid.ext_timer[i] = grid.ext_timer[i].saturating_add(1);
                    if grid.ext_timer[i] >= rules.extinguish_ticks {
                        grid.fire[i] = Fire::Extinguished;
                        grid.fresh[i] = true;
                    }
                }
                Fire::Unburnable => {}
                _ => grid.fresh[i] = false,
            }
            if grid.fire[i] != Fire::OnFire {
                continue;
            }
            // Each neighbour is checked when it is reached: spreading to one cannot change
            // another, so this equals the official filter-then-apply.
            for (dx, dy) in NEIGHBOURS {
                let c = (x + dx, y + dy);
                let ci = grid.idx(c);
                if grid.fire[ci] != Fire::Burnable {
                    continue;
                }
                let dir = official_direction(dx, dy);
                let p = spread_value_along(grid, (x, y), c, dir, rules.wet_bonus);
                if p > rules.immediate_burn {
                    grid.fire[ci] = Fire::OnFire;
                    grid.fresh[ci] = true;
                    burn_contents(grid, ci, counters);
                } else if p > IGNITION_THRESHOLD {
                    grid.fire[ci] = Fire::Ignited;
                    grid.fresh[ci] = true;
                }
            }
        }
    }
    // `CellGrid.Update`: every cell's previous state becomes its state.
    grid.fresh.iter_mut().for_each(|f| *f = false);
}

/// Ageing, spread and drying as three synchronous phases, each reading only the previous one
/// (§5.3): the default rules.
fn synchronous_tick(grid: &mut Grid, counters: &mut Counters, rules: &FireRules) {
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
                if grid.ext_timer[i] >= rules.extinguish_ticks {
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
            let p = spread_value_along(
                grid,
                s,
                c,
                ((c.0 - s.0) as f64, (c.1 - s.1) as f64),
                rules.wet_bonus,
            );
            if p > rules.immediate_burn {
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
}

/// Whether some cell is `Ignited` or `OnFire`.
pub fn fire_active(grid: &Grid) -> bool {
    grid.fire.iter().any(|f| f.is_burning())
}

/// Water on a cell under the default rules (§5.4); see [`apply_water_with`].
pub fn apply_water(grid: &mut Grid, c: Cell, counters: &mut Counters) {
    apply_water_with(grid, c, counters, &Rules::Orch.fire());
}

/// Water on a cell: puts out a hot cell, otherwise wets it for the rules' drying time.
pub fn apply_water_with(grid: &mut Grid, c: Cell, counters: &mut Counters, rules: &FireRules) {
    if !grid.contains(c) {
        return;
    }
    let i = grid.idx(c);
    if grid.fire[i].is_lethal() {
        grid.fire[i] = Fire::Extinguished;
        grid.spread_pending[i] = false;
        mark_fresh(grid, i);
        counters.extinguished_by_water += 1;
    } else {
        grid.wet[i] = rules.wet_ticks;
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
