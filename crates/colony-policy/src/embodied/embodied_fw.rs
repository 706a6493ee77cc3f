//! `embodied`: Embodied, decentralized communication rounds (docs/design/frameworks.md §14.4, paper
//! Algorithm 3, prompts A.10–A.11), with WILDFIRE-ORCH's call pattern.
//!
//! State: a [`ChatStore`]: for every agent one private chat with each other agent and one
//! `GLOBAL` chat, entries `(t_sent, sender, text)`; a message sent at step `t0` is visible
//! during steps `t0 … t0+lifespan−1` and purged at the start of step `t0+lifespan` (default
//! [`LIFESPAN`] = 2: the official `clean_messages(t, 1)`; the paper's A.19 says 3). Also the
//! framework's own record of each agent's actions, one per step (the official `action_round`
//! records every step's action, on Wildfire too).
//!
//! Each step (every live agent, not only `view.deciding`: Embodied re-decides everybody):
//! 1. purge expired messages; perceptions of every live agent ([`framework::perceive`]:
//!    purpose `perception` on Wildfire, the observation text elsewhere);
//! 2. `rounds` communication rounds (default [`ROUNDS`] = 1, the official
//!    `communication_rounds`; the paper's A.19 says 2); in each, every live agent in id order,
//!    **sequentially** (later speakers see earlier messages of the same round), makes a
//!    **GenerateMessages** call (purpose `embodied.messages`, `prompts/embodied/messages.jinja`)
//!    → any number of `<AGENT_k>message</AGENT_k>` (appended to the sender's chat with `k`
//!    and to `k`'s chat with the sender) and `<GLOBAL>message</GLOBAL>` (appended to every
//!    agent's GLOBAL chat, the sender's included);
//! 3. **GenerateAction** of every live agent (purpose `embodied.action`,
//!    `prompts/embodied/action.jinja`), concurrently, logged in agent order → `<action>`;
//! 4. every action goes through [`framework::execute_all`] (purpose `execution` on Wildfire,
//!    the text itself elsewhere) and becomes the agent's reply, replacing its current action.
//!
//! `embodied:rounds=2,lifespan=3` runs the paper's A.19 settings.
//!
//! Fallbacks (§14.1, counted in [`EmbodiedCounts`], logged with `tracing::debug!` and written
//! into the step's trace): a missing or empty `<action>` leaves the agent out of the replies,
//! so it takes the environment's no-op, with no EXECUTION call (the official code sends
//! `[0, 0, 0]` without one); a messages reply without any message is a silent turn; tags of
//! agents not in the team are ignored, and so are messages an agent addresses to itself.
//!
//! Decisions: `TIME t` is the environment step `t` (0 first); `<reasoning>` blocks are
//! removed before parsing ([`without_reasoning`]); only the first `<GLOBAL>` of a
//! reply counts (the paper's format shows one); a message ends at the next `<AGENT`,
//! `</AGENT`, `<GLOBAL`, `</GLOBAL` or `<reasoning` so an unclosed tag does not swallow the
//! next one; the messages prompt names the teammates but carries nothing of theirs
//! (decentralized: an agent knows only what it is told, and the official prompt has no
//! teammate section); the own action record keeps the last [`HISTORY_CAP`] entries.

use crate::PolicyOptions;
use std::collections::BTreeMap;

use async_trait::async_trait;
use colony_env_api::{AgentId, DynEnvironment};
use minijinja::context;
use serde_json::json;

use super::framework::{self, Briefing, Opening};
use super::framework_step::{remember, FrameworkSteps, Stepped};
use super::tags::tag_content;
use super::{AgentView, CallLog, EmbodiedError, StepView};
use crate::reasoning::prompts::render;

mod chat;
pub use chat::{parse_messages, without_reasoning, ChatStore, Entry};

/// `prompts/embodied/messages.jinja`: GenerateMessages (A.10).
pub const MESSAGES_PROMPT: &str = include_str!("../../../../prompts/embodied/messages.jinja");
/// `prompts/embodied/action.jinja`: GenerateAction (A.11).
pub const ACTION_PROMPT: &str = include_str!("../../../../prompts/embodied/action.jinja");

/// Communication rounds per step by default (WILDFIRE-ORCH `communication_rounds = 1`;
/// option `rounds`, the paper's A.19 says 2).
pub const ROUNDS: usize = 1;
/// Steps a message stays visible by default (WILDFIRE-ORCH `clean_messages(t, 1)`; option
/// `lifespan`, the paper's A.19 says 3).
pub const LIFESPAN: u64 = 2;
/// Entries of the own action record kept per agent.
pub const HISTORY_CAP: usize = 30;

/// What the action record keeps for an agent whose action was not given.
const DO_NOTHING: &str = "do nothing";

/// The fallbacks and messages of an episode so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EmbodiedCounts {
    /// GenerateAction replies without an `<action>` (the agent did nothing).
    pub missing_action: u64,
    /// GenerateMessages replies that sent no message.
    pub silent_turns: u64,
    /// Private messages sent.
    pub private_sent: u64,
    /// GLOBAL messages sent.
    pub global_sent: u64,
    /// Messages an agent addressed to itself (ignored).
    pub self_addressed: u64,
    /// Chat entries purged as expired.
    pub purged: u64,
}

/// The `embodied` framework (see the module docs).
#[derive(Debug)]
pub struct EmbodiedFramework {
    chats: ChatStore,
    history: BTreeMap<AgentId, Vec<String>>,
    counts: EmbodiedCounts,
    rounds: usize,
    lifespan: u64,
}

impl EmbodiedFramework {
    /// The fallbacks and messages counted so far in this episode.
    pub fn counts(&self) -> EmbodiedCounts {
        self.counts
    }

    /// The chats as they are now.
    pub fn chats(&self) -> &ChatStore {
        &self.chats
    }
}

/// `AGENT-TYPE` and `POSITION` of `agent`, when the environment profiles its agents
/// ([`colony_env_api::FrameworkBriefing::agent_profile`]; Wildfire does).
fn identity(env: &dyn DynEnvironment, agent: &str) -> (Option<String>, Option<String>) {
    env.briefing()
        .and_then(|b| b.agent_profile(agent))
        .map_or((None, None), |p| (Some(p.kind), Some(p.position)))
}

/// The parts both prompts of one agent share.
struct Context {
    name: String,
    kind: Option<String>,
    position: Option<String>,
    block: String,
    recipients: String,
    past_actions: String,
    abilities: String,
}

fn prompt(
    template: &'static str,
    c: &Context,
    b: &Briefing,
    chats: &str,
    lifespan: u64,
) -> Result<String, EmbodiedError> {
    render(
        template,
        context! {
            name => c.name,
            kind => c.kind,
            position => c.position,
            team_composition => b.team_composition.trim_end(),
            task => b.task.trim_end(),
            block => c.block,
            recipients => c.recipients,
            past_actions => c.past_actions,
            abilities => c.abilities,
            chats => chats,
            lifespan => lifespan,
        },
    )
    .map_err(|e| EmbodiedError::config("embodied", e))
}

impl EmbodiedFramework {
    /// The prompt contexts of the live agents, in order.
    fn contexts(history: &BTreeMap<AgentId, Vec<String>>, o: &Opening<'_>) -> Vec<Context> {
        let (env, names, live) = (&*o.env, &o.names, &o.live);
        live.iter()
            .map(|a| {
                let (kind, position) = identity(env, &a.id);
                let mates: Vec<&AgentView> = live.iter().filter(|o| o.id != a.id).collect();
                let own = history.get(&a.id).map_or(&[][..], Vec::as_slice);
                Context {
                    name: names.name(&a.id),
                    kind,
                    position,
                    block: framework::agent_block(names, a, o.perception(&a.id), &[], true),
                    recipients: mates
                        .iter()
                        .map(|o| names.name(&o.id))
                        .collect::<Vec<_>>()
                        .join(", "),
                    past_actions: framework::own_past_actions(own),
                    abilities: o.ability_bullets(&a.id),
                }
            })
            .collect()
    }
}

#[async_trait]
impl FrameworkSteps for EmbodiedFramework {
    const NAME: &'static str = "embodied";

    fn fresh(options: &mut PolicyOptions) -> Result<Self, EmbodiedError> {
        let rounds = options.whole("rounds", ROUNDS as u64, 1..=5)?;
        let lifespan = options.whole("lifespan", LIFESPAN, 1..=20)?;
        Ok(Self {
            chats: ChatStore::new(lifespan),
            history: BTreeMap::new(),
            counts: EmbodiedCounts::default(),
            rounds: rounds as usize,
            lifespan,
        })
    }

    async fn step(
        &mut self,
        _view: &StepView,
        o: &Opening<'_>,
        calls: &mut Vec<CallLog>,
    ) -> Result<Option<Stepped>, EmbodiedError> {
        let mut chats = self.chats.clone();
        let purged = chats.purge(o.step);
        let ctxs = Self::contexts(&self.history, o);
        let mut counts = self.counts;
        counts.purged += purged as u64;

        let mut sent = Vec::new();
        for round in 1..=self.rounds {
            for (a, ctx) in o.live.iter().zip(&ctxs) {
                let p = prompt(
                    MESSAGES_PROMPT,
                    ctx,
                    &o.briefing,
                    &chats.render(&a.id, &o.names),
                    self.lifespan,
                )?;
                let log = o.ask(calls, a, "embodied.messages", p).await?;
                let (private, global) =
                    parse_messages(&o.names, log.reply.as_deref().unwrap_or(""));
                calls.push(log);
                let mut spoke = false;
                for (to, m) in private {
                    if to == a.id {
                        counts.self_addressed += 1;
                        continue;
                    }
                    chats.send_private(o.step, &a.id, &to, &m);
                    counts.private_sent += 1;
                    spoke = true;
                    sent.push(json!({"round": round, "from": a.id, "to": to, "message": m}));
                }
                if let Some(m) = global {
                    chats.send_global(o.step, &a.id, &m, o.names.agents());
                    counts.global_sent += 1;
                    spoke = true;
                    sent.push(json!({"round": round, "from": a.id, "to": "GLOBAL", "message": m}));
                }
                if !spoke {
                    counts.silent_turns += 1;
                    tracing::debug!(step = o.step, round, agent = %a.id, "embodied: no message sent");
                }
            }
        }

        let mut prompts = Vec::with_capacity(o.live.len());
        for (a, ctx) in o.live.iter().zip(&ctxs) {
            prompts.push(prompt(
                ACTION_PROMPT,
                ctx,
                &o.briefing,
                &chats.render(&a.id, &o.names),
                self.lifespan,
            )?);
        }
        let mut actions = o
            .ask_all(
                calls,
                "embodied.action",
                o.live.iter().zip(prompts).collect(),
            )
            .await?;
        let mut record = Vec::with_capacity(o.live.len());
        let mut to_execute = Vec::with_capacity(o.live.len());
        for (a, log) in o.live.iter().zip(actions.iter_mut()) {
            let reply = without_reasoning(log.reply.as_deref().unwrap_or(""));
            match tag_content(&reply, "action") {
                Some(act) => {
                    log.decides = a.execution.is_none();
                    record.push((a.id.clone(), act.clone()));
                    to_execute.push((a.clone(), act));
                }
                None => {
                    counts.missing_action += 1;
                    tracing::debug!(step = o.step, agent = %a.id, "embodied: no <action>, the environment's no-op");
                    record.push((a.id.clone(), DO_NOTHING.to_string()));
                }
            }
        }
        calls.append(&mut actions);
        let replies = o.execute_all(calls, to_execute).await?;

        self.chats = chats;
        self.counts = counts;
        for (agent, what) in record {
            remember(&mut self.history, &agent, &what, HISTORY_CAP);
        }
        let trace = Some(json!({
            "sent": sent,
            "purged": purged,
            "chat_entries": self.chats.len(),
            "missing_action": counts.missing_action,
            "silent_turns": counts.silent_turns,
            "private_sent": counts.private_sent,
            "global_sent": counts.global_sent,
            "self_addressed": counts.self_addressed,
        }));
        Ok(Some(Stepped { replies, trace }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embodied::framework_step::Framework;
    use crate::embodied::test_support::{first_view, script, user, wildfire_script};
    use crate::embodied::{CallerConfig, EmbodiedPolicy};

    #[tokio::test]
    async fn wildfire_paper_settings_two_rounds_then_actions_for_every_live_agent() {
        let lines = vec![
            (
                "1",
                0,
                "embodied.messages",
                "<AGENT_2>fire at (3, 4)</AGENT_2><AGENT_1>me</AGENT_1>",
            ),
            (
                "2",
                0,
                "embodied.messages",
                "<reasoning>quiet</reasoning><AGENT_7>x</AGENT_7>",
            ),
            ("3", 0, "embodied.messages", "<GLOBAL>cutting west<GLOBAL>"),
            ("1", 0, "embodied.action", "<action>move to (3, 4)</action>"),
            ("2", 0, "embodied.action", "<reasoning>no tag</reasoning>"),
            ("3", 0, "embodied.action", "<action>cut all trees</action>"),
        ];
        let mut p =
            Framework::<EmbodiedFramework>::new(wildfire_script(&lines), "rounds=2,lifespan=3")
                .unwrap();
        let mut view = first_view("wildfire", &["level=1"]);
        // Only agent 1 must decide; Embodied re-decides everybody anyway.
        view.deciding.truncate(1);
        let d = p.decide(view).await.unwrap();
        let pattern: Vec<(&str, &str)> = d
            .calls
            .iter()
            .map(|c| (c.agent.as_str(), c.purpose.as_str()))
            .collect();
        let mut want = vec![
            ("1", "perception"),
            ("2", "perception"),
            ("3", "perception"),
        ];
        for _ in 0..2 {
            want.extend(["1", "2", "3"].map(|a| (a, "embodied.messages")));
        }
        want.extend(["1", "2", "3"].map(|a| (a, "embodied.action")));
        // Agent 2 gave no action: the no-op, with no EXECUTION call.
        want.extend(["1", "3"].map(|a| (a, "execution")));
        assert_eq!(pattern, want);
        // Later speakers see earlier messages of the same round; round 2 sees round 1.
        assert!(!user(&d.calls[3]).contains("fire at (3, 4)"));
        assert!(
            user(&d.calls[4]).contains("Private with AGENT_1:\nTIME 0: AGENT_1: fire at (3, 4)")
        );
        assert!(
            !user(&d.calls[5]).contains("fire at (3, 4)"),
            "private stays private"
        );
        assert!(user(&d.calls[6]).contains("TIME 0: AGENT_3: cutting west"));
        let msg = user(&d.calls[3]);
        assert!(msg.contains("<agent name=\"AGENT_1\" self=\"true\">"));
        // Teammates are named as recipients, with no block of theirs.
        assert!(!msg.contains("<agent name=\"AGENT_2\">") && msg.contains("(AGENT_2, AGENT_3)"));
        assert!(msg.contains("cost") && msg.contains("visible for 3 steps"));
        assert!(msg
            .lines()
            .last()
            .unwrap()
            .contains("<AGENT_k>message</AGENT_k>"));
        let act = user(&d.calls[9]);
        assert!(act.contains("located at (") && act.contains("explicit target coordinates"));
        assert!(act.lines().last().unwrap().starts_with("Reply with:"));
        assert!(user(&d.calls[13]).contains("cut all trees"));
        assert!(d.calls[12..].iter().all(|c| c.decides));
        assert_eq!(d.replies.len(), 2);
        // Two rounds: agent 1 → 2 twice (both chats), agent 3 global twice (3 chats each).
        assert_eq!(p.chats().private_chat("2", "1").len(), 2);
        assert_eq!(p.chats().len(), 2 * 2 + 2 * 3);
        assert_eq!(
            p.counts(),
            EmbodiedCounts {
                missing_action: 1,
                silent_turns: 2,
                private_sent: 2,
                global_sent: 2,
                self_addressed: 2,
                purged: 0,
            }
        );
        assert_eq!(p.take_trace().unwrap()["sent"].as_array().unwrap().len(), 4);
    }

    #[tokio::test]
    async fn elsewhere_silent_agents_take_the_environments_no_op() {
        let lines = [
            (
                "Agent_0",
                0,
                "embodied.messages",
                "<AGENT_1>wall north</AGENT_1>",
            ),
            ("Agent_1", 0, "embodied.messages", "nothing"),
            (
                "Agent_0",
                0,
                "embodied.action",
                "<action>ACTION: UP</action>",
            ),
            ("Agent_1", 0, "embodied.action", "<action></action>"),
        ];
        let mut p = Framework::<EmbodiedFramework>::new(script(&lines), "").unwrap();
        let d = p
            .decide(first_view("swarmbench", &["agents=2"]))
            .await
            .unwrap();
        // The default: one round (WILDFIRE-ORCH).
        assert_eq!(
            d.calls.len(),
            2 * ROUNDS + 2,
            "no perception or execution call"
        );
        assert_eq!(ROUNDS, 1);
        assert_eq!(d.replies.len(), 1);
        assert_eq!(d.replies["Agent_0"], "ACTION: UP");
        assert!(d.calls[2].decides && !d.calls[3].decides);
        assert!(user(&d.calls[3]).contains("Private with AGENT_0:\nTIME 0: AGENT_0: wall north"));
        assert!(user(&d.calls[0]).contains("visible for 2 steps"));
        assert_eq!(p.history["Agent_1"], vec![DO_NOTHING.to_string()]);
        assert!(Framework::<EmbodiedFramework>::new(CallerConfig::default(), "x=1").is_err());
        assert!(Framework::<EmbodiedFramework>::new(CallerConfig::default(), "rounds=0").is_err());
    }
}
