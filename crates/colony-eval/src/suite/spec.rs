//! The suite file (`evals/<suite>.toml`): parsing and validation into a resolved [`Suite`].
//!
//! The keys of the issue that introduced suites are a contract (`policies`, `models`,
//! `[[datasets]]` `name`/`data`/`limit`, `[[environments]]` `id`/`set`/`seeds`/`max_steps`);
//! the others are additions with the meaning of the command-line flag of the same name.
//! Every error names the file, the line and the key.
//!
//! Decisions where the issue is silent:
//! - Top-level `policies` apply to every dataset and environment; a `[[datasets]]` or
//!   `[[environments]]` table may give its own `policies` (reasoning and embodied policies are
//!   different sets, so a suite with both usually gives the environments their own).
//! - Relative paths (`data`, `roles`) are relative to the current directory, like the flags;
//!   when no such file exists, relative to the suite file's folder. Without `roles`, the
//!   SelfOrg role cards compiled into colony are used.
//! - `set` and `grid` values may be TOML numbers, strings or booleans (`grid` values also
//!   arrays); they become the `key=value` strings of `--set` / `--grid`.
//! - `models` defaults to `["sim"]`, the offline simulated model.
//! - A model's datasets share one results directory (`<model>/reasoning/`, or their
//!   `label`), as several datasets in one `colony eval` directory do: the table then has a
//!   column per dataset with AVG and AVG-R, the layout of the SelfOrg paper's Table 1.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;
use toml::Spanned;

use crate::eval::call_log::LogCalls;
use crate::eval::embodied::grid::parse_axis;
use colony_policy::env::parse_compare_seeds;
use colony_policy::reasoning::ReasoningContext;
use colony_policy::registry::Registry;
use colony_policy::PolicySpec;
use std::sync::Arc;

/// Largest suite file read, in bytes (a suite is a page of TOML).
pub const MAX_SUITE_BYTES: u64 = 1 << 20;

/// A suite file that cannot be used: the message names file, line and key.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SuiteError {
    /// The file could not be read (or is too large).
    #[error("{path}: {message}")]
    Read {
        /// The suite file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A key is missing, unknown, of the wrong type or has a bad value.
    #[error("{path}:{line}: {key}: {message}")]
    Invalid {
        /// The suite file.
        path: PathBuf,
        /// 1-based line of the offending key (or of the table holding it).
        line: usize,
        /// The key, as a dotted path (`datasets[1].limit`).
        key: String,
        /// What is wrong.
        message: String,
    },
}

/// A scalar TOML value of `set`/`grid`, or a list of them (grid axes).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum SetValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
    List(Vec<SetValue>),
}

impl SetValue {
    fn render(&self) -> String {
        match self {
            Self::Int(v) => v.to_string(),
            Self::Float(v) => v.to_string(),
            Self::Bool(v) => v.to_string(),
            Self::Text(v) => v.clone(),
            Self::List(v) => v.iter().map(Self::render).collect::<Vec<_>>().join(","),
        }
    }
}

/// `seeds = "0..4"`, `seeds = [1, 2]` or `seeds = 7`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum SeedsValue {
    Text(String),
    List(Vec<u64>),
    One(u64),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteFile {
    name: Option<String>,
    description: Option<String>,
    policies: Option<Spanned<Vec<String>>>,
    models: Option<Spanned<Vec<String>>>,
    seed: Option<u64>,
    agents: Option<usize>,
    rounds: Option<u32>,
    roles: Option<String>,
    embedder: Option<Spanned<String>>,
    items_in_flight: Option<usize>,
    episodes_in_flight: Option<usize>,
    sim_accuracy: Option<Spanned<f64>>,
    baseline: Option<Spanned<String>>,
    log_calls: Option<LogCalls>,
    max_tokens_total: Option<Spanned<u64>>,
    max_cost: Option<Spanned<f64>>,
    tools: Option<Spanned<Vec<String>>>,
    judge: Option<Spanned<String>>,
    grade: Option<crate::eval::judge::GradeMode>,
    judge_grader: Option<Spanned<String>>,
    judge_agreement: Option<Spanned<f64>>,
    train: Option<usize>,
    #[serde(default)]
    mcp: BTreeMap<String, colony_llm::McpServerTable>,
    #[serde(default)]
    datasets: Vec<Spanned<DatasetTable>>,
    #[serde(default)]
    environments: Vec<Spanned<EnvTable>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DatasetTable {
    name: Spanned<String>,
    data: Spanned<String>,
    label: Option<String>,
    limit: Option<usize>,
    offset: Option<usize>,
    sample: Option<usize>,
    sample_seed: Option<u64>,
    subset: Option<Spanned<String>>,
    #[serde(default)]
    strict: bool,
    #[serde(default)]
    gpqa_correct_first: bool,
    #[serde(default)]
    fields: BTreeMap<String, String>,
    split: Option<String>,
    policies: Option<Spanned<Vec<String>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvTable {
    id: Spanned<String>,
    label: Option<String>,
    set: Option<Spanned<BTreeMap<String, SetValue>>>,
    seeds: Spanned<SeedsValue>,
    max_steps: Option<usize>,
    grid: Option<Spanned<BTreeMap<String, SetValue>>>,
    policies: Option<Spanned<Vec<String>>>,
}

/// A dataset of a suite, resolved: what `colony eval`'s dataset flags would say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetUnit {
    /// The directory the dataset's results go to, shared with the suite's other datasets of
    /// the same label (default [`DEFAULT_DATASET_GROUP`]), so one table has every dataset
    /// as a column with AVG and AVG-R, like the SelfOrg paper's Table 1.
    pub label: String,
    /// Dataset name (as `--dataset`).
    pub dataset: String,
    /// The file (as `--data`), resolved as the module docs say.
    pub data: PathBuf,
    /// `--subset maslab`.
    pub maslab: bool,
    /// `--sample N` with its seed.
    pub sample: Option<(usize, u64)>,
    /// `--offset`.
    pub offset: usize,
    /// `--limit`.
    pub limit: Option<usize>,
    /// `--strict`.
    pub strict: bool,
    /// `--gpqa-correct-first`.
    pub gpqa_correct_first: bool,
    /// `--field FIELD=COL`, in key order.
    pub fields: Vec<String>,
    /// `--split NAME`: in a directory, only that split's files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
    /// Policy specs with their labels (results files and work keys are named by label).
    pub policies: Vec<PolicySpec>,
}

/// An environment of a suite, resolved: what `colony compare`'s flags would say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvUnit {
    /// The unit's directory name (default: the id and the `set` values).
    pub label: String,
    /// Environment id (as `--env`).
    pub env: String,
    /// `--set key=value`, in key order.
    pub set: Vec<String>,
    /// Seeds (as `--seeds`), expanded; empty with `level_seeds`.
    pub seeds: Vec<u64>,
    /// `seeds = "level"`: each Wildfire level configuration plays its own evaluation seeds
    /// (as `--seeds level`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub level_seeds: bool,
    /// `--max-steps`.
    pub max_steps: usize,
    /// `--grid key=values`, in key order.
    pub grid: Vec<String>,
    /// Policy specs.
    pub policies: Vec<String>,
}

/// A resolved suite: every default applied, every value checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suite {
    /// Name (default: the file stem).
    pub name: String,
    /// What the suite is for.
    pub description: String,
    /// Model names (from models.toml, or `sim`).
    pub models: Vec<String>,
    /// Run seed of reasoning policies (`--seed`).
    pub seed: u64,
    /// Agents in the reasoning roster (`--agents`).
    pub agents: usize,
    /// Role-card folder of the reasoning roster (`--roles`); `None`: the SelfOrg pool compiled
    /// into colony, the same from any directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roles: Option<PathBuf>,
    /// Embedder of SelfOrg (`--embedder`).
    pub embedder: String,
    /// Items solved at once per dataset (`--items-in-flight`).
    pub items_in_flight: usize,
    /// Episodes run at once per environment (`--episodes-in-flight`).
    pub episodes_in_flight: usize,
    /// Accuracy of the simulated model on environments (`--sim-accuracy`), if set.
    pub sim_accuracy: Option<f64>,
    /// `baseline`: the policy label every other policy of a unit is compared with (as
    /// `--baseline` of `colony eval` and `colony compare`), in the units that run it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// `log_calls`: how much of each model call environment episodes keep (as `--log-calls`
    /// of `colony compare`; compact by default). Not part of the manifest: the log's form
    /// changes no result, so a rerun may change it.
    #[serde(skip)]
    pub log_calls: LogCalls,
    /// `max_tokens_total`: the run's token cap (as `--max-tokens-total`; a flag given to
    /// `colony run` wins). Not part of the manifest: a rerun with a higher budget resumes.
    #[serde(skip)]
    pub max_tokens_total: Option<u64>,
    /// `max_cost`: the run's cap in US dollars at the models' prices (as `--max-cost`; a flag
    /// given to `colony run` wins). Not part of the manifest: a rerun with a higher budget
    /// resumes.
    #[serde(skip)]
    pub max_cost: Option<f64>,
    /// `tools`: what every agent of every unit is offered (as `--tools`); part of the
    /// manifest (tools change results), omitted when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// `[mcp.NAME]` tables: the MCP servers `mcp:NAME` tools come from (as `--mcp`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp: BTreeMap<String, colony_llm::McpServerTable>,
    /// `judge`: the model grading the dataset units' answers (as `--judge`); part of the
    /// manifest (the grader changes results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<String>,
    /// `grade`: `rules`, `judge` or `both` (as `--grade`; `both` when a judge is named and
    /// `grade` is not).
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub grade: crate::eval::judge::GradeMode,
    /// `judge_grader`: `equivalence` (default) or `rubric:FILE`, the file relative to the
    /// suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_grader: Option<String>,
    /// `judge_agreement`: a simulated judge's agreement with the rules (as `--judge-agreement`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_agreement: Option<f64>,
    /// `train`: training items per dataset for policies that learn (as `--train`: items of
    /// the dataset's file that are not evaluated, a seeded sample by `seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train: Option<usize>,
    /// Reasoning datasets.
    pub datasets: Vec<DatasetUnit>,
    /// Environments.
    pub environments: Vec<EnvUnit>,
}

/// The results directory of datasets without a `label`: all of a model's datasets share it.
pub const DEFAULT_DATASET_GROUP: &str = "reasoning";

/// The default step cap of an environment unit (the environments end their episodes first).
pub const DEFAULT_MAX_STEPS: usize = 10_000;

/// Where a unit's policy list is: its own `policies`, else the unit's table.
fn policies_at(own: &Option<Spanned<Vec<String>>>, table_at: usize) -> usize {
    own.as_ref().map_or(table_at, |p| p.span().start)
}

/// Reasoning policy specs with `rounds` applied and their labels (unique), each checked by
/// building it.
fn reasoning_policies(
    registry: &Registry,
    list: &[String],
    rounds: Option<u32>,
) -> Result<Vec<PolicySpec>, String> {
    let specs = PolicySpec::list(&list.join(";"), rounds).map_err(|e| e.to_string())?;
    let ctx = ReasoningContext::new(Arc::new(colony_llm::embed::default_embedder()));
    for p in &specs {
        registry
            .reasoning(&p.spec, &ctx)
            .map_err(|e| format!("policy {:?}: {e}", p.spec))?;
    }
    Ok(specs)
}

/// Embodied policy specs, each checked by building it for the environment.
fn embodied_policies(
    registry: &Registry,
    entry: &'static dyn colony_env_api::EnvEntry,
    list: &[String],
) -> Result<Vec<String>, String> {
    for spec in list {
        registry
            .embodied_factory(spec, entry)
            .map_err(|e| format!("policy {spec:?}: {e} (is it a reasoning policy? give this environment its own `policies`)"))?;
    }
    Ok(list.to_vec())
}

/// 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.get(..at.min(text.len()))
        .map_or(1, |t| t.bytes().filter(|&b| b == b'\n').count() + 1)
}

pub use colony_policy::file_component;

impl Suite {
    /// Reads and validates a suite file; its names are checked against `registry`.
    pub fn load(path: &Path, registry: &Registry) -> Result<Self, SuiteError> {
        let read = |message: String| SuiteError::Read {
            path: path.to_path_buf(),
            message,
        };
        let text = colony_env_api::bounded::read_string(path, MAX_SUITE_BYTES).map_err(|e| {
            // The error names the path already; keep only what went wrong.
            let text = e.to_string();
            let shown = format!("{}: ", path.display());
            read(text.strip_prefix(&shown).unwrap_or(&text).to_string())
        })?;
        Self::parse(&text, path, registry)
    }

    /// Parses and validates suite text; `path` names the file in errors and anchors
    /// relative paths; names are checked against `registry`.
    pub fn parse(text: &str, path: &Path, registry: &Registry) -> Result<Self, SuiteError> {
        let invalid = |at: usize, key: &str, message: String| SuiteError::Invalid {
            path: path.to_path_buf(),
            line: line_of(text, at),
            key: key.to_string(),
            message,
        };
        let file: SuiteFile = toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(0, |s| s.start);
            let message = e.message().replace('\n', " ");
            invalid(at, "suite", message.trim().to_string())
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let resolve = |p: &str| -> PathBuf {
            let given = PathBuf::from(p);
            if given.is_relative() && !given.exists() && base.join(&given).exists() {
                base.join(given)
            } else {
                given
            }
        };
        let top_policies = file.policies.as_ref();
        let policies_of = |own: &Option<Spanned<Vec<String>>>,
                           key: &str,
                           table_at: usize|
         -> Result<Vec<String>, SuiteError> {
            let chosen = own.as_ref().or(top_policies).ok_or_else(|| {
                invalid(
                    table_at,
                    key,
                    "no policies: give `policies = [...]` here or at the top of the suite".into(),
                )
            })?;
            let list: Vec<String> = chosen
                .get_ref()
                .iter()
                .map(|s| s.trim().to_string())
                .collect();
            if list.is_empty() || list.iter().any(String::is_empty) {
                return Err(invalid(
                    chosen.span().start,
                    key,
                    "empty policy name".into(),
                ));
            }
            Ok(list)
        };
        let models = match &file.models {
            Some(m) if m.get_ref().is_empty() => {
                return Err(invalid(m.span().start, "models", "is empty".into()))
            }
            Some(m) => {
                let mut names: Vec<String> = Vec::new();
                for name in m.get_ref().iter().map(|s| s.trim().to_string()) {
                    if names.contains(&name) {
                        return Err(invalid(
                            m.span().start,
                            "models",
                            format!("{name:?} is listed twice"),
                        ));
                    }
                    names.push(name);
                }
                names
            }
            None => vec![colony_llm::SIMULATED_NAME.to_string()],
        };
        if let Some(e) = &file.embedder {
            e.get_ref()
                .parse::<colony_llm::embed::EmbedderSpec>()
                .map_err(|err| invalid(e.span().start, "embedder", err.to_string()))?;
        }
        if let Some(p) = &file.sim_accuracy {
            if !(0.0..=1.0).contains(p.get_ref()) {
                return Err(invalid(
                    p.span().start,
                    "sim_accuracy",
                    "must be in [0, 1]".into(),
                ));
            }
        }
        if let Some(c) = &file.max_cost {
            if crate::eval::budget::parse_max_cost(&c.get_ref().to_string()).is_err() {
                return Err(invalid(
                    c.span().start,
                    "max_cost",
                    "must be a non-negative number of US dollars".into(),
                ));
            }
        }
        if let Some(n) = &file.max_tokens_total {
            if *n.get_ref() == 0 {
                return Err(invalid(
                    n.span().start,
                    "max_tokens_total",
                    "must be at least 1 (leave it out for no cap)".into(),
                ));
            }
        }
        let mut datasets = Vec::new();
        for (i, t) in file.datasets.iter().enumerate() {
            let at = t.span().start;
            let t = t.get_ref();
            let key = |k: &str| format!("datasets[{i}].{k}");
            let name = t.name.get_ref().trim().to_string();
            registry
                .find_dataset(&name)
                .map_err(|e| invalid(t.name.span().start, &key("name"), e.to_string()))?;
            let maslab = match &t.subset {
                None => false,
                Some(s) if s.get_ref() == "maslab" => true,
                Some(s) => {
                    return Err(invalid(
                        s.span().start,
                        &key("subset"),
                        format!("unknown subset {:?} (known: maslab)", s.get_ref()),
                    ))
                }
            };
            if t.limit == Some(0) {
                return Err(invalid(at, &key("limit"), "must be at least 1".into()));
            }
            datasets.push(DatasetUnit {
                label: file_component(t.label.as_deref().unwrap_or(DEFAULT_DATASET_GROUP)),
                dataset: name,
                data: resolve(t.data.get_ref()),
                maslab,
                sample: t.sample.map(|n| (n, t.sample_seed.unwrap_or(0))),
                offset: t.offset.unwrap_or(0),
                limit: t.limit,
                strict: t.strict,
                gpqa_correct_first: t.gpqa_correct_first,
                split: t.split.clone(),
                fields: t.fields.iter().map(|(k, v)| format!("{k}={v}")).collect(),
                policies: reasoning_policies(
                    registry,
                    &policies_of(&t.policies, &key("policies"), at)?,
                    file.rounds,
                )
                .map_err(|e| invalid(policies_at(&t.policies, at), &key("policies"), e))?,
            });
        }
        let mut environments = Vec::new();
        for (i, t) in file.environments.iter().enumerate() {
            let at = t.span().start;
            let t = t.get_ref();
            let key = |k: &str| format!("environments[{i}].{k}");
            let pairs = |m: &Option<Spanned<BTreeMap<String, SetValue>>>| -> Vec<String> {
                m.as_ref().map_or_else(Vec::new, |m| {
                    m.get_ref()
                        .iter()
                        .map(|(k, v)| format!("{k}={}", v.render()))
                        .collect()
                })
            };
            let set = pairs(&t.set);
            let set_at = t.set.as_ref().map_or(t.id.span().start, |s| s.span().start);
            let (entry, _) = registry
                .build_environment(t.id.get_ref(), &set)
                .map_err(|e| invalid(set_at, &key("set"), e.to_string()))?;
            let seeds_text = match t.seeds.get_ref() {
                SeedsValue::Text(s) => s.clone(),
                SeedsValue::One(n) => n.to_string(),
                SeedsValue::List(v) => v.iter().map(u64::to_string).collect::<Vec<_>>().join(","),
            };
            let (seeds, level_seeds) = parse_compare_seeds(&seeds_text)
                .map_err(|e| invalid(t.seeds.span().start, &key("seeds"), e.to_string()))?;
            if level_seeds && !entry.has_evaluation_seeds() {
                return Err(invalid(
                    t.seeds.span().start,
                    &key("seeds"),
                    format!(
                        "`{}` (each configuration's own evaluation seeds) needs an environment \
                         whose configurations carry them (wildfire); {} has none",
                        colony_policy::env::LEVEL_SEEDS,
                        entry.info().id
                    ),
                ));
            }
            let grid = pairs(&t.grid);
            let grid_at = t.grid.as_ref().map_or(at, |g| g.span().start);
            for g in &grid {
                parse_axis(g, entry).map_err(|e| invalid(grid_at, &key("grid"), e.to_string()))?;
            }
            if t.max_steps == Some(0) {
                return Err(invalid(at, &key("max_steps"), "must be at least 1".into()));
            }
            let id = entry.info().id;
            let default_label = std::iter::once(t.id.get_ref().trim().to_string())
                .chain(set.iter().cloned())
                .collect::<Vec<_>>()
                .join("_");
            environments.push(EnvUnit {
                label: file_component(t.label.as_deref().unwrap_or(&default_label)),
                env: id,
                set,
                seeds,
                level_seeds,
                max_steps: t.max_steps.unwrap_or(DEFAULT_MAX_STEPS),
                grid,
                policies: embodied_policies(
                    registry,
                    entry,
                    &policies_of(&t.policies, &key("policies"), at)?,
                )
                .map_err(|e| invalid(policies_at(&t.policies, at), &key("policies"), e))?,
            });
        }
        if datasets.is_empty() && environments.is_empty() {
            return Err(invalid(
                0,
                "suite",
                "names no [[datasets]] and no [[environments]]: nothing to run".into(),
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for d in &datasets {
            if !seen.insert((d.label.clone(), d.dataset.clone())) {
                return Err(invalid(
                    0,
                    "label",
                    format!(
                        "dataset {} appears twice in {:?}; give one entry another `label` (its \
                         own results directory)",
                        d.dataset, d.label
                    ),
                ));
            }
        }
        let groups: std::collections::BTreeSet<&String> =
            datasets.iter().map(|d| &d.label).collect();
        let mut envs = std::collections::BTreeSet::new();
        for e in &environments {
            if groups.contains(&e.label) || !envs.insert(e.label.clone()) {
                return Err(invalid(
                    0,
                    "label",
                    format!(
                        "two units are both called {:?}; give one a `label`",
                        e.label
                    ),
                ));
            }
        }
        if let Some(b) = &file.baseline {
            let named = datasets
                .iter()
                .any(|d| d.policies.iter().any(|p| p.label == *b.get_ref()))
                || environments
                    .iter()
                    .any(|e| e.policies.contains(b.get_ref()));
            if !named {
                return Err(invalid(
                    b.span().start,
                    "baseline",
                    format!(
                        "{:?} is not a policy of any dataset or environment",
                        b.get_ref()
                    ),
                ));
            }
        }
        let bounded = [
            (
                "agents",
                file.agents,
                crate::eval::models::MAX_ROSTER_AGENTS,
            ),
            (
                "items_in_flight",
                file.items_in_flight,
                colony_llm::MAX_CONCURRENCY,
            ),
            (
                "episodes_in_flight",
                file.episodes_in_flight,
                colony_llm::MAX_CONCURRENCY,
            ),
        ];
        for (key, value, max) in bounded {
            if let Some(v) = value.filter(|v| !(1..=max).contains(v)) {
                return Err(invalid(0, key, format!("{v} is outside 1..={max}")));
            }
        }
        let tools = match &file.tools {
            Some(t) => {
                let names = colony_tools::parse_tool_list(t.get_ref());
                let known: Vec<&str> = registry.tools().iter().map(|e| e.name.as_str()).collect();
                for name in &names {
                    let server = name
                        .strip_prefix("mcp:")
                        .map(|r| r.split('/').next().unwrap_or(r));
                    let ok = match server {
                        Some(s) => file.mcp.contains_key(s),
                        None => known.contains(&name.as_str()),
                    };
                    if !ok {
                        let why = match server {
                            Some(s) => format!("{name:?}: no [mcp.{s}] table in this suite"),
                            None => format!("unknown tool {name:?} (known: {})", known.join(", ")),
                        };
                        return Err(invalid(t.span().start, "tools", why));
                    }
                }
                names
            }
            None => Vec::new(),
        };
        for (name, table) in &file.mcp {
            colony_tools::McpServerConfig::from_table(
                name,
                table.clone(),
                &path.display().to_string(),
            )
            .map_err(|e| invalid(0, &format!("mcp.{name}"), e.to_string()))?;
        }
        let (grade, judge_grader) = judge_keys(&file, &resolve, &invalid)?;
        let roles = file.roles.as_deref().map(resolve);
        if let Some(roles) = roles
            .as_ref()
            .filter(|r| !datasets.is_empty() && !r.is_dir())
        {
            // A named folder that is missing is a different experiment: an error, never the
            // built-in pool in its place.
            return Err(invalid(
                0,
                "roles",
                format!("role-card folder {} not found", roles.display()),
            ));
        }
        Ok(Suite {
            name: file.name.unwrap_or_else(|| {
                path.file_stem()
                    .map_or("suite".into(), |s| s.to_string_lossy().into_owned())
            }),
            description: file.description.unwrap_or_default(),
            models,
            seed: file.seed.unwrap_or(0),
            agents: file.agents.unwrap_or(4).max(1),
            roles,
            embedder: file
                .embedder
                .map_or_else(|| "hash".to_string(), Spanned::into_inner),
            items_in_flight: file.items_in_flight.unwrap_or(64).max(1),
            episodes_in_flight: file.episodes_in_flight.unwrap_or(4).max(1),
            sim_accuracy: file.sim_accuracy.map(Spanned::into_inner),
            baseline: file.baseline.map(Spanned::into_inner),
            log_calls: file.log_calls.unwrap_or_default(),
            max_tokens_total: file.max_tokens_total.map(Spanned::into_inner),
            max_cost: file.max_cost.map(Spanned::into_inner),
            tools,
            mcp: file.mcp,
            judge: file.judge.map(Spanned::into_inner),
            grade,
            judge_grader,
            judge_agreement: file.judge_agreement.map(Spanned::into_inner),
            train: file.train,
            datasets,
            environments,
        })
    }
}

/// The suite's grading keys, checked: the mode (`both` when a judge is named without `grade`)
/// and the grader spelled with a rubric path resolved against the suite's folder.
fn judge_keys(
    file: &SuiteFile,
    resolve: &dyn Fn(&str) -> PathBuf,
    invalid: &dyn Fn(usize, &str, String) -> SuiteError,
) -> Result<(crate::eval::judge::GradeMode, Option<String>), SuiteError> {
    use crate::eval::judge::{GradeMode, JudgeGrader};
    let judge_at = file.judge.as_ref().map(|j| j.span().start);
    let grade = match (file.grade, judge_at) {
        (Some(GradeMode::Rules), Some(at)) => {
            return Err(invalid(
                at,
                "judge",
                "a judge is named but grade = \"rules\" would never call it".into(),
            ))
        }
        (Some(mode @ (GradeMode::Judge | GradeMode::Both)), None) => {
            return Err(invalid(
                0,
                "grade",
                format!("grade = \"{}\" needs a `judge` model", mode.as_str()),
            ))
        }
        (Some(mode), _) => mode,
        (None, Some(_)) => GradeMode::Both,
        (None, None) => GradeMode::Rules,
    };
    if let Some(a) = &file.judge_agreement {
        if !(0.0..=1.0).contains(a.get_ref()) {
            return Err(invalid(
                a.span().start,
                "judge_agreement",
                format!("{} is outside [0, 1]", a.get_ref()),
            ));
        }
    }
    let grader = match &file.judge_grader {
        None => None,
        Some(g) => {
            let spelled = match g.get_ref().trim().split_once(':') {
                Some(("rubric", p)) => format!("rubric:{}", resolve(p.trim()).display()),
                _ => g.get_ref().trim().to_string(),
            };
            let parsed = JudgeGrader::parse(&spelled)
                .map_err(|e| invalid(g.span().start, "judge_grader", e.to_string()))?;
            if parsed.pairwise().is_some() && grade == GradeMode::Judge {
                return Err(invalid(
                    g.span().start,
                    "judge_grader",
                    "a pairwise verdict grades neither policy: use grade = \"both\"".into(),
                ));
            }
            Some(spelled)
        }
    };
    Ok((grade, grader))
}
