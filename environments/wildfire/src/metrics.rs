//! Evaluation metrics: the level score of a state (docs/design/wildfire.md §12.3), and (§13) the
//! Do-Nothing baseline constants, the normalized score NS and the Behavior Competency Score BCS,
//! plus the Markdown/JSON report of `colony wildfire bcs`. The score reads the state only, so the
//! step ([`crate::sim`], for termination), the observations and the renderers all take it from here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::{levels, Behavior, LevelConfig, LevelKind, AGENT_PENALTY, CIVILIAN_PENALTY};
use crate::error::WildfireError;
use crate::state::WildfireState;

/// `TreesDestroyed` (§12.3): by fire, plus by agents unless the level counts fire only.
pub fn trees_destroyed(s: &WildfireState) -> f64 {
    let agents = if s.level.trees_destroyed_fire_only {
        0
    } else {
        s.counters.trees_removed
    };
    s.counters.trees_burned.saturating_add(agents) as f64
}

/// What destroyed buildings cost under the level's rules (10 each in the paper-era
/// `GameManager.CheckScore`, nothing under the default rules).
fn buildings_penalty(s: &WildfireState) -> f64 {
    s.level.rules.fire().building_penalty * s.counters.buildings_destroyed as f64
}

/// The level's score (§12.3).
pub fn score(s: &WildfireState) -> f64 {
    match s.level.kind {
        LevelKind::Cut => s
            .targets
            .cut_cells
            .iter()
            .map(|&c| f64::from(3u8.saturating_sub(s.grid.trees[s.grid.idx(c)])))
            .sum(),
        LevelKind::Scout => f64::from(s.counters.best_scouts),
        LevelKind::Transport => s.transported.len() as f64,
        LevelKind::Rescue => s.civilians.iter().filter(|c| c.rescued).count() as f64,
        LevelKind::Suppress => {
            -(trees_destroyed(s)
                + AGENT_PENALTY * s.counters.agents_lost as f64
                + buildings_penalty(s))
        }
        LevelKind::Full => {
            -(trees_destroyed(s)
                + AGENT_PENALTY * s.counters.agents_lost as f64
                + CIVILIAN_PENALTY * s.counters.civilians_lost as f64
                + buildings_penalty(s))
        }
    }
}

/// Normalized score of a mean raw score `s` (§13.2): linear for finite tasks, `log2(1 + r)`
/// for open-ended ones, with the ratio `r = (s − B)/(T − B)` clamped to `[0, 1]`.
pub fn normalized_score(s: f64, finite: bool, max_score: f64, do_nothing: f64, ground: u32) -> f64 {
    let (target, baseline) = if finite {
        (max_score, 0.0)
    } else {
        (0.0, do_nothing - AGENT_PENALTY * f64::from(ground))
    };
    let denom = target - baseline;
    let ratio = if denom == 0.0 {
        0.0
    } else {
        ((s - baseline) / denom).clamp(0.0, 1.0)
    };
    if finite {
        ratio
    } else {
        (1.0 + ratio).ln() / 2f64.ln()
    }
}

/// NS of a level with its Do-Nothing value `dn`.
pub fn level_ns(level: &LevelConfig, s: f64, dn: f64) -> f64 {
    normalized_score(
        s,
        level.kind.is_finite(),
        level.max_score,
        dn,
        level.ground_agents(),
    )
}

/// Resolves a configuration name: its number in §12.1 (`"1"` … `"17"`) or its level id.
pub fn resolve(name: &str) -> Result<LevelConfig, WildfireError> {
    levels()
        .into_iter()
        .find(|l| l.id == name || l.number.to_string() == name.trim())
        .ok_or_else(|| {
            WildfireError::Metrics(format!(
                "unknown configuration {name:?} (use 1–17 or a level id such as cut_trees_sparse_small)"
            ))
        })
}

/// Mean raw scores per framework and configuration: `{"<framework>": {"<cfg>": s}}`.
pub type Scores = BTreeMap<String, BTreeMap<String, f64>>;

/// The metrics report: NS per framework and configuration, BCS per framework and behavior.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BcsReport {
    /// NS per framework and configuration (keys as given in the input).
    pub ns: BTreeMap<String, BTreeMap<String, f64>>,
    /// BCS per framework and behavior tag (mean NS over the tagged configurations present).
    pub bcs: BTreeMap<String, BTreeMap<String, f64>>,
}

/// Computes NS and BCS (§13.2). `do_nothing` overrides the paper's `DN_ℓ` per configuration
/// (keys resolved like the scores'). A behavior with no tagged configuration in a
/// framework's scores is left out of its BCS.
pub fn bcs(
    scores: &Scores,
    do_nothing: &BTreeMap<String, f64>,
) -> Result<BcsReport, WildfireError> {
    let mut dn: BTreeMap<u32, f64> = levels().iter().map(|l| (l.number, l.do_nothing)).collect();
    for (name, &v) in do_nothing {
        dn.insert(resolve(name)?.number, v);
    }
    let mut report = BcsReport {
        ns: BTreeMap::new(),
        bcs: BTreeMap::new(),
    };
    for (fw, per_cfg) in scores {
        let mut ns = BTreeMap::new();
        let mut by_behavior: BTreeMap<Behavior, Vec<f64>> = BTreeMap::new();
        for (cfg, &s) in per_cfg {
            let level = resolve(cfg)?;
            let v = level_ns(&level, s, dn.get(&level.number).copied().unwrap_or(0.0));
            ns.insert(cfg.clone(), v);
            for &b in &level.behaviors {
                by_behavior.entry(b).or_default().push(v);
            }
        }
        let bcs = by_behavior
            .into_iter()
            .map(|(b, v)| (b.tag().to_string(), v.iter().sum::<f64>() / v.len() as f64))
            .collect();
        report.ns.insert(fw.clone(), ns);
        report.bcs.insert(fw.clone(), bcs);
    }
    Ok(report)
}

/// The BCS table as Markdown: one row per behavior, one column per framework (3 decimals);
/// OP is flagged as single-level (§13.2).
pub fn markdown(report: &BcsReport) -> String {
    let fws: Vec<&String> = report.bcs.keys().collect();
    let mut out = format!(
        "| BCS | {} |\n|---|{}\n",
        fws.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(fws.len())
    );
    for b in Behavior::ALL {
        let label = if b == Behavior::OP {
            "OP (single level)".to_string()
        } else {
            b.tag().to_string()
        };
        let cells: Vec<String> = fws
            .iter()
            .map(|fw| {
                report.bcs[*fw]
                    .get(b.tag())
                    .map_or("–".to_string(), |v| format!("{v:.3}"))
            })
            .collect();
        out.push_str(&format!("| {label} | {} |\n", cells.join(" | ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table3() -> Scores {
        let rows: [(&str, [f64; 4]); 17] = [
            ("1", [18.0, 14.0, 14.6, 17.4]),
            ("2", [72.0, 57.67, 50.33, 56.33]),
            ("3", [30.0, 30.0, 30.0, 28.0]),
            ("4", [94.33, 83.67, 90.33, 90.33]),
            ("5", [1.6, 0.0, 0.8, 1.2]),
            ("6", [0.0; 4]),
            ("7", [6.0, 3.0, 4.6, 4.4]),
            ("8", [10.0, 8.33, 9.33, 8.33]),
            ("9", [3.0, 0.67, 2.67, 2.33]),
            ("10", [4.0, 0.0, 4.33, 4.0]),
            ("11", [0.0; 4]),
            ("12", [0.0; 4]),
            ("13", [-593.33, -635.0, -636.33, -624.33]),
            ("14", [-736.67, -751.33, -757.33, -739.0]),
            ("15", [-1062.67; 4]),
            ("16", [-729.67; 4]),
            ("17", [-5571.67, -5516.0, -5539.33, -5522.67]),
        ];
        let fws = ["CAMON", "COELA", "Embodied", "HMAS-2"];
        let mut scores = Scores::new();
        for (k, fw) in fws.iter().enumerate() {
            let m = rows.iter().map(|(c, v)| (c.to_string(), v[k])).collect();
            scores.insert(fw.to_string(), m);
        }
        scores
    }

    /// §13.3: CAMON, Realtime Coordination = 0.430.
    #[test]
    fn worked_example_camon_rc() {
        let mut s = Scores::new();
        let m = [
            ("7", 6.0),
            ("8", 10.0),
            ("12", 0.0),
            ("16", -729.67),
            ("17", -5571.67),
        ];
        s.insert(
            "CAMON".into(),
            m.iter().map(|(c, v)| (c.to_string(), *v)).collect(),
        );
        let r = bcs(&s, &BTreeMap::new()).unwrap();
        let ns = &r.ns["CAMON"];
        assert!((ns["8"] - 0.8333).abs() < 1e-4);
        assert!((ns["16"] - 0.2811).abs() < 1e-4);
        assert!((ns["17"] - 0.0376).abs() < 1e-4);
        let rc = r.bcs["CAMON"]["RC"];
        assert!((rc - 0.4304).abs() < 1e-4, "{rc}");
        assert_eq!(format!("{rc:.3}"), "0.430");
    }

    /// §13.4: paper Tables 3 → 4, every figure to 3 decimals.
    #[test]
    fn tables_3_to_4_exactly() {
        let r = bcs(&table3(), &BTreeMap::new()).unwrap();
        let want: [(&str, [&str; 4]); 7] = [
            ("TD", ["0.454", "0.279", "0.381", "0.399"]),
            ("AC", ["0.474", "0.391", "0.435", "0.418"]),
            ("SR", ["0.368", "0.156", "0.301", "0.301"]),
            ("OS", ["0.180", "0.067", "0.124", "0.153"]),
            ("RC", ["0.430", "0.305", "0.374", "0.352"]),
            ("PA", ["0.239", "0.093", "0.219", "0.209"]),
            ("OP", ["0.038", "0.051", "0.045", "0.050"]),
        ];
        for (tag, vals) in want {
            for (fw, v) in ["CAMON", "COELA", "Embodied", "HMAS-2"].iter().zip(vals) {
                assert_eq!(format!("{:.3}", r.bcs[*fw][tag]), v, "{fw} {tag}");
            }
        }
        let full = [0.037574, 0.051183, 0.045495, 0.049559];
        let ext = [0.1725, 0.0918, 0.0892, 0.1129];
        for (k, fw) in ["CAMON", "COELA", "Embodied", "HMAS-2"].iter().enumerate() {
            assert!((r.ns[*fw]["17"] - full[k]).abs() < 1e-6, "{fw}");
            assert!((r.ns[*fw]["13"] - ext[k]).abs() < 1e-4, "{fw}");
            assert!((r.ns[*fw]["15"] - 0.1394).abs() < 1e-4);
        }
        let md = markdown(&r);
        assert!(
            md.contains("| RC | 0.430 | 0.305 | 0.374 | 0.352 |"),
            "{md}"
        );
    }

    #[test]
    fn configurations_by_id_and_overrides() {
        let mut s = Scores::new();
        s.insert(
            "x".into(),
            [("suppress_fire_extinguish".to_string(), -593.33)].into(),
        );
        let r = bcs(&s, &BTreeMap::new()).unwrap();
        assert!((r.ns["x"]["suppress_fire_extinguish"] - 0.1725).abs() < 1e-4);
        let dn = [("13".to_string(), -593.33)].into();
        let r = bcs(&s, &dn).unwrap();
        // With the framework's own score as baseline: (160)/(753.33) → log2(1.2124).
        assert!(
            (r.ns["x"]["suppress_fire_extinguish"] - (1.0 + 160.0 / 753.33f64).log2()).abs() < 1e-9
        );
        s.insert("y".into(), [("99".to_string(), 1.0)].into());
        assert!(bcs(&s, &BTreeMap::new())
            .unwrap_err()
            .to_string()
            .contains("\"99\""));
    }
}
