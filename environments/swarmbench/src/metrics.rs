//! Group-dynamics metrics per logged game state (docs/design/swarmbench.md §12.4, Q37, Q41),
//! computed from the logs of [`crate::logs`] with the per-state function of
//! [`crate::group_dynamics`], whose items are re-exported here.

use std::collections::{BTreeMap, BTreeSet};

pub use crate::group_dynamics::{
    run_means, state_metrics, Before, Embedder, GroupDynamics, RoundMetrics, StateInput,
};
use crate::logs::{DecisionLog, GameStateLog};

/// Metrics of every logged state `0 … R` (design §12.4).
pub fn round_metrics(
    states: &[GameStateLog],
    decisions: &[DecisionLog],
    embedder: Option<&dyn Embedder>,
) -> Vec<RoundMetrics> {
    let mut seen: BTreeSet<(i32, i32)> = BTreeSet::new();
    let pos =
        |s: &GameStateLog| -> Vec<(i32, i32)> { s.agents.iter().map(|a| (a.x, a.y)).collect() };
    // Each agent's action of the round before a state, in the state's agent order.
    let actions_before = |r: usize| -> Vec<&str> {
        let prev_round = states[r - 1].round;
        let acts: BTreeMap<&str, &str> = decisions
            .iter()
            .filter(|d| d.round == prev_round)
            .map(|d| (d.agent_id.as_str(), d.action.as_str()))
            .collect();
        states[r]
            .agents
            .iter()
            .map(|a| acts.get(a.id.as_str()).copied().unwrap_or(""))
            .collect()
    };
    states
        .iter()
        .enumerate()
        .map(|(r, state)| {
            let mine: Vec<&DecisionLog> = decisions
                .iter()
                .filter(|d| d.round == state.round)
                .collect();
            let actions: Vec<&str> = mine.iter().map(|d| d.action.as_str()).collect();
            let msgs: Vec<&str> = mine
                .iter()
                .map(|d| d.message.as_str())
                .filter(|s| !s.is_empty())
                .collect();
            let prev = (r > 0).then(|| (pos(&states[r - 1]), actions_before(r)));
            let before = prev.as_ref().map(|(p, a)| Before {
                positions: p,
                actions: a,
            });
            let input = StateInput {
                round: state.round,
                positions: &pos(state),
                actions: &actions,
                messages: &msgs,
                before,
            };
            state_metrics(&input, &mut seen, embedder)
        })
        .collect()
}
