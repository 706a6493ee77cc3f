//! Embodied policies resolved at the door: the constructor type ([`BuildEmbodied`]), what an
//! episode hands it ([`PolicyContext`]) and the factory a spec becomes ([`EmbodiedFactory`]),
//! including `scripted:<name>` (any built-in of `colony env run`: `random`, `noop`, the
//! environment's heuristics). The built-in LLM policies' table is the registry's
//! (`crate::registry::BUILTIN_EMBODIED`).

use std::sync::Arc;

use colony_env_api::EnvEntry;

use super::{CallerConfig, EmbodiedError, EmbodiedPolicy, Scripted};
use crate::PolicyOptions;

/// An embodied policy's constructor: the spec's options (the part after `name:`, read through
/// the one [`PolicyOptions`] parser; the registry refuses what it leaves unread) and the
/// episode's context.
pub type BuildEmbodied =
    fn(&mut PolicyOptions, &PolicyContext) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError>;

/// What building a policy for one episode needs.
#[derive(Clone)]
pub struct PolicyContext {
    /// The environment the policy will drive.
    pub entry: &'static dyn EnvEntry,
    /// The episode's seed (scripted policies' randomness).
    pub seed: u64,
    /// Models and call settings of LLM policies.
    pub caller: CallerConfig,
}

/// Builds a policy for one episode from its options text and the episode's context.
pub type EmbodiedBuild =
    dyn Fn(&PolicyContext) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError> + Send + Sync;

/// An embodied policy resolved at the door (`crate::registry::Registry::embodied_factory`):
/// its spec as the user wrote it, whether it calls models, and its constructor with the
/// options bound. Runs build a fresh policy per episode from it, never looking the name up
/// again (docs/design/architecture.md §1).
#[derive(Clone)]
pub struct EmbodiedFactory {
    spec: String,
    uses_models: bool,
    build: Arc<EmbodiedBuild>,
}

impl EmbodiedFactory {
    /// A factory for `spec` that builds with `build`.
    pub fn new(
        spec: &str,
        uses_models: bool,
        build: impl Fn(&PolicyContext) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        Self {
            spec: spec.trim().to_string(),
            uses_models,
            build: Arc::new(build),
        }
    }

    /// The environment's own scripted policy `name` (`scripted:<name>`: `random`, `noop`,
    /// its heuristics), which never calls a model.
    pub fn scripted(name: &str) -> Self {
        let spec = format!("scripted:{}", name.trim());
        let name = name.trim().to_string();
        let label = spec.clone();
        Self::new(&spec, false, move |ctx: &PolicyContext| {
            let policy = ctx
                .entry
                .make_policy(&name, ctx.seed)
                .map_err(|e| EmbodiedError::config(&label, e))?;
            Ok(Box::new(Scripted::new(&label, policy)) as Box<dyn EmbodiedPolicy>)
        })
    }

    /// The spec (`camon`, `hmas2:replans=3`, `scripted:heuristic`): the policy's label in
    /// every result.
    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// Whether the policy calls models (runs without a model refuse it).
    pub fn uses_models(&self) -> bool {
        self.uses_models
    }

    /// A fresh policy for one episode.
    pub fn build(&self, ctx: &PolicyContext) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError> {
        (self.build)(ctx)
    }
}

impl std::fmt::Debug for EmbodiedFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbodiedFactory")
            .field("spec", &self.spec)
            .field("uses_models", &self.uses_models)
            .finish()
    }
}
