//! A simulated SwarmBench agent: the reply an LLM agent of tunable skill would give to a
//! SwarmBench prompt, for offline runs and benchmarks of the orchestration without a model
//! (`EnvEntry::simulated_reply`, colony-env-api).
//!
//! Decisions (the lead's brief; the paper has no simulated agent):
//! - It reads only the two chat messages, as a model would: the system message must be the
//!   docs/design/swarmbench.md §11.1 text and the user message a §11.2 prompt (`You are Agent …`),
//!   otherwise `None`. Everything else comes from the prompt text: the task from its description
//!   (§11.3), the `Current Step` view with its global labels (§10.2), the observation lines, the
//!   earlier views and received messages ([`read`]).
//! - With probability `accuracy` (one draw) it takes the expert move ([`expert`]): Pursuit —
//!   to a free side of a visible prey; Foraging — BFS to the food, when carrying to the nest;
//!   Synchronization — SWITCH when its light differs from the visible majority; Flocking — to
//!   the centroid of visible agents; Transport — to the box, push it toward the gap, then out
//!   through `*`. Otherwise a uniformly random legal move (SWITCH only in Synchronization).
//! - The reply is one analysis line, then `ACTION: <ACTION>`, and in about 30 % of replies a
//!   `MSG:` line (< 120 characters, no newline) about what it sees, e.g.
//!   `Prey P at (3, 4), come help surround it`. The environment delivers such messages itself.
//! - Deterministic: all randomness comes from `draw` through `splitmix64`.

mod expert;
mod read;

use colony_env_api::rng::splitmix64;

use crate::config::Task;
use crate::prompt::SYSTEM;
use crate::reply::Move;

/// Percentage of replies that carry a `MSG:` line.
pub const MESSAGE_PERCENT: u64 = 30;

/// The reply of a simulated SwarmBench agent to the chat `system` + `user` (see the module
/// docs), or `None` when the messages are not a SwarmBench call (§11.1 system text and a
/// §11.2 prompt with a readable `Current Step` view). `accuracy` is the probability of the
/// expert move; the same inputs and `draw` always give the same reply.
pub fn simulated_reply(system: &str, user: &str, accuracy: f64, draw: u64) -> Option<String> {
    if system != SYSTEM {
        return None;
    }
    let reading = read::read(user)?;
    let mut state = draw;
    let u = (splitmix64(&mut state) >> 11) as f64 / (1u64 << 53) as f64;
    let r_act = splitmix64(&mut state);
    let with_msg = splitmix64(&mut state) % 100 < MESSAGE_PERCENT;
    let decision = if u < accuracy {
        expert::decide(&reading, r_act)
    } else {
        let valid = Move::valid(reading.task == Task::Synchronization);
        let mv = valid[(r_act % valid.len() as u64) as usize];
        expert::guess(&reading, mv, r_act >> 16, with_msg)
    };
    let mut reply = format!("{}\nACTION: {}", decision.why, decision.mv.name());
    if with_msg {
        reply.push_str("\nMSG: ");
        // Notes are short ASCII; the cut only guards huge coordinates (< 120 characters).
        reply.push_str(decision.note.get(..119).unwrap_or(&decision.note));
    }
    Some(reply)
}

#[cfg(test)]
mod tests;
