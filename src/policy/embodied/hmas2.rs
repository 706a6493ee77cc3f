//! `hmas2`: HMAS-2, a central planner with agent feedback (docs/design/frameworks.md §14.5, paper
//! Algorithm 4, prompts A.12–A.13).
//!
//! State: the [`StepHistory`] of `(global state summary, actions)` per planned step, keeping
//! the last [`HISTORY_CAP`] steps (spec decision, as in the original code).
//!
//! Each step the policy is asked to decide (on Wildfire: when at least one agent is idle; the
//! episode loop does not call a policy when nobody must decide):
//! 1. perceptions of every live agent ([`framework::perceive`]: the PERCEPTION call on
//!    Wildfire, purpose `perception`; the observation text elsewhere); `GlobalState` = one
//!    [`framework::agent_block`] per live agent (its rules carry its available actions; its
//!    observation is the perception; on Wildfire a `Type:` status line), none marked self;
//! 2. **CentralPlan** (purpose `hmas2.plan`, `prompts/hmas2/plan.jinja`: task, step history,
//!    global state, and on a re-plan every earlier version of this step's plan with the
//!    feedback it received, since calls are stateless) → one `<AGENT_k>action</AGENT_k>` per
//!    live agent;
//! 3. **Feedback** (purpose `hmas2.feedback`, `prompts/hmas2/feedback.jinja`) from every live
//!    agent, concurrently (results in agent order): task, step history, global state with its
//!    own block marked self, the plan, its name/type/position → `<feedback>`; only `ACCEPT`
//!    ([`is_accept`]) accepts. While someone does not accept, re-plan with the non-accepting
//!    feedback, at most [`MAX_REPLANS`] times; then the latest plan is used;
//! 4. every live agent's planned action goes through [`framework::execute_all`] (purpose
//!    `execution` on Wildfire) and **replaces its current action** (the planner decides for
//!    everybody: replies for agents that are not deciding are interrupts);
//! 5. `(state summary, actions)` is appended to the step history.
//!
//! Calls are logged in this order: perceptions (agent order), then per round the plan and the
//! feedback of every live agent in agent order, then the executions in agent order.
//!
//! Decision: the planner has no agent of its own; its calls are made as the **first live
//! agent** (that agent's model, actor and system prompt — the environment's instructions),
//! which is the paper's `Leader ← A[0]`.
//!
//! Fallbacks (§14.1), counted in [`Hmas2Counts`] (see [`Hmas2::counts`]), logged with
//! `tracing::debug!` and written into the step's trace: a planned action that is missing or
//! empty means "do nothing" (sent through EXECUTION on Wildfire; elsewhere the agent is left
//! out of the replies and takes the environment's no-op); a missing or empty `<feedback>` is
//! not an acceptance.

use std::collections::{BTreeMap, VecDeque};

use async_trait::async_trait;
use colony_env_api::{AgentId, DynEnvironment};
use minijinja::context;
use serde_json::json;

use super::framework::{self, Names, Opening};
use super::framework_step::{FrameworkSteps, Stepped};
use super::tags::tag_content;
use super::{AgentView, CallLog, EmbodiedError, StepView};
use crate::policy::reasoning::prompts::render;

/// `prompts/hmas2/plan.jinja`: CentralPlan (A.12).
pub const PLAN_PROMPT: &str = include_str!("../../../prompts/hmas2/plan.jinja");
/// `prompts/hmas2/feedback.jinja`: Feedback (A.13).
pub const FEEDBACK_PROMPT: &str = include_str!("../../../prompts/hmas2/feedback.jinja");

/// Steps the step history keeps (design §14.5 decision).
pub const HISTORY_CAP: usize = 5;
/// Re-plans per step at most (design §14.5 decision).
pub const MAX_REPLANS: usize = 3;
/// Characters of an agent's perception kept in a step's state summary.
pub const SUMMARY_CHARS: usize = 200;

/// The action of an agent the plan gave none, on Wildfire.
const DO_NOTHING: &str = "do nothing";

/// One planned step of the history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedStep {
    /// The environment step.
    pub step: u64,
    /// The global state summary (one line per live agent).
    pub state: String,
    /// `(AGENT_k, action)` per live agent, in agent order.
    pub actions: Vec<(String, String)>,
}

/// `StepHistory`: the most recent planned steps, oldest first, at most `cap`.
#[derive(Debug, Clone)]
pub struct StepHistory {
    cap: usize,
    steps: VecDeque<PlannedStep>,
}

impl StepHistory {
    /// An empty history keeping the `cap` most recent steps.
    pub fn new(cap: usize) -> Self {
        Self {
            cap,
            steps: VecDeque::new(),
        }
    }

    /// Appends a step, dropping the oldest ones beyond the cap.
    pub fn push(&mut self, step: PlannedStep) {
        self.steps.push_back(step);
        while self.steps.len() > self.cap {
            self.steps.pop_front();
        }
    }

    /// The steps kept, oldest first.
    pub fn steps(&self) -> impl Iterator<Item = &PlannedStep> {
        self.steps.iter()
    }

    /// Number of steps kept.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// True before the first planned step.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// `STEP HISTORY` for prompts: per step `STEP t:`, its state summary and its actions;
    /// "None" when empty.
    pub fn render(&self) -> String {
        if self.steps.is_empty() {
            return "None".into();
        }
        self.steps
            .iter()
            .map(|s| {
                let actions: Vec<String> = s
                    .actions
                    .iter()
                    .map(|(n, a)| format!("{n}: {}", framework::one_line(a)))
                    .collect();
                format!(
                    "STEP {}:\nState:\n{}\nActions:\n{}",
                    s.step,
                    s.state,
                    actions.join("\n")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The fallbacks and feedback loops of an episode so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hmas2Counts {
    /// CentralPlan calls.
    pub plans: u64,
    /// Re-plans (plans after the first of a step).
    pub replans: u64,
    /// Steps whose last plan was still not accepted by everybody (the cap was reached).
    pub capped_steps: u64,
    /// Feedback replies that did not accept (missing ones included).
    pub rejections: u64,
    /// Feedback replies without a `<feedback>` (not an acceptance).
    pub missing_feedback: u64,
    /// Live agents the used plan gave no action ("do nothing").
    pub missing_action: u64,
}

/// The `hmas2` framework (see the module docs).
#[derive(Debug)]
pub struct Hmas2 {
    history: StepHistory,
    counts: Hmas2Counts,
}

impl Hmas2 {
    /// The fallbacks and feedback loops counted so far in this episode.
    pub fn counts(&self) -> Hmas2Counts {
        self.counts
    }

    /// The step history as it is now.
    pub fn history(&self) -> &StepHistory {
        &self.history
    }
}

/// True when a feedback text accepts the plan: exactly `ACCEPT` once quotes are removed and
/// whitespace trimmed, in any case.
pub fn is_accept(feedback: &str) -> bool {
    let unquoted: String = feedback
        .chars()
        .filter(|c| !matches!(c, '\'' | '"' | '`' | '‘' | '’' | '“' | '”'))
        .collect();
    unquoted.trim().eq_ignore_ascii_case("ACCEPT")
}

/// `AGENT-TYPE` and `POSITION` of `agent`, when the environment profiles its agents
/// ([`colony_env_api::Environment::agent_profile`]; Wildfire does).
fn identity(env: &dyn DynEnvironment, agent: &str) -> (Option<String>, Option<String>) {
    env.agent_profile(agent)
        .map_or((None, None), |p| (Some(p.kind), Some(p.position)))
}

/// `GLOBAL STATE`'s blocks: one per live agent with its type (Wildfire) as status.
fn global_state(
    env: &dyn DynEnvironment,
    names: &Names,
    live: &[AgentView],
    perceptions: &BTreeMap<AgentId, String>,
) -> framework::AgentBlocks {
    let status: Vec<Vec<(&str, String)>> = live
        .iter()
        .map(|v| {
            identity(env, &v.id)
                .0
                .map(|k| ("Type", k))
                .into_iter()
                .collect()
        })
        .collect();
    framework::AgentBlocks::new(
        names,
        live.iter().zip(&status).map(|(v, s)| {
            (
                v,
                perceptions.get(&v.id).map_or("", String::as_str),
                s.as_slice(),
            )
        }),
    )
}

/// The state summary of a step: per live agent its name, type and position (Wildfire) and the
/// start of its perception on one line.
fn summary(
    env: &dyn DynEnvironment,
    names: &Names,
    live: &[AgentView],
    perceptions: &BTreeMap<AgentId, String>,
) -> String {
    live.iter()
        .map(|v| {
            let excerpt = framework::one_line_prefix(
                perceptions.get(&v.id).map_or("", String::as_str),
                SUMMARY_CHARS,
            );
            let head = match identity(env, &v.id) {
                (Some(k), Some(p)) => format!("{} ({k}) at {p}", names.name(&v.id)),
                _ => names.name(&v.id),
            };
            format!("{head}: {excerpt}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A parsed plan as prompts show it: `AGENT_k: action` per live agent.
fn plan_text(names: &Names, live: &[AgentView], plan: &BTreeMap<AgentId, String>) -> String {
    live.iter()
        .map(|v| match plan.get(&v.id) {
            Some(a) => format!("{}: {}", names.name(&v.id), framework::one_line(a)),
            None => format!("{}: (no action given: do nothing)", names.name(&v.id)),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn config_error(e: impl std::fmt::Display) -> EmbodiedError {
    EmbodiedError::Config {
        policy: "hmas2".into(),
        message: e.to_string(),
    }
}

#[async_trait]
impl FrameworkSteps for Hmas2 {
    const NAME: &'static str = "hmas2";
    const EVERY_STEP: bool = true;

    fn fresh() -> Self {
        Self {
            history: StepHistory::new(HISTORY_CAP),
            counts: Hmas2Counts::default(),
        }
    }

    async fn step(
        &mut self,
        _view: &StepView,
        o: &Opening<'_>,
        calls: &mut Vec<CallLog>,
    ) -> Result<Option<Stepped>, EmbodiedError> {
        let Some(planner) = o.live.first().cloned() else {
            return Ok(None);
        };
        let task = o.briefing.task.trim_end();
        let history = self.history.render();
        let blocks = global_state(&*o.env, &o.names, &o.live, &o.perceptions);
        let state = blocks.for_agent(None);
        let example: String = o
            .live
            .iter()
            .take(2)
            .map(|v| format!("<{0}>action</{0}>", o.names.name(&v.id)))
            .collect::<Vec<_>>()
            .join(" ");

        let mut counts = self.counts;
        let mut rounds: Vec<serde_json::Value> = Vec::new();
        let mut rejected_by: Vec<Vec<AgentId>> = Vec::new();
        let (plan, plan_at) = loop {
            let prompt = render(
                PLAN_PROMPT,
                context! { task, history, global_state => state, rounds, example },
            )
            .map_err(config_error)?;
            let log = o.ask(calls, &planner, "hmas2.plan", prompt).await?;
            counts.plans += 1;
            let plan = o.names.per_agent(log.reply.as_deref().unwrap_or(""), "");
            let plan_at = calls.len();
            calls.push(log);
            let shown = plan_text(&o.names, &o.live, &plan);
            let mut prompts = Vec::with_capacity(o.live.len());
            for v in &o.live {
                let (kind, position) = identity(&*o.env, &v.id);
                let prompt = render(
                    FEEDBACK_PROMPT,
                    context! {
                        name => o.names.name(&v.id), kind, position, task, history,
                        global_state => blocks.for_agent(Some(&v.id)),
                        plan => shown,
                    },
                )
                .map_err(config_error)?;
                prompts.push((v, prompt));
            }
            let mut feedback = o.ask_all(calls, "hmas2.feedback", prompts).await?;
            let mut objections = Vec::new();
            let mut who = Vec::new();
            for log in &feedback {
                let text = log
                    .reply
                    .as_deref()
                    .and_then(|r| tag_content(r, "feedback"));
                if text.as_deref().is_some_and(is_accept) {
                    continue;
                }
                counts.rejections += 1;
                if text.is_none() {
                    counts.missing_feedback += 1;
                    tracing::debug!(step = o.step, agent = %log.agent, "hmas2: no <feedback>, not accepted");
                }
                let said = text.map_or("(no feedback given)".to_string(), |t| {
                    framework::one_line(&t)
                });
                objections.push(format!("{}: {said}", o.names.name(&log.agent)));
                who.push(log.agent.clone());
            }
            calls.append(&mut feedback);
            let accepted = who.is_empty();
            rejected_by.push(who);
            if accepted || rounds.len() == MAX_REPLANS {
                if !accepted {
                    counts.capped_steps += 1;
                    tracing::debug!(
                        step = o.step,
                        "hmas2: re-plan cap reached, using the latest plan"
                    );
                }
                break (plan, plan_at);
            }
            counts.replans += 1;
            rounds.push(json!({"plan": shown, "feedback": objections.join("\n")}));
        };

        let mut to_execute = Vec::new();
        let mut taken = Vec::new();
        for v in &o.live {
            let name = o.names.name(&v.id);
            match plan.get(&v.id) {
                Some(a) => {
                    taken.push((name, a.clone()));
                    to_execute.push((v.clone(), a.clone()));
                }
                None => {
                    counts.missing_action += 1;
                    tracing::debug!(step = o.step, agent = %v.id, "hmas2: no planned action, doing nothing");
                    taken.push((name, DO_NOTHING.to_string()));
                    if v.execution.is_some() {
                        to_execute.push((v.clone(), DO_NOTHING.to_string()));
                    }
                }
            }
        }
        if planner.execution.is_none() {
            // No EXECUTION call: the plan's reply is the planner agent's action.
            if let Some(c) = calls.get_mut(plan_at) {
                c.decides = true;
            }
        }
        let replies = o.execute_all(calls, to_execute).await?;

        self.history.push(PlannedStep {
            step: o.step,
            state: summary(&*o.env, &o.names, &o.live, &o.perceptions),
            actions: taken,
        });
        let trace = Some(json!({
            "plans": rejected_by.len(),
            "rejected_by": rejected_by,
            "accepted": rejected_by.last().is_some_and(Vec::is_empty),
            "planned": plan.keys().collect::<Vec<_>>(),
            "history_len": self.history.len(),
            "counts": {
                "plans": counts.plans,
                "replans": counts.replans,
                "capped_steps": counts.capped_steps,
                "rejections": counts.rejections,
                "missing_feedback": counts.missing_feedback,
                "missing_action": counts.missing_action,
            },
        }));
        self.counts = counts;
        Ok(Some(Stepped { replies, trace }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::embodied::framework_step::Framework;
    use crate::policy::embodied::test_support::{first_view, script};
    use crate::policy::embodied::CallLog;
    use crate::policy::embodied::{CallerConfig, EmbodiedPolicy};

    #[test]
    fn the_step_history_keeps_the_last_5_steps() {
        let mut h = StepHistory::new(HISTORY_CAP);
        assert_eq!(h.render(), "None");
        for t in 0..8u64 {
            h.push(PlannedStep {
                step: t,
                state: format!("AGENT_1: state {t}"),
                actions: vec![("AGENT_1".into(), format!("move\nto {t}"))],
            });
        }
        assert_eq!(h.len(), 5);
        let kept: Vec<u64> = h.steps().map(|s| s.step).collect();
        assert_eq!(kept, vec![3, 4, 5, 6, 7]);
        let text = h.render();
        assert!(text.starts_with("STEP 3:\nState:\nAGENT_1: state 3\nActions:\nAGENT_1: move to 3"));
        assert!(!text.contains("STEP 2:") && text.contains("STEP 7:"));
    }

    #[test]
    fn accept_ignores_quotes_space_and_case() {
        for yes in [
            "ACCEPT",
            "accept",
            " 'ACCEPT' ",
            "\"accept\"",
            "`Accept`\n",
            "\u{2018}ACCEPT\u{2019}",
        ] {
            assert!(is_accept(yes), "{yes:?}");
        }
        for no in [
            "ACCEPT, but move north",
            "REJECT",
            "accepted",
            "",
            "I accept",
        ] {
            assert!(!is_accept(no), "{no:?}");
        }
    }

    fn prompt_of(c: &CallLog) -> &str {
        &c.messages.last().unwrap().content
    }

    #[tokio::test]
    async fn wildfire_rejections_replan_at_most_3_times() {
        let exec = "[0, 0, 0, \"do nothing\"]";
        let mut lines = vec![
            (
                "1",
                0,
                "hmas2.plan",
                "<reasoning>r</reasoning><AGENT_1>move to (3, 4)</AGENT_1><AGENT 2>cut all trees<AGENT 2><AGENT_9>x</AGENT_9>",
            ),
            ("1", 0, "hmas2.feedback", "<feedback>'Accept'</feedback>"),
            ("2", 0, "hmas2.feedback", "<feedback>I should refill water first</feedback>"),
            ("3", 0, "hmas2.feedback", "<reasoning>no tag</reasoning>"),
        ];
        for a in ["1", "2", "3"] {
            lines.push((a, 0, "perception", "I see trees."));
            lines.push((a, 0, "execution", exec));
        }
        let mut p = Framework::<Hmas2>::new(script(&lines), "").unwrap();
        let d = p
            .decide(first_view("wildfire", &["level=1"]))
            .await
            .unwrap();
        let plans: Vec<&CallLog> = d
            .calls
            .iter()
            .filter(|c| c.purpose == "hmas2.plan")
            .collect();
        assert_eq!(
            (plans.len(), d.calls.len()),
            (1 + MAX_REPLANS, 3 + 4 * 4 + 3)
        );
        // The plan prompt: every live agent's block with its type, none marked self.
        let plan0 = prompt_of(plans[0]);
        assert_eq!(plan0.matches("<agent name=").count(), 3);
        assert!(!plan0.contains("self=\"true\"") && plan0.contains("Type: Firefighter"));
        let last = plan0.lines().last().unwrap();
        assert!(last.starts_with("Reply with:") && last.contains("<AGENT_k>action</AGENT_k>"));
        // A re-plan carries the non-accepting feedback only; a missing feedback rejects.
        let plan3 = prompt_of(plans[3]);
        assert!(plan3.contains("version 3") && !plan3.contains("version 4"));
        assert!(plan3.contains("AGENT_2: I should refill water first"));
        assert!(
            plan3.contains("AGENT_3: (no feedback given)") && !plan3.contains("AGENT_1: Accept")
        );
        assert!(plan3.contains("AGENT_3: (no action given: do nothing)"));
        // Feedback prompts mark the speaker's own block and show the parsed plan.
        let fb2 = prompt_of(&d.calls[5]);
        assert!(fb2.contains("<agent name=\"AGENT_2\" self=\"true\">"));
        assert!(fb2.contains("AGENT_1: move to (3, 4)\nAGENT_2: cut all trees"));
        assert!(fb2.contains("you are AGENT_2, a Firefighter agent, located at ("));
        // Agent 3 has no action and does nothing through EXECUTION.
        let n = d.calls.len();
        assert!(prompt_of(&d.calls[n - 1]).contains(DO_NOTHING));
        assert!(d.calls[n - 3..]
            .iter()
            .all(|c| c.decides && c.purpose == "execution"));
        assert_eq!(d.replies.len(), 3);
        let want = Hmas2Counts {
            plans: 4,
            replans: 3,
            capped_steps: 1,
            rejections: 8,
            missing_feedback: 4,
            missing_action: 1,
        };
        assert_eq!(p.counts(), want);
        let h = p.history().render();
        assert!(h.contains("AGENT_1 (Firefighter) at (") && h.contains("AGENT_3: do nothing"));
    }

    #[tokio::test]
    async fn elsewhere_everybody_accepts_and_missing_actions_take_the_no_op() {
        let lines = [
            (
                "Agent_0",
                0,
                "hmas2.plan",
                "<AGENT_0>ACTION: UP</AGENT_0><AGENT_1>ACTION: LEFT</AGENT_1><AGENT_2></AGENT_2>",
            ),
            (
                "Agent_0",
                0,
                "hmas2.feedback",
                "<feedback>ACCEPT</feedback>",
            ),
            (
                "Agent_1",
                0,
                "hmas2.feedback",
                "<feedback> \"accept\" </feedback>",
            ),
            ("Agent_2", 0, "hmas2.feedback", "<feedback>ACCEPT<feedback>"),
        ];
        let mut p = Framework::<Hmas2>::new(script(&lines), "").unwrap();
        let d = p
            .decide(first_view("swarmbench", &["agents=3"]))
            .await
            .unwrap();
        assert_eq!(d.calls.len(), 4, "no perception or execution call");
        assert_eq!(d.calls[0].purpose, "hmas2.plan");
        assert!(d.calls[0].decides);
        assert_eq!(d.replies.len(), 2);
        assert_eq!(d.replies["Agent_0"], "ACTION: UP");
        assert_eq!(d.replies["Agent_1"], "ACTION: LEFT");
        let c = p.counts();
        assert_eq!(
            (c.plans, c.replans, c.rejections, c.missing_action),
            (1, 0, 0, 1)
        );
        assert!(Framework::<Hmas2>::new(CallerConfig::default(), "x=1").is_err());
    }
}
