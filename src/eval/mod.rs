//! Evaluation: run policies over dataset items, store one JSON line per finished item
//! (resumable), summarize, and measure resources for benchmarks.

pub mod plot;
pub mod resources;
pub mod results;
pub mod runner;
pub mod summary;

pub use results::{ItemResult, ResultsError, ResultsFile};
pub use runner::{run_policy, solve_item, EvalConfig};
pub use summary::{PolicySummary, Summary};
