//! CUBE (`cube-v0`): cooperative block pushing with the n-curriculum, symbolic actions,
//! symbolic concepts and the greedy heuristic (design note `docs/design/cube.md`).
//!
//! Synchronous and deterministic, no LLM: the crate provides the world and its dynamics
//! ([`World`], docs/design/cube.md §3–7), procedural generation ([`generate()`], §4), observations
//! ([`observation`], §8), symbolic actions, plans and the executor ([`symbolic`],
//! [`executor`], §9), the plan parser for LLM output ([`plan_parser`], §12.2), the concepts of
//! the paper's Table 2 ([`concepts`], §10), the heuristic baseline ([`heuristic`], §12.1), the
//! naive language agent's prompt, reply parser and offline simulation ([`llm_play`],
//! [`sim_agent`], §12.2), the ASCII notation ([`layout`], §11) and the `Environment`
//! implementation ([`CubeEnv`]).

pub mod concepts;
pub mod config;
pub mod describe;
pub mod dynamics;
mod entry;
pub mod env;
pub mod event_json;
pub mod executor;
pub mod feedback;
pub mod generate;
pub mod geometry;
pub mod heuristic;
pub mod layout;
pub mod llm_play;
pub mod observation;
pub mod overhead;
pub mod plan_parser;
pub mod sim_agent;
pub mod structured;
pub mod symbolic;
pub mod world;

use thiserror::Error;

pub use concepts::{ConceptError, Entity};
pub use config::{CubeConfig, Layout};
pub use dynamics::CubeEvent;
pub use entry::entry;
pub use env::{CubeAction, CubeEnv, CubeState};
pub use generate::generate;
pub use geometry::{Cell, Face, Prim};
pub use symbolic::{SymbolicAction, SymbolicCall, SymbolicError};
pub use world::{Block, World};

/// Errors of the CUBE crate; each names the field or agent at fault.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CubeError {
    /// Invalid configuration, layout or state.
    #[error("{field}: {message}")]
    Invalid {
        /// The field at fault (e.g. `blocks[2] (id 2)`, `layout line 3`).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// An agent index that does not exist.
    #[error("unknown agent {0}")]
    UnknownAgent(usize),
    /// More primitives than agents.
    #[error("{given} actions for {agents} agents")]
    TooManyActions {
        /// Actions given.
        given: usize,
        /// Agents.
        agents: usize,
    },
    /// A step after termination or truncation (design §7).
    #[error("the episode is over; reset first")]
    EpisodeOver,
}

impl CubeError {
    /// An [`CubeError::Invalid`] error.
    pub fn invalid(field: &str, message: &str) -> CubeError {
        CubeError::Invalid {
            field: field.to_string(),
            message: message.to_string(),
        }
    }
}
