//! Group-dynamics metrics per logged game state (docs/design/swarmbench.md §12.4, Q37, Q41),
//! computed from the logs of [`crate::logs`]. Message homogeneity needs sentence embeddings: the
//! caller passes an [`Embedder`], so the crate stays model-free.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::logs::{DecisionLog, GameStateLog};

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

fn action_metrics(m: &mut RoundMetrics, actions: &[&str]) {
    if actions.is_empty() {
        return;
    }
    let mut dir_counts: Vec<(&str, usize)> = Vec::new();
    for &a in actions {
        if matches!(a, "UP" | "DOWN" | "LEFT" | "RIGHT") {
            match dir_counts.iter_mut().find(|(k, _)| *k == a) {
                Some(e) => e.1 += 1,
                None => dir_counts.push((a, 1)),
            }
        }
    }
    let total: usize = dir_counts.iter().map(|e| e.1).sum();
    if total > 0 {
        let h: f64 = dir_counts
            .iter()
            .map(|&(_, c)| {
                let p = c as f64 / total as f64;
                -p * p.log2()
            })
            .sum();
        m.directional_entropy = h.max(0.0);
    }
    m.stillness = actions.iter().filter(|&&a| a == "STAY").count() as f64 / actions.len() as f64;
    let five: Vec<(i32, i32)> = actions.iter().filter_map(|a| action_vector(a)).collect();
    if !five.is_empty() {
        let mut counts: BTreeMap<(i32, i32), usize> = BTreeMap::new();
        for v in &five {
            *counts.entry(*v).or_default() += 1;
        }
        let top = counts.values().copied().max().unwrap_or(0);
        m.dominant_action = top as f64 / five.len() as f64;
        let n = five.len() as f64;
        let (sx, sy) = five.iter().fold((0.0, 0.0), |(a, b), v| {
            (a + f64::from(v.0), b + f64::from(v.1))
        });
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

/// Metrics of every logged state `0 … R` (design §12.4).
pub fn round_metrics(
    states: &[GameStateLog],
    decisions: &[DecisionLog],
    embedder: Option<&dyn Embedder>,
) -> Vec<RoundMetrics> {
    let mut seen: BTreeSet<(i32, i32)> = BTreeSet::new();
    let pos =
        |s: &GameStateLog| -> Vec<(i32, i32)> { s.agents.iter().map(|a| (a.x, a.y)).collect() };
    states
        .iter()
        .enumerate()
        .map(|(r, state)| {
            let mut m = RoundMetrics {
                round: state.round,
                ..RoundMetrics::default()
            };
            let mine: Vec<&DecisionLog> = decisions
                .iter()
                .filter(|d| d.round == state.round)
                .collect();
            let actions: Vec<&str> = mine.iter().map(|d| d.action.as_str()).collect();
            action_metrics(&mut m, &actions);
            let msgs: Vec<&str> = mine
                .iter()
                .map(|d| d.message.as_str())
                .filter(|s| !s.is_empty())
                .collect();
            message_metrics(&mut m, &msgs, embedder);
            let cur = pos(state);
            seen.extend(cur.iter().copied());
            m.exploration = seen.len();
            if r > 0 {
                let prev = pos(&states[r - 1]);
                let manhattan =
                    |a: (i32, i32), b: (i32, i32)| (a.0 - b.0).abs() + (a.1 - b.1).abs();
                if !cur.is_empty() {
                    m.moving_distance = prev
                        .iter()
                        .zip(&cur)
                        .map(|(a, b)| f64::from(manhattan(*a, *b)))
                        .sum::<f64>()
                        / cur.len() as f64;
                }
                let n = cur.len().min(prev.len());
                for a in 0..n {
                    for b in a + 1..n {
                        if manhattan(prev[a], prev[b]) == 1 && manhattan(cur[a], cur[b]) == 1 {
                            m.local_structure += 1;
                        }
                    }
                }
                let prev_round = states[r - 1].round;
                let acts: BTreeMap<&str, &str> = decisions
                    .iter()
                    .filter(|d| d.round == prev_round)
                    .map(|d| (d.agent_id.as_str(), d.action.as_str()))
                    .collect();
                for a in 0..n {
                    let v = acts
                        .get(states[r].agents[a].id.as_str())
                        .and_then(|x| action_vector(x))
                        .filter(|v| *v != (0, 0));
                    let Some(v) = v else { continue };
                    for b in 0..n {
                        if a != b
                            && manhattan(prev[a], prev[b]) == 1
                            && (prev[a].0 + v.0, prev[a].1 + v.1) == prev[b]
                            && cur[a] == prev[b]
                            && cur[b] == (prev[b].0 + v.0, prev[b].1 + v.1)
                        {
                            m.push_events += 1;
                        }
                    }
                }
            }
            m
        })
        .collect()
}

/// The per-run aggregate: the plain mean of each metric over all logged states (Q41).
pub fn run_means(rounds: &[RoundMetrics]) -> BTreeMap<&'static str, f64> {
    let n = rounds.len().max(1) as f64;
    let mean = |f: &dyn Fn(&RoundMetrics) -> f64| rounds.iter().map(f).sum::<f64>() / n;
    BTreeMap::from([
        ("directional_entropy", mean(&|m| m.directional_entropy)),
        ("stillness", mean(&|m| m.stillness)),
        ("dominant_action", mean(&|m| m.dominant_action)),
        ("polarization", mean(&|m| m.polarization)),
        ("mean_message_length", mean(&|m| m.mean_message_length)),
        ("std_message_length", mean(&|m| m.std_message_length)),
        ("question_proportion", mean(&|m| m.question_proportion)),
        ("digit_proportion", mean(&|m| m.digit_proportion)),
        (
            "information_homogeneity",
            mean(&|m| m.information_homogeneity),
        ),
        ("mean_embedding_norm", mean(&|m| m.mean_embedding_norm)),
        ("moving_distance", mean(&|m| m.moving_distance)),
        ("exploration", mean(&|m| m.exploration as f64)),
        ("local_structure", mean(&|m| m.local_structure as f64)),
        ("push_events", mean(&|m| m.push_events as f64)),
    ])
}
