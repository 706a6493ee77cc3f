//! The run manifest (`OUT/manifest.json`): written before any work, so a results directory
//! always says what produced it, and checked on every rerun, so results of two different
//! suites never mix in one directory.
//!
//! It holds the resolved suite, colony's version, the git commit and dirty flag of the
//! current directory when it is a git checkout, the SHA-256 of every prompt template compiled
//! into colony and of every role card the roster reads, the models with their base URLs
//! (redacted; keys are never part of a model record), the embedder, the start time and the
//! shard.
//!
//! Decision: a rerun is refused when its *identity* differs: everything except the start
//! time, the git state, the shard and the models' base URLs (replicas of one model) (a resumed run after a commit that touched nothing the
//! run uses is common; the version and template hashes catch changes that matter). `--force`
//! rewrites the manifest and resumes anyway.

use colony_policy::registry::Registry;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::shard::Shard;
use super::spec::Suite;
use crate::eval::results::write_atomic;
use colony_llm::{ModelKind, ModelSpec, Sampling};

/// File name of the manifest.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Largest manifest read back, in bytes.
const MAX_MANIFEST_BYTES: u64 = 16 << 20;

/// A model of the run, as recorded (never a key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRecord {
    /// Name (models.toml table, `sim`, or the `--model` flag).
    pub name: String,
    /// `openai` or `simulated`.
    pub kind: String,
    /// The id the model reports (what replay caches are keyed by).
    pub model: String,
    /// Base URLs, credentials redacted.
    pub base_urls: Vec<String>,
    /// The model's own sampling keys (flags over models.toml).
    pub sampling: Sampling,
    /// Simulated model: accuracy, when configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f64>,
}

impl ModelRecord {
    /// The record of a resolved model spec.
    pub fn of(spec: &ModelSpec) -> Self {
        Self {
            name: spec.name.clone(),
            kind: match spec.kind {
                ModelKind::Openai => "openai".into(),
                ModelKind::Simulated => "simulated".into(),
            },
            model: spec.build_id(),
            base_urls: spec
                .endpoints()
                .iter()
                .map(|u| colony_llm::redact_url(u))
                .collect(),
            sampling: spec.sampling.clone(),
            accuracy: spec.accuracy,
        }
    }

    /// Whether this is the offline simulated model (tables then say SIMULATION).
    pub fn simulated(&self) -> bool {
        self.kind == "simulated"
    }
}

/// The git state of the directory the run started in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitState {
    /// `HEAD`'s commit.
    pub commit: String,
    /// Uncommitted changes to tracked files.
    pub dirty: bool,
}

/// The run manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// colony's version.
    pub colony_version: String,
    /// The suite file as given.
    pub suite_file: String,
    /// The resolved suite.
    pub suite: Suite,
    /// Models, in the order units run.
    pub models: Vec<ModelRecord>,
    /// SHA-256 of each compiled-in prompt template, by name.
    pub templates: BTreeMap<String, String>,
    /// SHA-256 of each role card file the reasoning roster reads, by path.
    pub role_cards: BTreeMap<String, String>,
    /// Git state, when the current directory is a git checkout.
    pub git: Option<GitState>,
    /// Start time (UTC, RFC 3339).
    pub started: String,
    /// The shard, when sharded.
    pub shard: Option<Shard>,
}

/// A manifest that cannot be written, read or accepted.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// Reading or writing failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The directory holds another run.
    #[error("{path} was written by a different run: {differences}; use another --out, or --force to resume into it anyway")]
    Mismatch {
        /// The manifest.
        path: PathBuf,
        /// What differs (`key: old vs new`, `; `-separated).
        differences: String,
    },
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every prompt template of `registry`, by name: colony's policy and dataset
/// templates, then each registered environment's ([`colony_env_api::EnvEntry::templates`],
/// a plugin's included).
pub fn templates(registry: &Registry) -> Vec<(&'static str, &'static str)> {
    let mut all = registry.templates().to_vec();
    for entry in registry.environments() {
        all.extend(entry.templates());
    }
    all
}

/// The hashes of the role cards a suite's rosters use: the named folder's `*.toml` files, or
/// the registry's default cards (keyed `builtin:<file>`) when the suite names none.
fn role_card_hashes(registry: &Registry, dir: Option<&Path>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Some(dir) = dir else {
        for (file, text) in registry.role_cards() {
            out.insert(format!("builtin:{file}"), sha256(text.as_bytes()));
        }
        return out;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "toml") {
            if let Ok(bytes) = std::fs::read(&p) {
                out.insert(p.display().to_string(), sha256(&bytes));
            }
        }
    }
    out
}

/// The git state of the current directory, if it is a checkout and git runs.
fn git_state() -> Option<GitState> {
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = run(&["rev-parse", "HEAD"])?;
    let dirty =
        run(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(GitState { commit, dirty })
}

/// Now as RFC 3339 UTC (seconds).
fn now_rfc3339() -> String {
    crate::eval::timestamp::rfc3339(std::time::SystemTime::now())
}

impl Manifest {
    /// The manifest of a run starting now (templates and default role cards from `registry`).
    pub fn new(
        registry: &Registry,
        suite_file: &Path,
        suite: &Suite,
        models: &[ModelSpec],
        shard: Option<Shard>,
    ) -> Self {
        Self {
            colony_version: env!("CARGO_PKG_VERSION").to_string(),
            suite_file: suite_file.display().to_string(),
            suite: suite.clone(),
            models: models.iter().map(ModelRecord::of).collect(),
            templates: templates(registry)
                .into_iter()
                .map(|(name, text)| (name.to_string(), sha256(text.as_bytes())))
                .collect(),
            role_cards: if suite.datasets.is_empty() {
                BTreeMap::new()
            } else {
                role_card_hashes(registry, suite.roles.as_deref())
            },
            git: git_state(),
            started: now_rfc3339(),
            shard,
        }
    }

    /// What must match for two runs to share a directory (see the module docs).
    pub fn identity(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            for k in ["started", "git", "shard", "suite_file"] {
                o.remove(k);
            }
            // Where a model is served does not change what it answers: shards may each use
            // their own replica, and a resumed run may reach the model at a new address.
            if let Some(models) = o.get_mut("models").and_then(|m| m.as_array_mut()) {
                for m in models {
                    if let Some(m) = m.as_object_mut() {
                        m.remove("base_urls");
                    }
                }
            }
        }
        v
    }

    /// Reads `dir/manifest.json`, if there is one.
    pub fn read(dir: &Path) -> Result<Option<Self>, ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        let io = |message: String| ManifestError::Io {
            path: path.clone(),
            message,
        };
        use colony_env_api::bounded::{read_string, BoundedReadError};
        let text = match read_string(&path, MAX_MANIFEST_BYTES) {
            Err(BoundedReadError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                return Ok(None)
            }
            Err(e) => return Err(io(e.to_string())),
            Ok(text) => text,
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| io(format!("not a colony run manifest: {e}")))
    }

    /// Writes `dir/manifest.json` atomically.
    pub fn write(&self, dir: &Path) -> Result<(), ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        let text = serde_json::to_string_pretty(self).unwrap_or_default();
        write_atomic(&path, text.as_bytes()).map_err(|e| ManifestError::Io {
            path,
            message: e.to_string(),
        })
    }

    /// Writes the manifest into a fresh `dir`, or checks it against the one there: a
    /// different identity is refused (listing the differences) unless `force`.
    pub fn claim(&self, dir: &Path, force: bool) -> Result<(), ManifestError> {
        if let Some(old) = Self::read(dir)? {
            let diff = differences(&old.identity(), &self.identity());
            if !diff.is_empty() && !force {
                return Err(ManifestError::Mismatch {
                    path: dir.join(MANIFEST_FILE),
                    differences: diff.join("; "),
                });
            }
            if diff.is_empty() {
                return Ok(());
            }
        }
        self.write(dir)
    }
}

/// The paths where two JSON values differ (`suite.datasets[0].limit: 10 vs 20`), at most 12.
pub fn differences(old: &serde_json::Value, new: &serde_json::Value) -> Vec<String> {
    fn walk(path: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
        use serde_json::Value;
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                for k in keys {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(
                        &p,
                        x.get(k).unwrap_or(&Value::Null),
                        y.get(k).unwrap_or(&Value::Null),
                        out,
                    );
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (u, v)) in x.iter().zip(y).enumerate() {
                    walk(&format!("{path}[{i}]"), u, v, out);
                }
            }
            _ if a != b => {
                let show = |v: &Value| {
                    let s = v.to_string();
                    if s.chars().count() > 60 {
                        format!("{}…", s.chars().take(60).collect::<String>())
                    } else {
                        s
                    }
                };
                out.push(format!("{path}: {} vs {}", show(a), show(b)));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk("", old, new, &mut out);
    if out.len() > 12 {
        let more = out.len() - 12;
        out.truncate(12);
        out.push(format!("and {more} more"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_name_the_paths() {
        let a = serde_json::json!({"suite": {"datasets": [{"limit": 10}], "models": ["sim"]}});
        let b = serde_json::json!({"suite": {"datasets": [{"limit": 20}], "models": ["sim", "x"]}});
        let d = differences(&a, &b);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(
            d[0].starts_with("suite.datasets[0].limit: 10 vs 20"),
            "{d:?}"
        );
        assert!(d[1].starts_with("suite.models"), "{d:?}");
        assert!(differences(&a, &a).is_empty());
    }

    #[test]
    fn dates_are_rfc3339() {
        let s = now_rfc3339();
        assert_eq!(s.len(), 20, "{s}");
        assert!(s.starts_with("20") && s.ends_with('Z'), "{s}");
    }

    #[test]
    fn every_template_is_hashed_once() {
        let all = templates(&Registry::builtin());
        let names: std::collections::BTreeSet<&str> = all.iter().map(|(n, _)| *n).collect();
        assert_eq!(names.len(), all.len());
        assert!(all.iter().all(|(_, t)| !t.is_empty()));
    }
}
