//! Every level configuration generates for its listed seeds (docs/design/wildfire.md §12.1, §12.2);
//! W12 target properties; the shared conformance test; property tests of invariants under random
//! play.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use colony_env_api::conformance::{check, Options};
use colony_env_api::Environment;
use colony_wildfire::config::{find_level, levels, LevelKind};
use colony_wildfire::grid::{Fire, Land};
use colony_wildfire::setup::new_episode;
use colony_wildfire::sim::score;
use colony_wildfire::WildfireEnv;
use proptest::prelude::*;

#[test]
fn all_17_levels_generate_for_their_seeds() {
    let all = levels();
    assert_eq!(all.len(), 17);
    for l in &all {
        for &seed in &l.seeds {
            let s = new_episode(l, seed).unwrap_or_else(|e| panic!("{} seed {seed}: {e}", l.id));
            let g = &s.grid;
            assert_eq!(s.agents.len() as u32, l.team_size());
            assert!(g.contains(s.targets.spawn));
            match l.kind {
                LevelKind::Cut => {
                    let cut = l.cut.unwrap();
                    assert_eq!(
                        s.targets.cut_cells.len() as u32,
                        cut.count * cut.length,
                        "{}",
                        l.id
                    );
                    let distinct: BTreeSet<_> = s.targets.cut_cells.iter().collect();
                    assert_eq!(
                        distinct.len(),
                        s.targets.cut_cells.len(),
                        "targets disjoint"
                    );
                    assert!(!distinct.contains(&s.targets.spawn));
                    for &c in &s.targets.cut_cells {
                        let i = g.idx(c);
                        assert_eq!(g.trees[i], 3, "{} seed {seed}: target {c:?} dense", l.id);
                        assert!(!g.building[i] && g.land[i] != Land::Water);
                        if !cut.lines && s.targets.fallbacks == 0 {
                            let sp = s.targets.spawn;
                            let sf = f64::from(l.map_size);
                            assert!(f64::from((c.0 - sp.0).abs()) > 0.1 * sf);
                            assert!(f64::from((c.1 - sp.1).abs()) > 0.1 * sf);
                        }
                    }
                    assert_eq!(score(&s), 0.0, "Do-Nothing starts at 0");
                    assert_eq!(3.0 * s.targets.cut_cells.len() as f64, l.max_score);
                }
                LevelKind::Scout | LevelKind::Suppress | LevelKind::Full => {
                    let f = s.targets.fire.unwrap();
                    assert_eq!(g.fire[g.idx(f)], Fire::Ignited);
                    assert_eq!(s.targets.water.is_some(), l.water);
                    if let Some(w) = s.targets.water {
                        assert_eq!(g.land[g.idx(w)], Land::Water);
                        assert_ne!(w, f);
                    }
                }
                LevelKind::Transport => assert!(s.targets.transport.is_some()),
                LevelKind::Rescue => {
                    assert!(s.targets.rescue.is_some());
                    assert_eq!(s.civilians.len() as u32, l.civilians.0 * l.civilians.1);
                }
            }
            if l.kind == LevelKind::Full {
                assert_eq!(s.civilians.len(), 5);
            }
        }
    }
}

#[test]
fn generation_is_deterministic_per_seed() {
    let l = find_level("suppress_fire_contain").unwrap();
    assert_eq!(new_episode(&l, 733).unwrap(), new_episode(&l, 733).unwrap());
    assert_ne!(
        new_episode(&l, 733).unwrap().grid,
        new_episode(&l, 734).unwrap().grid
    );
}

#[test]
fn shared_conformance() {
    for level in [
        "cut_trees_lines_small",
        "rescue_civilians_known_small",
        "suppress_fire_extinguish",
        "transport_firefighters_small",
    ] {
        let l = find_level(level).unwrap();
        check(|| WildfireEnv::new(l.clone()).unwrap(), Options::default())
            .unwrap_or_else(|e| panic!("{level}: {e}"));
    }
}

fn random_rollout(
    level: &str,
    seed: u64,
    steps: usize,
    check_each: impl Fn(&WildfireEnv, &WildfireEnv),
) {
    let l = find_level(level).unwrap();
    let mut env = WildfireEnv::new(l).unwrap();
    env.reset(seed);
    let mut rng = seed;
    for _ in 0..steps {
        let before = env.clone();
        let actions = env.random_actions(&mut rng);
        let r = env.step(&actions);
        check_each(&before, &env);
        if r.terminated || r.truncated {
            break;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// No negative trees, burned cells never revert, agents stay on the map, scores in bounds.
    #[test]
    fn invariants_under_random_play(seed in 0u64..10_000, level in 0usize..17) {
        let id = levels()[level].id.clone();
        random_rollout(&id, seed, 12, |before, after| {
            let (b, a) = (before.world(), after.world());
            let size = a.grid.size as f64;
            for i in 0..a.grid.len() {
                assert!(a.grid.trees[i] <= b.grid.trees[i], "trees never grow");
                let (fb, fa) = (b.grid.fire[i], a.grid.fire[i]);
                if fb.is_fire_seen() {
                    assert!(fa.is_fire_seen(), "{id}: burned cell reverted {fb:?} -> {fa:?}");
                }
                if fb == Fire::Extinguished {
                    assert_eq!(fa, Fire::Extinguished);
                }
            }
            for ag in &a.agents {
                assert!((0.0..size).contains(&ag.px) && (0.0..size).contains(&ag.py));
            }
            let s = score(a);
            let l = &a.level;
            if l.kind.is_finite() {
                assert!((0.0..=l.max_score).contains(&s), "{id}: score {s}");
                assert!(s >= score(b) || l.kind == LevelKind::Cut, "monotone");
            } else {
                assert!(s <= 0.0 && s <= score(b), "{id}: open-ended score {s}");
            }
        });
    }
}

type Breaker = Box<dyn Fn(&mut colony_wildfire::state::WildfireState)>;

#[test]
fn restore_rejects_bad_states_naming_the_field() {
    let l = find_level("suppress_fire_extinguish").unwrap();
    let mut env = WildfireEnv::new(l).unwrap();
    env.reset(2994);
    let good = env.state();
    let cases: Vec<(Breaker, &str)> = vec![
        (
            Box::new(|s| s.targets.water = Some((60, 3))),
            "targets.water",
        ),
        (
            Box::new(|s| s.grid.trees.pop().map(|_| ()).unwrap_or(())),
            "grid.trees",
        ),
        (Box::new(|s| s.agents[2].px = -1.0), "agents[2].px"),
        (Box::new(|s| s.agents[0].id = 7), "agents[0].id"),
        (Box::new(|s| s.team_map[5] = 99), "team_map[5]"),
    ];
    for (break_it, field) in cases {
        let mut bad = good.clone();
        break_it(&mut bad);
        let err = env.restore(bad).unwrap_err().to_string();
        assert!(err.contains(field), "{field}: {err}");
    }
    env.restore(good).unwrap();
}

/// Setup draws from .NET's seeded `System.Random` in WILDFIRE-ORCH's order
/// (`GameManager.SetUpGame`): the spawn is the first two draws,
/// `Next((int)(S*0.8f)) + (int)(S*0.1f)` each, and a Suppress level's fire is the first later
/// pair that meets the official conditions (more than 0.2·S from the spawn on one axis, on a
/// burnable cell of the map as generated).
#[test]
fn setup_draws_follow_the_official_order_on_dotnet_random() {
    use colony_wildfire::dotnet_random::DotNetRandom;
    use colony_wildfire::generate::generate_grid;
    use colony_wildfire::grid::Fire;
    use colony_wildfire::setup::new_episode;
    let level = colony_wildfire::config::find_level("suppress_fire_extinguish").unwrap();
    let s = level.map_size as i32;
    let band = |f: f32| (s as f32 * f) as i32;
    for seed in [0u64, 1, 150, 4847, 8208] {
        let state = new_episode(&level, seed).unwrap();
        let grid = generate_grid(s as usize, level.veg_offset, seed);
        let mut r = DotNetRandom::new(seed as i32);
        let mut draw = || {
            (
                r.next_below(band(0.8)) + band(0.1),
                r.next_below(band(0.8)) + band(0.1),
            )
        };
        let spawn = draw();
        assert_eq!(state.targets.spawn, spawn, "seed {seed}");
        let limit = 0.2 * s as f64;
        let far = |a: i32, b: i32| f64::from((a - b).abs()) > limit;
        let fire = (0..10_000)
            .map(|_| draw())
            .find(|&c| {
                c != spawn
                    && (far(c.0, spawn.0) || far(c.1, spawn.1))
                    && grid.fire[grid.idx(c)] == Fire::Burnable
            })
            .unwrap();
        assert_eq!(state.targets.fire, Some(fire), "seed {seed}");
    }
}
