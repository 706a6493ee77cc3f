//! The logs the analysis reads (docs/design/swarmbench.md §12.3): one game state per round (round 0
//! after reset) and one decision per agent per round, with the reference's field names.

use serde::{Deserialize, Serialize};

use crate::env::SwarmEnv;
use crate::layout::agent_name;
use crate::reply::{Move, Reply};
use crate::view::View;

/// An agent's logged position (`x` = column, `y` = row).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentLog {
    /// `Agent_i`.
    pub id: String,
    /// Column.
    pub x: i32,
    /// Row.
    pub y: i32,
}

/// A message as logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageLog {
    /// Round it was sent in.
    pub round: u32,
    /// Speaker name.
    pub agent_name: String,
    /// Text.
    pub message: String,
}

/// A logged game state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameStateLog {
    /// Task name.
    pub task: String,
    /// Round number (0 = after reset).
    pub round: u32,
    /// The map: rows of one-character symbols.
    pub grid: Vec<Vec<String>>,
    /// Agents in index order (escaped agents keep their off-map coordinates).
    pub agents: Vec<AgentLog>,
    /// Task score.
    pub score: f64,
    /// Messages sent in the previous round.
    pub messages: Vec<MessageLog>,
}

/// A logged decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionLog {
    /// Round in which it was decided (0-based).
    pub round: u32,
    /// `Agent_i`.
    pub agent_id: String,
    /// Prompt ("" for escaped agents).
    pub prompt: String,
    /// Raw reply ("" for escaped agents).
    pub response: String,
    /// Parsed move, or `STAY` when none was found (Q12).
    pub action: String,
    /// The sent message, or "".
    pub message: String,
    /// The k×k view (ids, `$`ids, symbols; no `Y`).
    pub view: Vec<Vec<String>>,
    /// Always false, as in the reference (Q23).
    pub action_success: bool,
    /// Wall-clock seconds of the model call (filled by the driver).
    pub api_call_time: f64,
    /// The agent's cumulative completion tokens (filled by the driver).
    pub total_llm_tokens: u64,
}

impl SwarmEnv {
    /// The game state log of the current state.
    pub fn game_state_log(&self) -> GameStateLog {
        let prev = self.round.checked_sub(1);
        GameStateLog {
            task: self.cfg.task.name().to_string(),
            round: self.round,
            grid: self
                .world
                .grid_rows()
                .iter()
                .map(|r| r.chars().map(String::from).collect())
                .collect(),
            agents: (0..self.agents.len())
                .map(|i| {
                    let (y, x) = self.agent_pos(i);
                    AgentLog {
                        id: agent_name(i),
                        x,
                        y,
                    }
                })
                .collect(),
            score: self.score,
            messages: self
                .messages
                .iter()
                .filter(|m| Some(m.sent) == prev)
                .map(|m| MessageLog {
                    round: m.sent,
                    agent_name: agent_name(m.speaker),
                    message: m.text.clone(),
                })
                .collect(),
        }
    }

    /// The decision log entry of agent `i` for `response` parsed as `reply`, taken before the
    /// round is played (escaped agents: empty prompt/response, `STAY`, §12.3).
    pub fn decision_log(
        &self,
        i: usize,
        prompt: &str,
        response: &str,
        reply: &Reply,
    ) -> DecisionLog {
        let mut view = View::empty();
        crate::view::local_view(
            &self.world,
            &self.agent_of_mesh,
            self.agent_pos(i),
            self.cfg.view,
            &mut view,
        );
        let escaped = self.escaped[i];
        DecisionLog {
            round: self.round,
            agent_id: agent_name(i),
            prompt: if escaped {
                String::new()
            } else {
                prompt.to_string()
            },
            response: if escaped {
                String::new()
            } else {
                response.to_string()
            },
            action: if escaped {
                "STAY".into()
            } else {
                reply.action.unwrap_or(Move::Stay).name().to_string()
            },
            message: if escaped {
                String::new()
            } else {
                reply.message.clone()
            },
            view: view.rows_text(),
            action_success: false,
            api_call_time: 0.0,
            total_llm_tokens: 0,
        }
    }
}
