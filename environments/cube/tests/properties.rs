//! Generation properties (docs/design/cube.md §11 C11), the shared conformance test, invariants
//! under random actions (proptest) and the heuristic baseline (paper Fig. 9).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::collections::HashSet;

use colony_cube::config::block_specs_for;
use colony_cube::heuristic::{run_heuristic, HeuristicPolicy};
use colony_cube::{CubeAction, CubeConfig, CubeEnv, Prim};
use colony_env_api::conformance::{check, Options};
use colony_env_api::{Environment, Policy};
use proptest::prelude::*;

fn env(n: u32, seed: u64) -> CubeEnv {
    CubeEnv::with_seed(CubeConfig::new(n), seed).unwrap()
}

#[test]
fn c11_generation_properties() {
    for n in [1u32, 2, 4, 8, 16, 20, 32] {
        let mut weights: Vec<u32> = block_specs_for(n)
            .iter()
            .flat_map(|&(w, c)| std::iter::repeat_n(w, c as usize))
            .collect();
        weights.sort_unstable_by(|a, b| b.cmp(a));
        for seed in 0..20 {
            let e = env(n, seed);
            let w = e.world();
            let k = w.k;
            assert_eq!(k, (n as i32).max(20));
            let got: Vec<u32> = w.blocks.iter().map(|b| b.weight).collect();
            assert_eq!(got, weights, "n={n} seed={seed}");
            for b in &w.blocks {
                let s = b.side();
                assert!(
                    b.row >= 1 && b.col >= 1 && b.row + s - 1 <= k - 3 && b.col + s - 1 <= k - 3
                );
            }
            for (i, a) in w.blocks.iter().enumerate() {
                for b in &w.blocks[i + 1..] {
                    let gap_r =
                        (b.row - (a.row + a.side() - 1)).max(a.row - (b.row + b.side() - 1));
                    let gap_c =
                        (b.col - (a.col + a.side() - 1)).max(a.col - (b.col + b.side() - 1));
                    assert!(gap_r.max(gap_c) >= 2, "n={n} seed={seed}: {a:?} {b:?}");
                }
            }
            let rows: HashSet<i32> = w.agents.iter().map(|a| a.0).collect();
            assert_eq!(rows.len(), n as usize);
            assert!(w.agents.iter().all(|a| a.1 == 0));
            assert_eq!(env(n, seed).world(), w);
        }
    }
    assert_ne!(env(8, 1).world(), env(8, 2).world());
}

#[test]
fn placement_retries_cover_hard_sizes() {
    for n in 22..=30 {
        for seed in 0..10 {
            CubeEnv::with_seed(CubeConfig::new(n), seed).unwrap();
        }
    }
}

#[test]
fn conformance() {
    check(|| env(8, 0), Options::default()).unwrap();
    check(
        || env(2, 0),
        Options {
            seed: 3,
            steps: 60,
            restore_at: 20,
        },
    )
    .unwrap();
}

#[test]
fn save_restore_mid_plan_continues_identically() {
    let mut a = env(4, 5);
    let mut policy = HeuristicPolicy;
    let drive = |e: &mut CubeEnv, p: &mut HeuristicPolicy| {
        let actions = p.act(e);
        e.step(&actions);
        serde_json::to_string(&e.state()).unwrap()
    };
    for _ in 0..17 {
        drive(&mut a, &mut policy);
    }
    let saved = serde_json::to_value(a.state()).unwrap();
    let mut b = env(4, 99);
    b.restore(serde_json::from_value(saved).unwrap()).unwrap();
    for _ in 0..30 {
        assert_eq!(drive(&mut a, &mut policy), drive(&mut b, &mut policy));
    }
}

fn check_invariants(e: &CubeEnv, agents: usize, delivered_before: u32) -> u32 {
    let w = e.world();
    assert_eq!(w.agents.len(), agents);
    let mut cells = HashSet::new();
    for &a in &w.agents {
        assert!(w.in_bounds(a));
        assert!(cells.insert(a), "two entities at {a:?}");
    }
    for b in &w.blocks {
        assert!(b.row >= 0 && b.col >= 0 && b.row + b.side() <= w.k && b.col + b.side() < w.k);
        for c in b.cells() {
            assert!(cells.insert(c), "two entities at {c:?}");
        }
    }
    let delivered: u32 = w.delivered.iter().map(|d| d.weight).sum();
    assert!(delivered >= delivered_before);
    delivered
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_actions_keep_invariants(
        n_index in 0usize..4,
        seed in 0u64..1000,
        codes in proptest::collection::vec(0u8..5, 0..2400),
    ) {
        let n = [2u32, 4, 8, 16][n_index];
        let mut e = env(n, seed);
        let mut delivered = 0;
        for chunk in codes.chunks(n as usize) {
            let prims: Vec<Prim> = chunk.iter().map(|&c| Prim::from_code(i64::from(c))).collect();
            if e.step_primitives(&prims).is_err() {
                break;
            }
            delivered = check_invariants(&e, n as usize, delivered);
        }
    }
}

#[test]
fn random_actions_through_the_trait_near_blocks() {
    // Agents bunched around blocks so pushes and chains actually happen.
    let mut rng = 7u64;
    for seed in 0..30 {
        let mut e = env(16, seed);
        let mut delivered = 0;
        for _ in 0..300 {
            let actions: BTreeMap<String, CubeAction> = e
                .agents()
                .into_iter()
                .map(|a| {
                    let d = colony_env_api::policy::splitmix64(&mut rng);
                    // Bias to RIGHT so blocks get pushed and delivered.
                    let act = if d.is_multiple_of(3) {
                        CubeAction::Prim(Prim::Right)
                    } else {
                        e.random_action(&a, d)
                    };
                    (a, act)
                })
                .collect();
            let r = e.step(&actions);
            delivered = check_invariants(&e, 16, delivered);
            if r.terminated || r.truncated {
                break;
            }
        }
    }
}

#[test]
fn heuristic_delivers_every_block_within_200_steps() {
    let mut report = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    for n in [1u32, 2, 4, 8] {
        let mut steps = Vec::new();
        for seed in 0..20 {
            let mut c = CubeConfig::new(n);
            c.max_steps = 200;
            let mut e = CubeEnv::with_seed(c, seed).unwrap();
            let blocks = e.world().blocks.len();
            let (t, delivered, done) = run_heuristic(&mut e, 200);
            if !done {
                failures.push(format!(
                    "n={n} seed={seed}: {delivered}/{blocks} blocks after {t} steps\n{}",
                    colony_cube::layout::render(e.world())
                ));
            }
            steps.push(t);
        }
        let mean = steps.iter().sum::<u32>() as f64 / steps.len() as f64;
        report.push(format!(
            "n={n}: mean {mean:.1} steps, max {}: {steps:?}",
            steps.iter().max().unwrap()
        ));
    }
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn invalid_states_name_the_field() {
    let mut e = env(4, 0);
    let mut s = serde_json::to_value(e.state()).unwrap();
    s["agents"][1] = s["agents"][0].clone();
    let err = e
        .restore(serde_json::from_value(s.clone()).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("agents[1]") && err.contains("agent 0"),
        "{err}"
    );
    let mut s2 = serde_json::to_value(e.state()).unwrap();
    s2["blocks"][0]["col"] = serde_json::json!(19);
    let err = e
        .restore(serde_json::from_value(s2).unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.contains("blocks[0]"), "{err}");
    // A minimal hand-written state (no executor, no config extras) loads.
    let minimal = serde_json::json!({
        "grid_size": 6, "t": 0, "agents": [[0, 0]],
        "blocks": [{"id": 0, "weight": 1, "row": 2, "col": 2}],
        "config": {"n": 1, "max_steps": 50, "step_cost": 0.01, "deliver_reward": 1.0}
    });
    e.restore(serde_json::from_value(minimal).unwrap()).unwrap();
    assert_eq!(e.agents(), vec!["0".to_string()]);
}
