//! The exact prompt text (docs/design/swarmbench.md §11): system message, user template, task
//! descriptions, and the assembly of views, observation, messages and history, as pure functions.
//!
//! The static texts live in `src/prompts/*.txt`, quoted byte for byte from the spec.

use crate::config::Task;
use crate::layout::flocking_target;

/// The system message (design §11.1; "a agent" is verbatim).
pub const SYSTEM: &str = include_str!("prompts/system.txt");

/// The user prompt template (design §11.2).
pub const TEMPLATE: &str = include_str!("prompts/template.txt");

/// The task description of design §11.3 (Flocking with its target shape filled in).
pub fn task_description(task: Task, agents: usize) -> String {
    match task {
        Task::Pursuit => include_str!("prompts/pursuit.txt").to_string(),
        Task::Synchronization => include_str!("prompts/synchronization.txt").to_string(),
        Task::Foraging => include_str!("prompts/foraging.txt").to_string(),
        Task::Transport => include_str!("prompts/transport.txt").to_string(),
        Task::Flocking => {
            let (k, cells) = flocking_target(agents);
            let shape: Vec<String> = (0..k)
                .map(|r| {
                    (0..k)
                        .map(|c| if cells.contains(&(r, c)) { "A" } else { "." })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            include_str!("prompts/flocking.txt").replace("{shape}", &shape.join("\n"))
        }
    }
}

/// One history entry (design §10.4): the 1-based decision count, the action name or `NONE`,
/// and the message ("" when none).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HistoryEntry {
    /// Decision number (1-based, Q11).
    pub round: u32,
    /// `UP` … `SWITCH`, or `NONE`.
    pub action: String,
    /// The message, possibly empty.
    pub message: String,
}

/// Everything that fills the template for one agent.
#[derive(Debug, Clone, Copy)]
pub struct PromptParts<'a> {
    /// Agent name (`Agent_3`).
    pub name: &'a str,
    /// Task description.
    pub task_desc: &'a str,
    /// Current round (0-based).
    pub round: u32,
    /// Memory length.
    pub memory: usize,
    /// Rendered views, newest first (at most `memory`).
    pub views: &'a [String],
    /// Observation lines joined by `\n`.
    pub observation: &'a str,
    /// Received messages, in speaker order.
    pub messages: &'a [String],
    /// Last `memory` history entries, oldest first.
    pub history: &'a [HistoryEntry],
}

/// Renders the user prompt (design §11.2), substituting each placeholder once, in one pass.
pub fn render_prompt(p: &PromptParts<'_>) -> String {
    let views: Vec<String> = p
        .views
        .iter()
        .enumerate()
        .map(|(n, v)| {
            let label = if n == 0 {
                "Current Step".to_string()
            } else {
                format!("{n} Steps Before")
            };
            format!("{label}:\n{v}")
        })
        .collect();
    let messages: String = p
        .messages
        .iter()
        .map(|m| format!("Message: \"{m}\"\n"))
        .collect();
    let history: String = p
        .history
        .iter()
        .map(|h| {
            format!(
                "Round {}: Action: {}, Message: \"{}\"\n",
                h.round, h.action, h.message
            )
        })
        .collect();
    let mut out = String::with_capacity(TEMPLATE.len() + 2048);
    let mut rest = TEMPLATE;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let key = &after[..close];
        match key {
            "name" => out.push_str(p.name),
            "task_desc" => out.push_str(p.task_desc),
            "round" => out.push_str(&p.round.to_string()),
            "memory" => out.push_str(&p.memory.to_string()),
            "views" => out.push_str(&views.join("\n")),
            "observation" => out.push_str(p.observation),
            "messages" => out.push_str(&messages),
            "history" => out.push_str(&history),
            other => {
                out.push('{');
                out.push_str(other);
                out.push('}');
            }
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}
