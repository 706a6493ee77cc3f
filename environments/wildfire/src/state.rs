//! The complete, serializable simulation state (docs/design/wildfire.md §3): grid, team map,
//! agents, civilians, level targets, counters and clocks. A saved state is self-contained (it
//! carries its level configuration), so `colony env step wildfire --state FILE` continues it
//! exactly.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::config::{AgentKind, LevelConfig};
use crate::grid::{Cell, Grid};
use crate::primitive::Primitive;

/// Episode counters (§3).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// Trees destroyed by fire.
    pub trees_burned: u64,
    /// Trees removed by agents (cutting, plowing).
    pub trees_removed: u64,
    /// Buildings destroyed by fire.
    pub buildings_destroyed: u64,
    /// Burning cells put out by water.
    pub extinguished_by_water: u64,
    /// Ground agents lost.
    pub agents_lost: u64,
    /// Civilians lost.
    pub civilians_lost: u64,
    /// Best concurrent scout count so far (capped at 2).
    pub best_scouts: u32,
}

/// A delayed action waiting for the step's 50th frame (§6.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Delayed {
    /// Cut one tree in the current cell.
    Cut,
    /// Spray toward a cell.
    Spray(Cell),
}

/// One agent (§6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agent {
    /// Id `1..N` (§1).
    pub id: u32,
    /// Type.
    pub kind: AgentKind,
    /// Continuous position x, in cells.
    pub px: f64,
    /// Continuous position y, in cells.
    pub py: f64,
    /// Not lost.
    pub alive: bool,
    /// Helicopter carrying this firefighter.
    pub passenger_of: Option<u32>,
    /// Movement target cell.
    pub target: Option<Cell>,
    /// Bulldozer plow lowered.
    pub plow: bool,
    /// Water units (firefighter, helicopter).
    pub water: u8,
    /// Index of the carried civilian (firefighter).
    pub carrying: Option<usize>,
    /// Ids of carried firefighters (helicopter).
    pub passengers: Vec<u32>,
    /// Delayed action of the current step.
    pub delayed: Option<Delayed>,
    /// Current primitive (executor, §10).
    pub action: Option<Primitive>,
    /// Steps the current primitive has been emitted.
    pub emitted: u32,
    /// Descriptions of completed primitives, oldest first.
    pub history: Vec<String>,
}

impl Agent {
    /// A fresh agent at the centre of `cell`.
    pub fn new(id: u32, kind: AgentKind, cell: Cell) -> Self {
        Self {
            id,
            kind,
            px: f64::from(cell.0) + 0.5,
            py: f64::from(cell.1) + 0.5,
            alive: true,
            passenger_of: None,
            target: None,
            plow: false,
            water: 0,
            carrying: None,
            passengers: Vec::new(),
            delayed: None,
            action: None,
            emitted: 0,
            history: Vec::new(),
        }
    }

    /// The cell the agent is in.
    pub fn cell(&self) -> Cell {
        (self.px.floor() as i32, self.py.floor() as i32)
    }

    /// Name `AGENT_<id>`.
    pub fn name(&self) -> String {
        format!("AGENT_{}", self.id)
    }

    /// Takes commands: alive and not a passenger.
    pub fn is_active(&self) -> bool {
        self.alive && self.passenger_of.is_none()
    }

    /// Status variables `[e0, e1, e2]` (§6.6).
    pub fn extra(&self) -> [i32; 3] {
        match self.kind {
            AgentKind::Firefighter => [
                i32::from(self.carrying.is_some()),
                i32::from(self.water),
                i32::from(self.passenger_of.is_some()),
            ],
            AgentKind::Helicopter => [self.passengers.len() as i32, i32::from(self.water), 0],
            _ => [0, 0, 0],
        }
    }
}

/// One civilian (§7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Civilian {
    /// Position x.
    pub px: f64,
    /// Position y.
    pub py: f64,
    /// Not lost.
    pub alive: bool,
    /// Firefighter carrying it.
    pub carried_by: Option<u32>,
    /// Reached the rescue zone.
    pub rescued: bool,
}

impl Civilian {
    /// The civilian's cell.
    pub fn cell(&self) -> Cell {
        (self.px.floor() as i32, self.py.floor() as i32)
    }

    /// Walks, can die and can be picked up: alive, not carried, not rescued.
    pub fn is_free(&self) -> bool {
        self.alive && self.carried_by.is_none() && !self.rescued
    }
}

/// Level targets placed by the setup (§12.2).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Targets {
    /// Team spawn cell.
    pub spawn: Cell,
    /// Cut target cells (sparse targets, or all cells of all lines).
    pub cut_cells: Vec<Cell>,
    /// Cut lines as (start, end) cells.
    pub lines: Vec<(Cell, Cell)>,
    /// Initial fire cell.
    pub fire: Option<Cell>,
    /// Water source cell.
    pub water: Option<Cell>,
    /// Transport target.
    pub transport: Option<Cell>,
    /// Rescue target (safe location).
    pub rescue: Option<Cell>,
    /// Civilian cluster cells.
    pub clusters: Vec<Cell>,
    /// Placements that needed the §12.2 fallback (for diagnostics).
    pub fallbacks: u32,
}

/// The whole state of an episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WildfireState {
    /// Level configuration (with any overrides applied).
    pub level: LevelConfig,
    /// Seed of the episode.
    pub seed: u64,
    /// The map.
    pub grid: Grid,
    /// Revealed team map codes (§9.1), row-major.
    pub team_map: Vec<u8>,
    /// Agents, ids `1..N` at indices `0..N−1`.
    pub agents: Vec<Agent>,
    /// Civilians in spawn order.
    pub civilians: Vec<Civilian>,
    /// Level targets.
    pub targets: Targets,
    /// Counters.
    pub counters: Counters,
    /// Firefighters transported (ids).
    pub transported: BTreeSet<u32>,
    /// A fire has burned in this episode.
    pub fire_ever_ignited: bool,
    /// Some cell is `Ignited` or `OnFire`.
    pub fire_active: bool,
    /// Global frame counter.
    pub frame: u64,
    /// Step counter `t`.
    pub step: u32,
    /// Concurrent scout count of the last step.
    pub scouts: u32,
    /// Terminated (task done).
    pub terminated: bool,
    /// Truncated (step limit).
    pub truncated: bool,
    /// Word position of the runtime random stream (stream 7).
    pub runtime_rng_pos: u64,
}
