//! Suites: `colony run evals/<suite>.toml` runs datasets and environments × policies ×
//! models × seeds through the same library paths as `colony eval` and `colony compare`,
//! resumably, optionally split into shards that `colony merge` joins.
//!
//! - [`spec`]: the suite file and its validation.
//! - [`plan`]: units, work items and their keys; the output layout.
//! - [`shard`]: which process owns which work item.
//! - [`manifest`]: what produced a run directory; reruns that differ are refused.
//! - [`run`]: running a suite (or a shard of it).
//! - [`merge`]: joining shard directories into one results directory.
//! - [`estimate`]: `--dry-run`'s matrix with item/episode counts and the call estimate.

pub mod estimate;
pub mod manifest;
pub mod merge;
pub mod plan;
pub mod run;
pub mod shard;
pub mod spec;

pub use manifest::{Manifest, ManifestError};
pub use merge::{merge_shards, MergeError, MergeOutcome};
pub use plan::{expand, PlannedUnit, UnitWork};
pub use run::{run_suite, SuiteHooks, SuiteOutcome, SuiteRunError, SuiteRunOptions};
pub use shard::Shard;
pub use spec::{Suite, SuiteError};
