//! Builders for the code datasets (docs/design/sandbox.md §4): HumanEval's rows as
//! `HumanEval.jsonl.gz` publishes them.

use std::collections::BTreeMap;

use super::RawRow;
use super::RowError;
use crate::item::{AnswerType, Item};

/// HumanEval: `task_id`, `prompt`, `canonical_solution`, `test`, `entry_point`. The prompt is
/// the question, the canonical solution the gold answer; the tests and the entry point go with
/// the answer type, since code is graded by running them.
pub(crate) fn humaneval(row: &RawRow) -> Result<Item, RowError> {
    let id = row.nonblank("task_id")?.to_string();
    let prompt = row.nonblank("prompt")?.to_string();
    let gold = row.string("canonical_solution")?.to_string();
    let test = row.nonblank("test")?.to_string();
    let entry_point = row.nonblank("entry_point")?.trim().to_string();
    if !entry_point.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(row.error(Some("entry_point"), "is not a Python identifier"));
    }
    Ok(Item {
        id,
        question: prompt,
        choices: Vec::new(),
        gold,
        answer_type: AnswerType::Code { entry_point, test },
        meta: BTreeMap::new(),
    })
}
