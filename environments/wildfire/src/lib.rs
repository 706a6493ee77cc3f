//! CREW-Wildfire (`wildfire-v0`) as a synchronous, deterministic environment: procedural maps
//! (docs/design/wildfire.md §4), the cellular-automaton fire (§5), four heterogeneous agent types
//! and civilians (§6–§8), observations and the ASCII minimap (§9), primitives and their executor
//! (§10), the text side of the LLM interface (§11), the 17 level configurations (§12) and the
//! metrics NS and BCS (§13). The design note is `docs/design/wildfire.md`; no LLM code lives here.
//!
//! Layout: [`config`] constants and levels; [`noise`] and [`generate`] map generation;
//! [`setup`] level setup; [`grid`], [`state`] the state; [`fire`] the fire model; [`sim`] one
//! step; [`observe`] observations; [`primitive`] primitives and action codes; [`prompts`]
//! placeholder texts; [`metrics`] NS/BCS; [`env`] the `Environment` impl; [`entry`] the CLI
//! registration; [`policies`] the scripted heuristic; [`render`] ASCII and SVG pictures; [`llm_play`] the
//! LLM-play texts and [`sim_agent`] the simulated agent answering them offline.

pub mod config;
pub mod entry;
pub mod env;
mod error;
pub mod fire;
pub mod generate;
pub mod grid;
pub mod llm_play;
pub mod metrics;
pub mod noise;
pub mod observe;
pub mod policies;
pub mod primitive;
pub mod prompts;
pub mod render;
pub mod setup;
pub mod sim;
pub mod sim_agent;
pub mod state;
mod suppress;
mod validate;

pub use entry::entry;
pub use env::{WildfireAction, WildfireEnv};
pub use error::WildfireError;
