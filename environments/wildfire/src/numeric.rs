//! Wildfire's numeric spaces, for reinforcement-learning front ends.
//!
//! Decision (documented in README "From Python"): an action is `[type, x, y]`, a
//! `MultiDiscrete([max_type + 2, map_size, map_size])` per agent kind. Types `0..=max_type`
//! are the kind's primitives of docs/design/wildfire.md §10 with `p1 = x`, `p2 = y` (types
//! without a target ignore them; "cut n trees" clamps `n` to 1–3); type `max_type + 1` is
//! `continue` (keep executing the current primitive). Every code in the space is valid. The
//! observation is the original flat layout of §9.2 (3728 values: kind code, the 61×61 window
//! padded with −1, `0, x, y`, the three status variables).

use colony_env_api::numeric::{code_error, NumericSpaces};
use colony_env_api::EnvError;

use crate::observe::observe_agent;
use crate::primitive::{max_type, Primitive, WildfireAction};
use crate::state::WildfireState;

/// Length of the flat observation (§9.2).
pub const OBSERVATION_LEN: usize = 3728;

/// Agent index `i`'s numeric spaces.
pub fn spaces(s: &WildfireState, i: usize) -> Option<NumericSpaces> {
    let a = s.agents.get(i)?;
    let size = s.grid.size as u32;
    // Cell codes and water are bytes; positions are below the map side; a helicopter carries
    // at most every agent.
    let high = [255, s.grid.size, s.agents.len()]
        .into_iter()
        .max()
        .unwrap_or(255) as f32;
    Some(NumericSpaces {
        actions: vec![u32::from(max_type(a.kind)) + 2, size, size],
        shape: vec![OBSERVATION_LEN],
        low: -1.0,
        high,
    })
}

/// The action of code `[type, x, y]` for agent index `i` (checked against its space first).
pub fn action(
    s: &WildfireState,
    i: usize,
    agent: &str,
    code: &[i64],
) -> Result<WildfireAction, EnvError> {
    let space = spaces(s, i).ok_or_else(|| EnvError::UnknownAgent(agent.into()))?;
    space.check_code(agent, code)?;
    let (t, x, y) = match code {
        [t, x, y] => (*t, *x, *y),
        _ => return Err(code_error(agent, format!("{code:?} is not [type, x, y]"))),
    };
    let kind = s.agents[i].kind;
    if t == i64::from(max_type(kind)) + 1 {
        return Ok(WildfireAction::Continue);
    }
    // In range by `check_code`: the type fits a byte and the coordinates the map.
    Ok(WildfireAction::Primitive(Primitive::new(
        t as u8,
        x as i32,
        y as i32,
        "numeric action",
    )))
}

/// Writes agent index `i`'s flat observation into `out`.
pub fn observe(s: &WildfireState, i: usize, agent: &str, out: &mut [f32]) -> Result<(), EnvError> {
    if i >= s.agents.len() {
        return Err(EnvError::UnknownAgent(agent.into()));
    }
    if out.len() != OBSERVATION_LEN {
        return Err(code_error(
            agent,
            format!(
                "an observation buffer of {} values, not {OBSERVATION_LEN}",
                out.len()
            ),
        ));
    }
    for (o, v) in out.iter_mut().zip(observe_agent(s, i).flat()) {
        *o = v as f32;
    }
    Ok(())
}
