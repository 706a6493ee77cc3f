//! ReAct (Yao et al., 2023): one agent that reasons, acts with a tool, observes the result and
//! repeats until it answers — here through native function calling, as current agent
//! frameworks run it (the model's tool calls are the actions, the tool messages the
//! observations; `colony_runtime::ToolLoop` runs the loop).
//!
//! Decision: the agent is offered the run's tools (`--tools`, a suite's `tools`). A run that
//! names none gives it the `calculator` (exact arithmetic, no code execution) with up to
//! `steps` tool rounds (default 8), so `react` is never a plain single call by accident. The
//! trace lists each action and whether it failed; failures are counted in the item's
//! `tool_errors`, never scored as answers.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;

use super::common::{ask_all, ask_options, baseline_roster, Failures, Turn};
use super::{PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};
use colony_llm::{ChatModel, SharedModel};
use colony_runtime::{Event, SharedTool, ToolLimits, ToolLoop, ToolSet};

/// The system prompt of the ReAct agent.
pub const REACT_SYSTEM: &str = "You solve problems step by step and may use the tools you are \
given. At each step, think about what you still need, then either call one tool to get it or, \
when you are sure, give the final answer. Read every tool result before deciding the next \
step; if a tool reports an error, fix the call or reason without it.";

/// The ReAct policy (see the module docs).
#[derive(Debug, Clone)]
pub struct React {
    /// Most tool rounds when the policy supplies its own tools.
    pub steps: u32,
}

impl React {
    /// Most `steps` allowed.
    pub const MAX_STEPS: u32 = colony_runtime::MAX_TOOL_ROUNDS;

    /// ReAct with `steps` tool rounds (1..=[`React::MAX_STEPS`]).
    pub fn new(steps: u32) -> Result<Self, PolicyError> {
        if !(1..=Self::MAX_STEPS).contains(&steps) {
            return Err(PolicyError::Config(format!(
                "react: steps must be 1..={}, got {steps}",
                Self::MAX_STEPS
            )));
        }
        Ok(Self { steps })
    }

    /// The agent's model: the member's own when the run gave it tools, else wrapped with the
    /// calculator.
    fn model(&self, model: &SharedModel) -> SharedModel {
        if model.offers_tools() {
            return model.clone();
        }
        let calculator: SharedTool = Arc::new(colony_tools::Calculator::default());
        match ToolSet::new(vec![calculator]) {
            Ok(set) => {
                let limits = ToolLimits {
                    max_tool_rounds: self.steps,
                    ..ToolLimits::default()
                };
                Arc::new(ToolLoop::new(model.clone(), Arc::new(set), limits, None))
            }
            Err(_) => model.clone(),
        }
    }
}

impl Default for React {
    fn default() -> Self {
        Self { steps: 8 }
    }
}

#[async_trait]
impl ReasoningPolicy for React {
    fn name(&self) -> &str {
        "react"
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let mut one = baseline_roster(roster, 1, true)?;
        for m in &mut one.members {
            m.model = self.model(&m.model);
        }
        let team = one.team(1)?;
        let options = ask_options(query, "react", None, 0).system(REACT_SYSTEM);
        let mut failures = Failures::default();
        let replies = ask_all(&team, vec![(0, query.text(), options)]).await;
        let turns: Vec<Turn> = replies
            .into_iter()
            .map(|(i, r)| failures.turn(None, i, r))
            .collect();
        let text = turns.into_iter().next().map(|t| t.text).unwrap_or_default();
        let actions: Vec<serde_json::Value> = team
            .transcript()
            .entries()
            .iter()
            .filter_map(|e| match &e.event {
                Event::Call(c) => Some(c.tools.clone()),
                _ => None,
            })
            .flatten()
            .map(|ex| {
                json!({
                    "tool": ex.tool.as_deref().unwrap_or(&ex.call.name),
                    "arguments": ex.call.arguments,
                    "error": ex.error,
                })
            })
            .collect();
        let answer = query.extract(&text);
        failures
            .finish(team, |errors| {
                (
                    text,
                    answer.clone(),
                    json!({ "method": "react", "answer": answer, "actions": actions, "errors": errors }),
                )
            })
            .await
    }
}
