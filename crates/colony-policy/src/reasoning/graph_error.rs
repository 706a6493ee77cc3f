//! The error of building a communication graph among agents (SelfOrg's graph,
//! docs/design/selforg.md §1.7–§1.9), defined beside [`super::PolicyError`], which carries it,
//! so the policy core names no policy family.

use thiserror::Error;

/// Errors of graph construction.
#[derive(Debug, Error, PartialEq)]
pub enum GraphError {
    /// No agents (zero rows).
    #[error("no agents: the embedding matrix has no rows")]
    Empty,
    /// More agents than `MAX_GRAPH_AGENTS`.
    #[error("too many agents: {agents} (at most {max})")]
    TooManyAgents {
        /// Agents given.
        agents: usize,
        /// The limit, `MAX_GRAPH_AGENTS`.
        max: usize,
    },
    /// An embedding entry is NaN or infinite.
    #[error("the embedding of agent {agent} has a non-finite value at index {index}")]
    NonFiniteEmbedding {
        /// Row (agent) of the entry.
        agent: usize,
        /// Column of the entry.
        index: usize,
    },
    /// A similarity or contribution is NaN or infinite.
    #[error("non-finite similarity or contribution for agent {agent}")]
    NonFiniteInput {
        /// The agent whose row of S or ψ entry is not finite.
        agent: usize,
    },
    /// The threshold `tau` is NaN or infinite.
    #[error("tau must be a finite number, got {0}")]
    NonFiniteTau(f64),
    /// The similarity matrix is not N×N or ψ does not have N entries.
    #[error("shape mismatch: similarity is {rows}x{cols}, psi has {psi} entries")]
    Shape {
        /// Rows of S.
        rows: usize,
        /// Columns of S.
        cols: usize,
        /// Length of ψ.
        psi: usize,
    },
}
