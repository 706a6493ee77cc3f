//! The seven symbolic actions: raw calls as submitted, their argument validation with the
//! spec's defaults (docs/design/cube.md §9.2), and formatting; and [`CubeAction`], one agent's
//! action, which holds a plan of calls. Data only: running plans is [`crate::executor`], so the
//! reply parsers and the environment both depend on this module and not on each other.
//!
//! Plans keep the raw [`SymbolicCall`]s so that an invalid call still reaches the executor and
//! ends with `failed:invalid_args` at its first poll, as the argument-error rule requires.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::geometry::{Face, Prim};

/// One agent's action: a primitive (manual control, preempts any plan), a symbolic plan
/// (replaces the agent's plan), or `Continue` (keep executing the plan; `STAY` without one).
#[derive(Debug, Clone, PartialEq)]
pub enum CubeAction {
    /// A primitive for this step.
    Prim(Prim),
    /// A new plan for the executor.
    Plan(Vec<SymbolicCall>),
    /// Keep going (the no-op).
    Continue,
}

/// One symbolic action call as submitted: a name and named arguments (JSON values).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SymbolicCall {
    /// Action name (`move_to_block`, …).
    pub action: String,
    /// Named arguments.
    #[serde(default)]
    pub args: BTreeMap<String, Value>,
}

impl SymbolicCall {
    /// A call from a name and `(key, value)` pairs.
    pub fn new<const N: usize>(action: &str, args: [(&str, Value); N]) -> SymbolicCall {
        SymbolicCall {
            action: action.to_string(),
            args: args.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        }
    }
}

impl fmt::Display for SymbolicCall {
    /// The one-call-per-line form: `push_block(block=2, steps=3)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let order = param_names(&self.action).unwrap_or(&[]);
        let mut keys: Vec<&String> = self.args.keys().collect();
        keys.sort_by_key(|k| order.iter().position(|p| p == k).unwrap_or(usize::MAX));
        let args: Vec<String> = keys
            .into_iter()
            .map(|k| match &self.args[k] {
                Value::String(s) => format!("{k}={s}"),
                v => format!("{k}={v}"),
            })
            .collect();
        write!(f, "{}({})", self.action, args.join(", "))
    }
}

/// The seven action names, in the order of the paper's Table 1.
pub const ACTION_NAMES: [&str; 7] = [
    "move",
    "move_to_block",
    "rendezvous",
    "push_block",
    "yield_block",
    "idle",
    "wait_agents",
];

/// Parameter names of an action in positional order (`None` for an unknown action).
pub fn param_names(action: &str) -> Option<&'static [&'static str]> {
    Some(match action {
        "move" => &["direction", "steps"],
        "move_to_block" => &["block", "face", "timeout"],
        "rendezvous" => &["block", "face", "count", "timeout"],
        "push_block" => &["block", "steps", "timeout"],
        "yield_block" => &["block", "steps"],
        "idle" => &["steps"],
        "wait_agents" => &["count", "timeout"],
        _ => return None,
    })
}

/// A validated symbolic action with defaults filled in (design §9.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum SymbolicAction {
    /// Issue `direction` for `steps` steps.
    Move {
        /// Direction.
        direction: Prim,
        /// Steps.
        steps: i64,
    },
    /// Path-find to a cell aligned with the face.
    MoveToBlock {
        /// Block id (may be gone).
        block: i64,
        /// Face.
        face: Face,
        /// Timeout (default 40).
        timeout: i64,
    },
    /// Wait aligned with the face until `count` agents are in the same rendezvous.
    Rendezvous {
        /// Block id.
        block: i64,
        /// Face.
        face: Face,
        /// Quorum (including the agent).
        count: i64,
        /// Timeout (default 2·K).
        timeout: i64,
    },
    /// Push toward the block until it advanced `steps` cells.
    PushBlock {
        /// Block id.
        block: i64,
        /// Advances wanted.
        steps: i64,
        /// Timeout (default steps + 20).
        timeout: i64,
    },
    /// Step away from the block `steps` times.
    YieldBlock {
        /// Block id.
        block: i64,
        /// Steps.
        steps: i64,
    },
    /// Stay `steps` steps.
    Idle {
        /// Steps.
        steps: i64,
    },
    /// Wait until `count` agents wait.
    WaitAgents {
        /// Quorum (including the agent).
        count: i64,
        /// Timeout (default 2·K).
        timeout: i64,
    },
}

impl SymbolicAction {
    /// The `steps` argument, for actions that have one.
    pub fn steps(&self) -> Option<i64> {
        match *self {
            SymbolicAction::Move { steps, .. }
            | SymbolicAction::PushBlock { steps, .. }
            | SymbolicAction::YieldBlock { steps, .. }
            | SymbolicAction::Idle { steps } => Some(steps),
            _ => None,
        }
    }
}

/// Why a symbolic call is invalid (the argument-error rule of design §9.2); one-line messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SymbolicError {
    /// The action name is not one of the seven actions.
    #[error("unknown action {action:?}; known: {known}")]
    UnknownAction {
        /// The name given.
        action: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// An argument key the action does not take.
    #[error("{action} has no argument {key:?}; arguments: {arguments}")]
    UnknownArgument {
        /// The action.
        action: String,
        /// The key given.
        key: String,
        /// The action's argument names, comma-separated.
        arguments: String,
    },
    /// A required argument is missing (or null).
    #[error("missing required argument {key}")]
    Missing {
        /// The argument.
        key: String,
    },
    /// An argument that must be an integer is not one.
    #[error("{key} must be an integer, got {got}")]
    NotInteger {
        /// The argument.
        key: String,
        /// The value given, as shown (clipped).
        got: String,
    },
    /// An argument that must be a name (a string) is not one.
    #[error("{key} must be a name, got {got}")]
    NotName {
        /// The argument.
        key: String,
        /// The JSON value given.
        got: String,
    },
    /// A count or timeout is negative.
    #[error("{key} must not be negative, got {value}")]
    Negative {
        /// The argument.
        key: String,
        /// The value given.
        value: i64,
    },
    /// The `direction` of `move` is not up, down, left or right.
    #[error("unknown direction {direction:?}; expected up, down, left or right")]
    UnknownDirection {
        /// The direction given.
        direction: String,
    },
    /// The `face` argument names no face.
    #[error(transparent)]
    Face(#[from] colony_env_api::UnknownName),
}

fn int_arg(call: &SymbolicCall, key: &str) -> Result<Option<i64>, SymbolicError> {
    let not_integer = |got: String| SymbolicError::NotInteger {
        key: key.to_string(),
        got,
    };
    match call.args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| not_integer(n.to_string())),
        Some(Value::String(s)) => s
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| not_integer(format!("{:?}", colony_env_api::clip(s)))),
        Some(v) => Err(not_integer(colony_env_api::clip(&v.to_string()))),
    }
}

fn required<T>(v: Option<T>, key: &str) -> Result<T, SymbolicError> {
    v.ok_or_else(|| SymbolicError::Missing {
        key: key.to_string(),
    })
}

fn text_arg(call: &SymbolicCall, key: &str) -> Result<String, SymbolicError> {
    match call.args.get(key) {
        None | Some(Value::Null) => Err(SymbolicError::Missing {
            key: key.to_string(),
        }),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(SymbolicError::NotName {
            key: key.to_string(),
            got: v.to_string(),
        }),
    }
}

fn non_negative(v: i64, key: &str) -> Result<i64, SymbolicError> {
    if v < 0 {
        Err(SymbolicError::Negative {
            key: key.to_string(),
            value: v,
        })
    } else {
        Ok(v)
    }
}

/// Validates a call for a `k × k` grid: the argument-error rule of design §9.2 (missing
/// required arguments, unknown names, non-integers, negative count/timeout, unknown argument
/// keys). The error says what is wrong; the executor turns it into `failed:invalid_args`.
pub fn validate(call: &SymbolicCall, k: u32) -> Result<SymbolicAction, SymbolicError> {
    let names = param_names(&call.action).ok_or_else(|| SymbolicError::UnknownAction {
        action: call.action.clone(),
        known: ACTION_NAMES.join(", "),
    })?;
    if let Some(extra) = call.args.keys().find(|k| !names.contains(&k.as_str())) {
        return Err(SymbolicError::UnknownArgument {
            action: call.action.clone(),
            key: extra.clone(),
            arguments: names.join(", "),
        });
    }
    let two_k = 2 * i64::from(k);
    let face = || -> Result<Face, SymbolicError> {
        text_arg(call, "face")?
            .parse::<Face>()
            .map_err(SymbolicError::Face)
    };
    let int = |key: &str| int_arg(call, key);
    Ok(match call.action.as_str() {
        "move" => {
            let dir = text_arg(call, "direction")?;
            let direction = match dir.trim().to_ascii_lowercase().as_str() {
                "up" => Prim::Up,
                "down" => Prim::Down,
                "left" => Prim::Left,
                "right" => Prim::Right,
                _ => return Err(SymbolicError::UnknownDirection { direction: dir }),
            };
            SymbolicAction::Move {
                direction,
                steps: required(int("steps")?, "steps")?,
            }
        }
        "move_to_block" => {
            let block = required(int("block")?, "block")?;
            let face = face()?;
            let timeout = non_negative(int("timeout")?.unwrap_or(40), "timeout")?;
            SymbolicAction::MoveToBlock {
                block,
                face,
                timeout,
            }
        }
        "rendezvous" => {
            let block = required(int("block")?, "block")?;
            let face = face()?;
            let count = non_negative(required(int("count")?, "count")?, "count")?;
            let timeout = non_negative(int("timeout")?.unwrap_or(two_k), "timeout")?;
            SymbolicAction::Rendezvous {
                block,
                face,
                count,
                timeout,
            }
        }
        "push_block" => {
            let block = required(int("block")?, "block")?;
            let steps = required(int("steps")?, "steps")?;
            let timeout = non_negative(
                int("timeout")?.unwrap_or(steps.saturating_add(20)),
                "timeout",
            )?;
            SymbolicAction::PushBlock {
                block,
                steps,
                timeout,
            }
        }
        "yield_block" => SymbolicAction::YieldBlock {
            block: required(int("block")?, "block")?,
            steps: required(int("steps")?, "steps")?,
        },
        "idle" => SymbolicAction::Idle {
            steps: required(int("steps")?, "steps")?,
        },
        _ => SymbolicAction::WaitAgents {
            count: non_negative(required(int("count")?, "count")?, "count")?,
            timeout: non_negative(int("timeout")?.unwrap_or(two_k), "timeout")?,
        },
    })
}
