//! The state of one SwarmSys task between global rounds (docs/design/swarmsys.md §2.3–§2.6):
//! agents with their profiles, pheromone traces and competence embeddings; events with their
//! profiles, rounds and outputs; and the steps before a round's calls (open events, turns,
//! statuses, embeddings, matching). Settling a round is in `settle.rs`. Everything runs in
//! agent order and event creation order, so the result never depends on the order in which
//! calls completed (§2.11).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::assign::{assign, AssignInput, Assignment, MatchAgent};
use super::encode::{self, Cache, EventText};
use super::matching::{epsilon, uniform, Role};
use super::options::{Mode, RolesMode, SwarmSysOptions};
use super::profile::{AgentProfile, EventKind, EventProfile, EventStatus};
use super::roles::Slot;
use crate::reasoning::shuffle;
use crate::reasoning::{derive_seed, PolicyError, Query};
use colony_llm::embed::Embedder;

/// The method name in seeds (§0.3).
pub const METHOD: &str = "swarmsys";

/// One agent of the task.
#[derive(Debug, Clone)]
pub struct Agent {
    /// Id and created role.
    pub slot: Slot,
    /// The turn it takes this round (its created role unless `roles=none`).
    pub role: Role,
    /// Its profile (§2.3).
    pub profile: AgentProfile,
    /// Pheromone trace `p_i` (empty = 0).
    pub pheromone: Vec<f64>,
    /// Competence embedding `c_i` of the last matching.
    pub competence: Option<Vec<f64>>,
}

/// One message of a round.
#[derive(Debug, Clone)]
pub struct Msg {
    /// Author (agent index).
    pub agent: usize,
    /// Text (empty when the call failed).
    pub text: String,
}

/// One round of one event.
#[derive(Debug, Clone)]
pub struct EventRound {
    /// Event round (1-based).
    pub round: u32,
    /// The explorer's message.
    pub explorer: Msg,
    /// The workers' messages, in agent order.
    pub workers: Vec<Msg>,
    /// The validator's message.
    pub validator: Msg,
    /// Each worker's compatibility (or rank score) with the event this round.
    pub worker_rank: Vec<f64>,
}

/// What an event yields (§2.9).
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The output text (what the grader sees).
    pub text: String,
    /// The answer extracted from it.
    pub answer: Option<String>,
    /// `terminate`, `vote`, `validator` or `empty`.
    pub source: &'static str,
    /// The agent whose message it is.
    pub agent: Option<String>,
}

/// One event of the task.
#[derive(Debug, Clone)]
pub struct Event {
    /// Its profile (§2.3).
    pub profile: EventProfile,
    /// The query it answers (mode C: its own question; else the task's).
    pub query: usize,
    /// Its rounds.
    pub rounds: Vec<EventRound>,
    /// Mode B root before its first round: the explorer is asked for sub-events.
    pub decompose: bool,
    /// Set once it closes.
    pub output: Option<Output>,
    /// `e_j` of the last matching.
    pub embedding: Vec<f64>,
}

/// Fallbacks taken (§2.7, §2.9) and replies that did not parse, counted for the trace.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Fallbacks {
    /// Mode B blocks missing or invalid (the task went on in mode A).
    pub mode_b_to_a: u32,
    /// Why each mode-B block was refused.
    pub mode_b_errors: Vec<String>,
    /// Events closed `failed` at their round limit.
    pub round_limit: u32,
    /// Events still open (or never run) when the task ended.
    pub task_end: u32,
    /// Failed events answered by the workers' plurality vote.
    pub vote: u32,
    /// Failed events answered by their last validator message (no worker answer).
    pub validator_message: u32,
    /// Failed events with no text at all.
    pub empty_output: u32,
    /// Workers of a validator reply without a VERDICT line for them.
    pub missing_verdicts: u32,
    /// VERDICT lines naming no worker of the round.
    pub unknown_verdicts: u32,
    /// Validator replies mentioning TERMINATE without a usable `TERMINATE: The answer is` line.
    pub terminate_unparsed: u32,
}

/// The embeddings step's results.
#[derive(Debug, Clone, Default)]
pub struct Embeds {
    /// `s_ij`, agents × open events.
    pub compat: Vec<Vec<f64>>,
    /// Drift `1 − cos(c_i(g), c_i(g−1))` per agent (None in its first matching).
    pub drift: Vec<Option<f64>>,
}

/// The matching step's results (for the trace).
#[derive(Debug, Clone)]
pub struct Matching {
    /// ε per agent.
    pub eps: Vec<f64>,
    /// The draw per agent.
    pub draws: Vec<f64>,
    /// Scores coverage repair used.
    pub rank: Vec<Vec<f64>>,
    /// The assignment.
    pub assignment: Assignment,
}

/// A task's mutable state.
pub struct Task<'a> {
    /// Settings.
    pub opts: &'a SwarmSysOptions,
    /// The task's questions (one, or an exam's).
    pub queries: &'a [Query],
    /// `sample_id` of seeds: the item id, or the exam id (§0.3).
    pub sample_id: String,
    /// Run seed.
    pub run_seed: u64,
    /// Agents in agent order.
    pub agents: Vec<Agent>,
    /// Events in creation order.
    pub events: Vec<Event>,
    /// Embedding cache.
    pub cache: Cache,
    /// Long competence instruction?
    pub long_instruction: bool,
    /// Round numbers in profiles are `offset + g` (profiles that persist across items).
    pub round_offset: u32,
    /// Fallback counters.
    pub fallbacks: Fallbacks,
    /// Messages numbered so far (`m-<n>` ids).
    pub(super) messages: u32,
}

impl<'a> Task<'a> {
    /// A task over `queries` with `agents` (fresh or carried over) and its initial events:
    /// the root event `E1` (modes A, B), or one leaf `E<k>` per question (mode C).
    pub fn new(
        opts: &'a SwarmSysOptions,
        queries: &'a [Query],
        sample_id: String,
        run_seed: u64,
        agents: Vec<Agent>,
        long_instruction: bool,
        round_offset: u32,
    ) -> Self {
        let events = match opts.mode {
            Mode::Exam => queries
                .iter()
                .enumerate()
                .map(|(k, q)| {
                    let title = format!("Question {}", k + 1);
                    let mut p =
                        EventProfile::leaf(&format!("E{}", k + 1), None, &title, &q.item.question);
                    p.milestone = "A checked final answer to this question".into();
                    event(p, k, false)
                })
                .collect(),
            Mode::Single | Mode::Decomposed => {
                let q = queries.first().map_or("", |q| q.item.question.as_str());
                let mut p = EventProfile::leaf("E1", None, "The question", q);
                p.milestone = "A checked final answer to the question".into();
                vec![event(p, 0, opts.mode == Mode::Decomposed)]
            }
        };
        Self {
            opts,
            queries,
            sample_id,
            run_seed,
            agents,
            events,
            cache: Cache::default(),
            long_instruction,
            round_offset,
            fallbacks: Fallbacks::default(),
            messages: 0,
        }
    }

    fn seed(&self, g: u32, agent: Option<&str>, purpose: &str) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(derive_seed(
            self.run_seed,
            &self.sample_id,
            METHOD,
            Some(g),
            agent,
            purpose,
        ))
    }

    fn closed(&self, id: &str) -> bool {
        self.events
            .iter()
            .any(|e| e.profile.event_id == id && e.profile.status.is_closed())
    }

    /// Pending events whose dependencies closed become open; returns `O_g`, the open or
    /// in-progress events whose dependencies are all closed, in creation order (§2.6 step 1).
    pub fn open_events(&mut self) -> Vec<usize> {
        for k in 0..self.events.len() {
            let ready = self.events[k]
                .profile
                .dependencies
                .iter()
                .all(|d| self.closed(d));
            if ready && self.events[k].profile.status == EventStatus::Pending {
                self.events[k].profile.status = EventStatus::Open;
            }
        }
        (0..self.events.len())
            .filter(|&k| {
                let p = &self.events[k].profile;
                matches!(p.status, EventStatus::Open | EventStatus::InProgress)
                    && p.dependencies.iter().all(|d| self.closed(d))
            })
            .collect()
    }

    /// Whether the task is over (§2.9): the root closed (modes A, B) or every event closed.
    pub fn finished(&self) -> bool {
        match self.opts.mode {
            Mode::Exam => self.events.iter().all(|e| e.profile.status.is_closed()),
            Mode::Single | Mode::Decomposed => self
                .events
                .first()
                .is_none_or(|e| e.profile.status.is_closed()),
        }
    }

    /// The turns of round `g` (§2.2 fixed roles; `roles=none`: a seeded shuffle gives the
    /// first agents the explorer turns, the next the worker turns, the last the validator
    /// turns, in the role split's numbers). Returns the permutation used, if any.
    pub fn assign_turns(&mut self, g: u32) -> Option<Vec<usize>> {
        if self.opts.roles != RolesMode::None {
            for a in &mut self.agents {
                a.role = a.slot.role;
            }
            return None;
        }
        let n = self.agents.len();
        let mut perm: Vec<usize> = (0..n).collect();
        let mut rng = self.seed(g, None, "roles");
        shuffle(&mut rng, &mut perm);
        let c = self.opts.counts;
        for (pos, &i) in perm.iter().enumerate() {
            let role = if pos < c.explorers {
                Role::Explorer
            } else if pos < c.explorers + c.workers {
                Role::Worker
            } else {
                Role::Validator
            };
            self.agents[i].role = role;
            self.agents[i].profile.role = role;
        }
        Some(perm)
    }

    /// Statuses before matching round `g`: events of last round that are still open stay
    /// active; capacity is this round's (workers 1, explorers and validators `|O_g|`).
    pub fn refresh_status(&mut self, open: &[usize]) {
        let still_open: Vec<String> = open
            .iter()
            .map(|&k| self.events[k].profile.event_id.clone())
            .collect();
        for a in &mut self.agents {
            let active: Vec<String> = a
                .profile
                .status
                .active_events
                .iter()
                .filter(|e| still_open.contains(e))
                .cloned()
                .collect();
            let capacity = capacity(a.role, open.len());
            a.profile.set_active(active, capacity);
        }
    }

    fn event_text(&self, k: usize) -> String {
        let e = &self.events[k].profile;
        let deps: Vec<String> = e
            .dependencies
            .iter()
            .filter_map(|d| self.events.iter().find(|x| &x.profile.event_id == d))
            .map(|d| {
                let r = d.profile.result.as_deref().unwrap_or("not available yet");
                format!("{}: {r}", d.profile.title)
            })
            .collect();
        let progress: Vec<String> = e
            .progress
            .log
            .iter()
            .rev()
            .take(2)
            .rev()
            .map(|l| l.summary.clone())
            .collect();
        encode::event_text(&EventText {
            id: &e.event_id,
            kind: match e.kind {
                EventKind::Composite => "composite",
                EventKind::Leaf => "leaf",
            },
            task_type: e.task_type.name(),
            description: &e.description,
            dependencies: &deps,
            status: e.status.name(),
            progress: &progress,
            milestone: &e.milestone,
        })
    }

    /// Embeddings of round `g` (§2.4–§2.5): competence `c_i = normalise(b_i + p_i)`,
    /// availability `s_i`, `v_i = c_i + w_s·s_i`, events `e_j`, and `s_ij` for the open
    /// events. Updates embedding versions and returns the drift per agent.
    pub async fn embed(
        &mut self,
        embedder: &dyn Embedder,
        open: &[usize],
        g: u32,
    ) -> Result<Embeds, PolicyError> {
        let round = self.round_offset + g;
        let mut comp = Vec::with_capacity(self.agents.len());
        let mut avail = Vec::with_capacity(self.agents.len());
        for a in &self.agents {
            let p = &a.profile;
            comp.push(encode::competence_text(
                self.long_instruction,
                &p.ability_description,
                &p.history_text(),
            )?);
            avail.push(encode::availability_text(&p.status_text(round)));
        }
        let events: Vec<String> = open.iter().map(|&k| self.event_text(k)).collect();
        let all: Vec<String> = comp.iter().chain(&avail).chain(&events).cloned().collect();
        self.cache
            .fill(embedder, &all)
            .await
            .map_err(|source| PolicyError::Embedding {
                policy: METHOD,
                source,
            })?;
        let e: Vec<Vec<f64>> = events.iter().map(|t| self.cache.get(t)).collect();
        for (&k, v) in open.iter().zip(&e) {
            self.events[k].embedding = v.clone();
        }
        let mut out = Embeds::default();
        for (i, a) in self.agents.iter_mut().enumerate() {
            let b = self.cache.get(&comp[i]);
            if a.pheromone.len() != b.len() {
                a.pheromone = vec![0.0; b.len()];
            }
            let c = encode::normalise(&encode::add_scaled(&b, 1.0, &a.pheromone));
            let s = self.cache.get(&avail[i]);
            let v = encode::add_scaled(&c, self.opts.w_s, &s);
            out.drift.push(
                a.competence
                    .as_ref()
                    .map(|prev| super::metrics::drift(&c, prev)),
            );
            if a.competence.as_ref() != Some(&c) {
                a.profile.embedding_version += 1;
            }
            a.competence = Some(c);
            out.compat
                .push(e.iter().map(|ej| encode::compatibility(&v, ej)).collect());
        }
        Ok(out)
    }

    /// The matching of round `g` (§2.6): ε per agent from its outcomes, one seeded draw per
    /// agent (`purpose = "match"`), then [`assign`]. Without compatibilities (random
    /// matching) every `s_ij` is 0.5, so `P` is uniform, and repair ranks by seeded random
    /// scores (`purpose = "rank"`).
    pub fn matching(&mut self, g: u32, open: &[usize], compat: Option<&[Vec<f64>]>) -> Matching {
        let m = open.len();
        let eps: Vec<f64> = self
            .agents
            .iter()
            .map(|a| {
                epsilon(
                    &a.profile.performance.recent_outcomes,
                    self.opts.window,
                    self.opts.eps,
                )
            })
            .collect();
        let draws: Vec<f64> = self
            .agents
            .iter()
            .map(|a| uniform(&mut self.seed(g, Some(&a.slot.id), "match")))
            .collect();
        let flat = vec![vec![0.5; m]; self.agents.len()];
        let compat = compat.unwrap_or(&flat);
        let rank: Vec<Vec<f64>> = match self.opts.roles {
            RolesMode::Matched => compat.to_vec(),
            RolesMode::Random | RolesMode::None => self
                .agents
                .iter()
                .map(|a| {
                    let mut rng = self.seed(g, Some(&a.slot.id), "rank");
                    (0..m).map(|_| uniform(&mut rng)).collect()
                })
                .collect(),
        };
        let agents: Vec<MatchAgent> = self
            .agents
            .iter()
            .map(|a| MatchAgent {
                role: a.role,
                capacity: capacity(a.role, m),
            })
            .collect();
        let workers = agents.iter().filter(|a| a.role == Role::Worker).count();
        let assignment = assign(&AssignInput {
            agents: &agents,
            compat,
            rank: &rank,
            eps: &eps,
            gamma: self.opts.gamma,
            draws: &draws,
            worker_slots: workers.div_ceil(m.max(1)),
        });
        let round = self.round_offset + g;
        for (i, a) in self.agents.iter_mut().enumerate() {
            a.profile.exploration_rate = eps[i];
            let served: Vec<String> = (0..m)
                .filter(|&j| {
                    let s = &assignment.slots[j];
                    s.explorers.contains(&i) || s.workers.contains(&i) || s.validators.contains(&i)
                })
                .map(|j| self.events[open[j]].profile.event_id.clone())
                .collect();
            if !served.is_empty() {
                a.profile.status.last_active_round = Some(round);
                a.profile.updated_round = round;
            }
            a.profile.set_active(served, capacity(a.role, m));
        }
        for (j, &k) in open.iter().enumerate() {
            let s = &assignment.slots[j];
            for (role, list) in [
                (Role::Explorer, &s.explorers),
                (Role::Worker, &s.workers),
                (Role::Validator, &s.validators),
            ] {
                for &i in list {
                    self.events[k]
                        .profile
                        .add_participant(role, &self.agents[i].slot.id);
                }
            }
        }
        Matching {
            eps,
            draws,
            rank,
            assignment,
        }
    }

    /// The overall task shown to sub-events (their composite's description).
    pub fn overall(&self, k: usize) -> Option<String> {
        let parent = self.events[k].profile.parent_id.as_deref()?;
        self.events
            .iter()
            .find(|e| e.profile.event_id == parent)
            .map(|e| e.profile.description.clone())
    }

    /// The agent profiles, in agent order.
    pub fn profiles(&self) -> Vec<&AgentProfile> {
        self.agents.iter().map(|a| &a.profile).collect()
    }
}

/// A new event with no rounds yet.
pub(super) fn event(profile: EventProfile, query: usize, decompose: bool) -> Event {
    Event {
        profile,
        query,
        rounds: Vec::new(),
        decompose,
        output: None,
        embedding: Vec::new(),
    }
}

/// Events an agent of `role` may serve per round (§2.6 step 2).
pub fn capacity(role: Role, open: usize) -> usize {
    match role {
        Role::Worker => 1,
        Role::Explorer | Role::Validator => open.max(1),
    }
}
