//! SelfOrg policy, pure-math core (docs/design/selforg.md §1.6–§1.9, §1.11, §1.12, §1.15).
//!
//! * [`graph`]: cosine conventions (§0.1), contributions ψ (§1.7), similarity matrix and the
//!   consensus statistic `S_min` (§1.8, early stopping §1.12), and `build_graph` (§1.9).
//! * [`aggregate`]: the round output (§1.11).
//! * [`ties`]: ψ, S and cosines rounded to 1e-9 before every comparison, so exact ties break
//!   by agent id whatever the floating-point noise (§1.9.1).
//! * [`embed_input`]: which part of a response is embedded (`embed=full|tail|answer`).
//!
//! * [`SelfOrg`]: the policy (rounds, DAG-parallel propagation, reform, early stopping).
//!
//! The math is synchronous and deterministic; agents are numbered from 0.

pub mod aggregate;
mod dag;
pub mod embed_input;
pub mod graph;
mod policy;
pub mod ties;

pub use aggregate::{aggregate, aggregate_masked, Aggregate};
pub use embed_input::EmbedInput;
pub use graph::{
    build_graph, build_graph_from, contributions, cos, early_stop, normalise, s_min, similarity,
    Graph, GraphError, GraphOptions, Rule, MAX_GRAPH_AGENTS,
};
pub use policy::{SelfOrg, SelfOrgOptions};
pub use ties::{tie_key, TIE_PRECISION};
