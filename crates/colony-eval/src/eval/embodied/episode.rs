//! The one episode loop: scripted and LLM policies alike, for `colony env run`,
//! `colony compare`, `colony wildfire do-nothing` and suites.
//!
//! Each step: ask the policy (a scripted policy reads the environment directly; an LLM policy
//! gets owned [`StepView`]s of the deciding agents and is awaited), then parse and step
//! **synchronously**, so the environment never crosses an `.await` (DESIGN.md). Scripted
//! actions go through the strict parser (an invalid one is a policy bug and ends the episode
//! with an error); model replies go through the environment's lenient parser, and every
//! fallback is counted. Steps and calls stream to an [`EpisodeSink`] as they happen, so memory
//! stays bounded and a killed run keeps what it wrote.
//!
//! Decision (failures are never wrong answers): the first model call that fails after the
//! client's retries ends the episode with `error` set; the episode is reported as an error,
//! kept out of score means, and rerun on resume.

use std::collections::BTreeMap;
use std::time::Instant;

use colony_env_api::{AgentId, DynEnvironment, Event};
use serde::{Deserialize, Serialize};

use colony_llm::stops_run;
use colony_policy::embodied::{AgentView, CallLog, EmbodiedError, EmbodiedPolicy, StepView};
use colony_runtime::RuntimeError;

/// One step as `steps.jsonl` stores it (the key names are a contract).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// Environment steps taken before this one (0 for the first).
    pub step: u64,
    /// The action each named agent took, in the environment's action syntax.
    pub actions: BTreeMap<AgentId, String>,
    /// Reward per agent.
    pub rewards: BTreeMap<AgentId, f64>,
    /// The environment's score after the step.
    pub score: f64,
    /// The task ended.
    pub terminated: bool,
    /// A limit cut the episode.
    pub truncated: bool,
    /// What happened.
    pub events: Vec<Event>,
    /// The policy's trace of this step's decision, when it keeps one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<serde_json::Value>,
}

/// Where an episode's steps and calls go as they happen.
pub trait EpisodeSink: Send {
    /// One finished step.
    fn on_step(&mut self, record: &StepRecord) -> std::io::Result<()>;
    /// The model calls of one step (failed ones included), in a deterministic order.
    fn on_calls(&mut self, calls: &[CallLog]) -> std::io::Result<()>;
    /// Whether [`EpisodeSink::on_render`] wants the ASCII picture after every step.
    fn wants_render(&self) -> bool {
        false
    }
    /// The environment's ASCII picture after step `step` (1-based: steps taken).
    fn on_render(&mut self, step: u64, picture: &str) {
        let _ = (step, picture);
    }
}

/// A sink that keeps nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NullSink;

impl EpisodeSink for NullSink {
    fn on_step(&mut self, _record: &StepRecord) -> std::io::Result<()> {
        Ok(())
    }
    fn on_calls(&mut self, _calls: &[CallLog]) -> std::io::Result<()> {
        Ok(())
    }
}

/// Settings of one episode.
#[derive(Debug, Clone, Copy)]
pub struct EpisodeConfig {
    /// The seed the environment was reset with (also given to policies).
    pub seed: u64,
    /// Safety cap on steps (environments truncate themselves first).
    pub max_steps: usize,
}

/// How one episode went.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EpisodeOutcome {
    /// The environment's score at the end.
    pub score: f64,
    /// Steps taken.
    pub steps: u64,
    /// The task ended.
    pub terminated: bool,
    /// A limit cut the episode (the environment's or `max_steps`).
    pub truncated: bool,
    /// Model calls that returned a reply.
    pub calls: u64,
    /// Model calls that failed.
    pub failed_calls: u64,
    /// Latencies of the calls that returned a reply.
    pub call_latency: crate::eval::latency_histogram::LatencyHistogram,
    /// Cost of the calls in nano-dollars at the models' prices; `None` without prices.
    pub cost_nusd: Option<u64>,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Replies the environment replaced by its fallback.
    pub fallbacks: u64,
    /// Tool calls of the episode's model calls (`--tools`; omitted when none).
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub tool_calls: u64,
    /// Of those, the ones that failed (counted, never an action).
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub tool_errors: u64,
    /// Time spent in tools, in microseconds.
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub tool_time_us: u64,
    /// Why the episode stopped early, when it did.
    pub error: Option<String>,
    /// Wall time in seconds.
    pub wall_s: f64,
    /// The error is one no retry can fix ([`colony_llm::stops_run`]); runs stop on it.
    #[serde(skip)]
    pub fatal: bool,
}

/// Errors that stop the loop itself (results could not be written).
#[derive(Debug, thiserror::Error)]
#[error("writing the episode's records: {0}")]
pub struct EpisodeIoError(#[from] pub std::io::Error);

/// Views of the deciding agents, owned (nothing borrows the environment afterwards).
fn views(
    env: &dyn DynEnvironment,
    policy: &dyn EmbodiedPolicy,
    feedback: &mut BTreeMap<AgentId, String>,
    deciding: Vec<AgentId>,
) -> Result<Vec<AgentView>, EmbodiedError> {
    let all = if policy.wants_neighbours() {
        env.agents()
    } else {
        Vec::new()
    };
    deciding
        .into_iter()
        .map(|id| {
            let neighbours = all
                .iter()
                .filter(|s| **s != id && env.messaging().is_none_or(|m| m.hears(&id, s)))
                .cloned()
                .collect();
            Ok(AgentView {
                instructions: env.instructions(&id),
                card: env.briefing().and_then(|b| b.agent_card(&id)),
                observation: env.observe_text(&id)?,
                perception_prompt: env.calls().and_then(|c| c.perception_prompt(&id)),
                execution: env.calls().and_then(|c| c.execution_prompter(&id)),
                neighbours,
                feedback: feedback.remove(&id),
                reply_schema: policy.structured().then(|| env.reply_schema(&id)),
                id,
            })
        })
        .collect()
}

/// Runs one episode of `policy` on `env` (already reset with `config.seed`).
pub async fn run_episode(
    env: &mut dyn DynEnvironment,
    policy: &mut dyn EmbodiedPolicy,
    config: EpisodeConfig,
    sink: &mut dyn EpisodeSink,
) -> Result<EpisodeOutcome, EpisodeIoError> {
    let start = Instant::now();
    let mut out = EpisodeOutcome::default();
    let mut feedback: BTreeMap<AgentId, String> = BTreeMap::new();
    let env_id = env.id().to_string();
    let delivers = env.messaging().is_some_and(|m| m.delivers_messages());
    let agents = env.agents();
    let mut step: u64 = 0;
    while (step as usize) < config.max_steps {
        let mut calls = Vec::new();
        let stepped = match policy.decide_now(&*env) {
            Some(actions) => actions.and_then(|a| {
                env.step_events(&a)
                    .map(|r| (r, a.into_iter().collect()))
                    .map_err(EmbodiedError::from)
            }),
            None => {
                let deciding = env.deciding_agents();
                let decided = if deciding.is_empty() && !policy.decides_every_step() {
                    Ok(Default::default())
                } else {
                    match views(&*env, &*policy, &mut feedback, deciding) {
                        Ok(deciding) => {
                            let view = StepView {
                                step,
                                seed: config.seed,
                                env_id: env_id.clone(),
                                agents: agents.clone(),
                                deciding,
                                env_delivers_messages: delivers,
                                env: policy.wants_snapshot().then(|| env.snapshot()),
                            };
                            crate::eval::otlp::in_span(
                                format!("step {step}"),
                                vec![opentelemetry::KeyValue::new("colony.step", step as i64)],
                                policy.decide(view),
                            )
                            .await
                        }
                        Err(e) => Err(e),
                    }
                };
                match decided {
                    Ok(d) => {
                        calls = d.calls;
                        // A prompt the token guard cut is a fallback, like a reply the
                        // environment could not read: counted, never silent.
                        out.fallbacks +=
                            calls.iter().filter(|c| c.truncated.is_some()).count() as u64;
                        // Structured replies are JSON: read back as the environment's action
                        // text; one that does not fit goes as it is (its fallback counted).
                        let replies = if policy.structured() {
                            d.replies
                                .into_iter()
                                .map(|(agent, text)| {
                                    let read = env.structured_reply_text(&agent, &text);
                                    (agent, read.unwrap_or(text))
                                })
                                .collect()
                        } else {
                            d.replies
                        };
                        env.step_replies(&replies)
                            .map_err(EmbodiedError::from)
                            .map(|(r, taken)| {
                                for c in calls.iter_mut().filter(|c| c.decides) {
                                    if let Some(t) = taken.get(&c.agent) {
                                        c.action = Some(t.action.clone());
                                        c.parse_error = t.fallback.clone();
                                    }
                                }
                                let mut actions = BTreeMap::new();
                                for (agent, t) in taken {
                                    out.fallbacks += u64::from(t.fallback.is_some());
                                    if let Some(f) = t.feedback {
                                        feedback.insert(agent.clone(), f);
                                    }
                                    actions.insert(agent, t.action);
                                }
                                (r, actions)
                            })
                    }
                    Err(EmbodiedError::Call {
                        step,
                        source,
                        calls: made,
                    }) => {
                        // The error keeps the failed call only (its message names the
                        // call's purpose); the step's calls go to the sink.
                        let failed = made.iter().rev().find(|c| c.error.is_some()).cloned();
                        calls = made;
                        Err(EmbodiedError::Call {
                            step,
                            source,
                            calls: failed.into_iter().collect(),
                        })
                    }
                    Err(e) => Err(e),
                }
            }
        };
        for c in &calls {
            if c.error.is_some() {
                out.failed_calls += 1;
            } else {
                out.calls += 1;
                out.call_latency.record(c.latency_ms);
            }
            out.prompt_tokens = out.prompt_tokens.saturating_add(c.usage.prompt_tokens);
            out.completion_tokens = out
                .completion_tokens
                .saturating_add(c.usage.completion_tokens);
            if let Some(c) = c.usage.cost_nusd {
                out.cost_nusd = Some(out.cost_nusd.unwrap_or(0).saturating_add(c));
            }
            let tools = colony_llm::ToolTally::of(&c.tools);
            out.tool_calls += tools.calls;
            out.tool_errors += tools.errors;
            out.tool_time_us = out.tool_time_us.saturating_add(tools.time_us);
        }
        if !calls.is_empty() {
            sink.on_calls(&calls)?;
        }
        let (r, actions) = match stepped {
            Ok(x) => x,
            Err(e) => {
                out.fatal = matches!(&e, EmbodiedError::Call { source, .. }
                    if matches!(source.as_ref(), RuntimeError::Model { source, .. } if stops_run(source)));
                out.error = Some(e.to_string());
                break;
            }
        };
        let record = StepRecord {
            step,
            actions,
            rewards: r.rewards,
            score: env.score(),
            terminated: r.terminated,
            truncated: r.truncated,
            events: r.events,
            trace: policy.take_trace(),
        };
        sink.on_step(&record)?;
        step += 1;
        if sink.wants_render() {
            sink.on_render(step, &env.render());
        }
        if r.terminated || r.truncated {
            out.terminated = r.terminated;
            out.truncated = r.truncated;
            break;
        }
    }
    if out.error.is_none() && !out.terminated && !out.truncated {
        // The safety cap cut the episode.
        out.truncated = true;
    }
    policy.finish().await;
    out.score = env.score();
    out.steps = step;
    out.wall_s = start.elapsed().as_secs_f64();
    Ok(out)
}
