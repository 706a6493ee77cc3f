//! The per-agent plan executor (docs/design/cube.md §9.3–9.4): polls symbolic actions into
//! primitives, handles rendezvous / wait barriers with same-step release, and records the history.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::geometry::{sub, Cell, Face, Prim};
use crate::symbolic::{validate, SymbolicAction, SymbolicCall};
use crate::world::World;

/// An agent's barrier state, as shown in observations (design §8.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentMode {
    /// Not waiting.
    #[default]
    Normal,
    /// Blocked in a rendezvous.
    Rendezvous,
    /// Blocked in `wait_agents`.
    Wait,
}

/// A barrier key (design §9.4 Pass B).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Barrier {
    Rendezvous(u32, Face),
    Wait,
}

/// A symbolic action being executed, with its counters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Running {
    /// Index of the action in its plan.
    pub plan_index: usize,
    /// The call as submitted.
    pub call: SymbolicCall,
    /// Validated action (set at the first poll).
    #[serde(default)]
    pub action: Option<SymbolicAction>,
    /// Steps during which the action emitted or blocked.
    #[serde(default)]
    pub ticks: i64,
    /// Moves emitted (move, yield_block, idle).
    #[serde(default)]
    pub emitted: i64,
    /// Direction fixed at the first poll (push_block: toward the block; yield_block: away).
    #[serde(default)]
    pub direction: Option<Prim>,
    /// Block top-left when push_block started.
    #[serde(default)]
    pub start: Option<Cell>,
    /// Position at the previous poll (move, yield_block), to count moves that displaced.
    #[serde(default)]
    pub last_pos: Option<Cell>,
    /// Emitted moves that actually displaced the agent (informational, design §9.2 item 1).
    #[serde(default)]
    pub moved_cells: i64,
}

/// Executor state of one agent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgentPlan {
    /// Actions still to start, with their plan indices.
    pub queue: VecDeque<(usize, SymbolicCall)>,
    /// The running action.
    pub current: Option<Running>,
    /// A preempted action whose `end` entry is recorded at the next step.
    pub preempted: Option<Running>,
    /// Barrier state.
    pub mode: AgentMode,
    /// Stop the plan at the first failed action.
    pub abort_on_failure: bool,
}

impl AgentPlan {
    /// No running action and nothing queued.
    pub fn is_exhausted(&self) -> bool {
        self.current.is_none() && self.queue.is_empty()
    }
}

/// One history entry (design §8.1, §9.4 step 4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// Step.
    pub step: u32,
    /// Agent index.
    pub agent: usize,
    /// Index of the action in its plan.
    pub plan_index: usize,
    /// Action name.
    pub action: String,
    /// Arguments as submitted.
    pub args: BTreeMap<String, serde_json::Value>,
    /// `start`, `in_progress` or `end`.
    pub status: String,
    /// Primitive supplied to this step (`null` if none).
    pub primitive: Option<Prim>,
    /// `success` / `failed:<reason>` on `end` entries.
    pub outcome: Option<String>,
    /// On the `end` entry of `move` / `yield_block`: how many emitted moves displaced the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_cells: Option<i64>,
}

/// A history entry in the making during one step.
#[derive(Debug, Clone)]
pub struct Record {
    agent: usize,
    plan_index: usize,
    call: SymbolicCall,
    began: bool,
    primitive: Option<Prim>,
    outcome: Option<String>,
    moved_cells: Option<i64>,
}

enum Poll {
    Emit(Prim),
    Done(String),
    Block(Barrier),
}

/// Per-agent plans and the history (design §9.3–9.4).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Executor {
    /// Plans by agent index.
    pub agents: Vec<AgentPlan>,
    /// Every history entry of the episode, chronological.
    pub history: Vec<HistoryEntry>,
}

impl Executor {
    /// An executor for `n` agents with empty plans.
    pub fn new(n: usize) -> Executor {
        Executor {
            agents: vec![AgentPlan::default(); n],
            history: Vec::new(),
        }
    }

    /// Replaces agent `agent`'s plan (the running action is preempted, design §9.3).
    pub fn submit(&mut self, agent: usize, plan: Vec<SymbolicCall>, abort_on_failure: bool) {
        let Some(a) = self.agents.get_mut(agent) else {
            return;
        };
        a.queue = plan.into_iter().enumerate().collect();
        a.abort_on_failure = abort_on_failure;
        if let Some(cur) = a.current.take() {
            a.preempted = Some(cur);
        }
        a.mode = AgentMode::Normal;
    }

    /// Drops agent `agent`'s plan (manual primitive control preempts it).
    pub fn clear(&mut self, agent: usize) {
        self.submit(agent, Vec::new(), false);
    }

    /// Whether any agent has something to execute or record.
    pub fn is_active(&self) -> bool {
        self.agents
            .iter()
            .any(|a| !a.is_exhausted() || a.preempted.is_some())
    }

    /// Passes A and B (design §9.4): the primitive of every agent without a manual action,
    /// and the records of this step. `manual[i]` is `Some` for agents under direct control.
    pub fn poll_all(&mut self, world: &World, manual: &[Option<Prim>]) -> (Vec<Prim>, Vec<Record>) {
        let n = self.agents.len();
        let mut prims = vec![Prim::Stay; n];
        let mut records: Vec<Vec<Record>> = vec![Vec::new(); n];
        let mut barriers: BTreeMap<Barrier, Vec<usize>> = BTreeMap::new();
        for i in 0..n {
            if let Some(p) = manual.get(i).copied().flatten() {
                prims[i] = p;
            }
            let a = &mut self.agents[i];
            if let Some(pre) = a.preempted.take() {
                records[i].push(Record {
                    agent: i,
                    plan_index: pre.plan_index,
                    call: pre.call,
                    began: false,
                    primitive: None,
                    outcome: Some("failed:preempted".into()),
                    moved_cells: None,
                });
            }
            if manual.get(i).copied().flatten().is_some() {
                continue;
            }
            if let Some(cur) = &a.current {
                records[i].push(Record {
                    agent: i,
                    plan_index: cur.plan_index,
                    call: cur.call.clone(),
                    began: false,
                    primitive: None,
                    outcome: None,
                    moved_cells: None,
                });
            }
            prims[i] = self.run_agent(i, world, &mut records[i], Some(&mut barriers));
        }
        // Pass B: same-step release, then the released agents continue in index order.
        let mut released = Vec::new();
        for (barrier, members) in &barriers {
            for &i in members {
                let count = match self.agents[i].current.as_ref().and_then(|c| c.action) {
                    Some(SymbolicAction::Rendezvous { count, .. })
                    | Some(SymbolicAction::WaitAgents { count, .. }) => count,
                    _ => continue,
                };
                if count <= members.len() as i64 {
                    released.push((i, *barrier));
                }
            }
        }
        released.sort_unstable();
        for (i, _) in released {
            let a = &mut self.agents[i];
            a.current = None;
            a.mode = AgentMode::Normal;
            if let Some(r) = records[i].last_mut() {
                r.primitive = None;
                r.outcome = Some("success".into());
            }
            prims[i] = self.run_agent(i, world, &mut records[i], None);
        }
        (prims, records.into_iter().flatten().collect())
    }

    /// The Pass A loop for one agent: zero-time completions continue with the next action.
    fn run_agent(
        &mut self,
        i: usize,
        world: &World,
        records: &mut Vec<Record>,
        mut barriers: Option<&mut BTreeMap<Barrier, Vec<usize>>>,
    ) -> Prim {
        loop {
            let a = &mut self.agents[i];
            if a.current.is_none() {
                let Some((plan_index, call)) = a.queue.pop_front() else {
                    return Prim::Stay;
                };
                records.push(Record {
                    agent: i,
                    plan_index,
                    call: call.clone(),
                    began: true,
                    primitive: None,
                    outcome: None,
                    moved_cells: None,
                });
                a.current = Some(Running {
                    plan_index,
                    call,
                    action: None,
                    ticks: 0,
                    emitted: 0,
                    direction: None,
                    start: None,
                    last_pos: None,
                    moved_cells: 0,
                });
            }
            let Some(cur) = a.current.as_mut() else {
                return Prim::Stay;
            };
            let poll = poll(cur, i, world);
            let record = records.last_mut();
            match poll {
                Poll::Emit(p) => {
                    if let Some(r) = record {
                        r.primitive = Some(p);
                    }
                    return p;
                }
                Poll::Block(b) => {
                    if let Some(r) = record {
                        r.primitive = Some(Prim::Stay);
                    }
                    a.mode = match b {
                        Barrier::Wait => AgentMode::Wait,
                        Barrier::Rendezvous(..) => AgentMode::Rendezvous,
                    };
                    if let Some(map) = barriers.as_deref_mut() {
                        map.entry(b).or_default().push(i);
                    }
                    return Prim::Stay;
                }
                Poll::Done(outcome) => {
                    let failed = outcome != "success";
                    let counts_moves = matches!(
                        cur.action,
                        Some(SymbolicAction::Move { .. }) | Some(SymbolicAction::YieldBlock { .. })
                    );
                    let moved = counts_moves.then_some(cur.moved_cells);
                    if let Some(r) = record {
                        r.outcome = Some(outcome);
                        r.moved_cells = moved;
                    }
                    a.current = None;
                    a.mode = AgentMode::Normal;
                    if failed && a.abort_on_failure {
                        a.queue.clear();
                    }
                }
            }
        }
    }

    /// Turns this step's records into history entries (design §9.4 step 4).
    pub fn record(&mut self, step: u32, records: Vec<Record>) {
        self.history.extend(records.into_iter().map(|r| {
            HistoryEntry {
                step,
                agent: r.agent,
                plan_index: r.plan_index,
                action: r.call.action,
                args: r.call.args,
                status: if r.outcome.is_some() {
                    "end"
                } else if r.began {
                    "start"
                } else {
                    "in_progress"
                }
                .into(),
                primitive: r.primitive,
                outcome: r.outcome,
                moved_cells: r.moved_cells,
            }
        }));
    }
}

fn block_id(block: i64) -> Option<u32> {
    u32::try_from(block).ok()
}

/// One poll of a running action (design §9.2).
fn poll(cur: &mut Running, agent: usize, world: &World) -> Poll {
    let first = cur.action.is_none();
    if first {
        match validate(&cur.call, world.k as u32) {
            Ok(a) => cur.action = Some(a),
            Err(_) => return Poll::Done("failed:invalid_args".into()),
        }
    }
    let Some(action) = cur.action else {
        return Poll::Done("failed:invalid_args".into());
    };
    if first && action.steps().is_some_and(|s| s <= 0) {
        return Poll::Done("success".into());
    }
    let pos = world.agents[agent];
    if let Some(prev) = cur.last_pos {
        if prev != pos {
            cur.moved_cells += 1;
        }
    }
    cur.last_pos = Some(pos);
    let live = |b: i64| block_id(b).and_then(|id| world.block(id).copied());
    let gone = || Poll::Done("failed:block_gone".into());
    match action {
        SymbolicAction::Move { direction, steps } => emit_n(cur, direction, steps),
        SymbolicAction::Idle { steps } => emit_n(cur, Prim::Stay, steps),
        SymbolicAction::YieldBlock { block, steps } => {
            if first {
                let Some(b) = live(block) else {
                    return gone();
                };
                let dist = |p: i32, lo: i32, hi: i32| {
                    if p < lo {
                        lo - p
                    } else if p > hi {
                        p - hi
                    } else {
                        0
                    }
                };
                let w = b.side();
                let dist_r = dist(pos.0, b.row, b.row + w - 1);
                let dist_c = dist(pos.1, b.col, b.col + w - 1);
                let side = if dist_c >= dist_r {
                    if pos.1 < b.col {
                        Face::Left
                    } else {
                        Face::Right
                    }
                } else if pos.0 < b.row {
                    Face::Top
                } else {
                    Face::Bottom
                };
                cur.direction = Some(side.outward_normal());
            }
            let d = cur.direction.unwrap_or(Prim::Stay);
            emit_n(cur, d, steps)
        }
        SymbolicAction::WaitAgents { timeout, .. } => {
            if cur.ticks >= timeout {
                return Poll::Done("failed:timeout".into());
            }
            cur.ticks += 1;
            Poll::Block(Barrier::Wait)
        }
        SymbolicAction::Rendezvous {
            block,
            face,
            timeout,
            ..
        } => {
            let Some(b) = live(block) else {
                return gone();
            };
            if !world.pos_aligned(pos, &b, face) {
                return Poll::Done("failed:not_aligned".into());
            }
            if cur.ticks >= timeout {
                return Poll::Done("failed:timeout".into());
            }
            cur.ticks += 1;
            Poll::Block(Barrier::Rendezvous(b.id, face))
        }
        SymbolicAction::PushBlock {
            block,
            steps,
            timeout,
        } => {
            let Some(b) = live(block) else {
                // Delivery ends every push on the block (design §9.2 item 4).
                return if first {
                    gone()
                } else {
                    Poll::Done("success".into())
                };
            };
            if first {
                let Some(face) = Face::ALL
                    .into_iter()
                    .find(|&f| world.pos_aligned(pos, &b, f))
                else {
                    return Poll::Done("failed:not_aligned".into());
                };
                cur.direction = Some(face.push_direction());
                cur.start = Some((b.row, b.col));
            }
            let d = cur.direction.unwrap_or(Prim::Stay);
            let start = cur.start.unwrap_or((b.row, b.col));
            let disp = sub((b.row, b.col), start);
            let delta = d.delta();
            let progress = (disp.0 * delta.0 + disp.1 * delta.1).max(0);
            if i64::from(progress) >= steps {
                return Poll::Done("success".into());
            }
            if cur.ticks >= timeout {
                return Poll::Done("failed:timeout".into());
            }
            cur.ticks += 1;
            Poll::Emit(d)
        }
        SymbolicAction::MoveToBlock {
            block,
            face,
            timeout,
        } => {
            let Some(b) = live(block) else {
                return gone();
            };
            let faces = world.face_cells(b.id, face).unwrap_or_default();
            if faces.is_empty() {
                return Poll::Done("failed:face_unavailable".into());
            }
            if world.pos_aligned(pos, &b, face) {
                return Poll::Done("success".into());
            }
            if cur.ticks >= timeout {
                return Poll::Done("failed:timeout".into());
            }
            cur.ticks += 1;
            Poll::Emit(path_step(world, pos, &faces, face))
        }
    }
}

fn emit_n(cur: &mut Running, d: Prim, steps: i64) -> Poll {
    if cur.emitted >= steps {
        return Poll::Done("success".into());
    }
    cur.emitted += 1;
    cur.ticks += 1;
    Poll::Emit(d)
}

/// First move toward a free face cell, else toward a queue cell behind the agents on the face
/// (design §9.2 item 2); agents are obstacles first, passable in the fallback search.
fn path_step(world: &World, pos: Cell, faces: &[Cell], face: Face) -> Prim {
    let mut goals: Vec<Cell> = faces
        .iter()
        .copied()
        .filter(|&c| !world.is_agent(c))
        .collect();
    if goals.is_empty() {
        let n = face.outward_normal().delta();
        for &x in faces {
            let mut c = x;
            while world.in_bounds(c) && world.is_agent(c) {
                c = (c.0 + n.0, c.1 + n.1);
            }
            if world.in_bounds(c) && !world.is_block(c) {
                goals.push(c);
            }
        }
    }
    let path = world
        .shortest_path(pos, &goals, true)
        .or_else(|| world.shortest_path(pos, &goals, false));
    match path.and_then(|p| p.first().copied()) {
        Some(next) => match sub(next, pos) {
            (-1, 0) => Prim::Up,
            (1, 0) => Prim::Down,
            (0, -1) => Prim::Left,
            (0, 1) => Prim::Right,
            _ => Prim::Stay,
        },
        None => Prim::Stay,
    }
}
