//! The shared conformance test for all five tasks, plus config and state errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_env_api::conformance::{check, Options};
use colony_env_api::{EnvParams, Environment};
use colony_swarmbench::{Config, SwarmEnv, Task};

#[test]
fn conformance_all_tasks() {
    for task in Task::ALL {
        for (agents, size) in [(10, 10), (6, 8)] {
            let cfg = Config {
                task,
                agents,
                height: size,
                width: size,
                max_round: 30,
                corruption: 0.2,
                delay_max: 4,
                ..Config::default()
            };
            check(
                || SwarmEnv::new(cfg.clone()).unwrap(),
                Options {
                    seed: 27,
                    steps: 40,
                    restore_at: 12,
                },
            )
            .unwrap_or_else(|e| panic!("{task:?} {agents}/{size}: {e}"));
        }
    }
}

#[test]
fn entry_rejects_unknown_keys_and_bad_values() {
    let entry = colony_swarmbench::entry();
    let err = |items: &[&str]| {
        entry
            .make(EnvParams::parse(items).unwrap())
            .err()
            .unwrap()
            .to_string()
    };
    assert!(err(&["tsak=pursuit"]).contains("tsak"));
    assert!(err(&["task=chess"]).contains("task"));
    assert!(err(&["size=4"]).contains("height"));
    assert!(err(&["task=sync", "agents=100"]).contains("agents"));
    let env = entry
        .make(EnvParams::parse(&["task=transport", "size=12", "agents=12"]).unwrap())
        .unwrap();
    assert_eq!(env.agents().len(), 12);
}

#[test]
fn state_errors_name_the_field() {
    let env = SwarmEnv::new(Config::default()).unwrap();
    let mut s = serde_json::to_value(env.state()).unwrap();
    s["agents"]["Agent_1"] = serde_json::json!([3, 1]);
    let mut e2 = SwarmEnv::new(Config::default()).unwrap();
    let err = e2
        .restore(serde_json::from_value(s).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("objects[") && err.contains("overlaps"),
        "{err}"
    );
    let mut s = serde_json::to_value(env.state()).unwrap();
    s["agents"]["Agent_99"] = serde_json::json!([3, 3]);
    let err = e2
        .restore(serde_json::from_value(s).unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.contains("agents.Agent_99"), "{err}");
}

#[test]
fn typed_step_random_equals_the_generic_path() {
    use std::collections::BTreeMap;
    for task in Task::ALL {
        let cfg = Config {
            task,
            max_round: 30,
            ..Config::default()
        };
        let (mut a, mut b) = (
            SwarmEnv::new(cfg.clone()).unwrap(),
            SwarmEnv::new(cfg).unwrap(),
        );
        let (mut ra, mut rb) = (5u64, 5u64);
        for _ in 0..30 {
            let done_a = a.step_random(&mut ra);
            let actions: BTreeMap<_, _> = b
                .agents()
                .into_iter()
                .map(|n| {
                    let act = b.random_action(&n, colony_env_api::policy::splitmix64(&mut rb));
                    (n, act)
                })
                .collect();
            let r = b.step(&actions);
            assert_eq!(done_a, r.terminated || r.truncated);
            assert_eq!(
                serde_json::to_string(&a.state()).unwrap(),
                serde_json::to_string(&b.state()).unwrap(),
                "{task:?}"
            );
        }
    }
}
