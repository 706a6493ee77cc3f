//! The unit-test scenarios of docs/design/wildfire.md §16 (W1–W9): spread values, fire timeline,
//! wet firebreaks, immediate burns, spray cone, movement, losses, civilians, helicopter transport.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use colony_env_api::Environment;
use colony_wildfire::config::{find_level, AgentKind, LevelConfig};
use colony_wildfire::fire::{
    dump_cells, fire_tick, ignite, slope_degrees, slope_factor, spread_value,
};
use colony_wildfire::grid::{Fire, Grid};
use colony_wildfire::primitive::{LowLevel, Primitive};
use colony_wildfire::setup::scenario;
use colony_wildfire::state::{Civilian, Counters};
use colony_wildfire::{WildfireAction, WildfireEnv};

const STRIP: [&str; 8] = [
    "rrrrrrrr", "r333333r", "rrrrrrrr", "rrrrrrrr", "rrrrrrrr", "rrrrrrrr", "rrrrrrrr", "rrrrrrrr",
];

fn suppress() -> LevelConfig {
    let mut l = find_level("suppress_fire_extinguish").unwrap();
    l.fire_frames = 100;
    l.max_steps = 1000;
    l
}

fn flat(n: usize) -> Grid {
    Grid::flat(n)
}

fn code(g: &Grid, c: (i32, i32)) -> char {
    match g.fire[g.idx(c)] {
        Fire::Unburnable => 'u',
        Fire::Burnable => 'b',
        Fire::Ignited => 'i',
        Fire::OnFire => 'f',
        Fire::Extinguishing => 'e',
        Fire::Extinguished => 'x',
    }
}

fn env_with(grid: Grid, agents: &[(AgentKind, (i32, i32))]) -> WildfireEnv {
    WildfireEnv::from_state(scenario(suppress(), grid, agents)).unwrap()
}

fn step(env: &mut WildfireEnv, actions: &[(u32, WildfireAction)]) {
    let m: BTreeMap<String, WildfireAction> = actions
        .iter()
        .map(|(id, a)| (id.to_string(), a.clone()))
        .collect();
    env.step(&m);
}

fn low(code: i32, x: i32, y: i32) -> WildfireAction {
    WildfireAction::Low(LowLevel { code, x, y })
}

fn prim(kind: u8, p1: i32, p2: i32) -> WildfireAction {
    WildfireAction::Primitive(Primitive::new(kind, p1, p2, "test"))
}

#[test]
fn w1_spread_values() {
    let mut g = flat(5);
    let s = (2, 2);
    let p = |g: &Grid, c| spread_value(g, s, c);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-4;
    assert!(close(p(&g, (3, 2)), 0.9400));
    assert!(close(p(&g, (3, 1)), 0.8023));
    assert!(close(p(&g, (2, 1)), 0.4700));
    assert!(close(p(&g, (1, 1)), 0.1377));
    assert!(close(p(&g, (1, 2)), 0.0));
    assert!((slope_degrees(0.01) - 16.5239).abs() < 1e-4);
    assert!(close(slope_factor(slope_degrees(0.01)), 3.1272));
    assert!(close(slope_factor(slope_degrees(-0.01)), 0.5952));
    let n = g.idx((2, 1));
    g.elevation[n] = 0.01;
    assert!(close(p(&g, (2, 1)), 1.4698));
    let (e, ne) = (g.idx((3, 2)), g.idx((3, 1)));
    g.elevation[e] = -0.01;
    g.elevation[ne] = -0.01;
    assert!(close(p(&g, (3, 2)), 0.5594));
    assert!(close(p(&g, (3, 1)), 0.4775));
    g.elevation[e] = 0.03;
    assert!((p(&g, (3, 2)) - 16.665).abs() < 1e-3);
    g.elevation[e] = 0.0;
    g.wet[e] = 25;
    assert!(close(p(&g, (3, 2)), -1.06));
}

#[test]
fn w2_fire_timeline_on_a_strip() {
    let mut g = Grid::from_notation(&STRIP).unwrap();
    let mut c = Counters::default();
    ignite(&mut g, (1, 1));
    for k in 1..=6 {
        fire_tick(&mut g, &mut c);
        assert_eq!(code(&g, (k, 1)), 'f', "tick {k}");
        if k < 6 {
            assert_eq!(code(&g, (k + 1, 1)), 'i', "tick {k}");
        }
        assert_eq!(c.trees_burned, 3 * k as u64);
        for left in 1..k {
            assert!(matches!(code(&g, (left, 1)), 'e' | 'x'));
        }
    }
    assert!(!fire_tick(&mut g, &mut c), "tick 7: fire inactive");
    assert_eq!(c.trees_burned, 18);
    let mut g = Grid::from_notation(&STRIP).unwrap();
    let mut c = Counters::default();
    ignite(&mut g, (1, 1));
    for t in 1..=13 {
        fire_tick(&mut g, &mut c);
        let want = match t {
            1 => 'f',
            2..=11 => 'e',
            _ => 'x',
        };
        assert_eq!(code(&g, (1, 1)), want, "tick {t}");
    }
    // Upwind spread is 0: igniting the east end burns only that cell.
    let mut g = Grid::from_notation(&STRIP).unwrap();
    let mut c = Counters::default();
    ignite(&mut g, (6, 1));
    for _ in 0..15 {
        fire_tick(&mut g, &mut c);
    }
    assert_eq!(c.trees_burned, 3);
}

#[test]
fn w3_wet_and_cut_firebreaks() {
    for cut in [false, true] {
        let mut g = Grid::from_notation(&STRIP).unwrap();
        let mut c = Counters::default();
        let i = g.idx((3, 1));
        if cut {
            colony_wildfire::fire::cut_trees(&mut g, (3, 1), 3, &mut c);
            assert_eq!(g.fire[i], Fire::Unburnable);
        } else {
            g.wet[i] = 25;
        }
        ignite(&mut g, (1, 1));
        for _ in 0..7 {
            fire_tick(&mut g, &mut c);
        }
        assert_eq!(c.trees_burned, 6);
        if !cut {
            assert_eq!(g.fire[i], Fire::Burnable);
            assert_eq!(g.wet[i], 18);
        }
    }
}

#[test]
fn w4_immediate_burn_uphill() {
    let mut g = Grid::from_notation(&STRIP).unwrap();
    for i in 0..g.len() {
        g.elevation[i] = 0.03 * f64::from(g.cell(i).0);
    }
    let mut c = Counters::default();
    ignite(&mut g, (1, 1));
    fire_tick(&mut g, &mut c);
    assert_eq!(code(&g, (2, 1)), 'f');
    assert_eq!(c.trees_burned, 6, "(2,1) destroyed at tick 1");
    fire_tick(&mut g, &mut c);
    assert_eq!(code(&g, (2, 1)), 'f');
    assert_eq!(code(&g, (3, 1)), 'f', "(2,1) spread at tick 2");
    fire_tick(&mut g, &mut c);
    assert_eq!(code(&g, (2, 1)), 'e');
}

#[test]
fn w5_spray_cone_and_dump() {
    let mut env = env_with(flat(21), &[(AgentKind::Firefighter, (10, 10))]);
    env.world_mut().agents[0].water = 1;
    step(&mut env, &[(1, low(3, 20, 10))]);
    let g = &env.world().grid;
    let mut wet: Vec<(i32, i32)> = (0..g.len())
        .filter(|&i| g.wet[i] > 0)
        .map(|i| g.cell(i))
        .collect();
    wet.sort();
    let mut want = vec![
        (10, 10),
        (11, 10),
        (12, 10),
        (13, 10),
        (11, 9),
        (12, 9),
        (11, 11),
        (12, 11),
        (12, 8),
        (12, 12),
    ];
    want.sort();
    assert_eq!(wet, want);
    assert_eq!(env.world().agents[0].water, 0);
    env.world_mut().grid.wet.iter_mut().for_each(|w| *w = 0);
    step(&mut env, &[(1, low(3, 20, 10))]);
    assert!(env.world().grid.wet.iter().all(|&w| w == 0));
    assert_eq!(dump_cells(&flat(21), (10, 10)).len(), 69);
}

#[test]
fn w6_movement_speeds_and_plow() {
    let mut env = env_with(flat(60), &[(AgentKind::Firefighter, (5, 5))]);
    step(&mut env, &[(1, prim(1, 17, 5))]);
    let a = &env.world().agents[0];
    assert_eq!((a.px, a.py), (17.5, 5.5));
    assert!(a.action.is_none(), "move completes at the check");
    assert_eq!(a.history, vec!["test".to_string()]);
    let mut dense = flat(60);
    for x in 0..60 {
        let i = dense.idx((x, 5));
        dense.trees[i] = 3;
    }
    let mut env = env_with(dense.clone(), &[(AgentKind::Firefighter, (5, 5))]);
    step(&mut env, &[(1, prim(1, 40, 5))]);
    assert!((env.world().agents[0].px - (5.5 + 4.8)).abs() < 1e-9);
    for (kind, dist) in [
        (AgentKind::Drone, 20.0),
        (AgentKind::Helicopter, 30.0),
        (AgentKind::Bulldozer, 8.0),
    ] {
        let mut env = env_with(flat(60), &[(kind, (5, 5))]);
        step(&mut env, &[(1, prim(1, 50, 5))]);
        assert!(
            (env.world().agents[0].px - (5.5 + dist)).abs() < 1e-9,
            "{kind:?}"
        );
    }
    let mut env = env_with(dense, &[(AgentKind::Bulldozer, (5, 5))]);
    step(&mut env, &[(1, prim(2, 50, 5))]);
    let w = env.world();
    assert!(
        (w.agents[0].px - 9.5).abs() < 1e-9,
        "plow down: 4 cells/step"
    );
    for x in 5..=9 {
        assert_eq!(w.grid.trees[w.grid.idx((x, 5))], 0, "cell ({x}, 5) plowed");
    }
    assert_eq!(w.grid.trees[w.grid.idx((10, 5))], 3);
    assert_eq!(w.counters.trees_removed, 15);
}

#[test]
fn w7_losses() {
    let mut g = Grid::from_notation(&STRIP).unwrap();
    ignite(&mut g, (1, 1));
    let mut env = env_with(
        g.clone(),
        &[(AgentKind::Firefighter, (2, 1)), (AgentKind::Drone, (2, 1))],
    );
    step(&mut env, &[]);
    assert!(
        env.world().agents[0].alive,
        "alive until the first frame after tick 1"
    );
    step(&mut env, &[]);
    assert!(!env.world().agents[0].alive);
    assert!(env.world().agents[1].alive, "drones never die");
    assert_eq!(env.world().counters.agents_lost, 1);
    assert_eq!(env.score(), -(6.0 + 20.0), "6 trees burned + one agent");

    // A passenger over a burning cell survives; a civilian on a burning cell dies.
    let mut env = env_with(
        g.clone(),
        &[
            (AgentKind::Firefighter, (2, 1)),
            (AgentKind::Helicopter, (2, 1)),
        ],
    );
    // No civilian walks here: it must stay on the cell the fire reaches.
    env.world_mut().level.civ_frames = 1_000_000;
    env.world_mut().civilians.push(Civilian {
        px: 2.5,
        py: 1.5,
        alive: true,
        carried_by: None,
        rescued: false,
    });
    step(&mut env, &[(2, low(1, 0, 0))]);
    assert_eq!(env.world().agents[0].passenger_of, Some(2));
    for _ in 0..3 {
        step(&mut env, &[(2, low(-1, 0, 0))]);
    }
    assert!(env.world().agents[0].alive);
    assert!(!env.world().civilians[0].alive);
    assert_eq!(env.world().counters.civilians_lost, 1);

    // Nobody dies on an extinguished cell.
    let mut g2 = Grid::from_notation(&STRIP).unwrap();
    let i = g2.idx((4, 4));
    g2.fire[i] = Fire::Extinguished;
    let mut env = env_with(
        g2,
        &[
            (AgentKind::Firefighter, (4, 4)),
            (AgentKind::Bulldozer, (4, 4)),
        ],
    );
    step(&mut env, &[]);
    assert!(env.world().agents.iter().all(|a| a.alive));
}

fn civ(x: i32, y: i32) -> Civilian {
    Civilian {
        px: f64::from(x) + 0.5,
        py: f64::from(y) + 0.5,
        alive: true,
        carried_by: None,
        rescued: false,
    }
}

#[test]
fn w8_civilians_pickup_drop_rescue() {
    let mut level = find_level("rescue_civilians_known_small").unwrap();
    level.civ_frames = 100;
    let mut s = scenario(level, flat(40), &[(AgentKind::Firefighter, (10, 10))]);
    s.civilians = vec![civ(12, 12), civ(14, 10)];
    s.targets.rescue = Some((30, 10));
    let mut env = WildfireEnv::from_state(s.clone()).unwrap();
    step(&mut env, &[(1, low(2, 0, 0))]);
    assert_eq!(
        env.world().agents[0].carrying,
        Some(0),
        "closest within < 4"
    );
    assert_eq!(env.world().civilians[0].carried_by, Some(1));

    let mut s2 = s.clone();
    s2.civilians.push(civ(11, 12));
    let mut env2 = WildfireEnv::from_state(s2).unwrap();
    step(&mut env2, &[(1, low(2, 0, 0))]);
    assert_eq!(env2.world().agents[0].carrying, Some(2));

    // Carry it to within Chebyshev 4 of the target and drop it.
    step(&mut env, &[(1, prim(1, 27, 10))]);
    step(&mut env, &[(1, prim(1, 27, 10))]);
    assert_eq!(env.world().agents[0].cell(), (27, 10));
    assert_eq!(
        env.world().civilians[0].cell(),
        (27, 10),
        "carried civilians move along"
    );
    step(&mut env, &[(1, low(2, 0, 0))]);
    let c = &env.world().civilians[0];
    assert!(c.rescued && c.carried_by.is_none());
    assert_eq!(env.score(), 1.0);
    // Rescued civilians stay put and cannot be picked up again.
    for _ in 0..3 {
        step(&mut env, &[(1, low(2, 0, 0))]);
    }
    assert_eq!(env.world().civilians[0].cell(), (27, 10));
    assert_eq!(env.world().agents[0].carrying, None);
}

#[test]
fn w9_helicopter_transport() {
    let mut level = find_level("transport_firefighters_small").unwrap();
    level.max_steps = 100;
    let mut team = vec![(AgentKind::Firefighter, (10, 10)); 6];
    team.push((AgentKind::Helicopter, (10, 10)));
    let mut s = scenario(level, flat(100), &team);
    s.targets.transport = Some((70, 10));
    let mut wet = s.clone();
    wet.agents[6].water = 1;
    let mut env = WildfireEnv::from_state(wet).unwrap();
    step(&mut env, &[(7, low(1, 0, 0))]);
    assert!(
        env.world().agents[6].passengers.is_empty(),
        "no boarding with water aboard"
    );

    let mut env = WildfireEnv::from_state(s).unwrap();
    step(&mut env, &[(7, low(1, 0, 0))]);
    assert_eq!(env.world().agents[6].passengers, vec![1, 2, 3, 4, 5]);
    assert_eq!(env.world().agents[5].passenger_of, None);
    step(&mut env, &[(7, prim(1, 70, 10))]);
    assert!(
        (env.world().agents[6].px - 40.5).abs() < 1e-9,
        "30 cells per step"
    );
    assert_eq!(env.world().agents[0].px, env.world().agents[6].px);
    step(&mut env, &[(7, prim(1, 70, 10))]);
    assert_eq!(env.score(), 0.0, "passengers do not count");
    step(&mut env, &[(7, low(3, 0, 0))]);
    let w = env.world();
    assert!(w.agents[..5]
        .iter()
        .all(|a| a.passenger_of.is_none() && a.cell() == (70, 10)));
    assert_eq!(w.transported.len(), 5);
    assert_eq!(env.score(), 5.0);
}

#[test]
fn stepping_after_the_end_is_refused() {
    let mut level = suppress();
    level.max_steps = 1;
    let mut env =
        WildfireEnv::from_state(scenario(level, flat(10), &[(AgentKind::Drone, (1, 1))])).unwrap();
    let r = env.step(&BTreeMap::new());
    assert!(
        r.truncated && !r.terminated,
        "suppress without fire never terminates by itself"
    );
    let err = env
        .parse_action("1", "[1, 2, 2, \"fly\"]")
        .unwrap_err()
        .to_string();
    assert!(err.contains("episode ended at step 1"), "{err}");
    let again = env.step(&BTreeMap::new());
    assert_eq!(again.events[0].kind, "episode_over");
    assert_eq!(env.world().step, 1);
}
