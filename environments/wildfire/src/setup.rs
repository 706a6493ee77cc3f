//! Level setup (docs/design/wildfire.md §4.6, §12.2): spawn point, targets, fires, water and
//! civilians, with the placement fallback that guarantees termination.
//!
//! The draws come from .NET's seeded `System.Random` ([`DotNetRandom`]), seeded with the
//! episode seed and consumed in the order of WILDFIRE-ORCH's `GameManager.SetUpGame`:
//! the same seed gives the official spawn cell, and the official level targets wherever
//! their conditions hold on the same cells here (the maps differ: Unity's Perlin noise is
//! closed, §19.2). colony's extra conditions (a line that would overlap another or the spawn,
//! a cluster on the fire) only redraw where the official code would not.

use std::collections::BTreeSet;

use crate::config::{AgentKind, LevelConfig, LevelKind, Rules};
use crate::dotnet_random::DotNetRandom;
use crate::error::WildfireError;
use crate::fire::ignite;
use crate::generate::generate_grid;
use crate::grid::{Cell, Fire, Grid, Land};
use crate::state::{Agent, Civilian, Counters, Targets, WildfireState};

/// Failed draws after which distance conditions, then cell conditions, are dropped.
const FALLBACK_DRAWS: u32 = 10_000;
/// Hard cap (distinctness is never relaxed, so a tiny map could otherwise loop forever).
const MAX_DRAWS: u32 = 1_000_000;

/// `U(lo, span) = ⌊lo·S⌋ + Next(⌊span·S⌋)` (§4.6): the official
/// `random.Next((int)(S * span)) + (int)(S * lo)`, in C#'s `float` arithmetic (`0.7f * 90`
/// truncates to 63 where the exact product gives 62).
fn u(rng: &mut DotNetRandom, s: usize, lo: f64, span: f64) -> i32 {
    let band = |f: f64| (s as f32 * f as f32) as i32;
    band(lo) + rng.next_below(band(span).max(1))
}

fn draw_cell(rng: &mut DotNetRandom, s: usize, lo: f64, span: f64) -> Cell {
    let x = u(rng, s, lo, span);
    let y = u(rng, s, lo, span);
    (x, y)
}

/// Which conditions a placement still has to meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relax {
    None,
    Distance,
    Everything,
}

impl Relax {
    fn after(failures: u32) -> Self {
        if failures < FALLBACK_DRAWS {
            Relax::None
        } else if failures < 2 * FALLBACK_DRAWS {
            Relax::Distance
        } else {
            Relax::Everything
        }
    }
}

struct Placer<'a> {
    rng: &'a mut DotNetRandom,
    level: &'a str,
    s: usize,
}

impl Placer<'_> {
    /// Redraws `(lo, span)` cells until `distinct`, `distance` and `cell_ok` hold (the latter
    /// two relaxed per §12.2). Returns the cell and whether cell conditions were dropped.
    fn place(
        &mut self,
        what: &str,
        lo: f64,
        span: f64,
        distinct: impl Fn(Cell) -> bool,
        distance: impl Fn(Cell, u32) -> bool,
        cell_ok: impl Fn(Cell) -> bool,
    ) -> Result<(Cell, Relax), WildfireError> {
        for failures in 0..MAX_DRAWS {
            let c = draw_cell(self.rng, self.s, lo, span);
            let relax = Relax::after(failures);
            if distinct(c)
                && (relax != Relax::None || distance(c, failures))
                && (relax == Relax::Everything || cell_ok(c))
            {
                return Ok((c, relax));
            }
        }
        Err(WildfireError::Setup {
            level: self.level.into(),
            what: what.into(),
            draws: MAX_DRAWS,
        })
    }

    /// The level's fire: a burnable cell in the `(lo, span)` band, more than `away`·size from
    /// the spawn along x or y (§12.2), ignited (on a cell made dense when every condition had
    /// to be dropped). Scout, Suppress and Full differ only in the band and the distance.
    fn fire(
        &mut self,
        grid: &mut Grid,
        targets: &mut Targets,
        (lo, span): (f64, f64),
        away: f64,
    ) -> Result<Cell, WildfireError> {
        let (spawn, limit) = (targets.spawn, away * self.s as f64);
        let g = &*grid;
        let (c, relax) = self.place(
            "fire",
            lo,
            span,
            |c| c != spawn,
            |c, _| far(c.0, spawn.0, limit) || far(c.1, spawn.1, limit),
            |c| g.fire[g.idx(c)] == Fire::Burnable,
        )?;
        start_fire(grid, targets, c, relax);
        Ok(c)
    }

    /// The water cell of Suppress and Full levels: anywhere in the wide band except the spawn
    /// and the fire `f`, subject to the level's `distance` rule.
    fn water(
        &mut self,
        grid: &mut Grid,
        targets: &mut Targets,
        f: Cell,
        distance: impl Fn(Cell) -> bool,
    ) -> Result<Cell, WildfireError> {
        let spawn = targets.spawn;
        let (w, _) = self.place(
            "water",
            0.05,
            0.9,
            |c| c != spawn && c != f,
            |c, _| distance(c),
            |_| true,
        )?;
        grid.make_water(w);
        targets.water = Some(w);
        Ok(w)
    }

    /// `count` civilian clusters, each on a new cell other than the spawn and the cells
    /// `distinct` excludes, subject to the level's `distance` rule.
    fn clusters(
        &mut self,
        targets: &mut Targets,
        count: u32,
        distinct: impl Fn(Cell) -> bool,
        distance: impl Fn(Cell) -> bool,
    ) -> Result<(), WildfireError> {
        let spawn = targets.spawn;
        for k in 0..count {
            let placed = &targets.clusters;
            let (c, _) = self.place(
                &format!("civilian cluster {k}"),
                0.1,
                0.8,
                |c| c != spawn && distinct(c) && !placed.contains(&c),
                |c, _| distance(c),
                |_| true,
            )?;
            targets.clusters.push(c);
        }
        Ok(())
    }
}

fn far(a: i32, b: i32, limit: f64) -> bool {
    f64::from((a - b).abs()) > limit
}

/// Generates the map and runs the level setup: a fresh episode at step 0 (before the first
/// reveal).
pub fn new_episode(level: &LevelConfig, seed: u64) -> Result<WildfireState, WildfireError> {
    let s = level.map_size as usize;
    if s < 4 {
        return Err(WildfireError::Level {
            level: level.id.clone(),
            message: format!("map_size {s} is below 4"),
        });
    }
    let mut grid = generate_grid(s, level.veg_offset, seed);
    // C#'s `int` seed: the low 32 bits of ours (the paper's seeds are small).
    let mut rng = DotNetRandom::new(seed as i32);
    let spawn = draw_cell(&mut rng, s, 0.1, 0.8);
    let mut targets = Targets {
        spawn,
        ..Targets::default()
    };
    let mut civilians = Vec::new();
    let mut fire_ever_ignited = false;
    let sf = s as f64;
    let mut placer = Placer {
        rng: &mut rng,
        level: &level.id,
        s,
    };
    match level.kind {
        LevelKind::Cut => setup_cut(level, &mut grid, &mut placer, &mut targets)?,
        LevelKind::Scout => {
            placer.fire(&mut grid, &mut targets, (0.05, 0.9), 0.4)?;
            fire_ever_ignited = true;
        }
        LevelKind::Transport => {
            let (c, _) = placer.place(
                "transport target",
                0.05,
                0.9,
                |c| c != spawn,
                |c, _| far(c.0, spawn.0, 0.4 * sf) && far(c.1, spawn.1, 0.4 * sf),
                |_| true,
            )?;
            targets.transport = Some(c);
        }
        LevelKind::Rescue => {
            let (t, _) = placer.place(
                "rescue target",
                0.1,
                0.8,
                |c| c != spawn,
                |_, _| true,
                |_| true,
            )?;
            targets.rescue = Some(t);
            placer.clusters(
                &mut targets,
                level.civilians.0,
                |c| c != t,
                |c| {
                    (far(c.0, t.0, 0.3 * sf) || far(c.1, t.1, 0.3 * sf))
                        && (far(c.0, spawn.0, 0.2 * sf) || far(c.1, spawn.1, 0.2 * sf))
                },
            )?;
        }
        LevelKind::Suppress => {
            // The paper-era code puts the fire anywhere but the spawn cell
            // (`min_distance = 0f * map_size`, docs/design/wildfire.md §19.1).
            let away = if level.rules == Rules::Paper {
                0.0
            } else {
                0.2
            };
            let f = placer.fire(&mut grid, &mut targets, (0.1, 0.8), away)?;
            fire_ever_ignited = true;
            if level.water {
                placer.water(&mut grid, &mut targets, f, |_| true)?;
            }
        }
        LevelKind::Full => {
            let f = placer.fire(&mut grid, &mut targets, (0.15, 0.7), 0.25)?;
            fire_ever_ignited = true;
            // The paper-era Full Environment has no water (§19.1).
            let w = if level.water {
                Some(placer.water(&mut grid, &mut targets, f, |c| c.0 != f.0 && c.1 != f.1)?)
            } else {
                None
            };
            placer.clusters(
                &mut targets,
                level.civilians.0,
                |c| c != f && Some(c) != w,
                |c| far(c.0, f.0, 0.25 * sf) && far(c.1, f.1, 0.25 * sf),
            )?;
        }
    }
    for &c in &targets.clusters {
        for _ in 0..level.civilians.1 {
            civilians.push(Civilian {
                px: f64::from(c.0) + 0.5,
                py: f64::from(c.1) + 0.5,
                alive: true,
                carried_by: None,
                rescued: false,
            });
        }
    }
    let mut agents = Vec::new();
    for (kind, &count) in AgentKind::ALL.iter().zip(&level.team) {
        for _ in 0..count {
            agents.push(Agent::new(agents.len() as u32 + 1, *kind, spawn));
        }
    }
    let fire_active = fire_ever_ignited;
    Ok(WildfireState {
        level: level.clone(),
        seed,
        team_map: vec![0; grid.len()],
        grid,
        agents,
        civilians,
        targets,
        counters: Counters::default(),
        transported: BTreeSet::new(),
        fire_ever_ignited,
        fire_active,
        frame: 0,
        step: 0,
        scouts: 0,
        terminated: false,
        truncated: false,
        runtime_rng_pos: 0,
    })
}

fn start_fire(grid: &mut Grid, targets: &mut Targets, c: Cell, relax: Relax) {
    if relax == Relax::Everything {
        grid.make_dense(c);
        targets.fallbacks += 1;
    }
    ignite(grid, c);
    targets.fire = Some(c);
}

fn setup_cut(
    level: &LevelConfig,
    grid: &mut Grid,
    placer: &mut Placer<'_>,
    targets: &mut Targets,
) -> Result<(), WildfireError> {
    let Some(cut) = level.cut else {
        return Err(WildfireError::Level {
            level: level.id.clone(),
            message: "cut level without cut targets".into(),
        });
    };
    let s = grid.size;
    let sf = s as f64;
    let spawn = targets.spawn;
    if !cut.lines {
        for k in 0..cut.count {
            let placed = targets.cut_cells.clone();
            let g = &*grid;
            let (c, relax) = placer.place(
                &format!("sparse target {k}"),
                0.1,
                0.8,
                |c| c != spawn && !placed.contains(&c),
                |c, failures| {
                    // sep starts at 0.1·S and halves on every 200th draw (the official
                    // `attempts % 200 == 0`, counted before the check).
                    let halvings = (failures + 1) / 200;
                    let sep = 0.1 * sf / f64::from(2u32.saturating_pow(halvings).max(1));
                    far(c.0, spawn.0, 0.1 * sf)
                        && far(c.1, spawn.1, 0.1 * sf)
                        && placed
                            .iter()
                            .all(|p| f64::from((p.0 - c.0).abs().max((p.1 - c.1).abs())) >= sep)
                },
                |c| {
                    let i = g.idx(c);
                    g.trees[i] == 3 && !g.building[i] && g.land[i] != Land::Water
                },
            )?;
            if relax == Relax::Everything {
                grid.make_dense(c);
                targets.fallbacks += 1;
            }
            targets.cut_cells.push(c);
        }
        return Ok(());
    }
    let len = cut.length as i32;
    let mut centres: Vec<Cell> = Vec::new();
    for k in 0..cut.count {
        let mut failures = 0u32;
        loop {
            if failures >= MAX_DRAWS {
                return Err(WildfireError::Setup {
                    level: level.id.clone(),
                    what: format!("line {k}"),
                    draws: failures,
                });
            }
            let (cx, cy) = draw_cell(placer.rng, s, 0.1, 0.8);
            let distance_ok = far(cx, spawn.0, 0.2 * sf) && far(cy, spawn.1, 0.2 * sf);
            // The official code draws the orientation only for a centre it accepts
            // (`Next(2) == 0`: horizontal).
            if !(distance_ok || Relax::after(failures) != Relax::None)
                || centres.contains(&(cx, cy))
            {
                failures += 1;
                continue;
            }
            let horizontal = placer.rng.next_below(2) == 0;
            let cells = line_cells((cx, cy), horizontal, len, s as i32);
            let distinct =
                !cells.contains(&spawn) && cells.iter().all(|c| !targets.cut_cells.contains(c));
            if distinct {
                // The official set of centres holds the centre after the line is fitted in.
                centres.push(cells[((len - 1) / 2) as usize]);
                targets.lines.push((cells[0], cells[cells.len() - 1]));
                for &c in &cells {
                    grid.make_dense(c);
                }
                targets.cut_cells.extend(cells);
                break;
            }
            failures += 1;
        }
    }
    Ok(())
}

/// The `len` cells of a line centred on `c` (`centre − ⌊(L−1)/2⌋ … centre + ⌊L/2⌋`), shifted
/// to fit inside the map.
pub fn line_cells(c: Cell, horizontal: bool, len: i32, s: i32) -> Vec<Cell> {
    let centre = if horizontal { c.0 } else { c.1 };
    let mut start = centre - (len - 1) / 2;
    start = start.clamp(0, (s - len).max(0));
    (start..start + len.min(s))
        .map(|v| if horizontal { (v, c.1) } else { (c.0, v) })
        .collect()
}

/// A hand-built state for scenario tests (design §16): `grid` as given, agents at the centres of
/// the listed cells (ids in list order), no targets, no civilians; `level` supplies the
/// clocks and scoring (its map size is set to the grid's).
pub fn scenario(mut level: LevelConfig, grid: Grid, agents: &[(AgentKind, Cell)]) -> WildfireState {
    level.map_size = grid.size as u32;
    let fire_ever_ignited = grid.fire.iter().any(|f| f.is_fire_seen());
    WildfireState {
        level,
        seed: 0,
        team_map: vec![0; grid.len()],
        fire_active: grid.fire.iter().any(|f| f.is_burning()),
        grid,
        agents: agents
            .iter()
            .enumerate()
            .map(|(k, &(kind, c))| Agent::new(k as u32 + 1, kind, c))
            .collect(),
        civilians: Vec::new(),
        targets: Targets::default(),
        counters: Counters::default(),
        transported: BTreeSet::new(),
        fire_ever_ignited,
        frame: 0,
        step: 0,
        scouts: 0,
        terminated: false,
        truncated: false,
        runtime_rng_pos: 0,
    }
}
