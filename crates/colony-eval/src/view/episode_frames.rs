//! Grid frames of an embodied episode, by replay: the run stores each step's actions, not
//! pictures, so the viewer rebuilds the environment from `compare.json` (plus the grid
//! configuration's settings), resets it with the episode's seed and applies the recorded
//! actions in order, taking the environment's ASCII picture (the `on_render` one) before the
//! first step and after every step. The simulator is deterministic, so this is the episode
//! as it ran; when the recorded score or end flags disagree (a changed simulator, a hand-edited
//! file) replay stops there and the page shows a warning instead of wrong pictures.

use serde::Serialize;
use serde_json::{json, Value};

pub use colony_env_api::LegendEntry;
use colony_env_api::PictureRows;

use crate::eval::StepRecord;
use colony_env_api::EnvEntry;
use colony_policy::env::{build, find_in, EnvLookupError};

/// Most frames per episode (steps beyond are listed without a picture).
pub const MAX_FRAMES: usize = 2_000;
/// Largest picture drawn (bytes); larger environments show no grid.
pub const MAX_PICTURE_BYTES: usize = 1 << 20;
/// Largest size of one episode's encoded frames.
pub const MAX_EPISODE_FRAME_BYTES: usize = 16 << 20;
/// Largest size of all frames of a page.
pub const MAX_TOTAL_FRAME_BYTES: usize = 512 << 20;

/// Frame bytes left for the rest of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameBudget {
    /// Bytes left.
    pub left: usize,
}

impl Default for FrameBudget {
    fn default() -> Self {
        Self {
            left: MAX_TOTAL_FRAME_BYTES,
        }
    }
}

/// One picture split into its text lines (status, rulers) and its grid rows (one character
/// per cell).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Frame {
    /// Lines that are not grid rows, in order.
    pub text: Vec<String>,
    /// Grid rows, top to bottom.
    pub grid: Vec<String>,
}

/// A replayed episode.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replay {
    /// Frame `k` is the picture after `k` steps (frame 0: after reset).
    pub frames: Vec<Frame>,
    /// Where replay disagreed with the record (shown prominently).
    pub warnings: Vec<String>,
    /// What was left out (frame caps).
    pub notes: Vec<String>,
}

/// Splits an environment's ASCII picture into text lines and grid rows, as the environment
/// lays them out ([`colony_env_api::EnvEntry::picture_rows`]); an unknown environment is
/// read as bare rows.
pub fn split_picture(entry: Option<&dyn EnvEntry>, picture: &str) -> Frame {
    let mut f = Frame::default();
    let rows = entry.map_or(PictureRows::Bare, |e| e.picture_rows());
    for (i, line) in picture.lines().enumerate() {
        if line.is_empty() {
            continue;
        }
        match rows {
            PictureRows::Labelled => match line.trim_start().split_once("  ") {
                Some((label, row)) if i > 0 && label.chars().all(|c| c.is_ascii_digit()) => {
                    f.grid.push(row.to_string());
                }
                _ => f.text.push(line.to_string()),
            },
            PictureRows::Bare if line.contains(' ') => f.text.push(line.to_string()),
            PictureRows::Bare => f.grid.push(line.to_string()),
        }
    }
    f
}

/// The cell legend of an environment ([`colony_env_api::EnvEntry::legend`]); characters not
/// listed are drawn grey with their character, and an environment not in `environments`
/// has none.
pub fn legend(environments: &[&'static dyn EnvEntry], env_id: &str) -> Vec<LegendEntry> {
    find_in(environments, env_id).map_or_else(|_| Vec::new(), |e| e.legend())
}

fn frame_bytes(f: &Frame, prev: Option<&Frame>) -> usize {
    let text: usize = f.text.iter().map(|l| l.len() + 3).sum();
    let grid: usize = f
        .grid
        .iter()
        .enumerate()
        .map(|(i, row)| match prev.and_then(|p| p.grid.get(i)) {
            Some(old) if old == row => 5,
            _ => row.len() + 3,
        })
        .sum();
    text + grid
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Replays `steps` of the episode with `seed` in environment `env` configured by `set`,
/// checking the reset state against `initial` (the run's `initial_state.json`) when given.
/// An unknown environment or bad settings is an error; everything else is a warning.
pub fn replay(
    environments: &[&'static dyn EnvEntry],
    env: &str,
    set: &[String],
    seed: u64,
    steps: &[StepRecord],
    initial: Option<&Value>,
    budget: &mut FrameBudget,
) -> Result<Replay, EnvLookupError> {
    let entry = find_in(environments, env)?;
    let mut e = build(entry, set)?;
    let mut out = Replay::default();
    e.reset(seed);
    if let Some(initial) = initial {
        // Compared after the same text round trip the recorded file went through (serde_json
        // may parse a float one ulp off what was printed; both sides then agree).
        let now = serde_json::to_string(&e.state_json())
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        if now.as_ref() != Some(initial) {
            out.warnings.push(format!(
                "the reset state of seed {seed} differs from the recorded initial_state.json \
                 (the simulator or settings changed since the run?): pictures may not match"
            ));
        }
    }
    let mut used = 0usize;
    let mut take = |e: &dyn colony_env_api::DynEnvironment, out: &mut Replay| -> bool {
        let picture = e.render();
        if picture.len() > MAX_PICTURE_BYTES {
            out.notes.push(format!(
                "the picture has {} bytes (more than {MAX_PICTURE_BYTES}): no grid shown",
                picture.len()
            ));
            return false;
        }
        let f = split_picture(Some(entry), &picture);
        let bytes = frame_bytes(&f, out.frames.last());
        if used + bytes > MAX_EPISODE_FRAME_BYTES || bytes > budget.left {
            out.notes.push(format!(
                "frames after step {} left out (frame size limit of the page)",
                out.frames.len().saturating_sub(1)
            ));
            return false;
        }
        used += bytes;
        budget.left -= bytes;
        out.frames.push(f);
        true
    };
    if !take(e.as_ref(), &mut out) {
        return Ok(out);
    }
    for (k, rec) in steps.iter().enumerate() {
        if k >= MAX_FRAMES {
            out.notes.push(format!(
                "only the first {MAX_FRAMES} of {} steps have a picture",
                steps.len()
            ));
            break;
        }
        let r = match e.step_events(&rec.actions) {
            Ok(r) => r,
            Err(err) => {
                out.warnings.push(format!(
                    "replay diverged at step {}: the recorded actions were refused ({err}); \
                     no pictures from here on",
                    rec.step
                ));
                break;
            }
        };
        let score = e.score();
        let mut differs = Vec::new();
        if !close(score, rec.score) {
            differs.push(format!("score {score} vs recorded {}", rec.score));
        }
        if r.terminated != rec.terminated || r.truncated != rec.truncated {
            differs.push(format!(
                "terminated/truncated {}/{} vs recorded {}/{}",
                r.terminated, r.truncated, rec.terminated, rec.truncated
            ));
        }
        if !take(e.as_ref(), &mut out) {
            break;
        }
        if !differs.is_empty() {
            out.warnings.push(format!(
                "replay diverged at step {}: {}; no pictures from here on",
                rec.step,
                differs.join(", ")
            ));
            break;
        }
    }
    Ok(out)
}

/// The frames as page JSON: `[[text lines], [grid rows]]` per frame, a grid row equal to the
/// previous frame's row at the same index written as `null` (most cells do not change).
pub fn encode_frames(frames: &[Frame]) -> Value {
    let mut out = Vec::with_capacity(frames.len());
    let mut prev: Option<&Frame> = None;
    for f in frames {
        let grid: Vec<Value> = f
            .grid
            .iter()
            .enumerate()
            .map(|(i, row)| match prev.and_then(|p| p.grid.get(i)) {
                Some(old) if old == row => Value::Null,
                _ => Value::String(row.clone()),
            })
            .collect();
        out.push(json!([f.text, grid]));
        prev = Some(f);
    }
    Value::Array(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin() -> colony_policy::registry::Registry {
        colony_policy::registry::Registry::builtin()
    }
    use std::collections::BTreeMap;

    fn noop_steps(env: &str, seed: u64, n: usize) -> Vec<StepRecord> {
        let (_, mut e) = builtin().build_environment::<&str>(env, &[]).unwrap();
        e.reset(seed);
        (0..n)
            .map(|k| {
                let actions: BTreeMap<String, String> = e
                    .agents()
                    .into_iter()
                    .map(|a| {
                        let t = e.noop_text(&a);
                        (a, t)
                    })
                    .collect();
                let r = e.step_events(&actions).unwrap();
                StepRecord {
                    step: k as u64,
                    actions,
                    rewards: r.rewards,
                    score: e.score(),
                    terminated: r.terminated,
                    truncated: r.truncated,
                    events: r.events,
                    trace: None,
                }
            })
            .collect()
    }

    #[test]
    fn replay_gives_one_frame_per_step_plus_the_reset_and_splits_grids() {
        for env in ["swarmbench", "cube", "wildfire"] {
            let steps = noop_steps(env, 3, 4);
            let mut budget = FrameBudget::default();
            let r = replay(
                builtin().environments(),
                env,
                &[],
                3,
                &steps,
                None,
                &mut budget,
            )
            .unwrap();
            assert!(r.warnings.is_empty(), "{env}: {:?}", r.warnings);
            assert_eq!(r.frames.len(), 5, "{env}");
            let f = &r.frames[0];
            assert!(f.grid.len() >= 8, "{env}: {f:?}");
            let width = f.grid[0].chars().count();
            assert!(
                f.grid.iter().all(|row| row.chars().count() == width),
                "{env}: {f:?}"
            );
            assert!(!f.text.is_empty(), "{env}: a status line or ruler");
            assert!(budget.left < MAX_TOTAL_FRAME_BYTES);
        }
    }

    #[test]
    fn a_score_mismatch_stops_replay_with_a_warning() {
        let mut steps = noop_steps("swarmbench", 0, 3);
        steps[1].score += 5.0;
        let mut budget = FrameBudget::default();
        let r = replay(
            builtin().environments(),
            "swarmbench",
            &[],
            0,
            &steps,
            None,
            &mut budget,
        )
        .unwrap();
        assert_eq!(
            r.frames.len(),
            3,
            "reset, step 0, step 1 (the diverging one)"
        );
        assert!(
            r.warnings[0].contains("diverged at step 1"),
            "{:?}",
            r.warnings
        );
    }

    #[test]
    fn frames_encode_unchanged_rows_as_null() {
        let a = Frame {
            text: vec!["s 0".into()],
            grid: vec!["ab".into(), "cd".into()],
        };
        let b = Frame {
            text: vec!["s 1".into()],
            grid: vec!["ab".into(), "cx".into()],
        };
        let v = encode_frames(&[a, b]);
        assert_eq!(v[1], json!([["s 1"], [null, "cx"]]));
        assert_eq!(v[0][1], json!(["ab", "cd"]));
    }

    #[test]
    fn cube_pictures_lose_ruler_and_row_labels() {
        let f = split_picture(
            builtin().environment_entry("cube-v0").ok(),
            "    0123\n 0  ..aG\n 1  0..G\n",
        );
        assert_eq!(f.grid, vec!["..aG", "0..G"]);
        assert_eq!(f.text, vec!["    0123"]);
    }
}
