//! Policy metrics in the eval summary: what a policy measures about its own run (SwarmSys's
//! contribution-balance entropy, drift and clustering, docs/design/swarmsys.md §2.10), averaged
//! per policy.
//!
//! **Decision (the contract).** A policy contributes named metrics by writing a `metrics`
//! object into each item's trace. Every top-level entry of it that is a finite JSON number is
//! one metric of that item; `null`, missing and non-numeric entries (arrays, per-agent
//! objects) are skipped, so detail can sit beside the numbers. The summary keeps, per policy
//! (and per dataset), the mean of each metric over the items that report it and how many did:
//! `"metrics": {"h_c": {"mean": 0.81, "items": 40}, …}` inside the policy's entry of
//! `summary.json` (left out when no item reports any, so existing keys never change). Totals
//! over datasets weight each dataset's mean by its item count. `results.md` adds a second
//! table, "Policy metrics", when any policy has some.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The mean of one metric over the items that report it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MetricMean {
    /// Mean over the reporting items.
    pub mean: f64,
    /// Items that reported the metric.
    pub items: usize,
}

/// Metrics by name.
pub type Metrics = BTreeMap<String, MetricMean>;

/// The metrics one item reports: the finite top-level numbers of `trace.metrics`.
pub fn item_metrics(trace: &Value) -> Metrics {
    let Some(object) = trace.get("metrics").and_then(Value::as_object) else {
        return Metrics::new();
    };
    object
        .iter()
        .filter_map(|(name, v)| {
            let x = v.as_f64().filter(|x| x.is_finite())?;
            Some((name.clone(), MetricMean { mean: x, items: 1 }))
        })
        .collect()
}

/// Adds `other`'s metrics into `into`, weighting each mean by its item count.
pub fn merge(into: &mut Metrics, other: &Metrics) {
    for (name, m) in other {
        let entry = into.entry(name.clone()).or_insert(MetricMean {
            mean: 0.0,
            items: 0,
        });
        let total = entry.items + m.items;
        if total > 0 {
            entry.mean = (entry.mean * entry.items as f64 + m.mean * m.items as f64) / total as f64;
        }
        entry.items = total;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::eval::reasoning::summary::Summary;
    use crate::eval::reasoning::table::metrics_markdown;
    use crate::eval::{ItemResult, PolicySummary};
    use serde_json::json;

    fn item(id: &str, trace: Value) -> ItemResult {
        ItemResult {
            id: id.into(),
            policy: "swarmsys".into(),
            dataset: "gsm8k".into(),
            answer: Some("1".into()),
            gold: "1".into(),
            correct: true,
            error: None,
            failed_calls: 0,
            fatal: false,
            calls: 3,
            retries: 0,
            prompt_tokens: 10,
            completion_tokens: 5,
            wall_ms: 1.0,
            cost_usd: None,
            call_latency_ms: Vec::new(),
            trace,
            transcript: None,
            unsandboxed: false,
            tool_calls: 0,
            tool_errors: 0,
            tool_ms: 0.0,
            samples: 0,
            samples_correct: 0,
            judge_correct: None,
            judge: None,
            response: None,
            judge_transcript: None,
        }
    }

    #[test]
    fn only_finite_top_level_numbers_count() {
        let m = item_metrics(&json!({"metrics": {
            "h_c": 0.5, "drift": {"mean": 0.1}, "clustering": [0.2], "none": null, "n": 3
        }}));
        assert_eq!(m.keys().collect::<Vec<_>>(), vec!["h_c", "n"]);
        assert!(item_metrics(&json!({"metrics": [1, 2]})).is_empty());
        assert!(item_metrics(&Value::Null).is_empty());
    }

    #[test]
    fn summaries_average_over_reporting_items_and_datasets() {
        let results = vec![
            item("a", json!({"metrics": {"h_c": 0.2, "drift_final": 0.1}})),
            item("b", json!({"metrics": {"h_c": 0.6}})),
            item("c", json!({"method": "other"})),
        ];
        let s = PolicySummary::of(&results);
        assert!((s.metrics["h_c"].mean - 0.4).abs() < 1e-12);
        assert_eq!(s.metrics["h_c"].items, 2);
        assert_eq!(s.metrics["drift_final"].items, 1);
        let mut summary = Summary::default();
        summary.record("gsm8k", "swarmsys", s);
        summary.record(
            "math",
            "swarmsys",
            PolicySummary::of(&[item("d", json!({"metrics": {"h_c": 1.0}}))]),
        );
        summary.record(
            "gsm8k",
            "single",
            PolicySummary::of(&[item("a", json!({}))]),
        );
        let total = &summary.policies["swarmsys"].metrics["h_c"];
        assert!((total.mean - 0.6).abs() < 1e-12, "(0.2 + 0.6 + 1.0) / 3");
        assert_eq!(total.items, 3);
        // Policies without metrics keep the old JSON shape.
        let json = serde_json::to_value(&summary).unwrap();
        assert!(json["policies"]["single"].get("metrics").is_none());
        assert_eq!(json["policies"]["swarmsys"]["metrics"]["h_c"]["items"], 3);
        let md = metrics_markdown(&summary).unwrap();
        assert!(
            md.contains("| Method | drift_final | h_c | Items |"),
            "{md}"
        );
        assert!(md.contains("| swarmsys | 0.100 | 0.600 | 3 |"), "{md}");
        assert!(!md.contains("| single |"));
        assert!(metrics_markdown(&Summary::default()).is_none());
    }
}
