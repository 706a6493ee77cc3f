//! Task rules (docs/design/swarmbench.md §9): prey movement, capture and respawn; synchronization
//! alternation; foraging pickup and drop; transport escape scoring; the flocking score.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use colony_env_api::Environment;
use colony_swarmbench::env::TaskState;
use colony_swarmbench::messages::parse_action_text;
use colony_swarmbench::state::SwarmState;
use colony_swarmbench::world::MeshKind;
use colony_swarmbench::{Config, SwarmEnv, Task};

fn env(task: Task) -> SwarmEnv {
    let mut e = SwarmEnv::new(Config {
        task,
        ..Config::default()
    })
    .unwrap();
    e.reset(42);
    e
}

fn acts(e: &SwarmEnv, list: &[(usize, &str)]) -> BTreeMap<String, colony_swarmbench::reply::Reply> {
    list.iter()
        .map(|(i, a)| {
            (
                format!("Agent_{i}"),
                parse_action_text(a, e.config().task, 120).unwrap(),
            )
        })
        .collect()
}

/// Moves agents by editing the saved state (hand-made scenarios).
fn place(e: &SwarmEnv, moves: &[(usize, (i32, i32))]) -> SwarmEnv {
    let mut s: SwarmState = e.state();
    for &(i, (a, b)) in moves {
        s.agents.insert(format!("Agent_{i}"), [a, b]);
    }
    s.into_env().unwrap()
}

#[test]
fn prey_flees_two_cells_and_is_caught_then_respawns_static() {
    let mut e = env(Task::Pursuit);
    // Seed 42: prey at (8,6). The baseline danger is taken left of the prey (Q2):
    // danger(8,5) = 3 agents + 0.9 × 8 walls = 10.2, and no valid two-step destination is
    // lower (the best, (8,8), is 1 + 0.9 × 11 = 10.9), so the prey stays. With the prey's own
    // cell as baseline (14.7) it would flee to (8,8).
    let prey = e.special_mesh().unwrap();
    assert_eq!(e.world().meshes[prey].pos, (8, 6));
    let r = e.step(&BTreeMap::new());
    assert_eq!(e.world().meshes[prey].pos, (8, 6));
    assert!(r.events.is_empty());
    assert!((colony_swarmbench::pursuit::danger(e.world(), (8, 5)) - 10.2).abs() < 1e-9);
    // Surround the prey: wall below at row 9; agents left, right and above.
    let mut e = env(Task::Pursuit);
    let e2 = place(&e, &[(0, (8, 5)), (1, (8, 7)), (2, (7, 6))]);
    e = e2;
    let r = e.step(&BTreeMap::new());
    assert_eq!(e.score(), 1.0);
    assert!(r.events.iter().any(|ev| ev.kind == "capture"));
    assert_eq!(r.rewards["Agent_4"], 1.0);
    let m = &e.world().meshes[prey];
    assert!(m.present && m.is_static && m.kind == MeshKind::Prey);
    assert_eq!(e.world().symbol(m.pos), 'P');
}

#[test]
fn prey_moves_are_two_cells_to_a_safer_cell_than_its_left_neighbour() {
    let mut moves = 0;
    for seed in 0..10 {
        let mut e = env(Task::Pursuit);
        e.reset(seed);
        let names = e.agents();
        for step in 0..100u64 {
            let actions: BTreeMap<_, _> = names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    (
                        n.clone(),
                        e.random_action(n, step * 31 + i as u64 * 7 + seed),
                    )
                })
                .collect();
            let r = e.step(&actions);
            for ev in r.events.iter().filter(|ev| ev.kind == "prey_moved") {
                let from: (i32, i32) = serde_json::from_value(ev.detail["from"].clone()).unwrap();
                let to: (i32, i32) = serde_json::from_value(ev.detail["to"].clone()).unwrap();
                assert_eq!(
                    (from.0 - to.0).abs() + (from.1 - to.1).abs(),
                    2,
                    "{from:?} {to:?}"
                );
                // The prey's symbol does not count in the danger, so the post-step map works.
                let d = |c| colony_swarmbench::pursuit::danger(e.world(), c);
                assert!(d(to) < d((from.0, from.1 - 1)), "{from:?} -> {to:?}");
                moves += 1;
            }
        }
    }
    assert!(moves > 10, "only {moves} prey moves");
}

#[test]
fn synchronization_scores_alternating_unanimous_states() {
    let mut e = env(Task::Synchronization);
    // Lights on: Agent_2 and Agent_8. Both switch: all off → +1.
    e.step(&acts(&e, &[(2, "SWITCH"), (8, "SWITCH")]));
    assert_eq!(e.score(), 1.0);
    // All off again: no point (must alternate).
    e.step(&BTreeMap::new());
    assert_eq!(e.score(), 1.0);
    let all: Vec<(usize, &str)> = (0..10).map(|i| (i, "SWITCH")).collect();
    e.step(&acts(&e, &all));
    assert_eq!(e.score(), 2.0);
    assert_eq!(e.world().symbol(e.agent_pos(0)), 'A');
    e.step(&acts(&e, &all));
    assert_eq!(e.score(), 3.0);
    assert_eq!(e.world().symbol(e.agent_pos(0)), 'a');
}

#[test]
fn foraging_pickup_then_delivery() {
    // Seed 42: food at (1,1)-(2,2), nest at (1,7)-(2,8).
    let e = env(Task::Foraging);
    let mut e = place(&e, &[(0, (3, 2))]);
    e.step(&BTreeMap::new());
    let TaskState::Foraging { carrying } = e.task_state() else {
        panic!()
    };
    assert!(carrying[0]);
    assert_eq!(e.world().symbol((3, 2)), 'A');
    assert_eq!(e.score(), 0.0);
    let mut e = place(&e, &[(0, (3, 8))]);
    let r = e.step(&BTreeMap::new());
    assert_eq!(e.score(), 1.0);
    assert!(r.events.iter().any(|ev| ev.kind == "delivery"));
    e.step(&BTreeMap::new());
    assert_eq!(
        e.score(),
        1.0,
        "standing next to the nest scores once per item"
    );
    assert_eq!(e.world().symbol((3, 8)), 'a');
}

#[test]
fn transport_escape_scores_by_round() {
    // Seed 42: box variant 1, gap at row 9 cols 0..3. Remove the box by pushing it out is
    // long; instead place an agent in the gap row and walk it out.
    let e = env(Task::Transport);
    let mut s = e.state();
    let b = s.objects.iter().position(|m| m.id == "box").unwrap();
    s.objects[b].present = false;
    s.objects[b].pos = (100, 100);
    s.agents.insert("Agent_0".into(), [8, 1]);
    let mut e = s.into_env().unwrap();
    e.step(&BTreeMap::new()); // round 0
    let r = e.step(&acts(&e, &[(0, "DOWN")])); // round 1: (9,1) is a gap cell
    assert_eq!(e.agent_pos(0), (9, 1));
    assert!(r.events.is_empty());
    let r = e.step(&acts(&e, &[(0, "DOWN")])); // round 2: leaves the map
    assert!(e.is_escaped(0));
    assert_eq!(e.agent_pos(0), (10, 1));
    assert!((e.score() - 0.98).abs() < 1e-12);
    assert!(r.events.iter().any(|ev| ev.kind == "escape"));
    assert!(!r.terminated);
    assert_eq!(e.observe_text("Agent_0").unwrap(), "");
}

#[test]
fn flocking_score_is_the_best_decrease() {
    let e = env(Task::Flocking);
    // Form the 3x3 ring at rows 1..3, cols 4..6 with agents 0..7.
    let ring = [
        (1, 4),
        (1, 5),
        (1, 6),
        (2, 4),
        (2, 6),
        (3, 4),
        (3, 5),
        (3, 6),
    ];
    let mut s = e.state();
    for (i, c) in ring.iter().enumerate() {
        s.agents.insert(format!("Agent_{i}"), [c.0, c.1]);
    }
    s.agents.insert("Agent_8".into(), [7, 1]);
    s.agents.insert("Agent_9".into(), [7, 8]);
    let mut e = s.into_env().unwrap();
    assert_eq!(e.task_state(), &TaskState::Flocking { d0: 11, d: 11 });
    let r = e.step(&BTreeMap::new());
    assert_eq!(e.task_state(), &TaskState::Flocking { d0: 11, d: 0 });
    assert_eq!(e.score(), 11.0);
    assert!(r.terminated && !r.truncated);
}

#[test]
fn max_round_truncates() {
    let mut e = SwarmEnv::new(Config {
        max_round: 3,
        ..Config::default()
    })
    .unwrap();
    e.reset(1);
    let mut last = None;
    for _ in 0..3 {
        last = Some(e.step(&BTreeMap::new()));
    }
    let r = last.unwrap();
    assert!(r.truncated && !r.terminated);
}
