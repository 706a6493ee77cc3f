//! The embodied framework tests' shared pieces (`tests/framework_*.rs`): scripted Wildfire
//! episodes and their call patterns, and a run on every environment with the in-process
//! simulated model.

use serde_json::Value;

use super::{assert_tokens_are_the_servers, colony, compare_args, compare_policy, jsonl};

/// Small settings per environment (environment, settings, max steps) for the embodied
/// framework tests.
pub const FRAMEWORK_ENVS: &[(&str, &[&str], &str)] = &[
    (
        "swarmbench",
        &["--set", "agents=4", "--set", "max_round=5"],
        "40",
    ),
    ("cube", &["--set", "n=2"], "60"),
    ("wildfire", &["--set", "level=1"], "20"),
];

/// Runs `policy` with the in-process simulated model on each of [`FRAMEWORK_ENVS`] (see
/// [`compare_policy`]) and hands `check` the environment and seed 0's logged calls and steps.
pub fn on_every_environment(policy: &str, check: impl Fn(&str, &[Value], &[Value])) {
    for (env, set, max_steps) in FRAMEWORK_ENVS {
        let dir = tempfile::tempdir().unwrap();
        compare_policy(policy, env, set, max_steps, &[], dir.path());
        let episode = dir.path().join(format!("episodes/{policy}/0"));
        let calls = jsonl(&episode.join("calls.jsonl"));
        let steps = jsonl(&episode.join("steps.jsonl"));
        check(env, &calls, &steps);
    }
}

/// `policy`'s episodes on `FRAMEWORK_ENVS[env]` against `serve-mock` spend exactly the tokens
/// the server counted (see [`assert_tokens_are_the_servers`]).
pub fn assert_tokens_are_the_servers_on(policy: &str, env: usize) {
    let (env, set, max_steps) = FRAMEWORK_ENVS[env];
    assert_tokens_are_the_servers(policy, env, set, max_steps);
}

/// The calls whose purpose starts with `prefix` (a framework's own calls), in log order.
pub fn purpose_calls<'a>(calls: &'a [Value], prefix: &str) -> Vec<&'a Value> {
    calls
        .iter()
        .filter(|c| c["purpose"].as_str().unwrap().starts_with(prefix))
        .collect()
}

/// The trace of the last step that has one (steps in which nobody decided carry none).
pub fn last_trace(steps: &[Value]) -> &Value {
    &steps.iter().rev().find(|s| !s["trace"].is_null()).unwrap()["trace"]
}

/// The scripted reply of an execution that does nothing.
pub const DO_NOTHING: &str = "[0, 0, 0, \"do nothing\"]";

/// Runs `policy` on Wildfire level 1, seed 0, for `max_steps` steps with model replies
/// scripted by `lines` (`agent`, `step`, `purpose`, `reply`) and the same perception for agents
/// 1 to 3 at every step, and checks the episode ended without an error; returns its
/// `episodes.jsonl` row, its logged calls and its steps.
pub fn scripted_wildfire(
    policy: &str,
    max_steps: u64,
    lines: &[(&str, u64, &str, &str)],
) -> (Value, Vec<Value>, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let perceptions = (0..max_steps)
        .flat_map(|step| ["1", "2", "3"].map(|a| (a, step, "perception", "Trees all around me.")));
    let text: String = lines
        .iter()
        .copied()
        .chain(perceptions)
        .map(|(a, s, p, r)| {
            format!(
                "{}\n",
                serde_json::json!({"agent": a, "step": s, "purpose": p, "reply": r})
            )
        })
        .collect();
    let file = dir.join("script.jsonl");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("run");
    let max_steps = max_steps.to_string();
    let model = format!("script:{}", file.display());
    let rest = ["--seeds", "0", "--max-steps", &max_steps, "--model", &model];
    let (ok, _, err) = colony(&compare_args(
        "wildfire",
        &["--set", "level=1"],
        policy,
        &rest,
        &out,
    ));
    assert!(ok, "{err}");
    let row = jsonl(&out.join("episodes.jsonl")).remove(0);
    assert!(row["error"].is_null(), "{row}");
    let episode = out.join(format!("episodes/{policy}/0"));
    let calls = jsonl(&episode.join("calls.jsonl"));
    let steps = jsonl(&episode.join("steps.jsonl"));
    (row, calls, steps)
}

/// `(agent, purpose)` of every call logged at `step`, in log order.
pub fn call_pattern(calls: &[Value], step: u64) -> Vec<(String, String)> {
    calls
        .iter()
        .filter(|c| c["step"] == step)
        .map(|c| {
            (
                c["agent"].as_str().unwrap().to_string(),
                c["purpose"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Owned `(agent, purpose)` pairs, to compare with [`call_pattern`].
pub fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, p)| (a.to_string(), p.to_string()))
        .collect()
}

/// The `nth` call logged by `agent` at `step` for `purpose`.
pub fn nth_call<'a>(
    calls: &'a [Value],
    step: u64,
    agent: &str,
    purpose: &str,
    nth: usize,
) -> &'a Value {
    calls
        .iter()
        .filter(|c| c["step"] == step && c["agent"] == agent && c["purpose"] == purpose)
        .nth(nth)
        .unwrap()
}

/// The first call logged by `agent` at `step` for `purpose`.
pub fn find_call<'a>(calls: &'a [Value], step: u64, agent: &str, purpose: &str) -> &'a Value {
    nth_call(calls, step, agent, purpose, 0)
}
