//! The report files of `colony eval`: `summary.json`, `results.md`, `results.csv` and
//! `accuracy_vs_tokens.svg`, all written atomically (temporary file, then rename). The summary
//! is rebuilt from the per-item JSONL files on every run, so a damaged or stale
//! `summary.json` can never drop other policies' or datasets' rows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::plot::{accuracy_vs_tokens, PlotError};
use super::results::ItemResult;
use super::summary::{PolicySummary, Summary};
use super::trajectory::write_atomic;

/// Errors of the eval report.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReportError {
    /// `summary.json` exists but is not a colony summary (it is left untouched).
    #[error(
        "{path} is not a colony summary ({message}); fix or remove it (the JSONL results are kept)"
    )]
    Damaged {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A file could not be written.
    #[error("writing {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The plot could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
}

/// Rebuilds the summary of `dir` from its append-only per-item files (`<policy>.jsonl`, the
/// source of truth; the old `summary.json` is never trusted), the latest line per (dataset,
/// item) counting. Lines without a dataset (files older than datasets) are skipped.
pub fn rebuild_summary(dir: &Path) -> Result<Summary, ReportError> {
    let mut per: BTreeMap<(String, String), BTreeMap<String, ItemResult>> = BTreeMap::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(_) => return Ok(Summary::default()),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|source| ReportError::Io {
            path: path.clone(),
            source,
        })?;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            if !line.ends_with('\n') || line.trim().is_empty() {
                // A torn last line of a killed run; the next run cuts it.
                continue;
            }
            let r: ItemResult = serde_json::from_str(line).map_err(|e| ReportError::Damaged {
                path: path.clone(),
                message: format!("line {}: {e}", i + 1),
            })?;
            if r.dataset.is_empty() {
                continue;
            }
            per.entry((r.dataset.clone(), r.policy.clone()))
                .or_default()
                .insert(r.id.clone(), r);
        }
    }
    let mut summary = Summary::default();
    for ((dataset, policy), items) in per {
        let results: Vec<ItemResult> = items.into_values().collect();
        summary.record(&dataset, &policy, PolicySummary::of(&results));
    }
    Ok(summary)
}

/// Writes `summary.json` (atomically), `results.md`, `results.csv` and the bubble plot into
/// `dir`; returns the Markdown table.
pub fn write_eval_report(dir: &Path, summary: &Summary) -> Result<String, ReportError> {
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        write_atomic(&path, bytes).map_err(|source| ReportError::Io { path, source })
    };
    let json = serde_json::to_string_pretty(summary).unwrap_or_default();
    write("summary.json", json.as_bytes())?;
    let md = summary.markdown();
    write("results.md", md.as_bytes())?;
    write("results.csv", summary.csv().as_bytes())?;
    let svg = dir.join("accuracy_vs_tokens.svg");
    let tmp = dir.join(format!(
        ".accuracy_vs_tokens.svg.tmp-{}",
        std::process::id()
    ));
    accuracy_vs_tokens(summary, &tmp)?;
    std::fs::rename(&tmp, &svg).map_err(|source| ReportError::Io { path: svg, source })?;
    Ok(md)
}
