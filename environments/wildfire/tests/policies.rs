//! The scripted heuristic scores where the issue asks (Cut Trees, Transport, Rescue Known
//! Location) and beats Do-Nothing on a water suppress level.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use colony_env_api::{Environment, Policy};
use colony_wildfire::config::find_level;
use colony_wildfire::policies::HeuristicPolicy;
use colony_wildfire::WildfireEnv;

fn episode(level: &str, seed: u64, heuristic: bool) -> (f64, bool) {
    let mut env = WildfireEnv::new(find_level(level).unwrap()).unwrap();
    env.reset(seed);
    let mut policy = HeuristicPolicy;
    loop {
        let actions = if heuristic {
            policy.act(&env)
        } else {
            BTreeMap::new()
        };
        let r = env.step(&actions);
        if r.terminated || r.truncated {
            return (env.score(), r.terminated);
        }
    }
}

#[test]
fn heuristic_solves_cut_transport_and_known_rescue() {
    for (level, seed, max) in [
        ("cut_trees_sparse_small", 375, 18.0),
        ("cut_trees_sparse_small", 483, 18.0),
        ("cut_trees_lines_small", 9259, 30.0),
        ("transport_firefighters_small", 283, 6.0),
        ("rescue_civilians_known_small", 9502, 3.0),
        ("rescue_civilians_known_large", 7979, 9.0),
    ] {
        assert_eq!(
            episode(level, seed, true),
            (max, true),
            "{level} seed {seed}"
        );
        assert_eq!(
            episode(level, seed, false).0,
            0.0,
            "Do-Nothing scores 0 on {level}"
        );
    }
}

#[test]
fn heuristic_beats_do_nothing_on_extinguish() {
    let (h, _) = episode("suppress_fire_extinguish", 4936, true);
    let (n, _) = episode("suppress_fire_extinguish", 4936, false);
    assert!(h > n, "heuristic {h} vs noop {n}");
}
