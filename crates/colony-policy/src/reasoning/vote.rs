//! Plurality vote over extracted answers (docs/design/baselines.md §3.3, §3.4), and DyLAN's
//! consensus check (§3.5) built on it.
//!
//! Answers are clustered by the dataset's equivalence relation (`colony_qa::equivalent`, each
//! answer compared with the first member of every existing cluster, in index order); the
//! winner is the largest cluster, ties going to the cluster whose first member has the lowest
//! index. Voters without an extractable answer do not vote.

use colony_qa::{equivalent, AnswerType, JudgeOptions};
use serde::{Deserialize, Serialize};

/// One group of equivalent answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cluster {
    /// The answer of the cluster's first member.
    pub answer: String,
    /// Indices of the voters in this cluster, ascending.
    pub members: Vec<usize>,
}

/// The outcome of a vote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vote {
    /// Every cluster, in order of their first member.
    pub clusters: Vec<Cluster>,
    /// Index into `clusters` of the winner (None when nobody voted).
    pub winner: Option<usize>,
}

impl Vote {
    /// The winning cluster, if anyone voted.
    pub fn winning(&self) -> Option<&Cluster> {
        self.winner.and_then(|w| self.clusters.get(w))
    }

    /// The first (lowest-index) voter of the winning cluster.
    pub fn first_winner(&self) -> Option<usize> {
        self.winning().and_then(|c| c.members.first().copied())
    }
}

/// Plurality vote over `answers` (index = voter; `None` = abstains).
pub fn plurality_vote(answers: &[Option<String>], answer_type: &AnswerType) -> Vote {
    let opts = JudgeOptions::default();
    let mut clusters: Vec<Cluster> = Vec::new();
    for (i, answer) in answers.iter().enumerate() {
        let Some(a) = answer else { continue };
        let same = |c: &Cluster| {
            c.answer == *a
                || equivalent(a, &c.answer, answer_type, &opts)
                || equivalent(&c.answer, a, answer_type, &opts)
        };
        match clusters.iter_mut().find(|c| same(c)) {
            Some(c) => c.members.push(i),
            None => clusters.push(Cluster {
                answer: a.clone(),
                members: vec![i],
            }),
        }
    }
    let mut winner: Option<usize> = None;
    for (ci, c) in clusters.iter().enumerate() {
        // Clusters are in order of their first member: strict `>` keeps the lowest on ties.
        if winner.is_none_or(|w| c.members.len() > clusters[w].members.len()) {
            winner = Some(ci);
        }
    }
    Vote { clusters, winner }
}

/// DyLAN's consensus (design §3.5): among the answers of a `k`-agent round so far (processing
/// order), the position of the first one carrying the answer that more than ⌊2k/3⌋ of them
/// hold, if any.
pub fn supermajority(
    answers: &[Option<String>],
    k: usize,
    answer_type: &AnswerType,
) -> Option<usize> {
    let vote = plurality_vote(answers, answer_type);
    let winner = vote.winning()?;
    (winner.members.len() > 2 * k / 3)
        .then(|| winner.members.first().copied())
        .flatten()
}

/// The tail of the voting baselines (self-consistency, debate): the plurality vote over one
/// set of replies, the first reply in the winning cluster, its text and answer.
#[derive(Debug, Clone)]
pub(crate) struct Decision {
    /// The vote (clusters and winner, for the trace).
    pub vote: Vote,
    /// Index of the chosen reply (0 when nobody voted).
    pub chosen: usize,
    /// The chosen reply's text (empty when it failed).
    pub text: String,
    /// The chosen reply's extracted answer.
    pub answer: Option<String>,
}

/// Decides among `texts` whose extracted answers are `answers` (same order).
pub(crate) fn decide(
    texts: &[&str],
    answers: &[Option<String>],
    answer_type: &AnswerType,
) -> Decision {
    let vote = plurality_vote(answers, answer_type);
    let chosen = vote.first_winner().unwrap_or(0);
    Decision {
        text: texts.get(chosen).map(|t| t.to_string()).unwrap_or_default(),
        answer: answers.get(chosen).cloned().flatten(),
        vote,
        chosen,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Option<String> {
        Some(x.to_string())
    }

    #[test]
    fn largest_cluster_wins_and_ties_go_to_the_lowest_first_member() {
        let v = plurality_vote(
            &[s("3"), s("5"), None, s("5.0"), s("3")],
            &AnswerType::Numeric,
        );
        assert_eq!(v.clusters.len(), 2);
        assert_eq!(v.winning().map(|c| c.answer.as_str()), Some("3"));
        assert_eq!(v.first_winner(), Some(0));
        let v = plurality_vote(
            &[None, s("5"), s("3"), s("3"), s("5.00")],
            &AnswerType::Numeric,
        );
        assert_eq!(v.first_winner(), Some(1));
        assert_eq!(v.winning().map(|c| c.members.clone()), Some(vec![1, 4]));
        let v = plurality_vote(&[None, None], &AnswerType::Numeric);
        assert_eq!(v.winner, None);
    }

    #[test]
    fn supermajority_needs_more_than_two_thirds() {
        let t = AnswerType::Numeric;
        assert_eq!(supermajority(&[s("7"), s("7"), s("7")], 4, &t), Some(0));
        assert_eq!(supermajority(&[s("7"), s("8"), s("7")], 4, &t), None);
        assert_eq!(
            supermajority(&[s("8"), s("7"), s("7"), s("7.0")], 4, &t),
            Some(1)
        );
        assert_eq!(supermajority(&[s("7"), s("8")], 2, &t), None);
        assert_eq!(supermajority(&[None, s("7")], 2, &t), None);
        assert_eq!(supermajority(&[s("7"), s("7")], 2, &t), Some(0));
        assert_eq!(supermajority(&[s("7")], 1, &t), Some(0));
    }
}
