//! The answer key of the simulated model: question text → gold answer, from a JSONL file.

use std::collections::HashMap;
use std::path::Path;

/// Largest answer key read, in bytes (checked on the bytes read).
pub const MAX_ANSWER_KEY_BYTES: u64 = 512 << 20;

use serde::Deserialize;

use super::ModelError;

/// Maps question texts to gold answers so [`SimulatedModel`](super::SimulatedModel) can answer
/// QA prompts with a chosen accuracy.
///
/// File format: one JSON object per line with a `question` field and the gold answer in
/// `answer` (or `gold`), and for a multiple-choice question optionally its `choices` (a list;
/// only their number is used); blank lines are skipped. Questions are matched after collapsing
/// whitespace: first the whole user message, then the longest key question contained in it
/// (prompts usually wrap the question in instructions).
///
/// A multiple-choice question (gold = one capital letter) knows how many options it has, so
/// the simulated model's wrong answers are other letters that exist: given with
/// [`AnswerKey::insert_choice`] or the file's `choices`, else counted from the `(A)`, `(B)`, …
/// (or `A)`, `B)`, …) labels in the question text.
#[derive(Debug, Clone, Default)]
pub struct AnswerKey {
    exact: HashMap<String, Entry>,
    /// Normalized questions, longest first, for containment matching.
    by_length: Vec<String>,
}

#[derive(Debug, Clone)]
struct Entry {
    gold: String,
    options: Option<usize>,
}

/// A question found in a text by [`AnswerKey::lookup_entry`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyMatch<'a> {
    /// The matched question, whitespace-normalized.
    pub question: &'a str,
    /// Its gold answer.
    pub gold: &'a str,
    /// The number of options of a multiple-choice question (letters `A`… in order).
    pub options: Option<usize>,
}

#[derive(Deserialize)]
struct Line {
    question: String,
    #[serde(default)]
    answer: Option<serde_json::Value>,
    #[serde(default)]
    gold: Option<serde_json::Value>,
    #[serde(default)]
    choices: Option<Vec<serde_json::Value>>,
}

impl AnswerKey {
    /// An empty key (every prompt gets the generic reply).
    pub fn new() -> Self {
        Self::default()
    }

    /// Loads a JSONL answer key; errors name the file and line.
    pub fn load(path: &Path) -> Result<Self, ModelError> {
        let text = colony_env_api::bounded::read_string(path, MAX_ANSWER_KEY_BYTES)
            .map_err(|e| ModelError::Config(format!("answer key {e}")))?;
        let mut key = Self::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let where_ = || format!("{}:{}", path.display(), i + 1);
            let parsed: Line = serde_json::from_str(line)
                .map_err(|e| ModelError::Config(format!("answer key {}: {e}", where_())))?;
            let answer = parsed.answer.or(parsed.gold).ok_or_else(|| {
                ModelError::Config(format!(
                    "answer key {}: missing field `answer` (or `gold`)",
                    where_()
                ))
            })?;
            let answer = match answer {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            match parsed.choices {
                Some(c) => key.insert_choice(&parsed.question, answer, c.len()),
                None => key.insert(&parsed.question, answer),
            }
        }
        Ok(key)
    }

    /// Adds one question and its gold answer. A gold letter's option count is read from the
    /// question's option labels (see the type docs).
    pub fn insert(&mut self, question: &str, answer: impl Into<String>) {
        let q = normalize(question);
        let gold = answer.into();
        let options = letter_index(&gold).and_then(|_| labelled_options(&q));
        self.insert_entry(q, Entry { gold, options });
    }

    /// Adds a multiple-choice question: its gold letter and how many options (`A`, `B`, …)
    /// it has.
    pub fn insert_choice(&mut self, question: &str, answer: impl Into<String>, options: usize) {
        let entry = Entry {
            gold: answer.into(),
            options: Some(options),
        };
        self.insert_entry(normalize(question), entry);
    }

    fn insert_entry(&mut self, q: String, entry: Entry) {
        if q.is_empty() {
            return;
        }
        if self.exact.insert(q.clone(), entry).is_none() {
            let pos = self.by_length.partition_point(|k| k.len() >= q.len());
            self.by_length.insert(pos, q);
        }
    }

    /// Number of questions.
    pub fn len(&self) -> usize {
        self.exact.len()
    }

    /// True when the key has no questions.
    pub fn is_empty(&self) -> bool {
        self.exact.is_empty()
    }

    /// The gold answer of the question `text` is or contains, if any.
    pub fn lookup(&self, text: &str) -> Option<&str> {
        self.lookup_question(text).map(|(_, gold)| gold)
    }

    /// The matched question (whitespace-normalized) and its gold answer.
    pub fn lookup_question(&self, text: &str) -> Option<(&str, &str)> {
        self.lookup_entry(text).map(|m| (m.question, m.gold))
    }

    /// The question `text` is or contains, with its gold answer and option count.
    pub fn lookup_entry(&self, text: &str) -> Option<KeyMatch<'_>> {
        let t = normalize(text);
        let (q, e) = match self.exact.get_key_value(&t) {
            Some(found) => found,
            None => {
                let q = self.by_length.iter().find(|q| t.contains(q.as_str()))?;
                (q, self.exact.get(q)?)
            }
        };
        Some(KeyMatch {
            question: q,
            gold: &e.gold,
            options: e.options,
        })
    }
}

/// Collapses runs of whitespace to one space and trims, the form questions are matched in.
pub(crate) fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The 0-based index of a gold answer that is one capital letter.
fn letter_index(gold: &str) -> Option<usize> {
    let mut chars = gold.trim().chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_uppercase() => Some(usize::from(c as u8 - b'A')),
        _ => None,
    }
}

/// The number of options labelled `(A)`, `(B)`, … (or ` A)`, ` B)`, … as AQUA-RAT writes
/// them) in a normalized question, counting letters in order until one is missing; at least
/// two, else `None`.
fn labelled_options(question: &str) -> Option<usize> {
    let n = ('A'..='Z')
        .take_while(|l| {
            question.contains(&format!("({l})")) || question.contains(&format!(" {l})"))
        })
        .count();
    (n >= 2).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn loads_and_matches_contained_questions() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(f, r#"{{"question": "What is 2 + 3?", "answer": "5"}}"#).unwrap();
        writeln!(f).unwrap();
        writeln!(
            f,
            r#"{{"question": "How many legs has a spider?", "gold": 8}}"#
        )
        .unwrap();
        let key = AnswerKey::load(f.path()).unwrap();
        assert_eq!(key.len(), 2);
        assert_eq!(key.lookup("What is  2 + 3?"), Some("5"));
        assert_eq!(
            key.lookup("Solve:\nHow many legs has a spider?\nEnd with ..."),
            Some("8")
        );
        assert_eq!(key.lookup("unrelated"), None);
    }

    #[test]
    fn choice_questions_know_their_option_count() {
        let mut key = AnswerKey::new();
        key.insert("Pick one:\n(A) x\n(B) y\n(C) z", "B");
        key.insert("AQUA style: A)1 B)2 C)3 D)4 E)5", "E");
        key.insert("No labels here", "B");
        key.insert_choice("Given count", "A", 4);
        key.insert("How many?", "7");
        let opts = |t: &str| key.lookup_entry(t).unwrap().options;
        assert_eq!(opts("Pick one: (A) x (B) y (C) z"), Some(3));
        assert_eq!(opts("AQUA style: A)1 B)2 C)3 D)4 E)5"), Some(5));
        assert_eq!(opts("No labels here"), None);
        assert_eq!(opts("Given count"), Some(4));
        assert_eq!(opts("How many?"), None);

        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(
            f,
            r#"{{"question": "q", "answer": "C", "choices": ["1", "2", "3", "4", "5"]}}"#
        )
        .unwrap();
        let key = AnswerKey::load(f.path()).unwrap();
        assert_eq!(key.lookup_entry("q").unwrap().options, Some(5));
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(f, r#"{{"question": "q1", "answer": "1"}}"#).unwrap();
        writeln!(f, r#"{{"question": "q2"}}"#).unwrap();
        let err = AnswerKey::load(f.path()).unwrap_err().to_string();
        assert!(err.contains(":2: missing field `answer`"), "{err}");
        let err = AnswerKey::load(Path::new("/nonexistent/key.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("/nonexistent/key.jsonl"), "{err}");
    }
}
