//! One global round's assignment of agents to events (docs/design/swarmsys.md §2.6 steps 2–5):
//! slots, capacities, one draw per agent in agent order, coverage repair, and the single-event
//! rule. Pure, like [`super::matching`], whose probabilities it samples.

use serde::{Deserialize, Serialize};

use super::matching::{mixture, sample, Role, EPS_MIN};

/// One agent as the assignment sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchAgent {
    /// The slot kind it fills.
    pub role: Role,
    /// Events it may serve this round (workers 1; explorers and validators the number of
    /// open events, §2.6 step 2).
    pub capacity: usize,
}

/// Everything one round's assignment needs; rows are agents in agent order (§2.2), columns
/// the open events in creation order.
#[derive(Debug, Clone, Copy)]
pub struct AssignInput<'a> {
    /// The agents.
    pub agents: &'a [MatchAgent],
    /// Compatibilities `s_ij` (drive the probabilities).
    pub compat: &'a [Vec<f64>],
    /// Scores for coverage repair and for picking the one explorer/validator of a single
    /// event (the compatibilities, or seeded random scores when matching is random).
    pub rank: &'a [Vec<f64>],
    /// ε per agent.
    pub eps: &'a [f64],
    /// Sharpness γ.
    pub gamma: f64,
    /// One uniform draw per agent, from its own seeded stream.
    pub draws: &'a [f64],
    /// Worker slots per event (`ceil(workers / events)`).
    pub worker_slots: usize,
}

/// The agents serving one event this round.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventSlots {
    /// Explorers (normally one).
    pub explorers: Vec<usize>,
    /// Workers.
    pub workers: Vec<usize>,
    /// Validators (normally one).
    pub validators: Vec<usize>,
}

impl EventSlots {
    fn of(&mut self, role: Role) -> &mut Vec<usize> {
        match role {
            Role::Explorer => &mut self.explorers,
            Role::Worker => &mut self.workers,
            Role::Validator => &mut self.validators,
        }
    }

    fn len(&self, role: Role) -> usize {
        match role {
            Role::Explorer => self.explorers.len(),
            Role::Worker => self.workers.len(),
            Role::Validator => self.validators.len(),
        }
    }
}

/// One agent added by coverage repair (§2.6 step 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repair {
    /// The event (column).
    pub event: usize,
    /// The missing role.
    pub role: Role,
    /// The agent assigned.
    pub agent: usize,
    /// True when no agent of the role had capacity left (logged over-assignment).
    pub over_capacity: bool,
}

/// The outcome of [`assign`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Assignment {
    /// Per agent, `P(j|i)` over all events (0 outside its candidate set); `None` when the
    /// agent drew nothing (no candidate, or it sits out a single event).
    pub p: Vec<Option<Vec<f64>>>,
    /// Per agent, the event its draw picked.
    pub drawn: Vec<Option<usize>>,
    /// Per event, its agents.
    pub slots: Vec<EventSlots>,
    /// Agents added by coverage repair, in the order they were added.
    pub repairs: Vec<Repair>,
    /// Events per agent after the round's assignment.
    pub load: Vec<usize>,
}

/// The index with the largest `score` among `candidates` (first on ties: agent order).
fn best(candidates: impl Iterator<Item = usize>, score: impl Fn(usize) -> f64) -> Option<usize> {
    let mut out: Option<(usize, f64)> = None;
    for i in candidates {
        let s = score(i);
        if out.is_none_or(|(_, b)| s > b) {
            out = Some((i, s));
        }
    }
    out.map(|(i, _)| i)
}

/// One global round's assignment (§2.6 steps 2–5).
///
/// Slots per event: one explorer, one validator, `worker_slots` workers. Agents in agent
/// order draw one event each from `P(j|i)` over the events whose slot for their role is still
/// free (nothing if none, or if their capacity is used up). Coverage repair then gives every
/// event lacking a role the agent of that role with the highest rank that still has capacity,
/// else the highest regardless (over-assignment); ties go to agent order. With a single
/// event, its explorer and validator are the ones of highest rank and the other explorers and
/// validators sit out (§2.6 step 5), while every agent's `P` (= 1) is still reported.
pub fn assign(input: &AssignInput<'_>) -> Assignment {
    let n = input.agents.len();
    let events = input.compat.first().map_or(0, Vec::len);
    let mut out = Assignment {
        p: vec![None; n],
        drawn: vec![None; n],
        slots: vec![EventSlots::default(); events],
        repairs: Vec::new(),
        load: vec![0; n],
    };
    if events == 0 {
        return out;
    }
    let capacity = |role: Role| match role {
        Role::Worker => input.worker_slots,
        Role::Explorer | Role::Validator => 1,
    };
    let rank = |i: usize, j: usize| {
        input
            .rank
            .get(i)
            .and_then(|r| r.get(j))
            .copied()
            .unwrap_or(0.0)
    };
    let single = events == 1;
    if single {
        for role in [Role::Explorer, Role::Validator] {
            let of_role = (0..n).filter(|&i| input.agents[i].role == role);
            if let Some(i) = best(of_role, |i| rank(i, 0)) {
                out.slots[0].of(role).push(i);
                out.load[i] += 1;
                out.drawn[i] = Some(0);
                out.p[i] = Some(vec![1.0]);
            }
        }
    }
    for i in 0..n {
        let agent = input.agents[i];
        if single && agent.role != Role::Worker {
            // Explorers and validators of a single event: decided above; the others sit out,
            // with P = 1 reported for the event they would all draw.
            if out.p[i].is_none() {
                out.p[i] = Some(vec![1.0]);
            }
            continue;
        }
        if out.load[i] >= agent.capacity {
            continue;
        }
        let candidates: Vec<usize> = (0..events)
            .filter(|&j| out.slots[j].len(agent.role) < capacity(agent.role))
            .collect();
        if candidates.is_empty() {
            continue;
        }
        let row = input.compat.get(i);
        let s: Vec<f64> = candidates
            .iter()
            .map(|&j| row.and_then(|r| r.get(j)).copied().unwrap_or(0.0))
            .collect();
        let eps = input.eps.get(i).copied().unwrap_or(EPS_MIN);
        let local = mixture(&s, eps, input.gamma);
        let mut full = vec![0.0; events];
        for (&j, &pj) in candidates.iter().zip(&local) {
            full[j] = pj;
        }
        out.p[i] = Some(full);
        let u = input.draws.get(i).copied().unwrap_or(0.0);
        if let Some(k) = sample(&local, u) {
            let j = candidates[k];
            out.drawn[i] = Some(j);
            out.slots[j].of(agent.role).push(i);
            out.load[i] += 1;
        }
    }
    // Coverage repair, events in creation order, roles in slot order.
    for j in 0..events {
        for role in Role::ALL {
            if out.slots[j].len(role) > 0 {
                continue;
            }
            let of_role = || (0..n).filter(move |&i| input.agents[i].role == role);
            let free = best(
                of_role().filter(|&i| out.load[i] < input.agents[i].capacity),
                |i| rank(i, j),
            );
            let (agent, over_capacity) = match free {
                Some(i) => (i, false),
                None => match best(of_role(), |i| rank(i, j)) {
                    Some(i) => (i, true),
                    None => continue,
                },
            };
            out.slots[j].of(role).push(agent);
            out.slots[j].of(role).sort_unstable();
            out.load[agent] += 1;
            out.repairs.push(Repair {
                event: j,
                role,
                agent,
                over_capacity,
            });
        }
    }
    for s in &mut out.slots {
        s.explorers.sort_unstable();
        s.workers.sort_unstable();
        s.validators.sort_unstable();
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::swarmsys::reasoning::matching::{uniform, GAMMA};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Over 100,000 seeded draws (one stream per draw, as agents have), every event is
    /// picked with frequency within 1% of `P(j|i)`, directly and through [`assign`].
    #[test]
    fn sampling_frequencies_match_the_distribution() {
        let s = vec![0.9, 0.8, 0.6];
        let p = mixture(&s, 0.15, GAMMA);
        let n = 100_000;
        let mut direct = [0usize; 3];
        let mut assigned = [0usize; 3];
        let agents = [MatchAgent {
            role: Role::Worker,
            capacity: 1,
        }];
        for k in 0..n {
            let u = uniform(&mut ChaCha8Rng::seed_from_u64(k));
            direct[sample(&p, u).unwrap()] += 1;
            let compat = vec![s.clone()];
            let a = assign(&AssignInput {
                agents: &agents,
                compat: &compat,
                rank: &compat,
                eps: &[0.15],
                gamma: GAMMA,
                draws: &[u],
                worker_slots: 1,
            });
            assigned[a.drawn[0].unwrap()] += 1;
        }
        for j in 0..3 {
            for counts in [direct, assigned] {
                let f = counts[j] as f64 / n as f64;
                assert!((f - p[j]).abs() < 0.01, "event {j}: {f} vs {}", p[j]);
            }
        }
    }

    fn agents(roles: &[(Role, usize)]) -> Vec<MatchAgent> {
        roles
            .iter()
            .map(|&(role, capacity)| MatchAgent { role, capacity })
            .collect()
    }

    #[test]
    fn slots_capacities_and_coverage_repair() {
        use Role::*;
        // 1 explorer, 3 workers, 1 validator, 2 events: 2 worker slots per event.
        let ag = agents(&[
            (Explorer, 2),
            (Worker, 1),
            (Worker, 1),
            (Worker, 1),
            (Validator, 2),
        ]);
        let compat = vec![
            vec![0.9, 0.2],
            vec![0.9, 0.1],
            vec![0.9, 0.1],
            vec![0.9, 0.1],
            vec![0.2, 0.8],
        ];
        // Every draw picks event 0 when it can (u = 0 selects the first candidate).
        let a = assign(&AssignInput {
            agents: &ag,
            compat: &compat,
            rank: &compat,
            eps: &[0.15; 5],
            gamma: GAMMA,
            draws: &[0.0; 5],
            worker_slots: 2,
        });
        assert_eq!(a.drawn, vec![Some(0), Some(0), Some(0), Some(1), Some(0)]);
        // Worker 3 found event 0 full: its candidate set is event 1 only.
        assert_eq!(a.p[3], Some(vec![0.0, 1.0]));
        assert_eq!(a.slots[0].workers, vec![1, 2]);
        assert_eq!(a.slots[1].workers, vec![3]);
        // Event 1 lacks an explorer and a validator: repaired within capacity.
        assert_eq!(a.slots[1].explorers, vec![0]);
        assert_eq!(a.slots[1].validators, vec![4]);
        assert_eq!(a.repairs.len(), 2);
        assert!(a.repairs.iter().all(|r| !r.over_capacity && r.event == 1));
        assert_eq!(a.load, vec![2, 1, 1, 1, 2]);

        // Capacity 1 everywhere and 2 events, 1 worker: event 1's worker is over-assigned
        // to the worker of highest compatibility with it.
        let ag = agents(&[(Explorer, 2), (Worker, 1), (Validator, 2)]);
        let compat = vec![vec![0.5, 0.5], vec![0.9, 0.3], vec![0.5, 0.5]];
        let a = assign(&AssignInput {
            agents: &ag,
            compat: &compat,
            rank: &compat,
            eps: &[0.15; 3],
            gamma: GAMMA,
            draws: &[0.0; 3],
            worker_slots: 1,
        });
        assert_eq!(a.slots[0].workers, vec![1]);
        assert_eq!(a.slots[1].workers, vec![1]);
        let over: Vec<_> = a.repairs.iter().filter(|r| r.over_capacity).collect();
        assert_eq!(over.len(), 1);
        assert_eq!((over[0].event, over[0].role, over[0].agent), (1, Worker, 1));
        assert_eq!(a.load[1], 2);
    }

    #[test]
    fn repair_ties_go_to_agent_order_and_a_single_event_takes_the_best() {
        use Role::*;
        // Two explorers, two workers, two validators, one event.
        let ag = agents(&[
            (Explorer, 1),
            (Explorer, 1),
            (Worker, 1),
            (Worker, 1),
            (Validator, 1),
            (Validator, 1),
        ]);
        let compat = vec![
            vec![0.6],
            vec![0.8],
            vec![0.5],
            vec![0.5],
            vec![0.7],
            vec![0.7],
        ];
        let a = assign(&AssignInput {
            agents: &ag,
            compat: &compat,
            rank: &compat,
            eps: &[0.15; 6],
            gamma: GAMMA,
            draws: &[0.99; 6],
            worker_slots: 2,
        });
        assert_eq!(a.slots[0].explorers, vec![1], "highest compatibility");
        assert_eq!(a.slots[0].validators, vec![4], "tie: agent order");
        assert_eq!(a.slots[0].workers, vec![2, 3], "all workers");
        assert_eq!(a.drawn[0], None, "the other explorer sits out");
        assert!(a.p.iter().all(|p| p.as_deref() == Some(&[1.0][..])));
        assert!(a.repairs.is_empty());
    }
}
