//! Sweep tables: labels that are one method with one option varied
//! (`swarmsys:agents=4;swarmsys:agents=14`, SwarmSys Table 5 over team sizes;
//! `selforg;selforg:gamma=0.9`, SelfOrg's ablations) get a table of their own, one row per
//! value of the option, as the papers lay out their sweeps.
//!
//! Decisions:
//! - A label's spec is the one its run recorded (`settings`), else the label itself; its
//!   options are `key=value` after the method name, `label=` left out.
//! - A group is a method with two or more specs that differ in exactly one option; an option
//!   a spec does not give reads "default".
//! - Rows are ordered by the option's value, numerically when every value is a number.
//! - Cells are those of the main table: accuracy with its Wilson interval per dataset, AVG,
//!   then tokens and calls per item.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::summary::Summary;

/// The method and options of a spec (`name:key=value,…`), `label=` left out.
fn parse(spec: &str) -> (String, Options) {
    let (name, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let options = rest
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .filter(|(k, _)| k.trim() != "label")
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    (name.trim().to_string(), options)
}

/// A spec's options, `key → value`.
type Options = BTreeMap<String, String>;

/// The spec each label ran with.
fn specs(summary: &Summary) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = summary
        .policies
        .keys()
        .map(|l| (l.clone(), l.clone()))
        .collect();
    for per in summary.settings.values() {
        for (label, s) in per {
            if let (Some(spec), Some(slot)) = (&s.spec, out.get_mut(label)) {
                *slot = spec.clone();
            }
        }
    }
    out
}

/// One sweep: the method, the varied option, and `(value, label)` in row order.
struct Sweep {
    method: String,
    option: String,
    rows: Vec<(String, String)>,
}

fn sweeps(summary: &Summary) -> Vec<Sweep> {
    let mut by_method: BTreeMap<String, Vec<(String, Options)>> = BTreeMap::new();
    for (label, spec) in specs(summary) {
        let (method, options) = parse(&spec);
        by_method.entry(method).or_default().push((label, options));
    }
    let mut out = Vec::new();
    for (method, members) in by_method {
        if members.len() < 2 {
            continue;
        }
        let mut keys: Vec<&String> = members.iter().flat_map(|(_, o)| o.keys()).collect();
        keys.sort();
        keys.dedup();
        let value = |o: &Options, k: &str| o.get(k).cloned().unwrap_or_else(|| "default".into());
        let varied: Vec<&String> = keys
            .into_iter()
            .filter(|k| {
                let first = value(&members[0].1, k);
                members.iter().any(|(_, o)| value(o, k) != first)
            })
            .collect();
        let [option] = varied.as_slice() else {
            continue;
        };
        let mut rows: Vec<(String, String)> = members
            .iter()
            .map(|(label, o)| (value(o, option), label.clone()))
            .collect();
        if rows.iter().all(|(v, _)| v.parse::<f64>().is_ok()) {
            rows.sort_by(|a, b| {
                let x: f64 = a.0.parse().unwrap_or(0.0);
                let y: f64 = b.0.parse().unwrap_or(0.0);
                x.total_cmp(&y)
            });
        } else {
            rows.sort();
        }
        out.push(Sweep {
            method,
            option: (*option).clone(),
            rows,
        });
    }
    out
}

/// The sweep tables of `summary`, or `None` when no method was swept.
pub fn sweep_markdown(summary: &Summary) -> Option<String> {
    let sweeps = sweeps(summary);
    if sweeps.is_empty() {
        return None;
    }
    let names = summary.dataset_names();
    let rows: BTreeMap<String, super::table::TableRow> = summary
        .rows()
        .into_iter()
        .map(|r| (r.method.clone(), r))
        .collect();
    let mut out = String::new();
    for s in sweeps {
        let _ = write!(
            out,
            "### Sweep of {} over {}\n\n| {} |",
            s.method, s.option, s.option
        );
        for d in &names {
            let _ = write!(out, " {d} (%) |");
        }
        out.push_str(" AVG | tokens/item | calls/item | label |\n|");
        out.push_str(&"---|".repeat(names.len() + 5));
        out.push('\n');
        for (value, label) in &s.rows {
            let Some(row) = rows.get(label) else { continue };
            let _ = write!(out, "| {value} |");
            for (a, ci) in row.accuracy.iter().zip(&row.ci95) {
                match (a, ci) {
                    (Some(a), Some([lo, hi])) => {
                        let _ = write!(out, " {a:.2} [{lo:.1}, {hi:.1}] |");
                    }
                    (Some(a), None) => {
                        let _ = write!(out, " {a:.2} |");
                    }
                    (None, _) => out.push_str(" — |"),
                }
            }
            let t = &row.totals;
            let n = t.n.max(1) as f64;
            let _ = writeln!(
                out,
                " {} | {:.0} | {:.1} | {label} |",
                row.avg.map_or("—".into(), |a| format!("{a:.2}")),
                (t.prompt_tokens + t.completion_tokens) as f64 / n,
                t.calls as f64 / n,
            );
        }
        out.push('\n');
    }
    out.push_str(
        "Accuracy over answered items with its 95% Wilson interval; tokens and calls per item \
         over all items.\n",
    );
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_into_method_and_options() {
        let (m, o) = parse("swarmsys:agents=14,label=big");
        assert_eq!(m, "swarmsys");
        assert_eq!(o, BTreeMap::from([("agents".into(), "14".into())]));
        assert_eq!(parse("selforg").1.len(), 0);
    }
}
