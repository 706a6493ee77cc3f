//! The step skeleton the CREW-Wildfire coordination frameworks share (docs/design/frameworks.md
//! §14.1): a framework is its own state plus one [`FrameworkSteps::step`]; [`Framework`] turns
//! it into an [`EmbodiedPolicy`].
//!
//! Every step of every framework opens the same way ([`framework::open_step`]: a read-only
//! copy of the environment, the live agents, their perceptions, the shared briefing) and ends
//! the same way (the team's transcript is dropped, the step's trace goes to `steps.jsonl`);
//! only the middle differs (CAMON's leader and reviews, COELA's chat, Embodied's rounds,
//! HMAS-2's plan and feedback). Written once here, the skeleton is what a new framework in the
//! same family reuses: implement [`FrameworkSteps`] on its state and register
//! `Framework::<MyFramework>::new`.
//!
//! Decision: a framework reads its options in [`FrameworkSteps::fresh`]; the official
//! settings are the defaults, and the few numbers the paper's appendix sets differently are
//! options (`hmas2:replans=3`, `embodied:rounds=2,lifespan=3`, `coela:chat=30`;
//! docs/design/frameworks.md "Comparison with the official code"). [`PolicyOptions::whole`]
//! reads them; an unknown key or a bad value is an error naming both (`camon:x=1` is a typo,
//! not a setting).

use crate::PolicyOptions;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::ops::Deref;

use super::call_roles::call_role;
use super::caller::merge_failure;
use super::framework::{self, with_calls, Opening};
use super::{
    AgentView, CallLog, CallerConfig, CallerSlot, Decision, EmbodiedError, EmbodiedPolicy, StepView,
};
use async_trait::async_trait;
use colony_env_api::AgentId;
use futures::future::join_all;

/// What a framework's step produced: the reply per agent (agents left out take the
/// environment's no-op) and the step's trace for `steps.jsonl`.
#[derive(Debug, Default)]
pub struct Stepped {
    /// Reply text per agent, parsed by the environment's lenient parser.
    pub replies: BTreeMap<AgentId, String>,
    /// The step's trace (`None`: none is written).
    pub trace: Option<serde_json::Value>,
}

/// One coordination framework's own part of a step (see the module docs). Its calls made
/// through [`Opening::ask`] and [`Opening::ask_all`] get the short system prompt of their
/// purpose (`call_roles`), or the agent's instructions for a purpose without one.
#[async_trait]
pub trait FrameworkSteps: Debug + Send + Sync + 'static {
    /// The policy name used in results (`camon`, …).
    const NAME: &'static str;

    /// Whether the framework is called every step, also when no agent's action ended. All
    /// four official loops perceive every step (`wildfire_alg` in each `__main__.py`), so this
    /// is the default; CAMON and COELA then decide only for `view.deciding`.
    const EVERY_STEP: bool = true;

    /// The state at the start of an episode, its options read from `options` (the spec's part
    /// after `NAME:`; what it leaves unread is refused after it).
    fn fresh(options: &mut PolicyOptions) -> Result<Self, EmbodiedError>
    where
        Self: Sized;

    /// Runs the step after its opening `open`: `calls` already holds the opening's perception
    /// calls; the step appends its own in a deterministic order. `None` when there is nothing
    /// to decide (no live agent).
    async fn step(
        &mut self,
        view: &StepView,
        open: &Opening<'_>,
        calls: &mut Vec<CallLog>,
    ) -> Result<Option<Stepped>, EmbodiedError>;
}

/// A framework as an [`EmbodiedPolicy`]: its caller slot and its state `S`, which it
/// dereferences to (so `policy.counts()` reads the framework's own counters).
#[derive(Debug)]
pub struct Framework<S> {
    slot: CallerSlot,
    steps: S,
    structured: bool,
}

impl<S: FrameworkSteps> Framework<S> {
    /// A policy whose calls go through `config`; `options` is the text after `NAME:`, parsed
    /// by [`PolicyOptions`] and read by [`FrameworkSteps::fresh`]; an option it does not read
    /// is an error naming the ones it does.
    pub fn new(config: CallerConfig, options: &str) -> Result<Self, EmbodiedError> {
        PolicyOptions::parse(S::NAME, options)?.read(|o| Self::with_options(config, o))
    }

    /// A policy whose calls go through `config`, its options read from `options` (the
    /// registry's constructors; the registry checks what is left unread).
    pub fn with_options(
        config: CallerConfig,
        options: &mut PolicyOptions,
    ) -> Result<Self, EmbodiedError> {
        // `structured=true` constrains the EXECUTION call, where the environment has one.
        let steps = S::fresh(options)?;
        let structured =
            crate::choice(options, "structured", "true|false")?.is_some_and(|v| v == "true");
        let mut f = Self::with_steps(config, steps);
        f.structured = structured;
        Ok(f)
    }

    /// A policy running `steps` from their current state.
    pub fn with_steps(config: CallerConfig, steps: S) -> Self {
        Self {
            slot: CallerSlot::new(config),
            steps,
            structured: false,
        }
    }
}

impl<S> Deref for Framework<S> {
    type Target = S;

    fn deref(&self) -> &S {
        &self.steps
    }
}

#[async_trait]
impl<S: FrameworkSteps> EmbodiedPolicy for Framework<S> {
    fn name(&self) -> &str {
        S::NAME
    }

    fn wants_snapshot(&self) -> bool {
        true
    }

    fn decides_every_step(&self) -> bool {
        S::EVERY_STEP
    }

    fn structured(&self) -> bool {
        self.structured
    }

    async fn decide(&mut self, view: StepView) -> Result<Decision, EmbodiedError> {
        let mut open = framework::open_step(S::NAME, &mut self.slot, &view).await?;
        let mut calls = std::mem::take(&mut open.calls);
        let Some(done) = self.steps.step(&view, &open, &mut calls).await? else {
            return Ok(Decision {
                replies: BTreeMap::new(),
                calls,
            });
        };
        open.caller.forget_transcript();
        drop(open);
        self.slot.trace = done.trace;
        Ok(Decision {
            replies: done.replies,
            calls,
        })
    }

    fn slot(&mut self) -> Option<&mut CallerSlot> {
        Some(&mut self.slot)
    }
}

impl Opening<'_> {
    /// One call of `agent` whose failure carries every call of the step so far (`calls`).
    pub async fn ask(
        &self,
        calls: &mut Vec<CallLog>,
        agent: &AgentView,
        purpose: &str,
        prompt: String,
    ) -> Result<CallLog, EmbodiedError> {
        self.caller
            .ask_as(self.step, agent, purpose, call_role(purpose), prompt)
            .await
            .map_err(|e| with_calls(e, calls))
    }

    /// One call per `(agent, prompt)`, concurrently; the logs in the given order, or the first
    /// failure in that order carrying every call of the step so far.
    pub async fn ask_all(
        &self,
        calls: &mut Vec<CallLog>,
        purpose: &str,
        prompts: Vec<(&AgentView, String)>,
    ) -> Result<Vec<CallLog>, EmbodiedError> {
        let results = join_all(prompts.into_iter().map(|(agent, prompt)| async move {
            self.caller
                .ask_as(self.step, agent, purpose, call_role(purpose), prompt)
                .await
                .map(|log| vec![log])
        }))
        .await;
        merge_failure(self.step, results).map_err(|e| with_calls(e, calls))
    }

    /// Executes the chosen `(agent, action)` pairs ([`framework::execute_all`]), appending
    /// the execution calls to `calls`; the reply per agent.
    pub async fn execute_all(
        &self,
        calls: &mut Vec<CallLog>,
        actions: Vec<(AgentView, String)>,
    ) -> Result<BTreeMap<AgentId, String>, EmbodiedError> {
        let role = call_role("execution");
        let (replies, mut exec) = framework::execute_all(self.caller, self.step, actions, role)
            .await
            .map_err(|e| with_calls(e, calls))?;
        calls.append(&mut exec);
        Ok(replies)
    }

    /// `AGENT ABILITIES` of `agent` as a bullet list (one `- ` added when the environment's
    /// text is not one already).
    pub fn ability_bullets(&self, agent: &str) -> String {
        let abilities = framework::abilities(&*self.env, agent);
        let abilities = abilities.trim_end();
        if abilities.starts_with("- ") {
            abilities.to_string()
        } else {
            format!("- {abilities}")
        }
    }

    /// The perception text of `agent` ("" when it has none).
    pub fn perception(&self, agent: &str) -> &str {
        self.perceptions.get(agent).map_or("", String::as_str)
    }
}

/// Appends `action` to `agent`'s own record of past actions, keeping the last `cap` (the
/// frameworks' `PAST ACTIONS` off Wildfire).
pub fn remember(
    history: &mut BTreeMap<AgentId, Vec<String>>,
    agent: &str,
    action: &str,
    cap: usize,
) {
    let h = history.entry(agent.to_string()).or_default();
    h.push(action.to_string());
    if h.len() > cap {
        h.drain(..h.len() - cap);
    }
}
