//! Observations (docs/design/cube.md §8): symbolic dictionary, its text form, the 5-channel grid.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use colony_cube::observation::CHANNELS;
use colony_cube::plan_parser::parse_plan;
use colony_env_api::Environment;
use common::layout;

#[test]
fn symbolic_observation_fields_and_text() {
    let mut e = layout(8, &[(0, 2, 2, 4), (1, 1, 6, 2)], &[(2, 3), (0, 0)]);
    e.submit_plan(1, parse_plan("idle(1)", 8).calls).unwrap();
    e.step_plans().unwrap();
    let o = e.symbolic_observation(1).unwrap();
    assert_eq!(
        (o.step, o.grid_size, o.goal_column, o.num_agents, o.self_id),
        (1, 8, 7, 2, 1)
    );
    assert_eq!(o.blocks[0].distance_to_goal, 2);
    assert_eq!(o.blocks[1].pos, (6, 2));
    assert_eq!(o.history.len(), 1);
    let json = serde_json::to_value(&o).unwrap();
    assert_eq!(json["agents"][0]["pos"], serde_json::json!([2, 3]));
    assert_eq!(json["agents"][0]["state"], "normal");
    assert_eq!(json["history"][0]["status"], "start");
    let text = e.observe_text("1").unwrap();
    assert!(text.contains("agent_0 at (2,3) [normal]"), "{text}");
    assert!(
        text.contains(
            "block 0: weight 2, top-left (2,4), cells rows 2-3 cols 4-5, distance to goal 2"
        ),
        "{text}"
    );
    assert!(text.contains("idle(steps=1)"), "{text}");
    assert!(e.observe_text("5").is_err());
}

#[test]
fn grid_channels() {
    let e = layout(8, &[(0, 2, 2, 4)], &[(2, 3), (0, 0)]);
    let g = e.grid_observation();
    assert_eq!(g.len(), 8 * 8 * CHANNELS);
    let at = |r: usize, c: usize, ch: usize| g[(r * 8 + c) * CHANNELS + ch];
    assert_eq!((at(2, 3, 0), at(2, 3, 3)), (1.0, 1.0));
    assert_eq!((at(0, 0, 0), at(0, 0, 3)), (1.0, 2.0));
    assert_eq!((at(3, 5, 1), at(3, 5, 4)), (2.0, 1.0));
    assert_eq!((at(5, 7, 2), at(5, 6, 2)), (1.0, 0.0));
    let a = e.grid_array();
    assert_eq!(a.shape(), &[8, 8, CHANNELS]);
    assert_eq!(a[[3, 5, 1]], 2.0);
    assert!(e.grid_bound() >= 10.0);
}

#[test]
fn render_uses_the_spec_notation() {
    let e = layout(8, &[(0, 2, 1, 2), (1, 1, 1, 4)], &[(1, 1), (2, 1), (2, 0)]);
    let text = e.render();
    assert_eq!(
        text,
        "   01234567\n0  .......G\n1  .0aab..G\n2  21aa...G\n3  .......G\n4  .......G\n5  .......G\n6  .......G\n7  .......G\n"
    );
}

#[test]
fn feedback_hook_reports_through_concepts() {
    use colony_cube::feedback::{Feedback, FeedbackHook};
    use colony_cube::{CubeEvent, Face, Prim};
    let mut e = layout(8, &[(0, 2, 2, 4)], &[(2, 3), (0, 0)]);
    e.set_feedback_hook(Some(FeedbackHook::new(|world, events| {
        let failed = events
            .iter()
            .any(|ev| matches!(ev, CubeEvent::PushFailed { .. }));
        let deficit = world.quorum_deficit(0, Face::Left).unwrap_or(0);
        if failed {
            vec![Feedback {
                agent: Some(0),
                text: format!("block 0 needs {deficit} more agent(s) on its left face"),
            }]
        } else {
            Vec::new()
        }
    })));
    e.step_primitives(&[Prim::Right, Prim::Stay]).unwrap();
    assert_eq!(e.last_feedback().len(), 1);
    assert!(e.last_feedback()[0].text.contains("needs 1 more"));
    let r = e.step(&Default::default());
    assert!(r.events.iter().all(|ev| ev.kind != "feedback"));
}
