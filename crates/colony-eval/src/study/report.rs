//! Tables (Markdown, CSV) and SVG plots of the amplification study, each labelled as simulation.

use std::fmt::Write as _;
use std::path::Path;

use super::amplification::{ClosedFormRow, PolicyRow, StudyConfig};
use super::gap::{GapRow, REFERENCE};
use crate::eval::plot::{line_chart, Caption, Line, PlotError};

/// The label every output of the study carries.
pub const SIMULATION_LABEL: &str = "SIMULATION (colony's simulated model, not an LLM)";

/// The distinct values of `items`, in first-seen order (rows come in the study's order).
fn distinct<T: PartialEq>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Part (a) as Markdown: one row per N, closed form and Monte-Carlo per p.
pub fn closed_form_markdown(rows: &[ClosedFormRow], config: &StudyConfig) -> String {
    let ps = distinct(rows.iter().map(|r| r.p));
    let mut out = format!(
        "**{SIMULATION_LABEL}.** P(at least two of N agents correct): closed form vs \
         Monte-Carlo ({} trials per cell, seed {}).\n\n| N |",
        config.trials, config.seed
    );
    for p in &ps {
        let _ = write!(out, " p={p} closed | p={p} MC ± 95% |");
    }
    out.push_str("\n|---|");
    out.push_str(&"---|---|".repeat(ps.len()));
    out.push('\n');
    for &n in &config.agent_counts {
        let _ = write!(out, "| {n} |");
        for &p in &ps {
            if let Some(r) = rows.iter().find(|r| r.n == n && r.p == p) {
                let _ = write!(
                    out,
                    " {:.4} | {:.4} ± {:.4} |",
                    r.closed_form, r.monte_carlo, r.ci95
                );
            }
        }
        out.push('\n');
    }
    out
}

/// Part (a) as CSV.
pub fn closed_form_csv(rows: &[ClosedFormRow]) -> String {
    let mut out = String::from("simulation,n,p,closed_form,monte_carlo,ci95\n");
    for r in rows {
        let _ = writeln!(
            out,
            "true,{},{},{:.6},{:.6},{:.6}",
            r.n, r.p, r.closed_form, r.monte_carlo, r.ci95
        );
    }
    out
}

/// Parts (b)/(c) as Markdown: one row per policy, accuracy (and tokens per item) per p.
pub fn policy_markdown(title: &str, rows: &[PolicyRow], with_tokens: bool) -> String {
    let ps = distinct(rows.iter().map(|r| r.p));
    let policies = distinct(rows.iter().map(|r| r.policy.as_str()));
    let mut out = format!("**{SIMULATION_LABEL}.** {title}\n\n| Policy |");
    for p in &ps {
        let _ = write!(out, " p={p} |");
    }
    out.push_str(" calls/item (mean) |\n|---|");
    out.push_str(&"---|".repeat(ps.len() + 1));
    out.push('\n');
    for policy in policies {
        let _ = write!(out, "| {policy} |");
        let mine: Vec<&PolicyRow> = rows.iter().filter(|r| r.policy == policy).collect();
        for &p in &ps {
            match mine.iter().find(|r| r.p == p) {
                Some(r) if with_tokens => {
                    let _ = write!(
                        out,
                        " {:.1}% ({:.0} tok) |",
                        100.0 * r.summary.accuracy_or_nan(),
                        r.tokens_per_item
                    );
                }
                Some(r) => {
                    let _ = write!(out, " {:.1}% |", 100.0 * r.summary.accuracy_or_nan());
                }
                None => out.push_str(" – |"),
            }
        }
        let calls = mine.iter().map(|r| r.calls_per_item).sum::<f64>() / mine.len().max(1) as f64;
        let _ = writeln!(out, " {calls:.2} |");
    }
    out
}

/// Parts (b)/(c) as CSV.
pub fn policy_csv(rows: &[PolicyRow]) -> String {
    let mut out = String::from(
        "simulation,policy,p,n,correct,accuracy,errors,calls_per_item,tokens_per_item,prompt_tokens,completion_tokens\n",
    );
    for r in rows {
        let s = &r.summary;
        let _ = writeln!(
            out,
            "true,{},{},{},{},{:.6},{},{:.3},{:.1},{},{}",
            r.policy,
            r.p,
            s.n,
            s.correct,
            s.accuracy_or_nan(),
            s.errors,
            r.calls_per_item,
            r.tokens_per_item,
            s.prompt_tokens,
            s.completion_tokens
        );
    }
    out
}

/// Part (a) plot: closed-form curves and Monte-Carlo markers against N.
pub fn closed_form_svg(rows: &[ClosedFormRow], path: &Path) -> Result<(), PlotError> {
    let ps = distinct(rows.iter().map(|r| r.p));
    let mut lines = Vec::new();
    for p in ps {
        let mine: Vec<&ClosedFormRow> = rows.iter().filter(|r| r.p == p).collect();
        lines.push(Line {
            name: format!("closed form, p={p}"),
            points: mine.iter().map(|r| (r.n as f64, r.closed_form)).collect(),
            markers_only: false,
        });
        lines.push(Line {
            name: format!("Monte-Carlo, p={p}"),
            points: mine.iter().map(|r| (r.n as f64, r.monte_carlo)).collect(),
            markers_only: true,
        });
    }
    line_chart(
        path,
        &Caption::new("P(at least two of N agents correct)", true),
        "agents N",
        "probability",
        (0.0, 1.0),
        &lines,
    )
}

/// Parts (b)/(c) plot: accuracy against the per-agent accuracy p, one line per policy, with
/// the single agent's diagonal for reference.
pub fn policy_svg(title: &str, rows: &[PolicyRow], path: &Path) -> Result<(), PlotError> {
    let policies = distinct(rows.iter().map(|r| r.policy.as_str()));
    let mut lines: Vec<Line> = policies
        .iter()
        .map(|policy| Line {
            name: (*policy).to_string(),
            points: rows
                .iter()
                .filter(|r| r.policy == *policy)
                .map(|r| (r.p, r.summary.accuracy_or_nan()))
                .collect(),
            markers_only: false,
        })
        .collect();
    let ps = distinct(rows.iter().map(|r| r.p));
    lines.push(Line {
        name: "y = p (one agent)".into(),
        points: ps.iter().map(|&p| (p, p)).collect(),
        markers_only: true,
    });
    line_chart(
        path,
        &Caption::new(title, true),
        "per-agent accuracy p",
        "accuracy",
        (0.0, 1.0),
        &lines,
    )
}

/// Part (d) as Markdown: per reply style, one row per policy with accuracy per p (and the
/// difference to self-consistency in points), the mean gap, tokens and calls per item (means
/// over p), then a sentence naming the policy closest to self-consistency and its token cost.
pub fn gap_markdown(title: &str, rows: &[GapRow]) -> String {
    let mut out = format!("**{SIMULATION_LABEL}.** {title}\n");
    for style in distinct(rows.iter().map(|r| r.replies.as_str())) {
        let mine: Vec<&GapRow> = rows.iter().filter(|r| r.replies == style).collect();
        let ps = distinct(mine.iter().map(|r| r.row.p));
        let _ = write!(out, "\n{style} replies:\n\n| Policy |");
        for p in &ps {
            let _ = write!(out, " p={p} |");
        }
        out.push_str(" mean gap (points) | tokens/item | calls/item |\n|---|");
        out.push_str(&"---|".repeat(ps.len() + 3));
        out.push('\n');
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let mut summaries: Vec<(&str, Option<f64>, f64)> = Vec::new();
        for policy in distinct(mine.iter().map(|r| r.row.policy.as_str())) {
            let of: Vec<&&GapRow> = mine.iter().filter(|r| r.row.policy == policy).collect();
            let _ = write!(out, "| {policy} |");
            for &p in &ps {
                match of.iter().find(|r| r.row.p == p) {
                    Some(r) => {
                        let _ = write!(out, " {:.1}%", 100.0 * r.row.summary.accuracy_or_nan());
                        if let Some(g) = r.gap_points {
                            let _ = write!(out, " ({g:+.1})");
                        }
                        out.push_str(" |");
                    }
                    None => out.push_str(" – |"),
                }
            }
            let gaps: Vec<f64> = of.iter().filter_map(|r| r.gap_points).collect();
            let gap = (!gaps.is_empty()).then(|| mean(&gaps));
            let tokens = mean(&of.iter().map(|r| r.row.tokens_per_item).collect::<Vec<_>>());
            let calls = mean(&of.iter().map(|r| r.row.calls_per_item).collect::<Vec<_>>());
            match gap {
                Some(g) => {
                    let _ = write!(out, " {g:+.1} |");
                }
                None => out.push_str(" – |"),
            }
            let _ = writeln!(out, " {tokens:.0} | {calls:.2} |");
            summaries.push((policy, gap, tokens));
        }
        let reference = summaries.iter().find(|s| s.0 == REFERENCE).map(|s| s.2);
        // The largest mean gap; on equal gaps the cheaper policy, then the one listed first.
        let best = |family: &str| {
            summaries
                .iter()
                .rev()
                .filter(|s| s.0.starts_with(family))
                .filter_map(|&(p, g, t)| g.map(|g| (p, g, t)))
                .max_by(|a, b| a.1.total_cmp(&b.1).then(b.2.total_cmp(&a.2)))
        };
        for (label, family) in [
            ("Closest to", ""),
            ("Best SelfOrg window against", "selforg"),
        ] {
            if let (Some((policy, gap, tokens)), Some(sc)) = (best(family), reference) {
                let _ = writeln!(
                    out,
                    "\n{label} {REFERENCE} with {style} replies: **{policy}**, {gap:+.1} points \
                     on average, at {:.2}× its tokens per item ({tokens:.0} vs {sc:.0}).",
                    tokens / sc.max(1.0)
                );
            }
        }
    }
    out
}

/// Part (d) as CSV.
pub fn gap_csv(rows: &[GapRow]) -> String {
    let mut out = String::from(
        "simulation,replies,policy,p,n,correct,accuracy,errors,gap_points,calls_per_item,tokens_per_item\n",
    );
    for r in rows {
        let s = &r.row.summary;
        let gap = r.gap_points.map_or(String::new(), |g| format!("{g:.2}"));
        let _ = writeln!(
            out,
            "true,{},{},{},{},{},{:.6},{},{gap},{:.3},{:.1}",
            r.replies,
            r.row.policy,
            r.row.p,
            s.n,
            s.correct,
            s.accuracy_or_nan(),
            s.errors,
            r.row.calls_per_item,
            r.row.tokens_per_item
        );
    }
    out
}

/// The rows of part (d) with one reply style, as part (b)'s rows (for [`policy_svg`]).
pub fn gap_policy_rows(rows: &[GapRow], style: &str) -> Vec<PolicyRow> {
    rows.iter()
        .filter(|r| r.replies == style)
        .map(|r| r.row.clone())
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::eval::PolicySummary;

    fn row(policy: &str, p: f64, accuracy: f64, tokens: f64, gap: Option<f64>) -> GapRow {
        GapRow {
            replies: "long".into(),
            row: PolicyRow {
                policy: policy.into(),
                p,
                summary: PolicySummary {
                    n: 10,
                    accuracy: Some(accuracy),
                    ..PolicySummary::default()
                },
                calls_per_item: 5.0,
                tokens_per_item: tokens,
            },
            gap_points: gap,
        }
    }

    #[test]
    fn gap_table_names_the_closest_policy_and_its_token_cost() {
        let rows = vec![
            row(REFERENCE, 0.5, 0.8, 1000.0, None),
            row("selforg", 0.5, 0.5, 4000.0, Some(-30.0)),
            row("selforg:embed=answer", 0.5, 0.8, 3000.0, Some(0.0)),
            row("swarmsys", 0.5, 0.8, 9000.0, Some(0.0)),
        ];
        let md = gap_markdown("t", &rows);
        assert!(
            md.contains("| selforg | 50.0% (-30.0) | -30.0 | 4000 | 5.00 |"),
            "{md}"
        );
        // Equal gaps: the cheaper one.
        assert!(
            md.contains(
                "Closest to self_consistency with long replies: **selforg:embed=answer**, +0.0 \
             points on average, at 3.00× its tokens per item (3000 vs 1000)."
            ),
            "{md}"
        );
        assert!(
            md.contains("Best SelfOrg window against self_consistency"),
            "{md}"
        );
        let csv = gap_csv(&rows);
        assert!(csv.starts_with("simulation,replies,"));
        assert!(
            csv.contains("true,long,selforg,0.5,10,0,0.500000,0,-30.00,5.000,4000.0"),
            "{csv}"
        );
        assert_eq!(gap_policy_rows(&rows, "long").len(), 4);
        assert!(gap_policy_rows(&rows, "short").is_empty());
    }
}
