//! Builders for the multiple-choice datasets: AQUA-RAT, MMLU, MMLU-Pro and GPQA, with the
//! `question_body` layouts of docs/design/grading.md §4.2 and GPQA's per-item seeded option
//! shuffle.

use std::collections::BTreeMap;

use colony_env_api::rng::PyRandom;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::RawRow;
use super::RowError;
use crate::dataset::Dataset;
use crate::item::{AnswerType, Item};

/// The line that introduces the options in every choice layout.
const CHOOSE: &str = "Choose the correct answer from the following options:";

/// The option letter of 0-based index `i` (`A`, `B`, …).
pub(super) fn letter(i: usize) -> char {
    char::from(b'A' + (i % 26) as u8)
}

/// The 0-based index of an option letter (either case) among `n` options.
pub(super) fn letter_index(s: &str, n: usize) -> Option<usize> {
    let s = s.trim().trim_start_matches('(').trim_end_matches(')');
    let mut chars = s.chars();
    let c = chars.next()?.to_ascii_uppercase();
    if chars.next().is_some() || !c.is_ascii_uppercase() {
        return None;
    }
    let i = (c as u8 - b'A') as usize;
    (i < n).then_some(i)
}

/// The options block: `\n(A) first\n(B) second…`.
fn options_block(options: &[String]) -> String {
    options
        .iter()
        .enumerate()
        .map(|(i, o)| format!("\n({}) {o}", letter(i)))
        .collect()
}

/// A choice item.
pub(super) fn choice_item(id: String, question: String, choices: Vec<String>, gold: usize) -> Item {
    Item {
        id,
        question,
        gold: letter(gold).to_string(),
        answer_type: AnswerType::Choice {
            options: choices.clone(),
        },
        choices,
        meta: BTreeMap::new(),
    }
}

/// At least two options, at most 26.
fn check_count(row: &RawRow, field: &str, n: usize) -> Result<(), RowError> {
    if !(2..=26).contains(&n) {
        return Err(row.error(Some(field), format!("expected 2 to 26 options, found {n}")));
    }
    Ok(())
}

/// AQUA-RAT: `question` + " Choose the correct answer from the following options:" + each
/// published option (`A)21`) on its own line; option texts = the text after `X)`; gold =
/// `correct`.
pub(crate) fn aqua_rat(row: &RawRow) -> Result<Item, RowError> {
    let question = row.nonblank("question")?;
    let options = row.string_list("options")?;
    check_count(row, "options", options.len())?;
    let correct = row.string("correct")?;
    let gold = letter_index(correct, options.len()).ok_or_else(|| {
        row.error(
            Some("correct"),
            format!(
                "{correct:?} is not one of the letters A-{}",
                letter(options.len() - 1)
            ),
        )
    })?;
    let body: String = options.iter().map(|o| format!("\n{o}")).collect();
    let choices = options.iter().map(|o| strip_label(o)).collect();
    Ok(choice_item(
        row.index.to_string(),
        format!("{question} {CHOOSE}{body}"),
        choices,
        gold,
    ))
}

/// The text after a leading `X)` label (trimmed), or the whole option when it has none.
fn strip_label(option: &str) -> String {
    let t = option.trim_start();
    let mut chars = t.chars();
    match (chars.next(), chars.next()) {
        (Some(c), Some(')')) if c.is_ascii_alphabetic() => t[2..].trim().to_string(),
        _ => option.trim().to_string(),
    }
}

/// The MMLU / MMLU-Pro layout.
fn mmlu_layout(question: &str, options: &[String]) -> String {
    format!(
        "The following is a multiple-choice question:\n{question}\n\n{CHOOSE}{}",
        options_block(options)
    )
}

/// The question body of a mapped choice item (see [`crate::FieldMap`]) in `dataset`'s layout:
/// AQUA-RAT's `X)option` lines, GPQA's blank line before the options, else MMLU's.
pub(super) fn choice_layout(dataset: Dataset, question: &str, options: &[String]) -> String {
    match dataset {
        Dataset::AquaRat => {
            let body: String = options
                .iter()
                .enumerate()
                .map(|(i, o)| format!("\n{}){o}", letter(i)))
                .collect();
            format!("{question} {CHOOSE}{body}")
        }
        Dataset::Gpqa => format!("{question}\n\n{CHOOSE}{}", options_block(options)),
        _ => mmlu_layout(question, options),
    }
}

/// MMLU: `question`; options = `choices` (hub) or columns `A`–`D` (original CSV); gold =
/// `"ABCD"[answer]` for an integer `answer`, or the letter `answer`; subject = `subject`, or
/// the CSV file name without `_test`/`_dev`/`_val`.
pub(crate) fn mmlu(row: &RawRow) -> Result<Item, RowError> {
    let question = row.nonblank("question")?;
    let options = if row.get("choices").is_some() || row.get("A").is_none() {
        row.string_list("choices")?
    } else {
        ["A", "B", "C", "D"]
            .iter()
            .map(|c| row.text(c))
            .collect::<Result<Vec<_>, _>>()?
    };
    check_count(row, "choices", options.len())?;
    let gold = match row.required("answer")? {
        Value::String(s) if s.trim().parse::<i64>().is_err() => letter_index(s, options.len()),
        _ => {
            let i = row.integer("answer")?;
            usize::try_from(i).ok().filter(|&i| i < options.len())
        }
    }
    .ok_or_else(|| {
        row.error(
            Some("answer"),
            format!(
                "{} is not an option index 0-{} or letter A-{}",
                super::fields::short(row.get("answer").unwrap_or(&Value::Null)),
                options.len() - 1,
                letter(options.len() - 1)
            ),
        )
    })?;
    let mut it = choice_item(
        row.index.to_string(),
        mmlu_layout(question, &options),
        options,
        gold,
    );
    match row.opt_text("subject") {
        Some(s) => {
            it.meta.insert("subject".into(), Value::String(s));
        }
        None => {
            if let Some(s) = subject_from_file_name(&row.file) {
                it.meta.insert("subject".into(), Value::String(s));
            }
        }
    }
    Ok(it)
}

/// `abstract_algebra_test.csv` → `abstract_algebra`.
fn subject_from_file_name(path: &std::path::Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    ["_test", "_dev", "_val", "_validation", "_train"]
        .iter()
        .find_map(|s| stem.strip_suffix(s))
        .map(str::to_string)
}

/// MMLU-Pro: `question`; options = `options` without "N/A" padding; gold = `answer` (or
/// `answer_index`), re-lettered after dropping padding; id = `question_id`.
pub(crate) fn mmlu_pro(row: &RawRow) -> Result<Item, RowError> {
    let question = row.nonblank("question")?;
    let published = row.string_list("options")?;
    let original = match row.get("answer") {
        Some(_) => {
            let a = row.string("answer")?;
            letter_index(a, published.len()).ok_or_else(|| {
                row.error(
                    Some("answer"),
                    format!(
                        "{a:?} is not the letter of one of the {} options",
                        published.len()
                    ),
                )
            })?
        }
        None if row.get("answer_index").is_some() => {
            let i = row.integer("answer_index")?;
            usize::try_from(i)
                .ok()
                .filter(|&i| i < published.len())
                .ok_or_else(|| row.error(Some("answer_index"), format!("{i} is out of range")))?
        }
        None => return Err(row.error(Some("answer"), "missing field")),
    };
    let is_pad = |o: &String| o.trim() == "N/A";
    if published.get(original).is_some_and(is_pad) {
        return Err(row.error(Some("answer"), "the answer is an \"N/A\" padding option"));
    }
    let gold = published[..original].iter().filter(|o| !is_pad(o)).count();
    let options: Vec<String> = published.into_iter().filter(|o| !is_pad(o)).collect();
    check_count(row, "options", options.len())?;
    let id = row
        .opt_text("question_id")
        .unwrap_or_else(|| row.index.to_string());
    let mut it = choice_item(id, mmlu_layout(question, &options), options, gold);
    row.copy_meta(
        &mut it.meta,
        &[
            ("category", "subject"),
            ("category", "category"),
            ("src", "src"),
        ],
    );
    Ok(it)
}

/// The GPQA option order: `order[k]` is the index in `[correct, incorrect 1, 2, 3]` of the
/// option shown at letter `k`. Seeded by the first 8 bytes (little-endian) of
/// SHA-256("gpqa|" + `record_id`) through the CPython-compatible shuffle (design §4.2).
pub fn gpqa_order(record_id: &str) -> [usize; 4] {
    let digest = Sha256::digest(format!("gpqa|{record_id}").as_bytes());
    let mut seed = [0u8; 8];
    seed.copy_from_slice(&digest[..8]);
    let mut order = [0, 1, 2, 3];
    PyRandom::from_u64(u64::from_le_bytes(seed)).shuffle(&mut order);
    order
}

/// GPQA: `Question` + "\n\nChoose the correct answer from the following options:" + (A)…(D)
/// over the trimmed answers, shuffled by [`gpqa_order`] of `Record ID` (or correct first);
/// id = `Record ID`.
pub(crate) fn gpqa(row: &RawRow, correct_first: bool) -> Result<Item, RowError> {
    let question = row.nonblank("Question")?;
    let answers = [
        "Correct Answer",
        "Incorrect Answer 1",
        "Incorrect Answer 2",
        "Incorrect Answer 3",
    ]
    .iter()
    .map(|f| {
        let t = row.text(f)?.trim().to_string();
        if t.is_empty() {
            return Err(row.error(Some(f), "is empty"));
        }
        Ok(t)
    })
    .collect::<Result<Vec<_>, _>>()?;
    let record_id =
        match row.opt_text("Record ID").map(|s| s.trim().to_string()) {
            Some(r) if !r.is_empty() => Some(r),
            _ if correct_first => None,
            _ => return Err(row.error(
                Some("Record ID"),
                "missing (it seeds the option shuffle; set gpqa_correct_first to load without it)",
            )),
        };
    let order = match (&record_id, correct_first) {
        (Some(r), false) => gpqa_order(r),
        _ => [0, 1, 2, 3],
    };
    let options: Vec<String> = order.iter().map(|&k| answers[k].clone()).collect();
    let gold = order.iter().position(|&k| k == 0).unwrap_or(0);
    let body = format!("{question}\n\n{CHOOSE}{}", options_block(&options));
    let id = record_id.unwrap_or_else(|| row.index.to_string());
    let mut it = choice_item(id, body, options, gold);
    row.copy_meta(
        &mut it.meta,
        &[
            ("Subdomain", "subject"),
            ("High-level domain", "domain"),
            ("Writer's Difficulty Estimate", "difficulty"),
        ],
    );
    it.meta
        .insert("gpqa_order".into(), Value::from(order.to_vec()));
    Ok(it)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_labels() {
        assert_eq!(letter_index("c", 4), Some(2));
        assert_eq!(letter_index("(B)", 4), Some(1));
        assert_eq!(letter_index("E", 4), None);
        assert_eq!(letter_index("AB", 4), None);
        assert_eq!(strip_label("A)21"), "21");
        assert_eq!(strip_label("B) 3/4 "), "3/4");
        assert_eq!(strip_label("no label"), "no label");
    }

    #[test]
    fn gpqa_order_is_a_permutation_and_stable() {
        let o = gpqa_order("recABC");
        let mut sorted = o;
        sorted.sort_unstable();
        assert_eq!(sorted, [0, 1, 2, 3]);
        assert_eq!(o, gpqa_order("recABC"));
    }
}
