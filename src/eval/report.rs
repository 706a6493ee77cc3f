//! The report files of `colony eval`: `summary.json` (read back on every run, since it holds
//! other datasets' totals), `results.md`, `results.csv` and `accuracy_vs_tokens.svg`.

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::plot::{accuracy_vs_tokens, PlotError};
use super::summary::Summary;
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

/// Bound on `summary.json` (it holds totals, not items; anything larger is not ours).
const MAX_SUMMARY_BYTES: u64 = 64 * 1024 * 1024;

/// The summary already in `dir`, or an empty one when there is none.
pub fn load_summary(dir: &Path) -> Result<Summary, ReportError> {
    let path = dir.join("summary.json");
    let damaged = |message: String| ReportError::Damaged {
        path: path.clone(),
        message,
    };
    match std::fs::metadata(&path) {
        Err(_) => return Ok(Summary::default()),
        Ok(m) if m.len() > MAX_SUMMARY_BYTES => {
            return Err(damaged(format!("{} bytes", m.len())));
        }
        Ok(_) => {}
    }
    let text = std::fs::read_to_string(&path).map_err(|e| damaged(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| damaged(e.to_string()))
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
    accuracy_vs_tokens(summary, &dir.join("accuracy_vs_tokens.svg"))?;
    Ok(md)
}
