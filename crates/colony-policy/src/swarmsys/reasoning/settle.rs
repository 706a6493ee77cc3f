//! Settling a global round (docs/design/swarmsys.md §2.7–§2.9): the validator's TERMINATE and
//! VERDICT lines, worker answers and outcomes, the progress log, closing events (validated,
//! round limit, task end) with their fallback outputs, mode-B decomposition, and applying
//! outcomes in agent order (counters, history, pheromone). Nothing here depends on the order
//! in which a round's calls completed (§2.11).

use colony_qa::{equivalent, JudgeOptions};
use serde_json::{json, Value};

use super::encode;
use super::matching::Role;
use super::options::RolesMode;
use super::parse::{parse_subevents, parse_terminate, parse_verdicts, SubeventSpec};
use super::profile::{
    summary, EventKind, EventProfile, EventStatus, HistoryEntry, LogEntry, Outcome,
};
use super::state::{event, EventRound, Output, Task};
use crate::reasoning::vote::plurality_vote;

/// One outcome of a round, applied in agent order after the round (§2.8, §2.11).
#[derive(Debug, Clone)]
struct OutcomeRec {
    agent: usize,
    event: usize,
    success: bool,
    summary: String,
}

impl Task<'_> {
    fn next_message_id(&mut self) -> String {
        self.messages += 1;
        format!("m-{}", self.messages)
    }

    /// Settles round `g` (§2.7–§2.9) after its calls: per event (creation order) the
    /// TERMINATE line, VERDICT lines, worker answers, progress log, closing (validated,
    /// round limit) and mode-B decomposition; then every outcome in agent order (counters,
    /// history, pheromone). Returns the round's per-event trace.
    pub fn settle(&mut self, g: u32, rounds: Vec<(usize, EventRound)>) -> Value {
        let round = self.round_offset + g;
        let mut outcomes: Vec<OutcomeRec> = Vec::new();
        let mut per_event = serde_json::Map::new();
        let mut new_events = Vec::new();
        let queries = self.queries;
        for (k, r) in rounds {
            let q = &queries[self.events[k].query];
            let id = self.events[k].profile.event_id.clone();
            let vtext = r.validator.text.clone();
            let terminate = parse_terminate(&vtext);
            if terminate.is_none() && vtext.to_lowercase().contains("terminate") {
                self.fallbacks.terminate_unparsed += 1;
            }
            let verdicts = parse_verdicts(&vtext);
            let worker_ids: Vec<String> = r
                .workers
                .iter()
                .map(|w| self.agents[w.agent].slot.id.clone())
                .collect();
            let answers: Vec<Option<String>> =
                r.workers.iter().map(|w| q.extract(&w.text)).collect();
            if !vtext.trim().is_empty() {
                let known = |v: &String| worker_ids.iter().any(|w| w.to_lowercase() == *v);
                self.fallbacks.unknown_verdicts +=
                    u32::try_from(verdicts.keys().filter(|v| !known(v)).count()).unwrap_or(0);
                self.fallbacks.missing_verdicts += u32::try_from(
                    worker_ids
                        .iter()
                        .filter(|w| !verdicts.contains_key(&w.to_lowercase()))
                        .count(),
                )
                .unwrap_or(0);
            }
            let term_answer = terminate.as_ref().map(|t| {
                q.extract(&format!("The answer is {t}"))
                    .unwrap_or_else(|| t.clone())
            });
            let mut verdict_trace = serde_json::Map::new();
            for ((w, wid), answer) in r.workers.iter().zip(&worker_ids).zip(&answers) {
                let stated = verdicts.get(&wid.to_lowercase()).copied();
                // No VERDICT line: valid iff the worker's answer matches a TERMINATE answer.
                let valid = stated.or_else(|| {
                    let t = term_answer.as_ref()?;
                    Some(answer.as_ref().is_some_and(|a| {
                        equivalent(a, t, &q.item.answer_type, &JudgeOptions::default())
                    }))
                });
                verdict_trace.insert(
                    wid.clone(),
                    match (stated, valid) {
                        (Some(true), _) => json!("valid"),
                        (Some(false), _) => json!("invalid"),
                        (None, Some(v)) => {
                            json!({ "inferred": if v { "valid" } else { "invalid" } })
                        }
                        (None, None) => Value::Null,
                    },
                );
                if let Some(success) = valid {
                    outcomes.push(OutcomeRec {
                        agent: w.agent,
                        event: k,
                        success,
                        summary: summary(&w.text),
                    });
                }
            }
            // Progress log: explorer, workers, validator.
            let mut entries = Vec::new();
            for (msg, role) in std::iter::once((&r.explorer, Role::Explorer))
                .chain(r.workers.iter().map(|w| (w, Role::Worker)))
                .chain(std::iter::once((&r.validator, Role::Validator)))
            {
                entries.push(LogEntry {
                    round,
                    agent_id: self.agents[msg.agent].slot.id.clone(),
                    role,
                    message_id: String::new(),
                    summary: summary(&msg.text),
                });
            }
            for e in &mut entries {
                e.message_id = self.next_message_id();
            }
            let results: Vec<String> = worker_ids
                .iter()
                .zip(&answers)
                .map(|(w, a)| format!("{w}: {}", a.as_deref().unwrap_or("none")))
                .collect();
            let explorer_text = r.explorer.text.clone();
            let (explorer, validator) = (r.explorer.agent, r.validator.agent);
            let ev = &mut self.events[k];
            ev.profile.progress.log.extend(entries);
            ev.profile
                .progress
                .intermediate_results
                .push(results.join("; "));
            ev.profile.progress.rounds_run += 1;
            ev.profile.status = EventStatus::InProgress;
            let rounds_run = ev.profile.progress.rounds_run;
            let decompose = std::mem::take(&mut ev.decompose);
            ev.rounds.push(r);
            let mut closed = None;
            let mut decomposition = Value::Null;
            if let Some(t) = &terminate {
                let answer = q
                    .extract(&vtext)
                    .or_else(|| q.extract(&format!("The answer is {t}")));
                let ev = &mut self.events[k];
                ev.profile.status = EventStatus::Validated;
                ev.profile.consensus.reached = true;
                ev.profile.consensus.answer = Some(t.clone());
                ev.profile.consensus.round = Some(round);
                ev.profile.result = Some(t.clone());
                ev.output = Some(Output {
                    text: vtext.clone(),
                    answer,
                    source: "terminate",
                    agent: Some(self.agents[validator].slot.id.clone()),
                });
                closed = Some(true);
                if decompose {
                    decomposition = match parse_subevents(&explorer_text) {
                        Ok(s) => json!({ "proposed": s, "run": false }),
                        Err(e) => json!({ "error": e.to_string() }),
                    };
                }
            } else if decompose {
                match parse_subevents(&explorer_text) {
                    Ok(specs) => {
                        decomposition = json!({ "proposed": specs, "run": true });
                        new_events.push((k, specs));
                    }
                    Err(e) => {
                        self.fallbacks.mode_b_to_a += 1;
                        self.fallbacks.mode_b_errors.push(e.to_string());
                        decomposition = json!({ "error": e.to_string(), "fallback": "mode A" });
                    }
                }
            }
            let just_split = new_events.last().is_some_and(|(p, _)| *p == k);
            if closed.is_none() && !just_split && rounds_run >= self.opts.event_rounds {
                self.fallbacks.round_limit += 1;
                self.fail(k);
                closed = Some(false);
            }
            if let Some(success) = closed {
                for (agent, text) in [(explorer, &explorer_text), (validator, &vtext)] {
                    outcomes.push(OutcomeRec {
                        agent,
                        event: k,
                        success,
                        summary: summary(text),
                    });
                }
            }
            per_event.insert(
                id,
                json!({
                    "verdicts": verdict_trace,
                    "terminate": terminate,
                    "answers": answers,
                    "status": self.events[k].profile.status.name(),
                    "decomposition": decomposition,
                }),
            );
        }
        for (k, specs) in new_events {
            self.decompose(k, specs, g);
        }
        let applied = self.apply(outcomes, round);
        json!({ "events": per_event, "outcomes": applied })
    }

    /// Mode B (§2.7): the root becomes composite and pending on its new leaves `E1.1…`.
    fn decompose(&mut self, k: usize, specs: Vec<SubeventSpec>, g: u32) {
        let root = self.events[k].profile.event_id.clone();
        let ids: Vec<(String, String)> = specs
            .iter()
            .enumerate()
            .map(|(n, s)| (s.id.clone(), format!("{root}.{}", n + 1)))
            .collect();
        let map = |x: &str| ids.iter().find(|(a, _)| a == x).map(|(_, b)| b.clone());
        let query = self.events[k].query;
        for (s, (_, id)) in specs.iter().zip(&ids) {
            let mut p = EventProfile::leaf(id, Some(&root), &s.title, &s.description);
            p.milestone = s.milestone.clone();
            p.dependencies = s.depends_on.iter().filter_map(|d| map(d)).collect();
            if !p.dependencies.is_empty() {
                p.status = EventStatus::Pending;
            }
            p.created_round = self.round_offset + g;
            self.events.push(event(p, query, false));
        }
        let r = &mut self.events[k].profile;
        r.kind = EventKind::Composite;
        r.dependencies = ids.into_iter().map(|(_, b)| b).collect();
        r.status = EventStatus::Pending;
    }

    /// Applies outcomes in agent order, then event order (§2.8): counters and history, and
    /// for successes a pheromone deposit toward the event (matched roles only).
    fn apply(&mut self, mut outcomes: Vec<OutcomeRec>, round: u32) -> Value {
        outcomes.sort_by_key(|o| (o.agent, o.event));
        let mut trace = Vec::new();
        for o in outcomes {
            let e = &self.events[o.event];
            let entry = HistoryEntry {
                round,
                event_id: e.profile.event_id.clone(),
                event_title: e.profile.title.clone(),
                outcome: if o.success {
                    Outcome::Validated
                } else {
                    Outcome::Rejected
                },
                summary: o.summary,
            };
            trace.push(json!({
                "agent": self.agents[o.agent].slot.id,
                "event": entry.event_id,
                "success": o.success,
            }));
            let learn = self.opts.roles == RolesMode::Matched;
            let embedding = e.embedding.clone();
            let a = &mut self.agents[o.agent];
            if o.success && learn && !embedding.is_empty() {
                if a.pheromone.len() != embedding.len() {
                    a.pheromone = vec![0.0; embedding.len()];
                }
                encode::deposit(&mut a.pheromone, self.opts.eta, &embedding);
                a.profile.pheromone_trace_norm = encode::norm(&a.pheromone);
            }
            a.profile.record(entry);
            a.profile.updated_round = round;
        }
        Value::Array(trace)
    }

    /// Closes event `k` as `failed` with its fallback output (§2.9).
    fn fail(&mut self, k: usize) {
        let out = self.fallback(k);
        match out.source {
            "vote" => self.fallbacks.vote += 1,
            "validator" => self.fallbacks.validator_message += 1,
            _ => self.fallbacks.empty_output += 1,
        }
        let ev = &mut self.events[k];
        ev.profile.status = EventStatus::Failed;
        ev.profile.result = out.answer.clone();
        ev.output = Some(out);
    }

    /// The fallback output of event `k` (§2.9): plurality vote over its workers' last-round
    /// answers, ties to the worker of highest last compatibility then agent order, whose last
    /// message is output; else its last validator message; else empty text.
    pub fn fallback(&self, k: usize) -> Output {
        let ev = &self.events[k];
        let q = &self.queries[ev.query];
        let Some(last) = ev.rounds.last() else {
            return Output {
                text: String::new(),
                answer: None,
                source: "empty",
                agent: None,
            };
        };
        let answers: Vec<Option<String>> =
            last.workers.iter().map(|w| q.extract(&w.text)).collect();
        let vote = plurality_vote(&answers, &q.item.answer_type);
        let largest = vote.clusters.iter().map(|c| c.members.len()).max();
        if let Some(size) = largest {
            let mut voters: Vec<usize> = (0..answers.len())
                .filter(|&w| answers[w].is_some())
                .collect();
            voters.sort_by(|&a, &b| {
                let (ra, rb) = (last.worker_rank.get(a), last.worker_rank.get(b));
                rb.partial_cmp(&ra)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(a.cmp(&b))
            });
            let winner = voters.into_iter().find(|&w| {
                vote.clusters
                    .iter()
                    .any(|c| c.members.len() == size && c.members.contains(&w))
            });
            if let Some(w) = winner {
                let msg = &last.workers[w];
                return Output {
                    text: msg.text.clone(),
                    answer: answers[w].clone(),
                    source: "vote",
                    agent: Some(self.agents[msg.agent].slot.id.clone()),
                };
            }
        }
        let text = last.validator.text.clone();
        let empty = text.trim().is_empty();
        Output {
            answer: q.extract(&text),
            text,
            source: if empty { "empty" } else { "validator" },
            agent: (!empty).then(|| self.agents[last.validator.agent].slot.id.clone()),
        }
    }

    /// Ends the task (§2.9): every event not closed yet fails with its fallback output; the
    /// explorer and validator of its last round get a failure outcome.
    pub fn close_remaining(&mut self, g: u32) -> Value {
        let mut outcomes = Vec::new();
        for k in 0..self.events.len() {
            if self.events[k].profile.status.is_closed() {
                continue;
            }
            self.fallbacks.task_end += 1;
            self.fail(k);
            if let Some(r) = self.events[k].rounds.last() {
                for (agent, text) in [
                    (r.explorer.agent, &r.explorer.text),
                    (r.validator.agent, &r.validator.text),
                ] {
                    outcomes.push(OutcomeRec {
                        agent,
                        event: k,
                        success: false,
                        summary: summary(text),
                    });
                }
            }
        }
        self.apply(outcomes, self.round_offset + g)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::reasoning::Query;
    use crate::swarmsys::reasoning::options::{Mode, SwarmSysOptions};
    use crate::swarmsys::reasoning::profile::AgentProfile;
    use crate::swarmsys::reasoning::roles::{agent_order, RoleCounts};
    use crate::swarmsys::reasoning::state::{Agent, Msg};
    use colony_qa::{AnswerType, Item};

    fn query() -> Query {
        Query {
            item: Item {
                id: "q".into(),
                question: "How many?".into(),
                choices: vec![],
                gold: "7".into(),
                answer_type: AnswerType::Numeric,
                meta: Default::default(),
            },
            run_seed: 1,
        }
    }

    fn agents() -> Vec<Agent> {
        agent_order(&RoleCounts::default(), false)
            .into_iter()
            .map(|slot| Agent {
                role: slot.role,
                profile: AgentProfile::new(&slot.id, slot.role, "a", 5),
                slot,
                pheromone: Vec::new(),
                competence: None,
            })
            .collect()
    }

    fn round(answers: &[&str], rank: &[f64]) -> EventRound {
        EventRound {
            round: 1,
            explorer: Msg {
                agent: 0,
                text: "plan".into(),
            },
            workers: answers
                .iter()
                .enumerate()
                .map(|(k, a)| Msg {
                    agent: k + 1,
                    text: if a.is_empty() {
                        "unsure".into()
                    } else {
                        format!("So the answer is {a}.")
                    },
                })
                .collect(),
            validator: Msg {
                agent: 7,
                text: "The validator's note.".into(),
            },
            worker_rank: rank.to_vec(),
        }
    }

    #[test]
    fn fallback_votes_then_breaks_ties_by_compatibility_then_agent_order() {
        let opts = SwarmSysOptions::default();
        let queries = [query()];
        let mut task = Task::new(&opts, &queries, "q".into(), 1, agents(), true, 0);
        // Plurality: 8 (three votes) over 7 (two); the first 8-voter by rank speaks.
        task.events[0].rounds = vec![round(
            &["7", "8", "8", "7", "8", ""],
            &[0.9, 0.5, 0.7, 0.8, 0.6, 1.0],
        )];
        let out = task.fallback(0);
        assert_eq!((out.source, out.answer.as_deref()), ("vote", Some("8")));
        assert_eq!(
            out.agent.as_deref(),
            Some("W3"),
            "highest compatibility among 8-voters"
        );
        // Tie 3–3: the worker of highest compatibility decides (W4 holds 7).
        task.events[0].rounds = vec![round(
            &["7", "8", "8", "7", "8", "7"],
            &[0.5, 0.5, 0.5, 0.9, 0.5, 0.5],
        )];
        let out = task.fallback(0);
        assert_eq!(
            (out.answer.as_deref(), out.agent.as_deref()),
            (Some("7"), Some("W4"))
        );
        // Equal compatibilities: agent order (W1 holds 7).
        task.events[0].rounds = vec![round(&["8", "7", "7", "8", "", ""], &[0.5; 6])];
        let out = task.fallback(0);
        assert_eq!(
            (out.answer.as_deref(), out.agent.as_deref()),
            (Some("8"), Some("W1"))
        );
        // No worker answer: the validator's last message; nothing at all: empty text.
        task.events[0].rounds = vec![round(&["", "", "", "", "", ""], &[0.5; 6])];
        let out = task.fallback(0);
        assert_eq!(
            (out.source, out.text.as_str()),
            ("validator", "The validator's note.")
        );
        task.events[0].rounds.clear();
        assert_eq!(task.fallback(0).source, "empty");
    }

    #[test]
    fn open_events_follow_dependencies_and_the_task_ends_when_the_root_closes() {
        let opts = SwarmSysOptions {
            mode: Mode::Decomposed,
            ..SwarmSysOptions::default()
        };
        let queries = [query()];
        let mut task = Task::new(&opts, &queries, "q".into(), 1, agents(), true, 0);
        assert_eq!(task.open_events(), vec![0]);
        assert!(task.events[0].decompose);
        let specs = parse_subevents(
            r#"{"subevents": [{"id": "a", "title": "A", "description": "d"},
               {"id": "b", "title": "B", "description": "d", "depends_on": ["a"]}]}"#,
        )
        .unwrap();
        task.decompose(0, specs, 1);
        assert_eq!(task.open_events(), vec![1], "root waits, b waits for a");
        task.events[1].profile.status = EventStatus::Validated;
        assert_eq!(task.open_events(), vec![2]);
        task.events[2].profile.status = EventStatus::Failed;
        assert_eq!(task.open_events(), vec![0], "the root resumes");
        assert!(!task.finished());
        task.events[0].profile.status = EventStatus::Validated;
        assert!(task.finished());
        assert!(task.open_events().is_empty());
    }
}
