//! [`LatencyHistogram`]: model-call latencies of an episode in logarithmic buckets, so an
//! `episodes.jsonl` line stays small however many calls the episode made, and percentiles
//! over a whole comparison can be rebuilt from the files (resume, shards, `merge`).
//!
//! Decision: an episode can make thousands of calls (CAMON on 10-agent
//! SwarmBench, a Wildfire level with dozens of agents), so storing every latency as eval's
//! items do would make each line tens of kilobytes. Buckets 1% wide keep the line to at most
//! a few hundred numbers and each percentile within 0.5% of the exact nearest-rank value:
//! a bucket reports its geometric midpoint.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Relative width of a bucket: bucket `i` holds latencies in `[FLOOR·Rⁱ, FLOOR·Rⁱ⁺¹)`.
const R: f64 = 1.01;
/// The lower edge of bucket 0, in milliseconds; faster calls (replies from a cache) count
/// in bucket 0.
const FLOOR_MS: f64 = 0.01;
/// The last bucket (about 10¹¹ ms, three years); slower calls count in it.
const LAST: u32 = 3_000;

/// Call latencies in 1%-wide logarithmic buckets: bucket index → calls.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LatencyHistogram(BTreeMap<u32, u64>);

impl LatencyHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one call of `ms` milliseconds (non-finite values are not counted).
    pub fn record(&mut self, ms: f64) {
        if !ms.is_finite() {
            return;
        }
        let i = if ms <= FLOOR_MS {
            0
        } else {
            ((ms / FLOOR_MS).ln() / R.ln()).floor().min(f64::from(LAST)) as u32
        };
        let n = self.0.entry(i).or_default();
        *n = n.saturating_add(1);
    }

    /// Adds the counts of `other`.
    pub fn merge(&mut self, other: &Self) {
        for (&i, &n) in &other.0 {
            let c = self.0.entry(i.min(LAST)).or_default();
            *c = c.saturating_add(n);
        }
    }

    /// Calls counted.
    pub fn count(&self) -> u64 {
        self.0.values().fold(0, |a, &n| a.saturating_add(n))
    }

    /// Whether no call was counted.
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }

    /// The median, 95th and 99th percentile (nearest rank over the buckets, each reported
    /// at its geometric midpoint); `None` when empty.
    pub fn percentiles(&self) -> Option<[f64; 3]> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        let at = |q: f64| {
            let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
            let mut seen = 0u64;
            for (&i, &n) in &self.0 {
                seen = seen.saturating_add(n);
                if seen >= rank {
                    return FLOOR_MS * R.powf(f64::from(i.min(LAST)) + 0.5);
                }
            }
            FLOOR_MS * R.powf(f64::from(LAST) + 0.5)
        };
        Some([at(0.50), at(0.95), at(0.99)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::reasoning::latency::percentiles;

    #[test]
    fn percentiles_are_within_half_a_percent_of_the_exact_ones() {
        let xs: Vec<f64> = (1..=997).map(|i| f64::from(i) * 3.7 + 0.2).collect();
        let mut h = LatencyHistogram::new();
        let (a, b) = xs.split_at(400);
        let mut h2 = LatencyHistogram::new();
        a.iter().for_each(|&x| h.record(x));
        b.iter().for_each(|&x| h2.record(x));
        h.merge(&h2);
        assert_eq!(h.count(), 997);
        let exact = percentiles(xs).unwrap_or_default();
        let got = h.percentiles().unwrap_or_default();
        for (e, g) in exact.iter().zip(got) {
            assert!((g / e - 1.0).abs() <= 0.005, "{e} vs {g}");
        }
    }

    #[test]
    fn extremes_land_in_the_end_buckets_and_empty_has_no_percentiles() {
        let mut h = LatencyHistogram::new();
        assert_eq!(h.percentiles(), None);
        h.record(f64::NAN);
        assert!(h.is_empty());
        h.record(0.0);
        h.record(1e300);
        let [p50, _, p99] = h.percentiles().unwrap_or_default();
        assert!(p50 < 0.011 && p99 > 1e10, "{p50} {p99}");
        let json = serde_json::to_string(&h).unwrap_or_default();
        assert_eq!(json, format!("{{\"0\":1,\"{LAST}\":1}}"));
    }
}
