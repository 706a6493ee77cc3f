//! Finds the units of a run directory: `colony eval` directories (`<policy>.jsonl` next to
//! `summary.json` or `settings.json`) and `colony compare` directories (`compare.json`), the
//! directory itself or any subdirectory (a suite holds several units plus `manifest.json`).
//! A unit's own subdirectories (`calls/`, `episodes/`, `configurations/`) are not searched.

use std::path::{Path, PathBuf};

use super::ViewError;

/// Deepest subdirectory searched below the run directory.
pub const MAX_DEPTH: usize = 6;
/// Most directories looked at (a home directory given by mistake ends quickly).
pub const MAX_DIRS: usize = 20_000;
/// Most units in one page.
pub const MAX_UNITS: usize = 2_000;

/// What kind of output a unit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    /// A `colony eval` directory (reasoning items).
    Eval,
    /// A `colony compare` directory (embodied episodes).
    Compare,
}

/// One eval or compare directory of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Its kind.
    pub kind: UnitKind,
    /// The directory.
    pub dir: PathBuf,
    /// Its path relative to the run directory, `/`-separated (`.` for the run itself); the
    /// unit's id in the page and in deep links.
    pub rel: String,
}

/// The top-level `*.jsonl` files of `dir`, sorted.
pub fn jsonl_files(dir: &Path) -> Result<Vec<PathBuf>, ViewError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(ViewError::io(dir))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    Ok(files)
}

/// The kind of unit `dir` is, if it is one.
fn kind_of(dir: &Path) -> Result<Option<UnitKind>, ViewError> {
    if dir.join("compare.json").is_file() {
        return Ok(Some(UnitKind::Compare));
    }
    let has_meta = dir.join("summary.json").is_file() || dir.join("settings.json").is_file();
    if has_meta && !jsonl_files(dir)?.is_empty() {
        return Ok(Some(UnitKind::Eval));
    }
    Ok(None)
}

/// Every unit under `root` (itself included), depth-first in name order.
pub fn discover(root: &Path) -> Result<Vec<Unit>, ViewError> {
    let mut units = Vec::new();
    let mut seen = 0usize;
    let mut stack: Vec<(PathBuf, String, usize)> = vec![(root.to_path_buf(), ".".into(), 0)];
    while let Some((dir, rel, depth)) = stack.pop() {
        seen += 1;
        if seen > MAX_DIRS || units.len() >= MAX_UNITS {
            break;
        }
        if let Some(kind) = kind_of(&dir)? {
            units.push(Unit { kind, dir, rel });
            continue;
        }
        if depth >= MAX_DEPTH {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            // An unreadable subdirectory is not the run's; the root itself was checked.
            continue;
        };
        let mut subs: Vec<(String, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .filter(|(name, _)| !name.starts_with('.'))
            .collect();
        subs.sort();
        for (name, path) in subs.into_iter().rev() {
            let child = if rel == "." {
                name
            } else {
                format!("{rel}/{name}")
            };
            stack.push((path, child, depth + 1));
        }
    }
    Ok(units)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_eval_and_compare_units_at_any_depth_but_not_inside_units() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mk = |p: &str, files: &[&str]| {
            let d = root.join(p);
            std::fs::create_dir_all(&d).unwrap();
            for f in files {
                std::fs::write(d.join(f), "").unwrap();
            }
        };
        std::fs::write(root.join("manifest.json"), "{}").unwrap();
        mk("a-eval", &["single.jsonl", "summary.json"]);
        mk("a-eval/calls", &["single.jsonl"]);
        mk("b/deep/cmp", &["compare.json", "episodes.jsonl"]);
        mk(
            "b/deep/cmp/configurations/level=1",
            &["summary.json", "x.jsonl"],
        );
        mk("c-not-a-run", &["notes.jsonl"]);
        mk(".hidden", &["compare.json"]);
        let units = discover(root).unwrap();
        let got: Vec<(&str, UnitKind)> = units.iter().map(|u| (u.rel.as_str(), u.kind)).collect();
        assert_eq!(
            got,
            vec![
                ("a-eval", UnitKind::Eval),
                ("b/deep/cmp", UnitKind::Compare)
            ]
        );
    }
}
