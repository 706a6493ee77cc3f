//! `camon`: CAMON, a dynamic leader (docs/design/frameworks.md §14.2, paper Algorithm 1, prompts
//! A.5–A.7).
//!
//! State: the leader (initially the first agent of the team, the lowest id), one chat history
//! `M_a` per agent (`(t, sender, message)`, unbounded: the messages the leader sent to `a`),
//! and, off Wildfire, the framework's own record of each agent's past and current actions
//! (Wildfire keeps its primitives itself).
//!
//! Each step (every step, as WILDFIRE-ORCH's loop; with nobody deciding only the perceptions
//! are made):
//! 1. perceptions of every live agent ([`framework::perceive`]: the PERCEPTION call on
//!    Wildfire, purpose `perception`; the observation text elsewhere); `GlobalData` = one
//!    [`framework::agent_block`] per live agent (its perception, which on Wildfire carries
//!    position, status and past actions, plus `Current action:` — its action or `IDLE` — and
//!    off Wildfire `Past actions:`), built once per step; an override rewrites its target's
//!    entry at once (WILDFIRE-ORCH), so the step's later prompts show the new action;
//! 2. for each deciding live agent `a` in id order that got no action earlier in this loop,
//!    **sequentially**:
//!    * `a` is the leader: **GeneratePlan** (purpose `camon.generate_plan`,
//!      `prompts/camon/generate_plan.jinja`, `GlobalData` with `a` marked self) → `<action>`
//!      for itself and optional pairs `<AGENT_k-action>` + `<AGENT_k-message>`;
//!    * otherwise: **ProposePlan** (purpose `camon.propose`, `prompts/camon/propose.jinja`,
//!      made as `a`) → `<action>`; without one, `a` idles this step, no review is made and
//!      `a` leads from the next step (later proposals of this step are still reviewed by
//!      the current reviewer; WILDFIRE-ORCH `propose_plan`); else **ReviewPlan**
//!      (purpose `camon.review`,
//!      `prompts/camon/review.jinja`, made as the leader, `GlobalData` with the proposer
//!      marked self) → `<decision>`, `<action>` for `a` (the proposal when missing),
//!      `<message>` to `a` (appended to `M_a`) and optional pairs; then **`Leader ← a`**;
//!    * a complete pair for a live agent `k` assigns `k` that action (**an interrupt**:
//!      it replaces `k`'s current action, also one given earlier in this loop) and appends
//!      the message to `M_k`;
//! 3. every assigned action goes through [`framework::execute_all`] (purpose `execution` on
//!    Wildfire, the text itself elsewhere), in agent order.
//!
//! Calls are logged in this order: perceptions (agent order), the framework calls in the
//! order they were made, then the executions in agent order.
//!
//! Fallbacks (§14.1), counted in [`CamonCounts`] (see [`Camon::counts`]), logged with
//! `tracing::debug!` and written into the step's trace: a missing or empty `<action>` of
//! GeneratePlan means "do nothing" and its override pairs are not read (WILDFIRE-ORCH
//! `generate_plan` returns before reading them); a missing proposal means "do nothing" with
//! no review; a missing review `<action>` falls back to the proposal; "do nothing" leaves the
//! agent out of the replies (the environment's no-op) with no EXECUTION call, as the official
//! type-0 option; a missing `<message>` is not sent; a missing `<decision>` (or one that is
//! neither word) is not an acceptance.
//!
//! Decisions: the chat's `TIME t` is the environment step `t` (0 first); a pair naming the
//! speaker, the proposer under review, a lost agent or a passenger is ignored, and so is an
//! incomplete pair (both counted); if the leader is not live (lost, or a passenger),
//! leadership passes to the first live agent; off Wildfire the past-action record keeps the last [`HISTORY_CAP`] entries.

use crate::PolicyOptions;
use std::collections::BTreeMap;

use async_trait::async_trait;
use colony_env_api::{AgentId, DynEnvironment};
use minijinja::context;
use serde_json::json;

use super::framework::{self, Names, Opening};
use super::framework_step::{remember, FrameworkSteps, Stepped};
use super::tags::tag_content;
use super::{AgentView, CallLog, EmbodiedError, StepView};
use crate::reasoning::prompts::render;

/// `prompts/camon/generate_plan.jinja`: GeneratePlan (A.5).
pub const GENERATE_PROMPT: &str = include_str!("../../../../prompts/camon/generate_plan.jinja");
/// `prompts/camon/propose.jinja`: ProposePlan (A.6).
pub const PROPOSE_PROMPT: &str = include_str!("../../../../prompts/camon/propose.jinja");
/// `prompts/camon/review.jinja`: ReviewPlan (A.7).
pub const REVIEW_PROMPT: &str = include_str!("../../../../prompts/camon/review.jinja");

/// Entries of the own past-action record kept per agent (off Wildfire).
pub const HISTORY_CAP: usize = 30;

/// The action of an agent whose action was not given.
const DO_NOTHING: &str = "do nothing";

/// One chat entry: `(t, sender, message)`.
pub type ChatEntry = (u64, AgentId, String);

/// The plans, reviews and fallbacks of an episode so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CamonCounts {
    /// GeneratePlan calls.
    pub plans: u64,
    /// ProposePlan calls (those with an `<action>` are followed by one ReviewPlan).
    pub proposals: u64,
    /// Reviews that accepted.
    pub accepted: u64,
    /// Reviews that rejected.
    pub rejected: u64,
    /// Reviews without a readable `<decision>` (not an acceptance).
    pub missing_decision: u64,
    /// GeneratePlan replies without an `<action>` (the leader did nothing).
    pub missing_plan_action: u64,
    /// ProposePlan replies without an `<action>` (no review; the agent did nothing).
    pub missing_proposal: u64,
    /// Reviews without an `<action>` (the proposal was used, or "do nothing" without one).
    pub missing_review_action: u64,
    /// Reviews without a `<message>` (nothing sent).
    pub missing_message: u64,
    /// Agents that ended up doing nothing because no action was given.
    pub do_nothing: u64,
    /// Complete override pairs applied (interrupts).
    pub overrides: u64,
    /// Pairs ignored: incomplete, or naming the speaker, the proposer, a lost agent or a
    /// passenger.
    pub ignored_pairs: u64,
    /// Leadership transfers.
    pub transfers: u64,
}

/// The `camon` framework (see the module docs).
#[derive(Debug)]
pub struct Camon {
    leader: Option<AgentId>,
    chats: BTreeMap<AgentId, Vec<ChatEntry>>,
    history: BTreeMap<AgentId, Vec<String>>,
    current: BTreeMap<AgentId, String>,
    counts: CamonCounts,
}

impl Camon {
    /// The current leader (`None` before the first decision).
    pub fn leader(&self) -> Option<&AgentId> {
        self.leader.as_ref()
    }

    /// The chat history `M_a` of `agent`, oldest first.
    pub fn chat(&self, agent: &str) -> &[ChatEntry] {
        self.chats.get(agent).map_or(&[], Vec::as_slice)
    }

    /// The plans, reviews and fallbacks counted so far in this episode.
    pub fn counts(&self) -> CamonCounts {
        self.counts
    }
}

/// `AGENT-TYPE`, `POSITION` and the agent's current activity, when the environment profiles
/// its agents ([`colony_env_api::FrameworkBriefing::agent_profile`]; Wildfire does).
fn identity(
    env: &dyn DynEnvironment,
    agent: &str,
) -> (Option<String>, Option<String>, Option<String>) {
    env.briefing()
        .and_then(|b| b.agent_profile(agent))
        .map_or((None, None, None), |p| {
            (Some(p.kind), Some(p.position), p.activity)
        })
}

fn config_error(e: impl std::fmt::Display) -> EmbodiedError {
    EmbodiedError::config("camon", e)
}

/// A decision tag read as ACCEPT (`Some(true)`), REJECT (`Some(false)`) or neither.
pub fn parse_decision(reply: &str) -> Option<bool> {
    let d = tag_content(reply, "decision")?;
    let d: String = d
        .chars()
        .filter(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_uppercase();
    match d.as_str() {
        "ACCEPT" | "ACCEPTED" => Some(true),
        "REJECT" | "REJECTED" => Some(false),
        _ => None,
    }
}

/// The complete override pairs of a leader's reply, for live agents other than `exclude`,
/// in agent order, and the number of pairs ignored (see the module docs).
pub fn override_pairs(
    names: &Names,
    reply: &str,
    live: &[AgentId],
    exclude: &[&str],
) -> (Vec<(AgentId, String, String)>, u64) {
    let actions = names.per_agent(reply, "-action");
    let mut messages = names.per_agent(reply, "-message");
    let mut pairs = Vec::new();
    let mut ignored = 0;
    for (id, action) in actions {
        match messages.remove(&id) {
            Some(m) if live.contains(&id) && !exclude.contains(&id.as_str()) => {
                pairs.push((id, action, m));
            }
            _ => ignored += 1,
        }
    }
    ignored += messages.len() as u64;
    let order = |id: &AgentId| names.agents().iter().position(|a| a == id);
    pairs.sort_by_key(|p| order(&p.0));
    (pairs, ignored)
}

/// What the loop of one step produced, before execution.
#[derive(Default)]
struct Plan {
    /// The text action per agent (`None`: not given, "do nothing").
    assigned: BTreeMap<AgentId, Option<String>>,
    /// Off Wildfire, the index of the call made as the agent whose reply became its action.
    decider: BTreeMap<AgentId, usize>,
    events: Vec<serde_json::Value>,
}

impl Plan {
    fn apply(
        &mut self,
        pairs: Vec<(AgentId, String, String)>,
        by: &str,
        step: u64,
        chats: &mut BTreeMap<AgentId, Vec<ChatEntry>>,
        counts: &mut CamonCounts,
    ) {
        for (k, action, message) in pairs {
            counts.overrides += 1;
            self.decider.remove(&k);
            self.events
                .push(json!({"override": k, "by": by, "action": action}));
            self.assigned.insert(k.clone(), Some(action));
            chats
                .entry(k)
                .or_default()
                .push((step, by.to_string(), message));
        }
    }
}

#[async_trait]
impl FrameworkSteps for Camon {
    const NAME: &'static str = "camon";

    fn fresh(_: &mut PolicyOptions) -> Result<Self, EmbodiedError> {
        Ok(Self {
            leader: None,
            chats: BTreeMap::new(),
            history: BTreeMap::new(),
            current: BTreeMap::new(),
            counts: CamonCounts::default(),
        })
    }

    async fn step(
        &mut self,
        view: &StepView,
        o: &Opening<'_>,
        calls: &mut Vec<CallLog>,
    ) -> Result<Option<Stepped>, EmbodiedError> {
        let live_ids: Vec<AgentId> = o.live.iter().map(|v| v.id.clone()).collect();
        let mut leader = self
            .leader
            .clone()
            .or_else(|| view.agents.first().cloned())
            .unwrap_or_default();
        if !live_ids.contains(&leader) {
            match live_ids.first() {
                Some(first) => leader = first.clone(),
                None => return Ok(None),
            }
        }
        // Environments that profile their agents also report what each one is doing.
        let on_wildfire = o.live.iter().any(|v| {
            o.env
                .briefing()
                .and_then(|b| b.agent_profile(&v.id))
                .is_some()
        });
        let deciding: Vec<&AgentView> = view
            .deciding
            .iter()
            .filter(|d| live_ids.contains(&d.id))
            .collect();

        // GlobalData, once per step: (view, perception, status lines) per o.live agent.
        let data: Vec<(&AgentView, &str, Vec<(&str, String)>)> = o
            .live
            .iter()
            .map(|v| {
                let idle = deciding.iter().any(|d| d.id == v.id);
                let current = match identity(&*o.env, &v.id).2 {
                    Some(c) if !idle => c,
                    _ if idle || on_wildfire => "IDLE".to_string(),
                    _ => self
                        .current
                        .get(&v.id)
                        .map_or("IDLE".to_string(), |c| framework::one_line(c)),
                };
                let mut status = vec![("Current action", current)];
                if !on_wildfire {
                    let own = self.history.get(&v.id).map_or(&[][..], Vec::as_slice);
                    let past = framework::past_actions(&*o.env, &v.id, own);
                    status.push(("Past actions", past.lines().collect::<Vec<_>>().join("; ")));
                }
                (v, o.perception(&v.id), status)
            })
            .collect();
        let mut blocks = framework::AgentBlocks::new(
            &o.names,
            data.iter().map(|(v, p, s)| (*v, *p, s.as_slice())),
        );
        // An override rewrites the agent's GlobalData entry at once (WILDFIRE-ORCH
        // `generate_plan` / `propose_plan`), so later prompts of this step show it.
        let rewrite = |blocks: &mut framework::AgentBlocks, k: &str, action: &str| {
            if let Some((v, p, status)) = data.iter().find(|(v, _, _)| v.id == k) {
                let mut status = status.clone();
                status[0].1 = framework::one_line(action);
                blocks.replace(&o.names, v, p, &status);
            }
        };
        let example = |speaker: &str, subject: &str| -> String {
            let k = live_ids
                .iter()
                .find(|id| id.as_str() != speaker && id.as_str() != subject)
                .map_or("AGENT_k".to_string(), |id| o.names.name(id));
            format!("<{k}-action>the new action</{k}-action> <{k}-message>why you changed it</{k}-message>")
        };
        let team_abilities = o.briefing.team_abilities.trim_end();
        let team_composition = o.briefing.team_composition.trim_end();
        let task = o.briefing.task.trim_end();

        let mut chats = self.chats.clone();
        let mut counts = self.counts;
        let mut plan = Plan::default();
        let leader_before = leader.clone();
        // Who reviews proposals: the leader at the step's start, then each reviewed proposer.
        // A proposer without an action leads from the next step only (WILDFIRE-ORCH:
        // `__main__` moves its local leader, `propose_plan` returns before it moves the
        // reviewing `leader_agent`).
        let mut reviewer_id = leader.clone();
        for a in deciding.iter().copied() {
            if plan.assigned.contains_key(&a.id) {
                continue;
            }
            let own = self.history.get(&a.id).map_or(&[][..], Vec::as_slice);
            let past_actions = framework::past_actions(&*o.env, &a.id, own);
            let chat =
                framework::chat_history(&o.names, chats.get(&a.id).map_or(&[], Vec::as_slice));
            let (kind, position, _) = identity(&*o.env, &a.id);
            let name = o.names.name(&a.id);
            if a.id == leader {
                let prompt = render(
                    GENERATE_PROMPT,
                    context! {
                        name, kind, position, team_composition, task, past_actions, chat,
                        global_data => blocks.for_agent(Some(&a.id)), team_abilities,
                        example => example(&a.id, &a.id),
                    },
                )
                .map_err(config_error)?;
                let log = o.ask(calls, a, "camon.generate_plan", prompt).await?;
                counts.plans += 1;
                let reply = log.reply.clone().unwrap_or_default();
                let action = tag_content(&reply, "action");
                let had_action = action.is_some();
                if had_action {
                    plan.decider.insert(a.id.clone(), calls.len());
                } else {
                    counts.missing_plan_action += 1;
                    tracing::debug!(step = o.step, agent = %a.id, "camon: no <action> in the plan, doing nothing and reading no pairs");
                }
                calls.push(log);
                plan.events.push(json!({"plan": a.id, "action": action}));
                plan.assigned.insert(a.id.clone(), action);
                if had_action {
                    let (pairs, ignored) = override_pairs(&o.names, &reply, &live_ids, &[&a.id]);
                    counts.ignored_pairs += ignored;
                    for (k, action, _) in &pairs {
                        rewrite(&mut blocks, k, action);
                    }
                    plan.apply(pairs, &a.id, o.step, &mut chats, &mut counts);
                }
                continue;
            }
            let prompt = render(
                PROPOSE_PROMPT,
                context! {
                    name, kind, team_composition, task, past_actions, chat,
                    dims => o.env.briefing().and_then(|b| b.map_dimensions()),
                    team_size => o.briefing.team_size,
                    block => framework::agent_block(&o.names, a, o.perception(&a.id), &[], true),
                    abilities => o.ability_bullets(&a.id),
                },
            )
            .map_err(config_error)?;
            let log = o.ask(calls, a, "camon.propose", prompt).await?;
            counts.proposals += 1;
            let proposal = log.reply.as_deref().and_then(|r| tag_content(r, "action"));
            let proposal_at = calls.len();
            calls.push(log);
            let Some(proposal) = proposal else {
                counts.missing_proposal += 1;
                tracing::debug!(step = o.step, agent = %a.id, "camon: no <action> proposed, no review");
                plan.events.push(json!({"proposal": a.id, "action": null}));
                plan.assigned.insert(a.id.clone(), None);
                leader = a.id.clone();
                counts.transfers += 1;
                continue;
            };
            let Some(reviewer) = o.live.iter().find(|v| v.id == reviewer_id) else {
                return Err(config_error("the leader is not a live agent"));
            };
            let prompt = render(
                REVIEW_PROMPT,
                context! {
                    name => o.names.name(&reviewer_id), team_composition, task, team_abilities,
                    global_data => blocks.for_agent(Some(&a.id)),
                    proposer => name, proposer_kind => kind,
                    proposal => proposal.as_str(),
                    example => example(&reviewer_id, &a.id),
                },
            )
            .map_err(config_error)?;
            let log = o.ask(calls, reviewer, "camon.review", prompt).await?;
            let reply = log.reply.clone().unwrap_or_default();
            calls.push(log);
            let decision = parse_decision(&reply);
            match decision {
                Some(true) => counts.accepted += 1,
                Some(false) => counts.rejected += 1,
                None => {
                    counts.missing_decision += 1;
                    tracing::debug!(step = o.step, agent = %reviewer_id, "camon: no <decision>, not an acceptance");
                }
            }
            let action = match tag_content(&reply, "action") {
                Some(act) => Some(act),
                None => {
                    counts.missing_review_action += 1;
                    tracing::debug!(step = o.step, agent = %reviewer_id, "camon: no <action> in the review, using the proposal");
                    plan.decider.insert(a.id.clone(), proposal_at);
                    Some(proposal)
                }
            };
            plan.events.push(json!({
                "proposal": a.id, "reviewer": reviewer_id, "accepted": decision, "action": action,
            }));
            plan.assigned.insert(a.id.clone(), action);
            match tag_content(&reply, "message") {
                Some(m) => {
                    chats
                        .entry(a.id.clone())
                        .or_default()
                        .push((o.step, reviewer_id.clone(), m))
                }
                None => {
                    counts.missing_message += 1;
                    tracing::debug!(step = o.step, agent = %reviewer_id, "camon: no <message> in the review");
                }
            }
            let (pairs, ignored) =
                override_pairs(&o.names, &reply, &live_ids, &[&reviewer_id, &a.id]);
            counts.ignored_pairs += ignored;
            for (k, action, _) in &pairs {
                rewrite(&mut blocks, k, action);
            }
            plan.apply(pairs, &reviewer_id, o.step, &mut chats, &mut counts);
            leader = a.id.clone();
            reviewer_id = a.id.clone();
            counts.transfers += 1;
        }

        let mut to_execute = Vec::new();
        let mut chosen = Vec::new();
        for v in &o.live {
            match plan.assigned.get(&v.id) {
                Some(Some(action)) => {
                    chosen.push((v.id.clone(), action.clone()));
                    to_execute.push((v.clone(), action.clone()));
                }
                Some(None) => {
                    counts.do_nothing += 1;
                    tracing::debug!(step = o.step, agent = %v.id, "camon: no action given, the environment's no-op");
                    chosen.push((v.id.clone(), DO_NOTHING.to_string()));
                }
                None => {}
            }
        }
        let replies = o.execute_all(calls, to_execute).await?;
        for (agent, at) in &plan.decider {
            if replies.contains_key(agent) && exec_free(&o.live, agent) {
                if let Some(c) = calls.get_mut(*at) {
                    c.decides = true;
                }
            }
        }

        for (agent, action) in chosen {
            remember(&mut self.history, &agent, &action, HISTORY_CAP);
            self.current.insert(agent, action);
        }
        self.chats = chats;
        self.counts = counts;
        self.leader = Some(leader.clone());
        let trace = Some(json!({
            "leader_before": leader_before,
            "leader": leader,
            "events": plan.events,
            "counts": counts,
        }));
        Ok(Some(Stepped { replies, trace }))
    }
}

/// True when `agent`'s action needs no EXECUTION call (its reply is the chosen text).
fn exec_free(live: &[AgentView], agent: &str) -> bool {
    live.iter()
        .find(|v| v.id == agent)
        .is_some_and(|v| v.execution.is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embodied::framework_step::Framework;
    use crate::embodied::test_support::{
        first_view, pairs as want, pattern, script, user as prompt,
        wildfire_script as wildfire_lines,
    };
    use crate::embodied::{CallerConfig, Decision, EmbodiedPolicy};

    #[test]
    fn decisions_and_pairs_parse_leniently() {
        assert_eq!(parse_decision("<decision> ACCEPT </decision>"), Some(true));
        assert_eq!(parse_decision("<DECISION>'reject'<DECISION>"), Some(false));
        assert_eq!(parse_decision("<decision>maybe</decision>"), None);
        assert_eq!(parse_decision("no tag"), None);
        let names = Names::new(&["1".into(), "2".into(), "3".into(), "4".into()]);
        let live: Vec<AgentId> = ["1", "2", "3"].iter().map(|s| s.to_string()).collect();
        let reply =
            "<AGENT 3-action>cut trees<AGENT 3-action><AGENT_3-message>please</AGENT_3-message>\
                     <AGENT_2-action>move to (1, 1)</AGENT_2-action>\
                     <AGENT_1-action>x</AGENT_1-action><AGENT_1-message>y</AGENT_1-message>\
                     <AGENT_4-action>x</AGENT_4-action><AGENT_4-message>y</AGENT_4-message>\
                     <AGENT_9-action>x</AGENT_9-action><AGENT_9-message>y</AGENT_9-message>";
        let (pairs, ignored) = override_pairs(&names, reply, &live, &["1"]);
        assert_eq!(
            pairs,
            vec![(
                "3".to_string(),
                "cut trees".to_string(),
                "please".to_string()
            )]
        );
        // Agent 2's action lacks a message, 1 is excluded, 4 is not live; 9 is unknown.
        assert_eq!(ignored, 3);
    }

    #[tokio::test]
    async fn three_idle_agents_leader_plans_then_propose_review_pairs_and_leadership_moves() {
        let config = wildfire_lines(&[
            ("1", 0, "camon.generate_plan", "<action>move to (5, 5)</action>"),
            ("2", 0, "camon.propose", "<action>cut all trees</action>"),
            (
                "1",
                0,
                "camon.review",
                "<decision>REJECT</decision><action>move to (9, 9)</action><message>go east<message>",
            ),
            ("3", 0, "camon.propose", "<action>move to (2, 2)</action>"),
            ("2", 0, "camon.review", "<decision>ACCEPT</decision>"),
        ]);
        let mut p = Framework::<Camon>::new(config, "").unwrap();
        assert_eq!(p.leader(), None);
        let d = p
            .decide(first_view("wildfire", &["level=1"]))
            .await
            .unwrap();
        assert_eq!(
            pattern(&d.calls),
            want(&[
                ("1", "perception"),
                ("2", "perception"),
                ("3", "perception"),
                ("1", "camon.generate_plan"),
                ("2", "camon.propose"),
                ("1", "camon.review"),
                ("3", "camon.propose"),
                ("2", "camon.review"),
                ("1", "execution"),
                ("2", "execution"),
                ("3", "execution"),
            ])
        );
        assert_eq!(p.leader().map(String::as_str), Some("3"));
        // The leader's prompt marks its own block; the review marks the proposer's.
        let plan = prompt(&d.calls[3]);
        assert!(plan.contains("<agent name=\"AGENT_1\" self=\"true\">"));
        assert!(plan.contains("Current action: IDLE"));
        let last = plan.lines().last().unwrap();
        assert!(
            last.starts_with("Reply with:")
                && last.contains(
                    "<AGENT_k-action>…</AGENT_k-action> <AGENT_k-message>…</AGENT_k-message>"
                ),
            "{last}"
        );
        let review = prompt(&d.calls[5]);
        assert!(review.contains("<agent name=\"AGENT_2\" self=\"true\">"));
        assert!(review.contains("cut all trees") && review.contains("<decision>"));
        // The rejected proposal is replaced; a review without an action keeps the proposal.
        assert!(prompt(&d.calls[9]).contains("move to (9, 9)"));
        assert!(prompt(&d.calls[10]).contains("move to (2, 2)"));
        assert!(d.calls[8..].iter().all(|c| c.decides));
        assert_eq!(d.replies.len(), 3);
        assert_eq!(p.chat("2"), &[(0, "1".to_string(), "go east".to_string())]);
        assert!(p.chat("3").is_empty());
        let c = p.counts();
        assert_eq!((c.plans, c.proposals, c.accepted, c.rejected), (1, 2, 1, 1));
        assert_eq!(
            (c.missing_review_action, c.missing_message, c.transfers),
            (1, 1, 2)
        );
        let trace = p.take_trace().unwrap();
        assert_eq!(trace["leader"], "3");
        assert_eq!(trace["leader_before"], "1");
    }

    /// One Wildfire level-1 step in which agent 2 is busy (not deciding).
    async fn with_agent_2_busy(config: CallerConfig) -> (Framework<Camon>, Decision) {
        let mut p = Framework::<Camon>::new(config, "").unwrap();
        let mut view = first_view("wildfire", &["level=1"]);
        view.deciding.retain(|a| a.id != "2");
        let d = p.decide(view).await.unwrap();
        (p, d)
    }

    #[tokio::test]
    async fn an_override_pair_interrupts_a_busy_agent_and_skips_an_idle_one() {
        let config = wildfire_lines(&[(
            "1",
            0,
            "camon.generate_plan",
            "<reasoning>r</reasoning><action>move to (1, 1)</action>\
             <AGENT 2-action>move to (7, 7)<AGENT 2-action><AGENT_2-message>help me</AGENT_2-message>\
             <AGENT_3-action>cut all trees</AGENT_3-action><AGENT_3-message>cut</AGENT_3-message>\
             <AGENT_1-action>x</AGENT_1-action><AGENT_1-message>y</AGENT_1-message>",
        )]);
        let (p, d) = with_agent_2_busy(config).await;
        assert_eq!(
            pattern(&d.calls),
            want(&[
                ("1", "perception"),
                ("2", "perception"),
                ("3", "perception"),
                ("1", "camon.generate_plan"),
                ("1", "execution"),
                ("2", "execution"),
                ("3", "execution"),
            ])
        );
        assert!(prompt(&d.calls[4]).contains("move to (1, 1)"));
        assert!(prompt(&d.calls[5]).contains("move to (7, 7)"));
        assert!(d.replies.contains_key("2"), "the interrupt is a reply");
        assert_eq!(p.chat("2")[0].2, "help me");
        assert_eq!(p.leader().map(String::as_str), Some("1"));
        let c = p.counts();
        assert_eq!((c.overrides, c.ignored_pairs), (2, 1));
        assert_eq!((c.missing_plan_action, c.do_nothing), (0, 0));
    }

    #[tokio::test]
    async fn a_plan_without_action_reads_no_pairs_and_a_missing_proposal_gets_no_review() {
        let config = wildfire_lines(&[
            (
                "1",
                0,
                "camon.generate_plan",
                "<AGENT_3-action>cut all trees</AGENT_3-action><AGENT_3-message>cut</AGENT_3-message>",
            ),
            ("3", 0, "camon.propose", "<reasoning>none</reasoning>"),
        ]);
        let (p, d) = with_agent_2_busy(config).await;
        // WILDFIRE-ORCH: no pairs without the leader's own action; no review without a
        // proposal, yet the proposer leads; idle agents take the no-op with no EXECUTION.
        assert_eq!(
            pattern(&d.calls),
            want(&[
                ("1", "perception"),
                ("2", "perception"),
                ("3", "perception"),
                ("1", "camon.generate_plan"),
                ("3", "camon.propose"),
            ])
        );
        assert!(d.replies.is_empty());
        assert!(p.chat("3").is_empty());
        assert_eq!(p.leader().map(String::as_str), Some("3"));
        let c = p.counts();
        assert_eq!(
            (
                c.missing_plan_action,
                c.missing_proposal,
                c.overrides,
                c.do_nothing,
                c.transfers
            ),
            (1, 1, 0, 2, 1)
        );
        // Every call's system prompt is its short role.
        assert!(d.calls[3].messages[0].content.contains("current leader"));
        assert!(d.calls[0].messages[0].content.contains("perception module"));
    }

    #[tokio::test]
    async fn an_override_rewrites_the_agents_globaldata_entry_within_the_step() {
        let config = wildfire_lines(&[
            (
                "1",
                0,
                "camon.generate_plan",
                "<action>move to (1, 1)</action>\
                 <AGENT_3-action>cut all trees</AGENT_3-action><AGENT_3-message>cut</AGENT_3-message>",
            ),
            ("2", 0, "camon.propose", "<action>move to (2, 2)</action>"),
            ("1", 0, "camon.review", "<decision>ACCEPT</decision>"),
        ]);
        let mut p = Framework::<Camon>::new(config, "").unwrap();
        let d = p
            .decide(first_view("wildfire", &["level=1"]))
            .await
            .unwrap();
        let block_of_3 = |text: &str| -> String {
            let at = text.find("<agent name=\"AGENT_3\"").unwrap();
            let end = text[at..].find("</agent>").unwrap();
            text[at..at + end].to_string()
        };
        let plan = block_of_3(prompt(&d.calls[3]));
        assert!(plan.contains("Current action: IDLE"), "{plan}");
        let review = block_of_3(prompt(&d.calls[5]));
        assert_eq!(d.calls[5].purpose, "camon.review");
        assert!(review.contains("Current action: cut all trees"), "{review}");
    }

    #[tokio::test]
    async fn nobody_deciding_still_perceives_every_agent() {
        let config = wildfire_lines(&[]);
        let mut p = Framework::<Camon>::new(config, "").unwrap();
        assert!(p.decides_every_step());
        let mut view = first_view("wildfire", &["level=1"]);
        view.deciding.clear();
        let d = p.decide(view).await.unwrap();
        assert_eq!(
            pattern(&d.calls),
            want(&[
                ("1", "perception"),
                ("2", "perception"),
                ("3", "perception")
            ])
        );
        assert!(d.replies.is_empty());
    }

    #[tokio::test]
    async fn elsewhere_do_nothing_leaves_the_agent_out_and_the_deciding_call_is_marked() {
        let lines = [
            (
                "Agent_0",
                0,
                "camon.generate_plan",
                "<action>ACTION: UP</action>",
            ),
            ("Agent_1", 0, "camon.propose", "<reasoning>none</reasoning>"),
            (
                "Agent_2",
                0,
                "camon.propose",
                "<action>ACTION: LEFT</action>",
            ),
            ("Agent_0", 0, "camon.review", "<decision>ACCEPT</decision>"),
        ];
        let mut p = Framework::<Camon>::new(script(&lines), "").unwrap();
        let d = p
            .decide(first_view("swarmbench", &["agents=3"]))
            .await
            .unwrap();
        assert_eq!(
            d.calls.len(),
            4,
            "no perception or execution call, no review of a missing proposal"
        );
        assert_eq!(d.replies.len(), 2);
        assert_eq!(d.replies["Agent_0"], "ACTION: UP");
        assert_eq!(d.replies["Agent_2"], "ACTION: LEFT");
        // Agent_1 proposed nothing: it leads from the next step; this step's reviewer stays
        // Agent_0, who reviews Agent_2's proposal.
        assert_eq!(d.calls[3].agent, "Agent_0");
        let marked: Vec<usize> = (0..4).filter(|&i| d.calls[i].decides).collect();
        assert_eq!(marked, vec![0, 2]);
        assert_eq!(p.leader().map(String::as_str), Some("Agent_2"));
        let c = p.counts();
        assert_eq!(
            (
                c.missing_proposal,
                c.missing_review_action,
                c.missing_decision
            ),
            (1, 1, 0)
        );
        assert_eq!(c.do_nothing, 1);
        assert_eq!(p.history["Agent_1"], vec![DO_NOTHING.to_string()]);
        assert!(Framework::<Camon>::new(CallerConfig::default(), "x=1").is_err());
    }
}
