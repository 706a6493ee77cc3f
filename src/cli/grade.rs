//! `colony grade`: score a JSONL of model outputs against a dataset; `colony datasets`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::registry::Registry;
use anyhow::bail;
use clap::{Args, Subcommand};
use colony_qa::grade::{grade, JudgeOptions};
use serde::Deserialize;
use serde_json::json;

use super::dataset_args::DatasetArgs;
use super::sandbox_args::SandboxArgs;

/// Arguments of `colony grade`.
#[derive(Args, Debug)]
pub struct GradeArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub data: DatasetArgs,
    /// JSONL of `{"id": …, "output": "free text"}`; `id` is the item id (the 0-based row index
    /// for files without ids). Only predictions of selected items are graded.
    #[arg(long, value_name = "FILE")]
    pub predictions: PathBuf,
    /// Print `{"n", "correct", "accuracy", "items": [{"id", "extracted", "gold", "correct"}]}`.
    #[arg(long)]
    pub json: bool,
    /// Accept a standalone capital letter anywhere as a last resort (MMLU-Pro's official rule).
    #[arg(long)]
    pub lenient_choice: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    // documented by the flattened type's own docs (clap help)
    pub code: SandboxArgs,
}

/// Arguments of `colony datasets`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DatasetsArgs {
    #[command(subcommand)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub action: Option<DatasetsAction>,
    /// One JSON object per dataset.
    #[arg(long)]
    pub json: bool,
}

/// Subcommands of `colony datasets`.
#[derive(Subcommand, Debug)]
pub enum DatasetsAction {
    /// Print the selected items of a dataset file (JSONL with --json).
    Show(ShowArgs),
}

/// Arguments of `colony datasets show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub data: DatasetArgs,
    /// One JSON object per item: id, question, choices, gold, answer_type, meta, prompt.
    #[arg(long)]
    pub json: bool,
}

/// Largest predictions file read, in bytes.
const MAX_PREDICTIONS_BYTES: u64 = 512 << 20;

#[derive(Deserialize)]
struct Prediction {
    id: serde_json::Value,
    output: String,
}

/// Reads predictions: id (string or number) → output; errors name file, line and field.
fn read_predictions(path: &Path, strict: bool) -> anyhow::Result<Vec<(String, String)>> {
    // Bounded like every file read from outside.
    let bytes = colony_env_api::bounded::read_bytes(path, MAX_PREDICTIONS_BYTES)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: not UTF-8 (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<Prediction>(line)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), i + 1))
            .and_then(|p| {
                let id = match p.id {
                    serde_json::Value::String(s) => s,
                    serde_json::Value::Number(n) => n.to_string(),
                    other => bail!(
                        "{}:{}: field `id` must be a string or a number, got {other}",
                        path.display(),
                        i + 1
                    ),
                };
                Ok((id, p.output))
            });
        match parsed {
            Ok(p) => out.push(p),
            Err(e) if strict => return Err(e),
            Err(e) => tracing::warn!("skipping prediction: {e:#}"),
        }
    }
    Ok(out)
}

/// Runs `colony grade`.
pub fn run(a: GradeArgs, registry: &Registry) -> anyhow::Result<()> {
    let dataset = a.data.dataset(registry)?;
    let all = a.data.load_all(registry)?;
    let known: BTreeSet<String> = all.iter().map(|i| i.id.clone()).collect();
    let selected = a.data.apply(registry, all)?;
    let items: BTreeMap<&str, &colony_qa::Item> =
        selected.iter().map(|i| (i.id.as_str(), i)).collect();
    let predictions = read_predictions(&a.predictions, a.data.strict)?;
    report_unknown(&a, &predictions, &items, &known)?;
    if !selected.is_empty()
        && selected
            .iter()
            .all(|i| matches!(i.answer_type, colony_qa::AnswerType::Code { .. }))
    {
        return grade_code(&a, dataset.name.as_str(), &items, &predictions);
    }
    let judge = JudgeOptions {
        lenient_choice: a.lenient_choice,
        ..JudgeOptions::default()
    };
    let mut rows = Vec::new();
    for (id, output) in &predictions {
        let Some(item) = items.get(id.as_str()) else {
            continue;
        };
        let v = grade(output, item, &judge);
        // A registered grader decides correctness of the extracted answer; `--lenient-choice`
        // applies to the answer-type comparison only.
        let correct = if dataset.has_grader() {
            v.extracted
                .as_deref()
                .is_some_and(|a| dataset.is_correct(a, item))
        } else {
            v.correct
        };
        rows.push(
            json!({"id": id, "extracted": v.extracted, "gold": item.gold, "correct": correct}),
        );
    }
    let n = rows.len();
    let correct = rows.iter().filter(|r| r["correct"] == true).count();
    let accuracy = if n == 0 {
        0.0
    } else {
        correct as f64 / n as f64
    };
    if a.json {
        println!(
            "{}",
            json!({"n": n, "correct": correct, "accuracy": accuracy, "items": rows})
        );
    } else {
        println!(
            "{}: {correct}/{n} correct, accuracy {:.4}",
            dataset.name, accuracy
        );
        let missing = selected.len().saturating_sub(n);
        if missing > 0 {
            println!("({missing} dataset item(s) have no prediction and are not counted)");
        }
    }
    Ok(())
}

/// Reports prediction ids that are not in the data file (predictions of items outside the
/// selection are ignored; unknown ids are not): an error with `--strict`, else a warning.
fn report_unknown(
    a: &GradeArgs,
    predictions: &[(String, String)],
    items: &BTreeMap<&str, &colony_qa::Item>,
    known: &BTreeSet<String>,
) -> anyhow::Result<()> {
    let unknown: Vec<&str> = predictions
        .iter()
        .map(|(id, _)| id.as_str())
        .filter(|id| !items.contains_key(id) && !known.contains(*id))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let msg = format!(
        "{} prediction id(s) not in {}: {}",
        unknown.len(),
        a.data.data.display(),
        unknown
            .iter()
            .take(5)
            .copied()
            .collect::<Vec<_>>()
            .join(", ")
    );
    if a.data.strict {
        bail!(msg);
    }
    eprintln!("warning: {msg}");
    Ok(())
}

/// `colony grade` on a code dataset: the predictions' completions run against the tests in
/// the sandbox; a check that could not run is counted in `errors` and fails the command after
/// the report is printed.
fn grade_code(
    a: &GradeArgs,
    name: &str,
    items: &BTreeMap<&str, &colony_qa::Item>,
    predictions: &[(String, String)],
) -> anyhow::Result<()> {
    let judge = a.code.judge()?;
    let report = crate::eval::code_grade::grade_code(&judge, items, predictions);
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "{name}: {}/{} correct, accuracy {:.4} (tests run in {})",
            report.correct, report.n, report.accuracy, report.sandbox
        );
        for (k, v) in &report.pass_at_k {
            println!("{k}: {v:.4}");
        }
    }
    if report.errors > 0 {
        let first = report
            .items
            .iter()
            .find_map(|r| r.error.as_deref())
            .unwrap_or_default();
        bail!(
            "{} prediction(s) could not be graded (not counted as wrong): {first}",
            report.errors
        );
    }
    Ok(())
}

/// Runs `colony datasets`: the supported datasets, or `show` for the items of a file.
pub fn datasets(a: DatasetsArgs, registry: &Registry) -> anyhow::Result<()> {
    match a.action {
        None => {
            list(registry, a.json);
            Ok(())
        }
        Some(DatasetsAction::Show(s)) => {
            for item in s.data.load_selected(registry)? {
                if s.json {
                    let mut v = serde_json::to_value(&item)?;
                    v["prompt"] = json!(item.prompt());
                    println!("{v}");
                } else {
                    println!("[{}] gold {}\n{}\n", item.id, item.gold, item.question);
                }
            }
            Ok(())
        }
    }
}

/// Prints the supported datasets and the format each expects.
fn list(registry: &Registry, json_out: bool) {
    for d in registry.datasets() {
        if json_out {
            println!(
                "{}",
                json!({"name": d.name, "source": d.help, "format": d.format_help})
            );
        } else {
            println!("{}\n    {}\n    {}", d.name, d.help, d.format_help);
        }
    }
}
