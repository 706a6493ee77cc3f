//! Environments by id: name resolution, construction from settings, and seed ranges.
//!
//! Each environment crate exports one [`EnvEntry`] (`colony_cube::entry()`, …), registered in
//! the open [`crate::registry::Registry`]; this module resolves short names (`cube` for
//! `cube-v0`) over a list of entries, builds configured environments from `--set key=value`
//! settings, and parses seed ranges, so every command that runs episodes shares one definition
//! of each. It reads no registry: the door resolves the name once and hands the entry down.

mod seeds;

pub use seeds::{parse_compare_seeds, parse_seeds, SeedsError, LEVEL_SEEDS};

use colony_env_api::{DynEnvironment, EnvEntry, EnvError, EnvParams};
use thiserror::Error;

/// Errors of environment lookup and construction.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum EnvLookupError {
    /// No environment has this id or short name.
    #[error("unknown environment {name:?}; known: {known}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The known ids, comma-separated.
        known: String,
    },
    /// The environment refused its settings (the error names the parameter). Decision: the
    /// reason is part of the message and not a `source`, so a printed error chain (`{:#}`)
    /// says it once.
    #[error("configuring {env}: {reason}")]
    Config {
        /// The environment id.
        env: String,
        /// What is wrong.
        reason: EnvError,
    },
}

/// The short name of an id: `cube-v0` → `cube`.
pub fn short_name(id: &str) -> &str {
    id.rsplit_once("-v").map_or(id, |(s, _)| s)
}

/// The environment of `entries` named `name` (`cube` or `cube-v0`); the registry's
/// [`crate::registry::Registry::environment_entry`] is this over its environments.
pub fn find_in(
    entries: &[&'static dyn EnvEntry],
    name: &str,
) -> Result<&'static dyn EnvEntry, EnvLookupError> {
    for e in entries {
        let id = e.info().id;
        if name == id || name == short_name(&id) {
            return Ok(*e);
        }
    }
    let ids: Vec<String> = entries.iter().map(|e| e.info().id).collect();
    Err(EnvLookupError::Unknown {
        name: colony_env_api::clip(name),
        known: ids.join(", "),
    })
}

/// Builds the environment of `entry` from `key=value` settings (not yet reset).
pub fn build<S: AsRef<str>>(
    entry: &'static dyn EnvEntry,
    settings: &[S],
) -> Result<Box<dyn DynEnvironment>, EnvLookupError> {
    let config = |reason| EnvLookupError::Config {
        env: entry.info().id,
        reason,
    };
    let params = EnvParams::parse(settings).map_err(config)?;
    entry.make(params).map_err(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_full_names_resolve_and_unknown_lists_known() {
        let registry = crate::registry::Registry::builtin();
        let find = |n: &str| find_in(registry.environments(), n);
        assert_eq!(find("cube").unwrap().info().id, "cube-v0");
        assert_eq!(find("swarmbench-v0").unwrap().info().id, "swarmbench-v0");
        let err = find("chess").err().unwrap().to_string();
        assert!(
            err.contains("\"chess\"") && err.contains("wildfire-v0"),
            "{err}"
        );
        let err = build(find("cube").unwrap(), &["n=x"])
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("cube-v0") && err.contains("parameter n"),
            "{err}"
        );
    }
}
