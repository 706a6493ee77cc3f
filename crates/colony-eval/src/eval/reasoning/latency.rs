//! Model-call latency per policy: nearest-rank percentiles over every
//! timed call of a policy's finished items, from the `call_latency_ms` each item result
//! records, so a summary rebuilt from the files (resume, shards, `merge`) has the same figures.
//! The table goes to `latency.md`, not `results.md`: latency differs run to run, and
//! `results.md` is the same bytes for the same work.

use crate::eval::results::ItemResult;

/// The median, 95th and 99th percentile (nearest rank) of the call latencies of `results`;
/// `None` when none was timed.
pub fn latency_percentiles(results: &[ItemResult]) -> Option<[f64; 3]> {
    percentiles(
        results
            .iter()
            .flat_map(|r| r.call_latency_ms.iter().copied())
            .collect(),
    )
}

/// The median, 95th and 99th percentile (nearest rank) of `all`; `None` when it is empty.
pub fn percentiles(mut all: Vec<f64>) -> Option<[f64; 3]> {
    all.retain(|x| x.is_finite());
    if all.is_empty() {
        return None;
    }
    all.sort_by(f64::total_cmp);
    let rank = |q: f64| {
        let k = (q * all.len() as f64).ceil() as usize;
        all[k.clamp(1, all.len()) - 1]
    };
    Some([rank(0.50), rank(0.95), rank(0.99)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(latencies: &[f64]) -> ItemResult {
        let mut r: ItemResult = serde_json::from_value(serde_json::json!({
            "id": "1", "policy": "p", "answer": null, "gold": "1", "correct": false,
            "calls": latencies.len(), "prompt_tokens": 0, "completion_tokens": 0, "wall_ms": 0.0
        }))
        .unwrap_or_else(|e| unreachable!("{e}"));
        r.call_latency_ms = latencies.to_vec();
        r
    }

    #[test]
    fn percentiles_are_nearest_rank_over_every_call() {
        // 1..=100 ms over two items: p50 = 50, p95 = 95, p99 = 99.
        let a: Vec<f64> = (1..=60).map(f64::from).collect();
        let b: Vec<f64> = (61..=100).rev().map(f64::from).collect();
        assert_eq!(
            latency_percentiles(&[item(&a), item(&b)]),
            Some([50.0, 95.0, 99.0])
        );
        assert_eq!(latency_percentiles(&[item(&[7.0])]), Some([7.0, 7.0, 7.0]));
        assert_eq!(latency_percentiles(&[item(&[])]), None);
    }
}
