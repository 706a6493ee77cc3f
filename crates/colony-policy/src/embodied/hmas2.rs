//! `hmas2`: HMAS-2, a central planner with agent feedback (docs/design/frameworks.md §14.5, paper
//! Algorithm 4, prompts A.12–A.13), with WILDFIRE-ORCH's call pattern.
//!
//! State: the [`StepHistory`] of `(positions, actions)` per planned step, keeping the last
//! [`HISTORY_CAP`] steps.
//!
//! Each step (every step: the planner decides for everybody):
//! 1. perceptions of every live agent ([`framework::perceive`]: the PERCEPTION call on
//!    Wildfire, purpose `perception`; the observation text elsewhere); `GlobalState` = one
//!    [`framework::agent_block`] per live agent (its rules carry its available actions; its
//!    observation is the perception; on Wildfire a `Type:` status line), none marked self;
//! 2. **CentralPlan** (purpose `hmas2.plan`, `prompts/hmas2/plan.jinja`: task, step history,
//!    global state, and on a re-plan every earlier version of this step's plan with the
//!    feedback it received, since calls are stateless) → one `<AGENT_k>action</AGENT_k>` per
//!    live agent. A plan that leaves a live agent out is asked again, at most `reasks` times
//!    (default [`REASKS`], as `propose_actions` in the official `HMAS_2/utils.py`); the
//!    re-ask names the agents left out, so it is not the same request twice;
//! 3. **Feedback** (purpose `hmas2.feedback`, `prompts/hmas2/feedback.jinja`) from every live
//!    agent, concurrently (results in agent order): task, step history, global state with its
//!    own block marked self, the plan, its name/type/position → `<feedback>`; only `ACCEPT`
//!    ([`is_accept`]) accepts. While someone does not accept, re-plan with the non-accepting
//!    feedback, at most `replans` times (default [`MAX_REPLANS`] = 0: WILDFIRE-ORCH's
//!    `max_feedback_rounds = 0` collects the feedback and then uses the first plan;
//!    `hmas2:replans=3` is the paper's A.19 setting);
//! 4. every live agent's planned action goes through [`framework::execute_all`] (purpose
//!    `execution` on Wildfire) and **replaces its current action** (the planner decides for
//!    everybody: replies for agents that are not deciding are interrupts);
//! 5. `(positions, actions)` is appended to the step history (the official history holds
//!    each agent's position and translated action; no perception excerpt).
//!
//! Calls are logged in this order: perceptions (agent order), then per round the plan (and
//! its re-asks) and the feedback of every live agent in agent order, then the executions in
//! agent order.
//!
//! Decision: the planner has no agent of its own; its calls are made as the **first live
//! agent** (that agent's model and actor), which is the paper's `Leader ← A[0]`.
//!
//! Fallbacks (§14.1), counted in [`Hmas2Counts`] (see [`Hmas2::counts`]), logged with
//! `tracing::debug!` and written into the step's trace: a planned action that is still missing
//! after the re-asks means the agent is left out of the replies and takes the environment's
//! no-op, with no EXECUTION call (the official code asks its translator to translate "N/A";
//! a call whose answer can only be "idle" is not made); a missing or empty `<feedback>` is
//! not an acceptance.

use crate::PolicyOptions;
use std::collections::{BTreeMap, VecDeque};

use async_trait::async_trait;
use colony_env_api::{AgentId, DynEnvironment};
use minijinja::context;
use serde_json::json;

use super::framework::{self, Names, Opening};
use super::framework_step::{FrameworkSteps, Stepped};
use super::tags::tag_content;
use super::{AgentView, CallLog, EmbodiedError, StepView};
use crate::reasoning::prompts::render;

/// `prompts/hmas2/plan.jinja`: CentralPlan (A.12).
pub const PLAN_PROMPT: &str = include_str!("../../../../prompts/hmas2/plan.jinja");
/// `prompts/hmas2/feedback.jinja`: Feedback (A.13).
pub const FEEDBACK_PROMPT: &str = include_str!("../../../../prompts/hmas2/feedback.jinja");

/// Steps the step history keeps (WILDFIRE-ORCH's intent; its trimming reads the key's last
/// digit, a defect not copied).
pub const HISTORY_CAP: usize = 5;
/// Re-plans per step at most by default (WILDFIRE-ORCH `max_feedback_rounds = 0`; option
/// `replans`, the paper's A.19 says 3).
pub const MAX_REPLANS: usize = 0;
/// Re-asks of a plan that leaves a live agent out, by default (`HMAS_2/utils.py`
/// `propose_actions`; option `reasks`).
pub const REASKS: usize = 2;

/// What the history records for an agent the plan gave no action.
const DO_NOTHING: &str = "do nothing";

/// One planned step of the history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedStep {
    /// The environment step.
    pub step: u64,
    /// The team's state then: one line per live agent (name, type, position).
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
    /// CentralPlan rounds (a plan and its re-asks count once; see `reasks`).
    pub plans: u64,
    /// Re-plans (plans after the first of a step that answer feedback).
    pub replans: u64,
    /// Plans asked again because they left a live agent out.
    pub reasks: u64,
    /// Steps whose last plan was still not accepted by everybody (the cap was reached).
    pub capped_steps: u64,
    /// Feedback replies that did not accept (missing ones included).
    pub rejections: u64,
    /// Feedback replies without a `<feedback>` (not an acceptance).
    pub missing_feedback: u64,
    /// Live agents the used plan gave no action (the environment's no-op).
    pub missing_action: u64,
}

/// The `hmas2` framework (see the module docs).
#[derive(Debug)]
pub struct Hmas2 {
    history: StepHistory,
    counts: Hmas2Counts,
    replans: usize,
    reasks: usize,
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
/// ([`colony_env_api::FrameworkBriefing::agent_profile`]; Wildfire does).
fn identity(env: &dyn DynEnvironment, agent: &str) -> (Option<String>, Option<String>) {
    env.briefing()
        .and_then(|b| b.agent_profile(agent))
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

/// The state of a step in the history: per live agent its name, and on environments that
/// profile their agents its type and position (the official history keeps the position).
fn summary(env: &dyn DynEnvironment, names: &Names, live: &[AgentView]) -> String {
    live.iter()
        .map(|v| match identity(env, &v.id) {
            (Some(k), Some(p)) => format!("{} ({k}) at {p}", names.name(&v.id)),
            _ => names.name(&v.id),
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

/// The names of the live agents `plan` gives no action, in agent order.
fn left_out(names: &Names, live: &[AgentView], plan: &BTreeMap<AgentId, String>) -> Vec<String> {
    live.iter()
        .filter(|v| !plan.contains_key(&v.id))
        .map(|v| names.name(&v.id))
        .collect()
}

fn config_error(e: impl std::fmt::Display) -> EmbodiedError {
    EmbodiedError::config("hmas2", e)
}

#[async_trait]
impl FrameworkSteps for Hmas2 {
    const NAME: &'static str = "hmas2";

    fn fresh(options: &mut PolicyOptions) -> Result<Self, EmbodiedError> {
        let replans = options.whole("replans", MAX_REPLANS as u64, 0..=10)?;
        let reasks = options.whole("reasks", REASKS as u64, 0..=10)?;
        Ok(Self {
            history: StepHistory::new(HISTORY_CAP),
            counts: Hmas2Counts::default(),
            replans: replans as usize,
            reasks: reasks as usize,
        })
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
                context! {
                    team_composition => o.briefing.team_composition.trim_end(),
                    task, history, global_state => state, rounds, example,
                },
            )
            .map_err(config_error)?;
            let mut log = o.ask(calls, &planner, "hmas2.plan", prompt.clone()).await?;
            counts.plans += 1;
            let mut plan = o.names.per_agent(log.reply.as_deref().unwrap_or(""), "");
            for attempt in 1..=self.reasks {
                let left_out = left_out(&o.names, &o.live, &plan);
                if left_out.is_empty() {
                    break;
                }
                counts.reasks += 1;
                tracing::debug!(
                    step = o.step,
                    ?left_out,
                    "hmas2: the plan left agents out, asking again"
                );
                calls.push(log);
                // The attempt number keeps each re-ask a new request (a seeded server or a
                // replay would answer an identical one identically).
                let again = format!(
                    "{prompt}\nYour previous answer gave no action for {} (attempt {} of {}): give exactly one action for every agent.",
                    left_out.join(", "),
                    attempt + 1,
                    self.reasks + 1
                );
                log = o.ask(calls, &planner, "hmas2.plan", again).await?;
                plan = o.names.per_agent(log.reply.as_deref().unwrap_or(""), "");
            }
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
            if accepted || rounds.len() == self.replans {
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
                    tracing::debug!(step = o.step, agent = %v.id, "hmas2: no planned action, the environment's no-op");
                    taken.push((name, DO_NOTHING.to_string()));
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
            state: summary(&*o.env, &o.names, &o.live),
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
                "reasks": counts.reasks,
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
    use crate::embodied::framework_step::Framework;
    use crate::embodied::test_support::{first_view, script, user, wildfire_script};
    use crate::embodied::CallLog;
    use crate::embodied::{CallerConfig, EmbodiedPolicy};

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

    fn wildfire_lines(plan: &'static str) -> CallerConfig {
        wildfire_script(&[
            ("1", 0, "hmas2.plan", plan),
            ("1", 0, "hmas2.feedback", "<feedback>'Accept'</feedback>"),
            (
                "2",
                0,
                "hmas2.feedback",
                "<feedback>I should refill water first</feedback>",
            ),
            ("3", 0, "hmas2.feedback", "<reasoning>no tag</reasoning>"),
        ])
    }

    const PLAN_WITHOUT_3: &str = "<reasoning>r</reasoning><AGENT_1>move to (3, 4)</AGENT_1><AGENT 2>cut all trees<AGENT 2><AGENT_9>x</AGENT_9>";

    #[tokio::test]
    async fn by_default_an_incomplete_plan_is_asked_twice_more_and_feedback_is_not_replanned() {
        let lines = wildfire_lines(PLAN_WITHOUT_3);
        let mut p = Framework::<Hmas2>::new(lines, "").unwrap();
        let d = p
            .decide(first_view("wildfire", &["level=1"]))
            .await
            .unwrap();
        let purposes: Vec<&str> = d.calls.iter().map(|c| c.purpose.as_str()).collect();
        let mut want = vec!["perception"; 3];
        want.extend(["hmas2.plan"; 1 + REASKS]);
        want.extend(["hmas2.feedback"; 3]);
        want.extend(["execution"; 2]);
        assert_eq!(purposes, want);
        // A re-ask names who was left out, so it is not the same request again.
        let again = user(&d.calls[4]);
        assert!(again.ends_with("Your previous answer gave no action for AGENT_3 (attempt 2 of 3): give exactly one action for every agent."), "{again}");
        let third = user(&d.calls[5]);
        assert!(third.contains("(attempt 3 of 3)") && third != again);
        assert!(!user(&d.calls[3]).contains("previous answer"));
        // Two rejections, no re-plan: the plan stands; agent 3 takes the no-op, no EXECUTION.
        assert_eq!(d.replies.len(), 2);
        assert!(!d.replies.contains_key("3"));
        let c = p.counts();
        assert_eq!(
            (c.plans, c.reasks, c.replans, c.rejections, c.missing_action),
            (1, 2, 0, 2, 1)
        );
        // The system prompt is the call's short role, not the agent's instructions.
        let system = &d.calls[3].messages[0].content;
        assert!(system.starts_with("You are the central planner") && system.len() < 300);
        let h = p.history().render();
        assert!(h.contains("AGENT_1 (Firefighter) at (") && h.contains("AGENT_3: do nothing"));
        assert!(!h.contains("I see trees"), "no perception excerpt: {h}");
    }

    #[tokio::test]
    async fn with_replans_3_rejections_replan_at_most_3_times() {
        let lines = wildfire_lines(PLAN_WITHOUT_3);
        let mut p = Framework::<Hmas2>::new(lines, "replans=3,reasks=0").unwrap();
        let d = p
            .decide(first_view("wildfire", &["level=1"]))
            .await
            .unwrap();
        let plans: Vec<&CallLog> = d
            .calls
            .iter()
            .filter(|c| c.purpose == "hmas2.plan")
            .collect();
        assert_eq!((plans.len(), d.calls.len()), (4, 3 + 4 * 4 + 2));
        // The plan prompt: every live agent's block with its type, none marked self.
        let plan0 = user(plans[0]);
        assert_eq!(plan0.matches("<agent name=").count(), 3);
        assert!(!plan0.contains("self=\"true\"") && plan0.contains("Type: Firefighter"));
        let last = plan0.lines().last().unwrap();
        assert!(last.starts_with("Reply with:") && last.contains("<AGENT_k>action</AGENT_k>"));
        // A re-plan carries the non-accepting feedback only; a missing feedback rejects.
        let plan3 = user(plans[3]);
        assert!(plan3.contains("version 3") && !plan3.contains("version 4"));
        assert!(plan3.contains("AGENT_2: I should refill water first"));
        assert!(
            plan3.contains("AGENT_3: (no feedback given)") && !plan3.contains("AGENT_1: Accept")
        );
        assert!(plan3.contains("AGENT_3: (no action given: do nothing)"));
        // Feedback prompts mark the speaker's own block and show the parsed plan.
        let fb2 = user(&d.calls[5]);
        assert!(fb2.contains("<agent name=\"AGENT_2\" self=\"true\">"));
        assert!(fb2.contains("AGENT_1: move to (3, 4)\nAGENT_2: cut all trees"));
        assert!(fb2.contains("you are AGENT_2, a Firefighter agent, located at ("));
        let n = d.calls.len();
        assert!(d.calls[n - 2..]
            .iter()
            .all(|c| c.decides && c.purpose == "execution"));
        assert_eq!(d.replies.len(), 2);
        let want = Hmas2Counts {
            plans: 4,
            replans: 3,
            reasks: 0,
            capped_steps: 1,
            rejections: 8,
            missing_feedback: 4,
            missing_action: 1,
        };
        assert_eq!(p.counts(), want);
    }

    #[test]
    fn options_are_checked() {
        let e = |o: &str| {
            Framework::<Hmas2>::new(CallerConfig::default(), o)
                .unwrap_err()
                .to_string()
        };
        assert!(
            e("x=1").contains("unknown option `x` (known: replans, reasks, structured)"),
            "{}",
            e("x=1")
        );
        assert!(e("replans=11").contains("`replans` must be a whole number in 0..=10, got `11`"));
        assert!(e("replan=1").contains("did you mean `replans`?"));
        assert!(e("reasks=-1").contains("reasks"));
        assert!(e("replans=1,replans=2").contains("given twice"));
        let p = Framework::<Hmas2>::new(CallerConfig::default(), " replans = 2 ").unwrap();
        assert_eq!((p.replans, p.reasks), (2, REASKS));
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
        // The empty AGENT_2 tag leaves Agent_2 out: two re-asks; the last plan is used.
        assert_eq!(d.calls.len(), 6, "no perception or execution call");
        assert!(d.calls[..3].iter().all(|c| c.purpose == "hmas2.plan"));
        assert!(d.calls[2].decides && !d.calls[0].decides && !d.calls[1].decides);
        assert_eq!(d.replies.len(), 2);
        assert_eq!(d.replies["Agent_0"], "ACTION: UP");
        assert_eq!(d.replies["Agent_1"], "ACTION: LEFT");
        let c = p.counts();
        assert_eq!(
            (c.plans, c.reasks, c.replans, c.rejections, c.missing_action),
            (1, 2, 0, 0, 1)
        );
        assert!(Framework::<Hmas2>::new(CallerConfig::default(), "x=1").is_err());
    }
}
