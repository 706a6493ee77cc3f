//! colony-runtime, the actor runtime (docs/design/architecture.md §2; re-exported as
//! `colony::runtime`): agents as tokio tasks with bounded mailboxes, organised in a [`Team`].
//!
//! - [`Team`] / [`TeamBuilder`]: spawn agents and talk to them: [`Team::ask`] and
//!   [`Team::ask_with`] (many in flight at once), [`Team::tell`], [`Team::broadcast`],
//!   [`Team::deliver_where`] (environment-restricted delivery through a [`MessageFilter`]),
//!   [`Team::reset_memory`], [`Team::shutdown`].
//! - [`AgentSpec`]: an agent's id ([`AgentId`]), [`RoleCard`] (TOML in `roles/`), model (each
//!   agent may have its own) and initial memory.
//! - [`Transcript`]: every call (full prompt, reply, usage, latency) and message, in a
//!   deterministic `(agent, seq)` order, serializable for replay viewers.
//! - [`Budget`]: call and token caps enforced atomically; once spent, every ask fails fast.
//! - [`RuntimeError`]: typed failures, each naming its agent.
//!
//! Usage accounting goes into the team's [`UsageLedger`](colony_llm::UsageLedger)
//! ([`Team::usage`]); deadlines and cancellation reach the model call itself, so a caller that
//! gives up frees the agent.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use colony_llm::{SharedModel, SimulatedModel, SimulatedConfig};
//! use colony_runtime::{AgentSpec, Budget, RoleCard, Team};
//!
//! let role = Arc::new(RoleCard::load("roles/assistant.toml")?);
//! let model: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig::default()));
//! let team = Team::builder()
//!     .budget(Budget::calls(100))
//!     .agents((0..4).map(|i| AgentSpec::new(format!("agent_{i}"), role.clone(), model.clone())))
//!     .build()?;
//! let reply = team.ask("agent_0", "What is 2 + 2?").await?;
//! team.broadcast("agent_0", reply.text).await?;
//! let transcript = team.transcript();
//! # let _ = transcript; Ok(()) }
//! ```

mod agent;
mod ask;
mod budget;
mod delivery;
mod error;
mod id;
mod role;
mod team;
pub mod tools;
mod transcript;

pub use agent::{tagged_message, AgentSpec};
pub use ask::{AskOptions, Reply};
pub use budget::{Budget, BudgetExceeded, BudgetMeter, BudgetUsage};
pub use delivery::{Everyone, MessageFilter, Only};
pub use error::RuntimeError;
pub use id::AgentId;
pub use role::{RoleCard, RoleError};
pub use team::{Team, TeamBuilder, TeamConfig};
pub use tools::{
    SharedTool, Tool, ToolError, ToolLimits, ToolLoop, ToolSet, ToolSetError, MAX_TOOL_ROUNDS,
};
pub use transcript::{
    CallRecord, Event, FailureRecord, MessageRecord, Transcript, TranscriptEntry,
};
