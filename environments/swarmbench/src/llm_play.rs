//! SwarmBench's side of the opt-in "LLM play" methods of `colony_env_api::Environment`:
//! the fixed system message (docs/design/swarmbench.md §11.1) and the lenient reply parser
//! (§12.1). Who decides (escaped agents get no prompt, §10.1) and who hears whom (§10.3,
//! appendix L.3) read the live environment and live with the prompt assembly in `env`'s
//! `observe` child.
//!
//! Decisions (colony's episode loop, DESIGN.md "LLM play"):
//! - The user prompt is `observe_text` = the exact §11.2 prompt, so `parse_reply` never returns
//!   feedback: anything appended to the next prompt would break byte-identity with the paper.
//! - A reply without a valid action is not an error: the agent does nothing physically and its
//!   history says `NONE` (§12.1, Q12). That, and a message cut at the cap (Q13), are reported in
//!   [`ParsedReply::fallback`] so runs can count them.
//! - Messages travel inside replies and the environment delivers them itself (radius, delay,
//!   corruption), so `delivers_messages` is true and policies must not deliver them again.

use colony_env_api::ParsedReply;

use crate::config::Task;
use crate::reply::{parse_reply, Reply};

/// The system message of every SwarmBench call (design §11.1; "a agent" is verbatim).
pub const SYSTEM: &str = crate::prompt::SYSTEM;

/// Parses a model reply leniently (design §12.1 with the task's SWITCH flag and message cap):
/// never an error, `feedback` always `None` (the §11.2 prompt must stay byte-identical).
/// `fallback` names what was replaced: no valid action (the action stays `None`: history
/// `NONE`, physically STAY) and/or a message longer than `cap` characters cut to `cap` + `...`;
/// both reasons are joined with `"; "`.
pub fn lenient_reply(text: &str, task: Task, cap: usize) -> ParsedReply<Reply> {
    let switch = task == Task::Synchronization;
    let reply = parse_reply(text, switch, cap);
    let mut reasons = Vec::new();
    if reply.action.is_none() {
        reasons.push(format!(
            "no valid action (expected a line \"ACTION: <{}>\"); the agent does nothing this \
             round and its history says NONE",
            if switch {
                "UP|DOWN|LEFT|RIGHT|STAY|SWITCH"
            } else {
                "UP|DOWN|LEFT|RIGHT|STAY"
            }
        ));
    }
    // A cut message has exactly `cap` + 3 code points; an uncut one at most `cap` (§12.1).
    if reply.message.chars().count() > cap {
        reasons.push(format!(
            "message longer than {cap} characters was cut to {cap} + \"...\""
        ));
    }
    ParsedReply {
        action: reply,
        feedback: None,
        fallback: (!reasons.is_empty()).then(|| reasons.join("; ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::Move;

    #[test]
    fn fallbacks_name_both_reasons() {
        let p = lenient_reply("I am not sure yet.", Task::Pursuit, 120);
        assert_eq!(p.action, Reply::default());
        assert!(p.feedback.is_none());
        assert!(p
            .fallback
            .as_deref()
            .unwrap_or("")
            .contains("no valid action"));

        let long = "x".repeat(130);
        let p = lenient_reply(&format!("ACTION: UP\nMSG: {long}"), Task::Pursuit, 120);
        assert_eq!(p.action.action, Some(Move::Go(crate::physics::Dir::Up)));
        assert_eq!(p.action.message.chars().count(), 123);
        let why = p.fallback.unwrap_or_default();
        assert!(
            why.contains("cut") && !why.contains("no valid action"),
            "{why}"
        );

        let p = lenient_reply(&format!("ACTION: up\nMSG: {long}"), Task::Pursuit, 120);
        let why = p.fallback.unwrap_or_default();
        assert!(
            why.contains("cut") && why.contains("no valid action"),
            "{why}"
        );

        let p = lenient_reply("ACTION: SWITCH", Task::Synchronization, 120);
        assert_eq!(
            p,
            ParsedReply::ok(Reply {
                action: Some(Move::Switch),
                message: String::new()
            })
        );
        let p = lenient_reply(
            &format!("ACTION: STAY\nMSG: {}", "y".repeat(120)),
            Task::Foraging,
            120,
        );
        assert!(p.fallback.is_none());
    }
}
