//! What building a reasoning policy needs: the constructor type every registered policy has
//! ([`BuildReasoning`]) and the shared resources it receives ([`ReasoningContext`]). The
//! built-in table that uses them is the registry's (`crate::registry`), above every policy.

use std::sync::Arc;

use super::{PolicyError, ReasoningPolicy};
use crate::options::PolicyOptions;

/// A reasoning policy's constructor: reads its options (unread ones are an error afterwards)
/// and builds the policy with what the run provides.
pub type BuildReasoning =
    fn(&mut PolicyOptions, &ReasoningContext) -> Result<Box<dyn ReasoningPolicy>, PolicyError>;

/// What a run hands a reasoning policy's constructor.
#[derive(Clone)]
#[non_exhaustive]
pub struct ReasoningContext {
    /// The embedder of the run (`--embedder`; SelfOrg and SwarmSys use it).
    pub embedder: Arc<dyn colony_llm::embed::Embedder>,
}

impl ReasoningContext {
    /// A context with `embedder`.
    pub fn new(embedder: Arc<dyn colony_llm::embed::Embedder>) -> Self {
        Self { embedder }
    }
}
