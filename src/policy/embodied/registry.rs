//! Embodied policies by name, as `colony compare --policies` and suites spell them (looked
//! up in the open [`crate::registry::Registry`], where these built-ins are registered):
//! `independent`, `selforg`, `swarmsys`, the CREW-Wildfire frameworks `camon`, `coela`, `embodied`, `hmas2`,
//! `scripted:<name>` (any built-in of `colony env run`: `random`, `noop`, the
//! environment's heuristics).

use colony_env_api::EnvEntry;

use super::{CallerConfig, EmbodiedError, EmbodiedPolicy, Independent, Scripted};

/// An embodied policy's constructor: the options text after `name:` (empty without options)
/// and the episode's context.
pub type BuildEmbodied = fn(&str, &PolicyContext) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError>;

/// The built-in LLM embodied policies: name, one-line help, constructor (scripted ones are
/// `scripted:<built-in>` of the environment). colony registers them in
/// [`crate::registry::Registry::builtin`] like any plugin.
pub const BUILTIN: &[(&str, &str, BuildEmbodied)] = &[
    (
        "independent",
        "each agent answers its own prompt (the benchmark's own protocol), no options",
        independent,
    ),
    (
        "camon",
        "CAMON: a leader coordinates by dynamic broadcasts",
        |o, c| {
            Ok(Box::new(super::framework_step::Framework::<
                super::camon::Camon,
            >::new(c.caller.clone(), o)?))
        },
    ),
    (
        "coela",
        "COELA: modular agents that plan and talk",
        |o, c| {
            Ok(Box::new(super::framework_step::Framework::<
                super::coela::Coela,
            >::new(c.caller.clone(), o)?))
        },
    ),
    (
        "embodied",
        "Embodied: agents negotiate before acting",
        |o, c| {
            Ok(Box::new(super::framework_step::Framework::<
                super::embodied_fw::EmbodiedFramework,
            >::new(c.caller.clone(), o)?))
        },
    ),
    (
        "hmas2",
        "HMAS-2: a central planner with agent feedback",
        |o, c| {
            Ok(Box::new(super::framework_step::Framework::<
                super::hmas2::Hmas2,
            >::new(c.caller.clone(), o)?))
        },
    ),
    (
        "selforg",
        "SelfOrg's graph over the agents' proposals",
        |o, c| {
            Ok(Box::new(super::selforg::EmbodiedSelfOrg::new(
                c.caller.clone(),
                o,
            )?))
        },
    ),
    (
        "swarmsys",
        "SwarmSys: sub-goals as events, matched to agents",
        |o, c| {
            Ok(Box::new(super::swarmsys::EmbodiedSwarmSys::new(
                c.caller.clone(),
                o,
                c.entry,
            )?))
        },
    ),
];

fn independent(
    options: &str,
    ctx: &PolicyContext,
) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError> {
    if !options.trim().is_empty() {
        return Err(EmbodiedError::Config {
            policy: format!("independent:{options}"),
            message: format!("independent takes no options, got {options:?}"),
        });
    }
    Ok(Box::new(Independent::new(ctx.caller.clone())))
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

/// Builds the policy `spec` for one episode; unknown names and options are errors listing
/// what exists.
pub fn embodied_policy(
    spec: &str,
    ctx: &PolicyContext,
) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError> {
    let spec = spec.trim();
    if let Some(name) = spec.strip_prefix("scripted:") {
        let policy = ctx
            .entry
            .make_policy(name, ctx.seed)
            .map_err(|e| EmbodiedError::config(spec, e))?;
        return Ok(Box::new(Scripted::new(spec, policy)));
    }
    let (name, options) = spec.split_once(':').unwrap_or((spec, ""));
    crate::registry::Registry::current().embodied(name.trim(), options, ctx)
}

/// True when `spec` names a policy that calls models (so runs need a model): every policy
/// but the environment's scripted ones and registered policies that declare no model use.
pub fn uses_models(spec: &str) -> bool {
    let spec = spec.trim();
    if spec.starts_with("scripted:") {
        return false;
    }
    let name = spec.split_once(':').map_or(spec, |(n, _)| n).trim();
    crate::registry::Registry::current().embodied_uses_models(name)
}
