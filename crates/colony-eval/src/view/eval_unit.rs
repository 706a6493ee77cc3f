//! One `colony eval` directory in the page: a table row per item and policy (the last line
//! per (dataset, id) of `<policy>.jsonl` wins, as in the eval report), each row's details
//! (the result, the policy's trace, and, when `calls/<policy>.jsonl` exists, every
//! transcript entry: messages, replies, usage, latency, failures), the run's summary, settings
//! and SVG plots.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use base64::Engine;
use serde_json::{json, Value};

use super::bounded::{self, for_each_line, for_each_line_in, Notes, MAX_LINE_BYTES};
use super::discover::{jsonl_files, Unit};
use super::html::PageWriter;
use super::ViewError;
use crate::eval::ItemResult;

/// Most rows of one unit (further items are left out with a note).
pub const MAX_ROWS: usize = 500_000;

/// Columns of an eval unit's rows, in order; the last one is the detail block number.
pub const EVAL_COLUMNS: [&str; 12] = [
    "policy",
    "dataset",
    "id",
    "correct",
    "answer",
    "gold",
    "calls",
    "failed_calls",
    "tokens",
    "wall_ms",
    "error",
    "detail",
];

/// The SVG plots of `dir` as `data:` URIs (an `<img>` runs no script in them).
pub fn plots(dir: &Path, notes: &mut Notes) -> Result<Value, ViewError> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(ViewError::io(dir))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg") && !n.starts_with('.'))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let path = dir.join(&name);
        match bounded::read_small(&path) {
            Ok(Some(svg)) => {
                let b64 = base64::engine::general_purpose::STANDARD.encode(svg.as_bytes());
                out.push(json!({"name": name, "src": format!("data:image/svg+xml;base64,{b64}")}));
            }
            Ok(None) => {}
            Err(e) => notes.push(format!("plot left out: {e}")),
        }
    }
    Ok(Value::Array(out))
}

/// A small file's text for the page, or a note when it cannot be shown.
pub fn text_file(path: &Path, notes: &mut Notes) -> Value {
    match bounded::read_small(path) {
        Ok(Some(t)) => Value::String(t),
        Ok(None) => Value::Null,
        Err(e) => {
            notes.push(format!("left out: {e}"));
            Value::Null
        }
    }
}

/// A small JSON file for the page, or a note when it cannot be shown.
pub fn json_file(path: &Path, notes: &mut Notes) -> Value {
    match bounded::read_json_file(path) {
        Ok(Some(v)) => v,
        Ok(None) => Value::Null,
        Err(e) => {
            notes.push(format!("left out: {e}"));
            Value::Null
        }
    }
}

/// Latest record per key, in the order keys first appeared.
#[derive(Debug)]
struct Latest<T> {
    order: Vec<(String, String)>,
    map: HashMap<(String, String), T>,
}

impl<T> Default for Latest<T> {
    fn default() -> Self {
        Self {
            order: Vec::new(),
            map: HashMap::new(),
        }
    }
}

impl<T> Latest<T> {
    fn put(&mut self, key: (String, String), value: T) {
        if self.map.insert(key.clone(), value).is_none() {
            self.order.push(key);
        }
    }
}

/// `calls/<file name>` of a policy file, plain and then compact (`.zst`, written by later
/// runs): transcript entries per (dataset, id), last wins.
fn read_calls(paths: &[PathBuf], notes: &mut Notes) -> Result<Latest<Value>, ViewError> {
    let mut calls = Latest::default();
    for path in paths {
        read_calls_file(path, notes, &mut calls)?;
    }
    Ok(calls)
}

fn read_calls_file(
    path: &Path,
    notes: &mut Notes,
    calls: &mut Latest<Value>,
) -> Result<(), ViewError> {
    let reader = crate::eval::call_log::open_log_file(path).map_err(ViewError::io(path))?;
    let torn = reader.get_ref().torn();
    for_each_line_in(reader, path, MAX_LINE_BYTES, notes, |_, mut v| {
        let key = |f: &str| v[f].as_str().map(str::to_string);
        let (Some(dataset), Some(id)) = (key("dataset"), key("id")) else {
            return Err("a calls line needs string fields \"dataset\" and \"id\"".into());
        };
        let entries = v.get_mut("entries").map(Value::take).unwrap_or(Value::Null);
        if !entries.is_array() {
            return Err("a calls line needs an \"entries\" array".into());
        }
        calls.put((dataset, id), entries);
        Ok(())
    })?;
    if torn.load(std::sync::atomic::Ordering::Relaxed) {
        notes.push(format!(
            "{}: the compressed log ends early (an interrupted or running run); its complete items are shown",
            path.display()
        ));
    }
    Ok(())
}

/// Writes the details of every item of `unit` and returns its index entry.
pub fn write_unit(unit: &Unit, page: &mut PageWriter) -> Result<Value, ViewError> {
    let mut notes = Notes::default();
    let mut rows = Vec::new();
    let mut with_calls = Vec::new();
    for file in jsonl_files(&unit.dir)? {
        let mut items: Latest<ItemResult> = Latest::default();
        for_each_line(&file, MAX_LINE_BYTES, &mut notes, |_, v| {
            let r: ItemResult =
                serde_json::from_value(v).map_err(|e| format!("not an item result: {e}"))?;
            items.put((r.dataset.clone(), r.id.clone()), r);
            Ok(())
        })?;
        let name = file
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        let plain = unit.dir.join("calls").join(&name);
        let compact = plain.with_extension("jsonl.zst");
        let paths: Vec<PathBuf> = [plain, compact]
            .into_iter()
            .filter(|p| p.is_file())
            .collect();
        let mut calls = if paths.is_empty() {
            None
        } else {
            with_calls.extend(paths.iter().map(|p| Value::String(p.display().to_string())));
            Some(read_calls(&paths, &mut notes)?)
        };
        for key in &items.order {
            if rows.len() >= MAX_ROWS {
                notes.push(format!(
                    "{}: only the first {MAX_ROWS} rows are shown",
                    file.display()
                ));
                break;
            }
            let Some(mut r) = items.map.remove(key) else {
                continue;
            };
            let trace = std::mem::take(&mut r.trace);
            let entries = calls
                .as_mut()
                .and_then(|c| c.map.remove(key))
                .unwrap_or(Value::Null);
            let mut detail = json!({
                "kind": "item",
                "result": r,
                "trace": trace,
                "entries": entries,
                "has_calls": calls.is_some(),
                "notes": [],
            });
            let d = page.fitted_detail(&mut detail, &["entries"])?;
            rows.push(json!([
                r.policy,
                r.dataset,
                r.id,
                r.error.is_none() && r.correct,
                r.answer,
                r.gold,
                r.calls,
                r.failed_calls,
                r.prompt_tokens + r.completion_tokens,
                (r.wall_ms * 1000.0).round() / 1000.0,
                r.error,
                d
            ]));
        }
    }
    // Rows in the tables' policy and dataset order, then by item id (numbers as numbers):
    // never in the order concurrent items happened to finish.
    rows.sort_by_cached_key(|row| {
        let text = |k: usize| row[k].as_str().unwrap_or_default().to_string();
        let id = text(2);
        (
            crate::eval::reasoning::table_order::method_key(&text(0)),
            crate::eval::reasoning::table_order::dataset_key(&text(1)),
            id.parse::<u64>().map_or((1, 0), |n| (0, n)),
            id,
        )
    });
    let summary = json_file(&unit.dir.join("summary.json"), &mut notes);
    let settings = json_file(&unit.dir.join("settings.json"), &mut notes);
    // As the run's own tables decide it; settings.json is written before the first item.
    let simulated = serde_json::from_value(settings.clone())
        .is_ok_and(|s| crate::eval::reasoning::summary::simulated_in(&s));
    Ok(json!({
        "kind": "eval",
        "path": unit.rel,
        "dir": unit.dir.display().to_string(),
        "simulated": simulated,
        "cols": EVAL_COLUMNS,
        "rows": rows,
        "calls_files": with_calls,
        "summary": summary,
        "settings": settings,
        "results_md": text_file(&unit.dir.join("results.md"), &mut notes),
        "plots": plots(&unit.dir, &mut notes)?,
        "notes": notes.to_json(),
    }))
}
