//! What one agent receives each round, assembled from the live environment: the messages
//! delivered to it and who hears whom (docs/design/swarmbench.md §10.3, Q9, Q36, Q39; the
//! commander variant of appendix L.3), the per-agent observation line, the complete §11.2
//! prompt, and who decides (escaped agents get no prompt, §10.1). Kept in one file so that the
//! visibility rule of delivery and of `hears` is written side by side.

use super::{PendingMessage, SwarmEnv, TaskState};
use crate::prompt::{render_prompt, task_description, PromptParts};
use crate::view::View;

impl SwarmEnv {
    /// The messages agent `i` receives now (design §10.3): messages due this round from speakers
    /// within Chebyshev distance k/2 at their current (possibly off-map) positions, self
    /// included, in speaker order. With a commander, only Agent_0 hears everyone and everyone
    /// hears only Agent_0, regardless of distance.
    pub fn received_messages(&self, i: usize) -> Vec<String> {
        let h = self.cfg.view / 2;
        let me = self.agent_pos(i);
        let mut due: Vec<&PendingMessage> = self
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

    /// The agents that get a prompt now: the non-escaped ones, in index order (design §10.1).
    pub fn deciding_names(&self) -> Vec<String> {
        self.names
            .iter()
            .zip(&self.escaped)
            .filter(|(_, &e)| !e)
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Whether agent `listener` hears agent `speaker` at the current positions (design §10.3,
    /// Q9): Chebyshev distance ≤ k/2, self included; with a commander (appendix L.3) Agent_0
    /// hears everyone and everyone hears only Agent_0. The same test as
    /// [`SwarmEnv::received_messages`]; out-of-range indices hear nothing.
    pub fn hears_index(&self, listener: usize, speaker: usize) -> bool {
        let n = self.agents.len();
        if listener >= n || speaker >= n {
            return false;
        }
        if self.cfg.commander {
            return listener == 0 || speaker == 0;
        }
        let h = self.cfg.view / 2;
        let (a, b) = (self.agent_pos(listener), self.agent_pos(speaker));
        (a.0 - b.0).abs() <= h && (a.1 - b.1).abs() <= h
    }
}
