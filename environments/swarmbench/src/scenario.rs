//! One-step physics scenarios (the `colony swarmbench physics` contract): a map size, objects
//! and actions in, positions, on-grid flags and the map out (docs/design/swarmbench.md §4).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::physics::{Dir, Physics};
use crate::world::{isqrt, Mesh, MeshKind, World};

/// An object of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioMesh {
    /// `agent`, `block`, `wall` (also `prey`, `food`).
    pub kind: MeshKind,
    /// Unique id.
    pub id: String,
    /// Top-left anchor `[i, j]`.
    pub pos: [i32; 2],
    /// Shape rows (`.` = empty); agents default to `["A"]`.
    #[serde(default)]
    pub shape: Option<Vec<String>>,
    /// Mass; default floor(sqrt(area)) (agents: 1).
    #[serde(default)]
    pub mass: Option<i64>,
}

/// A physics scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Map rows.
    pub height: i32,
    /// Map columns.
    pub width: i32,
    /// Objects.
    pub meshes: Vec<ScenarioMesh>,
    /// Action per agent id (`UP`, `DOWN`, `LEFT`, `RIGHT`, `STAY`); missing = STAY.
    #[serde(default)]
    pub actions: BTreeMap<String, String>,
}

/// The outcome of one physics step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// Anchor of every object.
    pub positions: BTreeMap<String, [i32; 2]>,
    /// Whether each object still has a cell on the map.
    pub on_grid: BTreeMap<String, bool>,
    /// The map rows (`.` empty, shape characters otherwise).
    pub grid: Vec<String>,
}

/// A scenario that cannot be run, naming the culprit.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ScenarioError {
    /// Bad map size.
    #[error("height/width {0}x{1}: both must be between 1 and 10000")]
    Size(i32, i32),
    /// A problem with one object.
    #[error("meshes[{index}] ({id}): {message}")]
    Mesh {
        /// Position in `meshes`.
        index: usize,
        /// Its id.
        id: String,
        /// What is wrong.
        message: String,
    },
    /// A problem with one action.
    #[error("actions.{id}: {message}")]
    Action {
        /// Agent id.
        id: String,
        /// What is wrong.
        message: String,
    },
}

/// Runs one physics step (four passes) on a scenario.
pub fn run(s: &Scenario) -> Result<ScenarioResult, ScenarioError> {
    if s.height < 1 || s.width < 1 || s.height > 10_000 || s.width > 10_000 {
        return Err(ScenarioError::Size(s.height, s.width));
    }
    let mut world = World::new(s.height, s.width);
    let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
    for (index, m) in s.meshes.iter().enumerate() {
        let bad = |message: String| ScenarioError::Mesh {
            index,
            id: m.id.clone(),
            message,
        };
        if ids.insert(&m.id, index).is_some() {
            return Err(bad("duplicate id".into()));
        }
        let default_shape = match m.kind {
            MeshKind::Agent => "A",
            MeshKind::Wall => "W",
            MeshKind::Prey => "P",
            MeshKind::Food => "F",
            MeshKind::Block => "B",
        };
        let rows: Vec<&str> = match &m.shape {
            Some(rows) => rows.iter().map(String::as_str).collect(),
            None => vec![default_shape],
        };
        let is_static = matches!(m.kind, MeshKind::Wall | MeshKind::Food);
        let mut mesh = Mesh::from_rows(&m.id, m.kind, (m.pos[0], m.pos[1]), &rows, is_static);
        if mesh.cells.is_empty() {
            return Err(bad("shape has no occupied cell".into()));
        }
        if m.kind == MeshKind::Agent && mesh.cells.len() != 1 {
            return Err(bad("agents are a single cell".into()));
        }
        mesh.mass = match (m.kind, m.mass) {
            (MeshKind::Agent, None) => 1,
            (_, Some(x)) if x >= 1 => x,
            (_, Some(x)) => return Err(bad(format!("mass {x} must be at least 1"))),
            (_, None) => isqrt(mesh.cells.len() as i64),
        };
        if let Some((c, _)) = mesh.abs_cells().find(|(c, _)| world.occupant(*c).is_some()) {
            return Err(bad(format!("overlaps another object at {c:?}")));
        }
        world.add(mesh);
    }
    let mut actions = vec![None; world.meshes.len()];
    for (id, text) in &s.actions {
        let bad = |message: String| ScenarioError::Action {
            id: id.clone(),
            message,
        };
        let &k = ids
            .get(id.as_str())
            .ok_or_else(|| bad("no such object".into()))?;
        if world.meshes[k].kind != MeshKind::Agent {
            return Err(bad("only agents act".into()));
        }
        actions[k] = match text.trim().to_ascii_uppercase().as_str() {
            "UP" => Some(Dir::Up),
            "DOWN" => Some(Dir::Down),
            "LEFT" => Some(Dir::Left),
            "RIGHT" => Some(Dir::Right),
            "STAY" | "" => None,
            other => {
                return Err(bad(format!(
                    "{other:?} is not UP, DOWN, LEFT, RIGHT or STAY"
                )))
            }
        };
    }
    Physics::default().step(&mut world, &actions);
    Ok(ScenarioResult {
        positions: world
            .meshes
            .iter()
            .map(|m| (m.id.clone(), [m.pos.0, m.pos.1]))
            .collect(),
        on_grid: world
            .meshes
            .iter()
            .map(|m| (m.id.clone(), m.present))
            .collect(),
        grid: world.grid_rows(),
    })
}
