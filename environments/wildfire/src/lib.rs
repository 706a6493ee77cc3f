//! CREW-Wildfire (`wildfire-v0`) as a synchronous, deterministic environment: procedural maps
//! (docs/design/wildfire.md §4), the cellular-automaton fire (§5), four heterogeneous agent types
//! and civilians (§6–§8), observations and the ASCII minimap (§9), primitives and their executor
//! (§10), the text side of the LLM interface (§11), the 17 level configurations (§12) and the
//! metrics NS and BCS (§13). The design note is `docs/design/wildfire.md`; no LLM code lives here.
//!
//! Layout: [`config`] constants and levels; [`noise`] and [`generate`] map generation;
//! [`setup`] level setup; [`grid`], [`state`] the state; [`fire`] the fire model; [`sim`] one
//! step, including the fog-of-war reveal; [`observe`] observations; [`primitive`] primitives and
//! action codes; [`executor`] what a primitive emits and when it completes; [`prompts`]
//! placeholder texts; [`metrics`] the score and NS/BCS; [`env`] the `Environment` impl;
//! [`entry`] the CLI registration; [`policies`] the scripted heuristic; [`render`] ASCII and SVG
//! pictures; [`llm_play`] the LLM-play texts and [`sim_agent`] the simulated agent answering
//! them offline.
//!
//! The modules form no import cycle (`scripts/module_cycles.py`); along the main chain each uses
//! only earlier ones: `config`, `grid`, `primitive`, `state`, `executor`, `fire`, `metrics`,
//! `sim`, `observe`, `prompts`, `llm_play`, `env`, `policies`.

pub mod config;
pub mod describe;
pub mod dotnet_random;
pub mod entry;
pub mod env;
mod error;
pub mod executor;
pub mod fire;
pub mod generate;
pub mod grid;
pub mod grid_report;
pub mod llm_play;
pub mod metrics;
pub mod noise;
pub mod numeric;
pub mod observe;
pub mod policies;
pub mod primitive;
pub mod prompts;
pub mod render;
pub mod setup;
pub mod sim;
pub mod sim_agent;
pub mod state;
pub mod structured;
mod validate;

pub use entry::entry;
pub use env::{WildfireAction, WildfireEnv};
pub use error::WildfireError;
