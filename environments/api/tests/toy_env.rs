//! A toy environment (walkers on a ring collecting a coin) that exercises the trait and the
//! conformance test, so the shared API is checked before any real environment exists.

use std::collections::BTreeMap;

use colony_env_api::conformance::{check, Options};
use colony_env_api::{boxed, AgentId, EnvError, Environment, Event, StepResult};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct State {
    size: i64,
    t: u32,
    max_t: u32,
    positions: Vec<i64>,
    coin: i64,
    collected: u32,
    rng: u64,
}

#[derive(Clone)]
struct Ring {
    s: State,
    /// Bug switch: ignores the RNG state on restore, which the conformance test must catch.
    forget_rng_on_restore: bool,
}

fn next(rng: &mut u64) -> u64 {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    *rng
}

impl Ring {
    fn new() -> Self {
        let s = State {
            size: 9,
            t: 0,
            max_t: 30,
            positions: vec![0, 3],
            coin: 5,
            collected: 0,
            rng: 1,
        };
        Self {
            s,
            forget_rng_on_restore: false,
        }
    }
}

impl Environment for Ring {
    type Action = i64;
    type Observation = i64;
    type State = State;

    fn id(&self) -> &'static str {
        "ring-v0"
    }
    fn agents(&self) -> Vec<AgentId> {
        (0..self.s.positions.len()).map(|i| i.to_string()).collect()
    }
    fn reset(&mut self, seed: u64) -> BTreeMap<AgentId, i64> {
        self.s.rng = seed | 1;
        self.s.t = 0;
        self.s.collected = 0;
        self.s.coin = (next(&mut self.s.rng) % 9) as i64;
        self.agents()
            .into_iter()
            .zip(self.s.positions.clone())
            .collect()
    }
    fn step(&mut self, actions: &BTreeMap<AgentId, i64>) -> StepResult<i64> {
        let mut events = Vec::new();
        let mut rewards = BTreeMap::new();
        for (i, agent) in self.agents().iter().enumerate() {
            let d = actions.get(agent).copied().unwrap_or(0);
            self.s.positions[i] = (self.s.positions[i] + d).rem_euclid(self.s.size);
            let hit = self.s.positions[i] == self.s.coin;
            if hit {
                self.s.collected += 1;
                self.s.coin = (next(&mut self.s.rng) % self.s.size as u64) as i64;
                events.push(Event {
                    agent: Some(agent.clone()),
                    kind: "coin".into(),
                    detail: serde_json::Value::Null,
                });
            }
            rewards.insert(agent.clone(), if hit { 1.0 } else { 0.0 });
        }
        self.s.t += 1;
        let terminated = self.s.collected >= 5;
        StepResult {
            observations: self
                .agents()
                .into_iter()
                .zip(self.s.positions.clone())
                .collect(),
            rewards,
            terminated,
            truncated: !terminated && self.s.t >= self.s.max_t,
            events,
        }
    }
    fn noop(&self, _: &str) -> i64 {
        0
    }
    fn random_action(&self, _: &str, draw: u64) -> i64 {
        (draw % 3) as i64 - 1
    }
    fn parse_action(&self, agent: &str, text: &str) -> Result<i64, EnvError> {
        match text.trim() {
            "left" => Ok(-1),
            "stay" => Ok(0),
            "right" => Ok(1),
            other => Err(EnvError::Action {
                agent: agent.into(),
                message: format!("unknown action {other:?}"),
            }),
        }
    }
    fn format_action(&self, _: &str, a: &i64) -> String {
        ["left", "stay", "right"][(*a + 1) as usize].to_string()
    }
    fn observe_text(&self, agent: &str) -> Result<String, EnvError> {
        let i: usize = agent
            .parse()
            .map_err(|_| EnvError::UnknownAgent(agent.into()))?;
        let p = self
            .s
            .positions
            .get(i)
            .ok_or_else(|| EnvError::UnknownAgent(agent.into()))?;
        Ok(format!("You are at {p}; the coin is at {}.", self.s.coin))
    }
    fn score(&self) -> f64 {
        f64::from(self.s.collected)
    }
    fn state(&self) -> State {
        self.s.clone()
    }
    fn restore(&mut self, state: State) -> Result<(), EnvError> {
        if state.positions.iter().any(|p| *p < 0 || *p >= state.size) {
            return Err(EnvError::State {
                field: "positions".into(),
                message: "outside the ring".into(),
            });
        }
        let rng = self.s.rng;
        self.s = state;
        if self.forget_rng_on_restore {
            self.s.rng = rng;
        }
        Ok(())
    }
    fn render(&self) -> String {
        (0..self.s.size)
            .map(|c| {
                if self.s.positions.contains(&c) {
                    'A'
                } else if c == self.s.coin {
                    '$'
                } else {
                    '.'
                }
            })
            .collect()
    }
}

#[test]
fn toy_environment_conforms() {
    check(Ring::new, Options::default()).unwrap();
}

#[test]
fn conformance_catches_a_restore_bug() {
    let buggy = || Ring {
        forget_rng_on_restore: true,
        ..Ring::new()
    };
    let err = check(
        buggy,
        Options {
            steps: 30,
            restore_at: 5,
            seed: 3,
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("restored state diverged"), "{err}");
}

#[test]
fn dyn_view_steps_text_actions_and_reports_bad_input() {
    let mut env = boxed(Ring::new());
    env.reset(11);
    let out = env
        .step_text(&BTreeMap::from([("0".to_string(), "right".to_string())]))
        .unwrap();
    assert_eq!(out.state["t"], 1);
    assert_eq!(out.rewards.len(), 2);
    let err = env
        .step_text(&BTreeMap::from([("0".to_string(), "jump".to_string())]))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "action of agent 0: unknown action \"jump\""
    );
    let err = env
        .step_text(&BTreeMap::from([("7".to_string(), "stay".to_string())]))
        .unwrap_err();
    assert_eq!(err, EnvError::UnknownAgent("7".into()));
    let mut bad = env.state_json();
    bad["positions"] = serde_json::json!([0, 99]);
    assert_eq!(
        env.load_state_json(bad).unwrap_err().to_string(),
        "state field positions: outside the ring"
    );
    let err = env
        .load_state_json(serde_json::json!({"size": 1}))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("state field <root>:"), "{err}");
}

#[test]
fn default_llm_play_is_lenient_counts_fallbacks_and_snapshots_are_independent() {
    let mut env = boxed(Ring::new());
    env.reset(11);
    // Defaults: everyone decides, the no-op's text is named in the instructions.
    assert_eq!(env.deciding_agents(), env.agents());
    assert!(env.instructions("0").contains("stay"));
    // No capability was opted into, so none is offered.
    assert!(env.calls().is_none() && env.messaging().is_none() && env.briefing().is_none());
    assert!(env.goals().is_none() && env.paper().is_none() && env.numeric().is_none());
    let took = env.parse_reply_text("0", "I would like to jump").unwrap();
    assert_eq!(took.action, "stay");
    assert!(took.fallback.as_deref().unwrap().contains("jump"));
    assert_eq!(took.feedback, took.fallback);
    assert!(env.parse_reply_text("9", "stay").is_err());
    let snapshot = env.snapshot();
    let (step, taken) = env
        .step_replies(&BTreeMap::from([
            ("0".to_string(), "right".to_string()),
            ("1".to_string(), "fly".to_string()),
        ]))
        .unwrap();
    assert_eq!(step.rewards.len(), 2);
    assert_eq!(taken["0"].fallback, None);
    assert_eq!(taken["1"].action, "stay");
    assert!(taken["1"].fallback.is_some());
    // The snapshot still shows the state before the step.
    assert_eq!(snapshot.state_json()["t"], 0);
    assert_eq!(env.state_json()["t"], 1);
    assert!(env
        .step_replies(&BTreeMap::from([("5".to_string(), "stay".to_string())]))
        .is_err());
}
