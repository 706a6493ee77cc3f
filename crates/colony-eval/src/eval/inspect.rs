//! `colony export inspect`: a `colony eval` run as Inspect AI logs, so `inspect view` opens it
//! and `inspect_ai.log.read_eval_log` reads it (Inspect's log format, version 2). A `colony
//! compare` run is exported by [`super::inspect_episodes`].
//!
//! One log per (policy label, dataset), as an Inspect log is one task run by one model:
//! * **eval:** task `colony/<dataset>`, task id the label, the run's model, the dataset's name
//!   and sample count, and the policy spec and run seed as task arguments.
//! * **samples:** one per item: `input` the item's prompt (the first user message the policy
//!   sent, from the calls log), `target` the gold answer, `messages` every call of the item in
//!   order (the prompt, then the reply, each tagged with its agent in `metadata`), `output` the
//!   policy's final response, `scores.colony` `C`/`I` (Inspect's CORRECT/INCORRECT) with the
//!   extracted answer, `model_usage` the item's tokens, and an errored item's `error` instead of
//!   a score (a failure is never a wrong answer, in Inspect either).
//! * **results and stats:** `accuracy` over the scored items, the total and completed sample
//!   counts, the run's tokens under the model.
//!
//! Decisions: the `.eval` format is Inspect's zip of `header.json`, `samples/<id>_epoch_1.json`,
//! `summaries.json` and `_journal/start.json`, written uncompressed (Inspect reads stored
//! entries; its own writer compresses with zstd); `--format json` writes the single-JSON log.
//! `created` is the results file's modification time (UTC, `Z`), so exporting twice gives the same
//! bytes. Items without a calls-log line (`--log-calls none`) get `input` from nothing but
//! their id and no messages.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use thiserror::Error;

use super::reasoning::report::{latest_results, ReportError};
use super::results::ItemResult;

/// Why an export failed.
#[derive(Debug, Error)]
pub enum InspectError {
    /// The run directory could not be read.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// A file could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// Nothing matches the selection.
    #[error("{0}")]
    Selection(String),
}

/// The log file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum InspectFormat {
    /// Inspect's `.eval` zip (what `inspect view` lists).
    #[default]
    Eval,
    /// One JSON document.
    Json,
}

impl InspectFormat {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Eval => "eval",
            Self::Json => "json",
        }
    }
}

pub(crate) fn io(path: &Path) -> impl Fn(std::io::Error) -> InspectError + '_ {
    move |e| InspectError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

pub use super::timestamp::rfc3339;

/// One call of an item as the log shows it: `(agent, prompt, reply)`.
type Step = (String, String, String);

/// An item's calls in order, and its final response.
type Logged = (Vec<Step>, Option<String>);

/// Per item id, what its latest calls-log line holds.
type ItemCalls = BTreeMap<String, Logged>;

/// The calls log of `label` on `dataset` in `dir`, by item (the last line of an item wins).
fn item_calls(dir: &Path, label: &str, dataset: &str) -> Result<ItemCalls, InspectError> {
    let mut out = ItemCalls::new();
    let calls = dir.join("calls");
    for mode in [
        super::call_log::LogCalls::Compact,
        super::call_log::LogCalls::Full,
    ] {
        let Some(path) = super::call_log::item_log_path(&calls, label, mode) else {
            continue;
        };
        if !path.is_file() {
            continue;
        }
        super::call_log::read_log_file(&path, |line| {
            let v: Value = serde_json::from_str(line).unwrap_or_default();
            if v["dataset"] != dataset {
                return true;
            }
            let Some(id) = v["id"].as_str() else {
                return true;
            };
            let mut steps: Vec<(u64, String, String, String)> = Vec::new();
            for e in v["entries"].as_array().into_iter().flatten() {
                let call = &e["event"];
                // A failed call is part of the conversation too: its prompt was sent.
                let reply = match call["kind"].as_str() {
                    Some("call") => call["text"].as_str().unwrap_or_default().to_string(),
                    Some("failure") => format!(
                        "(the call failed: {})",
                        call["error"].as_str().unwrap_or_default()
                    ),
                    _ => continue,
                };
                let prompt = call["request"]["messages"]
                    .as_array()
                    .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
                    .and_then(|m| m["content"].as_str())
                    .unwrap_or_default()
                    .to_string();
                steps.push((
                    e["seq"].as_u64().unwrap_or(0),
                    e["agent"].as_str().unwrap_or_default().to_string(),
                    prompt,
                    reply,
                ));
            }
            // Entries are by (agent, seq); the conversation reads best agent by agent.
            let steps = steps.into_iter().map(|(_, a, p, r)| (a, p, r)).collect();
            let response = v["response"].as_str().map(str::to_string);
            out.insert(id.to_string(), (steps, response));
            true
        })
        .map_err(io(&path))?;
    }
    Ok(out)
}

/// The Inspect sample of one item.
fn sample(r: &ItemResult, calls: Option<&Logged>, model: &str) -> Value {
    let (steps, response) = match calls {
        Some((s, resp)) => (s.as_slice(), resp.clone()),
        None => (&[][..], None),
    };
    let input = steps
        .first()
        .map_or_else(|| format!("(item {})", r.id), |(_, p, _)| p.clone());
    let mut messages = Vec::new();
    for (agent, prompt, reply) in steps {
        messages.push(json!({"role": "user", "content": prompt, "source": "input", "metadata": {"agent": agent}}));
        messages.push(json!({"role": "assistant", "content": reply, "source": "generate", "metadata": {"agent": agent}}));
    }
    let completion = response.unwrap_or_default();
    let tokens = r.prompt_tokens + r.completion_tokens;
    let mut s = json!({
        "id": r.id,
        "epoch": 1,
        "input": input,
        "target": r.gold,
        "messages": messages,
        "output": {
            "model": model,
            "choices": [{
                "message": {"role": "assistant", "content": completion, "source": "generate"},
                "stop_reason": "stop",
            }],
            "completion": completion,
        },
        "model_usage": {model: {
            "input_tokens": r.prompt_tokens, "output_tokens": r.completion_tokens,
            "total_tokens": tokens,
        }},
        "metadata": {"policy": r.policy, "dataset": r.dataset, "calls": r.calls},
    });
    match &r.error {
        Some(e) => {
            s["error"] = json!({"message": e, "traceback": "", "traceback_ansi": ""});
        }
        None => {
            s["scores"] = json!({"colony": {
                "value": if r.correct { "C" } else { "I" },
                "answer": r.answer,
            }});
        }
    }
    s
}

/// One Inspect log of `label` on `dataset`: (header without samples, samples).
fn log_of(
    dir: &Path,
    settings: &super::reasoning::report::SettingsMap,
    label: &str,
    dataset: &str,
    items: &BTreeMap<String, ItemResult>,
) -> Result<(Value, Vec<Value>), InspectError> {
    let settings = settings
        .get(dataset)
        .and_then(|per| per.get(label))
        .cloned()
        .unwrap_or_default();
    let model = settings
        .agents
        .first()
        .map_or_else(|| "unknown".to_string(), |a| a.model.clone());
    let calls = item_calls(dir, label, dataset)?;
    let samples: Vec<Value> = items
        .values()
        .map(|r| sample(r, calls.get(&r.id), &model))
        .collect();
    let scored: Vec<&ItemResult> = items.values().filter(|r| r.error.is_none()).collect();
    let correct = scored.iter().filter(|r| r.correct).count();
    let accuracy = if scored.is_empty() {
        0.0
    } else {
        correct as f64 / scored.len() as f64
    };
    let (prompt, completion) = items.values().fold((0u64, 0u64), |(p, c), r| {
        (p + r.prompt_tokens, c + r.completion_tokens)
    });
    let results_file = dir.join(format!("{label}.jsonl"));
    let created = std::fs::metadata(&results_file)
        .and_then(|m| m.modified())
        .map_or_else(|_| rfc3339(std::time::UNIX_EPOCH), rfc3339);
    let header = json!({
        "version": 2,
        "status": "success",
        "eval": {
            "created": created,
            "task": format!("colony/{dataset}"),
            "task_id": label,
            "task_args": {"policy": settings.spec.clone().unwrap_or_else(|| label.to_string()),
                          "run_seed": settings.run_seed},
            "dataset": {"name": dataset, "samples": items.len()},
            "model": model,
            "config": {},
            "metadata": {"colony_run": dir.display().to_string(),
                         "simulated": settings.agents.iter().any(|a| a.simulated)},
        },
        "plan": {"name": "plan", "steps": [{"solver": label, "params": {}}], "config": {}},
        "results": {
            "total_samples": items.len(),
            "completed_samples": scored.len(),
            "scores": [{
                "name": "colony",
                "scorer": "colony",
                "params": {},
                "metrics": {"accuracy": {"name": "accuracy", "value": accuracy, "params": {}}},
            }],
        },
        "stats": {
            "started_at": created,
            "completed_at": created,
            "model_usage": {model.clone(): {
                "input_tokens": prompt, "output_tokens": completion,
                "total_tokens": prompt + completion,
            }},
        },
    });
    Ok((header, samples))
}

/// Writes one log in `format` to `path`.
pub(crate) fn write_log(
    path: &Path,
    header: &Value,
    samples: &[Value],
    format: InspectFormat,
) -> Result<(), InspectError> {
    let bytes = match format {
        InspectFormat::Json => ordered_json(header, samples).into_bytes(),
        InspectFormat::Eval => eval_zip(header, samples).map_err(|e| InspectError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?,
    };
    super::results::write_atomic(path, &bytes).map_err(io(path))
}

/// The single-JSON log with its keys in Inspect's order: `version` first and `samples` last
/// (Inspect's header reader streams the file and stops at `samples`; a JSON object's keys
/// would otherwise come out sorted).
fn ordered_json(header: &Value, samples: &[Value]) -> String {
    let mut out = String::from("{");
    for key in ["version", "status", "eval", "plan", "results", "stats"] {
        if let Some(v) = header.get(key) {
            out.push_str(&format!("{}:{v},", Value::from(key)));
        }
    }
    out.push_str("\"samples\":");
    out.push_str(&Value::Array(samples.to_vec()).to_string());
    out.push_str("}\n");
    out
}

/// Inspect's `.eval` zip of a log, entries stored.
fn eval_zip(header: &Value, samples: &[Value]) -> Result<Vec<u8>, zip::result::ZipError> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut put = |name: &str, value: &Value| -> Result<(), zip::result::ZipError> {
        w.start_file(name, options)?;
        w.write_all(value.to_string().as_bytes())?;
        Ok(())
    };
    let start = json!({"version": 2, "eval": header["eval"], "plan": header["plan"]});
    put("_journal/start.json", &start)?;
    let mut summaries = Vec::new();
    for s in samples {
        let id = match &s["id"] {
            Value::String(id) => id.replace('/', "_"),
            other => other.to_string(),
        };
        put(&format!("samples/{id}_epoch_1.json"), s)?;
        summaries.push(json!({
            "id": s["id"], "epoch": 1, "input": s["input"], "target": s["target"],
            "scores": s.get("scores").cloned().unwrap_or(Value::Null),
            "error": s.get("error").and_then(|e| e["message"].as_str()),
            "model_usage": s["model_usage"], "completed": true,
        }));
    }
    put("summaries.json", &Value::Array(summaries))?;
    put("header.json", header)?;
    Ok(w.finish()?.into_inner())
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The log files, one per (label, dataset).
    pub files: Vec<PathBuf>,
}

/// Exports the eval run `dir` as Inspect logs (see the module docs): to `out` when one
/// (label, dataset) is selected, else one `<label>.<dataset>.<ext>` per pair into the
/// directory `out`. `policy` and `dataset` narrow the selection.
pub fn export_inspect(
    dir: &Path,
    out: &Path,
    format: InspectFormat,
    policy: Option<&str>,
    dataset: Option<&str>,
) -> Result<Exported, InspectError> {
    if dir.join("compare.json").is_file() {
        return super::inspect_episodes::export_episodes(dir, out, format, policy);
    }
    let per = latest_results(dir)?;
    // Read once: the run settings (models, specs) of every label and dataset.
    let settings = super::reasoning::report::load_settings(dir);
    let chosen: Vec<_> = per
        .iter()
        .filter(|((d, p), _)| policy.is_none_or(|x| x == p) && dataset.is_none_or(|x| x == d))
        .collect();
    if chosen.is_empty() {
        let known: Vec<String> = per.keys().map(|(d, p)| format!("{p} on {d}")).collect();
        return Err(InspectError::Selection(format!(
            "{}: no `colony eval` results match (it has: {})",
            dir.display(),
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        )));
    }
    let single = chosen.len() == 1 && out.extension().is_some();
    if !single {
        std::fs::create_dir_all(out).map_err(io(out))?;
    }
    let mut files = Vec::new();
    for ((d, p), items) in chosen {
        let (header, samples) = log_of(dir, &settings, p, d, items)?;
        let path = if single {
            out.to_path_buf()
        } else {
            out.join(format!("{p}.{d}.{}", format.extension()))
        };
        write_log(&path, &header, &samples, format)?;
        files.push(path);
    }
    Ok(Exported { files })
}
