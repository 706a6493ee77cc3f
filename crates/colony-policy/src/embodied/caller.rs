//! [`Caller`]: the model calls of an embodied policy, made on a [`Team`] whose actor ids are
//! the environment's agent ids, and logged with their step, agent and purpose.
//!
//! Every call is stateless (the system prompt is the agent's instructions, the prompt carries
//! the agent's memory as the benchmark defines it: SwarmBench's 5-frame memory, CUBE's own
//! history), so actors keep no conversation and memory stays bounded whatever the episode
//! length. The team's transcript is drained after every call batch for the same reason; the
//! [`CallLog`]s are what the episode writer keeps, streamed to `calls.jsonl`.
//!
//! With a [`ReplyScript`] (`--model script:FILE`) replies come from the file, keyed by
//! (agent, step, purpose), and no team is built.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::token_guard::{self, Truncated};
use super::{AgentView, EmbodiedError, ReplyScript};
use crate::reasoning::{Member, Roster};
use colony_env_api::AgentId;
use colony_llm::stable_hash::StableHasher;
use colony_llm::{
    approx_prompt_tokens, approx_tokens, Message, ModelError, Sampling, SharedModel, Usage,
};
use colony_runtime::{AskOptions, RoleCard, RuntimeError, Team};

/// One model call of an episode, as `calls.jsonl` stores it (the key names are a contract).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallLog {
    /// Environment steps taken before the decision.
    pub step: u64,
    /// The calling agent.
    pub agent: AgentId,
    /// What the call is for: `act`, `perception`, `execution`, later `camon.review`, ….
    pub purpose: String,
    /// The messages sent (`{"role", "content"}`).
    pub messages: Vec<Message>,
    /// The reply text (None when the call failed).
    pub reply: Option<String>,
    /// The action the environment took from this reply (calls whose reply became an action).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Why the environment's fallback replaced the reply, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_error: Option<String>,
    /// Token usage reported by the model.
    pub usage: Usage,
    /// Latency reported by the model, in milliseconds.
    pub latency_ms: f64,
    /// The error, when the call failed.
    pub error: Option<String>,
    /// Failed attempts the client retried before the reply (not part of replays: a
    /// replayed call reports the recorded count).
    #[serde(default)]
    pub retries: u32,
    /// How the prompt was cut to fit the model's context, when it was (the token guard;
    /// counted as a fallback of the episode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncated>,
    /// True when this call's reply is the agent's action for the step (set by the policy; the
    /// episode loop then fills `action` / `parse_error`).
    #[serde(skip)]
    pub decides: bool,
    /// The tool calls made while answering, with their results (`--tools`; omitted when
    /// none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<colony_llm::ToolExchange>,
}

/// The built-in sampling of the embodied policies: at most 1,024 completion tokens, the
/// server's temperature. The weakest layer (see [`Sampling`] for the precedence).
pub const EMBODIED_SAMPLING: Sampling = Sampling {
    temperature: None,
    top_p: None,
    max_tokens: Some(1024),
    seed: None,
    stop: Vec::new(),
};

/// Settings of a [`Caller`].
#[derive(Clone, Default)]
pub struct CallerConfig {
    /// Models, assigned to agents round-robin in the environment's agent order (one model
    /// for a homogeneous team; several for a heterogeneous one).
    pub models: Vec<SharedModel>,
    /// Replies from a script file instead of models.
    pub script: Option<Arc<ReplyScript>>,
    /// Sampling of each model of `models`, same order (the command-line flags over its
    /// `models.toml` entry); a missing entry is empty. It beats [`CallerConfig::sampling`].
    pub model_sampling: Vec<Sampling>,
    /// Default sampling under every model's (`colony compare`: [`EMBODIED_SAMPLING`]).
    pub sampling: Sampling,
    /// Deadline of one call, queueing included (None: the model's own timeout).
    pub timeout: Option<Duration>,
}

impl std::fmt::Debug for CallerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.models.iter().map(|m| m.id()).collect();
        f.debug_struct("CallerConfig")
            .field("models", &ids)
            .field("script", &self.script.is_some())
            .field("model_sampling", &self.model_sampling)
            .field("sampling", &self.sampling)
            .finish()
    }
}

impl CallerConfig {
    /// What the calls of agents on model `m` (index into `models`) ask for: that model's
    /// sampling over the default.
    pub fn effective_sampling(&self, m: usize) -> Sampling {
        self.model_sampling
            .get(m)
            .map_or_else(|| self.sampling.clone(), |s| s.or(&self.sampling))
    }

    /// [`CallerConfig::effective_sampling`] of every model, in order (empty without models):
    /// what the run asked for, as results record it.
    pub fn sampling_per_model(&self) -> Vec<Sampling> {
        // Reports rebuilt without models (`colony merge`) still know each model's sampling.
        (0..self.models.len().max(self.model_sampling.len()))
            .map(|m| self.effective_sampling(m))
            .collect()
    }
}

/// Makes and logs the model calls of one episode (see the module docs).
#[derive(Debug)]
pub struct Caller {
    /// The models as a roster (member `m` = model `m` with its sampling): agents are built
    /// the way reasoning teams are, with the environment's instructions as their role.
    roster: Roster,
    /// Replies from a file instead of models ([`CallerConfig::script`]).
    script: Option<Arc<ReplyScript>>,
    /// Deadline of one call ([`CallerConfig::timeout`]).
    timeout: Option<Duration>,
    team: Option<Team>,
    /// Index of each agent in the environment's order (for round-robin models).
    order: BTreeMap<AgentId, usize>,
    seed: u64,
}

impl Caller {
    /// A caller for an episode with `seed`.
    pub fn new(config: CallerConfig, seed: u64) -> Self {
        let placeholder = Arc::new(RoleCard::new("environment", String::new()));
        let roster = Roster {
            members: config
                .models
                .iter()
                .enumerate()
                .map(|(m, model)| Member {
                    role: placeholder.clone(),
                    model: model.clone(),
                    sampling: config.model_sampling.get(m).cloned().unwrap_or_default(),
                })
                .collect(),
            sampling: config.sampling.clone(),
        };
        Self {
            roster,
            script: config.script,
            timeout: config.timeout,
            team: None,
            order: BTreeMap::new(),
            seed,
        }
    }

    /// Makes sure every deciding agent has an actor (created on first sight, with its
    /// instructions as the system prompt). Must run inside a tokio runtime.
    pub fn ensure_agents(
        &mut self,
        all: &[AgentId],
        deciding: &[AgentView],
    ) -> Result<(), EmbodiedError> {
        if self.script.is_some() {
            return Ok(());
        }
        if self.order.is_empty() {
            self.order = all
                .iter()
                .enumerate()
                .map(|(i, a)| (a.clone(), i))
                .collect();
        }
        let no_model = || EmbodiedError::config("caller", "no model configured");
        if self.roster.members.is_empty() {
            return Err(no_model());
        }
        if self.team.is_none() {
            // Mailboxes hold at most a few pending asks per agent in these policies.
            self.team = Some(Team::builder().mailbox_capacity(4).build()?);
        }
        let Some(team) = self.team.as_ref() else {
            return Ok(());
        };
        for view in deciding {
            if team.contains(&view.id) {
                continue;
            }
            let i = self.order.get(&view.id).copied().unwrap_or(0);
            let mut spec = self.roster.spec(i, &view.id).ok_or_else(no_model)?;
            spec.role = Arc::new(RoleCard::new("environment", view.instructions.clone()));
            team.add_agent(spec)?;
        }
        Ok(())
    }

    /// The LLM `seed` of a call: a stable hash of (episode seed, step, agent, purpose), low
    /// 31 bits (servers reject larger seeds), so sampled replies differ across seeds and
    /// agents but repeat exactly on a rerun.
    fn call_seed(&self, step: u64, agent: &str, purpose: &str) -> u64 {
        let mut h = StableHasher::new();
        h.u64(self.seed).u64(step).str(agent).str(purpose);
        h.finish() & 0x7fff_ffff
    }

    /// One stateless call of `agent` (system = its instructions, user = `prompt`), logged.
    /// A failed call is returned as [`EmbodiedError::Call`] carrying its log.
    pub async fn ask(
        &self,
        step: u64,
        view: &AgentView,
        purpose: &str,
        prompt: String,
    ) -> Result<CallLog, EmbodiedError> {
        self.ask_as(step, view, purpose, None, prompt).await
    }

    /// [`Caller::ask`] with `system` as the call's system prompt in place of the agent's
    /// instructions (`None`: the instructions).
    pub async fn ask_as(
        &self,
        step: u64,
        view: &AgentView,
        purpose: &str,
        system: Option<&str>,
        prompt: String,
    ) -> Result<CallLog, EmbodiedError> {
        self.ask_shaped(step, view, purpose, system, prompt, None)
            .await
    }

    /// The call whose reply is the agent's action: [`Caller::ask_as`], asking for a reply
    /// that fits [`AgentView::reply_schema`] when the policy runs structured
    /// (`response_format` `json_schema`; the episode loop reads the JSON back as the action
    /// text).
    pub async fn ask_action(
        &self,
        step: u64,
        view: &AgentView,
        purpose: &str,
        system: Option<&str>,
        prompt: String,
    ) -> Result<CallLog, EmbodiedError> {
        let format =
            view.reply_schema
                .as_ref()
                .map(|schema| colony_llm::ResponseFormat::JsonSchema {
                    name: "action".into(),
                    schema: schema.clone(),
                });
        self.ask_shaped(step, view, purpose, system, prompt, format)
            .await
    }

    async fn ask_shaped(
        &self,
        step: u64,
        view: &AgentView,
        purpose: &str,
        system: Option<&str>,
        prompt: String,
        format: Option<colony_llm::ResponseFormat>,
    ) -> Result<CallLog, EmbodiedError> {
        let system = system.unwrap_or(view.instructions.as_str());
        let mut messages = Vec::with_capacity(2);
        if !system.is_empty() {
            messages.push(Message::system(system));
        }
        messages.push(Message::user(prompt.as_str()));
        let mut log = CallLog {
            step,
            agent: view.id.clone(),
            purpose: purpose.to_string(),
            messages,
            reply: None,
            action: None,
            parse_error: None,
            usage: Usage::default(),
            latency_ms: 0.0,
            error: None,
            retries: 0,
            truncated: None,
            decides: false,
            tools: Vec::new(),
        };
        if let Some(script) = &self.script {
            let reply = script.reply(&view.id, step, purpose)?;
            log.usage = Usage {
                prompt_tokens: approx_prompt_tokens(&log.messages),
                completion_tokens: approx_tokens(&reply),
                ..Usage::default()
            };
            log.reply = Some(reply);
            return Ok(log);
        }
        let team = self.team.as_ref().ok_or_else(|| {
            EmbodiedError::config("caller", "ensure_agents was not called before ask")
        })?;
        let options = |system: String| {
            let options = AskOptions::new()
                .stateless()
                .seed(self.call_seed(step, &view.id, purpose))
                .tag(format!("step {step} {purpose}"))
                .purpose(purpose)
                .system(system);
            let options = match &format {
                Some(f) => options.response_format(f.clone()),
                None => options,
            };
            match self.timeout {
                Some(d) => options.timeout(d),
                None => options,
            }
        };
        let mut result = team
            .ask_with(view.id.as_str(), prompt, options(system.to_string()))
            .await;
        // The token guard: a prompt refused as too long is cut to fit and asked once more.
        if let Err(RuntimeError::Model {
            source: ModelError::ContextOverflow { context_tokens, .. },
            ..
        }) = &result
        {
            let room = EMBODIED_SAMPLING
                .max_tokens
                .map_or(0, u64::from)
                .min(context_tokens / 4);
            let budget = context_tokens.saturating_sub(room);
            // The prompt as sent is the log's last message: no copy is kept for this rare path.
            let sent = log.messages.last().map_or("", |m| m.content.as_str());
            if let Some((system, prompt, cut)) = token_guard::fit(system, sent, budget) {
                tracing::debug!(step, agent = %view.id, purpose, ?cut, "prompt cut to fit the context");
                log.messages = Vec::with_capacity(2);
                if !system.is_empty() {
                    log.messages.push(Message::system(system.as_str()));
                }
                log.messages.push(Message::user(prompt.as_str()));
                log.truncated = Some(cut);
                result = team
                    .ask_with(view.id.as_str(), prompt, options(system))
                    .await;
            }
        }
        match result {
            Ok(reply) => {
                log.usage = reply.usage;
                log.latency_ms = reply.latency.as_secs_f64() * 1e3;
                log.retries = reply.retries;
                log.tools = reply.tools;
                log.reply = Some(reply.text);
                Ok(log)
            }
            Err(source) => {
                log.error = Some(source.to_string());
                Err(EmbodiedError::Call {
                    step,
                    source: Box::new(source),
                    calls: vec![log],
                })
            }
        }
    }

    /// Drops the team's transcript recorded so far (the [`CallLog`]s hold what is kept).
    pub fn forget_transcript(&self) {
        if let Some(team) = &self.team {
            drop(team.take_transcript());
        }
    }

    /// Stops the actors.
    pub async fn shutdown(&mut self) {
        if let Some(team) = self.team.take() {
            team.shutdown().await;
        }
    }
}

/// The model-facing state every LLM-driven embodied policy owns: its [`CallerConfig`], the
/// episode's [`Caller`] (started on the first decision, when the seed and the agents are
/// known) and the trace of the step just decided. Policies hand it to the episode loop
/// through [`super::EmbodiedPolicy::slot`], so taking the trace and stopping the actors at the
/// end of an episode are written once, not once per policy.
#[derive(Debug)]
pub struct CallerSlot {
    config: CallerConfig,
    caller: Option<Caller>,
    /// The trace of the step just decided (see [`super::EmbodiedPolicy::take_trace`]).
    pub trace: Option<serde_json::Value>,
}

impl CallerSlot {
    /// An empty slot whose caller will use `config`.
    pub fn new(config: CallerConfig) -> Self {
        Self {
            config,
            caller: None,
            trace: None,
        }
    }

    /// The episode's caller (created for `seed` on first use) with an actor for every agent
    /// of `deciding`; `all` is the environment's agent order, which assigns models.
    pub fn caller(
        &mut self,
        seed: u64,
        all: &[AgentId],
        deciding: &[AgentView],
    ) -> Result<&Caller, EmbodiedError> {
        let caller = self
            .caller
            .get_or_insert_with(|| Caller::new(self.config.clone(), seed));
        caller.ensure_agents(all, deciding)?;
        Ok(caller)
    }

    /// Stops the caller's actors; the next episode starts a new caller.
    pub async fn shutdown(&mut self) {
        if let Some(mut caller) = self.caller.take() {
            caller.shutdown().await;
        }
    }
}

/// Joins per-agent call results (in agent order): the logs of every agent, or the first
/// failure in that order carrying every log made so far (failed calls included).
pub(crate) fn merge_failure(
    step: u64,
    results: Vec<Result<Vec<CallLog>, EmbodiedError>>,
) -> Result<Vec<CallLog>, EmbodiedError> {
    let mut logs = Vec::new();
    let mut failure: Option<EmbodiedError> = None;
    for r in results {
        match r {
            Ok(mut l) => logs.append(&mut l),
            Err(EmbodiedError::Call {
                source, mut calls, ..
            }) => {
                logs.append(&mut calls);
                if failure.is_none() {
                    failure = Some(EmbodiedError::Call {
                        step,
                        source,
                        calls: Vec::new(),
                    });
                }
            }
            Err(other) => {
                if failure.is_none() {
                    failure = Some(other);
                }
            }
        }
    }
    match failure {
        None => Ok(logs),
        Some(EmbodiedError::Call { step, source, .. }) => Err(EmbodiedError::Call {
            step,
            source,
            calls: logs,
        }),
        Some(other) => Err(other),
    }
}
