//! The conformance test every environment crate runs (PettingZoo's `parallel_api_test` and
//! `seed_test`, adapted): API shape, same seed ⇒ same trajectory, save/restore mid-episode ⇒
//! same continuation, action text round trip, `terminated` and `truncated` never both set.
//!
//! Call [`check`] from a `#[test]` with a factory for fresh environments.

use crate::rng::splitmix64 as splitmix;
use crate::Environment;

/// Settings of a conformance run.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Seed of the episodes.
    pub seed: u64,
    /// Steps per episode (fewer if it ends).
    pub steps: usize,
    /// Step after which the state is saved and restored.
    pub restore_at: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            seed: 7,
            steps: 40,
            restore_at: 15,
        }
    }
}

/// A conformance failure: which property broke, and where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{env} conformance: {message}")]
pub struct ConformanceError {
    /// Environment id.
    pub env: String,
    /// What broke.
    pub message: String,
}

/// Runs `steps` random steps, returning the state JSON after each step and whether it ended.
fn rollout<E: Environment>(
    env: &mut E,
    rng: &mut u64,
    steps: usize,
) -> Result<Vec<String>, String> {
    let mut states = Vec::new();
    for step in 0..steps {
        let actions = env.random_actions(rng);
        let r = env.step(&actions);
        if r.terminated && r.truncated {
            return Err(format!("step {step}: terminated and truncated both set"));
        }
        let agents = env.agents();
        if let Some(a) = agents.iter().find(|a| !r.rewards.contains_key(*a)) {
            return Err(format!("step {step}: no reward for agent {a}"));
        }
        states.push(serde_json::to_string(&env.state()).map_err(|e| e.to_string())?);
        if r.terminated || r.truncated {
            break;
        }
    }
    Ok(states)
}

/// Checks every conformance property on environments made by `make`.
pub fn check<E: Environment>(make: impl Fn() -> E, opts: Options) -> Result<(), ConformanceError> {
    let probe = make();
    let fail = |message: String| ConformanceError {
        env: probe.id().to_string(),
        message,
    };

    // API shape.
    let mut env = make();
    let obs = env.reset(opts.seed);
    let agents = env.agents();
    if agents.is_empty() {
        return Err(fail("no agents after reset".into()));
    }
    let mut sorted = agents.clone();
    sorted.dedup();
    if sorted.len() != agents.len() {
        return Err(fail(format!("duplicate agent ids: {agents:?}")));
    }
    if let Some(a) = agents.iter().find(|a| !obs.contains_key(*a)) {
        return Err(fail(format!("reset returned no observation for agent {a}")));
    }
    for a in &agents {
        env.observe_text(a)
            .map_err(|e| fail(format!("observe_text({a}): {e}")))?;
        for draw in 0..8u64 {
            let action = env.random_action(a, splitmix(&mut draw.clone()));
            let text = env.format_action(a, &action);
            let back = env.parse_action(a, &text).map_err(|e| {
                fail(format!(
                    "parse_action({a}, {text:?}) of a formatted action: {e}"
                ))
            })?;
            if env.format_action(a, &back) != text {
                return Err(fail(format!("action text {text:?} does not round-trip")));
            }
        }
        let noop = env.noop(a);
        env.parse_action(a, &env.format_action(a, &noop))
            .map_err(|e| fail(format!("no-op of {a} does not parse back: {e}")))?;
    }

    check_numeric(&make, opts).map_err(fail)?;

    // Same seed ⇒ same trajectory.
    let (mut e1, mut e2) = (make(), make());
    e1.reset(opts.seed);
    e2.reset(opts.seed);
    let s0 = serde_json::to_string(&e1.state()).map_err(|e| fail(e.to_string()))?;
    if s0 != serde_json::to_string(&e2.state()).map_err(|e| fail(e.to_string()))? {
        return Err(fail("same seed gave different initial states".into()));
    }
    let (mut r1, mut r2) = (opts.seed, opts.seed);
    let t1 = rollout(&mut e1, &mut r1, opts.steps).map_err(fail)?;
    let t2 = rollout(&mut e2, &mut r2, opts.steps).map_err(fail)?;
    if let Some(i) = t1.iter().zip(&t2).position(|(a, b)| a != b) {
        return Err(fail(format!("same seed and actions diverged at step {i}")));
    }

    // Save/restore mid-episode ⇒ same continuation.
    let mut a = make();
    a.reset(opts.seed);
    let mut rng = opts.seed ^ 0x5eed;
    let before = rollout(&mut a, &mut rng, opts.restore_at).map_err(fail)?;
    if before.len() == opts.restore_at {
        let saved = serde_json::to_value(a.state()).map_err(|e| fail(e.to_string()))?;
        let mut rng_b = rng;
        let cont_a = rollout(&mut a, &mut rng, opts.steps - opts.restore_at).map_err(fail)?;
        let mut b = make();
        b.reset(opts.seed.wrapping_add(1));
        let state = serde_json::from_value(saved).map_err(|e| fail(format!("state JSON: {e}")))?;
        b.restore(state)
            .map_err(|e| fail(format!("restore: {e}")))?;
        let cont_b = rollout(&mut b, &mut rng_b, opts.steps - opts.restore_at).map_err(fail)?;
        if let Some(i) = cont_a.iter().zip(&cont_b).position(|(x, y)| x != y) {
            return Err(fail(format!(
                "restored state diverged {i} step(s) after restoring at step {}",
                opts.restore_at
            )));
        }
    }
    Ok(())
}

/// The numeric spaces, when the environment has them: every agent has them or none
/// does, observations fill their shape within the bounds, and the corner codes and random
/// codes of every space decode and step.
fn check_numeric<E: Environment>(make: &impl Fn() -> E, opts: Options) -> Result<(), String> {
    let mut env = make();
    env.reset(opts.seed);
    let agents = env.agents();
    let Some(numeric) = env.numeric() else {
        return Ok(());
    };
    let spaces: Vec<_> = agents.iter().map(|a| numeric.numeric_spaces(a)).collect();
    let mut rng = opts.seed;
    for step in 0..opts.steps {
        let numeric = env
            .numeric()
            .ok_or_else(|| format!("step {step}: the numeric interface went away"))?;
        let mut actions = std::collections::BTreeMap::new();
        for (a, space) in agents.iter().zip(&spaces) {
            let space = space
                .as_ref()
                .ok_or_else(|| format!("agent {a} has no numeric spaces but others do"))?;
            let mut obs = vec![0.0f32; space.observation_len()];
            numeric
                .observe_numeric(a, &mut obs)
                .map_err(|e| format!("step {step}: observe_numeric({a}): {e}"))?;
            if let Some(v) = obs.iter().find(|v| !(space.low..=space.high).contains(*v)) {
                return Err(format!(
                    "step {step}: agent {a}'s observation value {v} is outside [{}, {}]",
                    space.low, space.high
                ));
            }
            let low: Vec<i64> = vec![0; space.actions.len()];
            let high: Vec<i64> = space.actions.iter().map(|&n| i64::from(n) - 1).collect();
            let random: Vec<i64> = space
                .actions
                .iter()
                .map(|&n| (splitmix(&mut rng) % u64::from(n.max(1))) as i64)
                .collect();
            for code in [&low, &high] {
                numeric
                    .action_from_code(a, code)
                    .map_err(|e| format!("code {code:?} of agent {a} inside its space: {e}"))?;
            }
            let action = numeric
                .action_from_code(a, &random)
                .map_err(|e| format!("code {random:?} of agent {a} inside its space: {e}"))?;
            actions.insert(a.clone(), action);
        }
        let r = env.step(&actions);
        if r.terminated || r.truncated {
            break;
        }
    }
    Ok(())
}
