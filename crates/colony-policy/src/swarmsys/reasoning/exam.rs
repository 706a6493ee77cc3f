//! Mode C, exams (docs/design/swarmsys.md §2.7): the evaluated items, shuffled with the run seed,
//! are cut into consecutive groups of B (default 10; the last may be smaller); each group is
//! one task whose events are its questions. `colony eval` still asks for one item at a time:
//! the first item of a group to arrive runs the whole exam, the others wait for it, and each
//! gets its own question's output.
//!
//! **Decision (per-question usage):** the spec reports tokens per exam and divided by B per
//! question. Each item here gets the calls of its own event: call, failure and token counts
//! are apportioned from the exam's totals in proportion to the calls, failures and tokens
//! its event's transcript entries carry (largest remainders, ties to the earlier question).
//! Without replayed calls that is the exact attribution; summed over the exam it is always the
//! exam's total, and its mean is the exam total divided by the number of questions. Failed
//! calls thus stay with the question they concern, so an unanswered question with failed
//! calls is an error, never a wrong answer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use colony_qa::Item;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use tokio::sync::OnceCell;

use super::policy::{SwarmSys, TaskRun};
use super::state::METHOD;
use crate::reasoning::shuffle;
use crate::reasoning::{derive_seed, PolicyError, PolicyOutput, Query, Roster};
use colony_llm::{UsageReport, UsageTotals};
use colony_runtime::{Event, Transcript, TranscriptEntry};

type Outcome = Result<Arc<Vec<PolicyOutput>>, String>;

#[derive(Default)]
struct Plan {
    run_seed: u64,
    groups: Vec<Vec<Item>>,
    of_item: HashMap<String, usize>,
    cells: HashMap<usize, Arc<OnceCell<Outcome>>>,
    delivered: HashMap<usize, usize>,
}

/// The exam groups of a run and the exams run so far.
#[derive(Default)]
pub(crate) struct ExamBook {
    plan: Mutex<Plan>,
}

/// Indices `0..n` shuffled with the run seed (Fisher–Yates from the last index down, §0.3)
/// and cut into groups of `size`.
pub fn exam_groups(n: usize, run_seed: u64, size: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..n).collect();
    let seed = derive_seed(run_seed, "", METHOD, None, None, "exam");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    shuffle(&mut rng, &mut order);
    order.chunks(size.max(1)).map(<[usize]>::to_vec).collect()
}

impl ExamBook {
    /// Groups `items` for a run with `run_seed`.
    pub fn plan(&self, items: &[Item], run_seed: u64, size: usize) {
        let mut p = self.plan.lock().unwrap_or_else(|e| e.into_inner());
        *p = Plan {
            run_seed,
            ..Plan::default()
        };
        for (g, members) in exam_groups(items.len(), run_seed, size)
            .into_iter()
            .enumerate()
        {
            for &i in &members {
                p.of_item.insert(items[i].id.clone(), g);
            }
            p.groups
                .push(members.into_iter().map(|i| items[i].clone()).collect());
        }
    }

    /// The output of `query`'s question from its exam (run now if it has not been run yet).
    /// An item outside the planned groups is an exam of its own.
    pub async fn solve(
        &self,
        policy: &SwarmSys,
        query: &Query,
        roster: &Roster,
    ) -> Result<PolicyOutput, PolicyError> {
        let (group, members, cell) = {
            let mut p = self.plan.lock().unwrap_or_else(|e| e.into_inner());
            let planned = (p.run_seed == query.run_seed)
                .then(|| p.of_item.get(&query.item.id).copied())
                .flatten();
            match planned {
                Some(g) => {
                    let members = p.groups[g].clone();
                    let cell = p.cells.entry(g).or_default().clone();
                    (Some(g), members, cell)
                }
                None => (None, vec![query.item.clone()], Arc::new(OnceCell::new())),
            }
        };
        let exam = match group {
            Some(g) => format!("exam-{g}"),
            None => format!("exam-{}", query.item.id),
        };
        let queries: Vec<Query> = members
            .iter()
            .map(|item| Query {
                item: item.clone(),
                run_seed: query.run_seed,
            })
            .collect();
        let outcome = cell
            .get_or_init(|| async {
                policy
                    .run_task(&queries, &exam, roster)
                    .await
                    .map(|run| Arc::new(split(run, &exam, &queries)))
                    .map_err(|e| e.to_string())
            })
            .await
            .clone();
        if let Some(g) = group {
            let mut p = self.plan.lock().unwrap_or_else(|e| e.into_inner());
            let n = p.delivered.entry(g).or_default();
            *n += 1;
            if *n >= members.len() {
                p.cells.remove(&g);
                p.delivered.remove(&g);
            }
        }
        let outputs = outcome.map_err(|message| {
            PolicyError::Config(format!("swarmsys {exam}: the exam failed: {message}"))
        })?;
        let k = members
            .iter()
            .position(|m| m.id == query.item.id)
            .unwrap_or(0);
        outputs.get(k).cloned().ok_or_else(|| {
            PolicyError::Config(format!(
                "swarmsys {exam}: no output for item {}",
                query.item.id
            ))
        })
    }
}

/// The event id a transcript entry belongs to (tags are `round <g> <event> <turn>`).
fn entry_event(e: &TranscriptEntry) -> Option<&str> {
    let tag = match &e.event {
        Event::Call(c) => c.tag.as_deref(),
        Event::Failure(f) => f.tag.as_deref(),
        _ => None,
    }?;
    tag.split_whitespace().nth(2)
}

/// Splits `total` over `weights` by largest remainders (ties to the earlier index); equal
/// shares when every weight is 0.
fn apportion(total: u64, weights: &[u64]) -> Vec<u64> {
    let n = weights.len();
    if n == 0 {
        return Vec::new();
    }
    let w: Vec<u128> = if weights.iter().all(|&x| x == 0) {
        vec![1; n]
    } else {
        weights.iter().map(|&x| u128::from(x)).collect()
    };
    let sum: u128 = w.iter().sum();
    let t = u128::from(total);
    let mut out: Vec<u64> = w
        .iter()
        .map(|x| u64::try_from(t * x / sum).unwrap_or(u64::MAX))
        .collect();
    let mut rest: Vec<(u128, usize)> = w
        .iter()
        .enumerate()
        .map(|(i, x)| (t * x % sum, i))
        .collect();
    rest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let given: u64 = out.iter().sum();
    for &(_, i) in rest
        .iter()
        .take(usize::try_from(total - given.min(total)).unwrap_or(0))
    {
        out[i] += 1;
    }
    out
}

/// Per-question outputs of an exam run.
fn split(run: TaskRun, exam: &str, queries: &[Query]) -> Vec<PolicyOutput> {
    let n = queries.len();
    let entries = run.transcript.entries();
    let of = |k: usize| -> Vec<&TranscriptEntry> {
        entries
            .iter()
            .filter(|e| entry_event(e) == Some(run.events[k].as_str()))
            .collect()
    };
    let per: Vec<Vec<&TranscriptEntry>> = (0..n).map(of).collect();
    let count = |k: usize, calls: bool| {
        per[k]
            .iter()
            .filter(|e| {
                matches!(
                    (&e.event, calls),
                    (Event::Call(_), true) | (Event::Failure(_), false)
                )
            })
            .count() as u64
    };
    let tokens = |k: usize, prompt: bool| -> u64 {
        per[k]
            .iter()
            .filter_map(|e| match &e.event {
                Event::Call(c) if prompt => Some(c.usage.prompt_tokens),
                Event::Call(c) => Some(c.usage.completion_tokens),
                _ => None,
            })
            .sum()
    };
    let calls: Vec<u64> = (0..n).map(|k| count(k, true)).collect();
    let fails: Vec<u64> = (0..n).map(|k| count(k, false)).collect();
    let prompt: Vec<u64> = (0..n).map(|k| tokens(k, true)).collect();
    let completion: Vec<u64> = (0..n).map(|k| tokens(k, false)).collect();
    let t = run.usage.run;
    let shares = |total: u64, w: &[u64]| apportion(total, w);
    let (c, cc, f, ff, pt, ct, r, wt) = (
        shares(t.calls, &calls),
        shares(t.cached_calls, &calls),
        shares(t.failed_calls, &fails),
        shares(t.fatal_failures, &fails),
        shares(t.usage.prompt_tokens, &prompt),
        shares(t.usage.completion_tokens, &completion),
        shares(t.retries, &calls),
        shares(t.wall_time_us, &calls),
    );
    let errors = run.trace["errors"].as_array().cloned().unwrap_or_default();
    let ids: Vec<&str> = queries.iter().map(|q| q.item.id.as_str()).collect();
    (0..n)
        .map(|k| {
            let out = &run.outputs[k];
            let mut totals = UsageTotals {
                calls: c[k],
                cached_calls: cc[k],
                failed_calls: f[k],
                fatal_failures: ff[k],
                retries: r[k],
                wall_time_us: wt[k],
                ..UsageTotals::default()
            };
            totals.usage.prompt_tokens = pt[k];
            totals.usage.completion_tokens = ct[k];
            let event = &run.events[k];
            let trace = json!({
                "method": METHOD,
                "mode": "exam",
                "exam": exam,
                "exam_items": ids,
                "position": k,
                "event": event,
                "output": out,
                "answer": out.answer,
                "errors": errors
                    .iter()
                    .filter(|e| e["event"].as_str() == Some(event.as_str()))
                    .cloned()
                    .collect::<Vec<Value>>(),
                // The whole exam's trace goes with its first question only (it is large).
                "exam_trace": if k == 0 { run.trace.clone() } else { Value::Null },
            });
            PolicyOutput {
                final_text: out.text.clone(),
                answer: out.answer.clone(),
                transcript: Transcript::from_entries(per[k].iter().map(|e| (*e).clone()).collect()),
                usage: UsageReport {
                    run: totals,
                    agents: Default::default(),
                },
                trace,
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_every_item_once_in_a_seeded_order() {
        let g = exam_groups(23, 7, 10);
        assert_eq!(g.iter().map(Vec::len).collect::<Vec<_>>(), vec![10, 10, 3]);
        let mut all: Vec<usize> = g.concat();
        all.sort_unstable();
        assert_eq!(all, (0..23).collect::<Vec<_>>());
        assert_eq!(g, exam_groups(23, 7, 10));
        assert_ne!(g, exam_groups(23, 8, 10));
    }

    #[test]
    fn apportioning_keeps_totals() {
        assert_eq!(apportion(10, &[1, 1, 1]), vec![4, 3, 3]);
        assert_eq!(apportion(6, &[3, 0, 3]), vec![3, 0, 3]);
        assert_eq!(apportion(0, &[3, 0, 3]), vec![0, 0, 0]);
        assert_eq!(apportion(5, &[0, 0]), vec![3, 2]);
        assert_eq!(apportion(7, &[]), Vec::<u64>::new());
        let w = [13, 7, 29, 1];
        assert_eq!(apportion(1000, &w).iter().sum::<u64>(), 1000);
    }
}
