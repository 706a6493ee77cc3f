//! Evaluation: run policies over dataset items or environment episodes, store one JSON line
//! per finished item or episode (resumable), summarize, and measure resources for benchmarks.
//!
//! Grouped by job, with the pieces both jobs use at this level:
//! - [`reasoning`]: `colony eval`: items through policies ([`reasoning::runner`],
//!   [`reasoning::dataset_run`]), the summary and its tables ([`reasoning::summary`],
//!   [`reasoning::table`]), policy metrics, call latency and the report files.
//! - [`embodied`]: `colony env run` and `colony compare`: the one episode loop
//!   ([`embodied::episode`]), the one trajectory format, comparisons, grids and their reports.
//! - Shared: [`results`] (append-only JSONL and atomic summaries: the one results writer),
//!   [`lock`] (one writer per output directory), [`stats`] (intervals and paired tests),
//!   [`plot`] (charts), [`models`] (models of a run, record/replay), [`partial`] (the banner
//!   of a stopped run), [`resources`] (benchmark measurements).

pub mod budget;
pub mod call_log;
pub mod code_grade;
pub mod embodied;
pub mod inspect;
pub mod inspect_episodes;
pub mod judge;
pub mod latency_histogram;
pub mod lock;
pub mod log_cat;
pub mod models;
pub mod otlp;
pub mod partial;
pub mod plot;
pub mod prices;
pub mod reasoning;
pub mod resources;
pub mod results;
pub mod stats;
pub mod timestamp;
pub mod tools;

pub use embodied::compare::{run_compare, CompareOutcome};
pub use embodied::compare_config::{CompareConfig, CompareError, EpisodeResult, Progress};
pub use embodied::compare_models::CompareModels;
pub use embodied::compare_report::CompareSummary;
pub use embodied::episode::{run_episode, EpisodeConfig, EpisodeOutcome, EpisodeSink, StepRecord};
pub use models::{answer_key, build_model, build_models, CallRouting};
pub use reasoning::metrics::MetricMean;
pub use reasoning::runner::{run_policy, solve_item, EvalConfig, LabelledPolicy, PolicyRun};
pub use reasoning::summary::{AgentSettings, PolicySummary, RunSettings, Summary, VsBaseline};
pub use results::{ItemResult, JsonlFile, ResultsError, ResultsFile};
