//! The environments colony knows, by id: the registry behind `colony env …`, `colony compare`
//! and the offline simulated agents.
//!
//! Each environment crate exports one [`EnvEntry`] (`colony_cube::entry()`, …), registered in
//! the open [`crate::registry::Registry`]; this module lists them, resolves short names (`cube` for `cube-v0`), builds configured environments from
//! `--set key=value` settings, and parses seed ranges, so every command that runs episodes
//! shares one definition of each.

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
    /// The environment refused its settings (the error names the parameter).
    #[error("configuring {env}: {source}")]
    Config {
        /// The environment id.
        env: String,
        /// What is wrong.
        source: EnvError,
    },
}

/// Every registered environment: those of the installed [`crate::registry::Registry`] (an
/// environment crate exports `pub fn entry() -> &'static dyn EnvEntry`, and a program
/// registers it with `Registry::environment`).
pub fn entries() -> Vec<&'static dyn EnvEntry> {
    crate::registry::Registry::current().environments().to_vec()
}

/// The short name of an id: `cube-v0` → `cube`.
pub fn short_name(id: &str) -> &str {
    id.rsplit_once("-v").map_or(id, |(s, _)| s)
}

/// The environment named `name` (`cube` or `cube-v0`).
pub fn find(name: &str) -> Result<&'static dyn EnvEntry, EnvLookupError> {
    let all = entries();
    for e in &all {
        let id = e.info().id;
        if name == id || name == short_name(&id) {
            return Ok(*e);
        }
    }
    let ids: Vec<String> = all.iter().map(|e| e.info().id).collect();
    Err(EnvLookupError::Unknown {
        name: name.to_string(),
        known: ids.join(", "),
    })
}

/// Builds environment `name` from `key=value` settings (not yet reset).
pub fn build<S: AsRef<str>>(
    name: &str,
    settings: &[S],
) -> Result<(&'static dyn EnvEntry, Box<dyn DynEnvironment>), EnvLookupError> {
    let entry = find(name)?;
    let config = |source| EnvLookupError::Config {
        env: entry.info().id,
        source,
    };
    let params = EnvParams::parse(settings).map_err(config)?;
    let env = entry.make(params).map_err(config)?;
    Ok((entry, env))
}

/// The reply of a simulated agent to an environment prompt: the first registered environment
/// that recognises the prompt answers ([`EnvEntry::simulated_reply`]); `None` when none does.
pub fn simulated_reply(system: &str, user: &str, accuracy: f64, draw: u64) -> Option<String> {
    entries()
        .into_iter()
        .find_map(|e| e.simulated_reply(system, user, accuracy, draw))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_full_names_resolve_and_unknown_lists_known() {
        assert_eq!(find("cube").unwrap().info().id, "cube-v0");
        assert_eq!(find("swarmbench-v0").unwrap().info().id, "swarmbench-v0");
        let err = find("chess").err().unwrap().to_string();
        assert!(
            err.contains("\"chess\"") && err.contains("wildfire-v0"),
            "{err}"
        );
        let err = build("cube", &["n=x"]).err().unwrap().to_string();
        assert!(
            err.contains("cube-v0") && err.contains("parameter n"),
            "{err}"
        );
    }
}
