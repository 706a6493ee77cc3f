//! `independent`: one LLM agent per environment agent, prompted with the environment's own
//! observation, no coordination beyond what the environment itself carries.
//!
//! - SwarmBench: this **is** the paper's protocol (docs/design/swarmbench.md §10–§12): system
//!   = the fixed §11.1 text, user = the exact §11.2 prompt with its 5-frame memory,
//!   `ACTION:`/`MSG:` replies, messages delivered by the environment (radius, delay,
//!   corruption, commander).
//! - CUBE: the naive language agent of docs/design/cube.md §12.2: asked for a plan when its
//!   plan is exhausted, rejected actions fed back in the next prompt.
//! - Wildfire: docs/design/wildfire.md §11's PERCEPTION call (minimap → text), then the act
//!   call, then the EXECUTION call (text action → primitive), all three LLM calls as in the
//!   paper.
//!
//! (See docs/design/frameworks.md §14.6.)
//!
//! Decision: feedback from the environment's reply parser is appended to the next user
//! prompt under the line `Feedback on your previous reply:`; environments whose prompt must
//! stay byte-exact (SwarmBench) give none.

use std::sync::Arc;

use async_trait::async_trait;
use colony_env_api::DynEnvironment;
use futures::future::join_all;

use super::caller::merge_failure;
use super::tags::tag_content;
use super::{
    AgentView, CallLog, Caller, CallerConfig, CallerSlot, Decision, EmbodiedError, EmbodiedPolicy,
    StepView,
};

/// The `independent` policy (see the module docs).
#[derive(Debug)]
pub struct Independent {
    slot: CallerSlot,
    structured: bool,
}

impl Independent {
    /// A policy whose calls go through `config`.
    pub fn new(config: CallerConfig) -> Self {
        Self {
            slot: CallerSlot::new(config),
            structured: false,
        }
    }

    /// This policy asking for schema-constrained action replies (`structured=true`).
    pub fn structured(mut self, on: bool) -> Self {
        self.structured = on;
        self
    }
}

/// `prompt` with the parser's feedback on the previous reply appended, when there is some.
pub fn with_feedback(prompt: String, feedback: Option<&str>) -> String {
    match feedback {
        Some(f) => format!("{prompt}\n\nFeedback on your previous reply:\n{f}"),
        None => prompt,
    }
}

/// The calls of one agent for one step: perception (if the environment has it), act, and
/// execution (if the environment has it); the last one's reply is the agent's action.
async fn decide_agent(
    caller: &Caller,
    env: Option<&Arc<dyn DynEnvironment + Sync>>,
    step: u64,
    agent: &AgentView,
) -> Result<Vec<CallLog>, EmbodiedError> {
    decide_agent_with(caller, env, step, agent, "act", None).await
}

/// [`decide_agent`] with the act call's `purpose` and an optional `goal` line appended to the
/// act prompt after the observation (`Your current sub-goal: …`, embodied SwarmSys) and
/// before the parser's feedback; perception and execution calls are unchanged.
pub(crate) async fn decide_agent_with(
    caller: &Caller,
    env: Option<&Arc<dyn DynEnvironment + Sync>>,
    step: u64,
    agent: &AgentView,
    purpose: &str,
    goal: Option<&str>,
) -> Result<Vec<CallLog>, EmbodiedError> {
    let mut logs = Vec::new();
    let keep = |logs: &mut Vec<CallLog>, e: EmbodiedError| match e {
        EmbodiedError::Call {
            step,
            source,
            mut calls,
        } => {
            logs.append(&mut calls);
            EmbodiedError::Call {
                step,
                source,
                calls: std::mem::take(logs),
            }
        }
        other => other,
    };
    let observation = match (&agent.perception_prompt, env) {
        (Some(prompt), Some(env)) => {
            let log = caller
                .ask(step, agent, "perception", prompt.clone())
                .await
                .map_err(|e| keep(&mut logs, e))?;
            let summary = log.reply.clone().unwrap_or_default();
            logs.push(log);
            crate::embodied::framework::perceived_text(&**env, &agent.id, &summary)
        }
        _ => agent.observation.clone(),
    };
    let observation = match goal {
        Some(g) => format!("{observation}\n\nYour current sub-goal: {g}"),
        None => observation,
    };
    let prompt = with_feedback(observation, agent.feedback.as_deref());
    // The act call is the action itself unless an EXECUTION call turns it into one; the
    // call whose reply is the action asks for the structured shape when the policy does.
    let act = match &agent.execution {
        Some(_) => caller.ask(step, agent, purpose, prompt).await,
        None => caller.ask_action(step, agent, purpose, None, prompt).await,
    };
    let mut act = act.map_err(|e| keep(&mut logs, e))?;
    match &agent.execution {
        Some(execution) => {
            let reply = act.reply.clone().unwrap_or_default();
            let action = tag_content(&reply, "action").unwrap_or(reply);
            logs.push(act);
            let mut exec = caller
                .ask_action(step, agent, "execution", None, execution(&action))
                .await
                .map_err(|e| keep(&mut logs, e))?;
            exec.decides = true;
            logs.push(exec);
        }
        None => {
            act.decides = true;
            logs.push(act);
        }
    }
    Ok(logs)
}

#[async_trait]
impl EmbodiedPolicy for Independent {
    fn name(&self) -> &str {
        "independent"
    }

    fn wants_snapshot(&self) -> bool {
        true
    }

    fn structured(&self) -> bool {
        self.structured
    }

    async fn decide(&mut self, view: StepView) -> Result<Decision, EmbodiedError> {
        let caller = self.slot.caller(view.seed, &view.agents, &view.deciding)?;
        let env = view.env.as_ref();
        let results = join_all(
            view.deciding
                .iter()
                .map(|a| decide_agent(caller, env, view.step, a)),
        )
        .await;
        caller.forget_transcript();
        let calls = merge_failure(view.step, results)?;
        let replies = calls
            .iter()
            .filter(|c| c.decides)
            .map(|c| (c.agent.clone(), c.reply.clone().unwrap_or_default()))
            .collect();
        Ok(Decision { replies, calls })
    }

    fn slot(&mut self) -> Option<&mut CallerSlot> {
        Some(&mut self.slot)
    }
}
