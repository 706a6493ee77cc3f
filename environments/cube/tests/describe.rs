//! CUBE's self-description: one sub-goal per block, delivery raises it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_cube::config::CubeConfig;
use colony_cube::describe::{paper_metrics, sub_goals};
use colony_cube::env::CubeEnv;
use colony_cube::world::DeliveredBlock;
use colony_env_api::{Environment, SubGoals};

#[test]
fn one_goal_per_block_and_a_delivery_raises_progress() {
    let mut e = CubeEnv::new(CubeConfig::new(2)).unwrap();
    e.reset(0);
    let goals = e.sub_goals();
    assert_eq!(goals.len(), e.world().blocks.len());
    assert!(goals.iter().all(|g| g.open && g.progress <= 0.0));
    assert!(goals[0].description.contains("goal column"));
    let mut w = e.world().clone();
    let b = w.blocks.remove(0);
    w.delivered.push(DeliveredBlock {
        id: b.id,
        weight: b.weight,
        step: 1,
    });
    let after = sub_goals(&w);
    let g = after
        .iter()
        .find(|g| g.id == format!("block{}", b.id))
        .unwrap();
    assert!(!g.open && g.progress == f64::from(b.weight));
    assert!(g.progress > goals[0].progress);
    assert!(e.agent_position("0").unwrap().starts_with("at row"));
    assert_eq!(e.agent_position("x"), None);
    assert_eq!(paper_metrics(&w)["delivered_weight"], f64::from(b.weight));
}
