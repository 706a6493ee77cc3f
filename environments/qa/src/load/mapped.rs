//! The item builder of a [`FieldMap`]: any file whose columns were mapped with `--field`,
//! read as the chosen dataset's answer type (see [`crate::field_map`] for the rules).

use serde_json::Value;

use super::choice::{choice_item, choice_layout, letter, letter_index};
use super::numeric::{free_item, gsm8k_gold, number_text};
use super::RawRow;
use super::RowError;
use crate::dataset::{AnswerFamily, Dataset};
use crate::field_map::{Field, FieldMap};
use crate::grade::last_boxed;
use crate::item::{AnswerType, Item};

/// Whether `row` is a stray header row: its question cell is the question column's name and
/// each of several mapped choice cells is its own column's name (case-insensitive).
pub(crate) fn is_header_row(row: &RawRow, map: &FieldMap) -> bool {
    let names_itself = |col: &str| matches!(row.get(col), Some(Value::String(s)) if s.trim().eq_ignore_ascii_case(col));
    let choices = map.choices();
    names_itself(map.question()) && (choices.len() < 2 || choices.iter().all(|c| names_itself(c)))
}

/// A mapped column's value; a missing or null cell names the column and the field it holds.
fn cell<'a>(row: &'a RawRow, column: &str, field: Field) -> Result<&'a Value, RowError> {
    match row.fields.get(column) {
        None => Err(row.error(Some(column), format!("missing column (mapped to {field})"))),
        Some(Value::Null) => Err(row.error(Some(column), format!("is null (mapped to {field})"))),
        Some(v) => Ok(v),
    }
}

/// A mapped scalar cell as text (strings as is, numbers and booleans printed).
fn cell_text(row: &RawRow, column: &str, field: Field) -> Result<String, RowError> {
    cell(row, column, field)?;
    row.text(column)
}

/// Builds the item of `row` under `map`, with `dataset`'s answer type and prompt layout.
pub(crate) fn build(dataset: Dataset, row: &RawRow, map: &FieldMap) -> Result<Item, RowError> {
    let question_col = map.question();
    let question = cell_text(row, question_col, Field::Question)?;
    if question.trim().is_empty() {
        return Err(row.error(Some(question_col), "is empty"));
    }
    let id = match map.id() {
        Some(col) => {
            let id = cell_text(row, col, Field::Id)?.trim().to_string();
            if id.is_empty() {
                return Err(row.error(Some(col), "is empty (mapped to id)"));
            }
            id
        }
        None => row.index.to_string(),
    };
    let answer_col = map.answer();
    let answer = cell(row, answer_col, Field::Answer)?;
    let mut it = match dataset.answer_family() {
        AnswerFamily::Choice => {
            let options = options(row, map)?;
            let gold = choice_gold(row, answer_col, answer, &options)?;
            let body = choice_layout(dataset, &question, &options);
            choice_item(id, body, options, gold)
        }
        AnswerFamily::Numeric => {
            let gold = numeric_gold(answer).map_err(|m| row.error(Some(answer_col), m))?;
            free_item(id, &question, gold, AnswerType::Numeric)
        }
        AnswerFamily::Integer => {
            let gold = row.integer(answer_col)?.to_string();
            free_item(id, &question, gold, AnswerType::Integer)
        }
        AnswerFamily::MathExpr => {
            let text = cell_text(row, answer_col, Field::Answer)?;
            let gold = last_boxed(&text).unwrap_or(text).trim().to_string();
            if gold.is_empty() {
                return Err(row.error(Some(answer_col), "is empty"));
            }
            free_item(id, &question, gold, AnswerType::MathExpr)
        }
        AnswerFamily::Code if dataset == Dataset::HumanEval => {
            return Err(row.error(
                None,
                "humaneval reads its published fields (task_id, prompt, canonical_solution, \
                 test, entry_point); map other files with --dataset code",
            ))
        }
        AnswerFamily::Code => super::code::mapped(row, map, id, question)?,
    };
    if let Some(col) = map.subject() {
        if let Some(s) = row.opt_text(col) {
            it.meta.insert("subject".into(), Value::String(s));
        }
    }
    Ok(it)
}

/// The options: one per mapped column, or the list in a single column.
fn options(row: &RawRow, map: &FieldMap) -> Result<Vec<String>, RowError> {
    let columns = map.choices();
    let options = match columns.as_slice() {
        [one] => {
            cell(row, one, Field::Choices)?;
            row.string_list(one)?
        }
        many => many
            .iter()
            .map(|c| cell_text(row, c, Field::Choices).map(|t| t.trim().to_string()))
            .collect::<Result<Vec<_>, _>>()?,
    };
    if !(2..=26).contains(&options.len()) {
        return Err(row.error(
            columns.first().copied(),
            format!("expected 2 to 26 options, found {}", options.len()),
        ));
    }
    Ok(options)
}

/// The 0-based gold option of an answer cell: a letter, else the text of exactly one option,
/// else a 0-based index; a JSON number is always an index.
fn choice_gold(
    row: &RawRow,
    column: &str,
    answer: &Value,
    options: &[String],
) -> Result<usize, RowError> {
    let n = options.len();
    let found = match answer {
        Value::Number(_) => row
            .integer(column)
            .ok()
            .and_then(|i| usize::try_from(i).ok()),
        Value::String(s) => {
            let t = s.trim();
            letter_index(t, n)
                .or_else(|| {
                    let mut hits = options
                        .iter()
                        .enumerate()
                        .filter(|(_, o)| o.trim() == t)
                        .map(|(i, _)| i);
                    match (hits.next(), hits.next()) {
                        (Some(i), None) => Some(i),
                        _ => None,
                    }
                })
                .or_else(|| t.parse::<usize>().ok())
        }
        _ => None,
    };
    found.filter(|&i| i < n).ok_or_else(|| {
        row.error(
            Some(column),
            format!(
                "{} is not an option letter A-{}, the text of one option, or an index 0-{}",
                super::fields::short(answer),
                letter(n - 1),
                n - 1
            ),
        )
    })
}

/// The gold of a numeric answer cell: a number, or a GSM8K solution ending in `#### N`.
fn numeric_gold(answer: &Value) -> Result<String, String> {
    match answer {
        Value::Number(n) => Ok(number_text(n)),
        Value::String(s) if s.contains("####") => gsm8k_gold(s),
        Value::String(s) => {
            let t = s.trim().replace(',', "");
            if t.parse::<f64>().is_ok_and(f64::is_finite) {
                Ok(t)
            } else {
                Err(format!(
                    "expected a number (or a solution ending in `#### N`), found {}",
                    super::fields::short(answer)
                ))
            }
        }
        other => Err(format!(
            "expected a number, found {}",
            super::fields::kind(other)
        )),
    }
}
