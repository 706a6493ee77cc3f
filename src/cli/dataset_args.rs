//! Flags that pick a reasoning dataset and the items to use, shared by `grade` and
//! `datasets show` (and later `eval`).

use std::path::PathBuf;

use crate::registry::{DatasetEntry, Registry};
use crate::suite::plan::{load_all, select_items};
use crate::suite::spec::DatasetUnit;
use clap::{Args, ValueEnum};
use colony_qa::Item;

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
    /// In a directory (a Hub dataset's `data/` shards, or a `datasets` `save_to_disk`
    /// directory), read only this split: the files under `NAME/` or named `NAME-…`/`NAME.…`.
    #[arg(long, value_name = "NAME")]
    pub split: Option<String>,
}

impl DatasetArgs {
    /// The registered dataset `--dataset` names. A name longer than any dataset's is cut first
    /// (and then unknown), so the error never echoes a huge value whole.
    pub fn dataset<'r>(&self, registry: &'r Registry) -> anyhow::Result<&'r DatasetEntry> {
        Ok(registry.find_dataset(&colony_env_api::clip(&self.dataset))?)
    }

    /// These flags as a suite's dataset entry (one loading path for every command).
    pub fn unit(&self, registry: &Registry) -> anyhow::Result<DatasetUnit> {
        let dataset = self.dataset(registry)?;
        Ok(DatasetUnit {
            label: dataset.name.clone(),
            dataset: dataset.name.clone(),
            data: self.data.clone(),
            maslab: self.subset == Some(Subset::Maslab),
            sample: self.sample.map(|n| (n, self.seed)),
            offset: self.offset,
            limit: self.limit,
            strict: self.strict,
            gpqa_correct_first: self.gpqa_correct_first,
            fields: self.fields.clone(),
            split: self.split.clone(),
            policies: Vec::new(),
        })
    }

    /// Loads every item of the file; skipped rows are reported on stderr.
    pub fn load_all(&self, registry: &Registry) -> anyhow::Result<Vec<Item>> {
        let mut notes = Vec::new();
        let items = load_all(registry, &self.unit(registry)?, &mut notes);
        for n in &notes {
            eprintln!("{n}");
        }
        Ok(items?)
    }

    /// Applies the selection flags: subset, then sample, offset, limit.
    pub fn apply(&self, registry: &Registry, items: Vec<Item>) -> anyhow::Result<Vec<Item>> {
        Ok(select_items(&self.unit(registry)?, items))
    }

    /// Loads the file and applies the selection.
    pub fn load_selected(&self, registry: &Registry) -> anyhow::Result<Vec<Item>> {
        self.apply(registry, self.load_all(registry)?)
    }
}
