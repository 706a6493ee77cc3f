//! [`Team`]: spawns agent actors and is the handle policies and environments talk to them by.
//!
//! A `Team` is a cheap, clone-able handle (`&self` everywhere), so a policy can have many asks
//! in flight at once: asks to different agents run concurrently, asks to the same agent are
//! served in mailbox order. Mailboxes are bounded, so a flood of asks waits for room
//! (backpressure) instead of growing a queue without limit. Deadlines cover the whole ask,
//! queueing included; when one passes (or the caller drops the future) the agent abandons the
//! model call and moves on. Dropping the last handle, or [`Team::shutdown`], cancels every
//! agent.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use futures::future::join_all;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::agent::{Agent, Command, Shared};
use super::budget::{BudgetMeter, BudgetUsage};
use super::transcript::TranscriptLog;
use super::{
    AgentId, AgentSpec, AskOptions, Budget, Everyone, MessageFilter, Reply, RoleCard, RuntimeError,
    Transcript,
};
use colony_llm::{Message, UsageLedger, UsageReport};

/// Team-wide settings.
#[derive(Debug, Clone, PartialEq)]
pub struct TeamConfig {
    /// Mailbox capacity of each agent (at least 1); a full mailbox makes senders wait.
    pub mailbox_capacity: usize,
    /// Default deadline of an ask (queueing included); `None` waits as long as the model does.
    pub timeout: Option<Duration>,
    /// Call and token limits of the team.
    pub budget: Budget,
}

impl Default for TeamConfig {
    fn default() -> Self {
        Self {
            mailbox_capacity: 16,
            timeout: None,
            budget: Budget::unlimited(),
        }
    }
}

/// Builds a [`Team`]: settings first, then agents, then [`TeamBuilder::build`].
#[derive(Debug, Default)]
pub struct TeamBuilder {
    config: TeamConfig,
    meter: Option<Arc<BudgetMeter>>,
    parent: Option<CancellationToken>,
    agents: Vec<AgentSpec>,
}

impl TeamBuilder {
    /// Sets every agent's mailbox capacity.
    pub fn mailbox_capacity(mut self, capacity: usize) -> Self {
        self.config.mailbox_capacity = capacity;
        self
    }

    /// Sets the default ask deadline.
    pub fn timeout(mut self, after: Duration) -> Self {
        self.config.timeout = Some(after);
        self
    }

    /// Sets the team's budget.
    pub fn budget(mut self, budget: Budget) -> Self {
        self.config.budget = budget;
        self
    }

    /// Charges calls and tokens to an existing meter, shared with other teams of the same run.
    pub fn shared_budget(mut self, meter: Arc<BudgetMeter>) -> Self {
        self.config.budget = meter.budget();
        self.meter = Some(meter);
        self
    }

    /// Cancels the team when `token` is cancelled (e.g. a run-wide Ctrl-C token).
    pub fn cancel_on(mut self, token: &CancellationToken) -> Self {
        self.parent = Some(token.clone());
        self
    }

    /// Adds an agent.
    pub fn agent(mut self, spec: AgentSpec) -> Self {
        self.agents.push(spec);
        self
    }

    /// Adds several agents.
    pub fn agents(mut self, specs: impl IntoIterator<Item = AgentSpec>) -> Self {
        self.agents.extend(specs);
        self
    }

    /// Spawns the agents (must run inside a tokio runtime); fails on a duplicate id.
    pub fn build(self) -> Result<Team, RuntimeError> {
        let meter = self
            .meter
            .unwrap_or_else(|| Arc::new(BudgetMeter::new(self.config.budget)));
        let cancel = self
            .parent
            .map_or_else(CancellationToken::new, |p| p.child_token());
        let team = Team::from_parts(self.config, meter, cancel);
        for spec in self.agents {
            team.add_agent(spec)?;
        }
        Ok(team)
    }
}

/// The sending side of one agent.
#[derive(Debug, Clone)]
struct AgentHandle {
    id: AgentId,
    role: Arc<RoleCard>,
    model: Arc<str>,
    mailbox: mpsc::Sender<Box<Command>>,
}

#[derive(Debug)]
struct Inner {
    config: TeamConfig,
    shared: Arc<Shared>,
    agents: RwLock<BTreeMap<AgentId, AgentHandle>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.shared.cancel.cancel();
    }
}

/// A team of agent actors; clone it freely, every clone talks to the same agents.
#[derive(Debug, Clone)]
pub struct Team {
    inner: Arc<Inner>,
}

impl Team {
    /// A builder with default settings and no agents.
    pub fn builder() -> TeamBuilder {
        TeamBuilder::default()
    }

    /// An empty team with these settings; add agents with [`Team::add_agent`].
    pub fn new(config: TeamConfig) -> Self {
        let meter = Arc::new(BudgetMeter::new(config.budget));
        Self::from_parts(config, meter, CancellationToken::new())
    }

    fn from_parts(config: TeamConfig, budget: Arc<BudgetMeter>, cancel: CancellationToken) -> Self {
        let shared = Arc::new(Shared {
            ledger: UsageLedger::new(),
            transcript: TranscriptLog::default(),
            budget,
            cancel,
        });
        let inner = Inner {
            config,
            shared,
            agents: RwLock::new(BTreeMap::new()),
            tasks: Mutex::new(Vec::new()),
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Spawns an agent on the current tokio runtime and returns its id.
    pub fn add_agent(&self, spec: AgentSpec) -> Result<AgentId, RuntimeError> {
        let id = spec.id.clone();
        if self.inner.shared.cancel.is_cancelled() {
            return Err(RuntimeError::ShutDown { agent: id });
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return Err(RuntimeError::NoRuntime { agent: id });
        };
        let mut agents = self.inner.agents.write().unwrap_or_else(|p| p.into_inner());
        if agents.contains_key(&id) {
            return Err(RuntimeError::DuplicateAgent { agent: id });
        }
        let (tx, rx) = mpsc::channel(self.inner.config.mailbox_capacity.max(1));
        let handle = AgentHandle {
            id: id.clone(),
            role: spec.role.clone(),
            model: Arc::from(spec.model.id()),
            mailbox: tx,
        };
        let agent = Agent::new(spec, self.inner.shared.clone());
        let task = runtime.spawn(agent.run(rx));
        agents.insert(id.clone(), handle);
        drop(agents);
        self.inner
            .tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(task);
        Ok(id)
    }

    /// Asks `agent` with `prompt` (conversational, role-card sampling, team deadline).
    pub async fn ask(
        &self,
        agent: impl AsRef<str>,
        prompt: impl Into<String>,
    ) -> Result<Reply, RuntimeError> {
        self.ask_with(agent, prompt, AskOptions::default()).await
    }

    /// Asks `agent` with `prompt` and per-ask options (sampling, stateless, deadline, tag).
    pub async fn ask_with(
        &self,
        agent: impl AsRef<str>,
        prompt: impl Into<String>,
        mut options: AskOptions,
    ) -> Result<Reply, RuntimeError> {
        options.trace = colony_llm::trace_parent::capture();
        let handle = self.handle(agent.as_ref())?;
        if let Err(e) = self.inner.shared.budget.check() {
            let (kind, limit, used) = (e.kind, e.limit, e.used);
            return Err(RuntimeError::BudgetExhausted {
                agent: handle.id,
                kind,
                limit,
                used,
            });
        }
        let deadline = options.timeout.or(self.inner.config.timeout);
        let (reply, answer) = oneshot::channel();
        let command = Box::new(Command::Ask {
            prompt: prompt.into(),
            options: Box::new(options),
            reply,
        });
        let exchange = async {
            handle
                .mailbox
                .send(command)
                .await
                .map_err(|_| self.stopped(&handle.id))?;
            answer.await.map_err(|_| self.stopped(&handle.id))?
        };
        match deadline {
            None => exchange.await,
            Some(after) => match tokio::time::timeout(after, exchange).await {
                Ok(result) => result,
                Err(_) => Err(RuntimeError::Timeout {
                    agent: handle.id.clone(),
                    after,
                }),
            },
        }
    }

    /// Appends `text` to `to`'s memory as a user message tagged with `from`, and records it.
    ///
    /// Returns once the message is in memory; it is handled in mailbox order, so it waits for
    /// asks queued before it. `from` need not be an agent (an environment can name itself).
    pub async fn tell(
        &self,
        from: impl Into<AgentId>,
        to: impl AsRef<str>,
        text: impl Into<String>,
    ) -> Result<(), RuntimeError> {
        let handle = self.handle(to.as_ref())?;
        let text: Arc<str> = Arc::from(text.into());
        self.deliver(from.into(), text, handle).await
    }

    /// Delivers `text` from `from` to every other agent; returns the recipients.
    pub fn broadcast(
        &self,
        from: impl Into<AgentId>,
        text: impl Into<String>,
    ) -> impl Future<Output = Result<Vec<AgentId>, RuntimeError>> + Send + 'static {
        self.deliver_where(from, text, Everyone)
    }

    /// Delivers `text` from `from` to every other agent `filter` accepts; returns the
    /// recipients, in id order.
    ///
    /// The filter runs now, before the returned future is first polled (so it need not be
    /// `Send`); deliveries then proceed concurrently, and the future resolves once every
    /// recipient has the message in memory (or with the first error, after trying all).
    pub fn deliver_where(
        &self,
        from: impl Into<AgentId>,
        text: impl Into<String>,
        filter: impl MessageFilter,
    ) -> impl Future<Output = Result<Vec<AgentId>, RuntimeError>> + Send + 'static {
        let from = from.into();
        let text: Arc<str> = Arc::from(text.into());
        let recipients: Vec<AgentId> = self
            .inner
            .agents
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .filter(|to| **to != from && filter.accepts(&from, to))
            .cloned()
            .collect();
        let team = self.clone();
        async move {
            let deliveries = recipients.iter().map(|to| {
                let (team, from, text) = (&team, from.clone(), text.clone());
                async move { team.deliver(from, text, team.handle(to.as_str())?).await }
            });
            for result in join_all(deliveries).await {
                result?;
            }
            Ok(recipients)
        }
    }

    /// A copy of `agent`'s conversation memory (system prompt excluded), in mailbox order.
    pub async fn memory(&self, agent: impl AsRef<str>) -> Result<Vec<Message>, RuntimeError> {
        self.request(agent.as_ref(), Command::Memory).await
    }

    /// Clears `agent`'s conversation memory (in mailbox order) and records the reset.
    pub async fn reset_memory(&self, agent: impl AsRef<str>) -> Result<(), RuntimeError> {
        self.request(agent.as_ref(), Command::Reset).await
    }

    /// Sends `agent` the command built around a reply channel and awaits the reply.
    async fn request<T>(
        &self,
        agent: &str,
        command: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, RuntimeError> {
        let handle = self.handle(agent)?;
        let (tx, rx) = oneshot::channel();
        handle
            .mailbox
            .send(Box::new(command(tx)))
            .await
            .map_err(|_| self.stopped(&handle.id))?;
        rx.await.map_err(|_| self.stopped(&handle.id))
    }

    /// The agents' ids, in order.
    pub fn agents(&self) -> Vec<AgentId> {
        self.inner
            .agents
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .cloned()
            .collect()
    }

    /// Number of agents.
    pub fn len(&self) -> usize {
        self.inner
            .agents
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }

    /// True when the team has no agents.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when an agent with this id exists.
    pub fn contains(&self, agent: impl AsRef<str>) -> bool {
        self.inner
            .agents
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(agent.as_ref())
    }

    /// The role card of an agent.
    pub fn role(&self, agent: impl AsRef<str>) -> Option<Arc<RoleCard>> {
        let agents = self.inner.agents.read().unwrap_or_else(|p| p.into_inner());
        agents.get(agent.as_ref()).map(|h| h.role.clone())
    }

    /// The model id of an agent.
    pub fn model_id(&self, agent: impl AsRef<str>) -> Option<String> {
        let agents = self.inner.agents.read().unwrap_or_else(|p| p.into_inner());
        agents.get(agent.as_ref()).map(|h| h.model.to_string())
    }

    /// A deterministic snapshot of every call and message so far, sorted by `(agent, seq)`.
    pub fn transcript(&self) -> Transcript {
        self.inner.shared.transcript.snapshot()
    }

    /// Moves the transcript recorded so far out of the team, so long runs (embodied episodes
    /// with thousands of calls) keep a bounded window in memory; later entries continue the
    /// same per-agent sequence numbers.
    pub fn take_transcript(&self) -> Transcript {
        self.inner.shared.transcript.take()
    }

    /// Calls, tokens, retries and model time per agent and in total.
    pub fn usage(&self) -> UsageReport {
        self.inner.shared.ledger.report()
    }

    /// What the team's budget has used so far.
    pub fn budget_usage(&self) -> BudgetUsage {
        self.inner.shared.budget.usage()
    }

    /// The team's budget meter (share it with another team via [`TeamBuilder::shared_budget`]).
    pub fn budget_meter(&self) -> Arc<BudgetMeter> {
        self.inner.shared.budget.clone()
    }

    /// The team's settings.
    pub fn config(&self) -> &TeamConfig {
        &self.inner.config
    }

    /// The token that cancels this team (cancel it to stop every agent at once).
    pub fn cancellation_token(&self) -> CancellationToken {
        self.inner.shared.cancel.clone()
    }

    /// True once the team has been shut down or cancelled.
    pub fn is_shut_down(&self) -> bool {
        self.inner.shared.cancel.is_cancelled()
    }

    /// Cancels every agent (in-flight calls are abandoned, callers get `ShutDown`) and waits
    /// for their tasks to end.
    pub async fn shutdown(&self) {
        self.inner.shared.cancel.cancel();
        let tasks =
            std::mem::take(&mut *self.inner.tasks.lock().unwrap_or_else(|p| p.into_inner()));
        // A task that panicked has already reported through its callers; nothing to add here.
        let _ = join_all(tasks).await;
    }

    fn handle(&self, agent: &str) -> Result<AgentHandle, RuntimeError> {
        if self.inner.shared.cancel.is_cancelled() {
            return Err(RuntimeError::ShutDown {
                agent: AgentId::new(agent),
            });
        }
        let agents = self.inner.agents.read().unwrap_or_else(|p| p.into_inner());
        agents
            .get(agent)
            .cloned()
            .ok_or_else(|| RuntimeError::UnknownAgent {
                agent: agent.into(),
            })
    }

    async fn deliver(
        &self,
        from: AgentId,
        text: Arc<str>,
        handle: AgentHandle,
    ) -> Result<(), RuntimeError> {
        let (ack, delivered) = oneshot::channel();
        let command = Box::new(Command::Deliver { from, text, ack });
        handle
            .mailbox
            .send(command)
            .await
            .map_err(|_| self.stopped(&handle.id))?;
        delivered.await.map_err(|_| self.stopped(&handle.id))
    }

    /// The error for a closed channel: a shutdown if the team was cancelled, else a dead agent.
    fn stopped(&self, agent: &AgentId) -> RuntimeError {
        if self.inner.shared.cancel.is_cancelled() {
            RuntimeError::ShutDown {
                agent: agent.clone(),
            }
        } else {
            RuntimeError::AgentStopped {
                agent: agent.clone(),
            }
        }
    }
}
