//! The agent actor: one tokio task per agent, draining a bounded mailbox one item at a time.
//!
//! An agent owns its conversation memory outright (no lock): asks, delivered messages, memory
//! reads and resets all arrive through the mailbox and are handled in mailbox order, which is
//! what makes each agent's behaviour, and so the transcript, deterministic. While a model call
//! is in flight the agent also watches the caller's reply channel and the team's cancellation
//! token, so a caller that gives up (deadline passed, future dropped) or a shutdown frees the
//! agent for its next mailbox item instead of leaving it waiting on a model nobody listens to.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::budget::BudgetMeter;
use super::transcript::TranscriptLog;
use super::transcript::{CallRecord, Event, FailureRecord, MessageRecord, TranscriptEntry};
use super::{AgentId, AskOptions, Reply, RoleCard, RuntimeError};
use colony_llm::{ChatRequest, Message, ModelError, Sampling, SharedModel, UsageLedger};

/// Everything needed to spawn an agent: its id, role card, model and initial memory.
#[derive(Clone)]
pub struct AgentSpec {
    /// Unique id within the team.
    pub id: AgentId,
    /// Role card (shared: thousands of agents can use one card without copying the prompt).
    pub role: Arc<RoleCard>,
    /// The model this agent calls (each agent may have its own).
    pub model: SharedModel,
    /// Conversation memory the agent starts with (system prompt excluded).
    pub memory: Vec<Message>,
    /// Sampling defaults under the role card's (the run's flags over the model's
    /// `models.toml` entry over the built-in default, see [`Sampling`]): the role card and
    /// per-call options beat them.
    pub sampling: Sampling,
}

impl std::fmt::Debug for AgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSpec")
            .field("id", &self.id)
            .field("role", &self.role.name)
            .field("model", &self.model.id())
            .field("memory", &self.memory.len())
            .field("sampling", &self.sampling)
            .finish()
    }
}

impl AgentSpec {
    /// An agent with empty memory.
    pub fn new(id: impl Into<AgentId>, role: impl Into<Arc<RoleCard>>, model: SharedModel) -> Self {
        Self {
            id: id.into(),
            role: role.into(),
            model,
            memory: Vec::new(),
            sampling: Sampling::default(),
        }
    }

    /// This agent starting with the given conversation memory.
    pub fn with_memory(mut self, memory: Vec<Message>) -> Self {
        self.memory = memory;
        self
    }

    /// This agent with sampling defaults under its role card's.
    pub fn with_sampling(mut self, sampling: Sampling) -> Self {
        self.sampling = sampling;
        self
    }
}

/// How a delivered message appears in the recipient's memory: a user message tagged with the
/// sender, `"[sender] text"`.
pub fn tagged_message(from: &AgentId, text: &str) -> Message {
    Message::user(format!("[{from}] {text}"))
}

/// State every agent of a team shares: accounting, transcript, budget, cancellation.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) ledger: UsageLedger,
    pub(crate) transcript: TranscriptLog,
    pub(crate) budget: Arc<BudgetMeter>,
    pub(crate) cancel: CancellationToken,
}

/// The reply channel of an ask.
pub(crate) type ReplyTx = oneshot::Sender<Result<Reply, RuntimeError>>;

/// One mailbox item (boxed in the channel so a mailbox slot is one pointer).
pub(crate) enum Command {
    /// Call the model and answer.
    Ask {
        prompt: String,
        // Boxed: the options are far larger than the other items.
        options: Box<AskOptions>,
        reply: ReplyTx,
    },
    /// Append a tagged message to memory, then acknowledge.
    Deliver {
        from: AgentId,
        text: Arc<str>,
        ack: oneshot::Sender<()>,
    },
    /// Send a copy of the memory.
    Memory(oneshot::Sender<Vec<Message>>),
    /// Clear the memory, then acknowledge.
    Reset(oneshot::Sender<()>),
}

/// Whether the agent keeps serving after handling an item.
enum Flow {
    Continue,
    Stop,
}

/// How a model call ended.
enum Outcome {
    Done(Result<colony_llm::ChatResponse, ModelError>),
    Abandoned,
    Cancelled,
}

/// The running agent: its identity, model, memory and event counter.
pub(crate) struct Agent {
    id: AgentId,
    role: Arc<RoleCard>,
    /// The role card's sampling over the spec's defaults, resolved once.
    sampling: Sampling,
    model: SharedModel,
    memory: Vec<Message>,
    seq: u64,
    shared: Arc<Shared>,
}

impl Agent {
    /// An agent ready to run.
    pub(crate) fn new(spec: AgentSpec, shared: Arc<Shared>) -> Self {
        let AgentSpec {
            id,
            role,
            model,
            memory,
            sampling,
        } = spec;
        Self {
            id,
            sampling: role.sampling.or(&sampling),
            role,
            model,
            memory,
            seq: 0,
            shared,
        }
    }

    /// Serves the mailbox until it closes or the team is cancelled.
    pub(crate) async fn run(mut self, mut mailbox: mpsc::Receiver<Box<Command>>) {
        loop {
            let command = tokio::select! {
                biased;
                () = self.shared.cancel.cancelled() => break,
                command = mailbox.recv() => match command {
                    Some(c) => c,
                    None => break,
                },
            };
            if let Flow::Stop = self.handle(*command).await {
                break;
            }
        }
        // Items still queued are dropped with the mailbox: their callers see a closed channel
        // and report a shutdown (or a stopped agent).
    }

    async fn handle(&mut self, command: Command) -> Flow {
        match command {
            Command::Ask {
                prompt,
                options,
                reply,
            } => return self.ask(prompt, *options, reply).await,
            Command::Deliver { from, text, ack } => {
                self.memory.push(tagged_message(&from, &text));
                let to = self.id.clone();
                self.record(Event::Message(MessageRecord {
                    from,
                    to,
                    text: text.to_string(),
                }));
                let _ = ack.send(());
            }
            Command::Memory(tx) => {
                let _ = tx.send(self.memory.clone());
            }
            Command::Reset(ack) => {
                self.memory.clear();
                self.record(Event::MemoryReset);
                let _ = ack.send(());
            }
        }
        Flow::Continue
    }

    async fn ask(&mut self, prompt: String, options: AskOptions, mut reply: ReplyTx) -> Flow {
        if reply.is_closed() {
            // The caller gave up while the ask was queued: make no call at all.
            return Flow::Continue;
        }
        if let Err(e) = self.shared.budget.reserve_call() {
            let _ = reply.send(Err(RuntimeError::BudgetExhausted {
                agent: self.id.clone(),
                kind: e.kind,
                limit: e.limit,
                used: e.used,
            }));
            return Flow::Continue;
        }
        let request = self.request(&prompt, &options);
        let outcome = tokio::select! {
            biased;
            () = self.shared.cancel.cancelled() => Outcome::Cancelled,
            () = reply.closed() => Outcome::Abandoned,
            result = self.model.chat(&request) => Outcome::Done(result),
        };
        let tag = options.tag;
        match outcome {
            Outcome::Done(Ok(response)) => {
                self.shared.ledger.record(self.id.as_str(), &response);
                if !response.cached {
                    self.shared.budget.charge_tokens(response.usage.total());
                }
                if !options.stateless {
                    self.memory.push(Message::user(prompt));
                    self.memory.push(Message::assistant(response.text.clone()));
                }
                let seq = self.record(Event::Call(CallRecord {
                    model: response.model.clone(),
                    tag,
                    request,
                    text: response.text.clone(),
                    finish_reason: response.finish_reason.clone(),
                    usage: response.usage,
                    latency: response.latency,
                    tools: response.tool_trace.clone(),
                }));
                let _ = reply.send(Ok(Reply {
                    agent: self.id.clone(),
                    seq,
                    text: response.text,
                    finish_reason: response.finish_reason,
                    usage: response.usage,
                    latency: response.latency,
                    model: response.model,
                    retries: response.retries,
                    tools: response.tool_trace,
                }));
                Flow::Continue
            }
            Outcome::Done(Err(source)) => {
                tracing::debug!(agent = %self.id, error = %source, "model call failed");
                self.shared
                    .ledger
                    .record_model_failure(self.id.as_str(), &source);
                let error = source.to_string();
                self.record(Event::Failure(FailureRecord {
                    model: self.model.id().to_string(),
                    tag,
                    request,
                    error,
                }));
                let _ = reply.send(Err(RuntimeError::Model {
                    agent: self.id.clone(),
                    source,
                }));
                Flow::Continue
            }
            Outcome::Abandoned => {
                tracing::debug!(agent = %self.id, "caller stopped waiting; model call abandoned");
                self.shared.ledger.record_failure(self.id.as_str());
                let error =
                    "abandoned: the caller stopped waiting (deadline or dropped ask)".into();
                self.record(Event::Failure(FailureRecord {
                    model: self.model.id().to_string(),
                    tag,
                    request,
                    error,
                }));
                Flow::Continue
            }
            Outcome::Cancelled => {
                self.shared.ledger.record_failure(self.id.as_str());
                let error = "cancelled: the team was shut down".into();
                self.record(Event::Failure(FailureRecord {
                    model: self.model.id().to_string(),
                    tag,
                    request,
                    error,
                }));
                let _ = reply.send(Err(RuntimeError::ShutDown {
                    agent: self.id.clone(),
                }));
                Flow::Stop
            }
        }
    }

    /// The request of an ask: system prompt, memory (unless stateless), prompt, sampling.
    fn request(&self, prompt: &str, options: &AskOptions) -> ChatRequest {
        let memory: &[Message] = if options.stateless { &[] } else { &self.memory };
        let mut messages = Vec::with_capacity(memory.len() + 2);
        let system = options
            .system
            .as_deref()
            .unwrap_or(self.role.system_prompt.as_str());
        if !system.is_empty() {
            messages.push(Message::system(system));
        }
        messages.extend_from_slice(memory);
        messages.push(Message::user(prompt));
        ChatRequest {
            messages,
            sampling: options.sampling.or(&self.sampling),
            sample_index: options.sample_index,
            purpose: options.purpose.clone(),
            response_format: options.response_format.clone(),
            trace: options.trace.clone(),
            ..ChatRequest::default()
        }
    }

    /// Appends an event to the transcript under the next sequence number, which it returns.
    fn record(&mut self, event: Event) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        self.shared.transcript.push(TranscriptEntry {
            agent: self.id.clone(),
            seq,
            event,
        });
        seq
    }
}
