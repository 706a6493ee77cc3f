//! The paper's tables for a comparison grid over `level` (docs/design/wildfire.md §13): the
//! normalized score (NS) of every policy on every level with the paper's Table 3 raw score
//! beside ours, our Behavior Competency Score (BCS) per policy, and the paper's own BCS over
//! the same levels (Table 4 when all 17 ran). colony calls it through
//! [`colony_env_api::EnvEntry::grid_report`].

use std::collections::{BTreeMap, BTreeSet};

use colony_env_api::{GridInput, GridReport};

use crate::metrics::{bcs, markdown, BcsReport, Scores};

/// The paper's mean raw scores (CREW-Wildfire Table 3) of a framework on a configuration
/// (1–17), for colony's `camon`, `coela`, `embodied` and `hmas2`.
pub fn paper_score(policy: &str, level: &str) -> Option<f64> {
    let column = match policy {
        "camon" => 0,
        "coela" => 1,
        "embodied" => 2,
        "hmas2" => 3,
        _ => return None,
    };
    let row: [f64; 4] = match level.trim() {
        "1" => [18.0, 14.0, 14.6, 17.4],
        "2" => [72.0, 57.67, 50.33, 56.33],
        "3" => [30.0, 30.0, 30.0, 28.0],
        "4" => [94.33, 83.67, 90.33, 90.33],
        "5" => [1.6, 0.0, 0.8, 1.2],
        "6" | "11" | "12" => [0.0; 4],
        "7" => [6.0, 3.0, 4.6, 4.4],
        "8" => [10.0, 8.33, 9.33, 8.33],
        "9" => [3.0, 0.67, 2.67, 2.33],
        "10" => [4.0, 0.0, 4.33, 4.0],
        "13" => [-593.33, -635.0, -636.33, -624.33],
        "14" => [-736.67, -751.33, -757.33, -739.0],
        "15" => [-1062.67; 4],
        "16" => [-729.67; 4],
        "17" => [-5571.67, -5516.0, -5539.33, -5522.67],
        _ => return None,
    };
    Some(row[column])
}

/// The paper's BCS (from its Table 3 raw scores and Do-Nothing constants) over `levels`, for
/// the frameworks among `policies`; `None` when none of them is one of the paper's.
pub fn paper_bcs(levels: &[String], policies: &BTreeSet<String>) -> Option<BcsReport> {
    let mut scores: Scores = BTreeMap::new();
    for policy in policies {
        for level in levels {
            if let Some(v) = paper_score(policy, level) {
                scores
                    .entry(format!("{policy} (paper)"))
                    .or_default()
                    .insert(level.clone(), v);
            }
        }
    }
    if scores.is_empty() {
        return None;
    }
    bcs(&scores, &BTreeMap::new()).ok()
}

/// The grid report (see the module docs): `None` unless the grid varies `level` alone and the
/// Do-Nothing baseline was measured on every level.
pub fn grid_report(grid: &GridInput) -> Option<GridReport> {
    if grid.key != "level"
        || grid.values.is_empty()
        || grid.values.iter().any(|v| !grid.baseline.contains_key(v))
    {
        return None;
    }
    let mut scores: Scores = BTreeMap::new();
    for cell in &grid.cells {
        if let Some(s) = cell.score {
            scores
                .entry(cell.policy.clone())
                .or_default()
                .insert(cell.value.clone(), s);
        }
    }
    let report = bcs(&scores, &grid.baseline).ok()?;
    let sim = if grid.simulated { " [SIMULATION]" } else { "" };
    let mut out = table3(grid, &report, sim);
    out.push_str(&format!("\n### Behavior Competency Score{sim}\n\n"));
    out.push_str(&markdown(&report));
    let policies: BTreeSet<String> = grid.policies.iter().cloned().collect();
    if let Some(paper) = paper_bcs(&grid.values, &policies) {
        out.push_str(
            "\n### Behavior Competency Score of the paper's frameworks (Table 3 scores on \
             the same configurations, the paper's Do-Nothing; Table 4 when all 17 run)\n\n",
        );
        out.push_str(&markdown(&paper));
    }
    let summary = serde_json::to_value(&report)
        .map(|v| BTreeMap::from([("bcs".to_string(), v)]))
        .unwrap_or_default();
    Some(GridReport {
        summary,
        markdown: out,
    })
}

/// CREW-Wildfire Table 3's layout: one row per level (number and name), then Do-Nothing's
/// score, then per policy its raw score, its normalized score and, for the paper's four
/// frameworks, the paper's raw score on the level.
fn table3(grid: &GridInput, report: &BcsReport, sim: &str) -> String {
    let names: BTreeMap<String, String> = crate::config::levels()
        .into_iter()
        .map(|l| (l.number.to_string(), l.name))
        .collect();
    let paper: Vec<bool> = grid
        .policies
        .iter()
        .map(|p| paper_score(p, "1").is_some())
        .collect();
    let mut out = format!("### Table 3 layout: score and normalized score (NS) per level{sim}\n\n| level | Do-Nothing |");
    let mut columns = 2;
    for (policy, in_paper) in grid.policies.iter().zip(&paper) {
        out.push_str(&format!(" {policy} | {policy} NS |"));
        columns += 2;
        if *in_paper {
            out.push_str(&format!(" {policy} (paper) |"));
            columns += 1;
        }
    }
    out.push_str(&format!("\n|{}\n", "---|".repeat(columns)));
    for value in &grid.values {
        let name = names.get(value).map_or(String::new(), |n| format!(" {n}"));
        let dn = grid
            .baseline
            .get(value)
            .map_or("–".to_string(), |v| format!("{:.2}", v + 0.0));
        out.push_str(&format!("| {value}{name} | {dn} |"));
        for (policy, in_paper) in grid.policies.iter().zip(&paper) {
            let score = grid
                .cells
                .iter()
                .find(|c| &c.value == value && &c.policy == policy)
                .and_then(|c| c.score)
                .map_or("–".to_string(), |v| format!("{v:.2}"));
            let ns = report
                .ns
                .get(policy)
                .and_then(|m| m.get(value))
                .map_or("–".to_string(), |v| format!("{v:.3}"));
            out.push_str(&format!(" {score} | {ns} |"));
            if *in_paper {
                let p = paper_score(policy, value).map_or("–".into(), |v| format!("{v:.2}"));
                out.push_str(&format!(" {p} |"));
            }
        }
        out.push('\n');
    }
    out.push_str(
        "\nScores are means over the level's seeds that finished; NS is the normalized score \
         against Do-Nothing on the same seeds (design §13.2); \"(paper)\" is the paper's Table 3 \
         raw score.\n",
    );
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use colony_env_api::GridCell;

    use super::*;

    #[test]
    fn the_papers_bcs_over_all_levels_is_table_4() {
        let levels: Vec<String> = (1..=17).map(|l| l.to_string()).collect();
        let paper = paper_bcs(&levels, &BTreeSet::from(["camon".to_string()])).unwrap();
        // Design §13.4 (Table 4): CAMON TD 0.454, RC 0.430.
        let camon = &paper.bcs["camon (paper)"];
        assert!((camon["TD"] - 0.454).abs() < 5e-4, "{camon:?}");
        assert!((camon["RC"] - 0.430).abs() < 5e-4, "{camon:?}");
        assert_eq!(paper_score("camon", "2"), Some(72.0));
        assert_eq!(paper_score("independent", "2"), None);
    }

    #[test]
    fn a_level_grid_reports_ns_and_bcs_and_other_grids_none() {
        let mut grid = GridInput {
            key: "level".into(),
            values: vec!["2".into(), "13".into()],
            policies: vec!["camon".into(), "independent".into()],
            cells: vec![
                GridCell {
                    value: "2".into(),
                    policy: "camon".into(),
                    score: Some(72.0),
                },
                GridCell {
                    value: "13".into(),
                    policy: "independent".into(),
                    score: None,
                },
            ],
            baseline: BTreeMap::from([("2".into(), 0.0), ("13".into(), -519.67)]),
            simulated: true,
        };
        let r = grid_report(&grid).unwrap();
        assert!(r.summary.contains_key("bcs"));
        let table = r
            .markdown
            .lines()
            .find(|l| l.starts_with("| level |"))
            .unwrap();
        assert_eq!(
            table,
            "| level | Do-Nothing | camon | camon NS | camon (paper) | independent | independent NS |"
        );
        assert!(
            r.markdown
                .contains("| 2 Cut Trees: Sparse (Small) | 0.00 | 72.00 |")
                || r.markdown.contains("| 2 "),
            "{}",
            r.markdown
        );
        let row13 = r.markdown.lines().find(|l| l.starts_with("| 13 ")).unwrap();
        assert!(
            row13.ends_with("| -519.67 | – | – | -593.33 | – | – |"),
            "{row13}"
        );
        assert!(r.markdown.contains("[SIMULATION]"));
        grid.baseline.remove("13");
        assert_eq!(grid_report(&grid), None);
        grid.key = "map_size".into();
        assert_eq!(grid_report(&grid), None);
    }
}
