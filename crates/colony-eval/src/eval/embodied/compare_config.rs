//! What a comparison is and what it produces, shared by its runner ([`super::compare`]), its
//! report ([`super::compare_report`]) and suites: the settings ([`CompareConfig`]), one
//! finished episode ([`EpisodeResult`]), the errors, live progress counters and the episode
//! budget.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::grid::{GridAxis, GridError};
use crate::eval::call_log::LogCalls;
use crate::eval::latency_histogram::LatencyHistogram;
use crate::eval::results::ResultsError;
use colony_env_api::{DynEnvironment, EnvEntry};
use colony_policy::embodied::{CallerConfig, EmbodiedError, EmbodiedFactory};
use colony_policy::env::EnvLookupError;

/// Settings of a comparison, resolved at the door: the environment is an entry and each policy
/// a factory, so the runner never looks a name up (docs/design/architecture.md §1).
#[derive(Debug, Clone)]
pub struct CompareConfig {
    /// The environment.
    pub env: &'static dyn EnvEntry,
    /// `key=value` settings.
    pub set: Vec<String>,
    /// The policies, in the user's order (their specs label every result).
    pub policies: Vec<EmbodiedFactory>,
    /// Seeds (with [`CompareConfig::level_seeds`], filled per configuration).
    pub seeds: Vec<u64>,
    /// Each configuration plays its Wildfire level's own evaluation seeds (CREW-Wildfire
    /// Table 9; `--seeds level`) instead of `seeds`, so that one grid over every level gives
    /// the paper's protocol and its cross-level BCS. Decision: only Wildfire levels carry
    /// evaluation seeds; on other environments it is a configuration error.
    pub level_seeds: bool,
    /// Safety cap on steps per episode.
    pub max_steps: usize,
    /// Episodes run at once.
    pub episodes_in_flight: usize,
    /// Output directory.
    pub out: PathBuf,
    /// Models and call settings.
    pub caller: CallerConfig,
    /// A label of the model(s), recorded in results (never a key).
    pub model: String,
    /// The model is the offline simulation: every table and plot says SIMULATION.
    pub simulated: bool,
    /// `--grid` axes: every configuration × policy × seed runs (empty: one configuration).
    pub grid: Vec<GridAxis>,
    /// The configuration's label (`level=3`), set by [`run_compare`] for each grid
    /// configuration; empty for a comparison without a grid.
    pub label: String,
    /// The only episodes this process runs (a shard's share), keyed
    /// `(configuration label, policy, seed)`; `None`: every episode.
    pub only: Option<BTreeSet<EpisodeKey>>,
    /// Compare every other policy with this one over the shared seeds (`--baseline`), with
    /// resampling seeded by `stats_seed`.
    pub baseline: Option<String>,
    /// Seed of the bootstrap and permutation draws of the report.
    pub stats_seed: u64,
    /// How much of each model call the episodes keep (`--log-calls`; compact by default).
    pub log_calls: LogCalls,
    /// The run's token cap (`--max-tokens-total`): no episode starts once it is spent (a
    /// suite's is shared by its units).
    pub budget: std::sync::Arc<crate::eval::budget::RunBudget>,
}

impl CompareConfig {
    /// The environment configured by `set` (not yet reset), with its entry.
    pub fn environment(
        &self,
    ) -> Result<(&'static dyn EnvEntry, Box<dyn DynEnvironment>), EnvLookupError> {
        Ok((self.env, colony_policy::env::build(self.env, &self.set)?))
    }

    /// The policies' specs, in order.
    pub fn policy_specs(&self) -> Vec<String> {
        self.policies.iter().map(|p| p.spec().to_string()).collect()
    }
}

/// An episode's identity in a comparison: `(configuration label, policy, seed)`.
pub type EpisodeKey = (String, String, u64);

/// One finished episode, as `episodes.jsonl` stores it (the key names are a contract).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpisodeResult {
    /// Policy spec.
    pub policy: String,
    /// Seed.
    pub seed: u64,
    /// The environment's score at the end.
    pub score: f64,
    /// Steps taken.
    pub steps: u64,
    /// The task ended.
    pub terminated: bool,
    /// A limit cut the episode.
    pub truncated: bool,
    /// Model calls that returned a reply.
    pub calls: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Replies replaced by the environment's fallback.
    pub fallbacks: u64,
    /// Why the episode stopped early (a failed model call, a refused action), if it did.
    pub error: Option<String>,
    /// Wall time in seconds.
    pub wall_s: f64,
    /// Model calls that failed.
    #[serde(default)]
    pub failed_calls: u64,
    /// The environment's paper metrics for this episode (e.g. CUBE's delivered weight).
    #[serde(default)]
    pub metrics: BTreeMap<String, f64>,
    /// What the episode's calls cost in US dollars at the models' prices;
    /// absent when no model has a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Latencies of the calls that returned a reply, in 1% buckets;
    /// absent without calls.
    #[serde(default, skip_serializing_if = "LatencyHistogram::is_empty")]
    pub call_latency_hist: LatencyHistogram,
    /// The grid configuration (`level=3`); absent without a grid.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub config: String,
    /// Tool calls of the episode (`--tools`; absent when none).
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub tool_calls: u64,
    /// Of those, the failed ones (counted, never an action).
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub tool_errors: u64,
    /// Time spent in tools, milliseconds rounded to 0.1 (absent when none).
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub tool_ms: f64,
}

/// Errors that stop a comparison (an episode's own failure is recorded, not raised).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CompareError {
    /// Unknown environment or bad settings.
    #[error(transparent)]
    Env(#[from] EnvLookupError),
    /// A `--grid` axis does not parse or the grid is too large.
    #[error(transparent)]
    Grid(#[from] GridError),
    /// Unknown policy or option.
    #[error(transparent)]
    Policy(#[from] EmbodiedError),
    /// Results could not be read or written.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// A file could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The directory holds a comparison with other settings.
    #[error("{path} holds a comparison with other settings ({differences}); use another --out")]
    Mismatch {
        /// The settings file.
        path: PathBuf,
        /// What differs.
        differences: String,
    },
    /// Another process is writing this directory.
    #[error(transparent)]
    Locked(#[from] crate::eval::lock::LockError),
    /// Reports could not be drawn.
    #[error(transparent)]
    Plot(#[from] crate::eval::plot::PlotError),
    /// A failure no retry can fix stopped the run (finished episodes are kept; the report
    /// covers them).
    #[error(
        "run stopped early: {0} (finished episodes are kept; errored ones run again next time)"
    )]
    Stopped(String),
    /// More episodes than [`MAX_EPISODES`].
    #[error("{count} episodes (configurations × policies × seeds) is more than the limit of {MAX_EPISODES} per comparison; split it into several runs")]
    TooManyEpisodes {
        /// Episodes asked for (saturated).
        count: u64,
    },
    /// `--seeds level` on a configuration without evaluation seeds of its own
    /// ([`colony_env_api::PaperProtocol::evaluation_seeds`]).
    #[error("--seeds level: configuration `{config}` of {env} carries no evaluation seeds of its own (Wildfire levels do)")]
    NoLevelSeeds {
        /// The environment.
        env: String,
        /// The configuration's settings.
        config: String,
    },
}

/// Live counters for a progress display.
#[derive(Debug, Default)]
pub struct Progress {
    /// Episodes to run in this invocation.
    pub episodes_total: AtomicU64,
    /// Episodes finished.
    pub episodes_done: AtomicU64,
    /// Environment steps taken.
    pub steps: AtomicU64,
    /// Model calls made.
    pub calls: AtomicU64,
    /// Tokens (prompt + completion).
    pub tokens: AtomicU64,
    /// Episodes that ended with an error.
    pub errors: AtomicU64,
    /// Failed attempts the client retried.
    pub retries: AtomicU64,
}

/// Most episodes one comparison (or one suite unit) may plan: configurations × policies ×
/// seeds. Decision: each episode writes about three files, so a
/// larger run is a file-system hazard rather than an experiment; it is refused up front with
/// the count, before anything is allocated per episode.
pub const MAX_EPISODES: u64 = 100_000;

/// Refuses a plan of more than [`MAX_EPISODES`] episodes.
pub fn check_episode_count(
    configurations: usize,
    policies: usize,
    seeds: usize,
) -> Result<(), CompareError> {
    let count = [configurations, policies, seeds]
        .iter()
        .fold(1u64, |acc, &n| acc.saturating_mul(n as u64));
    if count > MAX_EPISODES {
        return Err(CompareError::TooManyEpisodes { count });
    }
    Ok(())
}
