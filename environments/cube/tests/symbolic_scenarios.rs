//! docs/design/cube.md §11 C6 and S-scenarios: plans run through the executor (design §9.4).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use colony_cube::geometry::Prim::{Down, Left, Right, Stay, Up};
use colony_cube::plan_parser::parse_plan;
use colony_cube::{CubeEnv, Face, SymbolicCall};
use common::{block_at, layout};

fn plan(text: &str) -> Vec<SymbolicCall> {
    let p = parse_plan(text, 20);
    assert!(p.errors.is_empty(), "{p:?}");
    p.calls
}

fn outcome_of(env: &CubeEnv, agent: usize, action: &str) -> Option<(u32, String)> {
    env.executor()
        .history
        .iter()
        .find(|h| h.agent == agent && h.action == action && h.status == "end")
        .map(|h| (h.step, h.outcome.clone().unwrap_or_default()))
}

#[test]
fn c6_vanishing_face() {
    let mut e = layout(10, &[(0, 1, 2, 2), (1, 1, 2, 4)], &[(2, 1), (3, 6), (1, 6)]);
    e.submit_plan(0, plan("move(right, 1)")).unwrap();
    e.submit_plan(1, plan("move_to_block(block=1, face=left)"))
        .unwrap();
    e.submit_plan(2, plan("move_to_block(block=1, face=left)"))
        .unwrap();
    let s = e.step_plans().unwrap();
    assert_eq!(s.primitives, vec![Right, Left, Left]);
    assert_eq!(block_at(&e, 0), Some((2, 3)));
    assert_eq!(e.world().agents[1..], [(3, 5), (1, 5)]);
    assert!(e.world().face_cells(1, Face::Left).unwrap().is_empty());
    assert!(e.world().blocked(1, Face::Left).unwrap());
    e.step_plans().unwrap();
    for agent in [1, 2] {
        assert_eq!(
            outcome_of(&e, agent, "move_to_block"),
            Some((2, "failed:face_unavailable".into()))
        );
    }
}

#[test]
fn s1_and_s7_move_to_block_path_and_history() {
    let mut e = layout(8, &[(0, 2, 2, 4)], &[(0, 0)]);
    e.submit_plan(0, plan("move_to_block(block=0, face=left)"))
        .unwrap();
    let mut prims = Vec::new();
    let mut cells = Vec::new();
    for _ in 0..6 {
        prims.push(e.step_plans().unwrap().primitives[0]);
        cells.push(e.world().agents[0]);
    }
    assert_eq!(prims, vec![Down, Down, Right, Right, Right, Stay]);
    assert_eq!(cells[..5], [(1, 0), (2, 0), (2, 1), (2, 2), (2, 3)]);
    let h: Vec<(u32, &str, Option<&str>, Option<&str>)> = e
        .executor()
        .history
        .iter()
        .map(|h| {
            (
                h.step,
                h.status.as_str(),
                h.primitive.map(|p| p.name()),
                h.outcome.as_deref(),
            )
        })
        .collect();
    assert_eq!(h[0], (1, "start", Some("DOWN"), None));
    assert_eq!(h[1], (2, "in_progress", Some("DOWN"), None));
    assert_eq!(h[4], (5, "in_progress", Some("RIGHT"), None));
    assert_eq!(h[5], (6, "end", None, Some("success")));
    assert_eq!(h.len(), 6);
}

const S2_PLAN: &str =
    "move_to_block(block=0, face=left)\nrendezvous(block=0, face=left, count=2, timeout=10)\npush_block(block=0, steps=1)";

#[test]
fn s2_rendezvous_then_synchronized_push() {
    let mut e = layout(10, &[(0, 2, 2, 5)], &[(2, 4), (3, 2)]);
    e.submit_plan(0, plan(S2_PLAN)).unwrap();
    e.submit_plan(1, plan(S2_PLAN)).unwrap();
    assert_eq!(e.step_plans().unwrap().primitives, vec![Stay, Right]);
    assert_eq!(
        e.executor().agents[0].mode,
        colony_cube::executor::AgentMode::Rendezvous
    );
    assert_eq!(e.step_plans().unwrap().primitives, vec![Stay, Right]);
    assert_eq!(e.world().agents[1], (3, 4));
    assert_eq!(e.step_plans().unwrap().primitives, vec![Right, Right]);
    assert_eq!(block_at(&e, 0), Some((2, 6)));
    assert_eq!(e.world().agents, vec![(2, 5), (3, 5)]);
    e.step_plans().unwrap();
    assert_eq!(outcome_of(&e, 0, "push_block"), Some((4, "success".into())));
    assert_eq!(outcome_of(&e, 1, "push_block"), Some((4, "success".into())));
    assert_eq!(outcome_of(&e, 0, "rendezvous"), Some((3, "success".into())));
}

#[test]
fn s3_rendezvous_timeout() {
    let mut e = layout(10, &[(0, 2, 2, 5)], &[(2, 4)]);
    e.submit_plan(
        0,
        plan("rendezvous(block=0, face=left, count=2, timeout=3)\nidle(1)"),
    )
    .unwrap();
    for _ in 0..3 {
        assert_eq!(e.step_plans().unwrap().primitives, vec![Stay]);
        assert_eq!(
            e.executor().agents[0].mode,
            colony_cube::executor::AgentMode::Rendezvous
        );
    }
    e.step_plans().unwrap();
    assert_eq!(
        outcome_of(&e, 0, "rendezvous"),
        Some((4, "failed:timeout".into()))
    );
    let last = e.executor().history.last().unwrap();
    assert_eq!(
        (last.step, last.action.as_str(), last.status.as_str()),
        (4, "idle", "start")
    );
    assert_eq!(last.primitive, Some(Stay));
    assert_eq!(
        e.executor().agents[0].mode,
        colony_cube::executor::AgentMode::Normal
    );
}

#[test]
fn s4_wait_agents_releases_in_the_same_step() {
    let mut e = layout(10, &[(0, 1, 8, 5)], &[(1, 1), (3, 1), (5, 1)]);
    e.submit_plan(0, plan("wait_agents(2, 10)\nmove(right, 1)"))
        .unwrap();
    e.submit_plan(1, plan("idle(2)\nwait_agents(2, 10)\nmove(right, 1)"))
        .unwrap();
    e.submit_plan(2, plan("idle(5)")).unwrap();
    assert_eq!(e.step_plans().unwrap().primitives, vec![Stay, Stay, Stay]);
    assert_eq!(e.step_plans().unwrap().primitives, vec![Stay, Stay, Stay]);
    assert_eq!(e.step_plans().unwrap().primitives, vec![Right, Right, Stay]);
    assert_eq!(e.world().agents[..2], [(1, 2), (3, 2)]);
}

#[test]
fn s5_yield_block() {
    let mut e = layout(8, &[(0, 2, 2, 4)], &[(2, 3), (1, 4), (0, 0)]);
    e.submit_plan(0, plan("yield_block(block=0, steps=2)"))
        .unwrap();
    e.submit_plan(1, plan("yield_block(block=0, steps=1)"))
        .unwrap();
    assert_eq!(e.step_plans().unwrap().primitives[..2], [Left, Up]);
    assert_eq!(e.step_plans().unwrap().primitives[0], Left);
    assert_eq!(e.world().agents[0], (2, 1));
    e.step_plans().unwrap();
    assert_eq!(
        outcome_of(&e, 0, "yield_block"),
        Some((3, "success".into()))
    );
    // Diagonal tie goes to left/right.
    let mut e = layout(8, &[(0, 2, 2, 4)], &[(1, 3)]);
    e.submit_plan(0, plan("yield_block(block=0, steps=1)"))
        .unwrap();
    assert_eq!(e.step_plans().unwrap().primitives, vec![Left]);
}

#[test]
fn s6_push_block_preconditions_and_delivery() {
    let mut e = layout(8, &[(0, 2, 2, 4)], &[(0, 0)]);
    e.submit_plan(0, plan("push_block(block=0, steps=3)"))
        .unwrap();
    assert_eq!(e.step_plans().unwrap().primitives, vec![Stay]);
    assert_eq!(
        outcome_of(&e, 0, "push_block"),
        Some((1, "failed:not_aligned".into()))
    );
    let mut e = layout(6, &[(0, 1, 1, 3), (1, 1, 4, 1)], &[(1, 2)]);
    e.submit_plan(0, plan("push_block(block=0, steps=5)"))
        .unwrap();
    e.step_plans().unwrap();
    e.step_plans().unwrap();
    assert_eq!(block_at(&e, 0), None);
    e.step_plans().unwrap();
    assert_eq!(outcome_of(&e, 0, "push_block"), Some((3, "success".into())));
}

#[test]
fn argument_errors_gone_blocks_and_preemption() {
    let mut e = layout(8, &[(0, 2, 2, 4)], &[(0, 0)]);
    let bad = SymbolicCall::new(
        "move",
        [("direction", "sideways".into()), ("steps", 1.into())],
    );
    let gone = SymbolicCall::new(
        "move_to_block",
        [("block", 7.into()), ("face", "left".into())],
    );
    let zero = SymbolicCall::new("idle", [("steps", 0.into())]);
    let long = SymbolicCall::new("idle", [("steps", 9.into())]);
    e.submit_plan(0, vec![bad, gone, zero, long]).unwrap();
    e.step_plans().unwrap();
    let outcomes: Vec<Option<&str>> = e
        .executor()
        .history
        .iter()
        .map(|h| h.outcome.as_deref())
        .collect();
    assert_eq!(
        outcomes,
        vec![
            Some("failed:invalid_args"),
            Some("failed:block_gone"),
            Some("success"),
            None
        ]
    );
    e.submit_plan(0, plan("move(down, 1)")).unwrap();
    assert_eq!(e.step_plans().unwrap().primitives, vec![Down]);
    let h = &e.executor().history;
    assert_eq!(h[h.len() - 2].outcome.as_deref(), Some("failed:preempted"));
    assert!(e.submit_plan(3, vec![]).is_err());
}

#[test]
fn concepts_on_a_line_of_agents() {
    let e = layout(10, &[(0, 2, 2, 5)], &[(2, 4), (2, 3), (2, 1), (3, 4)]);
    let w = e.world();
    assert!(w.is_aligned_with_block(1, 0, Face::Left).unwrap());
    assert!(!w.is_aligned_with_block(2, 0, Face::Left).unwrap());
    assert_eq!(w.count_aligned_agents(0, Face::Left).unwrap(), 3);
    assert!(w.quorum_status(0, Face::Left).unwrap());
    assert_eq!(w.quorum_deficit(0, Face::Right).unwrap(), 2);
    assert!(w.blocked(0, Face::Left).unwrap());
    assert!(!w.blocked(0, Face::Right).unwrap());
    assert_eq!(w.block_progress(0).unwrap(), 3);
    assert_eq!(
        w.get_distance(colony_cube::Entity::Agent(0), colony_cube::Entity::Block(0))
            .unwrap(),
        1
    );
    let pos = w.all_aligned_positions(0, Face::Left).unwrap();
    assert_eq!(pos.len(), 10);
    assert_eq!(pos[0], (3, 4));
    assert_eq!(w.infer_push_direction(0, 0).unwrap(), Some(Right));
    assert_eq!(w.required_force(0, Right).unwrap(), 2);
    assert!(w.is_aligned_with_block(9, 0, Face::Left).is_err());
    assert!(w.block_progress(5).is_err());
}

#[test]
fn move_history_counts_displacing_moves() {
    let mut e = layout(8, &[(0, 1, 5, 5)], &[(0, 1)]);
    e.submit_plan(0, plan("move(left, 3)")).unwrap();
    for _ in 0..4 {
        e.step_plans().unwrap();
    }
    let end = e.executor().history.last().unwrap();
    assert_eq!((end.status.as_str(), end.moved_cells), ("end", Some(1)));
    assert_eq!(e.world().agents[0], (0, 0));
}

#[test]
fn abort_on_failure_stops_the_plan() {
    let mut e = layout(8, &[(0, 2, 2, 4)], &[(0, 0)]);
    e.submit_plan_with(0, plan("push_block(block=0, steps=1)\nmove(down, 2)"), true)
        .unwrap();
    assert_eq!(e.step_plans().unwrap().primitives, vec![Stay]);
    assert!(e.executor().agents[0].is_exhausted());
    let mut e = layout(8, &[(0, 2, 2, 4)], &[(0, 0)]);
    e.submit_plan(0, plan("push_block(block=0, steps=1)\nmove(down, 2)"))
        .unwrap();
    assert_eq!(e.step_plans().unwrap().primitives, vec![Down]);
}
