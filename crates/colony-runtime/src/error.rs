//! [`RuntimeError`]: everything an ask, a message or a team operation can fail with.
//!
//! Every variant names the agent involved so a one-line message tells the user which agent of
//! a large team failed and why; model failures keep the typed [`ModelError`] as their source so
//! callers can still branch on its class.

use std::time::Duration;

use thiserror::Error;

use super::AgentId;
use colony_llm::ModelError;

/// A failure of the actor runtime.
#[derive(Debug, Error)]
pub enum RuntimeError {
    /// The agent's model failed (after the model's own retries).
    #[error("agent {agent}: model call failed: {source}")]
    Model {
        /// The agent whose call failed.
        agent: AgentId,
        /// The model's error.
        #[source]
        source: ModelError,
    },
    /// The agent's task is gone (it panicked or the team was dropped), so nobody will answer.
    #[error("agent {agent}: the agent has stopped (its task ended or panicked)")]
    AgentStopped {
        /// The stopped agent.
        agent: AgentId,
    },
    /// No agent with this id exists in the team.
    #[error("agent {agent}: no such agent in this team")]
    UnknownAgent {
        /// The requested id.
        agent: AgentId,
    },
    /// An agent with this id already exists in the team.
    #[error("agent {agent}: an agent with this id already exists in the team")]
    DuplicateAgent {
        /// The duplicated id.
        agent: AgentId,
    },
    /// No reply arrived within the ask's deadline (queueing included); the agent moved on.
    #[error("agent {agent}: no reply within the deadline of {:.3}s", .after.as_secs_f64())]
    Timeout {
        /// The agent that was asked.
        agent: AgentId,
        /// The deadline that passed.
        after: Duration,
    },
    /// The run's call or token budget is spent; no further model calls are made.
    #[error("agent {agent}: run budget exhausted: {used} of {limit} {kind} used, no further model calls are made")]
    BudgetExhausted {
        /// The agent whose ask was refused.
        agent: AgentId,
        /// Which budget: `"calls"` or `"tokens"`.
        kind: &'static str,
        /// The configured limit.
        limit: u64,
        /// What had been used when the ask was refused.
        used: u64,
    },
    /// The team was shut down (or cancelled) before the agent answered.
    #[error("agent {agent}: the team has been shut down")]
    ShutDown {
        /// The agent that was asked.
        agent: AgentId,
    },
    /// Agents can only be spawned from inside a tokio runtime.
    #[error("agent {agent}: cannot spawn the agent outside a tokio runtime")]
    NoRuntime {
        /// The agent that could not be spawned.
        agent: AgentId,
    },
}

impl RuntimeError {
    /// The agent this error is about.
    pub fn agent(&self) -> &AgentId {
        match self {
            Self::Model { agent, .. }
            | Self::AgentStopped { agent }
            | Self::UnknownAgent { agent }
            | Self::DuplicateAgent { agent }
            | Self::Timeout { agent, .. }
            | Self::BudgetExhausted { agent, .. }
            | Self::ShutDown { agent }
            | Self::NoRuntime { agent } => agent,
        }
    }

    /// True for budget exhaustion, after which the whole run should stop.
    pub fn is_budget_exhausted(&self) -> bool {
        matches!(self, Self::BudgetExhausted { .. })
    }
}
