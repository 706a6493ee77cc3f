//! docs/design/cube.md §11 C-scenarios: primitives applied directly to explicit layouts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use colony_cube::geometry::Prim::{self, Down, Left, Right, Stay, Up};
use colony_cube::{CubeEvent, Face};
use common::{ascii, block_at, kinds, layout};

#[test]
fn c1_successful_chain() {
    let mut env = ascii("   01234567\n0  .......G\n1  .0aab..G\n2  21aa...G\n3  .......G\n");
    let r = env.step_primitives(&[Right, Right, Right]).unwrap();
    assert_eq!(block_at(&env, 0), Some((1, 3)));
    assert_eq!(block_at(&env, 1), Some((1, 5)));
    assert_eq!(env.world().agents, vec![(1, 2), (2, 2), (2, 1)]);
    assert!((r.reward + 0.01).abs() < 1e-12);
    match &env.last_events()[0] {
        CubeEvent::Push {
            force,
            required,
            chain,
            ..
        } => {
            assert_eq!((*force, *required), (3, 3));
            assert_eq!(chain, &vec![0, 1]);
        }
        e => panic!("{e:?}"),
    }
}

const C2: &str =
    "   012345678\n0  ........G\n1  .0aaa...G\n2  31aaab..G\n3  .2aaa...G\n4  ........G\n";

#[test]
fn c2a_failed_chain() {
    let mut env = ascii(C2);
    env.step_primitives(&[Right, Right, Right, Stay]).unwrap();
    assert_eq!(block_at(&env, 0), Some((1, 2)));
    assert_eq!(block_at(&env, 1), Some((2, 5)));
    assert_eq!(env.world().agents, vec![(1, 1), (2, 1), (3, 1), (2, 0)]);
    assert!(kinds(&env).contains(&"insufficient_force_for_chain"));
}

#[test]
fn c2b_four_agents_move_the_chain() {
    let mut env = ascii(C2);
    env.step_primitives(&[Right, Right, Right, Right]).unwrap();
    assert_eq!(block_at(&env, 0), Some((1, 3)));
    assert_eq!(block_at(&env, 1), Some((2, 6)));
    assert_eq!(env.world().agents, vec![(1, 2), (2, 2), (3, 2), (2, 1)]);
}

#[test]
fn c3_cell_race_smallest_index_wins() {
    let mut env = ascii("   012345\n1  ..0..G\n2  .a.b.G\n3  ..1..G\n");
    assert_eq!(env.world().k, 6);
    env.step_primitives(&[Down, Up]).unwrap();
    assert_eq!(env.world().agents, vec![(2, 2), (3, 2)]);
    assert!(kinds(&env).contains(&"cell_race"));
    let mut env = ascii("   012345\n1  ..1..G\n2  .a.b.G\n3  ..0..G\n");
    env.step_primitives(&[Up, Down]).unwrap();
    assert_eq!(env.world().agents, vec![(2, 2), (1, 2)]);
}

#[test]
fn c4_agent_collisions() {
    let blocks = [(0, 1, 4, 0)];
    let mut e = layout(5, &blocks, &[(1, 1), (1, 2)]);
    e.step_primitives(&[Stay, Left]).unwrap();
    assert_eq!(e.world().agents, vec![(1, 1), (1, 2)]);
    let mut e = layout(5, &blocks, &[(1, 1), (1, 2)]);
    e.step_primitives(&[Left, Left]).unwrap();
    assert_eq!(e.world().agents, vec![(1, 0), (1, 2)]);
    let mut e = layout(5, &blocks, &[(1, 1), (1, 2)]);
    e.step_primitives(&[Right, Left]).unwrap();
    assert_eq!(e.world().agents, vec![(1, 1), (1, 2)]);
    let mut e = layout(5, &blocks, &[(0, 0), (2, 3)]);
    e.step_primitives(&[Up, Right]).unwrap();
    assert_eq!(e.world().agents, vec![(0, 0), (2, 4)]);
    assert!(kinds(&e).contains(&"move_into_wall"));
}

#[test]
fn c5_boundary_block() {
    let w = layout(8, &[(0, 3, 0, 0)], &[(3, 0)]);
    let world = w.world();
    assert!(world.face_cells(0, Face::Left).unwrap().is_empty());
    assert!(world.face_cells(0, Face::Top).unwrap().is_empty());
    assert!(world.blocked(0, Face::Left).unwrap());
    assert!(world.blocked(0, Face::Top).unwrap());
    assert!(world
        .all_aligned_positions(0, Face::Left)
        .unwrap()
        .is_empty());
    let mut e = layout(8, &[(0, 3, 0, 0)], &[(3, 0), (3, 1), (3, 2)]);
    e.step_primitives(&[Up, Up, Up]).unwrap();
    assert_eq!(block_at(&e, 0), Some((0, 0)));
    assert_eq!(
        kinds(&e),
        vec![
            "blocked_destination",
            "move_into_block",
            "move_into_block",
            "move_into_block"
        ]
    );
    let mut e = layout(8, &[(0, 3, 0, 0)], &[(0, 3), (1, 3), (2, 3)]);
    e.step_primitives(&[Left, Left, Left]).unwrap();
    assert_eq!(block_at(&e, 0), Some((0, 0)));
    assert!(kinds(&e).contains(&"blocked_destination"));
}

#[test]
fn c7a_delivery_and_reward() {
    let mut e = layout(6, &[(0, 1, 1, 4), (1, 1, 4, 1)], &[(1, 3), (3, 0)]);
    let r = e.step_primitives(&[Right, Stay]).unwrap();
    assert_eq!(block_at(&e, 0), None);
    assert_eq!(e.world().agents[0], (1, 4));
    assert!((r.reward - 0.49).abs() < 1e-12);
    assert!(!r.terminated);
    assert_eq!(e.world().delivered[0].step, 1);
    assert!(kinds(&e).contains(&"delivered"));
}

#[test]
fn c7b_two_deliveries_in_one_step_terminate() {
    let mut e = layout(6, &[(0, 1, 1, 4), (1, 2, 3, 3)], &[(1, 3), (3, 2), (4, 2)]);
    let r = e.step_primitives(&[Right, Right, Right]).unwrap();
    assert!((r.delivered_value - 3.0).abs() < 1e-12);
    assert!((r.reward - 0.99).abs() < 1e-12);
    assert!(r.terminated && !r.truncated);
    assert!((e.world().score - 3.0).abs() < 1e-12);
    assert_eq!(
        e.step_primitives(&[]),
        Err(colony_cube::CubeError::EpisodeOver)
    );
}

#[test]
fn c8_destination_occupied_by_a_leaving_agent() {
    let mut e = layout(6, &[(0, 1, 1, 2)], &[(1, 1), (1, 3)]);
    e.step_primitives(&[Right, Right]).unwrap();
    assert_eq!(block_at(&e, 0), Some((1, 2)));
    assert_eq!(e.world().agents, vec![(1, 1), (1, 4)]);
    assert!(kinds(&e).contains(&"blocked_destination"));
}

#[test]
fn c9_lines() {
    let mut e = layout(9, &[(0, 1, 1, 4)], &[(1, 3), (1, 1)]);
    e.step_primitives(&[Right, Right]).unwrap();
    assert_eq!(block_at(&e, 0), Some((1, 5)));
    assert_eq!(e.world().agents, vec![(1, 4), (1, 2)]);
    let mut e = layout(9, &[(0, 2, 1, 4)], &[(1, 3), (1, 2)]);
    e.step_primitives(&[Right, Right]).unwrap();
    assert_eq!(block_at(&e, 0), Some((1, 5)));
    assert_eq!(e.world().agents, vec![(1, 4), (1, 3)]);
    let mut e = layout(9, &[(0, 2, 1, 4)], &[(1, 3), (1, 2), (1, 1)]);
    e.step_primitives(&[Right, Stay, Right]).unwrap();
    assert_eq!(block_at(&e, 0), Some((1, 4)));
    assert_eq!(e.world().agents, vec![(1, 3), (1, 2), (1, 1)]);
    assert!(kinds(&e).contains(&"insufficient_force"));
}

#[test]
fn c10_resolution_order() {
    let mut e = layout(6, &[(0, 1, 2, 2)], &[(2, 1), (2, 3)]);
    e.step_primitives(&[Right, Left]).unwrap();
    assert_eq!(block_at(&e, 0), Some((2, 2)));
    assert_eq!(e.world().agents, vec![(2, 1), (2, 3)]);
    let mut e = layout(6, &[(0, 1, 2, 2)], &[(1, 2), (2, 1)]);
    e.step_primitives(&[Down, Right]).unwrap();
    assert_eq!(block_at(&e, 0), Some((3, 2)));
    assert_eq!(e.world().agents, vec![(2, 2), (2, 1)]);
}

#[test]
fn c12_force() {
    let mut e = layout(10, &[(0, 1, 2, 3), (1, 1, 2, 4)], &[(2, 2)]);
    e.step_primitives(&[Right]).unwrap();
    assert_eq!(block_at(&e, 0), Some((2, 3)));
    assert_eq!(
        kinds(&e),
        vec!["insufficient_force_for_chain", "move_into_block"]
    );
    let mut e = layout(10, &[(0, 1, 2, 3), (1, 1, 2, 4)], &[(2, 2), (2, 1)]);
    e.step_primitives(&[Right, Right]).unwrap();
    assert_eq!(
        (block_at(&e, 0), block_at(&e, 1)),
        (Some((2, 4)), Some((2, 5)))
    );
    assert_eq!(e.world().agents, vec![(2, 3), (2, 2)]);
    let mut e = layout(10, &[(0, 3, 2, 3)], &[(2, 2), (3, 2), (4, 2)]);
    e.step_primitives(&[Right, Right, Right]).unwrap();
    assert_eq!(block_at(&e, 0), Some((2, 4)));
    let mut e = layout(10, &[(0, 2, 2, 7)], &[(2, 6), (3, 6), (0, 0)]);
    let r = e.step_primitives(&[Right, Right, Stay]).unwrap();
    assert!((r.reward - (-0.01 + 2.0 / 3.0)).abs() < 1e-12);
    assert!(r.terminated);
}

#[test]
fn perpendicular_pushes_in_one_step() {
    // Design §5.2: the UP pass brings the block in front of the RIGHT pusher.
    let mut e = layout(8, &[(0, 1, 2, 2)], &[(3, 2), (1, 1)]);
    e.step_primitives(&[Up, Right]).unwrap();
    assert_eq!(block_at(&e, 0), Some((1, 3)));
}

#[test]
fn actions_out_of_range_and_too_many() {
    assert_eq!(Prim::from_code(9), Stay);
    let mut e = layout(6, &[(0, 1, 2, 2)], &[(0, 0)]);
    assert!(e.step_primitives(&[Stay, Stay]).is_err());
    assert_eq!(e.world().t, 0);
    let e2 = layout(6, &[], &[(0, 0)]);
    let mut e2 = e2;
    assert!(e2.step_primitives(&[]).unwrap().terminated);
}
