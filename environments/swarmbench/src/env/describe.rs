//! What SwarmBench says about itself beyond its text protocol: the task's
//! targets as SwarmSys sub-goals, agent positions, the viewer's legend.
//!
//! Sub-goals (colony's decision; the SwarmSys paper has no embodied setting): Pursuit `prey`
//! (progress = team score, which rises when the prey is caught); Synchronization `lights`
//! (team score); Foraging `food` (agents carrying food) and `nest` (team score: deliveries);
//! Flocking `shape` (minus the distance D to the target shape); Transport `box` (minus the
//! box's distance to the nearest map edge) and `escape` (agents escaped).

use colony_env_api::{Environment, LegendEntry, SubGoal};

use super::{SwarmEnv, TaskState};

/// The task's sub-goals now (see the module docs).
pub fn sub_goals(s: &SwarmEnv) -> Vec<SubGoal> {
    let score = s.score();
    let world = s.world();
    let mesh_at = |id: &str| {
        world
            .meshes
            .iter()
            .find(|m| m.id == id && m.present)
            .map(|m| m.pos)
    };
    let goal = |id: &str, description: String, progress: f64| SubGoal {
        id: id.into(),
        description,
        progress,
        open: true,
    };
    match s.task_state() {
        TaskState::Pursuit { prey } => {
            let (r, c) = world.meshes.get(*prey).map_or((0, 0), |m| m.pos);
            vec![goal(
                "prey",
                format!("surround and capture the prey P at row {r}, col {c}"),
                score,
            )]
        }
        TaskState::Synchronization { .. } => vec![goal(
            "lights",
            "switch your light so that every agent's light is the same, alternating together"
                .into(),
            score,
        )],
        TaskState::Foraging { carrying } => {
            let food =
                mesh_at("food").map_or(String::new(), |(r, c)| format!(" at row {r}, col {c}"));
            vec![
                goal(
                    "food",
                    format!("pick up food from the food source F{food}"),
                    carrying.iter().filter(|&&c| c).count() as f64,
                ),
                goal(
                    "nest",
                    "carry the food you hold to the nest N".into(),
                    score,
                ),
            ]
        }
        TaskState::Flocking { d, .. } => vec![goal(
            "shape",
            format!("move so the team forms the target shape; distance to it now {d}"),
            -(*d as f64),
        )],
        TaskState::Transport { .. } => {
            let (h, w) = (world.height, world.width);
            let (box_text, edge) = match mesh_at("box") {
                Some((r, c)) => (
                    format!(" at row {r}, col {c}"),
                    r.min(c).min(h - 1 - r).min(w - 1 - c),
                ),
                None => (String::new(), 0),
            };
            let escaped = (0..s.num_agents()).filter(|&i| s.is_escaped(i)).count();
            vec![
                goal(
                    "box",
                    format!("push the box B{box_text} out through the exit"),
                    -f64::from(edge),
                ),
                goal(
                    "escape",
                    "leave the room through the exit once the way is clear".into(),
                    escaped as f64,
                ),
            ]
        }
    }
}

/// Where agent `agent` stands, as `at row R, col C`.
pub fn position(s: &SwarmEnv, agent: &str) -> Option<String> {
    let i = s.agent_index(agent).ok()?;
    let (r, c) = s.agent_pos(i);
    Some(format!("at row {r}, col {c}"))
}

/// The viewer's legend of [`SwarmEnv`]'s picture.
pub fn legend() -> Vec<LegendEntry> {
    vec![
        LegendEntry::new(".", "#f5f5f5", "#bdbdbd", "empty"),
        LegendEntry::new("W", "#455a64", "#eceff1", "wall"),
        LegendEntry::new("A0123456789$", "#1565c0", "#ffffff", "agent"),
        LegendEntry::new("P", "#e53935", "#ffffff", "prey"),
        LegendEntry::new("B", "#8d6e63", "#ffffff", "obstacle"),
        LegendEntry::new("F", "#f9a825", "#000000", "food"),
        LegendEntry::new("N", "#7b1fa2", "#ffffff", "nest"),
        LegendEntry::new("*", "#000000", "#ffffff", "outside / exit"),
    ]
}
