//! [`DynEnvironment`], the object-safe text-and-JSON view of an [`Environment`], and
//! [`TextEnv`], the wrapper that provides it for any typed environment.

use std::collections::BTreeMap;

use crate::capability::{
    CallProtocol, DynNumeric, FrameworkBriefing, Messaging, NumericInterface, PaperProtocol,
    SubGoals,
};
use crate::{AgentId, EnvError, Environment, NumericSpaces, ReplyOutcome, StepJson, StepOutcome};

/// The object-safe, text-and-JSON view of an [`Environment`], for the CLI and LLM policies.
///
/// Get one with [`boxed`]; it is a separate wrapper rather than a blanket impl so the method
/// names do not clash with [`Environment`]'s in implementers' code. It is `Send` so an async
/// episode can own one (it never crosses an `.await` while borrowed).
pub trait DynEnvironment: Send {
    /// Versioned id.
    fn id(&self) -> &'static str;
    /// Agent ids.
    fn agents(&self) -> Vec<AgentId>;
    /// Starts a new episode from `seed`.
    fn reset(&mut self, seed: u64);
    /// Parses each action text and steps; agents not named take the no-op.
    fn step_events(&mut self, actions: &BTreeMap<AgentId, String>)
        -> Result<StepOutcome, EnvError>;
    /// [`DynEnvironment::step_events`] plus the state after the step (the `env step` output).
    fn step_text(&mut self, actions: &BTreeMap<AgentId, String>) -> Result<StepJson, EnvError> {
        let r = self.step_events(actions)?;
        Ok(StepJson {
            state: self.state_json(),
            rewards: r.rewards,
            terminated: r.terminated,
            truncated: r.truncated,
            events: r.events,
        })
    }
    /// One step with every agent taking `random_action` (draws from [`rng::splitmix64`]
    /// on `rng`), through the typed API with no text round trip: what `env bench` times.
    /// Returns whether the episode ended (terminated or truncated).
    fn step_random(&mut self, rng: &mut u64) -> bool;
    /// The concrete environment, for typed policies ([`typed_policy`]).
    fn as_any(&self) -> &dyn std::any::Any;
    /// A random valid action text for `agent`.
    fn random_action_text(&self, agent: &str, draw: u64) -> String;
    /// The observation of `agent` as prompt text.
    fn observe_text(&self, agent: &str) -> Result<String, EnvError>;
    /// The whole state as JSON.
    fn state_json(&self) -> serde_json::Value;
    /// Loads a state from JSON (errors name the field).
    fn load_state_json(&mut self, state: serde_json::Value) -> Result<(), EnvError>;
    /// Current score.
    fn score(&self) -> f64;
    /// ASCII picture.
    fn render(&self) -> String;
    /// The action text of the no-op for `agent`.
    fn noop_text(&self, agent: &str) -> String;

    /// An owned, read-only copy of the environment as it is now, for policies that need
    /// more than the per-agent views while they await model calls (e.g. a framework that
    /// builds a global-state prompt from several agents' perceptions). Policies may downcast
    /// it ([`DynEnvironment::as_any`]) to use an environment crate's own prompt builders.
    fn snapshot(&self) -> std::sync::Arc<dyn DynEnvironment + Sync>;
    /// [`Environment::instructions`].
    fn instructions(&self, agent: &str) -> String;
    /// [`Environment::deciding_agents`].
    fn deciding_agents(&self) -> Vec<AgentId>;
    /// See [`Environment::calls`].
    fn calls(&self) -> Option<&dyn CallProtocol>;
    /// See [`Environment::messaging`].
    fn messaging(&self) -> Option<&dyn Messaging>;
    /// See [`Environment::briefing`].
    fn briefing(&self) -> Option<&dyn FrameworkBriefing>;
    /// See [`Environment::goals`].
    fn goals(&self) -> Option<&dyn SubGoals>;
    /// See [`Environment::paper`].
    fn paper(&self) -> Option<&dyn PaperProtocol>;
    /// The numeric spaces ([`Environment::numeric`]), read-only.
    fn numeric(&self) -> Option<&dyn DynNumeric>;
    /// The numeric spaces ([`Environment::numeric`]), to step from codes.
    fn numeric_mut(&mut self) -> Option<&mut dyn DynNumeric>;
    /// [`Environment::reply_schema`].
    fn reply_schema(&self, agent: &str) -> serde_json::Value;
    /// [`Environment::structured_reply_text`] of a reply's text: the JSON it holds decoded, or
    /// `None` when it is not JSON that fits.
    fn structured_reply_text(&self, agent: &str, reply: &str) -> Option<String>;
    /// [`Environment::parse_reply`], reported as text; an unknown agent is an error.
    fn parse_reply_text(&self, agent: &str, text: &str) -> Result<ReplyOutcome, EnvError>;
    /// Parses each reply leniently ([`Environment::parse_reply`]) and steps once; agents not
    /// named take the no-op. Returns the step and how each reply was taken.
    fn step_replies(
        &mut self,
        replies: &BTreeMap<AgentId, String>,
    ) -> Result<(StepOutcome, BTreeMap<AgentId, ReplyOutcome>), EnvError>;
}

/// Wraps an [`Environment`] as a [`DynEnvironment`].
pub struct TextEnv<E>(pub E);

/// A boxed [`DynEnvironment`] view of `env`.
pub fn boxed<E: Environment + Clone + Send + Sync + 'static>(env: E) -> Box<dyn DynEnvironment> {
    Box::new(TextEnv(env))
}

impl<E: Environment + Clone + Send + Sync + 'static> DynEnvironment for TextEnv<E> {
    fn id(&self) -> &'static str {
        self.0.id()
    }
    fn agents(&self) -> Vec<AgentId> {
        self.0.agents()
    }
    fn reset(&mut self, seed: u64) {
        self.0.reset(seed);
    }
    fn step_events(
        &mut self,
        actions: &BTreeMap<AgentId, String>,
    ) -> Result<StepOutcome, EnvError> {
        let agents = self.0.agents();
        let mut parsed = BTreeMap::new();
        for (agent, text) in actions {
            if !agents.contains(agent) {
                return Err(EnvError::UnknownAgent(agent.clone()).clipped());
            }
            parsed.insert(
                agent.clone(),
                self.0
                    .parse_action(agent, text)
                    .map_err(EnvError::clipped)?,
            );
        }
        let r = self.0.step(&parsed);
        Ok(StepOutcome {
            rewards: r.rewards,
            terminated: r.terminated,
            truncated: r.truncated,
            events: r.events,
        })
    }
    fn step_random(&mut self, rng: &mut u64) -> bool {
        self.0.step_random(rng)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        &self.0
    }
    fn random_action_text(&self, agent: &str, draw: u64) -> String {
        self.0
            .format_action(agent, &self.0.random_action(agent, draw))
    }
    fn observe_text(&self, agent: &str) -> Result<String, EnvError> {
        self.0.observe_text(agent).map_err(EnvError::clipped)
    }
    fn state_json(&self) -> serde_json::Value {
        serde_json::to_value(self.0.state()).unwrap_or(serde_json::Value::Null)
    }
    fn load_state_json(&mut self, state: serde_json::Value) -> Result<(), EnvError> {
        let s: E::State = serde_json::from_value(state).map_err(|e| {
            EnvError::State {
                field: "<root>".into(),
                message: e.to_string(),
            }
            .clipped()
        })?;
        self.0.restore(s).map_err(EnvError::clipped)
    }
    fn score(&self) -> f64 {
        self.0.score()
    }
    fn render(&self) -> String {
        self.0.render()
    }
    fn noop_text(&self, agent: &str) -> String {
        self.0.format_action(agent, &self.0.noop(agent))
    }
    fn snapshot(&self) -> std::sync::Arc<dyn DynEnvironment + Sync> {
        std::sync::Arc::new(TextEnv(self.0.clone()))
    }
    fn instructions(&self, agent: &str) -> String {
        self.0.instructions(agent)
    }
    fn deciding_agents(&self) -> Vec<AgentId> {
        self.0.deciding_agents()
    }
    fn calls(&self) -> Option<&dyn CallProtocol> {
        self.0.calls()
    }
    fn messaging(&self) -> Option<&dyn Messaging> {
        self.0.messaging()
    }
    fn briefing(&self) -> Option<&dyn FrameworkBriefing> {
        self.0.briefing()
    }
    fn goals(&self) -> Option<&dyn SubGoals> {
        self.0.goals()
    }
    fn paper(&self) -> Option<&dyn PaperProtocol> {
        self.0.paper()
    }
    fn numeric(&self) -> Option<&dyn DynNumeric> {
        match self.0.numeric() {
            Some(_) => Some(self),
            None => None,
        }
    }
    fn numeric_mut(&mut self) -> Option<&mut dyn DynNumeric> {
        match self.0.numeric() {
            Some(_) => Some(self),
            None => None,
        }
    }
    fn reply_schema(&self, agent: &str) -> serde_json::Value {
        self.0.reply_schema(agent)
    }
    fn structured_reply_text(&self, agent: &str, reply: &str) -> Option<String> {
        let value: serde_json::Value = serde_json::from_str(reply.trim()).ok()?;
        self.0.structured_reply_text(agent, &value)
    }
    fn parse_reply_text(&self, agent: &str, text: &str) -> Result<ReplyOutcome, EnvError> {
        if !self.0.agents().iter().any(|a| a == agent) {
            return Err(EnvError::UnknownAgent(agent.to_string()).clipped());
        }
        let p = self.0.parse_reply(agent, text);
        Ok(ReplyOutcome {
            action: self.0.format_action(agent, &p.action),
            feedback: p.feedback,
            fallback: p.fallback,
        })
    }
    fn step_replies(
        &mut self,
        replies: &BTreeMap<AgentId, String>,
    ) -> Result<(StepOutcome, BTreeMap<AgentId, ReplyOutcome>), EnvError> {
        let agents = self.0.agents();
        let mut parsed = BTreeMap::new();
        let mut outcomes = BTreeMap::new();
        for (agent, text) in replies {
            if !agents.contains(agent) {
                return Err(EnvError::UnknownAgent(agent.clone()).clipped());
            }
            let p = self.0.parse_reply(agent, text);
            outcomes.insert(
                agent.clone(),
                ReplyOutcome {
                    action: self.0.format_action(agent, &p.action),
                    feedback: p.feedback,
                    fallback: p.fallback,
                },
            );
            parsed.insert(agent.clone(), p.action);
        }
        let r = self.0.step(&parsed);
        let outcome = StepOutcome {
            rewards: r.rewards,
            terminated: r.terminated,
            truncated: r.truncated,
            events: r.events,
        };
        Ok((outcome, outcomes))
    }
}

impl<E: Environment> TextEnv<E> {
    /// The wrapped environment's numeric interface, or the error that it has none.
    fn numeric_of(&self) -> Result<&dyn NumericInterface<E::Action>, EnvError> {
        self.0
            .numeric()
            .ok_or_else(|| crate::numeric::no_numeric_spaces(self.0.id()))
    }
}

impl<E: Environment> DynNumeric for TextEnv<E> {
    fn numeric_spaces(&self, agent: &str) -> Option<NumericSpaces> {
        self.0.numeric()?.numeric_spaces(agent)
    }
    fn observe_numeric(&self, agent: &str, out: &mut [f32]) -> Result<(), EnvError> {
        self.numeric_of()?.observe_numeric(agent, out)
    }
    fn step_codes(&mut self, codes: &[i64]) -> Result<StepOutcome, EnvError> {
        let numeric = self.numeric_of()?;
        let mut actions = BTreeMap::new();
        let mut rest = codes;
        for agent in self.0.agents() {
            let spaces = numeric
                .numeric_spaces(&agent)
                .ok_or_else(|| crate::numeric::no_numeric_spaces(self.0.id()))?;
            let width = spaces.actions.len();
            if rest.len() < width {
                return Err(crate::numeric::code_error(
                    &agent,
                    format!("the codes end before this agent's ({} given)", codes.len()),
                ));
            }
            let (code, tail) = rest.split_at(width);
            // `action_from_code` checks the code against the space itself.
            let action = numeric.action_from_code(&agent, code)?;
            actions.insert(agent, action);
            rest = tail;
        }
        if !rest.is_empty() {
            return Err(EnvError::Param {
                key: "codes".into(),
                message: format!("{} codes left over after every agent's", rest.len()),
            });
        }
        let r = self.0.step(&actions);
        Ok(StepOutcome {
            rewards: r.rewards,
            terminated: r.terminated,
            truncated: r.truncated,
            events: r.events,
        })
    }
}
