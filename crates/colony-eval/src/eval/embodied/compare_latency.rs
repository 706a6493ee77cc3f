//! Model-call latency and throughput per policy of a comparison: p50, p95
//! and p99 of every call that returned a reply, the episodes' wall time and calls per second,
//! rebuilt from `episodes.jsonl` like the rest of the summary.
//!
//! Decisions:
//! - Calls per second are calls over the summed wall time of the policy's episodes, so the
//!   figure is per running episode and does not grow with `--concurrency`.
//! - The table goes to `latency.md`, not `results.md`, as eval's does: latency differs run
//!   to run, and `results.md` is the same bytes for the same work.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::compare_config::EpisodeResult;
use crate::eval::latency_histogram::LatencyHistogram;

/// Latency and throughput of one policy's episodes (errored ones included: their calls ran).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicyLatency {
    /// p50, p95, p99 in milliseconds; absent when no call returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_latency_ms: Option<[f64; 3]>,
    /// Summed wall time of the episodes, in seconds.
    #[serde(default)]
    pub wall_s: f64,
    /// Calls per second of episode wall time; absent without calls or wall time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls_per_s: Option<f64>,
}

/// The latency and throughput of `rows` (one policy's episodes).
pub fn policy_latency(rows: &[&EpisodeResult]) -> PolicyLatency {
    let mut hist = LatencyHistogram::new();
    let mut wall_s = 0.0;
    let mut calls = 0u64;
    for r in rows {
        hist.merge(&r.call_latency_hist);
        if r.wall_s.is_finite() && r.wall_s > 0.0 {
            wall_s += r.wall_s;
        }
        calls = calls.saturating_add(r.calls);
    }
    PolicyLatency {
        call_latency_ms: hist.percentiles(),
        wall_s,
        calls_per_s: (wall_s > 0.0 && calls > 0).then(|| calls as f64 / wall_s),
    }
}

/// The latency table over `(policy, calls, latency)` rows in order (policy, calls, p50,
/// p95, p99, wall time, calls/s), or `None` when no call was timed.
pub fn latency_markdown<'a>(
    policies: impl Iterator<Item = (&'a str, u64, &'a PolicyLatency)>,
) -> Option<String> {
    let mut rows = String::new();
    for (name, calls, p) in policies {
        let Some([p50, p95, p99]) = p.call_latency_ms else {
            continue;
        };
        let rate = p.calls_per_s.map_or("–".into(), |r| format!("{r:.2}"));
        let _ = writeln!(
            rows,
            "| {name} | {calls} | {p50:.1} | {p95:.1} | {p99:.1} | {:.1} | {rate} |",
            p.wall_s
        );
    }
    if rows.is_empty() {
        return None;
    }
    Some(format!(
        "Model-call latency in milliseconds (calls that returned a reply; nearest rank over \
         1% buckets, so within 0.5%; replayed calls keep their recorded latency), the \
         episodes' summed wall time, and calls per second of it:\n\n| policy | calls | p50 | \
         p95 | p99 | wall s | calls/s |\n|---|---|---|---|---|---|---|\n{rows}"
    ))
}
