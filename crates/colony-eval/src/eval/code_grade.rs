//! `colony grade` on code datasets: every prediction's completion runs against its item's tests
//! in the sandbox, many at once; several predictions of one item are samples, scored with the
//! unbiased pass@k (docs/design/sandbox.md §3).

use std::collections::BTreeMap;

use colony_policy::registry::{pass_at_k, CodeJudge};
use colony_qa::grade::extract_completion;
use colony_qa::{AnswerType, Item};
use serde::Serialize;

/// One graded prediction.
#[derive(Debug, Clone, Serialize)]
pub struct CodeRow {
    /// The item id.
    pub id: String,
    /// The completion taken from the output.
    pub extracted: String,
    /// Whether the tests passed; `None` when the check could not run (see `error`).
    pub correct: Option<bool>,
    /// The harness's result: `passed`, `timed out` or `failed: …`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Why the check could not run (a sandbox failure): not scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The report `colony grade --json` prints for a code dataset.
#[derive(Debug, Clone, Serialize)]
pub struct CodeReport {
    /// Predictions graded (errors excluded).
    pub n: usize,
    /// Predictions whose tests passed.
    pub correct: usize,
    /// `correct / n` (0 without graded predictions).
    pub accuracy: f64,
    /// Predictions whose check could not run: counted here, never as wrong answers.
    pub errors: usize,
    /// The sandbox the checks ran in (`bubblewrap`, `none`).
    pub sandbox: &'static str,
    /// False when the checks ran on the host (`--sandbox none`).
    pub sandboxed: bool,
    /// Items with at least one graded sample.
    pub items_graded: usize,
    /// The unbiased pass@k over items, for k = 1, 10, 100 up to the fewest samples an item has.
    pub pass_at_k: BTreeMap<String, f64>,
    /// Every prediction, in the predictions file's order.
    pub items: Vec<CodeRow>,
}

/// Grades `predictions` (`(id, output)`, in file order) of the code `items` with `judge`.
/// Predictions of ids not in `items` are left out (the caller reports unknown ids).
pub fn grade_code(
    judge: &CodeJudge,
    items: &BTreeMap<&str, &Item>,
    predictions: &[(String, String)],
) -> CodeReport {
    let mut pairs = Vec::new();
    let mut rows = Vec::new();
    for (id, output) in predictions {
        let Some(item) = items.get(id.as_str()) else {
            continue;
        };
        let entry = match &item.answer_type {
            AnswerType::Code { entry_point, .. } => entry_point.as_str(),
            _ => "",
        };
        let completion = extract_completion(output, entry);
        rows.push(CodeRow {
            id: id.clone(),
            extracted: completion,
            correct: None,
            result: None,
            error: None,
        });
        pairs.push(*item);
    }
    let checks: Vec<(&Item, &str)> = pairs
        .iter()
        .zip(&rows)
        .map(|(item, row)| (*item, row.extracted.as_str()))
        .collect();
    let verdicts = judge.check_all(&checks);
    for (row, verdict) in rows.iter_mut().zip(verdicts) {
        match verdict {
            Ok(v) => {
                row.correct = Some(v.passed);
                row.result = Some(v.result);
            }
            Err(e) => row.error = Some(e.to_string()),
        }
    }
    // Samples per item: (graded, passed).
    let mut per_item: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for row in &rows {
        if let Some(ok) = row.correct {
            let e = per_item.entry(row.id.as_str()).or_default();
            e.0 += 1;
            e.1 += usize::from(ok);
        }
    }
    let fewest = per_item.values().map(|(n, _)| *n).min().unwrap_or(0);
    let mut pass = BTreeMap::new();
    for k in [1usize, 10, 100] {
        if k > fewest {
            break;
        }
        let total: f64 = per_item
            .values()
            .filter_map(|(n, c)| pass_at_k(*n, *c, k))
            .sum();
        pass.insert(format!("pass@{k}"), total / per_item.len() as f64);
    }
    let n = rows.iter().filter(|r| r.correct.is_some()).count();
    let correct = rows.iter().filter(|r| r.correct == Some(true)).count();
    CodeReport {
        n,
        correct,
        accuracy: if n == 0 {
            0.0
        } else {
            correct as f64 / n as f64
        },
        errors: rows.len() - n,
        sandbox: judge.sandbox_name(),
        sandboxed: judge.isolated(),
        items_graded: per_item.len(),
        pass_at_k: pass,
        items: rows,
    }
}
