//! Evaluation: run policies over dataset items or environment episodes, store one JSON line
//! per finished item or episode (resumable), summarize, and measure resources for benchmarks.
//!
//! - Reasoning: [`runner`] (items), [`summary`] (tables, in [`table_order`]; intervals from
//!   [`stats`]), [`metrics`] (policy metrics from
//!   item traces, averaged per policy), [`models`] (the simulated model keyed with the items,
//!   record/replay).
//! - Embodied: [`episode`] (the one episode loop), [`trajectory`] (the one trajectory
//!   format), [`env_run`] (`colony env run`), [`compare`] and [`compare_report`]
//!   (`colony compare`).

pub mod compare;
pub mod compare_models;
pub mod compare_report;
pub mod dataset_run;
pub mod env_run;
pub mod episode;
pub mod grid;
pub mod latency;
pub mod lock;
pub mod metrics;
pub mod models;
pub mod plot;
pub mod report;
pub mod resources;
pub mod results;
pub mod runner;
pub mod stats;
pub mod summary;
pub mod table_order;
pub mod trajectory;

pub use compare::{
    run_compare, CompareConfig, CompareError, CompareOutcome, EpisodeResult, Progress,
};
pub use compare_models::CompareModels;
pub use compare_report::CompareSummary;
pub use episode::{run_episode, EpisodeConfig, EpisodeOutcome, EpisodeSink, StepRecord};
pub use metrics::MetricMean;
pub use models::{answer_key, build_model, build_models, CallRouting};
pub use results::{ItemResult, JsonlFile, ResultsError, ResultsFile};
pub use runner::{run_policy, solve_item, EvalConfig, LabelledPolicy, PolicyRun};
pub use summary::{AgentSettings, PolicySummary, RunSettings, Summary, VsBaseline};
