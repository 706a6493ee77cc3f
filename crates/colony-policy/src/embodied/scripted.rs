//! `scripted:<name>`: the built-in non-LLM policies (`random`, `noop`, each environment's
//! heuristics) through the same episode loop as the LLM policies, so result tables put them
//! side by side. They read the whole environment state ([`EmbodiedPolicy::decide_now`]).

use std::collections::BTreeMap;

use async_trait::async_trait;
use colony_env_api::{AgentId, DynEnvironment, DynPolicy};

use super::{Decision, EmbodiedError, EmbodiedPolicy, StepView};

/// A built-in policy of `colony env run` as an [`EmbodiedPolicy`].
pub struct Scripted {
    name: String,
    policy: Box<dyn DynPolicy>,
}

impl std::fmt::Debug for Scripted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scripted")
            .field("name", &self.name)
            .finish()
    }
}

impl Scripted {
    /// Wraps `policy` under the result name `name` (e.g. `scripted:heuristic`).
    pub fn new(name: impl Into<String>, policy: Box<dyn DynPolicy>) -> Self {
        Self {
            name: name.into(),
            policy,
        }
    }
}

#[async_trait]
impl EmbodiedPolicy for Scripted {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide_now(
        &mut self,
        env: &dyn DynEnvironment,
    ) -> Option<Result<BTreeMap<AgentId, String>, EmbodiedError>> {
        Some(self.policy.act_text(env).map_err(EmbodiedError::from))
    }

    async fn decide(&mut self, view: StepView) -> Result<Decision, EmbodiedError> {
        // Unreachable through the episode loop (decide_now always answers); kept total.
        Err(EmbodiedError::Unsupported {
            policy: self.name.clone(),
            env: view.env_id,
            reason: "a scripted policy decides from the environment state, not from views".into(),
        })
    }
}
