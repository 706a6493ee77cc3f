//! The supported datasets, file formats, load options and load errors, and [`load`].
//!
//! A dataset is chosen by name ([`Dataset::from_str`](std::str::FromStr)) and read from a local
//! file (or a directory of files) in its published format (docs/design/grading.md §4.1–§4.2):
//! JSONL, JSON, CSV or Parquet, detected from the file extension unless
//! [`LoadOptions::format`] overrides it. Rows come out in published order, which the MASLab
//! subset of [`crate::select`] depends on. A malformed row is reported with its file and line
//! (or Parquet row) and either skipped ([`Loaded::skipped`]) or, with
//! [`LoadOptions::strict`], fails the load.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use thiserror::Error;

use crate::field_map::{FieldMap, FieldMapError};
use crate::item::Item;

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
}

impl AnswerFamily {
    /// Lower-case name: `numeric`, `integer`, `math_expr` or `choice`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Numeric => "numeric",
            Self::Integer => "integer",
            Self::MathExpr => "math_expr",
            Self::Choice => "choice",
        }
    }
}

impl fmt::Display for AnswerFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

const ALL: [Dataset; 8] = [
    Dataset::Gsm8k,
    Dataset::GsmHard,
    Dataset::Math,
    Dataset::AquaRat,
    Dataset::Mmlu,
    Dataset::MmluPro,
    Dataset::Gpqa,
    Dataset::Aime2024,
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
        }
    }

    /// How answers are compared.
    pub fn answer_family(self) -> AnswerFamily {
        match self {
            Self::Gsm8k | Self::GsmHard => AnswerFamily::Numeric,
            Self::Aime2024 => AnswerFamily::Integer,
            Self::Math => AnswerFamily::MathExpr,
            Self::AquaRat | Self::Mmlu | Self::MmluPro | Self::Gpqa => AnswerFamily::Choice,
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
            _ => ALL.iter().copied().find(|d| d.name() == norm),
        };
        found.ok_or_else(|| UnknownName {
            kind: "dataset",
            given: s.to_string(),
            valid: ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", "),
        })
    }
}

/// A dataset file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// One JSON object per line (`.jsonl`).
    Jsonl,
    /// A JSON document (`.json`): an array of objects, a single object, or JSON lines.
    Json,
    /// Comma-separated values (`.csv`), with a header row except MMLU's original files.
    Csv,
    /// Apache Parquet (`.parquet`), uncompressed or Snappy-compressed.
    Parquet,
}

impl Format {
    /// The lower-case name (`jsonl`, `json`, `csv`, `parquet`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::Json => "json",
            Self::Csv => "csv",
            Self::Parquet => "parquet",
        }
    }

    /// The format of a file from its extension (case-insensitive), if known.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "jsonl" | "ndjson" => Some(Self::Jsonl),
            "json" => Some(Self::Json),
            "csv" => Some(Self::Csv),
            "parquet" | "pq" => Some(Self::Parquet),
            _ => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = UnknownName;

    /// `jsonl` (or `ndjson`), `json`, `csv` or `parquet`, case-insensitive.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "jsonl" | "ndjson" => Ok(Self::Jsonl),
            "json" => Ok(Self::Json),
            "csv" => Ok(Self::Csv),
            "parquet" => Ok(Self::Parquet),
            _ => Err(UnknownName {
                kind: "format",
                given: s.to_string(),
                valid: "jsonl, json, csv, parquet".into(),
            }),
        }
    }
}

/// How to load a dataset file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Fail on the first malformed row instead of skipping it.
    pub strict: bool,
    /// Force a format instead of detecting it from the file extension.
    pub format: Option<Format>,
    /// GPQA: list the correct answer as (A), as MASLab does, instead of the seeded shuffle.
    pub gpqa_correct_first: bool,
    /// Read the item fields from these columns instead of the dataset's published layout
    /// (see [`FieldMap`]).
    pub fields: Option<FieldMap>,
}

/// Where a row is in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// A 1-based line number (JSONL, CSV: the line where the record starts).
    Line(usize),
    /// A 0-based row index (Parquet rows, elements of a JSON array).
    Row(usize),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Line(n) => write!(f, "line {n}"),
            Self::Row(n) => write!(f, "row {n}"),
        }
    }
}

/// A malformed row: its file, location, the offending field (if one) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}, {location}: {}{message}", path.display(), field.as_ref().map(|f| format!("field {f:?}: ")).unwrap_or_default())]
pub struct RowError {
    /// The file.
    pub path: PathBuf,
    /// The line or row in it.
    pub location: Location,
    /// The field at fault, if the problem is one field.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// Why a dataset could not be loaded. Every message names the file.
#[derive(Debug, Error)]
pub enum LoadError {
    /// The file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not UTF-8 text.
    #[error("{}, {location}: not valid UTF-8 text (datasets must be UTF-8; re-encode the file)", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Where the first invalid byte is.
        location: Location,
    },
    /// The format cannot be told from the file extension.
    #[error("{}: cannot tell the file format from its extension; expected .jsonl, .json, .csv or .parquet (or give the format explicitly)", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// The file as a whole is unreadable in its format (e.g. not a Parquet file).
    #[error("{}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A malformed row in strict mode.
    #[error(transparent)]
    Row(#[from] RowError),
    /// The field map does not fit the dataset.
    #[error(transparent)]
    FieldMap(#[from] FieldMapError),
    /// The file (or directory) holds no rows at all.
    #[error("{}: no rows found", path.display())]
    Empty {
        /// The file or directory.
        path: PathBuf,
    },
    /// Every row was malformed; the first error is shown.
    #[error("{}: none of the {count} rows could be read as {dataset}; first error: {first}", path.display())]
    NoValidRows {
        /// The file or directory.
        path: PathBuf,
        /// The dataset asked for.
        dataset: Dataset,
        /// How many rows were malformed.
        count: usize,
        /// The first row error.
        first: Box<RowError>,
    },
}

/// The items of a load and the rows skipped as malformed (always empty in strict mode).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Loaded {
    /// The items, in published row order.
    pub items: Vec<Item>,
    /// Rows that could not be read, in order. Any skipped row changes the MASLab subset
    /// (it shuffles the full list), so callers should report them.
    pub skipped: Vec<RowError>,
    /// Stray header rows found with a [`FieldMap`] (rows whose cells are the mapped column
    /// names), skipped in every mode; they are not data, so they never change a subset.
    pub header_rows: Vec<RowError>,
}

/// Loads `dataset` from `path` in published row order. `path` is a file, or a directory whose
/// data files (recursively, all of one format, e.g. original MATH's one-problem `.json` files
/// or MMLU's per-subject CSVs) are read in natural path order (`2.json` before `10.json`).
///
/// Fatal errors (unreadable file, non-UTF-8 text, unknown extension, not a Parquet file, no
/// rows, or no valid rows) are returned as `Err`; a malformed row is skipped and reported in
/// [`Loaded::skipped`], or returned as [`LoadError::Row`] when [`LoadOptions::strict`] is set.
pub fn load(dataset: Dataset, path: &Path, opts: &LoadOptions) -> Result<Loaded, LoadError> {
    if let Some(map) = &opts.fields {
        map.check(dataset)?;
    }
    let rows = crate::load::read_rows(dataset, path, opts.format, opts.fields.is_some())?;
    if rows.is_empty() {
        return Err(LoadError::Empty {
            path: path.to_path_buf(),
        });
    }
    let mut out = Loaded::default();
    for row in rows {
        if let (Ok(r), Some(map)) = (&row, &opts.fields) {
            if crate::load::is_header_row(r, map) {
                out.header_rows.push(r.error(
                    None,
                    "a stray header row (its cells are the mapped column names)",
                ));
                continue;
            }
        }
        match row.and_then(|r| crate::load::build_item(dataset, &r, opts)) {
            Ok(item) => out.items.push(item),
            Err(e) if opts.strict => return Err(LoadError::Row(e)),
            Err(e) => out.skipped.push(e),
        }
    }
    if out.items.is_empty() {
        let count = out.skipped.len();
        if let Some(first) = out.skipped.drain(..).next() {
            return Err(LoadError::NoValidRows {
                path: path.to_path_buf(),
                dataset,
                count,
                first: Box::new(first),
            });
        }
        if !out.header_rows.is_empty() {
            return Err(LoadError::Empty {
                path: path.to_path_buf(),
            });
        }
    }
    Ok(out)
}
