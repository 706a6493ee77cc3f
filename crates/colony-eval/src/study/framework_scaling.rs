//! `colony study framework-scaling`: the CREW-Wildfire paper's Fig. 7 offline. For several
//! team sizes on one environment configuration, each framework runs a fixed number of steps
//! on the simulated model; the study reports model calls, prompt tokens and completion tokens
//! per step, and the growth exponent of each in team size (least-squares slope of
//! log(per-step figure) against log(team size)).
//!
//! The paper says HMAS-2's input tokens grow quadratically in team size (the global state of
//! every agent goes into every call) while calls and output tokens of all frameworks grow
//! roughly linearly. Every output is labelled as simulation: token counts are the simulated
//! model's approximations, and its replies are shorter than a real model's.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::eval::embodied::episode::{run_episode, EpisodeConfig, NullSink};
use colony_llm::{SharedModel, SimulatedConfig, SimulatedModel};
use colony_policy::embodied::{CallerConfig, EmbodiedError, PolicyContext};
use colony_policy::env::{build, EnvLookupError};
use colony_policy::registry::Registry;

/// Settings of the study.
#[derive(Debug, Clone)]
pub struct ScalingConfig {
    /// The registry the environment and frameworks resolve in (it teaches the simulated
    /// model too).
    pub registry: Arc<Registry>,
    /// Environment id.
    pub env: String,
    /// Base `--set` settings (the team size is added as `agents=N`).
    pub set: Vec<String>,
    /// Framework policy names.
    pub frameworks: Vec<String>,
    /// Team sizes.
    pub sizes: Vec<usize>,
    /// Steps per run.
    pub steps: usize,
    /// Episode seed.
    pub seed: u64,
}

/// One (framework, team size) measurement, per environment step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScalingRow {
    /// Framework.
    pub framework: String,
    /// Team size.
    pub agents: usize,
    /// Steps actually taken.
    pub steps: u64,
    /// Model calls per step.
    pub calls_per_step: f64,
    /// Prompt tokens per step.
    pub prompt_tokens_per_step: f64,
    /// Completion tokens per step.
    pub completion_tokens_per_step: f64,
    /// The episode's error, if it stopped early.
    pub error: Option<String>,
}

/// Fitted growth exponents of one framework.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exponents {
    /// Of calls per step.
    pub calls: f64,
    /// Of prompt tokens per step.
    pub prompt_tokens: f64,
    /// Of completion tokens per step.
    pub completion_tokens: f64,
}

/// The study's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScalingReport {
    /// Environment id and settings.
    pub env: String,
    /// Base settings.
    pub set: Vec<String>,
    /// Always "SIMULATION".
    pub label: String,
    /// Every measurement.
    pub rows: Vec<ScalingRow>,
    /// Per framework.
    pub exponents: BTreeMap<String, Exponents>,
}

/// Errors of the study.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ScalingError {
    /// Unknown environment or bad settings.
    #[error(transparent)]
    Env(#[from] EnvLookupError),
    /// Unknown framework.
    #[error(transparent)]
    Policy(#[from] EmbodiedError),
    /// The loop could not run.
    #[error("{0}")]
    Episode(String),
}

/// Least-squares slope of log(y) on log(x) over the points with positive values.
pub fn log_log_slope(points: &[(f64, f64)]) -> f64 {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if pts.len() < 2 {
        return 0.0;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx == 0.0 {
        0.0
    } else {
        sxy / sxx
    }
}

/// Runs the study (sequentially; every run is seeded, so the figures are reproducible).
pub async fn run(config: &ScalingConfig) -> Result<ScalingReport, ScalingError> {
    let registry = &config.registry;
    let model: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig {
        responders: registry.responders(),
        ..SimulatedConfig::default()
    }));
    let entry = registry.environment_entry(&config.env)?;
    let mut rows = Vec::new();
    for fw in &config.frameworks {
        let factory = registry.embodied_factory(fw, entry)?;
        for &n in &config.sizes {
            let mut set = config.set.clone();
            set.retain(|kv| !kv.starts_with("agents="));
            set.push(format!("agents={n}"));
            let mut env = build(entry, &set)?;
            env.reset(config.seed);
            let ctx = PolicyContext {
                entry,
                seed: config.seed,
                caller: CallerConfig {
                    models: vec![model.clone()],
                    sampling: colony_policy::embodied::EMBODIED_SAMPLING,
                    ..CallerConfig::default()
                },
            };
            let mut policy = factory.build(&ctx)?;
            let episode = EpisodeConfig {
                seed: config.seed,
                max_steps: config.steps,
            };
            let out = run_episode(env.as_mut(), policy.as_mut(), episode, &mut NullSink)
                .await
                .map_err(|e| ScalingError::Episode(e.to_string()))?;
            let steps = out.steps.max(1) as f64;
            rows.push(ScalingRow {
                framework: fw.clone(),
                agents: n,
                steps: out.steps,
                calls_per_step: (out.calls + out.failed_calls) as f64 / steps,
                prompt_tokens_per_step: out.prompt_tokens as f64 / steps,
                completion_tokens_per_step: out.completion_tokens as f64 / steps,
                error: out.error,
            });
        }
    }
    let mut exponents = BTreeMap::new();
    for fw in &config.frameworks {
        let mine: Vec<&ScalingRow> = rows.iter().filter(|r| &r.framework == fw).collect();
        let fit = |f: fn(&ScalingRow) -> f64| {
            log_log_slope(
                &mine
                    .iter()
                    .map(|r| (r.agents as f64, f(r)))
                    .collect::<Vec<_>>(),
            )
        };
        exponents.insert(
            fw.clone(),
            Exponents {
                calls: fit(|r| r.calls_per_step),
                prompt_tokens: fit(|r| r.prompt_tokens_per_step),
                completion_tokens: fit(|r| r.completion_tokens_per_step),
            },
        );
    }
    Ok(ScalingReport {
        env: config.env.clone(),
        set: config.set.clone(),
        label: "SIMULATION".into(),
        rows,
        exponents,
    })
}

impl ScalingReport {
    /// The Markdown table (labelled SIMULATION) with the fitted exponents.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "## Framework scaling on {} {} [SIMULATION: offline simulated model]\n\n| framework | agents | steps | calls/step | prompt tokens/step | completion tokens/step | error |\n|---|---|---|---|---|---|---|\n",
            self.env,
            self.set.join(" ")
        );
        for r in &self.rows {
            out.push_str(&format!(
                "| {} | {} | {} | {:.1} | {:.0} | {:.0} | {} |\n",
                r.framework,
                r.agents,
                r.steps,
                r.calls_per_step,
                r.prompt_tokens_per_step,
                r.completion_tokens_per_step,
                r.error.as_deref().unwrap_or("")
            ));
        }
        out.push_str("\n| framework | exponent: calls | prompt tokens | completion tokens |\n|---|---|---|---|\n");
        for (fw, e) in &self.exponents {
            out.push_str(&format!(
                "| {fw} | {:.2} | {:.2} | {:.2} |\n",
                e.calls, e.prompt_tokens, e.completion_tokens
            ));
        }
        out
    }

    /// The rows as CSV (first column `label` = SIMULATION).
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "label,env,framework,agents,steps,calls_per_step,prompt_tokens_per_step,completion_tokens_per_step\n",
        );
        for r in &self.rows {
            out.push_str(&format!(
                "SIMULATION,{},{},{},{},{:.3},{:.3},{:.3}\n",
                self.env,
                r.framework,
                r.agents,
                r.steps,
                r.calls_per_step,
                r.prompt_tokens_per_step,
                r.completion_tokens_per_step
            ));
        }
        out
    }

    /// Log-log lines of prompt tokens per step against team size, one per framework.
    pub fn lines(&self) -> Vec<crate::eval::plot::Line> {
        let mut by: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
        for r in &self.rows {
            if r.prompt_tokens_per_step > 0.0 {
                by.entry(r.framework.as_str())
                    .or_default()
                    .push(((r.agents as f64).log2(), r.prompt_tokens_per_step.log2()));
            }
        }
        by.into_iter()
            .map(|(name, points)| crate::eval::plot::Line {
                name: name.to_string(),
                points,
                markers_only: false,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slopes_of_power_laws() {
        let quad: Vec<(f64, f64)> = [4.0, 8.0, 16.0, 32.0]
            .iter()
            .map(|&n| (n, 3.0 * n * n))
            .collect();
        assert!((log_log_slope(&quad) - 2.0).abs() < 1e-9);
        let lin: Vec<(f64, f64)> = [4.0, 8.0, 16.0].iter().map(|&n| (n, 5.0 * n)).collect();
        assert!((log_log_slope(&lin) - 1.0).abs() < 1e-9);
        assert_eq!(log_log_slope(&[(4.0, 1.0)]), 0.0);
    }
}
