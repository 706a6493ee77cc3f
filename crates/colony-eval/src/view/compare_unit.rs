//! One `colony compare` directory in the page: a table row per episode (`episodes.jsonl`,
//! the last line per (configuration, policy, seed) wins, as on resume), and each episode's
//! details: its steps (actions, rewards, events, policy trace), its model calls (messages,
//! reply, usage, latency, errors, parse fallbacks) and its grid frames replayed in the
//! simulator ([`super::episode_frames`]).

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::{json, Value};

use super::bounded::{for_each_line, for_each_line_in, read_json_file, Notes, MAX_LINE_BYTES};
use super::discover::Unit;
use super::episode_frames::{encode_frames, legend, replay, FrameBudget, MAX_FRAMES};
use super::eval_unit::{json_file, plots, text_file, MAX_ROWS};
use super::html::PageWriter;
use super::ViewError;
use crate::eval::embodied::compare::episode_dir;
use crate::eval::embodied::grid::{configurations, GridAxis};
use crate::eval::{EpisodeResult, StepRecord};

/// Columns of a compare unit's rows, in order; the last one is the detail block number.
pub const COMPARE_COLUMNS: [&str; 14] = [
    "config",
    "policy",
    "seed",
    "score",
    "steps",
    "terminated",
    "truncated",
    "calls",
    "tokens",
    "fallbacks",
    "failed_calls",
    "error",
    "wall_s",
    "detail",
];

/// Most step records kept in an episode's details.
pub const MAX_STEPS_KEPT: usize = MAX_FRAMES;
/// Most call records kept in an episode's details.
pub const MAX_CALLS_KEPT: usize = 20_000;

/// What the viewer needs of `compare.json`.
#[derive(Debug, Clone, Deserialize)]
struct CompareSettings {
    env: String,
    #[serde(default)]
    set: Vec<String>,
    #[serde(default)]
    max_steps: Option<u64>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    grid: Vec<GridAxis>,
}

/// Reads one episode's steps (typed; the first [`MAX_STEPS_KEPT`]).
fn read_steps(
    path: &std::path::Path,
    root: &std::path::Path,
    notes: &mut Notes,
) -> Result<(Vec<StepRecord>, bool), ViewError> {
    let mut steps = Vec::new();
    let mut more = 0usize;
    if !path.is_file() {
        notes.push(format!("{}: missing", path.display()));
        return Ok((steps, false));
    }
    if !inside(root, path, notes) {
        return Ok((steps, true));
    }
    let read = for_each_line(path, MAX_LINE_BYTES, notes, |_, v| {
        if steps.len() >= MAX_STEPS_KEPT {
            more += 1;
            return Ok(());
        }
        let r: StepRecord =
            serde_json::from_value(v).map_err(|e| format!("not a step record: {e}"))?;
        steps.push(r);
        Ok(())
    });
    let damaged = damage_note(read, "steps", notes)?;
    if more > 0 {
        notes.push(format!("{}: {more} later steps left out", path.display()));
    }
    Ok((steps, damaged))
}

/// Whether `path` really lies inside `root` (the unit's directory). Decision: a file that is
/// a link leading out of the run (to the host's files) is not read, as `view --serve`
/// refuses such paths; the episode gets a note instead.
fn inside(root: &std::path::Path, path: &std::path::Path, notes: &mut Notes) -> bool {
    let ok = match (root.canonicalize(), path.canonicalize()) {
        (Ok(root), Ok(real)) => real.starts_with(root),
        _ => false,
    };
    if !ok {
        notes.push(format!(
            "{}: resolves outside the run directory (a link); not read",
            path.display()
        ));
    }
    ok
}

/// The outcome of reading an episode file: a line that does not parse marks the episode as
/// damaged (a note; what was read before it is kept) instead of refusing the whole report.
/// Any other error (the file cannot be read at all) is returned. True: damaged.
fn damage_note(
    read: Result<(), ViewError>,
    what: &str,
    notes: &mut Notes,
) -> Result<bool, ViewError> {
    match read {
        Ok(()) => Ok(false),
        Err(ViewError::Corrupt {
            path,
            line,
            message,
        }) => {
            notes.push(format!(
                "{}:{line}: damaged ({message}); the {what} from there on are not shown",
                path.display()
            ));
            Ok(true)
        }
        Err(e) => Err(e),
    }
}

/// Reads one episode's calls as JSON (the first [`MAX_CALLS_KEPT`]).
/// Compact (`calls.jsonl.zst`) and plain logs read the same; a compressed log cut short (a
/// run still writing, or killed) gives its complete lines and a note.
fn read_calls(
    dir: &std::path::Path,
    root: &std::path::Path,
    notes: &mut Notes,
) -> Result<(Vec<Value>, bool), ViewError> {
    let mut calls = Vec::new();
    let Some(path) = crate::eval::call_log::call_log_file(dir) else {
        return Ok((calls, false));
    };
    if !inside(root, &path, notes) {
        return Ok((calls, true));
    }
    let reader = crate::eval::call_log::open_log_file(&path).map_err(ViewError::io(&path))?;
    let torn = reader.get_ref().torn();
    let damage = reader.get_ref().damage();
    let path = path.as_path();
    let mut more = 0usize;
    let read = for_each_line_in(reader, path, MAX_LINE_BYTES, notes, |_, v| {
        if !v.is_object() {
            return Err("a call line must be an object".into());
        }
        if calls.len() >= MAX_CALLS_KEPT {
            more += 1;
        } else {
            calls.push(v);
        }
        Ok(())
    });
    let mut damaged = damage_note(read, "calls", notes)?;
    if more > 0 {
        notes.push(format!("{}: {more} later calls left out", path.display()));
    }
    if let Some(why) = damage.lock().unwrap_or_else(|p| p.into_inner()).take() {
        damaged = true;
        notes.push(format!(
            "{}: the compressed log is damaged after {} calls ({why}); the rest are not shown",
            path.display(),
            calls.len() + more
        ));
    } else if torn.load(std::sync::atomic::Ordering::Relaxed) {
        notes.push(format!(
            "{}: the compressed log ends early (an interrupted or running episode); its complete calls are shown",
            path.display()
        ));
    }
    Ok((calls, damaged))
}

/// Writes the details of every episode of `unit` and returns its index entry.
pub fn write_unit(
    environments: &[&'static dyn colony_env_api::EnvEntry],
    unit: &Unit,
    page: &mut PageWriter,
    budget: &mut FrameBudget,
) -> Result<Value, ViewError> {
    let mut notes = Notes::default();
    let settings_path = unit.dir.join("compare.json");
    let raw = read_json_file(&settings_path)?.unwrap_or(Value::Null);
    let settings: CompareSettings =
        serde_json::from_value(raw.clone()).map_err(|e| ViewError::BadFile {
            path: settings_path.clone(),
            message: e.to_string(),
        })?;
    // The settings of each grid configuration, by label ("" without a grid), in grid order.
    let grid: Vec<(String, Vec<String>)> = if settings.grid.is_empty() {
        vec![(String::new(), settings.set.clone())]
    } else {
        configurations(&settings.set, &settings.grid).map_err(|e| ViewError::BadFile {
            path: settings_path.clone(),
            message: e.to_string(),
        })?
    };
    let config_rank: HashMap<&str, usize> = grid
        .iter()
        .enumerate()
        .map(|(i, (label, _))| (label.as_str(), i))
        .collect();
    let summary = json_file(&unit.dir.join("summary.json"), &mut notes);
    // The run's policy order (summary.json `order`, the user's), as in its tables.
    let policy_rank: HashMap<String, usize> = summary["order"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .enumerate()
        .map(|(i, p)| (p.to_string(), i))
        .collect();
    let mut order: Vec<(String, String, u64)> = Vec::new();
    let mut latest: BTreeMap<(String, String, u64), EpisodeResult> = BTreeMap::new();
    let episodes = unit.dir.join("episodes.jsonl");
    if episodes.is_file() {
        for_each_line(&episodes, MAX_LINE_BYTES, &mut notes, |_, v| {
            let r: EpisodeResult =
                serde_json::from_value(v).map_err(|e| format!("not an episode result: {e}"))?;
            let key = (r.config.clone(), r.policy.clone(), r.seed);
            if latest.insert(key.clone(), r).is_none() {
                order.push(key);
            }
            Ok(())
        })?;
    } else {
        notes.push(format!(
            "{}: missing (no episode finished)",
            episodes.display()
        ));
    }
    // Rows by configuration, policy (the tables' order), then seed: never in the order
    // concurrent episodes happened to finish.
    order.sort_by_cached_key(|(config, policy, seed)| {
        (
            config_rank
                .get(config.as_str())
                .copied()
                .unwrap_or(usize::MAX),
            config.clone(),
            policy_rank.get(policy).copied().unwrap_or(usize::MAX),
            policy.clone(),
            *seed,
        )
    });
    let sets: HashMap<String, Vec<String>> = grid.into_iter().collect();
    let mut rows = Vec::new();
    let mut replay_errors = 0usize;
    let mut damaged_episodes = 0usize;
    for key in &order {
        if rows.len() >= MAX_ROWS {
            notes.push(format!("only the first {MAX_ROWS} episodes are shown"));
            break;
        }
        let Some(r) = latest.remove(key) else {
            continue;
        };
        let dir = episode_dir(&unit.dir, &r.config, &r.policy, r.seed);
        let mut ep_notes = Notes::default();
        let (steps, bad_steps) = read_steps(&dir.join("steps.jsonl"), &unit.dir, &mut ep_notes)?;
        let (calls, bad_calls) = read_calls(&dir, &unit.dir, &mut ep_notes)?;
        let damaged = bad_steps || bad_calls;
        damaged_episodes += usize::from(damaged);
        let initial = match crate::eval::embodied::initial_state::read_initial_state(
            &unit.dir, &r.config, &r.policy, r.seed,
        ) {
            Ok(v) => v,
            Err(e) => {
                ep_notes.push(format!("initial state not checked: {e}"));
                None
            }
        };
        let (frames, warnings) = match sets.get(&r.config) {
            Some(set) => match replay(
                environments,
                &settings.env,
                set,
                r.seed,
                &steps,
                initial.as_ref(),
                budget,
            ) {
                Ok(rep) => {
                    for n in rep.notes {
                        ep_notes.push(n);
                    }
                    (encode_frames(&rep.frames), rep.warnings)
                }
                Err(e) => {
                    replay_errors += 1;
                    (Value::Array(Vec::new()), vec![format!("no replay: {e}")])
                }
            },
            None => (
                Value::Array(Vec::new()),
                vec![format!(
                    "no replay: configuration {:?} is not in compare.json's grid",
                    r.config
                )],
            ),
        };
        let mut detail = json!({
            "kind": "episode",
            "result": r,
            "steps": steps,
            "calls": calls,
            "frames": frames,
            "warnings": warnings,
            "notes": ep_notes.to_json(),
            "damaged": damaged,
        });
        let d = page.fitted_detail(&mut detail, &["calls", "steps", "frames"])?;
        rows.push(json!([
            r.config,
            r.policy,
            r.seed,
            r.score,
            r.steps,
            r.terminated,
            r.truncated,
            r.calls,
            r.prompt_tokens + r.completion_tokens,
            r.fallbacks,
            r.failed_calls,
            r.error,
            (r.wall_s * 1000.0).round() / 1000.0,
            d
        ]));
    }
    if damaged_episodes > 0 {
        notes.push(format!(
            "{damaged_episodes} episode(s) have damaged or unreadable files; the rest of each \
             is shown (see their notes)"
        ));
    }
    if replay_errors > 0 {
        notes.push(format!(
            "{replay_errors} episodes could not be replayed (see their warnings)"
        ));
    }
    // compare.json says so from the start; summary.json once the run ended (directories
    // written before compare.json carried it).
    let simulated = raw["simulated"] == true || summary["simulated"] == true;
    Ok(json!({
        "kind": "compare",
        "path": unit.rel,
        "dir": unit.dir.display().to_string(),
        "env": settings.env,
        "set": settings.set,
        "max_steps": settings.max_steps,
        "model": settings.model,
        "grid": settings.grid,
        "compare": raw,
        "legend": legend(environments, &settings.env),
        "simulated": simulated,
        "cols": COMPARE_COLUMNS,
        "rows": rows,
        "summary": summary,
        "results_md": text_file(&unit.dir.join("results.md"), &mut notes),
        "plots": plots(&unit.dir, &mut notes)?,
        "notes": notes.to_json(),
    }))
}
