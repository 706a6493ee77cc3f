//! Built-in non-LLM policies (`random`, `noop`, an environment's heuristics) behind one
//! object-safe interface, so `colony env run` drives any environment with any of them.
//!
//! An environment crate writes its heuristics against its own typed API ([`Policy`]) and hands
//! them out boxed with [`typed_policy`]; [`RandomPolicy`] and [`NoopPolicy`] work for every
//! environment through [`DynEnvironment`].

use std::collections::BTreeMap;
use std::marker::PhantomData;

use crate::{AgentId, DynEnvironment, EnvError, Environment};

/// A scripted policy written against an environment's typed API.
pub trait Policy<E: Environment> {
    /// One action per agent for the current state (agents left out take the no-op).
    fn act(&mut self, env: &E) -> BTreeMap<AgentId, E::Action>;
}

/// The object-safe form of a policy: picks action texts for a [`DynEnvironment`]. `Send`, so
/// an async episode loop can own one.
pub trait DynPolicy: Send {
    /// Action texts per agent for the environment's current state.
    fn act_text(&mut self, env: &dyn DynEnvironment)
        -> Result<BTreeMap<AgentId, String>, EnvError>;
}

/// Adapter from a typed [`Policy`] to [`DynPolicy`] (see [`typed_policy`]).
struct TypedPolicy<E, P> {
    policy: P,
    env: PhantomData<fn(&E)>,
}

impl<E: Environment + 'static, P: Policy<E> + Send> DynPolicy for TypedPolicy<E, P> {
    fn act_text(
        &mut self,
        env: &dyn DynEnvironment,
    ) -> Result<BTreeMap<AgentId, String>, EnvError> {
        let typed = env
            .as_any()
            .downcast_ref::<E>()
            .ok_or_else(|| EnvError::State {
                field: "<environment>".into(),
                message: format!("policy written for another environment than {}", env.id()),
            })?;
        Ok(self
            .policy
            .act(typed)
            .into_iter()
            .map(|(agent, action)| {
                let text = typed.format_action(&agent, &action);
                (agent, text)
            })
            .collect())
    }
}

/// Boxes a typed policy for environments of type `E`.
pub fn typed_policy<E: Environment + 'static, P: Policy<E> + Send + 'static>(
    policy: P,
) -> Box<dyn DynPolicy> {
    Box::new(TypedPolicy {
        policy,
        env: PhantomData,
    })
}

// SplitMix64 lives with the other generators in `crate::rng`; this path stays for callers.
pub use crate::rng::splitmix64;

/// Uniformly random valid actions (the environment's `random_action`), seeded.
#[derive(Debug, Clone)]
pub struct RandomPolicy {
    state: u64,
}

impl RandomPolicy {
    /// A random policy whose draws are fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            state: seed ^ 0x7261_6e64_6f6d,
        }
    }
}

impl DynPolicy for RandomPolicy {
    fn act_text(
        &mut self,
        env: &dyn DynEnvironment,
    ) -> Result<BTreeMap<AgentId, String>, EnvError> {
        Ok(env
            .agents()
            .into_iter()
            .map(|a| {
                let text = env.random_action_text(&a, splitmix64(&mut self.state));
                (a, text)
            })
            .collect())
    }
}

/// Every agent takes the no-op (the Do-Nothing baseline).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopPolicy;

impl DynPolicy for NoopPolicy {
    fn act_text(
        &mut self,
        _env: &dyn DynEnvironment,
    ) -> Result<BTreeMap<AgentId, String>, EnvError> {
        // Agents not named take the environment's no-op (DESIGN.md, `env step`).
        Ok(BTreeMap::new())
    }
}
