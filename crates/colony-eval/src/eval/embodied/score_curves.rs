//! Per-step score curves of a comparison (SwarmBench's Fig. 3): for each
//! policy, the mean score after each step over the seeds that finished, with a band of ± one
//! sample standard deviation, drawn as `score_by_step` (SVG and PNG) beside the results.
//!
//! Decisions:
//! - The curves are read back from each episode's `steps.jsonl`, so a resumed or merged run
//!   draws what an uninterrupted one draws.
//! - An episode that ended early keeps its final score for the later steps: the mean at step
//!   k is over every finished seed.
//! - With a single seed there is no band.

use std::io::BufRead;
use std::path::Path;

use serde::Deserialize;

use super::compare::episode_dir;
use super::compare_config::CompareError;
use super::compare_report::CompareSummary;
use crate::eval::plot::{line_chart_with_bands, Band, Caption, Line};

/// The fields of a `steps.jsonl` line the curves need.
#[derive(Deserialize)]
struct StepScore {
    score: f64,
}

/// Scores after each step of one episode, or `None` when its steps cannot be read.
fn episode_scores(dir: &Path) -> Option<Vec<f64>> {
    let file = std::fs::File::open(dir.join("steps.jsonl")).ok()?;
    let mut out = Vec::new();
    for line in std::io::BufReader::new(file).lines() {
        let line = line.ok()?;
        if let Ok(s) = serde_json::from_str::<StepScore>(&line) {
            out.push(s.score);
        }
    }
    Some(out)
}

/// Writes `score_by_step` into `dir` for the configuration `label` of the run in `out`.
pub fn write_score_curves(
    out: &Path,
    label: &str,
    summary: &CompareSummary,
    dir: &Path,
) -> Result<(), CompareError> {
    let mut lines = Vec::new();
    let mut bands = Vec::new();
    for policy in &summary.order {
        let Some(p) = summary.policies.get(policy) else {
            continue;
        };
        let runs: Vec<Vec<f64>> = p
            .seeds
            .iter()
            .filter_map(|&seed| episode_scores(&episode_dir(out, label, policy, seed)))
            .filter(|s| !s.is_empty())
            .collect();
        let steps = runs.iter().map(Vec::len).max().unwrap_or(0);
        let mut mean = Vec::new();
        let mut band = Vec::new();
        for k in 0..steps {
            let xs: Vec<f64> = runs.iter().map(|r| r[k.min(r.len() - 1)]).collect();
            let (m, sd) = mean_sd(&xs);
            let x = (k + 1) as f64;
            mean.push((x, m));
            if let Some(sd) = sd {
                band.push((x, m - sd, m + sd));
            }
        }
        lines.push(Line {
            name: policy.clone(),
            points: mean,
            markers_only: false,
        });
        bands.push(Band { points: band });
    }
    if lines.iter().all(|l| l.points.is_empty()) {
        return Ok(());
    }
    let ys: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .chain(
            bands
                .iter()
                .flat_map(|b| b.points.iter().flat_map(|p| [p.1, p.2])),
        )
        .filter(|v| v.is_finite())
        .collect();
    let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let range = crate::eval::plot::padded(lo, hi, 0.08, 0.08);
    let what = match label {
        "" => format!("{} — model {}", summary.configuration(), summary.model),
        l => format!("{} {l} — model {}", summary.configuration(), summary.model),
    };
    line_chart_with_bands(
        &dir.join("score_by_step.svg"),
        &Caption::new(
            format!("Score after each step, mean ± sd over seeds — {what}"),
            summary.simulated,
        ),
        "step",
        "score",
        range,
        &lines,
        &bands,
    )?;
    Ok(())
}

/// The mean and the sample standard deviation (n − 1; `None` below two values), from the
/// one helper of the results tables ([`crate::eval::stats::mean_sd_ci`]); a mean of 0 without
/// values.
fn mean_sd(xs: &[f64]) -> (f64, Option<f64>) {
    crate::eval::stats::mean_sd_ci(xs).map_or((0.0, None), |(m, sd, _)| (m, sd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_band_is_one_sample_sd() {
        let (m, sd) = mean_sd(&[1.0, 2.0, 3.0]);
        assert_eq!(m, 2.0);
        assert_eq!(sd, Some(1.0));
        assert_eq!(mean_sd(&[4.0]), (4.0, None));
    }
}
