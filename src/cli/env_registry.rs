//! The environments the `colony` binary knows, by id.

use anyhow::{bail, Result};
use colony_env_api::EnvEntry;

/// Every registered environment. An environment crate exports
/// `pub fn entry() -> &'static dyn EnvEntry`; add it here.
pub fn entries() -> Vec<&'static dyn EnvEntry> {
    vec![
        colony_cube::entry(),
        colony_swarmbench::entry(),
        colony_wildfire::entry(),
    ]
}

/// The environment named `name` (`cube` or `cube-v0`).
pub fn find(name: &str) -> Result<&'static dyn EnvEntry> {
    for e in entries() {
        let id = e.info().id;
        let short = id.rsplit_once("-v").map_or(id.as_str(), |(s, _)| s);
        if name == id || name == short {
            return Ok(e);
        }
    }
    let ids: Vec<String> = entries().iter().map(|e| e.info().id).collect();
    bail!("unknown environment {name:?}; known: {}", ids.join(", "))
}
