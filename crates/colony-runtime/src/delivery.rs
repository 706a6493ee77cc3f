//! Message filters: who receives a message, decided by the environment.
//!
//! Embodied environments restrict communication (SwarmBench agents only hear peers within a
//! radius, Wildfire teams share a channel), so the team does not decide who hears what: the
//! caller passes a [`MessageFilter`], and [`Team::deliver_where`](super::Team::deliver_where)
//! delivers to every other agent it accepts. Any `Fn(&AgentId, &AgentId) -> bool` closure is a
//! filter.

use std::collections::BTreeSet;

use super::AgentId;

/// Decides whether a message from `from` reaches `to`.
pub trait MessageFilter {
    /// True when `to` should receive the message sent by `from`.
    fn accepts(&self, from: &AgentId, to: &AgentId) -> bool;
}

impl<F: Fn(&AgentId, &AgentId) -> bool> MessageFilter for F {
    fn accepts(&self, from: &AgentId, to: &AgentId) -> bool {
        self(from, to)
    }
}

/// Every agent receives the message (a broadcast).
#[derive(Debug, Clone, Copy, Default)]
pub struct Everyone;

impl MessageFilter for Everyone {
    fn accepts(&self, _from: &AgentId, _to: &AgentId) -> bool {
        true
    }
}

/// Only the listed agents receive the message (a multicast).
#[derive(Debug, Clone, Default)]
pub struct Only(pub BTreeSet<AgentId>);

impl Only {
    /// A filter accepting exactly these agents.
    pub fn new<I: IntoIterator<Item = T>, T: Into<AgentId>>(ids: I) -> Self {
        Self(ids.into_iter().map(Into::into).collect())
    }
}

impl MessageFilter for Only {
    fn accepts(&self, _from: &AgentId, to: &AgentId) -> bool {
        self.0.contains(to)
    }
}
