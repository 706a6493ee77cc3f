//! The judge's table in `results.md` (docs/design/grading.md §7.4): per policy, the accuracy
//! under each grader side by side, named after the grader that produced it, their agreement,
//! and the judge's own calls, tokens and cost, so a reader never mistakes a judge's number for
//! the rules' or charges a method for its grader.
//!
//! The judge score is a rubric grader's mean weighted score (the coverage column of the
//! SwarmSys tables with `rubrics/coverage.toml`); `–` for the equivalence grader.
//!
//! Decision: the main results table keeps the rule grader's accuracy under every `--grade`
//! except `judge` (where `correct` is the judge's, and this table says so in its heading).

use std::fmt::Write;

use super::summary::Summary;
use crate::eval::judge::JudgeSummary;

/// `x` as a percentage with one decimal, or `–`.
fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "–".into(), |x| format!("{:.1}", 100.0 * x))
}

/// `x` with three decimals, or `–`.
fn num(x: Option<f64>) -> String {
    x.map_or_else(|| "–".into(), |x| format!("{x:.3}"))
}

/// The judge table of `summary`, or `None` when no policy was judged.
pub fn judge_markdown(summary: &Summary) -> Option<String> {
    let judged: Vec<(&String, &JudgeSummary)> = summary
        .policies_in_order()
        .into_iter()
        .filter_map(|(m, p)| p.judge.as_ref().map(|j| (m, j)))
        .collect();
    if judged.is_empty() {
        return None;
    }
    let mut out = String::from(
        "Judge (model-graded; the judge's calls, tokens and cost are its own, not the method's):\n\n\
         | Method | Rules acc (%) | Judge | Judge acc (%) | Judge score (%) | Agreement | κ | McNemar p | Judge errors | Judge calls | Judge tokens | Judge cost (USD) |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for (method, j) in judged {
        let rules = if j.paired > 0 {
            pct(j.rules_accuracy)
        } else {
            "–".into()
        };
        let _ = writeln!(
            out,
            "| {method} | {rules} | judge:{} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            j.grader,
            pct(j.accuracy),
            pct(j.mean_score),
            pct(j.agreement),
            num(j.kappa),
            num(j.p_value),
            j.errors,
            j.calls,
            j.tokens,
            j.cost_usd.map_or_else(|| "–".into(), |c| format!("{c:.4}")),
        );
    }
    let pairwise: Vec<_> = summary
        .policies_in_order()
        .into_iter()
        .filter_map(|(m, p)| p.judge.as_ref()?.pairwise.as_ref().map(|w| (m, w)))
        .collect();
    if !pairwise.is_empty() {
        out.push_str(
            "\nPairwise (the judge compares each policy's response with the reference policy's, \
             shown in a seeded order; position bias: the share of decisive verdicts for the \
             response shown first, 0.5 is none):\n\n\
             | Method | Against | Compared | Wins | Ties | Losses | Win rate (%) | Position bias |\n\
             |---|---|---|---|---|---|---|---|\n",
        );
        for (method, w) in pairwise {
            let _ = writeln!(
                out,
                "| {method} | {} | {} | {} | {} | {} | {} | {} |",
                w.against,
                w.compared,
                w.wins,
                w.ties,
                w.losses,
                pct(w.win_rate),
                num(w.position_bias),
            );
        }
    }
    Some(out)
}
