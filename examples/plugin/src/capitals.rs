//! `demo-capitals`: a reasoning dataset in a format of its own, with a grader of its own.
//!
//! The file is plain text, one question per line: `Country<TAB>Capital|Other accepted name|…`
//! (blank lines and lines starting with `#` are skipped); item ids count the questions from 1.
//! The first name is the gold answer
//! the simulated model gives; the grader accepts any listed name, case-insensitively, with or
//! without LaTeX's `\text{…}` around it.

use std::path::Path;

use colony::qa::{AnswerType, Item, LoadError, LoadOptions, Loaded};
use colony::registry::DatasetEntry;

/// Largest file read, in bytes (everything read from outside is size-bounded).
const MAX_BYTES: u64 = 16 << 20;

/// The registry entry.
pub fn entry() -> DatasetEntry {
    DatasetEntry::new(
        "demo-capitals",
        "capital cities (demo plugin dataset); any accepted name is right",
        "text, one line per question: Country<TAB>Capital|Other accepted name|…",
        load,
    )
    .with_grader(is_correct)
}

fn load(path: &Path, _options: &LoadOptions) -> Result<Loaded, LoadError> {
    let text =
        colony_env_api::bounded::read_string(path, MAX_BYTES).map_err(|e| LoadError::Format {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    let mut items = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |message: &str| LoadError::Format {
            path: path.to_path_buf(),
            message: format!("line {}: {message}", n + 1),
        };
        let (country, names) = line
            .split_once('\t')
            .ok_or_else(|| bad("expected Country<TAB>Capital"))?;
        let accepted: Vec<&str> = names.split('|').map(str::trim).collect();
        if country.trim().is_empty() || accepted.iter().any(|a| a.is_empty()) {
            return Err(bad("empty country or capital name"));
        }
        let mut meta = std::collections::BTreeMap::new();
        meta.insert("accepted".to_string(), serde_json::json!(accepted));
        items.push(Item {
            id: (items.len() + 1).to_string(),
            question: format!("What is the capital of {}?", country.trim()),
            choices: Vec::new(),
            gold: accepted[0].to_string(),
            answer_type: AnswerType::MathExpr,
            meta,
        });
    }
    if items.is_empty() {
        return Err(LoadError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(Loaded {
        items,
        ..Loaded::default()
    })
}

/// Any accepted name, ignoring case and a `\text{…}` wrapper.
fn is_correct(answer: &str, item: &Item) -> bool {
    let bare = answer.trim();
    let bare = bare
        .strip_prefix("\\text{")
        .and_then(|s| s.strip_suffix('}'))
        .unwrap_or(bare);
    item.meta
        .get("accepted")
        .and_then(|a| a.as_array())
        .into_iter()
        .flatten()
        .filter_map(|a| a.as_str())
        .any(|a| a.eq_ignore_ascii_case(bare.trim()))
}
