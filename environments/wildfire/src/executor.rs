//! The primitive executor's per-step rules (docs/design/wildfire.md §10): the low-level vector a
//! primitive emits for an agent, and when the primitive is complete. The primitive itself is
//! plain data in [`crate::primitive`]; the executor needs the agent and the map, so it sits
//! above [`crate::state`] (the state stores the current primitive, the executor runs it).

use crate::config::AgentKind;
use crate::grid::Grid;
use crate::primitive::{LowLevel, Primitive};
use crate::state::Agent;

/// The low-level vector a primitive emits this step (§10 table).
pub fn emit(agent: &Agent, p: &Primitive) -> LowLevel {
    let (x, y) = agent.cell();
    let idle = LowLevel { code: 0, x, y };
    let to = |code| LowLevel {
        code,
        x: p.p1,
        y: p.p2,
    };
    let here = |code| LowLevel { code, x, y };
    match (agent.kind, p.kind) {
        (_, 0) => idle,
        (AgentKind::Firefighter, 1) => to(0),
        (AgentKind::Firefighter, 2 | 3) => here(1),
        (AgentKind::Firefighter, 4) if agent.carrying.is_none() => here(2),
        (AgentKind::Firefighter, 5) if agent.carrying.is_some() => here(2),
        (AgentKind::Firefighter, 6) => to(3),
        (AgentKind::Firefighter, 7) => here(4),
        (AgentKind::Bulldozer, 1) => to(0),
        (AgentKind::Bulldozer, 2) => to(1),
        (AgentKind::Drone | AgentKind::Helicopter, 1) => to(0),
        (AgentKind::Helicopter, 2) => here(1),
        (AgentKind::Helicopter, 3) => here(3),
        (AgentKind::Helicopter, 4) => here(2),
        (AgentKind::Helicopter, 5) => here(5),
        _ => idle,
    }
}

/// Completion rule (§10): moves complete on reaching the target cell, "cut n" after `n`
/// emitted steps, "cut all" when the cell has no trees, everything else after one step.
pub fn is_complete(agent: &Agent, p: &Primitive, grid: &Grid) -> bool {
    match (agent.kind, p.kind) {
        (_, 0) => agent.emitted >= 1,
        (AgentKind::Firefighter, 1)
        | (AgentKind::Bulldozer, 1 | 2)
        | (AgentKind::Drone | AgentKind::Helicopter, 1) => agent.cell() == (p.p1, p.p2),
        (AgentKind::Firefighter, 2) => agent.emitted >= p.p1.max(1) as u32,
        (AgentKind::Firefighter, 3) => {
            let c = agent.cell();
            !grid.contains(c) || grid.trees[grid.idx(c)] == 0
        }
        _ => agent.emitted >= 1,
    }
}
