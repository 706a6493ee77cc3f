//! The price table a run directory's costs were computed at (`prices.json`), so a resume
//! under other prices cannot mix two tables in one `summary.json` without notice.
//!
//! Decision: every command that writes costs (`colony eval`, `colony compare`, each unit of
//! `colony run`) claims its models' prices in its output directory before its first call:
//! the first run writes them (a model without a price as `null`), and a later run whose model
//! of the same name has another price (or gains or loses one) is refused, naming the model and
//! both prices; a rerun with the earlier prices, or into a new directory, is the way on. Models
//! new to the directory are added. Directories written before the table existed are claimed as
//! they are resumed (their earlier costs are not checked).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use colony_llm::{ModelSpec, Price};
use thiserror::Error;

/// The file, in the output directory.
pub const PRICES_FILE: &str = "prices.json";
/// The largest `prices.json` read.
const MAX_PRICES_BYTES: u64 = 1 << 20;

/// Why the prices could not be claimed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PricesError {
    /// A model's price differs from the one the directory's costs were computed at.
    #[error(
        "{path}: model {model} was priced at {before} in this directory's earlier runs and is \
         now priced at {now}; its costs would mix the two (restore the earlier price, or write \
         into a new --out)"
    )]
    Changed {
        /// `prices.json`.
        path: PathBuf,
        /// The model name.
        model: String,
        /// The recorded price.
        before: String,
        /// This run's price.
        now: String,
    },
    /// The file cannot be read, parsed or written.
    #[error("{path}: {message}")]
    File {
        /// `prices.json`.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// A price as the message shows it.
fn shown(p: Option<&Price>) -> String {
    match p {
        None => "no price".into(),
        Some(p) => {
            let cached = p
                .cached_per_mtok
                .map_or(String::new(), |c| format!(", cached {c}"));
            format!(
                "prompt {} / completion {}{cached} USD per million tokens",
                p.prompt_per_mtok, p.completion_per_mtok
            )
        }
    }
}

/// Claims the prices of `specs` in `out` (see the module docs).
pub fn claim(out: &Path, specs: &[ModelSpec]) -> Result<(), PricesError> {
    let path = out.join(PRICES_FILE);
    let file = |message: String| PricesError::File {
        path: path.clone(),
        message,
    };
    let mut table: BTreeMap<String, Option<Price>> =
        match colony_env_api::bounded::read_string_if_exists(&path, MAX_PRICES_BYTES) {
            Ok(Some(text)) => serde_json::from_str(&text).map_err(|e| file(e.to_string()))?,
            Ok(None) => BTreeMap::new(),
            Err(e) => return Err(file(e.to_string())),
        };
    let mut changed = false;
    for spec in specs {
        match table.get(&spec.name) {
            Some(before) if *before != spec.price => {
                return Err(PricesError::Changed {
                    path,
                    model: spec.name.clone(),
                    before: shown(before.as_ref()),
                    now: shown(spec.price.as_ref()),
                })
            }
            Some(_) => {}
            None => {
                table.insert(spec.name.clone(), spec.price);
                changed = true;
            }
        }
    }
    if changed {
        std::fs::create_dir_all(out).map_err(|e| file(e.to_string()))?;
        let text = serde_json::to_string_pretty(&table).map_err(|e| file(e.to_string()))?;
        crate::eval::results::write_atomic(&path, text.as_bytes())
            .map_err(|e| file(e.to_string()))?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn spec(name: &str, prompt: Option<f64>) -> ModelSpec {
        ModelSpec {
            name: name.into(),
            price: prompt.map(|p| Price {
                prompt_per_mtok: p,
                completion_per_mtok: 2.0,
                cached_per_mtok: None,
            }),
            ..ModelSpec::default()
        }
    }

    #[test]
    fn a_changed_price_is_refused_and_new_models_are_added() {
        let dir = tempfile::tempdir().unwrap();
        claim(dir.path(), &[spec("a", Some(1.0))]).unwrap();
        claim(dir.path(), &[spec("a", Some(1.0)), spec("b", None)]).unwrap();
        let e = claim(dir.path(), &[spec("a", Some(3.0))]).unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("model a") && m.contains("prompt 1") && m.contains("prompt 3"),
            "{m}"
        );
        let e = claim(dir.path(), &[spec("b", Some(1.0))]).unwrap_err();
        assert!(e.to_string().contains("no price"), "{e}");
    }
}
