//! A suite expanded into work: one unit per (model, dataset or environment), each unit's work
//! items with their stable keys (what shards split and what `colony merge` checks).
//!
//! Output layout (a contract for scripts and the viewer): `OUT/manifest.json`,
//! `OUT/plan.json` (the keys this process owns), `OUT/summary.json`, `OUT/results.md`, and one
//! directory per unit, `OUT/<model>/<unit label>/`, which is exactly a `colony eval` (dataset)
//! or `colony compare` (environment) directory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use colony_qa::{select, FieldMap, Item, LoadOptions, Selection};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::shard::Shard;
use super::spec::{DatasetUnit, EnvUnit, Suite};
use crate::eval::embodied::compare::configuration_seeds;
use crate::eval::embodied::compare_config::EpisodeKey;
use crate::eval::embodied::grid::{configurations, parse_axes};
use colony_policy::registry::Registry;

/// A dataset could not be loaded, or an environment grid not expanded.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The dataset file could not be read.
    #[error("dataset {label} ({path}): {message}")]
    Dataset {
        /// The unit.
        label: String,
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// No item was selected.
    #[error("dataset {label} ({path}): no items selected")]
    Empty {
        /// The unit.
        label: String,
        /// The file.
        path: PathBuf,
    },
    /// The grid did not expand.
    #[error("environment {label}: {message}")]
    Grid {
        /// The unit.
        label: String,
        /// Why.
        message: String,
    },
}

/// A dataset entry of a suite with its selected items.
pub type DatasetEntry = (DatasetUnit, Vec<Item>);

/// What a unit runs.
#[derive(Debug, Clone)]
pub enum UnitWork {
    /// The datasets sharing one results directory, each with its selected items.
    Datasets {
        /// The directory's label.
        label: String,
        /// The suite's entries with their selected items, in file order.
        entries: Vec<DatasetEntry>,
    },
    /// An environment: its grid configurations (one empty label without a grid).
    Env {
        /// The suite's entry.
        unit: EnvUnit,
        /// Configuration labels, each with the seeds it plays.
        configs: Vec<(String, Vec<u64>)>,
    },
}

/// One results directory of a suite: a model's datasets of one label, or one environment.
#[derive(Debug, Clone)]
pub struct PlannedUnit {
    /// Model name (the first path component).
    pub model: String,
    /// What runs.
    pub work: UnitWork,
}

impl PlannedUnit {
    /// The unit's label (its directory under the model's).
    pub fn label(&self) -> &str {
        match &self.work {
            UnitWork::Datasets { label, .. } => label,
            UnitWork::Env { unit, .. } => &unit.label,
        }
    }

    /// `model/label`, the unit's directory relative to the run's.
    pub fn rel_dir(&self) -> PathBuf {
        super::run::unit_dir(&self.model, self.label())
    }

    /// Every work item's key, in plan order: `model/label/dataset/policy/item` for datasets,
    /// `model/label/configuration/policy/seed` for environments.
    pub fn keys(&self) -> Vec<String> {
        let prefix = format!("{}/{}", self.model, self.label());
        let prefix = prefix.as_str();
        match &self.work {
            UnitWork::Datasets { entries, .. } => entries
                .iter()
                .flat_map(|(d, items)| {
                    result_names(d).into_iter().flat_map(move |p| {
                        items
                            .iter()
                            .map(move |i| format!("{prefix}/{}/{p}/{}", d.dataset, i.id))
                    })
                })
                .collect(),
            UnitWork::Env { unit, configs } => configs
                .iter()
                .flat_map(|(c, seeds)| {
                    unit.policies.iter().flat_map(move |p| {
                        seeds.iter().map(move |s| format!("{prefix}/{c}/{p}/{s}"))
                    })
                })
                .collect(),
        }
    }

    /// For one dataset entry of this unit, per policy result name, the item ids `shard`
    /// owns.
    pub fn owned_items(
        &self,
        (d, items): (&DatasetUnit, &[Item]),
        shard: Shard,
    ) -> BTreeMap<String, BTreeSet<String>> {
        let mut out = BTreeMap::new();
        for p in result_names(d) {
            let ids = items
                .iter()
                .filter(|i| {
                    shard.owns(&format!(
                        "{}/{}/{}/{p}/{}",
                        self.model,
                        self.label(),
                        d.dataset,
                        i.id
                    ))
                })
                .map(|i| i.id.clone())
                .collect();
            out.insert(p, ids);
        }
        out
    }

    /// The episodes `shard` owns (environments).
    pub fn owned_episodes(&self, shard: Shard) -> BTreeSet<EpisodeKey> {
        let mut out = BTreeSet::new();
        if let UnitWork::Env { unit, configs } = &self.work {
            for (c, seeds) in configs {
                for p in &unit.policies {
                    for &s in seeds {
                        let key = format!("{}/{}/{c}/{p}/{s}", self.model, unit.label);
                        if shard.owns(&key) {
                            out.insert((c.clone(), p.clone(), s));
                        }
                    }
                }
            }
        }
        out
    }
}

/// The labels of a dataset unit's policies: what its results files and work keys are named
/// by.
pub fn result_names(unit: &DatasetUnit) -> Vec<String> {
    unit.policies.iter().map(|p| p.label.clone()).collect()
}

/// The keys a process owns, written to `plan.json` so `colony merge` can tell finished from
/// missing work without reloading datasets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanFile {
    /// The shard, when sharded.
    pub shard: Option<Shard>,
    /// Keys owned by this process, in plan order.
    pub keys: Vec<String>,
}

/// Loads every item of a dataset unit's file (before selection); skipped malformed rows and
/// stray header rows are reported in `notes`. `colony eval`, `grade` and suites share it.
pub fn load_all(
    registry: &Registry,
    unit: &DatasetUnit,
    notes: &mut Vec<String>,
) -> Result<Vec<Item>, PlanError> {
    let err = |message: String| PlanError::Dataset {
        label: unit.label.clone(),
        path: unit.data.clone(),
        message,
    };
    let dataset = registry
        .find_dataset(&unit.dataset)
        .map_err(|e| err(format!("{e}")))?;
    let fields = if unit.fields.is_empty() {
        None
    } else {
        let map = FieldMap::from_specs(&unit.fields).map_err(|e| err(format!("--field: {e}")))?;
        Some(map)
    };
    let opts = LoadOptions {
        strict: unit.strict,
        gpqa_correct_first: unit.gpqa_correct_first,
        fields,
        split: unit.split.clone(),
        ..LoadOptions::default()
    };
    // The loader checks the field map against its dataset (choices only for multiple choice).
    let loaded = dataset.load(&unit.data, &opts).map_err(|e| match e {
        colony_qa::LoadError::FieldMap(e) => err(format!("--field: {e}")),
        e => err(e.to_string()),
    })?;
    for e in &loaded.header_rows {
        notes.push(format!("note: skipped {e}"));
    }
    for e in &loaded.skipped {
        notes.push(format!("warning: skipped {e}"));
    }
    if !loaded.skipped.is_empty() && unit.maslab {
        notes.push(format!(
            "warning: {} skipped row(s) change the subset; fix them or use strict mode for a comparable subset",
            loaded.skipped.len()
        ));
    }
    Ok(loaded.items)
}

/// Applies a unit's selection: the MASLab subset, then sample, offset, limit.
pub fn select_items(unit: &DatasetUnit, items: Vec<Item>) -> Vec<Item> {
    select(
        items,
        &Selection {
            offset: unit.offset,
            limit: unit.limit,
            sample: unit.sample,
            maslab: unit.maslab,
        },
    )
}

/// Loads a dataset unit's selected items; none selected is an error.
pub fn load_items(
    registry: &Registry,
    unit: &DatasetUnit,
    notes: &mut Vec<String>,
) -> Result<Vec<Item>, PlanError> {
    let items = select_items(unit, load_all(registry, unit, notes)?);
    if items.is_empty() {
        return Err(PlanError::Empty {
            label: unit.label.clone(),
            path: unit.data.clone(),
        });
    }
    Ok(items)
}

/// The grid configurations of an environment unit (one empty label without a grid), each
/// with the seeds it plays ([`configuration_seeds`]).
pub fn env_configs(
    registry: &Registry,
    unit: &EnvUnit,
) -> Result<Vec<(String, Vec<u64>)>, PlanError> {
    let err = |message: String| PlanError::Grid {
        label: unit.label.clone(),
        message,
    };
    let entry = registry
        .environment_entry(&unit.env)
        .map_err(|e| err(e.to_string()))?;
    let axes = parse_axes(entry, &unit.grid).map_err(|e| err(e.to_string()))?;
    let configs = if axes.is_empty() {
        vec![(String::new(), unit.set.clone())]
    } else {
        configurations(&unit.set, &axes).map_err(|e| err(e.to_string()))?
    };
    let seeds = if unit.level_seeds {
        1
    } else {
        unit.seeds.len()
    };
    crate::eval::embodied::compare_config::check_episode_count(
        configs.len(),
        unit.policies.len(),
        seeds,
    )
    .map_err(|e| err(e.to_string()))?;
    configs
        .into_iter()
        .map(|(label, set)| {
            let seeds = configuration_seeds(entry, &set, &unit.seeds, unit.level_seeds)
                .map_err(|e| err(e.to_string()))?;
            Ok((label, seeds))
        })
        .collect()
}

/// Expands a suite for these model names: models outermost, then datasets, then
/// environments, in file order.
pub fn expand(
    registry: &Registry,
    suite: &Suite,
    models: &[String],
    notes: &mut Vec<String>,
) -> Result<Vec<PlannedUnit>, PlanError> {
    let mut items = Vec::new();
    for d in &suite.datasets {
        items.push(load_items(registry, d, notes)?);
    }
    let mut configs = Vec::new();
    for e in &suite.environments {
        configs.push(env_configs(registry, e)?);
    }
    // Datasets grouped by label, groups in order of first appearance.
    let mut groups: Vec<(String, Vec<DatasetEntry>)> = Vec::new();
    for (d, its) in suite.datasets.iter().zip(items) {
        match groups.iter_mut().find(|(l, _)| *l == d.label) {
            Some((_, entries)) => entries.push((d.clone(), its)),
            None => groups.push((d.label.clone(), vec![(d.clone(), its)])),
        }
    }
    let mut units = Vec::new();
    for m in models {
        for (label, entries) in &groups {
            units.push(PlannedUnit {
                model: m.clone(),
                work: UnitWork::Datasets {
                    label: label.clone(),
                    entries: entries.clone(),
                },
            });
        }
        for (e, cs) in suite.environments.iter().zip(&configs) {
            units.push(PlannedUnit {
                model: m.clone(),
                work: UnitWork::Env {
                    unit: e.clone(),
                    configs: cs.clone(),
                },
            });
        }
    }
    Ok(units)
}
