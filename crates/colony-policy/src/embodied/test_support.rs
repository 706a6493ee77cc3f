//! Shared scaffolding of the embodied policies' unit tests: a scripted caller and the first
//! decision point of an environment.

use std::sync::Arc;

use serde_json::json;

use super::{framework, CallLog, CallerConfig, ReplyScript, StepView};

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
    let (_, mut env) = crate::registry::Registry::builtin()
        .build_environment(env, settings)
        .unwrap();
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
        env_delivers_messages: env.messaging().is_some_and(|m| m.delivers_messages()),
        env: Some(env.snapshot()),
    }
}

/// What the Wildfire EXECUTION module answers for "do nothing".
pub(crate) const DO_NOTHING_EXEC: &str = "[0, 0, 0, \"do nothing\"]";

/// [`script`] of `lines` plus, for Wildfire level 1's agents 1–3 at step 0, a perception and
/// an EXECUTION reply of "do nothing".
pub(crate) fn wildfire_script(lines: &[(&str, u64, &str, &str)]) -> CallerConfig {
    let mut all = lines.to_vec();
    for a in ["1", "2", "3"] {
        all.push((a, 0, "perception", "I see trees."));
        all.push((a, 0, "execution", DO_NOTHING_EXEC));
    }
    script(&all)
}

/// `(agent, purpose)` of each call, in order.
pub(crate) fn pattern(calls: &[CallLog]) -> Vec<(String, String)> {
    calls
        .iter()
        .map(|c| (c.agent.clone(), c.purpose.clone()))
        .collect()
}

/// `v` as owned pairs (what [`pattern`] is compared with).
pub(crate) fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, p)| (a.to_string(), p.to_string()))
        .collect()
}

/// The user prompt of a call.
pub(crate) fn user(c: &CallLog) -> &str {
    c.messages.last().map_or("", |m| m.content.as_str())
}
