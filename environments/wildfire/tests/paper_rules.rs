//! The paper-era rule set (`--set rules=paper`; docs/design/wildfire.md §19): the
//! official in-place fire scan with its cascade and its border ring, its neighbour directions,
//! its constants, the level presets and the building term of the score, each against the
//! default rules on the same input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_wildfire::config::{find_level, Rules};
use colony_wildfire::fire::{fire_tick_with, ignite, official_direction};
use colony_wildfire::grid::{Fire, Grid};
use colony_wildfire::metrics::score;
use colony_wildfire::state::Counters;

const N: usize = 12;

/// Dense forest everywhere, no wind, elevation rising by `rise` per cell along x: uphill
/// spread values are far above both immediate-burn thresholds, downhill ones below ignition.
fn ramp(rise: f64) -> Grid {
    let mut g = Grid::flat(N);
    for y in 0..N as i32 {
        for x in 0..N as i32 {
            let i = g.idx((x, y));
            g.trees[i] = 3;
            g.fire[i] = Fire::Burnable;
            g.wind_x[i] = 0.0;
            g.wind_y[i] = 0.0;
            g.elevation[i] = 0.5 + rise * f64::from(x - N as i32 / 2);
        }
    }
    g
}

fn burnt(g: &Grid, y: i32) -> Vec<i32> {
    (0..N as i32)
        .filter(|&x| g.fire[g.idx((x, y))] != Fire::Burnable)
        .collect()
}

fn ticks(g: &mut Grid, rules: Rules, n: usize) -> Counters {
    let mut counters = Counters::default();
    for _ in 0..n {
        fire_tick_with(g, &mut counters, &rules.fire());
    }
    counters
}

#[test]
fn a_fire_running_along_the_scan_crosses_the_map_in_one_tick() {
    let y = N as i32 / 2;
    // Setup ignition: the official cell needs a tick to note its state, then burns.
    let mut paper = ramp(0.05);
    ignite(&mut paper, (1, y));
    ticks(&mut paper, Rules::Paper, 1);
    assert_eq!(burnt(&paper, y), [1], "nothing spreads on the first tick");
    ticks(&mut paper, Rules::Paper, 1);
    // Every interior cell uphill went straight to OnFire and spread in the same scan; the
    // border column was reached but is never updated.
    assert_eq!(burnt(&paper, y), (1..N as i32).collect::<Vec<_>>());
    assert_eq!(paper.fire[paper.idx((N as i32 - 1, y))], Fire::OnFire);
    // The default rules move one cell a tick.
    let mut orch = ramp(0.05);
    ignite(&mut orch, (1, y));
    ticks(&mut orch, Rules::Orch, 2);
    assert_eq!(burnt(&orch, y), [1, 2, 3]);
}

#[test]
fn a_fire_running_against_the_scan_stops_after_one_cell() {
    let y = N as i32 / 2;
    let start = N as i32 - 2;
    let mut paper = ramp(-0.05);
    ignite(&mut paper, (start, y));
    ticks(&mut paper, Rules::Paper, 30);
    // The neighbours it pushed to OnFire came earlier in the scan: they never spread.
    assert_eq!(burnt(&paper, y), [start - 1, start]);
    let mut orch = ramp(-0.05);
    ignite(&mut orch, (start, y));
    ticks(&mut orch, Rules::Orch, 30);
    assert_eq!(burnt(&orch, y), (0..=start).collect::<Vec<_>>());
}

#[test]
fn border_cells_are_never_updated_and_burnt_cells_take_fifteen_ticks_to_go_out() {
    let y = N as i32 / 2;
    let mut g = ramp(0.0);
    ignite(&mut g, (0, y));
    ignite(&mut g, (5, y));
    ticks(&mut g, Rules::Paper, 40);
    assert_eq!(
        g.fire[g.idx((0, y))],
        Fire::Ignited,
        "the border cell stays ignited"
    );
    // Flat and windless: a spread value of 0.47 ignites nothing; the interior cell burns out
    // 2 + 15 ticks after it was ignited (setup adds one tick), not 2 + 10.
    let mut g = ramp(0.0);
    ignite(&mut g, (5, y));
    ticks(&mut g, Rules::Paper, 17);
    assert_eq!(g.fire[g.idx((5, y))], Fire::Extinguishing);
    ticks(&mut g, Rules::Paper, 1);
    assert_eq!(g.fire[g.idx((5, y))], Fire::Extinguished);
}

#[test]
fn the_official_directions_keep_their_three_mistakes() {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    // Right ones: (Δy, −Δx).
    assert_eq!(official_direction(-1, 0), (0.0, 1.0));
    assert_eq!(official_direction(0, 1), (1.0, 0.0));
    assert_eq!(official_direction(1, 1), (h, -h));
    // Wrong ones: (+1, 0) should be (0, −1), (0, −1) should be (−1, 0), (−1, −1) (−h, h).
    assert_eq!(official_direction(1, 0), (-1.0, 0.0));
    assert_eq!(official_direction(0, -1), (0.0, -1.0));
    assert_eq!(official_direction(-1, -1), (h, -h));
}

#[test]
fn paper_presets_and_the_building_term() {
    let full = find_level("full_environment").unwrap();
    let paper = full.clone().with_rules(Rules::Paper);
    assert_eq!(
        (
            paper.veg_offset,
            paper.fire_frames,
            paper.water,
            paper.max_steps,
            paper.civ_frames
        ),
        (30, 500, false, 200, 100)
    );
    assert_eq!(full.clone().with_rules(Rules::Orch), full);
    let l13 = find_level("suppress_fire_extinguish")
        .unwrap()
        .with_rules(Rules::Paper);
    assert!(l13.water && l13.max_steps == 100);
    let scout = find_level("scout_fire_small").unwrap();
    let mut same = scout.clone().with_rules(Rules::Paper);
    same.rules = Rules::Orch;
    assert_eq!(same, scout, "levels 1–12 keep their presets");
    // Three buildings lost cost 30 under the paper's score, nothing under ORCH's.
    let mut s = colony_wildfire::setup::new_episode(&l13, 2994).unwrap();
    let before = score(&s);
    s.counters.buildings_destroyed += 3;
    assert_eq!(score(&s), before - 30.0);
    s.level.rules = Rules::Orch;
    s.counters.buildings_destroyed -= 3;
    let orch = score(&s);
    s.counters.buildings_destroyed += 3;
    assert_eq!(score(&s), orch);
}
