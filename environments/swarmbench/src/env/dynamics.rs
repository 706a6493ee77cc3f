//! The episode's running group-dynamics metrics (paper App. F, docs/design/swarmbench.md
//! §12.4): what `paper_metrics` reports, so `colony compare` records them per episode.

use std::collections::BTreeMap;

use crate::reply::{Move, Reply};

use super::SwarmEnv;

impl SwarmEnv {
    /// Agent positions as the logs give them, `(x, y)` = (column, row).
    pub(crate) fn dynamics_positions(&self) -> Vec<(i32, i32)> {
        (0..self.agents.len())
            .map(|i| {
                let (row, col) = self.agent_pos(i);
                (col, row)
            })
            .collect()
    }

    /// Adds the current state and the round's `actions` to the group-dynamics metrics, as
    /// the reference's logs record them (escaped or silent agents: `STAY`, no message).
    pub(crate) fn record_dynamics(&mut self, actions: &BTreeMap<String, Reply>) {
        let mut moves = Vec::with_capacity(self.names.len());
        let mut messages = Vec::new();
        for (i, name) in self.names.iter().enumerate() {
            let reply = actions.get(name).filter(|_| !self.escaped[i]);
            moves.push(reply.and_then(|r| r.action).unwrap_or(Move::Stay).name());
            if let Some(r) = reply.filter(|r| !r.message.is_empty()) {
                messages.push(r.message.as_str());
            }
        }
        let positions = self.dynamics_positions();
        self.dynamics
            .record(self.round, positions, moves, &messages);
    }
}
