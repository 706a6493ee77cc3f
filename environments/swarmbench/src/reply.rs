//! Parsing an LLM reply into an action and a message (docs/design/swarmbench.md §12.1), as a pure
//! function.

use serde::{Deserialize, Serialize};

use crate::physics::Dir;

/// A parsed move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Move {
    /// A direction (UP, DOWN, LEFT, RIGHT).
    Go(Dir),
    /// STAY.
    Stay,
    /// SWITCH (Synchronization only).
    Switch,
}

impl Move {
    /// The action name.
    pub fn name(self) -> &'static str {
        match self {
            Move::Go(d) => d.name(),
            Move::Stay => "STAY",
            Move::Switch => "SWITCH",
        }
    }

    /// The direction pushed, if any.
    pub fn dir(self) -> Option<Dir> {
        match self {
            Move::Go(d) => Some(d),
            _ => None,
        }
    }

    /// The valid actions in the reference's test order (SWITCH last, Synchronization only).
    pub fn valid(switch: bool) -> &'static [Move] {
        const ALL: [Move; 6] = [
            Move::Go(Dir::Up),
            Move::Go(Dir::Down),
            Move::Go(Dir::Left),
            Move::Go(Dir::Right),
            Move::Stay,
            Move::Switch,
        ];
        if switch {
            &ALL
        } else {
            &ALL[..5]
        }
    }
}

/// A reply's parsed content: the action (None = unparseable, history `NONE`) and the message
/// (already capped; empty = not sent).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Reply {
    /// The action, if one was found.
    pub action: Option<Move>,
    /// The message ("" = none).
    pub message: String,
}

/// Python's `str.isspace` set (Q34), which Rust's `char::is_whitespace` does not match.
pub fn is_py_space(c: char) -> bool {
    matches!(c,
        '\u{9}'..='\u{d}' | '\u{1c}'..='\u{20}' | '\u{85}' | '\u{a0}' | '\u{1680}'
        | '\u{2000}'..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

/// Trims Python whitespace from both ends.
pub fn py_trim(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// The trimmed rest of the line after the first occurrence of `marker`, if it occurs.
fn after_marker<'a>(reply: &'a str, marker: &str) -> Option<&'a str> {
    let at = reply.find(marker)? + marker.len();
    let rest = &reply[at..];
    let line = rest.split('\n').next().unwrap_or("");
    Some(py_trim(line))
}

/// Caps a message at `cap` code points, appending `...` when cut (Q13).
pub fn cap_message(msg: &str, cap: usize) -> String {
    match msg.char_indices().nth(cap) {
        Some((byte, _)) => format!("{}...", &msg[..byte]),
        None => msg.to_string(),
    }
}

/// Parses a reply (design §12.1): action markers `ACTION:`, `Action:`, `action:` (later markers
/// override when their text holds a valid action), message markers `MSG:`, `Msg:`, `msg:`
/// (later ones always override), message capped at `cap` characters.
pub fn parse_reply(reply: &str, switch: bool, cap: usize) -> Reply {
    let mut action = None;
    for marker in ["ACTION:", "Action:", "action:"] {
        if let Some(text) = after_marker(reply, marker) {
            if let Some(m) = Move::valid(switch).iter().find(|m| text.contains(m.name())) {
                action = Some(*m);
            }
        }
    }
    let mut message = String::new();
    for marker in ["MSG:", "Msg:", "msg:"] {
        if let Some(text) = after_marker(reply, marker) {
            message = text.to_string();
        }
    }
    Reply {
        action,
        message: cap_message(&message, cap),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(s: &str) -> Option<&'static str> {
        parse_reply(s, false, 120).action.map(Move::name)
    }

    #[test]
    fn spec_examples() {
        assert_eq!(act("ACTION: [UP]"), Some("UP"));
        assert_eq!(act("ACTION: UPWARD"), Some("UP"));
        assert_eq!(act("action: go LEFT or UP"), Some("UP"));
        assert_eq!(act("ACTION: up"), None);
        assert_eq!(act("ACTION: STAY MSG: go UP"), Some("UP"));
        assert_eq!(act("ACTION: LEFT\nthen\naction: RIGHT"), Some("RIGHT"));
        assert_eq!(act("ACTION: RIGHT\nAction: wait"), Some("RIGHT"));
        assert_eq!(
            act("End with \"ACTION: [YOUR_ACTION]\"\n...\nACTION: LEFT"),
            None
        );
        assert_eq!(act("ACTION: SWITCH"), None);
        assert_eq!(
            parse_reply("ACTION: SWITCH", true, 120).action,
            Some(Move::Switch)
        );
        let r = parse_reply("ACTION: UP MSG: hi", false, 120);
        assert_eq!(
            (r.action, r.message.as_str()),
            (Some(Move::Go(Dir::Up)), "hi")
        );
        let r = parse_reply("MSG: first\nmsg:", false, 120);
        assert_eq!(r.message, "");
        let r = parse_reply("MSG: \u{1c}x\u{a0}\r\n", false, 120);
        assert_eq!(r.message, "x");
    }

    #[test]
    fn long_messages_are_cut_to_120_plus_dots() {
        let long = "I switched OFF at (4,1). ".repeat(6);
        let r = parse_reply(&format!("ACTION: SWITCH\nMSG: {long}"), true, 120);
        assert_eq!(r.message.chars().count(), 123);
        assert!(r.message.ends_with("at (4..."), "{}", r.message);
        let exact = "é".repeat(120);
        assert_eq!(cap_message(&exact, 120), exact);
    }
}
