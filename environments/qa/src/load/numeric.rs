//! Builders for the free-answer datasets: GSM8K, GSM-Hard, MATH and AIME-2024.

use std::collections::BTreeMap;

use serde_json::Value;

use super::RawRow;
use super::RowError;
use crate::grade::last_boxed;
use crate::item::{AnswerType, Item};

/// An item without options.
pub(super) fn free_item(id: String, question: &str, gold: String, answer_type: AnswerType) -> Item {
    Item {
        id,
        question: question.to_string(),
        choices: Vec::new(),
        gold,
        answer_type,
        meta: BTreeMap::new(),
    }
}

/// The dataset's own id from the first present of `names`, else the row index.
fn id_or_index(row: &RawRow, names: &[&str]) -> String {
    names
        .iter()
        .find_map(|n| row.opt_text(n))
        .unwrap_or_else(|| row.index.to_string())
}

/// GSM8K: `question`; gold = the text after the last `####` of `answer`, trimmed, commas
/// removed, which must be a number.
pub(crate) fn gsm8k(row: &RawRow) -> Result<Item, RowError> {
    let question = row.nonblank("question")?;
    let answer = row.string("answer")?;
    let gold = gsm8k_gold(answer).map_err(|m| row.error(Some("answer"), m))?;
    Ok(free_item(
        row.index.to_string(),
        question,
        gold,
        AnswerType::Numeric,
    ))
}

/// The final answer of a GSM8K solution (`… #### 1,234` → `1234`).
pub(crate) fn gsm8k_gold(answer: &str) -> Result<String, String> {
    let Some((_, tail)) = answer.rsplit_once("####") else {
        return Err("no `#### <answer>` line in the solution".into());
    };
    let gold = tail.trim().replace(',', "");
    if gold.is_empty() {
        return Err("nothing after `####`".into());
    }
    if gold.parse::<f64>().is_err() {
        return Err(format!(
            "the final answer {gold:?} after `####` is not a number"
        ));
    }
    Ok(gold)
}

/// GSM-Hard: `input`; gold = `target` as a number (an integral float is written as an integer).
pub(crate) fn gsm_hard(row: &RawRow) -> Result<Item, RowError> {
    let question = row.nonblank("input")?;
    let gold = match row.required("target")? {
        Value::Number(n) => number_text(n),
        Value::String(s) if s.trim().parse::<f64>().is_ok() => s.trim().to_string(),
        other => {
            return Err(row.error(
                Some("target"),
                format!("expected a number, found {}", super::fields::short(other)),
            ))
        }
    };
    Ok(free_item(
        row.index.to_string(),
        question,
        gold,
        AnswerType::Numeric,
    ))
}

/// A JSON number as gold text: integers as is, integral floats without `.0`, other floats
/// in their shortest round-trip form.
pub(super) fn number_text(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 9e15 => format!("{}", f as i64),
        _ => n.to_string(),
    }
}

/// MATH: `problem`; gold = `answer` (MATH-500) or else the last `\boxed{…}` of `solution`
/// (original MATH); id = `unique_id`, else the file's relative path in a directory, else
/// the row index.
pub(crate) fn math(row: &RawRow) -> Result<Item, RowError> {
    let question = row.nonblank("problem")?;
    let gold = if row.get("answer").is_some() {
        row.text("answer")?.trim().to_string()
    } else {
        let solution = row.string("solution").map_err(|e| {
            if e.message == "missing field" {
                row.error(
                    Some("answer"),
                    "missing field (MATH-500 rows have `answer`; original MATH rows need `solution` with a \\boxed{} answer)",
                )
            } else {
                e
            }
        })?;
        last_boxed(solution)
            .map(|s| s.trim().to_string())
            .ok_or_else(|| row.error(Some("solution"), "no complete \\boxed{…} answer"))?
    };
    if gold.is_empty() {
        return Err(row.error(Some("answer"), "is empty"));
    }
    let id = row
        .opt_text("unique_id")
        .or_else(|| row.rel_path.clone())
        .unwrap_or_else(|| row.index.to_string());
    let mut it = free_item(id, question, gold, AnswerType::MathExpr);
    row.copy_meta(
        &mut it.meta,
        &[
            ("type", "subject"),
            ("subject", "subject"),
            ("level", "level"),
        ],
    );
    Ok(it)
}

/// AIME-2024: `Problem`/`problem`; gold = `Answer`/`answer`, an integer; id = `ID`/`id`.
pub(crate) fn aime(row: &RawRow) -> Result<Item, RowError> {
    let problem = row
        .first_present(&["Problem", "problem"])
        .unwrap_or("Problem");
    let answer = row.first_present(&["Answer", "answer"]).unwrap_or("Answer");
    let question = row.nonblank(problem)?;
    let gold = row.integer(answer)?.to_string();
    let id = id_or_index(row, &["ID", "id"]);
    let mut it = free_item(id, question, gold, AnswerType::Integer);
    row.copy_meta(&mut it.meta, &[("url", "url"), ("year", "year")]);
    Ok(it)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gsm8k_gold_takes_the_last_marker_and_drops_commas() {
        assert_eq!(gsm8k_gold("a <<1+1=2>>2\n#### 1,234").unwrap(), "1234");
        assert_eq!(gsm8k_gold("#### 1\n#### -5 ").unwrap(), "-5");
        assert!(gsm8k_gold("no marker").is_err());
        assert!(gsm8k_gold("#### twelve").is_err());
    }

    #[test]
    fn integral_floats_print_as_integers() {
        let n = |s: &str| serde_json::from_str::<serde_json::Number>(s).unwrap();
        assert_eq!(number_text(&n("42.0")), "42");
        assert_eq!(number_text(&n("-7")), "-7");
        assert_eq!(number_text(&n("2.3333333333333335")), "2.3333333333333335");
        assert_eq!(number_text(&n("1e20")), "1e+20");
    }
}
