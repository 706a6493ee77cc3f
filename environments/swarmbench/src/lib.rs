//! SwarmBench (`swarmbench-v0`) as a synchronous, deterministic simulation crate: the grid
//! physics with its exact max-flow resolution, the five tasks with seed-compatible layouts
//! (CPython MT19937), views, messages, the exact prompt and reply parsing as pure functions,
//! group-dynamics metrics, and built-in non-LLM policies.
//!
//! Spec: `specs/swarmbench.md` (section numbers in the docs refer to it).

pub mod config;
pub mod entry;
pub mod env;
pub mod flocking;
pub mod group_dynamics;
pub mod lap;
pub mod layout;
pub mod llm_play;
pub mod logs;
mod maxflow;
pub mod messages;
pub mod metrics;
pub mod physics;
pub mod policies;
pub mod prompt;
pub mod pursuit;
pub mod reply;
pub mod rng;
pub mod scenario;
pub mod sim_agent;
pub mod state;
pub mod structured;
pub mod view;
pub mod world;

pub use config::{Config, Task};
pub use entry::entry;
pub use env::SwarmEnv;
