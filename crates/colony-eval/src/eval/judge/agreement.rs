//! The `judge` object of a policy's summary (docs/design/grading.md §7.4): the judge's accuracy,
//! its agreement with the rule grader (Cohen's κ and the 2×2 table) and the exact McNemar test
//! between the two graders on the same items, with the judge's own calls, tokens and cost.
//!
//! Counts add across datasets ([`JudgeSummary::add`]); the derived numbers are recomputed from
//! the counts, so a run's totals equal one summary over all its items.
//!
//! Decisions: the agreement numbers cover items graded by both (`--grade both`); under
//! `--grade judge` the rule verdict is the judge's, so they are absent. κ is absent when both
//! graders put every item in one class (its chance agreement is then 1 and κ is undefined);
//! `agreement` still says how often they agreed.

use serde::{Deserialize, Serialize};

use crate::eval::results::ItemResult;
use crate::eval::stats::{add_costs, mcnemar_exact, wilson95};

/// The judge's totals over a policy's items.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgeSummary {
    /// The grader (`equivalence`, `rubric:<name>`; `mixed` when runs of one directory differ).
    pub grader: String,
    /// Items the judge gave a verdict for.
    pub graded: usize,
    /// Of those, judged correct.
    pub correct: usize,
    /// `correct / graded`; `null` when nothing was graded.
    pub accuracy: Option<f64>,
    /// The 95% Wilson interval of `accuracy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy_ci95: Option<[f64; 2]>,
    /// Items the judge could not grade (a failed call or a reply unreadable twice): errors of
    /// the item, never wrong answers.
    pub errors: usize,
    /// Items whose first judge reply was unreadable and was asked again.
    #[serde(default)]
    pub reasked: usize,
    /// Items graded by both the rules and the judge.
    #[serde(default)]
    pub paired: usize,
    /// The rules' accuracy on the paired items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules_accuracy: Option<f64>,
    /// The judge's accuracy on the paired items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_accuracy: Option<f64>,
    /// `[[both correct, rules only], [judge only, both wrong]]` over the paired items (rows:
    /// the rules' verdict, columns: the judge's).
    #[serde(default)]
    pub table: [[usize; 2]; 2],
    /// Share of paired items on which the graders agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement: Option<f64>,
    /// Cohen's κ of the two graders (see the module docs for when it is absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kappa: Option<f64>,
    /// Exact two-sided McNemar p-value of rules against judge on the paired items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// The mean rubric score (0 to 1) over the graded items (rubric graders).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_score: Option<f64>,
    /// Sum of rubric scores (for `mean_score` across datasets).
    #[serde(default)]
    pub score_sum: f64,
    /// Items with a rubric score.
    #[serde(default)]
    pub scored: usize,
    /// Successful judge calls (not in the policy's `calls`).
    pub calls: u64,
    /// Failed judge calls.
    #[serde(default)]
    pub failed_calls: u64,
    /// Prompt tokens of the judge (not in the policy's).
    pub prompt_tokens: u64,
    /// Completion tokens of the judge.
    pub completion_tokens: u64,
    /// `prompt_tokens + completion_tokens`.
    pub tokens: u64,
    /// What the judge cost at its price; absent without one (not in the policy's cost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Wins, ties and losses against the reference policy, and the position bias (pairwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairwise: Option<super::PairwiseSummary>,
}

impl JudgeSummary {
    /// The judge's totals over `results`, `None` when no item went to a judge.
    pub fn of(results: &[ItemResult]) -> Option<Self> {
        let mut s: Option<Self> = None;
        for r in results {
            let Some(j) = &r.judge else { continue };
            let mut one = Self {
                grader: j.grader.clone(),
                calls: j.calls,
                failed_calls: j.failed_calls,
                prompt_tokens: j.prompt_tokens,
                completion_tokens: j.completion_tokens,
                cost_usd: j.cost_usd,
                reasked: usize::from(j.reasked),
                ..Self::default()
            };
            match (j.correct, &j.error) {
                (Some(verdict), None) => {
                    one.graded = 1;
                    one.correct = usize::from(verdict);
                    if !j.primary {
                        one.paired = 1;
                        let row = usize::from(!r.correct);
                        let col = usize::from(!verdict);
                        one.table[row][col] = 1;
                    }
                    if let Some(score) = j.score {
                        one.score_sum = score;
                        one.scored = 1;
                    }
                }
                (None, None) if j.pairwise.is_some() => {
                    one.pairwise = j.pairwise.as_ref().map(super::PairwiseSummary::one);
                }
                _ => one.errors = 1,
            }
            match &mut s {
                Some(total) => total.add(&one),
                None => {
                    one.derive();
                    s = Some(one);
                }
            }
        }
        s
    }

    /// Adds `other`'s counts and recomputes the derived numbers.
    pub fn add(&mut self, other: &Self) {
        if self.grader != other.grader {
            self.grader = "mixed".into();
        }
        self.graded += other.graded;
        self.correct += other.correct;
        self.errors += other.errors;
        self.reasked += other.reasked;
        self.paired += other.paired;
        for (row, other_row) in self.table.iter_mut().zip(other.table) {
            for (cell, other_cell) in row.iter_mut().zip(other_row) {
                *cell += other_cell;
            }
        }
        self.score_sum += other.score_sum;
        self.scored += other.scored;
        self.calls = self.calls.saturating_add(other.calls);
        self.failed_calls = self.failed_calls.saturating_add(other.failed_calls);
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self
            .completion_tokens
            .saturating_add(other.completion_tokens);
        self.cost_usd = add_costs(self.cost_usd, other.cost_usd);
        match (&mut self.pairwise, &other.pairwise) {
            (Some(mine), Some(theirs)) => mine.add(theirs),
            (None, Some(theirs)) => self.pairwise = Some(theirs.clone()),
            _ => {}
        }
        self.derive();
    }

    fn derive(&mut self) {
        self.tokens = self.prompt_tokens.saturating_add(self.completion_tokens);
        let ratio = |a: usize, n: usize| (n > 0).then(|| a as f64 / n as f64);
        self.accuracy = ratio(self.correct, self.graded);
        self.accuracy_ci95 = wilson95(self.correct, self.graded);
        self.mean_score = (self.scored > 0).then(|| self.score_sum / self.scored as f64);
        let [[a, b], [c, d]] = self.table;
        let n = self.paired;
        self.rules_accuracy = ratio(a + b, n);
        self.judge_accuracy = ratio(a + c, n);
        self.agreement = ratio(a + d, n);
        self.kappa = cohen_kappa(self.table);
        self.p_value = (n > 0).then(|| mcnemar_exact(b, c));
    }
}

/// Cohen's κ of a 2×2 agreement table; `None` when it is empty or chance agreement is 1.
pub fn cohen_kappa(table: [[usize; 2]; 2]) -> Option<f64> {
    let [[a, b], [c, d]] = table.map(|row| row.map(|x| x as f64));
    let n = a + b + c + d;
    if n == 0.0 {
        return None;
    }
    let observed = (a + d) / n;
    let chance = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n);
    if (1.0 - chance).abs() < 1e-12 {
        return None;
    }
    Some((observed - chance) / (1.0 - chance))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn kappa_matches_the_textbook_example() {
        // Cohen (1960)-style table: 20 both yes, 5 rules-only, 10 judge-only, 15 both no.
        let k = cohen_kappa([[20, 5], [10, 15]]).unwrap();
        // po = 0.7, pe = (25·30 + 25·20) / 2500 = 0.5, κ = 0.4.
        assert!((k - 0.4).abs() < 1e-12, "{k}");
        assert_eq!(cohen_kappa([[0, 0], [0, 0]]), None);
        // Everything in one class: κ undefined.
        assert_eq!(cohen_kappa([[7, 0], [0, 0]]), None);
        assert!((cohen_kappa([[3, 0], [0, 4]]).unwrap() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn totals_add_and_rederive() {
        let mut a = JudgeSummary {
            grader: "equivalence".into(),
            graded: 2,
            correct: 1,
            paired: 2,
            table: [[1, 0], [0, 1]],
            calls: 2,
            prompt_tokens: 10,
            ..JudgeSummary::default()
        };
        a.derive();
        let mut b = a.clone();
        b.table = [[0, 1], [1, 0]];
        b.derive();
        a.add(&b);
        assert_eq!(a.graded, 4);
        assert_eq!(a.table, [[1, 1], [1, 1]]);
        assert_eq!(a.agreement, Some(0.5));
        assert_eq!(a.tokens, 20);
        assert_eq!(a.grader, "equivalence");
    }
}
