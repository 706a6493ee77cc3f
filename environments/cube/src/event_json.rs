//! Typed step events (docs/design/cube.md §5.3) converted to the shared `Event` shape of the
//! environment API.

use colony_env_api::Event;

use crate::dynamics::CubeEvent;

/// Converts a typed event to the shared event shape.
pub fn to_event(e: &CubeEvent) -> Event {
    let agent = match e {
        CubeEvent::MoveFailed { agent, .. } => Some(agent.to_string()),
        _ => None,
    };
    let mut detail = serde_json::to_value(e).unwrap_or(serde_json::Value::Null);
    if let Some(obj) = detail.as_object_mut() {
        obj.remove("kind");
        obj.remove("agent");
    }
    Event {
        agent,
        kind: e.kind().to_string(),
        detail,
    }
}

/// Converts a step's typed events to the shared shape. Failed moves are grouped into one
/// event per reason (`{"agents": [...]}`), which keeps a random step at n = 256 cheap; the
/// typed list ([`CubeEnv::last_events`]) keeps one event per agent with its target cell.
pub fn to_events(events: &[CubeEvent]) -> Vec<Event> {
    use crate::dynamics::MoveFailure;
    let mut out = Vec::new();
    let mut failed: [Vec<serde_json::Value>; 4] = Default::default();
    for e in events {
        match e {
            CubeEvent::MoveFailed { agent, reason, .. } => {
                let slot = match reason {
                    MoveFailure::Wall => 0,
                    MoveFailure::Block => 1,
                    MoveFailure::Occupied => 2,
                    MoveFailure::LostRace => 3,
                };
                failed[slot].push(serde_json::Value::from(*agent));
            }
            other => out.push(to_event(other)),
        }
    }
    let kinds = [
        "move_into_wall",
        "move_into_block",
        "move_into_agent",
        "lost_cell_race",
    ];
    for (agents, kind) in failed.into_iter().zip(kinds) {
        if !agents.is_empty() {
            let mut detail = serde_json::Map::new();
            detail.insert("agents".into(), serde_json::Value::Array(agents));
            out.push(Event {
                agent: None,
                kind: kind.into(),
                detail: serde_json::Value::Object(detail),
            });
        }
    }
    out
}
