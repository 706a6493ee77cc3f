//! Embodied policies by name, as `colony compare --policies` and suites spell them (resolved
//! at the door by the open [`crate::registry::Registry`] into an [`EmbodiedFactory`]; these
//! built-ins are registered there like any plugin's):
//! `independent`, `selforg`, `swarmsys`, the CREW-Wildfire frameworks `camon`, `coela`, `embodied`, `hmas2`,
//! `scripted:<name>` (any built-in of `colony env run`: `random`, `noop`, the
//! environment's heuristics).

use std::sync::Arc;

use colony_env_api::EnvEntry;

use super::{CallerConfig, EmbodiedError, EmbodiedPolicy, Independent, Scripted};
use crate::PolicyOptions;

/// An embodied policy's constructor: the spec's options (the part after `name:`, read through
/// the one [`PolicyOptions`] parser; the registry refuses what it leaves unread) and the
/// episode's context.
pub type BuildEmbodied =
    fn(&mut PolicyOptions, &PolicyContext) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError>;

/// The built-in LLM embodied policies: name, one-line help, constructor (scripted ones are
/// `scripted:<built-in>` of the environment). colony registers them in
/// [`crate::registry::Registry::builtin`] like any plugin.
pub const BUILTIN: &[(&str, &str, BuildEmbodied)] = &[
    (
        "independent",
        "each agent answers its own prompt (the benchmark's own protocol); structured=true asks for \
         schema-constrained action replies (response_format)",
        independent,
    ),
    (
        "camon",
        "CAMON: a leader coordinates by dynamic broadcasts; structured=true constrains EXECUTION (wildfire)",
        |o, c| framework::<super::camon::Camon>(o, c),
    ),
    (
        "coela",
        "COELA: modular agents that plan and talk",
        |o, c| framework::<super::coela::Coela>(o, c),
    ),
    (
        "embodied",
        "Embodied: agents negotiate before acting",
        |o, c| framework::<super::embodied_fw::EmbodiedFramework>(o, c),
    ),
    (
        "hmas2",
        "HMAS-2: a central planner with agent feedback",
        |o, c| framework::<super::hmas2::Hmas2>(o, c),
    ),
    (
        "selforg",
        "SelfOrg's graph over the agents' proposals; structured=true constrains EXECUTION (wildfire)",
        |o, c| {
            let p = super::selforg::EmbodiedSelfOrg::with_options(c.caller.clone(), o)?;
            needs_execution("selforg", &p, c)?;
            Ok(Box::new(p))
        },
    ),
    (
        "swarmsys",
        "SwarmSys: sub-goals as events, matched to agents; structured=true as for independent",
        |o, c| {
            // SwarmSys reads one option, `structured`; the registry refuses any other.
            let structured = crate::choice(o, "structured", "true|false")?.is_some_and(|v| v == "true");
            Ok(Box::new(
                super::swarmsys::EmbodiedSwarmSys::new(c.caller.clone(), "", c.entry)?
                    .structured(structured),
            ))
        },
    ),
];

/// A CREW-Wildfire framework with its options; `structured=true` is refused where the
/// environment has no EXECUTION call, the one call of a framework whose reply is the action.
fn framework<S: super::framework_step::FrameworkSteps + 'static>(
    o: &mut PolicyOptions,
    c: &PolicyContext,
) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError> {
    let f = super::framework_step::Framework::<S>::with_options(c.caller.clone(), o)?;
    needs_execution(S::NAME, &f, c)?;
    Ok(Box::new(f))
}

/// Refuses `structured=true` for a policy whose only action-producing call is the EXECUTION
/// call, on an environment that has none.
fn needs_execution(
    name: &str,
    policy: &dyn EmbodiedPolicy,
    c: &PolicyContext,
) -> Result<(), EmbodiedError> {
    if !policy.structured() {
        return Ok(());
    }
    let executes = c
        .entry
        .make(colony_env_api::EnvParams::default())
        .is_ok_and(|env| env.calls().is_some());
    if executes {
        return Ok(());
    }
    Err(EmbodiedError::config(
        name,
        format!(
            "structured=true constrains the EXECUTION call, which {} does not have \
             (use it on wildfire, or independent/swarmsys here)",
            c.entry.info().id
        ),
    ))
}

/// `independent` reads one option, `structured` (docs/design/tools.md §8); the registry
/// refuses any other.
fn independent(
    o: &mut PolicyOptions,
    ctx: &PolicyContext,
) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError> {
    let structured = crate::choice(o, "structured", "true|false")?.is_some_and(|v| v == "true");
    Ok(Box::new(
        Independent::new(ctx.caller.clone()).structured(structured),
    ))
}

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
