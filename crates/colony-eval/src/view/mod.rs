//! `colony view`: a static report of a run directory (an index page and a data folder beside
//! it; no server, no CDN, works from `file://`), for reasoning (`colony eval`) and embodied
//! (`colony compare`) runs, and for suites that hold several of them in subdirectories;
//! `colony view --serve` serves it on loopback and regenerates it while a run goes on
//! ([`serve`]).
//!
//! How the page is built, and why:
//! - [`discover`] finds the units of a run directory (eval and compare directories, at any
//!   depth, so a suite's `manifest.json` plus subdirectories works too).
//! - [`eval_unit`] and [`compare_unit`] read each unit with bounded readers ([`bounded`]):
//!   absurd lines are skipped and huge strings clipped with a visible note, a corrupt line is
//!   a one-line error naming the file and line.
//! - Each item's or episode's details (trace, calls, steps, replayed grid frames) go into
//!   the data folder's compressed chunk files, written as they are built; the page's table renders
//!   from a compact index and loads a detail only when it is opened, so a
//!   Wildfire grid of hundreds of episodes opens as fast as one episode and memory here
//!   stays per unit.
//! - Embodied episodes are replayed in the deterministic simulator ([`episode_frames`]) to
//!   get the ASCII picture of every step; a divergence is a warning in the page.
//! - [`html`] assembles the page (the hand-written `assets/viewer.js` and `viewer.css`) and
//!   writes it atomically.

pub mod bounded;
pub mod compare_unit;
pub mod discover;
pub mod episode_frames;
pub mod eval_unit;
pub mod html;
#[cfg(feature = "serve-mock")]
pub mod serve;

use colony_env_api::EnvEntry;
use std::path::{Path, PathBuf};

use thiserror::Error;

pub use discover::{discover, Unit, UnitKind};
pub use episode_frames::{legend, replay, split_picture, Frame, LegendEntry, Replay};
pub use html::{read_chunk, PageWriter};

/// Errors of `colony view`: each names the file (and line) it is about.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ViewError {
    /// The run directory does not exist.
    #[error("{path}: no such directory")]
    NotFound {
        /// The path given.
        path: PathBuf,
    },
    /// The path is not a directory.
    #[error("{path}: not a directory")]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// Nothing in the directory looks like a `colony eval` or `colony compare` output.
    #[error("{path}: not a run directory (no <policy>.jsonl with summary.json/settings.json, no compare.json with episodes.jsonl, at any depth)")]
    NotARun {
        /// The directory.
        path: PathBuf,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line of a JSONL file does not parse (as JSON, or as the record the file holds).
    #[error("{path}:{line}: {message}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A JSON file does not parse or lacks what the viewer needs.
    #[error("{path}: {message}")]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl ViewError {
    /// An I/O error about `path`.
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ViewError + '_ {
        move |source| ViewError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// What [`write_report`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportInfo {
    /// The HTML file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Units (eval or compare directories) in the page.
    pub units: usize,
    /// Table rows (items and episodes) over all units.
    pub rows: usize,
    /// Notes about what was skipped or clipped (also shown in the page).
    pub notes: usize,
    /// The report's generation token (every data file carries it).
    pub generation: String,
    /// The data folder beside the page.
    pub data_dir: PathBuf,
}

/// Writes the viewer page of `run_dir` to `out` (default `run_dir/report.html`), atomically;
/// embodied episodes are replayed in `environments` (the registry's: an environment missing
/// from it shows its episodes without pictures).
pub fn write_report(
    environments: &[&'static dyn EnvEntry],
    run_dir: &Path,
    out: Option<&Path>,
) -> Result<ReportInfo, ViewError> {
    if !run_dir.exists() {
        return Err(ViewError::NotFound {
            path: run_dir.to_path_buf(),
        });
    }
    if !run_dir.is_dir() {
        return Err(ViewError::NotADirectory {
            path: run_dir.to_path_buf(),
        });
    }
    let units = discover(run_dir)?;
    if units.is_empty() {
        return Err(ViewError::NotARun {
            path: run_dir.to_path_buf(),
        });
    }
    let out = out.map_or_else(|| run_dir.join("report.html"), Path::to_path_buf);
    let mut page = PageWriter::create(&out, &title_of(run_dir))?;
    let mut index = Vec::with_capacity(units.len());
    let mut rows = 0usize;
    let mut notes = 0usize;
    let mut budget = episode_frames::FrameBudget::default();
    for unit in &units {
        let json = match unit.kind {
            UnitKind::Eval => eval_unit::write_unit(unit, &mut page)?,
            UnitKind::Compare => {
                compare_unit::write_unit(environments, unit, &mut page, &mut budget)?
            }
        };
        rows += json["rows"].as_array().map_or(0, Vec::len);
        notes += json["notes"].as_array().map_or(0, Vec::len);
        index.push(json);
    }
    let manifest = bounded::read_json_file(&run_dir.join("manifest.json"))
        .ok()
        .flatten();
    let index = serde_json::json!({
        "title": title_of(run_dir),
        "root": run_dir.display().to_string(),
        "generator": format!("colony view {}", env!("CARGO_PKG_VERSION")),
        "manifest": manifest,
        "units": index,
    });
    let generation = page.generation().to_string();
    let data_dir = out
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join(html::data_dir_name(&out));
    let bytes = page.finish(&index)?;
    Ok(ReportInfo {
        generation,
        data_dir,
        path: out,
        bytes,
        units: units.len(),
        rows,
        notes,
    })
}

/// The page title: the run directory's last component.
fn title_of(dir: &Path) -> String {
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    canonical.file_name().map_or_else(
        || canonical.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, answer: &str) -> String {
        format!(
            r#"{{"id":"{id}","policy":"single","dataset":"gsm8k","answer":"{answer}","gold":"3","correct":{},"calls":1,"prompt_tokens":2,"completion_tokens":1,"wall_ms":1.0,"trace":{{"method":"single"}}}}"#,
            answer == "3"
        )
    }

    #[test]
    fn the_index_keeps_the_last_line_per_item_and_joins_its_calls() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        std::fs::write(run.join("summary.json"), "{}").unwrap();
        let lines = [item("1", "4"), item("2", "3"), item("1", "3")].join("\n");
        std::fs::write(run.join("single.jsonl"), lines + "\n").unwrap();
        std::fs::create_dir_all(run.join("calls")).unwrap();
        let calls = r#"{"dataset":"gsm8k","id":"1","policy":"single","entries":[{"agent":"a","seq":0,"event":{"kind":"memory_reset"}}]}"#;
        std::fs::write(run.join("calls/single.jsonl"), format!("{calls}\n")).unwrap();
        let info = write_report(
            colony_policy::registry::Registry::builtin().environments(),
            run,
            None,
        )
        .unwrap();
        assert_eq!((info.units, info.rows), (1, 2));
        let html = std::fs::read_to_string(run.join("report.html")).unwrap();
        let index = html
            .split("id=\"colony-index\">")
            .nth(1)
            .and_then(|s| s.split("</script>").next())
            .unwrap();
        let index: serde_json::Value = serde_json::from_str(index).unwrap();
        let rows = &index["units"][0]["rows"];
        // Item 1 keeps its first position and its last line (answer 3, correct).
        assert_eq!(rows[0][2], "1");
        assert_eq!(
            (&rows[0][3], &rows[0][4]),
            (&serde_json::json!(true), &serde_json::json!("3"))
        );
        let d = rows[0][11].as_u64().unwrap();
        let data = run
            .join("report.data")
            .join(format!("g-{}", info.generation));
        let chunk = html::read_chunk(&data.join("c0.js")).unwrap();
        let detail = &chunk.iter().find(|(n, _)| *n == d).unwrap().1;
        assert_eq!(detail["entries"][0]["event"]["kind"], "memory_reset");
        assert_eq!(detail["trace"]["method"], "single");
        // A second report replaces the first whole; nothing temporary is left next to it.
        let again = write_report(
            colony_policy::registry::Registry::builtin().environments(),
            run,
            None,
        )
        .unwrap();
        assert_eq!(again.rows, 2);
        let html = std::fs::read_to_string(run.join("report.html")).unwrap();
        let data = run
            .join("report.data")
            .join(format!("g-{}", again.generation));
        let files = std::fs::read_to_string(data.join("viewer.js")).unwrap();
        // Only the new generation's folder is left.
        assert_eq!(
            std::fs::read_dir(run.join("report.data")).unwrap().count(),
            1
        );
        assert!(files.contains("colonyChunk") && !html.contains("colonyChunk("));
        let left: Vec<_> = std::fs::read_dir(run)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp-") || n.contains(".old-"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
