//! SwarmBench's numeric spaces: the actions as a `Discrete` over the
//! reference's action order, and the agent's view as a `(rows, cols, 8)` one-hot grid.
//!
//! Decision (the paper and the reference have no numeric form; this is ours, documented in
//! README "From Python"): channels are 0 off the map (`*`), 1 wall `W`, 2 `B`, 3 `P`, 4 `F`,
//! 5 `N`, 6 an agent, 7 the observer's own cell. A local view is `k × k`; the commander's
//! global view (appendix L.3) is the whole map. Messages stay in the text interface.

use colony_env_api::numeric::{code_error, NumericSpaces};
use colony_env_api::EnvError;

use crate::config::Task;
use crate::reply::{Move, Reply};
use crate::view::{View, ViewCell};

use super::SwarmEnv;

/// Number of channels of a numeric view.
pub const CHANNELS: usize = 8;

impl SwarmEnv {
    /// The numeric view's `(rows, cols)` of agent `i`.
    fn numeric_view_shape(&self, i: usize) -> (usize, usize) {
        if self.cfg.commander && i == 0 {
            (self.world.height as usize, self.world.width as usize)
        } else {
            let k = self.cfg.view.max(0) as usize;
            (k, k)
        }
    }

    /// [`colony_env_api::NumericInterface::numeric_spaces`] for SwarmBench.
    pub(crate) fn numeric(&self, agent: &str) -> Option<NumericSpaces> {
        let i = self.agent_index(agent).ok()?;
        let (rows, cols) = self.numeric_view_shape(i);
        let moves = Move::valid(self.cfg.task == Task::Synchronization);
        Some(NumericSpaces {
            actions: vec![moves.len() as u32],
            shape: vec![rows, cols, CHANNELS],
            low: 0.0,
            high: 1.0,
        })
    }

    /// The reply a numeric action code stands for (no message).
    pub(crate) fn reply_from_code(&self, agent: &str, code: &[i64]) -> Result<Reply, EnvError> {
        self.agent_index(agent)?;
        let moves = Move::valid(self.cfg.task == Task::Synchronization);
        let pick = match code {
            [c] => usize::try_from(*c).ok().and_then(|c| moves.get(c)),
            _ => None,
        };
        let action = pick.copied().ok_or_else(|| {
            code_error(
                agent,
                format!("{code:?} is not one action in 0..{}", moves.len()),
            )
        })?;
        Ok(Reply {
            action: Some(action),
            message: String::new(),
        })
    }

    /// Writes agent `agent`'s one-hot view into `out` (row-major `(row, col, channel)`).
    pub(crate) fn observe_view_numeric(
        &self,
        agent: &str,
        out: &mut [f32],
    ) -> Result<(), EnvError> {
        let i = self.agent_index(agent)?;
        let mut view = View::empty();
        self.view_of(i, &mut view);
        let len = view.cells.len() * CHANNELS;
        if out.len() != len {
            return Err(EnvError::Param {
                key: "numeric".into(),
                message: format!("an observation buffer of {} for {len} values", out.len()),
            });
        }
        out.fill(0.0);
        for (n, cell) in view.cells.iter().enumerate() {
            let channel = match cell {
                ViewCell::Off => Some(0),
                ViewCell::Sym('W') => Some(1),
                ViewCell::Sym('B') => Some(2),
                ViewCell::Sym('P') => Some(3),
                ViewCell::Sym('F') => Some(4),
                ViewCell::Sym('N') => Some(5),
                ViewCell::Agent { .. } => Some(6),
                ViewCell::Sym(_) => None,
            };
            if let Some(ch) = channel {
                out[n * CHANNELS + ch] = 1.0;
            }
        }
        if let Some((r, c)) = view.own {
            let n = (r * view.cols + c) as usize;
            if let Some(v) = out.get_mut(n * CHANNELS + 7) {
                *v = 1.0;
            }
        }
        Ok(())
    }
}
