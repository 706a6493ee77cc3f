//! Flags that pick a reasoning dataset and the items to use, shared by `grade` and
//! `datasets show` (and later `eval`).

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};
use colony_qa::{load, select, Dataset, FieldMap, Item, LoadOptions, Selection};

/// Named evaluation subsets.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subset {
    /// MASLab's protocol (followed by SelfOrg): seed-2024 shuffle, first 500, de-duplicated.
    Maslab,
}

/// Dataset, file and item selection.
#[derive(Args, Debug, Clone)]
pub struct DatasetArgs {
    /// Dataset name (see `colony datasets`).
    #[arg(long)]
    pub dataset: String,
    /// The dataset file (or directory), in its published format.
    #[arg(long, value_name = "FILE")]
    pub data: PathBuf,
    /// Fail on the first malformed row (default: skip it with a warning naming file and line).
    #[arg(long)]
    pub strict: bool,
    /// Read an item field from columns of the file instead of the dataset's published layout
    /// (repeatable): `question=COL`, `choices=A,B,C,D` (one column per option, or one list
    /// column), `answer=COL` (a letter, an option's text or a 0-based index), `id=COL`,
    /// `subject=COL`. Fields not given use the column of their own name.
    #[arg(long = "field", value_name = "FIELD=COL")]
    pub fields: Vec<String>,
    /// GPQA: keep the correct answer as (A), MASLab's layout, instead of the seeded shuffle.
    #[arg(long)]
    pub gpqa_correct_first: bool,
    /// Use a named evaluation subset (applied first).
    #[arg(long, value_enum)]
    pub subset: Option<Subset>,
    /// Keep a seeded sample of N items (the same items on every run for a given --seed).
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Seed of --sample.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Skip the first K selected items.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub offset: usize,
    /// Keep at most N items (after the offset).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

impl DatasetArgs {
    /// The dataset. A name longer than any dataset's is cut first (and then unknown), so the
    /// error never echoes a huge value whole.
    pub fn dataset(&self) -> anyhow::Result<Dataset> {
        Ok(colony_env_api::clip(&self.dataset).parse()?)
    }

    /// The field map of the `--field` flags (none without them).
    pub fn field_map(&self) -> anyhow::Result<Option<FieldMap>> {
        if self.fields.is_empty() {
            return Ok(None);
        }
        let map = FieldMap::from_specs(&self.fields).context("--field")?;
        map.check(self.dataset()?).context("--field")?;
        Ok(Some(map))
    }

    /// Loads every item of the file; skipped rows are reported on stderr.
    pub fn load_all(&self) -> anyhow::Result<Vec<Item>> {
        let opts = LoadOptions {
            strict: self.strict,
            gpqa_correct_first: self.gpqa_correct_first,
            fields: self.field_map()?,
            ..LoadOptions::default()
        };
        let loaded = load(self.dataset()?, &self.data, &opts)?;
        for e in &loaded.header_rows {
            eprintln!("note: skipped {e}");
        }
        for e in &loaded.skipped {
            eprintln!("warning: skipped {e}");
        }
        if !loaded.skipped.is_empty() && self.subset.is_some() {
            eprintln!(
                "warning: {} skipped row(s) change the subset; fix them or use --strict for a comparable subset",
                loaded.skipped.len()
            );
        }
        Ok(loaded.items)
    }

    /// Applies the selection flags: subset, then sample, offset, limit.
    pub fn apply(&self, items: Vec<Item>) -> Vec<Item> {
        let selection = Selection {
            offset: self.offset,
            limit: self.limit,
            sample: self.sample.map(|n| (n, self.seed)),
            maslab: self.subset == Some(Subset::Maslab),
        };
        select(items, &selection)
    }

    /// Loads the file and applies the selection.
    pub fn load_selected(&self) -> anyhow::Result<Vec<Item>> {
        Ok(self.apply(self.load_all()?))
    }
}
