//! The `pairwise` grader (docs/design/grading.md §7.6): the judge compares each policy's
//! response with a reference policy's response to the same item (`--judge-grader
//! pairwise:LABEL`) and names the better one, or a tie.
//!
//! Position bias is measured, not assumed away: which response is shown first is drawn per
//! item from the run seed ([`policy_first`]) and recorded, and the summary reports how often the
//! first-shown response won among decisive verdicts (0.5 is no bias).
//!
//! Decisions:
//! * The reference policy runs first in the dataset run (the runner moves it there), and its
//!   responses are read from this run or, for items finished earlier, from its calls log, so
//!   pairwise needs a calls log (`--log-calls compact` or `full`). Its own items are not judged.
//! * An item the reference has no response for (it errored) cannot be compared: a judge failure
//!   of the item, counted, never a loss.
//! * The gold answer is shown as a reference, as the equivalence grader shows it.
//! * Pairwise verdicts have no `judge_correct`; the rules keep `correct` (`--grade both`).

use std::collections::HashMap;
use std::sync::RwLock;

use colony_policy::reasoning::{derive_seed, prompts, PolicyError};
use serde::{Deserialize, Serialize};

/// `prompts/judge/pairwise.jinja`.
pub const PAIRWISE: &str = include_str!("../../../../../prompts/judge/pairwise.jinja");
/// The reply format the pairwise prompt asks for.
pub const PAIRWISE_FORMAT: &str = "Winner: <1, 2 or TIE>";

/// A pairwise verdict, by position shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Winner {
    /// The first response shown.
    First,
    /// The second.
    Second,
    /// Neither.
    Tie,
}

/// What the judge decided for one item: the `pairwise` object of its `judge` record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairwiseRecord {
    /// The reference policy's label.
    pub against: String,
    /// Whether the policy's response was shown first.
    pub policy_first: bool,
    /// `policy`, `reference` or `tie`.
    pub winner: String,
}

/// The reference responses of a run, by item id, filled by the runner.
#[derive(Debug, Default)]
pub struct Pairwise {
    /// The reference policy's label.
    pub against: String,
    responses: RwLock<HashMap<String, String>>,
}

impl PartialEq for Pairwise {
    fn eq(&self, other: &Self) -> bool {
        self.against == other.against
    }
}

impl Pairwise {
    /// A pairwise grader against `label`.
    pub fn new(label: &str) -> Self {
        Self {
            against: label.to_string(),
            responses: RwLock::new(HashMap::new()),
        }
    }

    /// Adds reference responses (item id → final text).
    pub fn add_responses(&self, responses: impl IntoIterator<Item = (String, String)>) {
        self.responses
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend(responses);
    }

    /// The reference response to item `id`.
    pub fn response(&self, id: &str) -> Option<String> {
        self.responses
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
            .cloned()
    }
}

/// Whether the policy's response is shown first for item `id` (a seeded coin per item).
pub fn policy_first(run_seed: u64, id: &str) -> bool {
    derive_seed(run_seed, id, "judge", None, None, "pairwise-order") & 1 == 0
}

/// The pairwise prompt.
pub fn pairwise_prompt(
    question: &str,
    reference: &str,
    first: &str,
    second: &str,
) -> Result<String, PolicyError> {
    prompts::render(
        PAIRWISE,
        serde_json::json!({
            "question": question, "reference": reference, "first": first, "second": second,
        }),
    )
}

/// The verdict of a reply: its last `Winner:` line (`1`, `2`, `tie`, also `response 1`,
/// markdown emphasis and a trailing period); `None` without one.
pub fn parse_winner(reply: &str) -> Option<Winner> {
    let value = reply.lines().rev().find_map(|line| {
        let lower = line.to_lowercase();
        let at = lower.find("winner")?;
        let rest = lower[at + "winner".len()..].trim_start_matches(['*', '_', ' ']);
        rest.strip_prefix(':').map(|v| v.to_string())
    })?;
    let v: String = value
        .chars()
        .filter(|c| !matches!(c, '*' | '_' | '`' | '[' | ']' | '"' | '<' | '>'))
        .collect();
    let v = v.trim().trim_end_matches('.').trim();
    let v = v.strip_prefix("response").map_or(v, str::trim);
    match v {
        "1" => Some(Winner::First),
        "2" => Some(Winner::Second),
        "tie" | "draw" | "neither" => Some(Winner::Tie),
        _ => None,
    }
}

/// The pairwise totals of a policy (the `pairwise` object of its summary's `judge`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PairwiseSummary {
    /// The reference policy's label (`mixed` when runs differ).
    pub against: String,
    /// Items compared.
    pub compared: usize,
    /// The policy's response won.
    pub wins: usize,
    /// Ties.
    pub ties: usize,
    /// The reference won.
    pub losses: usize,
    /// `(wins + ties / 2) / compared`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub win_rate: Option<f64>,
    /// Decisive verdicts for the response shown first.
    pub first_wins: usize,
    /// Share of decisive verdicts for the response shown first (0.5: no position bias).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_bias: Option<f64>,
}

impl PairwiseSummary {
    /// One item's verdict.
    pub fn one(r: &PairwiseRecord) -> Self {
        let (wins, ties, losses) = match r.winner.as_str() {
            "policy" => (1, 0, 0),
            "reference" => (0, 0, 1),
            _ => (0, 1, 0),
        };
        let first_wins = usize::from(
            (r.winner == "policy" && r.policy_first)
                || (r.winner == "reference" && !r.policy_first),
        );
        let mut s = Self {
            against: r.against.clone(),
            compared: 1,
            wins,
            ties,
            losses,
            first_wins,
            ..Self::default()
        };
        s.derive();
        s
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &Self) {
        if self.against != other.against {
            self.against = "mixed".into();
        }
        self.compared += other.compared;
        self.wins += other.wins;
        self.ties += other.ties;
        self.losses += other.losses;
        self.first_wins += other.first_wins;
        self.derive();
    }

    fn derive(&mut self) {
        let n = self.compared as f64;
        self.win_rate =
            (self.compared > 0).then(|| (self.wins as f64 + self.ties as f64 / 2.0) / n);
        let decisive = self.wins + self.losses;
        self.position_bias = (decisive > 0).then(|| self.first_wins as f64 / decisive as f64);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn winners_parse_and_the_order_is_a_seeded_coin() {
        assert_eq!(parse_winner("Winner: 1"), Some(Winner::First));
        assert_eq!(
            parse_winner("I compared.\n**Winner:** Response 2."),
            Some(Winner::Second)
        );
        assert_eq!(parse_winner("winner: TIE"), Some(Winner::Tie));
        assert_eq!(parse_winner("Winner: both"), None);
        assert_eq!(parse_winner("The first is better."), None);
        let firsts = (0..200).filter(|i| policy_first(7, &i.to_string())).count();
        assert!((60..140).contains(&firsts), "{firsts}");
        assert_eq!(policy_first(7, "a"), policy_first(7, "a"));
        let p = pairwise_prompt("Q?", "4", "one", "two").unwrap();
        assert!(p.contains("<response_1>\none\n</response_1>") && p.contains(PAIRWISE_FORMAT));
    }

    #[test]
    fn totals_count_wins_ties_and_the_first_shown_response() {
        let rec = |winner: &str, policy_first| PairwiseRecord {
            against: "single".into(),
            policy_first,
            winner: winner.into(),
        };
        let mut s = PairwiseSummary::one(&rec("policy", true));
        for r in [
            rec("reference", false),
            rec("tie", true),
            rec("policy", false),
        ] {
            s.add(&PairwiseSummary::one(&r));
        }
        assert_eq!((s.compared, s.wins, s.ties, s.losses), (4, 2, 1, 1));
        assert_eq!(s.win_rate, Some(2.5 / 4.0));
        // Decisive: policy first and won, reference first (policy second) and won, policy
        // second and won: two of three for the first shown.
        assert_eq!(s.first_wins, 2);
        assert!((s.position_bias.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    }
}
