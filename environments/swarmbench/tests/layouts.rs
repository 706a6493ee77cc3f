//! Seed-compatible layouts: the seed-42 maps and agent positions of docs/design/swarmbench.md
//! Appendix A.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_swarmbench::env::TaskState;
use colony_swarmbench::{Config, SwarmEnv, Task};

const MAPS: [&str; 10] = [
    "WWWWWWWWWW   WWWWWWWWWW       WWWWWWWWWW   WWWWWWWWWW   WWWWWWWWWW",
    "WAA..A...W   W........W       WFF.Wa.NNW   W.A....A.W   WA..AA...W",
    "WAA..A...W   Waa......W       WFFaW.aNNW   WAA......W   W..A..A..W",
    "WA.......W   Wa...a...W       W...W....W   W...A....W   W........W",
    "W.A..A...W   WA..a..a.W       W.aaW....W   WA..AA.A.W   W.AAA....W",
    "W.A......W   W.......aW       W...W.a..W   W.......AW   WA....A..W",
    "W........W   W...A..a.W       W...W....W   W........W   W.BBB....W",
    "W........W   W........W       W.aaa....W   W........W   W.BBB....W",
    "W.....P..W   W........W       W...a....W   W........W   W.BBB....W",
    "WWWWWWWWWW   WWWWWWWWWW       WWWWWWWWWW   WWWWWWWWWW   BBBBWWWWWW",
];

const POSITIONS: [[(i32, i32); 10]; 5] = [
    [
        (3, 1),
        (2, 2),
        (1, 2),
        (1, 5),
        (4, 5),
        (1, 1),
        (2, 1),
        (5, 2),
        (2, 5),
        (4, 2),
    ],
    [
        (2, 1),
        (4, 4),
        (4, 1),
        (4, 7),
        (5, 8),
        (3, 1),
        (6, 7),
        (3, 5),
        (6, 4),
        (2, 2),
    ],
    [
        (2, 3),
        (7, 2),
        (4, 2),
        (7, 4),
        (8, 4),
        (1, 5),
        (7, 3),
        (5, 6),
        (4, 3),
        (2, 6),
    ],
    [
        (1, 2),
        (4, 5),
        (3, 4),
        (2, 2),
        (1, 7),
        (2, 1),
        (4, 4),
        (4, 1),
        (4, 7),
        (5, 8),
    ],
    [
        (5, 1),
        (4, 4),
        (2, 3),
        (1, 1),
        (4, 2),
        (1, 4),
        (1, 5),
        (5, 6),
        (4, 3),
        (2, 6),
    ],
];

fn env(task: Task, seed: i64) -> SwarmEnv {
    let mut e = SwarmEnv::new(Config {
        task,
        ..Config::default()
    })
    .unwrap();
    e.reset_seed(seed);
    e
}

#[test]
fn appendix_a_seed_42_maps_and_positions() {
    for (t, task) in Task::ALL.into_iter().enumerate() {
        let e = env(task, 42);
        let want: Vec<String> = MAPS
            .iter()
            .map(|line| line.split_whitespace().nth(t).unwrap().to_string())
            .collect();
        assert_eq!(e.world().grid_rows(), want, "{task:?}");
        let got: Vec<(i32, i32)> = (0..10).map(|i| e.agent_pos(i)).collect();
        assert_eq!(got, POSITIONS[t].to_vec(), "{task:?}");
    }
}

#[test]
fn synchronization_lights_and_flocking_start() {
    let e = env(Task::Synchronization, 42);
    let TaskState::Synchronization { lights, prev } = e.task_state() else {
        panic!("not sync")
    };
    let on: Vec<usize> = (0..10).filter(|&i| lights[i]).collect();
    assert_eq!((on, *prev), (vec![2, 8], -1));
    // Flocking ignores the seed (Q1); initial D = 11.
    let f = env(Task::Flocking, 7);
    assert_eq!(
        f.world().grid_rows(),
        env(Task::Flocking, 42).world().grid_rows()
    );
    assert_eq!(f.task_state(), &TaskState::Flocking { d0: 11, d: 11 });
}

#[test]
fn reset_is_reproducible_and_seeds_differ() {
    for task in Task::ALL {
        let a = env(task, 27);
        let b = env(task, 27);
        assert_eq!(a.world().grid_rows(), b.world().grid_rows());
        if task != Task::Flocking {
            assert_ne!(
                a.world().grid_rows(),
                env(task, 42).world().grid_rows(),
                "{task:?}"
            );
        }
    }
}
