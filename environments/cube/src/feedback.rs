//! The optional per-step feedback hook (docs/design/cube.md §10, Decision): a user function that
//! reads the state and the step's events (typically through the concepts) and returns messages for
//! agents. The environment calls it after every step; it never changes the dynamics.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::dynamics::CubeEvent;
use crate::world::World;

/// One feedback message, for one agent or the whole team.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feedback {
    /// Addressee (`None` = every agent).
    pub agent: Option<usize>,
    /// The message.
    pub text: String,
}

/// The function type of a hook.
pub type FeedbackFn = dyn Fn(&World, &[CubeEvent]) -> Vec<Feedback> + Send + Sync;

/// A feedback function: `(state after the step, events of the step) → messages`.
#[derive(Clone)]
pub struct FeedbackHook(pub Arc<FeedbackFn>);

impl FeedbackHook {
    /// Wraps a closure.
    pub fn new(f: impl Fn(&World, &[CubeEvent]) -> Vec<Feedback> + Send + Sync + 'static) -> Self {
        FeedbackHook(Arc::new(f))
    }
}

impl fmt::Debug for FeedbackHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FeedbackHook(..)")
    }
}
