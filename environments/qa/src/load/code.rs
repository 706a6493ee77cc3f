//! Builders for the code datasets (docs/design/sandbox.md §4): HumanEval's rows as
//! `HumanEval.jsonl.gz` publishes them, and the `code` dataset's rows by field mapping
//! (MBPP-style tasks, or HumanEval-style functions of another file).

use std::collections::BTreeMap;

use super::RawRow;
use super::RowError;
use crate::field_map::FieldMap;
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

/// A `code` row under `map`: `question` (already read) is the task or the function's prompt,
/// `answer` a reference solution (may be empty), `tests` Python source or a list of assertion
/// lines (joined by newlines), `entry_point` optional. **Decision:** with an entry point the
/// item is HumanEval-style (the tests define `check(candidate)`, the answer completes the
/// prompt); without one it is MBPP-style (the tests are assertions on the answer alone).
/// The line before an MBPP-style task's tests in its question.
pub const TESTS_HEADER: &str = "Your code should pass these tests:";

pub(crate) fn mapped(
    row: &RawRow,
    map: &FieldMap,
    id: String,
    question: String,
) -> Result<Item, RowError> {
    let tests_col = map.tests();
    let test = match row.fields.get(tests_col) {
        None | Some(serde_json::Value::Null) => {
            return Err(row.error(Some(tests_col), "missing column (mapped to tests)"))
        }
        Some(serde_json::Value::Array(_)) => row.string_list(tests_col)?.join("\n"),
        Some(_) => row.text(tests_col)?,
    };
    if test.trim().is_empty() {
        return Err(row.error(Some(tests_col), "is empty (mapped to tests)"));
    }
    let gold = row.opt_text(map.answer()).unwrap_or_default();
    let entry_point = row
        .opt_text(map.entry_point())
        .map(|e| e.trim().to_string())
        .unwrap_or_default();
    if !entry_point.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(row.error(Some(map.entry_point()), "is not a Python identifier"));
    }
    // An MBPP-style task shows its tests with the task (as the MBPP paper prompts it), so
    // every prompt that quotes the question (a debate round, a SelfOrg peer turn) has them.
    let question = if entry_point.is_empty() {
        format!(
            "{}\n\n{TESTS_HEADER}\n\n```python\n{}\n```",
            question.trim_end(),
            test.trim_end()
        )
    } else {
        question
    };
    Ok(Item {
        id,
        question,
        choices: Vec::new(),
        gold,
        answer_type: AnswerType::Code { entry_point, test },
        meta: BTreeMap::new(),
    })
}
