//! Embodied policies by name, as `colony compare --policies` and suites spell them:
//! `independent`, `selforg`, `swarmsys`, the CREW-Wildfire frameworks `camon`, `coela`, `embodied`, `hmas2`,
//! `scripted:<name>` (any built-in of `colony env run`: `random`, `noop`, the
//! environment's heuristics).

use colony_env_api::EnvEntry;

use super::{CallerConfig, EmbodiedError, EmbodiedPolicy, Independent, Scripted};

/// Names of the LLM policies (scripted ones are `scripted:<built-in>`).
pub const EMBODIED_POLICY_NAMES: &[&str] = &[
    "independent",
    "camon",
    "coela",
    "embodied",
    "hmas2",
    "selforg",
    "swarmsys",
];

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
            .map_err(|e| EmbodiedError::Config {
                policy: spec.to_string(),
                message: e.to_string(),
            })?;
        return Ok(Box::new(Scripted::new(spec, policy)));
    }
    let (name, options) = spec.split_once(':').unwrap_or((spec, ""));
    match name {
        "independent" => {
            if !options.trim().is_empty() {
                return Err(EmbodiedError::Config {
                    policy: spec.to_string(),
                    message: format!("independent takes no options, got {options:?}"),
                });
            }
            Ok(Box::new(Independent::new(ctx.caller.clone())))
        }
        "camon" => Ok(Box::new(super::camon::Camon::new(
            ctx.caller.clone(),
            options,
        )?)),
        "coela" => Ok(Box::new(super::coela::Coela::new(
            ctx.caller.clone(),
            options,
        )?)),
        "embodied" => Ok(Box::new(super::embodied_fw::EmbodiedFramework::new(
            ctx.caller.clone(),
            options,
        )?)),
        "hmas2" => Ok(Box::new(super::hmas2::Hmas2::new(
            ctx.caller.clone(),
            options,
        )?)),
        "selforg" => Ok(Box::new(super::selforg::EmbodiedSelfOrg::new(
            ctx.caller.clone(),
            options,
        )?)),
        "swarmsys" => Ok(Box::new(super::swarmsys::EmbodiedSwarmSys::new(
            ctx.caller.clone(),
            options,
            &ctx.entry.info().id,
        )?)),
        other => Err(EmbodiedError::Config {
            policy: spec.to_string(),
            message: format!(
                "unknown policy {other:?}; known: {}, scripted:<{}>",
                EMBODIED_POLICY_NAMES.join(", "),
                {
                    let mut b = vec!["random", "noop"];
                    b.extend(ctx.entry.policy_names());
                    b.join("|")
                }
            ),
        }),
    }
}

/// True when `spec` names a policy that calls models (so runs need a model).
pub fn uses_models(spec: &str) -> bool {
    !spec.trim().starts_with("scripted:")
}
