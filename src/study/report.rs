//! Tables (Markdown, CSV) and SVG plots of the amplification study, each labelled as simulation.

use std::fmt::Write as _;
use std::path::Path;

use super::amplification::{ClosedFormRow, PolicyRow, StudyConfig};
use crate::eval::plot::{line_chart, Line, PlotError};

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
                        100.0 * r.summary.accuracy,
                        r.tokens_per_item
                    );
                }
                Some(r) => {
                    let _ = write!(out, " {:.1}% |", 100.0 * r.summary.accuracy);
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
            s.accuracy,
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
        "SIMULATION: P(at least two of N agents correct)",
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
                .map(|r| (r.p, r.summary.accuracy))
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
        &format!("SIMULATION: {title}"),
        "per-agent accuracy p",
        "accuracy",
        (0.0, 1.0),
        &lines,
    )
}
