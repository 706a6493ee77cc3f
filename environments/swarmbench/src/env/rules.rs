//! The task rules that run after physics each round (docs/design/swarmbench.md §9): prey update and
//! capture, light switching and scoring, food pickup and delivery, the Flocking distance, escapes.

use colony_env_api::Event;

use super::{SwarmEnv, TaskState};
use crate::pursuit::{self, PreyOutcome};

impl SwarmEnv {
    /// Applies the task rules for round `r` (`switches`: agents that chose SWITCH).
    pub(crate) fn task_update(&mut self, r: u32, switches: &[usize], events: &mut Vec<Event>) {
        let ev = |agent: Option<&String>, kind: &str, detail: serde_json::Value| Event {
            agent: agent.cloned(),
            kind: kind.into(),
            detail,
        };
        match &mut self.task {
            TaskState::Pursuit { prey } => {
                match pursuit::update(&mut self.world, &mut self.rng, *prey) {
                    PreyOutcome::Caught(spot) => {
                        self.score += 1.0;
                        events.push(ev(None, "capture", serde_json::json!({ "respawn": spot })));
                    }
                    PreyOutcome::Moved(from, to) => events.push(ev(
                        None,
                        "prey_moved",
                        serde_json::json!({ "from": from, "to": to }),
                    )),
                    PreyOutcome::Stayed => {}
                }
            }
            TaskState::Synchronization { lights, prev } => {
                for &i in switches {
                    lights[i] = !lights[i];
                }
                for (i, &k) in self.agents.iter().enumerate() {
                    self.world.set_symbol(k, if lights[i] { 'A' } else { 'a' });
                }
                let on = lights.iter().filter(|&&l| l).count() as i64;
                if (on == lights.len() as i64 || on == 0) && on != *prev {
                    *prev = on;
                    self.score += 1.0;
                    events.push(ev(
                        None,
                        "synchronized",
                        serde_json::json!({ "lights_on": on }),
                    ));
                }
            }
            TaskState::Foraging { carrying } => {
                let (h, w) = (self.world.height, self.world.width);
                for (i, &k) in self.agents.iter().enumerate() {
                    let (pi, pj) = self.world.meshes[k].pos;
                    // Swapped bounds test of the reference (Q8).
                    let near = |sym: char| {
                        [(pi - 1, pj), (pi + 1, pj), (pi, pj - 1), (pi, pj + 1)]
                            .into_iter()
                            .any(|(a, b)| {
                                a >= 0
                                    && a < w
                                    && b >= 0
                                    && b < h
                                    && self.world.symbol((a, b)) == sym
                            })
                    };
                    let (food, nest) = (near('F'), near('N'));
                    if food {
                        if !carrying[i] {
                            events.push(ev(
                                Some(&self.names[i]),
                                "pickup",
                                serde_json::Value::Null,
                            ));
                        }
                        carrying[i] = true;
                        self.world.set_symbol(k, 'A');
                    }
                    if nest {
                        if carrying[i] {
                            self.score += 1.0;
                            events.push(ev(
                                Some(&self.names[i]),
                                "delivery",
                                serde_json::Value::Null,
                            ));
                        }
                        carrying[i] = false;
                        self.world.set_symbol(k, 'a');
                    }
                }
            }
            TaskState::Flocking { .. } => {
                let now = self.flock_distance();
                if let TaskState::Flocking { d0, d } = &mut self.task {
                    *d = now;
                    self.score = self.score.max((*d0 - now) as f64);
                }
            }
            TaskState::Transport { counted } => {
                let max = f64::from(self.cfg.max_round);
                for (i, &k) in self.agents.iter().enumerate() {
                    if !counted[i] && !self.world.meshes[k].present {
                        counted[i] = true;
                        self.score += (max - f64::from(r)) / max;
                        events.push(ev(
                            Some(&self.names[i]),
                            "escape",
                            serde_json::json!({ "round": r }),
                        ));
                    }
                }
            }
        }
    }
}
