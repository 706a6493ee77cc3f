//! The built-in rule-based policies reach what a correct strategy should on the default
//! configuration (10 agents, 10×10, 100 rounds).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_env_api::boxed;
use colony_swarmbench::{Config, SwarmEnv, Task};

fn score(task: Task, policy: &str, seed: u64) -> f64 {
    let mut env = boxed(
        SwarmEnv::new(Config {
            task,
            ..Config::default()
        })
        .unwrap(),
    );
    env.reset(seed);
    let mut p = colony_swarmbench::entry()
        .make_policy(policy, seed)
        .unwrap();
    for _ in 0..100 {
        let actions = p.act_text(env.as_ref()).unwrap();
        let r = env.step_events(&actions).unwrap();
        if r.terminated || r.truncated {
            break;
        }
    }
    env.score()
}

#[test]
fn heuristics_beat_doing_nothing() {
    for seed in [27, 42] {
        let s = score(Task::Synchronization, "sync", seed);
        assert!(s >= 90.0, "sync {s}");
        let f = score(Task::Foraging, "forage", seed);
        assert!(f >= 3.0, "forage {f}");
        let fl = score(Task::Flocking, "flock", seed);
        assert!(fl >= 8.0, "flock {fl}");
        assert_eq!(score(Task::Foraging, "noop", seed), 0.0);
    }
}

#[test]
#[ignore = "prints the score table of the README (slow in debug builds)"]
fn score_table() {
    let policies = [
        (Task::Pursuit, "pursuit"),
        (Task::Synchronization, "sync"),
        (Task::Foraging, "forage"),
        (Task::Flocking, "flock"),
        (Task::Transport, "transport"),
    ];
    for (task, own) in policies {
        for policy in ["random", "noop", own] {
            let scores: Vec<f64> = (0..10).map(|s| score(task, policy, s)).collect();
            let mean = scores.iter().sum::<f64>() / scores.len() as f64;
            let sd = (scores.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / scores.len() as f64)
                .sqrt();
            println!("{:<16} {:<10} {mean:>7.2} ± {sd:.2}", task.name(), policy);
        }
    }
}
