//! `colony logs cat`: the call logs of a run as the classic JSON lines, whatever form they are
//! stored in, so scripts written for plain `calls.jsonl` keep working.
//!
//! A run directory (of `colony compare`, `colony eval` or a suite, any depth) holds:
//! - episode directories (`…/episodes/[CONFIG/]POLICY/SEED/`), each with one call log
//!   ([`super::call_log`]); their lines are [`colony_policy::embodied::CallLog`] records;
//! - eval call logs (`…/calls/POLICY.jsonl`), one line per finished item with its transcript.
//!
//! `--episode SEL` keeps the episodes whose id (`POLICY/SEED` or `CONFIG/POLICY/SEED`, after
//! `episodes/`) equals SEL or ends with `/SEL`; `--item ID` keeps the eval lines of item `ID`.
//! Given one, only that kind is printed; given neither, everything, in path order. Decision: a
//! selector that matches nothing is an error naming what exists, not an empty output a script
//! would take for "no calls".

use std::io::Write;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::call_log::{call_log_file, read_call_log};

/// Deepest directory level searched below the run directory.
const MAX_DEPTH: usize = 16;
/// Most directories visited (a run directory, not a file system).
const MAX_DIRS: usize = 2_000_000;

/// What to print.
#[derive(Debug, Clone, Default)]
pub struct LogFilter {
    /// Episode selector (`POLICY/SEED`, `CONFIG/POLICY/SEED`, or a longer suffix).
    pub episode: Option<String>,
    /// Eval item id.
    pub item: Option<String>,
}

/// What was printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CatReport {
    /// Call lines printed.
    pub lines: u64,
    /// Episodes whose log was read.
    pub episodes: usize,
    /// Logs that end early (an interrupted or running episode): their complete lines were
    /// printed.
    pub torn: Vec<PathBuf>,
    /// What could not be printed, one line each naming the log (or episode) and how many
    /// calls: a damaged or missing log, lines over the line limit or not JSON, fewer lines
    /// than the episode recorded. `colony logs cat` prints them on stderr and fails.
    pub problems: Vec<String>,
}

/// Errors of `colony logs cat`.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LogCatError {
    /// The run directory cannot be read.
    #[error("{path}: {message}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The selector matches nothing.
    #[error("{0}")]
    NoMatch(String),
    /// Writing the output failed (a closed pipe is not an error of the run).
    #[error("writing the output: {0}")]
    Output(std::io::Error),
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> LogCatError + '_ {
    move |e| LogCatError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// What a run directory holds: its episodes (id, directory) and its eval call logs.
type Found = (Vec<(String, PathBuf)>, Vec<PathBuf>);

/// The episode directories and eval call logs below `run`, in path order.
fn scan(run: &Path) -> Result<Found, LogCatError> {
    let meta = std::fs::metadata(run).map_err(io_err(run))?;
    if !meta.is_dir() {
        return Err(LogCatError::Io {
            path: run.to_path_buf(),
            message: "not a directory (give the run's output directory)".into(),
        });
    }
    let mut episodes = Vec::new();
    let mut evals = Vec::new();
    let mut stack = vec![(run.to_path_buf(), 0usize)];
    let mut visited = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        visited += 1;
        if visited > MAX_DIRS {
            return Err(LogCatError::Io {
                path: run.to_path_buf(),
                message: format!("more than {MAX_DIRS} directories; give a unit's directory"),
            });
        }
        if call_log_file(&dir).is_some() || dir.join("steps.jsonl").is_file() {
            if let Some(id) = episode_id(&dir) {
                episodes.push((id, dir.clone()));
            }
        }
        let mut children = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(io_err(&dir))? {
            let entry = entry.map_err(io_err(&dir))?;
            // Links are not followed: a run directory holds real files, and a link could loop.
            let kind = entry.file_type().map_err(io_err(&dir))?;
            let path = entry.path();
            if kind.is_dir() && depth < MAX_DEPTH {
                children.push(path);
            } else if kind.is_file()
                && dir.file_name().is_some_and(|n| n == "calls")
                && (path.to_string_lossy().ends_with(".jsonl")
                    || path.to_string_lossy().ends_with(".jsonl.zst"))
            {
                evals.push(path);
            }
        }
        children.sort();
        stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
    }
    episodes.sort();
    evals.sort();
    Ok((episodes, evals))
}

/// `POLICY/SEED` or `CONFIG/POLICY/SEED` of an episode directory: the part after the last
/// `episodes` component; `None` outside an `episodes/` tree.
fn episode_id(dir: &Path) -> Option<String> {
    let parts: Vec<String> = dir
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let at = parts.iter().rposition(|p| p == "episodes")?;
    let rest = &parts[at + 1..];
    (!rest.is_empty()).then(|| rest.join("/"))
}

fn matches(id: &str, sel: &str) -> bool {
    let sel = sel.trim_matches('/');
    id == sel || id.ends_with(&format!("/{sel}"))
}

/// The output of one log: lines written, and the first write that failed (which ends it).
struct Lines<'a> {
    out: &'a mut dyn Write,
    count: u64,
    failed: Option<std::io::Error>,
}

impl<'a> Lines<'a> {
    fn new(out: &'a mut dyn Write) -> Self {
        Self {
            out,
            count: 0,
            failed: None,
        }
    }

    /// Writes `line`; false (stop reading) once a write failed.
    fn put(&mut self, line: &str) -> bool {
        let r = self
            .out
            .write_all(line.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"));
        match r {
            Ok(()) => {
                self.count += 1;
                true
            }
            Err(e) => {
                self.failed = Some(e);
                false
            }
        }
    }

    fn done(self) -> Result<u64, LogCatError> {
        match self.failed {
            Some(e) => Err(LogCatError::Output(e)),
            None => Ok(self.count),
        }
    }
}

/// Prints the call logs of `run` that `filter` selects to `out` (see the module docs).
pub fn cat(run: &Path, filter: &LogFilter, out: &mut dyn Write) -> Result<CatReport, LogCatError> {
    let (episodes, evals) = scan(run)?;
    let mut report = CatReport::default();
    let want_episodes = filter.item.is_none() || filter.episode.is_some();
    let want_items = filter.episode.is_none() || filter.item.is_some();
    if want_episodes {
        let chosen: Vec<&(String, PathBuf)> = episodes
            .iter()
            .filter(|(id, _)| filter.episode.as_deref().is_none_or(|s| matches(id, s)))
            .collect();
        if let (Some(sel), true) = (&filter.episode, chosen.is_empty()) {
            let known: Vec<&str> = episodes.iter().take(8).map(|(id, _)| id.as_str()).collect();
            return Err(LogCatError::NoMatch(format!(
                "--episode {sel}: no episode of {} matches; episodes are named POLICY/SEED or \
                 CONFIG/POLICY/SEED, e.g. {}",
                run.display(),
                if known.is_empty() {
                    "(this run has none)".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
        let mut recorded = RecordedCalls::default();
        for (_, dir) in chosen {
            let expected = recorded.of(dir);
            report.episodes += 1;
            let Some(path) = call_log_file(dir) else {
                report.problems.push(format!(
                    "{}: no readable call log (calls.jsonl.zst or calls.jsonl is missing, a \
                     directory or not a regular file){}",
                    dir.display(),
                    expected.map_or(String::new(), |n| format!(
                        "; {n} recorded call(s) not printed"
                    ))
                ));
                continue;
            };
            let mut sink = Lines::new(out);
            let notes = read_call_log(dir, |line| sink.put(line)).map_err(io_err(dir))?;
            let printed = sink.done()?;
            report.lines += printed;
            note_problems(&path, &notes, printed, expected, &mut report);
        }
    }
    if want_items {
        let mut found = false;
        for path in &evals {
            let mut sink = Lines::new(out);
            let notes = super::call_log::read_log_file(path, |line| {
                if let Some(id) = &filter.item {
                    let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
                    if v.get("id").and_then(|x| x.as_str()) != Some(id.as_str()) {
                        return true;
                    }
                }
                found = true;
                sink.put(line)
            })
            .map_err(io_err(path))?;
            let printed = sink.done()?;
            report.lines += printed;
            note_problems(path, &notes, printed, None, &mut report);
        }
        if let (Some(id), false) = (&filter.item, found) {
            return Err(LogCatError::NoMatch(format!(
                "--item {id}: no eval call log of {} has that item ({} log(s) searched)",
                run.display(),
                evals.len()
            )));
        }
    }
    out.flush().map_err(LogCatError::Output)?;
    Ok(report)
}

/// Adds to `report` what reading the log at `path` could not print. `expected`: the calls
/// the episode recorded in its unit's `episodes.jsonl` (`None`: not finished, or not an
/// episode). Decision: a torn end is only a note while the episode is not recorded as
/// finished (it may still be running); once it is, every missing call is a problem.
fn note_problems(
    path: &Path,
    notes: &super::call_log::ReadNotes,
    printed: u64,
    expected: Option<u64>,
    report: &mut CatReport,
) {
    let p = path.display();
    if let Some(why) = &notes.damaged {
        report.problems.push(format!(
            "{p}: the log is damaged ({why}): {printed} call(s) were printed before it was \
             detected (they may be damaged too); the rest could not be printed"
        ));
    } else if notes.torn && expected.is_none() {
        report.torn.push(path.to_path_buf());
    }
    if notes.too_long > 0 {
        report.problems.push(format!(
            "{p}: {} call(s) longer than the {} MiB line limit not printed",
            notes.too_long,
            super::call_log::MAX_CALL_LINE_BYTES >> 20
        ));
    }
    if notes.unreadable > 0 {
        report.problems.push(format!(
            "{p}: {} damaged line(s) (not JSON) not printed",
            notes.unreadable
        ));
    }
    if let Some(n) = expected.filter(|&n| n > printed) {
        report.problems.push(format!(
            "{p}: {} of the episode's {n} recorded call(s) not printed",
            n - printed
        ));
    }
}

/// The calls each finished episode recorded (`calls + failed_calls` of its line in the unit's
/// `episodes.jsonl`), by episode directory; read once per unit.
#[derive(Default)]
struct RecordedCalls {
    units: std::collections::HashMap<PathBuf, std::collections::HashMap<PathBuf, u64>>,
}

/// The fields of an `episodes.jsonl` line that name an episode and count its calls.
#[derive(serde::Deserialize)]
struct EpisodeCalls {
    policy: String,
    seed: u64,
    #[serde(default)]
    config: String,
    #[serde(default)]
    calls: u64,
    #[serde(default)]
    failed_calls: u64,
}

impl RecordedCalls {
    /// The recorded calls of the episode in `dir` (`UNIT/episodes/…`), if its unit records it.
    fn of(&mut self, dir: &Path) -> Option<u64> {
        let unit = dir
            .ancestors()
            .find(|a| a.file_name().is_some_and(|n| n == "episodes"))?
            .parent()?
            .to_path_buf();
        let known = self.units.entry(unit.clone()).or_insert_with(|| {
            let mut known = std::collections::HashMap::new();
            let file = unit.join("episodes.jsonl");
            // Only a regular file: a device would never end.
            if !std::fs::metadata(&file).is_ok_and(|m| m.is_file()) {
                return known;
            }
            let _ = super::call_log::read_log_file(&file, |line| {
                if let Ok(e) = serde_json::from_str::<EpisodeCalls>(line) {
                    let at =
                        super::embodied::compare::episode_dir(&unit, &e.config, &e.policy, e.seed);
                    known.insert(at, e.calls.saturating_add(e.failed_calls));
                }
                true
            });
            known
        });
        known.get(dir).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn episode_ids_and_selectors() {
        let id = episode_id(Path::new("/r/model/unit/episodes/level=13/camon/2"));
        assert_eq!(id.as_deref(), Some("level=13/camon/2"));
        assert_eq!(episode_id(Path::new("/r/x/camon/2")), None);
        assert!(matches("level=13/camon/2", "camon/2"));
        assert!(matches("camon/2", "camon/2/"));
        assert!(!matches("camon/12", "camon/2"));
        assert!(!matches("xcamon/2", "camon/2"));
    }
}
