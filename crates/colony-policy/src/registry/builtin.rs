//! What colony ships, registered through the public [`Registry`] methods only (the one module
//! outside the environment crates that names them): the reasoning policies, the embodied
//! policies, the simulated-model responders of their prompts, the three environments, the
//! published reasoning datasets, the policies' prompt templates and SelfOrg's role pool.

use std::sync::Arc;

use super::{DatasetEntry, Registry};

/// Adds every built-in to `r`.
pub(super) fn register(mut r: Registry) -> Registry {
    for &(name, aliases, help, build) in super::BUILTIN_REASONING {
        r = r.reasoning_policy(name, help, build);
        for alias in aliases {
            r = r.alias(alias);
        }
    }
    for &(name, help, build) in super::BUILTIN_EMBODIED {
        r = r.embodied_policy(name, help, build);
    }
    for &dataset in colony_qa::Dataset::all() {
        r = r.dataset(DatasetEntry::published(dataset));
    }
    for &(name, text) in crate::TEMPLATES {
        r = r.template(name, text);
    }
    r = r
        .template("qa/math", colony_qa::MATH_TEMPLATE)
        .template("qa/choice", colony_qa::CHOICE_TEMPLATE);
    for &(file, text) in &crate::reasoning::role_pool::POOL {
        r = r.role_card(&format!("roles/selforg/{file}"), text);
    }
    r = r
        .tool(
            "python",
            "runs Python in the sandbox (--sandbox) and returns what it printed",
            |ctx| {
                colony_tools::builtin("python", ctx).unwrap_or_else(|| unreachable_tool("python"))
            },
        )
        .tool(
            "calculator",
            "exact rational arithmetic on one expression (+ - * / ^, parentheses)",
            |ctx| {
                colony_tools::builtin("calculator", ctx)
                    .unwrap_or_else(|| unreachable_tool("calculator"))
            },
        );
    use crate::embodied::framework_sim::FrameworkResponder;
    r.responder(crate::swarmsys::reasoning::sim::SwarmSysResponder)
        .responder(crate::reasoning::baseline_sim::BaselineResponder)
        .responder(crate::reasoning::self_refine::SelfRefineResponder)
        .responder(crate::reasoning::multipersona::MultiPersonaResponder)
        .responder(crate::reasoning::autogen::AutoGenResponder)
        .responder(crate::reasoning::mad::MadResponder)
        .responder(crate::reasoning::code_sim::CodeResponder)
        .responder_over_environments(|envs| Arc::new(FrameworkResponder::first(envs)))
        .fallback_responder_over_environments(|envs| Arc::new(FrameworkResponder::fallback(envs)))
        .environment(colony_cube::entry())
        .environment(colony_swarmbench::entry())
        .environment(colony_wildfire::entry())
}

/// A built-in name colony-tools does not know: cannot happen (both sides are this crate's
/// build), reported as an unknown tool rather than a panic.
fn unreachable_tool(name: &str) -> Result<colony_runtime::SharedTool, colony_tools::ToolsError> {
    Err(colony_tools::ToolsError::UnknownTool {
        name: name.to_string(),
        known: colony_tools::BUILTIN_TOOLS.join(", "),
    })
}
