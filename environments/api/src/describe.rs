//! What an environment says about itself beyond its text protocol, so that policies, reports
//! and the viewer never need its concrete type (docs/design/architecture.md §2).
//!
//! Everything here is opt-in with a default that means "this environment has none":
//! - per state, on [`crate::Environment`] (forwarded by [`crate::DynEnvironment`]): sub-goals
//!   for SwarmSys ([`SubGoal`]), the team briefing, agent abilities, profiles and histories the
//!   CREW-Wildfire frameworks put in their prompts ([`TeamBriefing`], [`AgentProfile`]), the
//!   map's dimensions, end-of-episode paper metrics, evaluation seeds and the normalized score;
//! - per environment, on [`crate::EnvEntry`]: the prompt templates a suite manifest hashes, the
//!   viewer's cell legend and picture layout ([`LegendEntry`], [`PictureRows`]), the baseline
//!   policy the paper normalizes against, and extra tables for a grid over one of its settings
//!   ([`GridCell`], [`GridReport`]).
//!
//! Decision: the descriptions are plain data (strings and numbers), not trait objects, so they
//! serialize, compare in tests and cross the async boundary freely.

use std::collections::BTreeMap;

use serde::Serialize;

/// One sub-goal of the environment at one decision: SwarmSys matches agents to open sub-goals
/// and calls an assignment a success when the sub-goal's progress rose by the next decision.
#[derive(Debug, Clone, PartialEq)]
pub struct SubGoal {
    /// Stable id across steps (`block3`, `fire-nw`, `prey`, …).
    pub id: String,
    /// What an agent is asked to do, as prompt text (also what SwarmSys embeds).
    pub description: String,
    /// Larger is better; success = an increase since assignment.
    pub progress: f64,
    /// Only open sub-goals are matched; closed ones stay listed with their final progress.
    pub open: bool,
}

/// The texts every CREW-Wildfire framework prompt shares at one step (the paper's
/// `TEAM COMPOSITION`, `CURRENT TASK`, `LIST OF AGENT ABILITIES ON TEAM` and team size).
#[derive(Debug, Clone, PartialEq)]
pub struct TeamBriefing {
    /// `TEAM COMPOSITION`.
    pub team_composition: String,
    /// `CURRENT TASK`.
    pub task: String,
    /// `LIST OF AGENT ABILITIES ON TEAM`.
    pub team_abilities: String,
    /// Number of agents the briefing describes.
    pub team_size: usize,
}

/// One agent as framework prompts introduce it: its kind and where it stands, both as text.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentProfile {
    /// The agent's kind (`Firefighter`, `Drone`, …).
    pub kind: String,
    /// Its position, as the benchmark writes positions.
    pub position: String,
    /// What it is doing now (its current primitive), when the benchmark tracks it.
    pub activity: Option<String>,
}

/// One entry of the viewer's cell legend: the picture characters it covers, their colours and
/// what they are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LegendEntry {
    /// The cell characters.
    pub chars: String,
    /// Background colour (CSS).
    pub bg: &'static str,
    /// Text colour (CSS).
    pub fg: &'static str,
    /// What the characters mean.
    pub label: &'static str,
}

impl LegendEntry {
    /// An entry for `chars` drawn `fg` on `bg`, meaning `label`.
    pub fn new(chars: &str, bg: &'static str, fg: &'static str, label: &'static str) -> Self {
        Self {
            chars: chars.to_string(),
            bg,
            fg,
            label,
        }
    }
}

/// How the lines of [`crate::Environment::render`] split into text and grid rows, for the
/// viewer's frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PictureRows {
    /// Grid rows are the lines without a space; lines with spaces are status text
    /// (SwarmBench, Wildfire, and the default).
    #[default]
    Bare,
    /// The first line is a column ruler and each grid row starts with its row number and two
    /// spaces (`12  ..a..G`, CUBE); everything else is text.
    Labelled,
}

/// One cell of a comparison grid over one setting: a policy's mean score at one value of the
/// setting, with the environment's baseline at that value when one was measured.
#[derive(Debug, Clone, PartialEq)]
pub struct GridCell {
    /// The setting's value (`"13"` for `level=13`).
    pub value: String,
    /// The policy's label.
    pub policy: String,
    /// Mean score over the seeds that finished; `None` when none did.
    pub score: Option<f64>,
}

/// Extra report content an environment adds to a grid over one of its settings (Wildfire:
/// normalized scores and the Behavior Competency Score over levels).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GridReport {
    /// Entries added to the grid's `summary.json` (key → JSON).
    pub summary: BTreeMap<String, serde_json::Value>,
    /// Markdown appended to the grid's `results.md`.
    pub markdown: String,
}

/// What [`crate::EnvEntry::grid_report`] gets: the grid's setting, its values in grid order,
/// every cell, the baseline's mean per value, and whether a simulated model produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct GridInput {
    /// The setting the grid varies (`level`).
    pub key: String,
    /// Its values, in grid order.
    pub values: Vec<String>,
    /// Policy labels, in the order asked for.
    pub policies: Vec<String>,
    /// Every (value, policy) that ran.
    pub cells: Vec<GridCell>,
    /// The baseline policy's mean score per value (see [`crate::EnvEntry::baseline_policy`]).
    pub baseline: BTreeMap<String, f64>,
    /// True when the model was simulated (tables say so).
    pub simulated: bool,
}
