//! Shared scaffolding of the embodied policies' unit tests: a scripted caller and the first
//! decision point of an environment.

use std::sync::Arc;

use serde_json::json;

use super::{framework, CallerConfig, ReplyScript, StepView};

/// A caller answering from `(agent, step, purpose, reply)` lines.
pub(crate) fn script(lines: &[(&str, u64, &str, &str)]) -> CallerConfig {
    let text: String = lines
        .iter()
        .map(|(a, s, p, r)| {
            format!(
                "{}\n",
                json!({"agent": a, "step": s, "purpose": p, "reply": r})
            )
        })
        .collect();
    let script = ReplyScript::parse(&text, std::path::Path::new("test")).unwrap();
    CallerConfig {
        script: Some(Arc::new(script)),
        ..CallerConfig::default()
    }
}

/// The step-0 view of `env` with `settings`, reset with seed 0.
pub(crate) fn first_view(env: &str, settings: &[&str]) -> StepView {
    let (_, mut env) = crate::env::build(env, settings).unwrap();
    env.reset(0);
    let deciding = env
        .deciding_agents()
        .iter()
        .map(|id| framework::agent_view(&*env, id).unwrap())
        .collect();
    StepView {
        step: 0,
        seed: 0,
        env_id: env.id().to_string(),
        agents: env.agents(),
        deciding,
        env_delivers_messages: env.delivers_messages(),
        env: Some(env.snapshot()),
    }
}
