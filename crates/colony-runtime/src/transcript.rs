//! The transcript: every model call and every message of a team, in a deterministic order.
//!
//! Agents run concurrently, so the wall-clock order of their events changes from run to run.
//! Each agent, however, handles its mailbox one item at a time, so the order of its *own*
//! events is fixed by the program. Every event is therefore keyed by the agent that handled it
//! and that agent's sequence number, and snapshots are sorted by `(agent, seq)`: two runs of
//! the same deterministic program give equal transcripts and identical JSON. Latency comes from
//! the model's response (zero for the simulated model, recorded values for replays), and
//! transport metadata (retries, cache hits) stays in the usage ledger, not here.

use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::AgentId;
use colony_llm::{duration_micros, ChatRequest, FinishReason, Usage};

/// A completed model call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// Model id that answered, as the response names it.
    pub model: String,
    /// Caller-given label (e.g. `"round 2"`), when the ask had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// The full request sent: every prompt message plus the sampling parameters.
    pub request: ChatRequest,
    /// The reply text.
    pub text: String,
    /// Why generation stopped.
    pub finish_reason: FinishReason,
    /// Token usage reported by the model.
    pub usage: Usage,
    /// Latency reported by the model (retries included).
    #[serde(with = "duration_micros")]
    pub latency: Duration,
    /// The tool calls made while answering, with their results, in order (the call's
    /// children; omitted without tools).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<colony_llm::ToolExchange>,
}

/// A model call that ended without a reply: a model error, or the caller stopped waiting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureRecord {
    /// Id of the model that was called (`ChatModel::id`).
    pub model: String,
    /// Caller-given label, when the ask had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// The full request sent.
    pub request: ChatRequest,
    /// The error message.
    pub error: String,
}

/// A message delivered into an agent's memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageRecord {
    /// The sender (an agent, or any name an environment uses for itself).
    pub from: AgentId,
    /// The recipient.
    pub to: AgentId,
    /// The message text, without the sender tag added in memory.
    pub text: String,
}

/// What happened in one transcript entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A model call that returned a reply.
    Call(CallRecord),
    /// A model call that failed or was abandoned.
    Failure(FailureRecord),
    /// A message received from another agent or the environment.
    Message(MessageRecord),
    /// The agent's conversation memory was cleared.
    MemoryReset,
}

/// One event of one agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptEntry {
    /// The agent that handled the event (the caller of a call, the recipient of a message).
    pub agent: AgentId,
    /// Position among that agent's events, from 0.
    pub seq: u64,
    /// What happened.
    pub event: Event,
}

/// A deterministic snapshot of a team's traffic, sorted by `(agent, seq)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    entries: Vec<TranscriptEntry>,
}

impl Transcript {
    /// A transcript of these entries, put in `(agent, seq)` order.
    pub fn from_entries(mut entries: Vec<TranscriptEntry>) -> Self {
        entries.sort_unstable_by(|a, b| (&a.agent, a.seq).cmp(&(&b.agent, b.seq)));
        Self { entries }
    }

    /// Every entry, ordered by agent id and then by the agent's sequence number.
    pub fn entries(&self) -> &[TranscriptEntry] {
        &self.entries
    }

    /// Consumes the transcript into its ordered entries.
    pub fn into_entries(self) -> Vec<TranscriptEntry> {
        self.entries
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries of one agent, in its own order.
    pub fn agent<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = &'a TranscriptEntry> + 'a {
        self.entries
            .iter()
            .filter(move |e| e.agent.as_str() == agent)
    }

    /// Every completed call with its agent.
    pub fn calls(&self) -> impl Iterator<Item = (&AgentId, &CallRecord)> + '_ {
        self.entries.iter().filter_map(|e| match &e.event {
            Event::Call(c) => Some((&e.agent, c)),
            _ => None,
        })
    }

    /// Every delivered message.
    pub fn messages(&self) -> impl Iterator<Item = &MessageRecord> + '_ {
        self.entries.iter().filter_map(|e| match &e.event {
            Event::Message(m) => Some(m),
            _ => None,
        })
    }

    /// Every failed or abandoned call with its agent.
    pub fn failures(&self) -> impl Iterator<Item = (&AgentId, &FailureRecord)> + '_ {
        self.entries.iter().filter_map(|e| match &e.event {
            Event::Failure(f) => Some((&e.agent, f)),
            _ => None,
        })
    }

    /// Sum of the token usage of all completed calls.
    pub fn total_usage(&self) -> Usage {
        self.calls()
            .fold(Usage::default(), |acc, (_, c)| acc + c.usage)
    }
}

/// The live, append-only log the agents write into; snapshots become [`Transcript`]s.
#[derive(Debug, Default)]
pub(crate) struct TranscriptLog {
    entries: Mutex<Vec<TranscriptEntry>>,
}

impl TranscriptLog {
    /// Appends one entry (never held across an await).
    pub(crate) fn push(&self, entry: TranscriptEntry) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(entry);
    }

    /// Moves everything recorded so far out, sorted (the log starts empty again).
    pub(crate) fn take(&self) -> Transcript {
        let entries = std::mem::take(&mut *self.entries.lock().unwrap_or_else(|p| p.into_inner()));
        Transcript::from_entries(entries)
    }

    /// A sorted copy of everything recorded so far.
    pub(crate) fn snapshot(&self) -> Transcript {
        let entries = self
            .entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        Transcript::from_entries(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use colony_llm::Message;

    fn msg(agent: &str, seq: u64) -> TranscriptEntry {
        TranscriptEntry {
            agent: agent.into(),
            seq,
            event: Event::Message(MessageRecord {
                from: "env".into(),
                to: agent.into(),
                text: format!("{agent}#{seq}"),
            }),
        }
    }

    #[test]
    fn snapshots_are_sorted_whatever_the_insertion_order() {
        let a = Transcript::from_entries(vec![msg("b", 1), msg("a", 0), msg("b", 0)]);
        let b = Transcript::from_entries(vec![msg("b", 0), msg("b", 1), msg("a", 0)]);
        assert_eq!(a, b);
        let keys: Vec<_> = a
            .entries()
            .iter()
            .map(|e| (e.agent.as_str(), e.seq))
            .collect();
        assert_eq!(keys, vec![("a", 0), ("b", 0), ("b", 1)]);
    }

    #[test]
    fn json_round_trip_is_exact() {
        let call = TranscriptEntry {
            agent: "a".into(),
            seq: 1,
            event: Event::Call(CallRecord {
                model: "sim".into(),
                tag: Some("round 1".into()),
                request: ChatRequest::new(vec![Message::system("s"), Message::user("q")])
                    .temperature(0.7)
                    .sample_index(2),
                text: "x".into(),
                finish_reason: FinishReason::Other("eos_token".into()),
                usage: Usage {
                    prompt_tokens: 3,
                    completion_tokens: 1,
                    ..Usage::default()
                },
                latency: Duration::from_micros(1234),
                tools: Vec::new(),
            }),
        };
        let reset = TranscriptEntry {
            agent: "a".into(),
            seq: 2,
            event: Event::MemoryReset,
        };
        let t = Transcript::from_entries(vec![reset, call, msg("a", 0)]);
        let json = serde_json::to_string(&t).unwrap();
        let back: Transcript = serde_json::from_str(&json).unwrap();
        assert_eq!(back, t);
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        assert_eq!(t.total_usage().total(), 4);
    }
}
