//! `demo_nearest[:k=5]`: each agent heads for the nearest uncovered landmark of `spread-v0`,
//! and every k-th step (0, k, 2k, …) asks its model instead. Written against colony's public
//! API only; it reads the state of this crate's own environment type.

use std::collections::BTreeMap;

use async_trait::async_trait;
use colony::policy::embodied::{
    CallerSlot, Decision, EmbodiedError, EmbodiedPolicy, PolicyContext, StepView,
};
use colony::policy::PolicyOptions;
use colony_env_api::Environment;

use crate::spread::{manhattan, towards, Spread, MOVES};

/// The policy.
pub struct DemoNearest {
    k: u64,
    slot: CallerSlot,
}

/// The registry constructor: reads `k` (default 5, at least 1).
pub fn build(
    options: &mut PolicyOptions,
    ctx: &PolicyContext,
) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError> {
    // colony refuses any option this leaves unread, naming `k`.
    let k = options.whole("k", 5, 1..=1000)?;
    Ok(Box::new(DemoNearest {
        k,
        slot: CallerSlot::new(ctx.caller.clone()),
    }))
}

#[async_trait]
impl EmbodiedPolicy for DemoNearest {
    fn name(&self) -> &str {
        "demo_nearest"
    }

    fn wants_snapshot(&self) -> bool {
        true
    }

    async fn decide(&mut self, view: StepView) -> Result<Decision, EmbodiedError> {
        if view.step.is_multiple_of(self.k) {
            let caller = self.slot.caller(view.seed, &view.agents, &view.deciding)?;
            let mut decision = Decision::default();
            for agent in &view.deciding {
                let mut log = caller
                    .ask(view.step, agent, "act", agent.observation.clone())
                    .await?;
                log.decides = true;
                decision
                    .replies
                    .insert(agent.id.clone(), log.reply.clone().unwrap_or_default());
                decision.calls.push(log);
            }
            caller.forget_transcript();
            return Ok(decision);
        }
        let env = view.snapshot(self.name())?;
        let spread =
            env.as_any()
                .downcast_ref::<Spread>()
                .ok_or_else(|| EmbodiedError::Unsupported {
                    policy: self.name().into(),
                    env: view.env_id.clone(),
                    reason: "demo_nearest plays spread-v0 only".into(),
                })?;
        let s = spread.view();
        let uncovered: Vec<[i64; 2]> = s
            .landmarks
            .iter()
            .filter(|l| !s.agents.values().any(|a| a == *l))
            .copied()
            .collect();
        let replies: BTreeMap<String, String> = view
            .deciding
            .iter()
            .map(|a| {
                let pos = s.agents[&a.id];
                let on_landmark = s.landmarks.contains(&pos);
                let target = uncovered.iter().min_by_key(|l| manhattan(pos, **l));
                let m = match target {
                    Some(t) if !on_landmark => towards(pos, *t),
                    _ => MOVES[4].0,
                };
                (a.id.clone(), spread.format_action(&a.id, &m))
            })
            .collect();
        Ok(Decision {
            replies,
            calls: Vec::new(),
        })
    }

    fn slot(&mut self) -> Option<&mut CallerSlot> {
        Some(&mut self.slot)
    }
}
