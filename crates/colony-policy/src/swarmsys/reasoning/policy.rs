//! The SwarmSys policy (docs/design/swarmsys.md §2): a team of explorers, workers and validators
//! works through a task's events in global rounds. Each round: open events, embeddings,
//! ε-greedy matching, then for every open event explorer → workers → validator, settled
//! between rounds in agent order.
//!
//! Concurrency (§2.11): a round's calls run in three phases (all explorers, all workers, all
//! validators), each phase concurrent across events and workers, with a barrier between
//! phases, so inside every event the turn order holds. Prompts depend only on round-start
//! state and the earlier phases, seeds on (item, round, agent, event), results are stored by
//! position and failures recorded in input order: the outcome is identical whatever the
//! completion order, and `sequential = true` (every call one by one) gives the same output,
//! which the tests check.

use std::sync::Arc;

use async_trait::async_trait;
use colony_qa::Item;
use serde_json::Value;

use super::exam::ExamBook;
use super::matching::Role;
use super::options::{Mode, ProfileScope, RolesMode, SwarmSysOptions};
use super::profile::AgentProfile;
use super::roles::{agent_order, Cards};
use super::state::{Agent, EventRound, Matching, Msg, Output, Task, METHOD};
use super::trace::{final_trace, round_trace, RoundFacts};
use super::turns::{self, Ask, CallLog, DepResult, Shown};
use crate::reasoning::common::format_suffix;
use crate::reasoning::{llm_seed, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};
use colony_llm::embed::Embedder;
use colony_llm::UsageReport;
use colony_runtime::{AgentSpec, AskOptions, Team, Transcript};

/// The SwarmSys reasoning policy with its embedder (results must name it, §0.1).
pub struct SwarmSys {
    name: String,
    options: SwarmSysOptions,
    embedder: Arc<dyn Embedder>,
    cards: Cards,
    exams: ExamBook,
    /// Profiles carried across items (`profile_scope = run`) and the rounds used so far.
    carried: tokio::sync::Mutex<Option<(Vec<Agent>, u32)>>,
}

/// What one task produced.
pub(crate) struct TaskRun {
    /// Per question of the task, its event's output.
    pub outputs: Vec<Output>,
    /// Event id per question.
    pub events: Vec<String>,
    /// The task trace.
    pub trace: Value,
    /// Every call.
    pub transcript: Transcript,
    /// Usage of the task's team.
    pub usage: UsageReport,
}

impl SwarmSys {
    /// SwarmSys with `options` (checked by [`SwarmSysOptions::validate`]), matching with
    /// `embedder`.
    pub fn new(options: SwarmSysOptions, embedder: Arc<dyn Embedder>) -> Result<Self, PolicyError> {
        options.validate()?;
        let cards = Cards::builtin()?;
        Ok(Self {
            name: policy_name(&options),
            options,
            embedder,
            cards,
            exams: ExamBook::default(),
            carried: tokio::sync::Mutex::new(None),
        })
    }

    /// The options.
    pub fn options(&self) -> &SwarmSysOptions {
        &self.options
    }

    /// Fresh agents in agent order with empty profiles (§2.3).
    fn fresh_agents(&self) -> Vec<Agent> {
        let neutral = self.options.roles == RolesMode::None;
        let mut worker = 0usize;
        agent_order(&self.options.counts, neutral)
            .into_iter()
            .map(|slot| {
                let card = self.cards.of(slot.role, neutral);
                let mut ability = card.description.clone();
                if slot.role == Role::Worker && !neutral {
                    if let Some(a) = self
                        .options
                        .worker_abilities
                        .get(worker % self.options.worker_abilities.len().max(1))
                    {
                        ability = format!("{ability} Specialty: {a}.");
                    }
                    worker += 1;
                }
                let profile = AgentProfile::new(&slot.id, slot.role, &ability, self.options.window);
                Agent {
                    role: slot.role,
                    slot,
                    profile,
                    pheromone: Vec::new(),
                    competence: None,
                }
            })
            .collect()
    }

    /// The team: agent `i` takes roster member `i mod len` (model and sampling) and its
    /// role's card.
    fn team(&self, roster: &Roster, agents: &[Agent]) -> Result<Team, PolicyError> {
        if roster.members.is_empty() {
            return Err(PolicyError::Config("the roster has no agents".into()));
        }
        let neutral = self.options.roles == RolesMode::None;
        let specs = agents.iter().enumerate().map(|(i, a)| {
            let m = &roster.members[i % roster.members.len()];
            AgentSpec::new(
                a.slot.id.clone(),
                self.cards.of(a.slot.role, neutral),
                m.model.clone(),
            )
            .with_sampling(m.sampling.or(&roster.sampling))
        });
        Ok(Team::builder().agents(specs).build()?)
    }

    /// Runs one task over `queries` (one question, or an exam's), with profiles carried in
    /// from earlier items when the scope is the run.
    pub(crate) async fn run_task(
        &self,
        queries: &[Query],
        sample_id: &str,
        roster: &Roster,
    ) -> Result<TaskRun, PolicyError> {
        if self.options.profile_scope == ProfileScope::Run {
            // Items run one at a time, in the order they reach the lock (FIFO).
            let mut carried = self.carried.lock().await;
            let (agents, offset) = carried.take().unwrap_or_else(|| (self.fresh_agents(), 0));
            return match self
                .run_with(queries, sample_id, roster, agents.clone(), offset)
                .await
            {
                Ok((run, after, used)) => {
                    *carried = Some((after, offset + used));
                    Ok(run)
                }
                Err(e) => {
                    // A failed item leaves the carried profiles as they were.
                    *carried = Some((agents, offset));
                    Err(e)
                }
            };
        }
        let (run, _, _) = self
            .run_with(queries, sample_id, roster, self.fresh_agents(), 0)
            .await?;
        Ok(run)
    }

    async fn run_with(
        &self,
        queries: &[Query],
        sample_id: &str,
        roster: &Roster,
        agents: Vec<Agent>,
        offset: u32,
    ) -> Result<(TaskRun, Vec<Agent>, u32), PolicyError> {
        let opts = &self.options;
        let team = self.team(roster, &agents)?;
        let long = opts.instruction.long_for(self.embedder.as_ref());
        let run_seed = queries.first().map_or(0, |q| q.run_seed);
        let mut task = Task::new(
            opts,
            queries,
            sample_id.to_string(),
            run_seed,
            agents,
            long,
            offset,
        );
        let result = self.rounds(&team, &mut task).await;
        let out = match result {
            Ok((rounds, stop, g_last, mut log)) => {
                let final_outcomes = task.close_remaining(g_last);
                if let Some(e) = log.fatal_error() {
                    Err(e.into())
                } else {
                    let outputs: Vec<Output> = (0..queries.len())
                        .map(|q| {
                            let k = match opts.mode {
                                Mode::Exam => q,
                                Mode::Single | Mode::Decomposed => 0,
                            };
                            task.events
                                .get(k)
                                .and_then(|e| e.output.clone())
                                .unwrap_or_else(|| task.fallback(k))
                        })
                        .collect();
                    let events = (0..queries.len())
                        .map(|q| match opts.mode {
                            Mode::Exam => format!("E{}", q + 1),
                            Mode::Single | Mode::Decomposed => "E1".to_string(),
                        })
                        .collect();
                    let trace = final_trace(
                        &task,
                        self.embedder.id(),
                        rounds,
                        final_outcomes,
                        stop,
                        g_last,
                        log.errors().to_vec(),
                    );
                    Ok((
                        TaskRun {
                            outputs,
                            events,
                            trace,
                            transcript: team.transcript(),
                            usage: team.usage(),
                        },
                        std::mem::take(&mut task.agents),
                        g_last,
                    ))
                }
            }
            Err(e) => Err(e),
        };
        team.shutdown().await;
        out
    }

    /// The global rounds (§2.7–§2.9): returns the round traces, why they stopped, the last
    /// round run and the call log.
    async fn rounds(
        &self,
        team: &Team,
        task: &mut Task<'_>,
    ) -> Result<(Vec<Value>, &'static str, u32, CallLog), PolicyError> {
        let opts = &self.options;
        let mut log = CallLog::default();
        let mut traces = Vec::new();
        let mut stop = "max_rounds";
        let mut g_last = 0;
        for g in 1..=opts.max_rounds {
            if task.finished() {
                break;
            }
            let open = task.open_events();
            if open.is_empty() {
                stop = "no_open_events";
                break;
            }
            if let Some(budget) = opts.token_budget {
                if team.usage().run.usage.total() >= budget {
                    stop = "token_budget";
                    break;
                }
            }
            g_last = g;
            let turns = task.assign_turns(g);
            task.refresh_status(&open);
            let embeds = match opts.roles {
                RolesMode::Matched => Some(task.embed(self.embedder.as_ref(), &open, g).await?),
                RolesMode::Random | RolesMode::None => None,
            };
            let matching = task.matching(g, &open, embeds.as_ref().map(|e| e.compat.as_slice()));
            let (calls_before, failed_before) = (log.successes, log.failures);
            let rounds = self
                .calls(team, task, &open, &matching, g, &mut log)
                .await?;
            let messages: Vec<(usize, String, Role)> = rounds
                .iter()
                .flat_map(|(_, r)| {
                    std::iter::once((r.explorer.agent, r.explorer.text.clone(), Role::Explorer))
                        .chain(
                            r.workers
                                .iter()
                                .map(|w| (w.agent, w.text.clone(), Role::Worker)),
                        )
                        .chain(std::iter::once((
                            r.validator.agent,
                            r.validator.text.clone(),
                            Role::Validator,
                        )))
                })
                .collect();
            let settled = task.settle(g, rounds);
            let failed = log.failures - failed_before;
            let made = log.successes - calls_before + failed;
            traces.push(round_trace(
                task,
                &RoundFacts {
                    g,
                    open: &open,
                    turns: turns.as_deref(),
                    embeds: embeds.as_ref(),
                    matching: &matching,
                    settled,
                    messages: &messages,
                    calls: made,
                    failed,
                },
            ));
            if made > 0 && failed == made {
                stop = "all_calls_failed";
                break;
            }
        }
        if task.finished() {
            stop = match opts.mode {
                Mode::Exam => "all_closed",
                Mode::Single | Mode::Decomposed => "root_closed",
            };
        }
        Ok((traces, stop, g_last, log))
    }

    /// The calls of round `g`: explorers, then workers, then validators, each phase over all
    /// open events at once (§2.8, §2.11).
    async fn calls(
        &self,
        team: &Team,
        task: &Task<'_>,
        open: &[usize],
        m: &Matching,
        g: u32,
        log: &mut CallLog,
    ) -> Result<Vec<(usize, EventRound)>, PolicyError> {
        let seq = self.options.sequential;
        let id = |i: usize| task.agents[i].slot.id.clone();
        let mut plan = Vec::with_capacity(open.len());
        for (j, &k) in open.iter().enumerate() {
            let s = &m.assignment.slots[j];
            let (Some(&x), Some(&v)) = (s.explorers.first(), s.validators.first()) else {
                return Err(PolicyError::Config(format!(
                    "swarmsys: event {} has no explorer or validator",
                    task.events[k].profile.event_id
                )));
            };
            plan.push((j, k, x, s.workers.clone(), v, self.material(task, k)?));
        }
        let options = |agent: &str, event: &str, turn: Role| {
            let q = &task.queries[0];
            let seed = llm_seed(
                q.run_seed,
                &task.sample_id,
                METHOD,
                Some(g),
                &format!("{agent}@{event}"),
            );
            AskOptions::new()
                .seed(seed)
                .stateless()
                .tag(format!("round {g} {event} {}", turn.name()))
                .purpose(format!("{METHOD}.{}", turn.name()))
        };
        let ev_id = |k: usize| task.events[k].profile.event_id.clone();
        let event_round = |k: usize| task.events[k].profile.progress.rounds_run + 1;
        // Phase 1: explorers.
        let mut asks = Vec::new();
        for (_, k, x, _, _, material) in &plan {
            let e = &task.events[*k];
            asks.push(Ask {
                agent: id(*x),
                prompt: turns::explorer_prompt(
                    material,
                    &id(*x),
                    &ev_id(*k),
                    event_round(*k),
                    e.profile.kind == super::profile::EventKind::Composite,
                    e.decompose,
                )?,
                options: options(&id(*x), &ev_id(*k), Role::Explorer),
            });
        }
        let mut explorers = Vec::new();
        for ((_, k, x, ..), r) in plan.iter().zip(turns::run_phase(team, asks, seq).await) {
            let (text, _) = log.text(g, &ev_id(*k), &id(*x), Role::Explorer, r);
            explorers.push(Msg { agent: *x, text });
        }
        // Phase 2: workers of every event.
        let mut asks = Vec::new();
        for ((_, k, x, workers, _, material), ex) in plan.iter().zip(&explorers) {
            let shown = Shown::new(&id(*x), Role::Explorer, event_round(*k), &ex.text);
            let suffix = format_suffix(&task.queries[task.events[*k].query]);
            for &w in workers {
                asks.push(Ask {
                    agent: id(w),
                    prompt: turns::worker_prompt(
                        material,
                        &shown,
                        &id(w),
                        &ev_id(*k),
                        event_round(*k),
                        &suffix,
                    )?,
                    options: options(&id(w), &ev_id(*k), Role::Worker),
                });
            }
        }
        let mut results = turns::run_phase(team, asks, seq).await.into_iter();
        let mut worker_msgs: Vec<Vec<Msg>> = Vec::new();
        for (_, k, _, workers, _, _) in &plan {
            let mut msgs = Vec::new();
            for &w in workers {
                let r = results.next().ok_or_else(|| {
                    PolicyError::Config("swarmsys: a worker call went missing".into())
                })?;
                let (text, _) = log.text(g, &ev_id(*k), &id(w), Role::Worker, r);
                msgs.push(Msg { agent: w, text });
            }
            worker_msgs.push(msgs);
        }
        // Phase 3: validators.
        let mut asks = Vec::new();
        for (((_, k, x, _, v, material), ex), ws) in plan.iter().zip(&explorers).zip(&worker_msgs) {
            let r = event_round(*k);
            let shown_x = Shown::new(&id(*x), Role::Explorer, r, &ex.text);
            let shown_w: Vec<Shown> = ws
                .iter()
                .map(|w| Shown::new(&id(w.agent), Role::Worker, r, &w.text))
                .collect();
            let suffix = format_suffix(&task.queries[task.events[*k].query]);
            asks.push(Ask {
                agent: id(*v),
                prompt: turns::validator_prompt(
                    material,
                    &shown_x,
                    &shown_w,
                    &id(*v),
                    &ev_id(*k),
                    r,
                    &suffix,
                )?,
                options: options(&id(*v), &ev_id(*k), Role::Validator),
            });
        }
        let mut out = Vec::with_capacity(plan.len());
        let results = turns::run_phase(team, asks, seq).await;
        for ((((j, k, _, workers, v, _), ex), ws), r) in plan
            .into_iter()
            .zip(explorers)
            .zip(worker_msgs)
            .zip(results)
        {
            let (text, _) = log.text(g, &ev_id(k), &id(v), Role::Validator, r);
            let worker_rank = workers
                .iter()
                .map(|&w| m.rank[w].get(j).copied().unwrap_or(0.0))
                .collect();
            out.push((
                k,
                EventRound {
                    round: event_round(k),
                    explorer: ex,
                    workers: ws,
                    validator: Msg { agent: v, text },
                    worker_rank,
                },
            ));
        }
        Ok(out)
    }

    /// Event `k`'s material: overall task (sub-events), dependency results and the bounded
    /// transcript (§2.8: the previous round verbatim, older rounds' validator messages).
    fn material(&self, task: &Task<'_>, k: usize) -> Result<String, PolicyError> {
        let e = &task.events[k];
        let deps: Vec<DepResult> = e
            .profile
            .dependencies
            .iter()
            .filter_map(|d| task.events.iter().find(|x| &x.profile.event_id == d))
            .map(|d| DepResult {
                id: d.profile.event_id.clone(),
                title: d.profile.title.clone(),
                result: d
                    .profile
                    .result
                    .clone()
                    .unwrap_or_else(|| "(no result)".into()),
            })
            .collect();
        let id = |i: usize| task.agents[i].slot.id.as_str();
        let mut history = Vec::new();
        let n = e.rounds.len();
        for (i, r) in e.rounds.iter().enumerate() {
            if i + 1 == n {
                history.push(Shown::new(
                    id(r.explorer.agent),
                    Role::Explorer,
                    r.round,
                    &r.explorer.text,
                ));
                for w in &r.workers {
                    history.push(Shown::new(id(w.agent), Role::Worker, r.round, &w.text));
                }
            }
            history.push(Shown::new(
                id(r.validator.agent),
                Role::Validator,
                r.round,
                &r.validator.text,
            ));
        }
        turns::material(
            task.overall(k).as_deref(),
            &e.profile.event_id,
            &e.profile.title,
            &e.profile.description,
            &deps,
            &history,
        )
    }
}

/// The name results are filed under: `swarmsys`, with `_b` / `_exam` for modes B and C and
/// `_rand_roles` / `_rand_noroles` for the ablations, so variants sit side by side in one
/// results directory.
pub fn policy_name(o: &SwarmSysOptions) -> String {
    let mut name = METHOD.to_string();
    match o.mode {
        Mode::Single => {}
        Mode::Decomposed => name.push_str("_b"),
        Mode::Exam => name.push_str("_exam"),
    }
    match o.roles {
        RolesMode::Matched => {}
        RolesMode::Random => name.push_str("_rand_roles"),
        RolesMode::None => name.push_str("_rand_noroles"),
    }
    name
}

#[async_trait]
impl ReasoningPolicy for SwarmSys {
    fn name(&self) -> &str {
        &self.name
    }

    fn prepare(&self, items: &[Item], run_seed: u64) {
        if self.options.mode == Mode::Exam {
            self.exams.plan(items, run_seed, self.options.exam_size);
        }
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        if self.options.mode == Mode::Exam {
            return self.exams.solve(self, query, roster).await;
        }
        let run = self
            .run_task(std::slice::from_ref(query), &query.item.id, roster)
            .await?;
        let mut trace = run.trace;
        let out = run.outputs.into_iter().next().unwrap_or(Output {
            text: String::new(),
            answer: None,
            source: "empty",
            agent: None,
        });
        trace["answer"] = serde_json::json!(out.answer);
        trace["output"] = serde_json::json!(out);
        Ok(PolicyOutput {
            final_text: out.text,
            answer: out.answer,
            transcript: run.transcript,
            usage: run.usage,
            trace,
        })
    }
}
