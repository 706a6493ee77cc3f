//! Reasoning and QA datasets for colony: loaders in each dataset's published format, the
//! prompt layouts, answer extraction from free-form model output, and grading.
//!
//! docs/design/grading.md §4. Synchronous and deterministic, no LLM: the reasoning policies in
//! the `colony` crate call [`Item::prompt`] to ask and [`grade`] to score.
//!
//! - [`Dataset`]: the supported datasets (eight reasoning sets and HumanEval) and how each is
//!   published.
//! - [`Item`]: one question with its gold answer and [`AnswerType`].
//! - [`load`]: read a local file in its published format (JSONL, CSV, Parquet) into items;
//!   [`Selection`] picks `--limit/--offset/--sample/--subset maslab`; a [`FieldMap`] reads
//!   any file whose columns are named differently.
//! - [`extract`] / [`grade`]: the rule-based judge (named, composable filters).

mod dataset;
pub mod field_map;
pub mod grade;
mod item;
mod load;
mod prompt;
mod select;

pub use dataset::{AnswerFamily, Dataset, UnknownName};
pub use field_map::{Field, FieldMap, FieldMapError};
pub use grade::{equivalent, extract, grade, Extraction, JudgeOptions, Source, Verdict};
pub use item::{AnswerType, Item};
pub use load::{
    gpqa_order, load, Format, LoadError, LoadOptions, Loaded, Location, RowError, CODE_TESTS_HEADER,
};
pub use prompt::{
    template_for, template_hash, CHOICE_TEMPLATE, CODE_TASK_TEMPLATE, CODE_TEMPLATE, MATH_TEMPLATE,
};
pub use select::{maslab_subset, seeded_sample, select, Selection, MASLAB_SEED, MASLAB_SIZE};
