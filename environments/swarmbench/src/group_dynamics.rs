//! The group-dynamics metrics of one state (docs/design/swarmbench.md §12.4, Q37, Q41) and
//! their running means over an episode ([`GroupDynamics`], what `paper_metrics` reports).
//! [`crate::metrics`] applies the same per-state function to logs. Message homogeneity needs
//! sentence embeddings: the caller passes an [`Embedder`], so the crate stays model-free.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// Sentence embeddings for message homogeneity (e.g. colony's embedders, wrapped).
pub trait Embedder {
    /// One vector per text.
    fn embed(&self, texts: &[String]) -> Vec<Vec<f64>>;
}

/// The metrics of one logged state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundMetrics {
    /// Logged round.
    pub round: u32,
    /// Shannon entropy (bits) of the UP/DOWN/LEFT/RIGHT actions.
    pub directional_entropy: f64,
    /// Share of STAY among all actions.
    pub stillness: f64,
    /// Share of the most frequent of UP/DOWN/LEFT/RIGHT/STAY.
    pub dominant_action: f64,
    /// Norm of the mean action unit vector.
    pub polarization: f64,
    /// Mean message length (characters).
    pub mean_message_length: f64,
    /// Population standard deviation of message lengths.
    pub std_message_length: f64,
    /// Share of messages containing `?`.
    pub question_proportion: f64,
    /// Share of digit characters over all message characters (ASCII digits, Q35).
    pub digit_proportion: f64,
    /// Mean pairwise cosine similarity of distinct messages' embeddings.
    pub information_homogeneity: f64,
    /// Norm of the mean embedding of distinct messages.
    pub mean_embedding_norm: f64,
    /// Mean Manhattan distance moved since the previous state.
    pub moving_distance: f64,
    /// Distinct positions visited so far.
    pub exploration: usize,
    /// Agent pairs adjacent in both the previous and the current state.
    pub local_structure: usize,
    /// Ordered (pusher, pushed) pairs.
    pub push_events: usize,
    /// Non-empty messages sent.
    pub messages: usize,
}

fn action_vector(a: &str) -> Option<(i32, i32)> {
    match a {
        "UP" => Some((0, -1)),
        "DOWN" => Some((0, 1)),
        "LEFT" => Some((-1, 0)),
        "RIGHT" => Some((1, 0)),
        "STAY" => Some((0, 0)),
        _ => None,
    }
}

fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

/// The five moves in the order of [`action_vector`]'s unit vectors: UP, DOWN, LEFT, RIGHT,
/// STAY; `None` for anything else (SWITCH).
fn move_index(a: &str) -> Option<usize> {
    ["UP", "DOWN", "LEFT", "RIGHT", "STAY"]
        .iter()
        .position(|m| *m == a)
}

/// Counts in fixed arrays: this runs on every environment step ([`GroupDynamics`]).
fn action_metrics(m: &mut RoundMetrics, actions: &[&str]) {
    if actions.is_empty() {
        return;
    }
    let mut counts = [0usize; 5];
    // The directions in order of first occurrence: the reference sums the entropy terms so.
    let (mut order, mut seen_dirs) = ([0usize; 4], 0usize);
    for &a in actions {
        if let Some(k) = move_index(a) {
            if k < 4 && counts[k] == 0 {
                order[seen_dirs] = k;
                seen_dirs += 1;
            }
            counts[k] += 1;
        }
    }
    let total: usize = counts[..4].iter().sum();
    if total > 0 {
        let h: f64 = order[..seen_dirs]
            .iter()
            .map(|&k| {
                let p = counts[k] as f64 / total as f64;
                -p * p.log2()
            })
            .sum();
        m.directional_entropy = h.max(0.0);
    }
    m.stillness = counts[4] as f64 / actions.len() as f64;
    let five: usize = counts.iter().sum();
    if five > 0 {
        let top = counts.iter().copied().max().unwrap_or(0);
        m.dominant_action = top as f64 / five as f64;
        let n = five as f64;
        // Sums of unit components are exact integers, so their order does not matter.
        let sx = counts[3] as f64 - counts[2] as f64;
        let sy = counts[1] as f64 - counts[0] as f64;
        m.polarization = ((sx / n).powi(2) + (sy / n).powi(2)).sqrt();
    }
}

fn message_metrics(m: &mut RoundMetrics, msgs: &[&str], embedder: Option<&dyn Embedder>) {
    m.messages = msgs.len();
    if msgs.is_empty() {
        return;
    }
    let lens: Vec<f64> = msgs.iter().map(|s| s.chars().count() as f64).collect();
    let n = lens.len() as f64;
    m.mean_message_length = lens.iter().sum::<f64>() / n;
    if lens.len() >= 2 {
        let mean = m.mean_message_length;
        m.std_message_length = (lens.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / n).sqrt();
    }
    m.question_proportion = msgs.iter().filter(|s| s.contains('?')).count() as f64 / n;
    let chars: usize = msgs.iter().map(|s| s.chars().count()).sum();
    let digits: usize = msgs
        .iter()
        .map(|s| s.chars().filter(char::is_ascii_digit).count())
        .sum();
    if chars > 0 {
        m.digit_proportion = digits as f64 / chars as f64;
    }
    let mut distinct: Vec<String> = Vec::new();
    for s in msgs {
        if !distinct.iter().any(|d| d == s) {
            distinct.push((*s).to_string());
        }
    }
    let Some(embedder) = embedder else {
        return;
    };
    let vecs = embedder.embed(&distinct);
    if let Some(dim) = vecs.first().map(Vec::len) {
        let mut mean = vec![0.0; dim];
        for v in &vecs {
            for (a, b) in mean.iter_mut().zip(v) {
                *a += b / vecs.len() as f64;
            }
        }
        m.mean_embedding_norm = mean.iter().map(|x| x * x).sum::<f64>().sqrt();
    }
    if msgs.len() >= 2 {
        if distinct.len() == 1 {
            m.information_homogeneity = 1.0;
        } else {
            let mut sum = 0.0;
            let mut pairs = 0usize;
            for i in 0..vecs.len() {
                for j in i + 1..vecs.len() {
                    sum += cosine(&vecs[i], &vecs[j]);
                    pairs += 1;
                }
            }
            if pairs > 0 {
                m.information_homogeneity = sum / pairs as f64;
            }
        }
    }
}

/// The previous logged state, as one state's metrics need it.
#[derive(Debug, Clone, Copy)]
pub struct Before<'a> {
    /// Agent positions `(x, y)`, in agent order.
    pub positions: &'a [(i32, i32)],
    /// Each agent's action in the round between the two states, in agent order ("" when the
    /// agent logged none).
    pub actions: &'a [&'a str],
}

/// What the metrics of one logged state are computed from.
#[derive(Debug, Clone, Copy)]
pub struct StateInput<'a> {
    /// The state's round.
    pub round: u32,
    /// Agent positions `(x, y)`, in agent order (escaped agents keep their off-map cells).
    pub positions: &'a [(i32, i32)],
    /// The actions decided at this state (every agent's), by name.
    pub actions: &'a [&'a str],
    /// The non-empty messages sent with them.
    pub messages: &'a [&'a str],
    /// The previous state, except at round 0.
    pub before: Option<Before<'a>>,
}

/// The metrics of one logged state; `seen` carries the positions visited so far (design
/// §12.4). One code path for the analysis of logs ([`crate::metrics::round_metrics`]) and the running
/// figures of an episode ([`GroupDynamics`]). Adjacency is looked up in the agents sorted by
/// cell, so a state costs O(agents log agents), not O(agents²).
pub fn state_metrics(
    input: &StateInput<'_>,
    seen: &mut BTreeSet<(i32, i32)>,
    embedder: Option<&dyn Embedder>,
) -> RoundMetrics {
    let mut m = RoundMetrics {
        round: input.round,
        ..RoundMetrics::default()
    };
    action_metrics(&mut m, input.actions);
    message_metrics(&mut m, input.messages, embedder);
    let cur = input.positions;
    seen.extend(cur.iter().copied());
    m.exploration = seen.len();
    let Some(before) = input.before else {
        return m;
    };
    let prev = before.positions;
    let manhattan = |a: (i32, i32), b: (i32, i32)| (a.0 - b.0).abs() + (a.1 - b.1).abs();
    if !cur.is_empty() {
        m.moving_distance = prev
            .iter()
            .zip(cur)
            .map(|(a, b)| f64::from(manhattan(*a, *b)))
            .sum::<f64>()
            / cur.len() as f64;
    }
    let n = cur.len().min(prev.len());
    // Agents by cell, sorted, for O(log n) neighbour lookups without a map per state.
    let by_cell = |ps: &[(i32, i32)]| {
        let mut at: Vec<((i32, i32), usize)> = ps[..n].iter().copied().zip(0..).collect();
        at.sort_unstable();
        at
    };
    let at = |cells: &[((i32, i32), usize)], c: (i32, i32)| -> std::ops::Range<usize> {
        let lo = cells.partition_point(|e| e.0 < c);
        lo..lo + cells[lo..].partition_point(|e| e.0 == c)
    };
    let (cur_at, prev_at) = (by_cell(cur), by_cell(prev));
    const STEPS: [(i32, i32); 4] = [(0, -1), (0, 1), (-1, 0), (1, 0)];
    for a in 0..n {
        for d in STEPS {
            let next = (cur[a].0 + d.0, cur[a].1 + d.1);
            for &(_, b) in &cur_at[at(&cur_at, next)] {
                if b > a && manhattan(prev[a], prev[b]) == 1 {
                    m.local_structure += 1;
                }
            }
        }
    }
    for a in 0..n {
        let v = before
            .actions
            .get(a)
            .and_then(|x| action_vector(x))
            .filter(|v| *v != (0, 0));
        let Some(v) = v else { continue };
        let target = (prev[a].0 + v.0, prev[a].1 + v.1);
        for &(_, b) in &prev_at[at(&prev_at, target)] {
            if b != a && cur[a] == prev[b] && cur[b] == (prev[b].0 + v.0, prev[b].1 + v.1) {
                m.push_events += 1;
            }
        }
    }
    m
}

/// A finished state: agent positions `(x, y)` and the move each agent took from it.
type Finished = (Vec<(i32, i32)>, Vec<&'static str>);

/// The group-dynamics metrics of an episode as it is played (paper App. F): each state's
/// metrics are summed when the state's actions are known, so memory stays O(agents + cells
/// visited) however long the episode. Message homogeneity and the mean embedding norm need
/// an embedder and are left to the analysis of logs.
#[derive(Debug, Clone, Default)]
pub struct GroupDynamics {
    /// Positions and actions of the last finished state.
    before: Option<Finished>,
    seen: BTreeSet<(i32, i32)>,
    /// Sums over the finished states, in [`metric_values`] order.
    sums: [f64; METRICS],
    states: u64,
}

impl GroupDynamics {
    /// Forgets everything (a new episode).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Adds the state at `round` with agent `positions`, where every agent then took
    /// `actions[i]` (a move name); `messages` are the non-empty messages sent.
    pub fn record(
        &mut self,
        round: u32,
        positions: Vec<(i32, i32)>,
        actions: Vec<&'static str>,
        messages: &[&str],
    ) {
        let m = state_metrics(
            &input(&self.before, round, &positions, &actions, messages),
            &mut self.seen,
            None,
        );
        for (sum, (_, v)) in self.sums.iter_mut().zip(metric_values(&m)) {
            *sum += v;
        }
        self.states += 1;
        self.before = Some((positions, actions));
    }

    /// The means over every recorded state and the current one at `round` with
    /// `positions` (which has no actions yet), as `paper_metrics` reports them.
    pub fn means(&self, round: u32, positions: &[(i32, i32)]) -> BTreeMap<String, f64> {
        let mut seen = self.seen.clone();
        let last = state_metrics(
            &input(&self.before, round, positions, &[], &[]),
            &mut seen,
            None,
        );
        let n = (self.states + 1) as f64;
        metric_values(&last)
            .into_iter()
            .zip(self.sums)
            .filter(|((k, _), _)| !matches!(*k, "information_homogeneity" | "mean_embedding_norm"))
            .map(|((k, v), sum)| (k.to_string(), (sum + v) / n))
            .collect()
    }
}

/// The input of the state at `round`, after the finished state `before`.
fn input<'a>(
    before: &'a Option<Finished>,
    round: u32,
    positions: &'a [(i32, i32)],
    actions: &'a [&'a str],
    messages: &'a [&'a str],
) -> StateInput<'a> {
    StateInput {
        round,
        positions,
        actions,
        messages,
        before: before.as_ref().map(|(p, a)| Before {
            positions: p,
            actions: a,
        }),
    }
}

/// Number of metrics of [`metric_values`].
const METRICS: usize = 14;

/// Every metric of one state as a number, by name, in a fixed order.
fn metric_values(m: &RoundMetrics) -> [(&'static str, f64); METRICS] {
    [
        ("directional_entropy", m.directional_entropy),
        ("stillness", m.stillness),
        ("dominant_action", m.dominant_action),
        ("polarization", m.polarization),
        ("mean_message_length", m.mean_message_length),
        ("std_message_length", m.std_message_length),
        ("question_proportion", m.question_proportion),
        ("digit_proportion", m.digit_proportion),
        ("information_homogeneity", m.information_homogeneity),
        ("mean_embedding_norm", m.mean_embedding_norm),
        ("moving_distance", m.moving_distance),
        ("exploration", m.exploration as f64),
        ("local_structure", m.local_structure as f64),
        ("push_events", m.push_events as f64),
    ]
}

/// The per-run aggregate: the plain mean of each metric over all logged states (Q41).
pub fn run_means(rounds: &[RoundMetrics]) -> BTreeMap<&'static str, f64> {
    let n = rounds.len().max(1) as f64;
    let mut sums = [0.0; METRICS];
    for m in rounds {
        for (sum, (_, v)) in sums.iter_mut().zip(metric_values(m)) {
            *sum += v;
        }
    }
    metric_values(&RoundMetrics::default())
        .into_iter()
        .zip(sums)
        .map(|((k, _), sum)| (k, sum / n))
        .collect()
}
