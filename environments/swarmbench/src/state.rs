//! The self-contained, serializable state (`colony env reset|step swarmbench --json`): the
//! configuration, the map as rows of symbols (docs/design/swarmbench.md Appendix A), agent
//! positions by name, every object, the task state, the RNG position, pending messages and prompt
//! memories.
//!
//! Data only: capturing a live environment and rebuilding one with every field validated is
//! `crate::env`'s (its `snapshot` child sees the private fields), so this module depends on
//! nothing above the world and the environment can depend on it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::prompt::HistoryEntry;
use crate::rng::RngState;
use crate::world::{Cell, Mesh};

/// Task-specific state (design §9).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "task", rename_all = "lowercase")]
pub enum TaskState {
    /// Pursuit: the prey object.
    Pursuit {
        /// Mesh index of the prey.
        prey: usize,
    },
    /// Synchronization: lights and the last scored unanimous count.
    Synchronization {
        /// Light of each agent.
        lights: Vec<bool>,
        /// Number of lights on at the last point (−1 before the first).
        prev: i64,
    },
    /// Foraging: who carries food.
    Foraging {
        /// Carrying flag of each agent.
        carrying: Vec<bool>,
    },
    /// Flocking: initial and current distance.
    Flocking {
        /// D at reset.
        d0: i64,
        /// D now.
        d: i64,
    },
    /// Transport: escapes already scored.
    Transport {
        /// Escape counted for each agent.
        counted: Vec<bool>,
    },
}

/// A sent message waiting for delivery (design §10.3; delays of appendix L.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingMessage {
    /// Round it was sent in.
    pub sent: u32,
    /// Round in which it is delivered.
    pub deliver: u32,
    /// Speaker index.
    pub speaker: usize,
    /// Text (capped, possibly corrupted).
    pub text: String,
}

/// A saved view: global corner, the observer's cell in it, rows of space-separated cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewState {
    /// Global cell of the top-left corner.
    pub origin: Cell,
    /// The observer's cell inside the view.
    pub own: Option<(i32, i32)>,
    /// Rows of cell texts separated by single spaces (`* W 5 $2 .`).
    pub rows: Vec<String>,
}

/// A saved prompt memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryState {
    /// Views, oldest first.
    pub views: Vec<ViewState>,
    /// History entries, oldest first.
    pub history: Vec<HistoryEntry>,
    /// Decisions so far.
    pub decisions: u32,
}

/// The whole state of a [`SwarmEnv`](crate::env::SwarmEnv).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwarmState {
    /// The configuration.
    pub config: Config,
    /// Episode seed.
    pub seed: i64,
    /// Rounds played.
    pub round: u32,
    /// Task score.
    pub score: f64,
    /// The map, one string per row (output only; rebuilt from `objects` on load).
    pub grid: Vec<String>,
    /// Agent positions `[i, j]` by name (off-map once escaped); on load these win over the
    /// agents' entries in `objects`.
    pub agents: BTreeMap<String, [i32; 2]>,
    /// Escaped flag per agent, in index order.
    pub escaped: Vec<bool>,
    /// Every object.
    pub objects: Vec<Mesh>,
    /// Object index of each agent, in agent order.
    pub agent_objects: Vec<usize>,
    /// Task-specific state.
    pub task_state: TaskState,
    /// Task RNG position.
    pub rng: RngState,
    /// Message-options RNG state.
    pub comm_rng: u64,
    /// Messages not yet delivered.
    pub messages: Vec<PendingMessage>,
    /// Prompt memory per agent.
    pub memory: Vec<MemoryState>,
}
