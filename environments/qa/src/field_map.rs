//! [`FieldMap`]: which columns of a file hold an item's fields, so any JSONL, JSON, CSV or
//! Parquet file can be evaluated without converting it to a dataset's published layout.
//!
//! A mapping is written `FIELD=COLUMN` (the command line's `--field`):
//!
//! - `question=COL`: the question text (default column `question`).
//! - `choices=A,B,C,D`: the options, one column each in letter order; a single column holds
//!   the whole list (a JSON list, or a string holding one). Default column `choices`. Only
//!   multiple-choice datasets have choices.
//! - `answer=COL`: the gold answer (default column `answer`). For a multiple-choice dataset the
//!   cell may be a letter (`A`–`Z`, either case, optionally in parentheses), the exact text of
//!   one option, or a 0-based option index, tried in that order; a JSON number is always an
//!   index. For the free-answer datasets it is the final answer (GSM8K's `#### N` solutions
//!   and MATH's `\boxed{}` solutions are reduced to the answer).
//! - `id=COL`: the item id (default: the row number).
//! - `subject=COL`: kept as the item's `subject` (for reports).
//!
//! Fields not mapped are read from the column of their default name. A row missing a mapped
//! column is a malformed row (its error names the file, the line or row, and the column); a row
//! whose question cell is the question column's own name and whose choice cells are their
//! columns' names is a stray header row (files concatenated from several exports carry them):
//! it is skipped and counted in [`crate::Loaded::header_rows`], never an error.

use std::fmt;
use std::str::FromStr;

use colony_env_api::clip;
use thiserror::Error;

use crate::dataset::{AnswerFamily, Dataset};

/// A field of an item that a column can be mapped to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The question text.
    Question,
    /// The options of a multiple-choice item.
    Choices,
    /// The gold answer.
    Answer,
    /// The item id.
    Id,
    /// The subject, kept in the item's metadata.
    Subject,
    /// The tests of a code item (the `code` dataset).
    Tests,
    /// The function a code item's tests call (the `code` dataset; optional).
    EntryPoint,
}

const FIELDS: [Field; 7] = [
    Field::Question,
    Field::Choices,
    Field::Answer,
    Field::Id,
    Field::Subject,
    Field::Tests,
    Field::EntryPoint,
];

/// The most options an item can have (letters `A`–`Z`).
const MAX_CHOICES: usize = 26;

impl Field {
    /// The field's name: `question`, `choices`, `answer`, `id`, `subject`, `tests` or
    /// `entry_point`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Question => "question",
            Self::Choices => "choices",
            Self::Answer => "answer",
            Self::Id => "id",
            Self::Subject => "subject",
            Self::Tests => "tests",
            Self::EntryPoint => "entry_point",
        }
    }

    /// Every field name, comma-separated (for messages).
    pub fn valid_names() -> String {
        FIELDS.map(Field::name).join(", ")
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Field {
    type Err = FieldMapError;

    /// Case-insensitive field name.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase();
        FIELDS
            .into_iter()
            .find(|f| f.name() == norm)
            .ok_or_else(|| FieldMapError::UnknownField {
                given: clip(s.trim()),
                valid: Field::valid_names(),
            })
    }
}

/// Why a field mapping is invalid. Messages are one line and never echo a huge value whole.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FieldMapError {
    /// The mapping is not `FIELD=COLUMN`.
    #[error("field mapping {given:?}: {reason}")]
    Syntax {
        /// The mapping as given (clipped).
        given: String,
        /// What is wrong.
        reason: String,
    },
    /// The field name is not one of [`Field`]'s.
    #[error("unknown field {given:?}; valid fields: {valid}")]
    UnknownField {
        /// The name given (clipped).
        given: String,
        /// The valid names, comma-separated.
        valid: String,
    },
    /// The same field is mapped twice.
    #[error("field {field} is mapped twice; give each field once")]
    Duplicate {
        /// The field.
        field: Field,
    },
    /// Choices were mapped for a dataset whose answers are not option letters.
    #[error("dataset {dataset} has no options (its answers are {family}): drop the choices mapping or pick a multiple-choice dataset (aqua-rat, mmlu, mmlu-pro, gpqa)")]
    ChoicesWithoutOptions {
        /// The dataset.
        dataset: Dataset,
        /// Its answer family.
        family: AnswerFamily,
    },
    /// Tests or an entry point were mapped for a dataset whose answers are not programs.
    #[error("dataset {dataset} is not graded by running code (its answers are {family}): tests and entry_point map only the code dataset (--dataset code)")]
    CodeFieldsOutsideCode {
        /// The dataset.
        dataset: Dataset,
        /// Its answer family.
        family: AnswerFamily,
    },
}

/// Which columns hold an item's fields (see the module docs). Fields not mapped use the
/// column of their own name; the id defaults to the row number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldMap {
    question: Option<String>,
    choices: Option<Vec<String>>,
    answer: Option<String>,
    id: Option<String>,
    subject: Option<String>,
    tests: Option<String>,
    entry_point: Option<String>,
}

impl FieldMap {
    /// A map from `FIELD=COLUMN` mappings (e.g. the repeated `--field` values).
    pub fn from_specs<I, S>(specs: I) -> Result<Self, FieldMapError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut map = Self::default();
        for spec in specs {
            map.add(spec.as_ref())?;
        }
        Ok(map)
    }

    /// Adds one `FIELD=COLUMN` mapping; `choices=` takes a comma-separated list of columns.
    pub fn add(&mut self, spec: &str) -> Result<(), FieldMapError> {
        let syntax = |reason: &str| FieldMapError::Syntax {
            given: clip(spec),
            reason: reason.to_string(),
        };
        let Some((name, column)) = spec.split_once('=') else {
            return Err(syntax(
                "expected FIELD=COLUMN, e.g. question=prompt or choices=a,b,c,d",
            ));
        };
        if name.trim().is_empty() {
            return Err(syntax("no field name before `=`"));
        }
        let field: Field = name.parse()?;
        let column = column.trim();
        if column.is_empty() {
            return Err(syntax("no column name after `=`"));
        }
        let taken = match field {
            Field::Question => self.question.is_some(),
            Field::Choices => self.choices.is_some(),
            Field::Answer => self.answer.is_some(),
            Field::Id => self.id.is_some(),
            Field::Subject => self.subject.is_some(),
            Field::Tests => self.tests.is_some(),
            Field::EntryPoint => self.entry_point.is_some(),
        };
        if taken {
            return Err(FieldMapError::Duplicate { field });
        }
        if field == Field::Choices {
            let columns: Vec<String> = column.split(',').map(|c| c.trim().to_string()).collect();
            if columns.iter().any(String::is_empty) {
                return Err(syntax("an empty column name in the choices list"));
            }
            if columns.len() > MAX_CHOICES {
                return Err(syntax("more than 26 choice columns"));
            }
            if let Some(dup) = columns
                .iter()
                .enumerate()
                .find_map(|(i, c)| columns[..i].contains(c).then_some(c))
            {
                return Err(syntax(&format!(
                    "column {:?} is listed twice among the choices",
                    clip(dup)
                )));
            }
            self.choices = Some(columns);
            return Ok(());
        }
        let column = Some(column.to_string());
        match field {
            Field::Question => self.question = column,
            Field::Answer => self.answer = column,
            Field::Id => self.id = column,
            Field::Subject => self.subject = column,
            Field::Tests => self.tests = column,
            Field::EntryPoint => self.entry_point = column,
            Field::Choices => {}
        }
        Ok(())
    }

    /// Checks the map against the dataset it will load: choices only for multiple choice.
    pub fn check(&self, dataset: Dataset) -> Result<(), FieldMapError> {
        let family = dataset.answer_family();
        if self.choices.is_some() && family != AnswerFamily::Choice {
            return Err(FieldMapError::ChoicesWithoutOptions { dataset, family });
        }
        if (self.tests.is_some() || self.entry_point.is_some()) && family != AnswerFamily::Code {
            return Err(FieldMapError::CodeFieldsOutsideCode { dataset, family });
        }
        Ok(())
    }

    /// The question column.
    pub fn question(&self) -> &str {
        self.question.as_deref().unwrap_or("question")
    }

    /// The choice columns: several (one option each) or one (a list).
    pub fn choices(&self) -> Vec<&str> {
        match &self.choices {
            Some(c) => c.iter().map(String::as_str).collect(),
            None => vec!["choices"],
        }
    }

    /// The answer column.
    pub fn answer(&self) -> &str {
        self.answer.as_deref().unwrap_or("answer")
    }

    /// The id column, if mapped (else items are numbered by row).
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The subject column, if mapped.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The tests column of a code item.
    pub fn tests(&self) -> &str {
        self.tests.as_deref().unwrap_or("tests")
    }

    /// The entry-point column of a code item, if mapped (else the column `entry_point`, when
    /// the row has one).
    pub fn entry_point(&self) -> &str {
        self.entry_point.as_deref().unwrap_or("entry_point")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mappings_with_defaults() {
        let m = FieldMap::from_specs([
            "choices = answer_a,answer_b, answer_c,answer_d",
            "Answer=correct_answer",
            "subject=topic",
        ])
        .unwrap();
        assert_eq!(m.question(), "question");
        assert_eq!(
            m.choices(),
            ["answer_a", "answer_b", "answer_c", "answer_d"]
        );
        assert_eq!(m.answer(), "correct_answer");
        assert_eq!(m.id(), None);
        assert_eq!(m.subject(), Some("topic"));
        // A column name may itself hold `=`: the first one separates.
        let m = FieldMap::from_specs(["id=a=b"]).unwrap();
        assert_eq!(m.id(), Some("a=b"));
        assert_eq!(FieldMap::default().choices(), ["choices"]);
    }

    #[test]
    fn bad_mappings_are_typed_one_line_errors() {
        let err = |s: &[&str]| FieldMap::from_specs(s).unwrap_err();
        assert!(matches!(err(&["question"]), FieldMapError::Syntax { .. }));
        assert!(matches!(err(&["=x"]), FieldMapError::Syntax { .. }));
        assert!(matches!(err(&["answer="]), FieldMapError::Syntax { .. }));
        assert!(matches!(
            err(&["choices=a,,b"]),
            FieldMapError::Syntax { .. }
        ));
        assert!(matches!(
            err(&["choices=a,b,a"]),
            FieldMapError::Syntax { .. }
        ));
        assert_eq!(
            err(&["questoin=q"]).to_string(),
            "unknown field \"questoin\"; valid fields: question, choices, answer, id, subject, tests, entry_point"
        );
        assert_eq!(
            err(&["id=a", "ID=b"]),
            FieldMapError::Duplicate { field: Field::Id }
        );
        let huge = format!("{}=x", "f".repeat(10_000));
        let msg = err(&[huge.as_str()]).to_string();
        assert!(msg.len() < 400 && !msg.contains('\n'), "{msg}");
        let many: Vec<String> = (0..27).map(|i| format!("c{i}")).collect();
        let spec = format!("choices={}", many.join(","));
        assert!(matches!(
            err(&[spec.as_str()]),
            FieldMapError::Syntax { .. }
        ));
    }

    #[test]
    fn choices_only_for_multiple_choice_datasets() {
        let m = FieldMap::from_specs(["choices=a,b"]).unwrap();
        assert!(m.check(Dataset::Mmlu).is_ok());
        let e = m.check(Dataset::Gsm8k).unwrap_err().to_string();
        assert!(e.contains("gsm8k has no options"), "{e}");
        assert!(FieldMap::default().check(Dataset::Gsm8k).is_ok());
    }
}
