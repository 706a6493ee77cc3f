//! Errors of the wildfire crate; each names the level, field or text at fault.

use thiserror::Error;

/// Errors of setup, parsing and metrics.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum WildfireError {
    /// A level setup placement could not be satisfied (only on degenerate maps).
    #[error("level {level}: cannot place {what} after {draws} draws (map too small?)")]
    Setup {
        /// Level id.
        level: String,
        /// What was being placed.
        what: String,
        /// Draws attempted.
        draws: u32,
    },
    /// An action code that does not parse (docs/design/wildfire.md §11.2).
    #[error("action code {:?}: {message}", colony_env_api::clip(text))]
    ActionCode {
        /// The text.
        text: String,
        /// What is wrong.
        message: String,
    },
    /// A metrics input problem (unknown configuration, bad JSON).
    #[error("scores: {0}")]
    Metrics(String),
    /// A bad level configuration.
    #[error("level {level}: {message}")]
    Level {
        /// Level id.
        level: String,
        /// What is wrong.
        message: String,
    },
}
