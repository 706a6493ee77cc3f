//! Messages and the prompt of one agent: delivery and visibility (docs/design/swarmbench.md §10.3,
//! Q9, Q36, Q39), the commander variant (appendix L.3), corruption (appendix L.4), the action text
//! syntax of `colony env step`, and the assembled prompt (design §11).

use crate::config::Task;
use crate::env::{SwarmEnv, TaskState};
use crate::prompt::{render_prompt, task_description, PromptParts};
use crate::reply::{is_py_space, parse_reply, Move, Reply};
use crate::view::View;

/// Corrupts a message (appendix L.4): every character is replaced by a random printable ASCII
/// character, keeping the length. The paper gives only the rate; this is the documented choice.
pub fn corrupt(text: &str, mut draw: u64) -> String {
    text.chars()
        .map(|_| char::from(b'!' + (colony_env_api::policy::splitmix64(&mut draw) % 94) as u8))
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

impl SwarmEnv {
    /// The messages agent `i` receives now (design §10.3): messages due this round from speakers
    /// within Chebyshev distance k/2 at their current (possibly off-map) positions, self
    /// included, in speaker order. With a commander, only Agent_0 hears everyone and everyone
    /// hears only Agent_0, regardless of distance.
    pub fn received_messages(&self, i: usize) -> Vec<String> {
        let h = self.cfg.view / 2;
        let me = self.agent_pos(i);
        let mut due: Vec<&crate::env::PendingMessage> = self
            .messages
            .iter()
            .filter(|m| m.deliver == self.round)
            .filter(|m| {
                if self.cfg.commander {
                    i == 0 || m.speaker == 0
                } else {
                    let p = self.agent_pos(m.speaker);
                    (p.0 - me.0).abs() <= h && (p.1 - me.1).abs() <= h
                }
            })
            .collect();
        due.sort_by_key(|m| (m.speaker, m.sent));
        due.into_iter().map(|m| m.text.clone()).collect()
    }

    /// The per-agent observation lines (design §11.2 `{observation}`).
    pub fn observation_text(&self, i: usize) -> String {
        let py = |b: bool| if b { "True" } else { "False" };
        match &self.task {
            TaskState::Pursuit { .. } => format!("score: {}", self.score as i64),
            TaskState::Synchronization { lights, .. } => format!("light_on: {}", py(lights[i])),
            TaskState::Foraging { carrying } => format!("carrying_food: {}", py(carrying[i])),
            TaskState::Flocking { .. } | TaskState::Transport { .. } => String::new(),
        }
    }

    /// The complete prompt agent `i` would get now (design §11.2); "" for an escaped agent.
    pub fn prompt(&self, i: usize) -> String {
        if self.escaped[i] {
            return String::new();
        }
        let mut current = View::empty();
        self.view_of(i, &mut current);
        let mem = &self.memory[i];
        let mut views = vec![current.render()];
        views.extend(
            mem.views
                .iter()
                .rev()
                .take(self.cfg.memory.saturating_sub(1))
                .map(View::render),
        );
        let history: Vec<_> = mem.history.iter().cloned().collect();
        let desc = task_description(self.cfg.task, self.agents.len());
        let messages = self.received_messages(i);
        let observation = self.observation_text(i);
        render_prompt(&PromptParts {
            name: &self.names[i],
            task_desc: &desc,
            round: self.round,
            memory: self.cfg.memory,
            views: &views,
            observation: &observation,
            messages: &messages,
            history: &history,
        })
    }
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
