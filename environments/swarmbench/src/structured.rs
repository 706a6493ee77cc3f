//! SwarmBench's action reply under structured output (docs/design/tools.md §8): the action
//! as one of the task's valid moves and an optional message, read back as the `ACTION:` /
//! `MSG:` reply of swarmbench.md §12.1.

use serde_json::{json, Value};

use crate::config::Task;
use crate::reply::Move;

/// The schema: `{"action": <UP|DOWN|LEFT|RIGHT|STAY, and SWITCH in synchronization>,
/// "message": <at most `cap` characters>}`.
pub fn reply_schema(task: Task, cap: usize) -> Value {
    let moves: Vec<&str> = Move::valid(task == Task::Synchronization)
        .iter()
        .map(|m| m.name())
        .collect();
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": moves},
            "message": {"type": "string", "maxLength": cap},
        },
        "required": ["action"],
        "additionalProperties": false,
    })
}

/// The `ACTION: X` / `MSG: m` text of a structured reply; `None` without an action string.
pub fn reply_text(reply: &Value) -> Option<String> {
    let action = reply.get("action")?.as_str()?;
    let mut text = format!("ACTION: {action}");
    if let Some(m) = reply.get("message").and_then(Value::as_str) {
        // One line: the marker syntax ends a message at the line's end.
        let m = m.replace(['\n', '\r'], " ");
        if !m.trim().is_empty() {
            text.push_str(&format!("\nMSG: {}", m.trim()));
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_lists_the_tasks_moves_and_replies_read_back() {
        let s = reply_schema(Task::Pursuit, 120);
        assert_eq!(
            s["properties"]["action"]["enum"].as_array().map(Vec::len),
            Some(5)
        );
        let sync = reply_schema(Task::Synchronization, 120);
        assert!(sync.to_string().contains("SWITCH"));
        assert_eq!(
            reply_text(&json!({"action": "UP", "message": "go\nnorth"})).as_deref(),
            Some("ACTION: UP\nMSG: go north")
        );
        assert_eq!(
            reply_text(&json!({"action": "STAY"})).as_deref(),
            Some("ACTION: STAY")
        );
        assert_eq!(reply_text(&json!({"move": "UP"})), None);
    }
}
