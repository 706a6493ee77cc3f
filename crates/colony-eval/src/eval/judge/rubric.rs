//! The `rubric` grader (docs/design/grading.md §7.3): named criteria with weights, read from a
//! TOML file; the judge scores each criterion from 0 to the rubric's `scale`, and the item's
//! score is the weighted mean of the criteria scores divided by the scale (0 to 1). An item
//! counts as correct when its score reaches the rubric's `pass` (so rubric grades have an
//! accuracy and a κ against the rules like every other grader).
//!
//! File layout (`rubrics/deepresearch.toml` ships DeepResearch's four criteria):
//!
//! ```toml
//! name = "deepresearch"
//! scale = 10        # criteria are scored 0..=scale (default 10)
//! pass = 0.6        # a weighted score ≥ pass is correct (default 0.5)
//! reference = true  # show the gold answer to the judge (default true)
//! [[criterion]]
//! name = "comprehensiveness"
//! weight = 0.25
//! description = "covers every part of the task"
//! ```
//!
//! Decision: a reply must score every criterion (a `name: number` line each, the number
//! within the scale); a reply that misses one is unreadable and is asked once more, like an
//! unreadable equivalence verdict.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use colony_policy::reasoning::{prompts, PolicyError};
use serde::Deserialize;
use thiserror::Error;

/// `prompts/judge/rubric.jinja`.
pub const RUBRIC: &str = include_str!("../../../../../prompts/judge/rubric.jinja");

/// The largest rubric file read (a rubric is a few criteria).
pub const MAX_RUBRIC_BYTES: u64 = 64 * 1024;
/// The most criteria a rubric may have.
pub const MAX_CRITERIA: usize = 32;

/// Why a rubric file was refused.
#[derive(Debug, Error)]
pub enum RubricError {
    /// The file could not be read.
    #[error("rubric {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_RUBRIC_BYTES`].
    #[error("rubric {path}: {bytes} bytes, more than the {max} a rubric may have")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// The TOML does not parse or has unknown keys.
    #[error("rubric {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message (it names the line).
        message: String,
    },
    /// A field has a value outside its range.
    #[error("rubric {path}: {field}: {message}")]
    Field {
        /// The file.
        path: PathBuf,
        /// The field (`criterion[2].weight`).
        field: String,
        /// What is wrong.
        message: String,
    },
}

/// One criterion of a rubric.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Criterion {
    /// Its name: a word the judge repeats (`comprehensiveness`).
    pub name: String,
    /// Its weight (positive; weights need not sum to 1).
    pub weight: f64,
    /// What it asks for, shown to the judge.
    #[serde(default)]
    pub description: String,
}

/// A rubric: named, weighted criteria and the pass mark.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rubric {
    /// Its name (recorded with every grade).
    pub name: String,
    /// One line on what it grades.
    #[serde(default)]
    pub description: String,
    /// Criteria are scored from 0 to this.
    #[serde(default = "default_scale")]
    pub scale: u32,
    /// The weighted score (0 to 1) at which an item counts as correct.
    #[serde(default = "default_pass")]
    pub pass: f64,
    /// Whether the judge sees the gold answer as a reference.
    #[serde(default = "default_reference")]
    pub reference: bool,
    /// The criteria, in the order the judge scores them.
    #[serde(rename = "criterion")]
    pub criteria: Vec<Criterion>,
}

fn default_scale() -> u32 {
    10
}
fn default_pass() -> f64 {
    0.5
}
fn default_reference() -> bool {
    true
}

/// The scores of one rubric reply.
#[derive(Debug, Clone, PartialEq)]
pub struct RubricScore {
    /// Per criterion, its score on the rubric's scale.
    pub criteria: BTreeMap<String, f64>,
    /// The weighted mean divided by the scale: 0 to 1.
    pub total: f64,
}

impl Rubric {
    /// Reads and checks a rubric file (size-bounded).
    pub fn load(path: &Path) -> Result<Self, RubricError> {
        let io = |source| RubricError::Io {
            path: path.to_path_buf(),
            source,
        };
        let bytes = std::fs::metadata(path).map_err(io)?.len();
        if bytes > MAX_RUBRIC_BYTES {
            return Err(RubricError::TooLarge {
                path: path.to_path_buf(),
                bytes,
                max: MAX_RUBRIC_BYTES,
            });
        }
        let text = std::fs::read_to_string(path).map_err(io)?;
        Self::parse(&text, path)
    }

    /// Parses and checks rubric TOML; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, RubricError> {
        let rubric: Self = toml::from_str(text).map_err(|e| RubricError::Parse {
            path: path.to_path_buf(),
            message: e.message().to_string()
                + &e.span()
                    .map(|s| format!(" (line {})", text[..s.start].lines().count().max(1)))
                    .unwrap_or_default(),
        })?;
        rubric.check(path)?;
        Ok(rubric)
    }

    fn check(&self, path: &Path) -> Result<(), RubricError> {
        let field = |field: String, message: &str| RubricError::Field {
            path: path.to_path_buf(),
            field,
            message: message.to_string(),
        };
        if self.criteria.is_empty() || self.criteria.len() > MAX_CRITERIA {
            return Err(field(
                "criterion".into(),
                &format!("a rubric needs 1 to {MAX_CRITERIA} [[criterion]] tables"),
            ));
        }
        if !(1..=1000).contains(&self.scale) {
            return Err(field("scale".into(), "must be 1 to 1000"));
        }
        if !(0.0..=1.0).contains(&self.pass) {
            return Err(field("pass".into(), "must be between 0 and 1"));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, c) in self.criteria.iter().enumerate() {
            let ok_name = !c.name.is_empty()
                && c.name.len() <= 64
                && c.name
                    .chars()
                    .all(|ch| ch.is_alphanumeric() || matches!(ch, '_' | '-'));
            if !ok_name {
                return Err(field(
                    format!("criterion[{i}].name"),
                    "must be 1 to 64 letters, digits, `_` or `-`",
                ));
            }
            if !seen.insert(c.name.to_lowercase()) {
                return Err(field(format!("criterion[{i}].name"), "is given twice"));
            }
            if !(c.weight.is_finite() && c.weight > 0.0) {
                return Err(field(
                    format!("criterion[{i}].weight"),
                    "must be a positive number",
                ));
            }
        }
        Ok(())
    }

    /// The rubric prompt for one item (the reference only when the rubric shows it).
    pub fn prompt(
        &self,
        question: &str,
        reference: &str,
        response: &str,
    ) -> Result<String, PolicyError> {
        prompts::render(
            RUBRIC,
            serde_json::json!({
                "question": question,
                "reference": if self.reference { reference } else { "" },
                "response": response,
                "criteria": self.criteria,
                "scale": self.scale,
            }),
        )
    }

    /// The reply format the prompt asks for (quoted again when a reply is re-asked).
    pub fn format(&self) -> String {
        self.criteria
            .iter()
            .map(|c| format!("{}: <0 to {}>", c.name, self.scale))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The scores of a reply, or `None` when some criterion has no readable score.
    pub fn parse_scores(&self, reply: &str) -> Option<RubricScore> {
        let mut criteria = BTreeMap::new();
        for c in &self.criteria {
            let key = c.name.to_lowercase();
            let score = reply.lines().rev().find_map(|line| {
                let clean: String = line
                    .chars()
                    .filter(|ch| !matches!(ch, '*' | '`' | '#'))
                    .collect();
                let clean = clean.trim().trim_start_matches(['-', ' ']);
                let (name, value) = clean.split_once(':')?;
                if name.trim().to_lowercase() != key {
                    return None;
                }
                let number: String = value
                    .trim()
                    .chars()
                    .take_while(|ch| ch.is_ascii_digit() || *ch == '.')
                    .collect();
                number.parse::<f64>().ok()
            })?;
            if !(0.0..=f64::from(self.scale)).contains(&score) {
                return None;
            }
            criteria.insert(c.name.clone(), score);
        }
        let weights: f64 = self.criteria.iter().map(|c| c.weight).sum();
        let weighted: f64 = self
            .criteria
            .iter()
            .map(|c| c.weight * criteria.get(&c.name).copied().unwrap_or(0.0))
            .sum();
        let total = weighted / weights / f64::from(self.scale);
        Some(RubricScore { criteria, total })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    const TWO: &str = "name = \"t\"\npass = 0.5\n[[criterion]]\nname = \"a\"\nweight = 3\n\
                       [[criterion]]\nname = \"b\"\nweight = 1\n";

    #[test]
    fn the_shipped_deepresearch_rubric_loads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rubrics/deepresearch.toml");
        let r = Rubric::load(&path).unwrap();
        assert_eq!(r.criteria.len(), 4);
        assert_eq!(r.scale, 10);
    }

    #[test]
    fn scores_are_weighted_and_scaled() {
        let r = Rubric::parse(TWO, Path::new("t.toml")).unwrap();
        let s = r.parse_scores("**a**: 10\n- b: 2 (weak)").unwrap();
        assert!((s.total - (3.0 * 10.0 + 2.0) / 4.0 / 10.0).abs() < 1e-12);
        assert_eq!(s.criteria["b"], 2.0);
        // A missing criterion or a score past the scale is unreadable.
        assert_eq!(r.parse_scores("a: 10"), None);
        assert_eq!(r.parse_scores("a: 11\nb: 1"), None);
    }

    #[test]
    fn bad_rubrics_name_the_field() {
        let e = Rubric::parse(
            &TWO.replace("weight = 1", "weight = -1"),
            Path::new("r.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("r.toml") && e.contains("criterion[1].weight"),
            "{e}"
        );
        let e = Rubric::parse("name = \"x\"\ncriterion = []", Path::new("r.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("criterion"), "{e}");
        let e = Rubric::parse("name = \"x\"\nbogus = 1\n", Path::new("r.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("bogus") && e.contains("line"), "{e}");
        let e = Rubric::parse(&TWO.replace("\"b\"", "\"A\""), Path::new("r.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("twice"), "{e}");
    }
}
