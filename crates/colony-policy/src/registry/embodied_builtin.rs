//! The built-in embodied policies' constructors, registered by
//! [`super::Registry::builtin`] through the same public method a plugin calls: `independent`,
//! `selforg`, `swarmsys` and the CREW-Wildfire frameworks `camon`, `coela`, `embodied`,
//! `hmas2`. The table sits in the registry, above every policy family, so that no policy
//! module names another (docs/design/architecture.md §2).

use crate::embodied::{BuildEmbodied, EmbodiedError, EmbodiedPolicy, Independent, PolicyContext};
use crate::PolicyOptions;

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
        |o, c| framework::<crate::embodied::camon::Camon>(o, c),
    ),
    (
        "coela",
        "COELA: modular agents that plan and talk",
        |o, c| framework::<crate::embodied::coela::Coela>(o, c),
    ),
    (
        "embodied",
        "Embodied: agents negotiate before acting",
        |o, c| framework::<crate::embodied::embodied_fw::EmbodiedFramework>(o, c),
    ),
    (
        "hmas2",
        "HMAS-2: a central planner with agent feedback",
        |o, c| framework::<crate::embodied::hmas2::Hmas2>(o, c),
    ),
    (
        "selforg",
        "SelfOrg's graph over the agents' proposals; structured=true constrains EXECUTION (wildfire)",
        |o, c| {
            let p = crate::selforg::embodied::EmbodiedSelfOrg::with_options(c.caller.clone(), o)?;
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
                crate::swarmsys::embodied::EmbodiedSwarmSys::new(c.caller.clone(), "", c.entry)?
                    .structured(structured),
            ))
        },
    ),
];

/// A CREW-Wildfire framework with its options (`structured=true` constrains the call whose
/// reply is the action: the environment's EXECUTION call, or the one the framework adds where
/// there is none; `crate::embodied::framework::execute`).
fn framework<S: crate::embodied::framework_step::FrameworkSteps + 'static>(
    o: &mut PolicyOptions,
    c: &PolicyContext,
) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError> {
    let f = crate::embodied::framework_step::Framework::<S>::with_options(c.caller.clone(), o)?;
    Ok(Box::new(f))
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
