//! Items: one question, its gold answer and how answers to it are compared.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How an answer is extracted and compared (docs/design/grading.md §4.4–4.7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AnswerType {
    /// A number with tolerance and the decimal-rounding rule (GSM8K, GSM-Hard), §4.5.
    Numeric,
    /// An integer-valued number (AIME), §4.5.
    Integer,
    /// A LaTeX expression compared by string, structure, value and probing (MATH), §4.6.
    MathExpr,
    /// A letter among the options, in order `A`, `B`, …; `options` are the option texts
    /// (used to match an answer given as option text or value), §4.7.
    Choice {
        /// Option texts, one per letter starting at `A`.
        options: Vec<String>,
    },
    /// A Python completion of the question (a function's signature and docstring), graded by
    /// running `test` and `check(entry_point)` in the sandbox (docs/design/sandbox.md §3–§4);
    /// the gold answer is a reference solution, never compared as text for grading. With an
    /// empty `entry_point` (an MBPP-style task) the program is the answer alone followed by
    /// `test`, plain assertions.
    Code {
        /// The function the tests call (empty: the tests are self-contained assertions).
        entry_point: String,
        /// The tests: Python source defining `check(candidate)`, or assertions.
        test: String,
    },
}

impl AnswerType {
    /// The allowed letters of a choice question (empty for other types).
    pub fn letters(&self) -> Vec<char> {
        match self {
            Self::Choice { options } => ('A'..='Z').take(options.len()).collect(),
            _ => Vec::new(),
        }
    }
}

/// One dataset item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// Stable id: the dataset's own id when it has one, else the 0-based row index as text.
    pub id: String,
    /// The question as shown to models (`question_body` of design §4.2, options included),
    /// without the answer-format suffix.
    pub question: String,
    /// Option texts of multiple-choice items (empty otherwise), in letter order.
    pub choices: Vec<String>,
    /// The gold answer in the item's answer form: a number, a LaTeX expression or a letter.
    pub gold: String,
    /// How answers are compared.
    pub answer_type: AnswerType,
    /// Other published fields worth keeping (subject, level, …).
    pub meta: BTreeMap<String, serde_json::Value>,
}
