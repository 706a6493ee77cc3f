//! Built-in non-LLM policies for `colony env run swarmbench` (besides `random` and `noop`).

use colony_env_api::DynPolicy;

/// Names of the crate's own policies.
pub const NAMES: &[&str] = &[];

/// Builds policy `name`.
pub fn make(name: &str, seed: u64) -> Option<Box<dyn DynPolicy>> {
    let _ = (name, seed);
    None
}
