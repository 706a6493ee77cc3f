//! What CUBE says about itself beyond its text protocol: one SwarmSys
//! sub-goal per block, agent positions, the delivered-weight metrics, the viewer's legend.
//!
//! Sub-goals (colony's decision; the SwarmSys paper has no embodied setting): `block<id>`,
//! progress = minus the block's distance to the goal column while it is on the board and its
//! weight once delivered (then closed), so a delivery counts as success and the trace's gain
//! is the delivered weight plus the distance.

use std::collections::BTreeMap;

use colony_env_api::{LegendEntry, SubGoal};

use crate::world::World;

/// The sub-goals of `w`, one per block (delivered ones closed), ordered by block id.
pub fn sub_goals(w: &World) -> Vec<SubGoal> {
    let goal = w.goal_column();
    let mut out: Vec<(u32, SubGoal)> = w
        .blocks
        .iter()
        .map(|b| {
            let d = w.distance_to_goal(b);
            let goal = SubGoal {
                id: format!("block{}", b.id),
                description: format!(
                    "deliver block {} (weight {}: {} agents must push it together) from row {}, \
                     col {} to the goal column {goal}; {d} pushes to go",
                    b.id, b.weight, b.weight, b.row, b.col
                ),
                progress: -f64::from(d),
                open: true,
            };
            (b.id, goal)
        })
        .collect();
    out.extend(w.delivered.iter().map(|d| {
        let goal = SubGoal {
            id: format!("block{}", d.id),
            description: format!("block {} (weight {}) is delivered", d.id, d.weight),
            progress: f64::from(d.weight),
            open: false,
        };
        (d.id, goal)
    }));
    out.sort_by_key(|(id, _)| *id);
    out.into_iter().map(|(_, g)| g).collect()
}

/// Where agent index `agent` stands, as `at row R, col C`.
pub fn position(w: &World, agent: &str) -> Option<String> {
    let (r, c) = agent.parse::<usize>().ok().and_then(|i| w.agents.get(i))?;
    Some(format!("at row {r}, col {c}"))
}

/// The paper's metrics of an episode (CUBE paper, Fig. 9): the blocks completed (delivered),
/// the delivered weight and the fraction of all weight delivered.
pub fn paper_metrics(w: &World) -> BTreeMap<String, f64> {
    let delivered: u32 = w.delivered.iter().map(|b| b.weight).sum();
    let left: u32 = w.blocks.iter().map(|b| b.weight).sum();
    BTreeMap::from([
        // The paper's Fig. 9 counts blocks brought home, whatever their weight.
        ("completed_blocks".to_string(), w.delivered.len() as f64),
        ("delivered_weight".to_string(), f64::from(delivered)),
        (
            "delivered_fraction".to_string(),
            f64::from(delivered) / f64::from((delivered + left).max(1)),
        ),
    ])
}

/// The viewer's legend of [`crate::env::CubeEnv`]'s picture.
pub fn legend() -> Vec<LegendEntry> {
    vec![
        LegendEntry::new(".", "#f5f5f5", "#bdbdbd", "floor"),
        LegendEntry::new("G", "#c8e6c9", "#2e7d32", "goal column"),
        LegendEntry::new("0123456789@", "#1565c0", "#ffffff", "agent"),
        LegendEntry::new("abcdefghijklmnopqrstuvwxyz#", "#8d6e63", "#ffffff", "block"),
    ]
}
