//! Agent and event profiles (docs/design/swarmsys.md §2.3, reconstructed JSON schemas), with the
//! texts built from them (history and status texts of §2.4, the task-type rule of §2.2).
//!
//! Field names and value spellings are the JSON of §2.3; profiles are snapshotted into the
//! item trace after every global round.

use serde::{Deserialize, Serialize};

use super::matching::{success_rate, Role};

/// `idle` or `busy` (`busy` iff `workload > 0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentState {
    /// No active event.
    Idle,
    /// At least one active event.
    Busy,
}

/// An agent's workload (§2.3 `Status`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// `idle` | `busy`.
    pub state: AgentState,
    /// Events the agent serves this round.
    pub active_events: Vec<String>,
    /// `active_events.len()`.
    pub workload: u32,
    /// Events it may serve per round (workers 1, explorers and validators the open events).
    pub capacity: u32,
    /// The last global round it contributed a message in.
    pub last_active_round: Option<u32>,
}

/// `validated` or `rejected`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A valid verdict, or a validated closing (explorer, validator).
    Validated,
    /// An invalid verdict, or a failed closing.
    Rejected,
}

/// One outcome in an agent's history (§2.3 `HistoryEntry`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// Global round.
    pub round: u32,
    /// The event.
    pub event_id: String,
    /// The event's title.
    pub event_title: String,
    /// `validated` | `rejected` (rejected entries are kept for auditing only).
    pub outcome: Outcome,
    /// Last non-empty paragraph of the contribution, cut to 200 characters (§2.4).
    pub summary: String,
}

/// An agent's track record (§2.3 `Performance`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Performance {
    /// Outcomes, oldest first.
    pub history: Vec<HistoryEntry>,
    /// The last `recent_window` outcomes (1 success, 0 failure), oldest first.
    pub recent_outcomes: Vec<u8>,
    /// W (5).
    pub recent_window: u32,
    /// Mean of `recent_outcomes` (None before the first outcome).
    pub recent_success: Option<f64>,
    /// Outcomes so far.
    pub submitted: u32,
    /// Successful outcomes so far.
    pub accepted: u32,
}

/// The profile of one agent (§2.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentProfile {
    /// `X1`, `W3`, …
    pub agent_id: String,
    /// `explorer` | `worker` | `validator` (under `roles=none`: the turn taken last).
    pub role: Role,
    /// Declared ability (§2.4: the role card's one-sentence description by default).
    pub ability_description: String,
    /// Workload.
    pub status: Status,
    /// Track record.
    pub performance: Performance,
    /// ε of its last matching.
    pub exploration_rate: f64,
    /// ‖p_i‖ of its pheromone trace.
    pub pheromone_trace_norm: f64,
    /// Times its competence embedding changed.
    pub embedding_version: u32,
    /// The last global round that updated the profile.
    pub updated_round: u32,
}

impl AgentProfile {
    /// A fresh profile: no history, idle.
    pub fn new(agent_id: &str, role: Role, ability: &str, window: usize) -> Self {
        Self {
            agent_id: agent_id.to_string(),
            role,
            ability_description: ability.to_string(),
            status: Status {
                state: AgentState::Idle,
                active_events: Vec::new(),
                workload: 0,
                capacity: 1,
                last_active_round: None,
            },
            performance: Performance {
                history: Vec::new(),
                recent_outcomes: Vec::new(),
                recent_window: u32::try_from(window).unwrap_or(u32::MAX),
                recent_success: None,
                submitted: 0,
                accepted: 0,
            },
            exploration_rate: super::matching::EPS_MIN,
            pheromone_trace_norm: 0.0,
            embedding_version: 0,
            updated_round: 0,
        }
    }

    /// Records one outcome (§2.8 counters): `submitted` always, `accepted` on success, the
    /// recent window, and a history entry.
    pub fn record(&mut self, entry: HistoryEntry) {
        let p = &mut self.performance;
        let success = entry.outcome == Outcome::Validated;
        p.submitted += 1;
        p.accepted += u32::from(success);
        p.recent_outcomes.push(u8::from(success));
        let w = p.recent_window.max(1) as usize;
        if p.recent_outcomes.len() > w {
            let extra = p.recent_outcomes.len() - w;
            p.recent_outcomes.drain(..extra);
        }
        p.recent_success = Some(success_rate(&p.recent_outcomes, w));
        p.history.push(entry);
    }

    /// `history_text_i` (§2.4): up to the 5 most recent validated contributions, newest
    /// first, one line each `[round r] <event title>: <summary>`; "No recorded activity yet."
    /// without any.
    pub fn history_text(&self) -> String {
        let lines: Vec<String> = self
            .performance
            .history
            .iter()
            .rev()
            .filter(|h| h.outcome == Outcome::Validated)
            .take(5)
            .map(|h| format!("[round {}] {}: {}", h.round, h.event_title, h.summary))
            .collect();
        if lines.is_empty() {
            "No recorded activity yet.".to_string()
        } else {
            lines.join("\n")
        }
    }

    /// The status sentence of the availability embedding (§2.4) in global round `round`.
    pub fn status_text(&self, round: u32) -> String {
        let since = self
            .status
            .last_active_round
            .map_or("none".to_string(), |r| round.saturating_sub(r).to_string());
        format!(
            "Role: {}. Active events: {} of capacity {}. State: {}. Rounds since last \
             contribution: {since}.",
            self.role.name(),
            self.status.workload,
            self.status.capacity,
            match self.status.state {
                AgentState::Idle => "idle",
                AgentState::Busy => "busy",
            }
        )
    }

    /// Sets the events the agent serves (and `state`, `workload`).
    pub fn set_active(&mut self, events: Vec<String>, capacity: usize) {
        self.status.workload = u32::try_from(events.len()).unwrap_or(u32::MAX);
        self.status.state = if events.is_empty() {
            AgentState::Idle
        } else {
            AgentState::Busy
        };
        self.status.active_events = events;
        self.status.capacity = u32::try_from(capacity).unwrap_or(u32::MAX);
    }
}

/// `composite` (has sub-events) or `leaf`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// Waits for its sub-events, then synthesises.
    Composite,
    /// Solved directly.
    Leaf,
}

/// The task-type label of §2.2 (keyword rules over the description).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskType {
    /// Prove, show, demonstrate, establish.
    Proof,
    /// Calculate, compute, evaluate, integrate, derive.
    Computation,
    /// Maximise, minimise, optimise.
    Optimization,
    /// If / then / otherwise.
    Conditional,
    /// Anything else.
    General,
}

impl TaskType {
    /// The label of `description` (§2.2 decision): the first of the five cases whose
    /// keywords occur, in the listed order.
    pub fn of(description: &str) -> Self {
        let lower = description.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let starts = |stems: &[&str]| words.iter().any(|w| stems.iter().any(|s| w.starts_with(s)));
        if starts(&["prove", "proof", "demonstrat", "establish"]) || lower.contains("show that") {
            TaskType::Proof
        } else if starts(&["calculat", "comput", "evaluat", "integrat", "deriv"]) {
            TaskType::Computation
        } else if starts(&["maximi", "minimi", "optimi", "maximum", "minimum"]) {
            TaskType::Optimization
        } else if words
            .iter()
            .any(|w| matches!(*w, "if" | "then" | "otherwise"))
        {
            TaskType::Conditional
        } else {
            TaskType::General
        }
    }

    /// The lowercase label.
    pub fn name(self) -> &'static str {
        match self {
            TaskType::Proof => "proof",
            TaskType::Computation => "computation",
            TaskType::Optimization => "optimization",
            TaskType::Conditional => "conditional",
            TaskType::General => "general",
        }
    }
}

/// An event's lifecycle state (§2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventStatus {
    /// Some dependency is not closed yet.
    Pending,
    /// Ready, no round run yet (or resumed after its sub-events).
    Open,
    /// At least one round run.
    InProgress,
    /// Closed by TERMINATE.
    Validated,
    /// Closed without TERMINATE (round limit, task end); `result` is the fallback answer.
    Failed,
}

impl EventStatus {
    /// `validated` or `failed`.
    pub fn is_closed(self) -> bool {
        matches!(self, EventStatus::Validated | EventStatus::Failed)
    }

    /// The snake-case name.
    pub fn name(self) -> &'static str {
        match self {
            EventStatus::Pending => "pending",
            EventStatus::Open => "open",
            EventStatus::InProgress => "in_progress",
            EventStatus::Validated => "validated",
            EventStatus::Failed => "failed",
        }
    }
}

/// One message in an event's progress log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// Global round.
    pub round: u32,
    /// Author.
    pub agent_id: String,
    /// The author's turn.
    pub role: Role,
    /// `m-<n>`, numbered per task in a fixed order.
    pub message_id: String,
    /// Last non-empty paragraph, cut to 200 characters.
    pub summary: String,
}

/// An event's progress (§2.3 `Progress`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Event rounds run.
    pub rounds_run: u32,
    /// Every message of its rounds.
    pub log: Vec<LogEntry>,
    /// Per round, the workers' extracted answers (`W1: 7; W2: 9`).
    pub intermediate_results: Vec<String>,
}

/// The agents that served an event (§2.3 `Participants`), each list in agent order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Participants {
    /// Explorers.
    pub explorers: Vec<String>,
    /// Workers.
    pub workers: Vec<String>,
    /// Validators.
    pub validators: Vec<String>,
}

/// Whether and when the event's validator confirmed an answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Consensus {
    /// TERMINATE was written.
    pub reached: bool,
    /// The TERMINATE answer.
    pub answer: Option<String>,
    /// Global round of the TERMINATE.
    pub round: Option<u32>,
}

/// The profile of one event (§2.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventProfile {
    /// `E1`, `E1.2`, …
    pub event_id: String,
    /// The composite it belongs to.
    pub parent_id: Option<String>,
    /// `composite` | `leaf`.
    pub kind: EventKind,
    /// Short title.
    pub title: String,
    /// Full statement.
    pub description: String,
    /// Keyword label (§2.2).
    pub task_type: TaskType,
    /// Events that must close first (for a composite: its sub-events).
    pub dependencies: Vec<String>,
    /// Lifecycle state.
    pub status: EventStatus,
    /// What result closes it.
    pub milestone: String,
    /// Rounds and messages.
    pub progress: Progress,
    /// Who served it.
    pub participants: Participants,
    /// TERMINATE state.
    pub consensus: Consensus,
    /// The TERMINATE answer, or the fallback answer of a failed event.
    pub result: Option<String>,
    /// Global round it was created in (0 for the initial events).
    pub created_round: u32,
}

impl EventProfile {
    /// A leaf event with no dependencies, `open`.
    pub fn leaf(id: &str, parent: Option<&str>, title: &str, description: &str) -> Self {
        Self {
            event_id: id.to_string(),
            parent_id: parent.map(str::to_string),
            kind: EventKind::Leaf,
            title: title.to_string(),
            description: description.to_string(),
            task_type: TaskType::of(description),
            dependencies: Vec::new(),
            status: EventStatus::Open,
            milestone: String::new(),
            progress: Progress::default(),
            participants: Participants::default(),
            consensus: Consensus::default(),
            result: None,
            created_round: 0,
        }
    }

    /// Adds `agent` to the participants of `role` (kept in agent order by the caller's order).
    pub fn add_participant(&mut self, role: Role, agent: &str) {
        let list = match role {
            Role::Explorer => &mut self.participants.explorers,
            Role::Worker => &mut self.participants.workers,
            Role::Validator => &mut self.participants.validators,
        };
        if !list.iter().any(|a| a == agent) {
            list.push(agent.to_string());
        }
    }
}

/// The last non-empty paragraph of `text`, cut to 200 characters (§2.4 `summary`).
pub fn summary(text: &str) -> String {
    let para = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .last()
        .unwrap_or("");
    let flat = para.split_whitespace().collect::<Vec<_>>().join(" ");
    flat.chars().take(200).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn entry(round: u32, ok: bool) -> HistoryEntry {
        HistoryEntry {
            round,
            event_id: "E1".into(),
            event_title: "Root".into(),
            outcome: if ok {
                Outcome::Validated
            } else {
                Outcome::Rejected
            },
            summary: format!("s{round}"),
        }
    }

    #[test]
    fn outcomes_update_counters_window_and_history_text() {
        let mut p = AgentProfile::new("W1", Role::Worker, "solves", 5);
        assert_eq!(p.history_text(), "No recorded activity yet.");
        for r in 1..=7 {
            p.record(entry(r, r % 2 == 1));
        }
        let perf = &p.performance;
        assert_eq!((perf.submitted, perf.accepted), (7, 4));
        assert_eq!(perf.recent_outcomes, vec![1, 0, 1, 0, 1]);
        assert_eq!(perf.recent_success, Some(0.6));
        assert_eq!(
            p.history_text(),
            "[round 7] Root: s7\n[round 5] Root: s5\n[round 3] Root: s3\n[round 1] Root: s1"
        );
    }

    #[test]
    fn status_text_and_profile_json_shape() {
        let mut p = AgentProfile::new("W3", Role::Worker, "solves", 5);
        p.set_active(vec!["E1.2".into()], 1);
        p.status.last_active_round = Some(1);
        assert_eq!(
            p.status_text(3),
            "Role: worker. Active events: 1 of capacity 1. State: busy. Rounds since last \
             contribution: 2."
        );
        let v = serde_json::to_value(&p).unwrap();
        for key in [
            "agent_id",
            "role",
            "ability_description",
            "status",
            "performance",
            "exploration_rate",
            "pheromone_trace_norm",
            "embedding_version",
            "updated_round",
        ] {
            assert!(v.get(key).is_some(), "{key}");
        }
        assert_eq!(v["status"]["state"], "busy");
        assert_eq!(v["role"], "worker");
        let e = serde_json::to_value(EventProfile::leaf("E1", None, "t", "Prove that x")).unwrap();
        assert_eq!(e["kind"], "leaf");
        assert_eq!(e["status"], "open");
        assert_eq!(e["task_type"], "proof");
        assert!(e["consensus"]["answer"].is_null());
    }

    #[test]
    fn task_types_follow_the_listed_order() {
        assert_eq!(TaskType::of("Show that 2 is prime."), TaskType::Proof);
        assert_eq!(
            TaskType::of("Evaluate the integral."),
            TaskType::Computation
        );
        assert_eq!(TaskType::of("Maximize the area."), TaskType::Optimization);
        assert_eq!(
            TaskType::of("If it rains, then what?"),
            TaskType::Conditional
        );
        assert_eq!(TaskType::of("How many apples?"), TaskType::General);
        assert_eq!(TaskType::of("Iffy ifs"), TaskType::General);
    }

    #[test]
    fn summaries_take_the_last_paragraph() {
        assert_eq!(summary("a\n\nb  c\n d\n\n  \n"), "b c d");
        assert_eq!(summary(&"x".repeat(300)).len(), 200);
        assert_eq!(summary(""), "");
    }
}
