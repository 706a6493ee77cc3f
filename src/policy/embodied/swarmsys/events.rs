//! SwarmSys events on embodied environments: each environment's sub-goals, read from its
//! public state (issue 15 part 4; colony's decisions, the paper has no embodied setting).
//!
//! A sub-goal has a stable id, a description (what is embedded and put in the agent's
//! prompt), an `open` flag (only open sub-goals are matched) and a **progress** number,
//! larger is better. An agent matched to a sub-goal at one decision succeeds when, at the
//! next decision, that sub-goal's progress is larger than when it was assigned; closed
//! sub-goals stay listed with their final progress, so completing one counts as success.
//!
//! Per environment:
//! - **CUBE:** one sub-goal per block, `block<id>`: progress is minus its distance to the
//!   goal column while it is on the board, and its weight once delivered (closed), so a
//!   delivery is success and the trace's gain is the delivered weight plus the distance.
//! - **Wildfire:** by level kind. Fires (suppress, scout and full levels): the map cut into
//!   four quarters, `fire-nw` … `fire-se`, progress = minus the burning cells there (cells
//!   suppressed or burnt out raise it), open while something burns; civilians (rescue and
//!   full levels): `civilian<k>`, progress 0 free, 1 carried, 2 rescued, open while alive
//!   and not rescued; areas to scout (scout and full levels): `scout-nw` … `scout-se`,
//!   progress = the environment's concurrent scout count, open while no fire was seen in that
//!   quarter; trees to cut (cut levels): `cut-nw` … `cut-se`, progress = minus the wooded
//!   target cells left there; transport levels: `transport`, progress = agents transported.
//! - **SwarmBench:** the task's targets. Pursuit: `prey` (progress = team score, which rises
//!   when the prey is caught); Synchronization: `lights` (team score); Foraging: `food`
//!   (progress = agents carrying food) and `nest` (team score: deliveries); Flocking: `shape`
//!   (progress = minus the distance D to the target shape); Transport: `box` (minus the box's
//!   distance to the nearest map edge) and `escape` (agents escaped).
//!
//! Any other environment has no sub-goals: [`sub_goals`] returns `None` and the policy
//! refuses it with [`super::super::EmbodiedError::Unsupported`].

use colony_env_api::DynEnvironment;

/// One sub-goal of the environment at one decision (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct SubGoal {
    /// Stable id (`block3`, `fire-nw`, `prey`, …).
    pub id: String,
    /// What the agent is asked to do, as prompt text.
    pub description: String,
    /// Larger is better; success = an increase since assignment.
    pub progress: f64,
    /// Only open sub-goals are matched.
    pub open: bool,
}

/// The environments that have sub-goals (ids), for error messages and the registry check.
pub const SUPPORTED_ENVS: &[&str] = &["cube-v0", "wildfire-v0", "swarmbench-v0"];

/// The sub-goals of `env` now, in a stable order; `None` when the environment exposes none.
pub fn sub_goals(env: &dyn DynEnvironment) -> Option<Vec<SubGoal>> {
    let any = env.as_any();
    if let Some(c) = any.downcast_ref::<colony_cube::CubeEnv>() {
        return Some(cube(c.world()));
    }
    if let Some(w) = any.downcast_ref::<colony_wildfire::WildfireEnv>() {
        return Some(wildfire(w.world()));
    }
    if let Some(s) = any.downcast_ref::<colony_swarmbench::SwarmEnv>() {
        return Some(swarmbench(s, env.score()));
    }
    None
}

/// Where agent `agent` stands, as availability text (position helps the embeddings relate
/// agents to nearby sub-goals); empty when unknown.
pub fn position_text(env: &dyn DynEnvironment, agent: &str) -> String {
    let any = env.as_any();
    if let Some(c) = any.downcast_ref::<colony_cube::CubeEnv>() {
        let w = c.world();
        if let Some((r, col)) = agent.parse::<usize>().ok().and_then(|i| w.agents.get(i)) {
            return format!("at row {r}, col {col}");
        }
    }
    if let Some(w) = any.downcast_ref::<colony_wildfire::WildfireEnv>() {
        if let Some(a) = w.world().agents.iter().find(|a| a.id.to_string() == agent) {
            let (x, y) = a.cell();
            return format!("a {:?} at x {x}, y {y}", a.kind).to_lowercase();
        }
    }
    if let Some(s) = any.downcast_ref::<colony_swarmbench::SwarmEnv>() {
        if let Ok(i) = s.agent_index(agent) {
            let (r, c) = s.agent_pos(i);
            return format!("at row {r}, col {c}");
        }
    }
    String::new()
}

fn cube(w: &colony_cube::World) -> Vec<SubGoal> {
    let goal = w.goal_column();
    let mut out: Vec<SubGoal> = w
        .blocks
        .iter()
        .map(|b| {
            let d = w.distance_to_goal(b);
            SubGoal {
                id: format!("block{}", b.id),
                description: format!(
                    "deliver block {} (weight {}: {} agents must push it together) from row {}, \
                     col {} to the goal column {goal}; {d} pushes to go",
                    b.id, b.weight, b.weight, b.row, b.col
                ),
                progress: -f64::from(d),
                open: true,
            }
        })
        .collect();
    out.extend(w.delivered.iter().map(|d| SubGoal {
        id: format!("block{}", d.id),
        description: format!("block {} (weight {}) is delivered", d.id, d.weight),
        progress: f64::from(d.weight),
        open: false,
    }));
    out.sort_by_key(|g| g.id[5..].parse::<u32>().unwrap_or(u32::MAX));
    out
}

/// The quarter of a square map of side `size` a cell `(x, y)` lies in (0 NW, 1 NE, 2 SW, 3 SE).
fn quarter(size: usize, (x, y): (i32, i32)) -> usize {
    let half = (size as i32 + 1) / 2;
    usize::from(x >= half) + 2 * usize::from(y >= half)
}

const QUARTERS: [&str; 4] = ["nw", "ne", "sw", "se"];
const QUARTER_NAMES: [&str; 4] = ["north-west", "north-east", "south-west", "south-east"];

fn wildfire(s: &colony_wildfire::state::WildfireState) -> Vec<SubGoal> {
    use colony_wildfire::config::LevelKind;
    let kind = s.level.kind;
    let g = &s.grid;
    let mut burning = [0usize; 4];
    let mut seen = [false; 4];
    for i in 0..g.fire.len() {
        let q = quarter(g.size, g.cell(i));
        burning[q] += usize::from(g.fire[i].is_burning());
        seen[q] |= g.fire[i].is_fire_seen();
    }
    let mut out = Vec::new();
    if matches!(
        kind,
        LevelKind::Suppress | LevelKind::Scout | LevelKind::Full
    ) {
        for q in 0..4 {
            out.push(SubGoal {
                id: format!("fire-{}", QUARTERS[q]),
                description: format!(
                    "suppress the fire in the {} quarter of the map: {} burning cells",
                    QUARTER_NAMES[q], burning[q]
                ),
                progress: -(burning[q] as f64),
                open: burning[q] > 0,
            });
        }
    }
    if matches!(kind, LevelKind::Scout | LevelKind::Full) {
        for q in 0..4 {
            out.push(SubGoal {
                id: format!("scout-{}", QUARTERS[q]),
                description: format!(
                    "scout the {} quarter of the map for fire and report what you see",
                    QUARTER_NAMES[q]
                ),
                progress: f64::from(s.scouts),
                open: !seen[q],
            });
        }
    }
    if matches!(kind, LevelKind::Rescue | LevelKind::Full) {
        for (k, c) in s.civilians.iter().enumerate() {
            let (x, y) = c.cell();
            let progress = if c.rescued {
                2.0
            } else if c.carried_by.is_some() {
                1.0
            } else {
                0.0
            };
            out.push(SubGoal {
                id: format!("civilian{k}"),
                description: format!(
                    "rescue civilian {k} at x {x}, y {y} and bring them to safety"
                ),
                progress,
                open: c.alive && !c.rescued,
            });
        }
    }
    if kind == LevelKind::Cut {
        let mut left = [0usize; 4];
        for &c in &s.targets.cut_cells {
            if g.contains(c) && g.trees[g.idx(c)] > 0 {
                left[quarter(g.size, c)] += 1;
            }
        }
        for q in 0..4 {
            out.push(SubGoal {
                id: format!("cut-{}", QUARTERS[q]),
                description: format!(
                    "cut the marked trees in the {} quarter of the map: {} target cells left",
                    QUARTER_NAMES[q], left[q]
                ),
                progress: -(left[q] as f64),
                open: left[q] > 0,
            });
        }
    }
    if kind == LevelKind::Transport {
        let to = s
            .targets
            .transport
            .map_or_else(String::new, |(x, y)| format!(" to x {x}, y {y}"));
        out.push(SubGoal {
            id: "transport".into(),
            description: format!("transport the firefighters{to}"),
            progress: s.transported.len() as f64,
            open: true,
        });
    }
    out
}

fn swarmbench(s: &colony_swarmbench::SwarmEnv, score: f64) -> Vec<SubGoal> {
    use colony_swarmbench::env::TaskState;
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn build(env: &str, params: &[&str]) -> Box<dyn DynEnvironment> {
        let (_, mut e) = crate::env::build(env, params).unwrap();
        e.reset(0);
        e
    }

    #[test]
    fn cube_has_one_goal_per_block_and_delivery_raises_progress() {
        let e = build("cube", &["n=2"]);
        let goals = sub_goals(e.as_ref()).unwrap();
        let c = e.as_any().downcast_ref::<colony_cube::CubeEnv>().unwrap();
        assert_eq!(goals.len(), c.world().blocks.len());
        assert!(goals.iter().all(|g| g.open && g.progress <= 0.0));
        assert!(goals[0].description.contains("goal column"));
        // A delivered block is closed with its weight as progress: more than any distance.
        let mut w = c.world().clone();
        let b = w.blocks.remove(0);
        w.delivered.push(colony_cube::world::DeliveredBlock {
            id: b.id,
            weight: b.weight,
            step: 1,
        });
        let after = cube(&w);
        let g = after
            .iter()
            .find(|g| g.id == format!("block{}", b.id))
            .unwrap();
        assert!(!g.open && g.progress == f64::from(b.weight));
        assert!(g.progress > goals[0].progress);
        assert!(position_text(e.as_ref(), "0").starts_with("at row"));
    }

    #[test]
    fn wildfire_goals_follow_the_level_kind() {
        let e = build("wildfire", &["level=1"]);
        let w = e
            .as_any()
            .downcast_ref::<colony_wildfire::WildfireEnv>()
            .unwrap();
        let kind = w.world().level.kind;
        let goals = sub_goals(e.as_ref()).unwrap();
        assert!(!goals.is_empty(), "{kind:?}");
        // A full-environment state lists fires, scouting areas and civilians.
        let mut s = w.world().clone();
        s.level.kind = colony_wildfire::config::LevelKind::Full;
        let full = wildfire(&s);
        for prefix in ["fire-", "scout-"] {
            assert_eq!(full.iter().filter(|g| g.id.starts_with(prefix)).count(), 4);
        }
        assert_eq!(
            full.iter().filter(|g| g.id.starts_with("civilian")).count(),
            s.civilians.len()
        );
        // Putting out every fire raises the fire goals' progress to 0 and closes them.
        let before: f64 = full
            .iter()
            .filter(|g| g.id.starts_with("fire-"))
            .map(|g| g.progress)
            .sum();
        for f in s.grid.fire.iter_mut() {
            if f.is_burning() {
                *f = colony_wildfire::grid::Fire::Extinguished;
            }
        }
        let after = wildfire(&s);
        assert!(after
            .iter()
            .filter(|g| g.id.starts_with("fire-"))
            .all(|g| !g.open && g.progress == 0.0));
        assert!(before <= 0.0);
        assert_eq!(quarter(10, (0, 0)), 0);
        assert_eq!(quarter(10, (9, 0)), 1);
        assert_eq!(quarter(10, (0, 9)), 2);
        assert_eq!(quarter(10, (5, 5)), 3);
    }

    #[test]
    fn swarmbench_goals_are_the_task_targets() {
        for (task, ids) in [
            ("pursuit", vec!["prey"]),
            ("synchronization", vec!["lights"]),
            ("foraging", vec!["food", "nest"]),
            ("flocking", vec!["shape"]),
            ("transport", vec!["box", "escape"]),
        ] {
            let e = build("swarmbench", &[&format!("task={task}"), "agents=3"]);
            let goals = sub_goals(e.as_ref()).unwrap();
            let got: Vec<&str> = goals.iter().map(|g| g.id.as_str()).collect();
            assert_eq!(got, ids, "{task}");
            assert!(goals.iter().all(|g| g.open));
            assert!(position_text(e.as_ref(), "Agent_0").starts_with("at row"));
        }
    }
}
