//! The simulated naive language agent (docs/design/cube.md §12.2) behind
//! `EnvEntry::simulated_reply`: an offline stand-in for an LLM that reads only the prompt text,
//! like a model would, and answers in the requested format.
//!
//! With probability `accuracy` it answers with the plan an expert would choose, the greedy
//! heuristic's strategy (design §12.1): the remaining block closest to the goal,
//! `move_to_block` to its left face (the face away from the goal), `rendezvous` with
//! `count` = the block's weight, `push_block` by its distance to the goal. Otherwise it
//! answers with one random valid action (a `move`, an `idle`, or an action on a random block
//! and face). All randomness comes from `draw` through
//! [`splitmix64`](colony_env_api::rng::splitmix64), so the same prompt and draw give the
//! same reply.

use colony_env_api::rng::splitmix64;
use serde_json::{json, Value};

use crate::llm_play::is_naive_agent_prompt;

/// A block as the observation text shows it (`block 0: weight 2, top-left (2,4), …`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeenBlock {
    /// Block id.
    pub id: u32,
    /// Weight (= side).
    pub weight: u32,
    /// Top-left row.
    pub row: i32,
    /// Top-left column.
    pub col: i32,
    /// `RIGHT` pushes before delivery.
    pub distance: i32,
}

/// What the simulated agent reads from the observation text of design §8.1 (the compact line
/// format of `SymbolicObservation::to_text`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PromptView {
    /// The agent being asked (`you are agent_<i>`).
    pub self_id: usize,
    /// Grid side `K`.
    pub grid_size: i32,
    /// Team size.
    pub num_agents: usize,
    /// Agent positions `(id, (row, col))`.
    pub agents: Vec<(usize, (i32, i32))>,
    /// Remaining blocks.
    pub blocks: Vec<SeenBlock>,
}

/// Reads the observation text (everything before the `map:` section); `None` when the header
/// line (`step …; grid KxK; …; you are agent_<i>; …`) is missing.
pub fn read_observation(user: &str) -> Option<PromptView> {
    let mut view: Option<PromptView> = None;
    for line in user.lines() {
        let l = line.trim();
        if l == "map:" {
            break;
        }
        if view.is_none() {
            if l.starts_with("step ") && l.contains("you are agent_") {
                view = Some(read_header(l)?);
            }
            continue;
        }
        let Some(v) = view.as_mut() else { break };
        if let Some(rest) = l.strip_prefix("agent_") {
            if let Some(a) = read_agent(rest) {
                v.agents.push(a);
            }
        } else if let Some(rest) = l.strip_prefix("block ") {
            if let Some(b) = read_block(rest) {
                v.blocks.push(b);
            }
        }
    }
    view
}

fn read_header(l: &str) -> Option<PromptView> {
    let mut v = PromptView::default();
    for part in l.split(';').map(str::trim) {
        if let Some(g) = part.strip_prefix("grid ") {
            v.grid_size = g.split_once('x')?.0.trim().parse().ok()?;
        } else if let Some(n) = part.strip_suffix(" agents") {
            v.num_agents = n.trim().parse().ok()?;
        } else if let Some(id) = part.strip_prefix("you are agent_") {
            v.self_id = id.trim().parse().ok()?;
        }
    }
    (v.grid_size > 0).then_some(v)
}

/// `(r,c)` at the start of `s`.
fn read_pair(s: &str) -> Option<(i32, i32)> {
    let inner = s.trim().strip_prefix('(')?;
    let (inner, _) = inner.split_once(')')?;
    let (a, b) = inner.split_once(',')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// `3 at (5,0) [normal]` (after `agent_`).
fn read_agent(rest: &str) -> Option<(usize, (i32, i32))> {
    let (id, pos) = rest.split_once(" at ")?;
    Some((id.trim().parse().ok()?, read_pair(pos)?))
}

/// `0: weight 2, top-left (2,4), cells …, distance to goal 2` (after `block `).
fn read_block(rest: &str) -> Option<SeenBlock> {
    let (id, rest) = rest.split_once(':')?;
    let weight = rest.split_once("weight ")?.1;
    let weight = weight.split_once(',')?.0.trim().parse().ok()?;
    let (row, col) = read_pair(rest.split_once("top-left ")?.1)?;
    let distance = rest
        .split_once("distance to goal ")?
        .1
        .trim()
        .parse()
        .ok()?;
    Some(SeenBlock {
        id: id.trim().parse().ok()?,
        weight,
        row,
        col,
        distance,
    })
}

/// Whether the left face of `b` has a cell that is inside the grid and not a block cell
/// (design §10 `face_cells`), i.e. `move_to_block(b, left)` can succeed.
fn left_face_open(view: &PromptView, b: &SeenBlock) -> bool {
    let c = b.col - 1;
    c >= 0
        && (b.row..b.row + b.weight as i32).any(|r| {
            !view.blocks.iter().any(|o| {
                let w = o.weight as i32;
                (o.row..o.row + w).contains(&r) && (o.col..o.col + w).contains(&c)
            })
        })
}

/// The expert's target (design §12.1): among the blocks the team can move (weight ≤ team size)
/// whose left face is open, the one with the smallest distance to the goal, then smaller
/// weight, then smaller id; all blocks when none qualifies.
pub fn expert_target(view: &PromptView) -> Option<SeenBlock> {
    let key = |b: &&SeenBlock| (b.distance, b.weight, b.id);
    let movable = |b: &&SeenBlock| {
        (view.num_agents == 0 || b.weight as usize <= view.num_agents) && left_face_open(view, b)
    };
    view.blocks
        .iter()
        .filter(movable)
        .min_by_key(key)
        .or_else(|| view.blocks.iter().min_by_key(key))
        .copied()
}

fn call(action: &str, args: Value) -> Value {
    json!({ "action": action, "args": args })
}

/// The expert plan for the prompt's state (design §12.1), with its one-line reasoning.
pub fn expert_plan(view: &PromptView) -> (String, Vec<Value>) {
    let Some(b) = expert_target(view) else {
        return (
            "No block is left, so I wait.".into(),
            vec![call("idle", json!({"steps": 1}))],
        );
    };
    let reason = format!(
        "Block {} is closest to the goal (distance {}, weight {}): go to its left face, meet {} agent(s) there, push it {} cell(s) right.",
        b.id, b.distance, b.weight, b.weight, b.distance
    );
    let plan = vec![
        call("move_to_block", json!({"block": b.id, "face": "left"})),
        call(
            "rendezvous",
            json!({"block": b.id, "face": "left", "count": b.weight, "timeout": 2 * view.grid_size}),
        ),
        call("push_block", json!({"block": b.id, "steps": b.distance})),
    ];
    (reason, plan)
}

/// One random valid action (a `move`, an `idle`, or `move_to_block` / `push_block` /
/// `yield_block` on a random block and face), drawn from `rng`.
pub fn random_plan(view: &PromptView, rng: &mut u64) -> (String, Vec<Value>) {
    const DIRS: [&str; 4] = ["up", "down", "left", "right"];
    const FACES: [&str; 4] = ["left", "right", "top", "bottom"];
    let kinds = if view.blocks.is_empty() { 2 } else { 5 };
    let mut r = || splitmix64(rng);
    let kind = r() % kinds;
    let block = (!view.blocks.is_empty())
        .then(|| view.blocks[(r() % view.blocks.len() as u64) as usize].id);
    let action = match (kind, block) {
        (0, _) => call(
            "move",
            json!({"direction": DIRS[(r() % 4) as usize], "steps": 1 + r() % 4}),
        ),
        (2, Some(b)) => call(
            "move_to_block",
            json!({"block": b, "face": FACES[(r() % 4) as usize]}),
        ),
        (3, Some(b)) => call("push_block", json!({"block": b, "steps": 1 + r() % 3})),
        (4, Some(b)) => call("yield_block", json!({"block": b, "steps": 1 + r() % 2})),
        _ => call("idle", json!({"steps": 1 + r() % 3})),
    };
    ("Let me try something.".into(), vec![action])
}

/// The reply of the simulated naive agent (design §12.2) to a CUBE naive-agent prompt, or
/// `None` when `system` is not one ([`is_naive_agent_prompt`]). Reads only the prompt text;
/// one draw decides between the expert plan (probability `accuracy`) and a random plan. The
/// reply is one line of reasoning followed by the JSON array of the plan. An observation it
/// cannot read gets `[idle(1)]`.
pub fn simulated_reply(system: &str, user: &str, accuracy: f64, draw: u64) -> Option<String> {
    if !is_naive_agent_prompt(system) {
        return None;
    }
    let (reason, plan) = match read_observation(user) {
        None => (
            "I cannot read the observation, so I wait.".to_string(),
            vec![call("idle", json!({"steps": 1}))],
        ),
        Some(view) => {
            let mut rng = draw;
            let u = (splitmix64(&mut rng) >> 11) as f64 / (1u64 << 53) as f64;
            if u < accuracy {
                expert_plan(&view)
            } else {
                random_plan(&view, &mut rng)
            }
        }
    };
    let array = serde_json::to_string(&Value::Array(plan)).unwrap_or_else(|_| "[]".into());
    Some(format!("{reason}\n{array}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OBS: &str =
        "step 3/200; grid 8x8; goal zone = column 7; 2 agents; you are agent_1; team score 0\n\
agents:\n  agent_0 at (2,3) [normal]\n  agent_1 at (0,0) [rendezvous]\n\
blocks:\n  block 0: weight 2, top-left (2,4), cells rows 2-3 cols 4-5, distance to goal 2\n\
  block 1: weight 1, top-left (6,0), cells rows 6-6 cols 0-0, distance to goal 6\n\
map:\nblock 9: weight 1, top-left (0,0), cells rows 0-0 cols 0-0, distance to goal 0\n";

    #[test]
    fn reads_the_observation_text() {
        let v = read_observation(OBS).unwrap_or_default();
        assert_eq!((v.self_id, v.grid_size, v.num_agents), (1, 8, 2));
        assert_eq!(v.agents, vec![(0, (2, 3)), (1, (0, 0))]);
        assert_eq!(v.blocks.len(), 2);
        assert_eq!(
            v.blocks[0],
            SeenBlock {
                id: 0,
                weight: 2,
                row: 2,
                col: 4,
                distance: 2
            }
        );
        // Block 1 touches the left wall: not a target.
        assert!(!left_face_open(&v, &v.blocks[1]));
        assert_eq!(expert_target(&v).map(|b| b.id), Some(0));
    }
}
