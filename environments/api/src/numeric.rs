//! Numeric spaces: an optional fixed-size encoding of an environment's actions and
//! observations, for reinforcement-learning front ends (colony's PettingZoo
//! environments and their vector form).
//!
//! The text interface stays the primary one (it is what LLM agents see). An environment that
//! also offers numbers implements [`crate::NumericInterface`] and returns it from
//! [`crate::Environment::numeric`]; the
//! Python package turns them into `gymnasium.spaces.MultiDiscrete`/`Discrete` and `Box`.

use serde::Serialize;

use crate::EnvError;

/// One agent's numeric action and observation spaces.
///
/// Decision: every code inside `actions` must decode to a valid action (PettingZoo's API test
/// samples the whole space), so environments choose encodings without invalid corners.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NumericSpaces {
    /// Choices per action component (a `MultiDiscrete`'s `nvec`); one component is a
    /// `Discrete`.
    pub actions: Vec<u32>,
    /// Observation shape, row-major.
    pub shape: Vec<usize>,
    /// Lower bound of every observation element.
    pub low: f32,
    /// Upper bound of every observation element.
    pub high: f32,
}

impl NumericSpaces {
    /// Number of observation elements (the product of `shape`).
    pub fn observation_len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Checks `code` against the action space: the right length and every component in range.
    pub fn check_code(&self, agent: &str, code: &[i64]) -> Result<(), EnvError> {
        if code.len() != self.actions.len() {
            return Err(code_error(
                agent,
                format!(
                    "an action code has {} components, not {}",
                    self.actions.len(),
                    code.len()
                ),
            ));
        }
        for (i, (&c, &n)) in code.iter().zip(&self.actions).enumerate() {
            if c < 0 || c >= i64::from(n) {
                return Err(code_error(
                    agent,
                    format!("action component {i} is {c}, outside 0..{n}"),
                ));
            }
        }
        Ok(())
    }
}

/// The error of an action code an agent cannot take.
pub fn code_error(agent: &str, message: String) -> EnvError {
    EnvError::Action {
        agent: agent.to_string(),
        message,
    }
}

/// The error of an environment without numeric spaces.
pub fn no_numeric_spaces(env: &str) -> EnvError {
    EnvError::Param {
        key: "numeric".into(),
        message: format!("{env} has no numeric spaces (use its text interface)"),
    }
}
