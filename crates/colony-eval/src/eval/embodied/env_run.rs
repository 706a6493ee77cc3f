//! `colony env run`: episodes of built-in (non-LLM) policies through the one episode loop,
//! one trajectory per episode, a score table and `summary.json`.

use std::path::PathBuf;

use colony_env_api::EnvError;
use serde_json::json;
use thiserror::Error;

use super::episode::{run_episode, EpisodeConfig, EpisodeOutcome, EpisodeSink, StepRecord};
use super::trajectory::TrajectoryWriter;
use crate::eval::results::write_atomic;
use colony_policy::embodied::{CallLog, Scripted};
use colony_policy::env::{build, EnvLookupError};

/// Settings of `colony env run`.
#[derive(Debug, Clone)]
pub struct EnvRunConfig {
    /// The environment (resolved at the door).
    pub env: &'static dyn colony_env_api::EnvEntry,
    /// `key=value` settings.
    pub set: Vec<String>,
    /// Built-in policy names (`random`, `noop`, the environment's own).
    pub policies: Vec<String>,
    /// Seeds.
    pub seeds: Vec<u64>,
    /// Safety cap on steps per episode.
    pub max_steps: usize,
    /// Where trajectories and `summary.json` go.
    pub out: Option<PathBuf>,
}

/// Errors of `colony env run`.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum EnvRunError {
    /// Unknown environment or bad settings.
    #[error(transparent)]
    Lookup(#[from] EnvLookupError),
    /// Unknown policy.
    #[error(transparent)]
    Env(#[from] EnvError),
    /// Writing results failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A built-in policy failed (its action was refused).
    #[error("policy {policy}, seed {seed}: {message}")]
    Policy {
        /// The policy.
        policy: String,
        /// The seed.
        seed: u64,
        /// What went wrong.
        message: String,
    },
}

/// The episodes of one policy.
#[derive(Debug, Clone)]
pub struct PolicyEpisodes {
    /// The policy.
    pub policy: String,
    /// One outcome per seed, in seed order.
    pub episodes: Vec<EpisodeOutcome>,
}

/// Mean and population standard deviation (0 for fewer than two values; NaN-free for none),
/// the layout of SwarmBench's tables (`np.std`). Decision: it is a view of the one helper,
/// [`crate::eval::stats::mean_sd_ci`] (sample SD, n − 1), rescaled by √((n − 1)/n), so the
/// variance is computed in one place and every sample-SD column agrees with it.
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    match crate::eval::stats::mean_sd_ci(xs) {
        None => (0.0, 0.0),
        Some((mean, None, _)) => (mean, 0.0),
        Some((mean, Some(sd), _)) => {
            let n = xs.len() as f64;
            (mean, sd * ((n - 1.0) / n).sqrt())
        }
    }
}

/// A per-step render callback: `(step, picture)`.
type StepRender<'a> = &'a mut (dyn FnMut(u64, &str) + Send);

/// The render callback of [`run_builtin`]: `(policy, seed, step, picture)`.
pub type EpisodeRender<'a> = &'a mut (dyn FnMut(&str, u64, u64, &str) + Send);

/// A sink that writes a trajectory and/or calls `render` after every step.
struct RunSink<'a> {
    writer: Option<TrajectoryWriter>,
    render: Option<StepRender<'a>>,
}

impl EpisodeSink for RunSink<'_> {
    fn on_step(&mut self, record: &StepRecord) -> std::io::Result<()> {
        match self.writer.as_mut() {
            Some(w) => w.on_step(record),
            None => Ok(()),
        }
    }
    fn on_calls(&mut self, _calls: &[CallLog]) -> std::io::Result<()> {
        Ok(())
    }
    fn wants_render(&self) -> bool {
        self.render.is_some()
    }
    fn on_render(&mut self, step: u64, picture: &str) {
        if let Some(r) = self.render.as_mut() {
            r(step, picture);
        }
    }
}

/// Runs every policy × seed episode in order. `render`, when given, receives
/// `(policy, seed, step, picture)` after every step.
pub async fn run_builtin(
    config: &EnvRunConfig,
    mut render: Option<EpisodeRender<'_>>,
) -> Result<Vec<PolicyEpisodes>, EnvRunError> {
    let entry = config.env;
    for policy in &config.policies {
        // Every name is checked before anything runs.
        entry.make_policy(policy, 0)?;
    }
    let io = |path: PathBuf| move |source| EnvRunError::Io { path, source };
    let mut all = Vec::new();
    for policy in &config.policies {
        let mut episodes = Vec::new();
        for &seed in &config.seeds {
            let mut env = build(entry, &config.set)?;
            env.reset(seed);
            let mut scripted = Scripted::new(policy.as_str(), entry.make_policy(policy, seed)?);
            let path = config
                .out
                .as_ref()
                .map(|d| d.join(policy).join(format!("seed-{seed}.jsonl")));
            let writer = match &path {
                Some(p) => {
                    let head = json!({"env": env.id(), "policy": policy, "seed": seed,
                                      "config": config.set, "state": env.state_json()});
                    Some(TrajectoryWriter::create(p, None, Some(&head)).map_err(io(p.clone()))?)
                }
                None => None,
            };
            let wants_render = render.is_some();
            let mut per_step = |step: u64, picture: &str| {
                if let Some(r) = render.as_mut() {
                    r(policy, seed, step, picture);
                }
            };
            let mut sink = RunSink {
                writer,
                render: if wants_render {
                    Some(&mut per_step)
                } else {
                    None
                },
            };
            let cfg = EpisodeConfig {
                seed,
                max_steps: config.max_steps,
            };
            let where_ = path.clone().unwrap_or_default();
            let outcome = run_episode(env.as_mut(), &mut scripted, cfg, &mut sink)
                .await
                .map_err(|e| EnvRunError::Io {
                    path: where_.clone(),
                    source: e.0,
                })?;
            if let Some(w) = sink.writer.take() {
                w.finish().map_err(io(where_))?;
            }
            if let Some(message) = outcome.error.clone() {
                return Err(EnvRunError::Policy {
                    policy: policy.clone(),
                    seed,
                    message,
                });
            }
            episodes.push(outcome);
        }
        all.push(PolicyEpisodes {
            policy: policy.clone(),
            episodes,
        });
    }
    if let Some(dir) = &config.out {
        let path = dir.join("summary.json");
        let doc = summary_json(config, entry.info().id.as_str(), &all);
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        write_atomic(&path, text.as_bytes()).map_err(io(path))?;
    }
    Ok(all)
}

/// `summary.json` of `colony env run`.
fn summary_json(config: &EnvRunConfig, id: &str, all: &[PolicyEpisodes]) -> serde_json::Value {
    let mut policies = serde_json::Map::new();
    for p in all {
        let scores: Vec<f64> = p.episodes.iter().map(|e| e.score).collect();
        let (mean, std) = mean_std(&scores);
        let steps =
            p.episodes.iter().map(|e| e.steps as f64).sum::<f64>() / p.episodes.len().max(1) as f64;
        policies.insert(
            p.policy.clone(),
            json!({"episodes": p.episodes.len(), "seeds": config.seeds, "scores": scores,
                   "mean": mean, "std": std,
                   "min": scores.iter().cloned().fold(f64::INFINITY, f64::min),
                   "max": scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
                   "mean_steps": steps,
                   "terminated": p.episodes.iter().filter(|e| e.terminated).count()}),
        );
    }
    json!({"env": id, "config": config.set, "policies": policies})
}

/// The score table `colony env run` prints (Markdown).
pub fn markdown_table(all: &[PolicyEpisodes]) -> String {
    let mut out = String::from(
        "| policy | episodes | score (mean ± std) | min | max | steps (mean) | terminated | ms/episode |\n|---|---|---|---|---|---|---|---|\n",
    );
    for p in all {
        let scores: Vec<f64> = p.episodes.iter().map(|e| e.score).collect();
        let (mean, std) = mean_std(&scores);
        let n = p.episodes.len().max(1) as f64;
        let min = scores.iter().cloned().fold(f64::INFINITY, f64::min);
        let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let steps = p.episodes.iter().map(|e| e.steps as f64).sum::<f64>() / n;
        let done = p.episodes.iter().filter(|e| e.terminated).count();
        let ms = 1e3 * p.episodes.iter().map(|e| e.wall_s).sum::<f64>() / n;
        out.push_str(&format!(
            "| {} | {} | {mean:.4} ± {std:.4} | {min:.4} | {max:.4} | {steps:.1} | {done} | {ms:.1} |\n",
            p.policy,
            p.episodes.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::mean_std;

    #[test]
    fn population_sd_is_the_sample_sd_rescaled() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population SD exactly 2 (sample SD √(32/7)).
        let (mean, std) = mean_std(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(mean, 5.0);
        assert!((std - 2.0).abs() < 1e-12, "{std}");
        assert_eq!(mean_std(&[3.0]), (3.0, 0.0));
        assert_eq!(mean_std(&[]), (0.0, 0.0));
    }
}
