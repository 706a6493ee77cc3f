//! Message texts and action texts (docs/design/swarmbench.md §10.3, §12.1): corruption (appendix
//! L.4) and the action text syntax of `colony env step`. Pure functions of text; delivery and
//! visibility (Q9, Q36, Q39, the commander variant of appendix L.3) and the assembled prompt
//! (design §11) read the environment and live in the `env` module's `observe` child.

use crate::config::Task;
use crate::reply::{is_py_space, parse_reply, Move, Reply};

/// Corrupts a message (appendix L.4): every character is replaced by a random printable ASCII
/// character, keeping the length. The paper gives only the rate; this is the documented choice.
pub fn corrupt(text: &str, mut draw: u64) -> String {
    text.chars()
        .map(|_| char::from(b'!' + (colony_env_api::rng::splitmix64(&mut draw) % 94) as u8))
        .collect()
}

/// Why an action text is not an action (see [`parse_action_text`]); one-line messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ActionTextError {
    /// `SWITCH` outside the synchronization task.
    #[error("SWITCH is an action of synchronization only")]
    SwitchOutsideSynchronization,
    /// Neither an action name nor a reply with markers.
    #[error(
        "{word:?} is neither an action (UP, DOWN, LEFT, RIGHT, STAY{}) nor a reply with ACTION:/MSG:",
        if *.switch { ", SWITCH" } else { "" }
    )]
    Unrecognised {
        /// The text given (trimmed, clipped).
        word: String,
        /// Whether `SWITCH` was a valid action (synchronization).
        switch: bool,
    },
}

/// Parses an action text: a reply with `ACTION:`/`MSG:` markers (design §12.1), or a bare
/// action name (`UP`, `stay`, …) for hand-written scenarios; anything else is an error.
pub fn parse_action_text(text: &str, task: Task, cap: usize) -> Result<Reply, ActionTextError> {
    let switch = task == Task::Synchronization;
    let markers = ["ACTION:", "Action:", "action:", "MSG:", "Msg:", "msg:"];
    if markers.iter().any(|m| text.contains(m)) {
        return Ok(parse_reply(text, switch, cap));
    }
    let word = text.trim_matches(is_py_space);
    if word.is_empty() {
        return Ok(Reply::default());
    }
    let upper = word.to_ascii_uppercase();
    match Move::valid(true).iter().find(|m| m.name() == upper) {
        Some(Move::Switch) if !switch => Err(ActionTextError::SwitchOutsideSynchronization),
        Some(m) => Ok(Reply {
            action: Some(*m),
            message: String::new(),
        }),
        None => Err(ActionTextError::Unrecognised {
            word: colony_env_api::clip(word),
            switch,
        }),
    }
}

/// The text form of a parsed reply: `ACTION: X` and/or `MSG: text` lines ("" for nothing).
pub fn format_action(r: &Reply) -> String {
    let mut parts = Vec::new();
    if let Some(m) = r.action {
        parts.push(format!("ACTION: {}", m.name()));
    }
    if !r.message.is_empty() {
        parts.push(format!("MSG: {}", r.message));
    }
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_texts_round_trip_and_errors_name_the_problem() {
        let r = parse_action_text("up", Task::Pursuit, 120).unwrap();
        assert_eq!(format_action(&r), "ACTION: UP");
        let r = parse_action_text("ACTION: LEFT\nMSG: hi", Task::Pursuit, 120).unwrap();
        assert_eq!(
            parse_action_text(&format_action(&r), Task::Pursuit, 120).unwrap(),
            r
        );
        let switch = parse_action_text("SWITCH", Task::Pursuit, 120).unwrap_err();
        assert_eq!(switch, ActionTextError::SwitchOutsideSynchronization);
        assert!(switch.to_string().contains("synchronization"));
        assert_eq!(
            parse_action_text("JUMP", Task::Pursuit, 120)
                .unwrap_err()
                .to_string(),
            "\"JUMP\" is neither an action (UP, DOWN, LEFT, RIGHT, STAY) nor a reply with ACTION:/MSG:"
        );
        assert_eq!(
            parse_action_text("", Task::Pursuit, 120).unwrap(),
            Reply::default()
        );
        assert_eq!(corrupt("hello", 3).chars().count(), 5);
    }
}
