//! `coela`: COELA, decentralized message-or-act (docs/design/frameworks.md §14.3, paper Algorithm
//! 2, prompts A.8–A.9), with WILDFIRE-ORCH's call pattern.
//!
//! State: one group chat shared by the whole team, `(t, sender, message)` entries capped to
//! the `chat` most recent (default [`CHAT_CAP`] = 5, the official `add_message` cap; the
//! paper's A.19 says 30, `coela:chat=30`), and the framework's own record of each agent's
//! past actions off Wildfire (Wildfire keeps the completed primitives itself).
//!
//! Each step (every step, as WILDFIRE-ORCH's loop; with nobody deciding only the perceptions
//! are made):
//! 1. perceptions of every live agent (§14.1 step 3, [`framework::perceive`]: the PERCEPTION
//!    call on Wildfire, purpose `perception`; the observation text elsewhere);
//! 2. for each deciding live agent `a` in id order, **sequentially** (later agents see the
//!    messages sent earlier in the same step):
//!    * **ProposeMessage** (purpose `coela.message`, `prompts/coela/message.jinja`) →
//!      `<message>`;
//!    * **ChooseAction** (purpose `coela.action`, `prompts/coela/action.jinja`): the same
//!      context plus the proposed message offered as `[SEND_MESSAGE] <message>` next to the
//!      agent's abilities → `<action>`;
//!    * an action that sends ([`is_send_message`]) appends its text with the send token
//!      removed to the chat (the proposed message when nothing is left; the official code
//!      sends the action text) and costs the agent its step: it is left out of the replies,
//!      so it takes the environment's no-op, with no EXECUTION call (the official type-0
//!      "send message" option); recorded as "sent a message";
//! 3. every other chosen action goes through [`framework::execute_all`] (purpose `execution`
//!    on Wildfire, the text itself elsewhere).
//!
//! Calls are logged in this order: perceptions (agent order), then `coela.message`,
//! `coela.action` per deciding agent in agent order, then the executions in agent order.
//!
//! Fallbacks (§14.1, counted in [`CoelaCounts`], logged with `tracing::debug!` and written into
//! the step's trace): a missing or empty `<message>` is offered as `(no message)` (choosing
//! to send then sends what the action says, or nothing); a missing or empty `<action>` means
//! "do nothing": the environment's no-op, with no EXECUTION call.
//!
//! Decisions: the chat's `TIME t` is the environment step `t` (0 first); the chat keeps the
//! newest entries (the official cap drops the newest, freezing the chat on its first five
//! messages: a defect not copied); off Wildfire the own past-action record keeps the last
//! [`HISTORY_CAP`] entries to bound prompt growth.

use crate::PolicyOptions;
use std::collections::{BTreeMap, VecDeque};

use async_trait::async_trait;
use colony_env_api::{AgentId, DynEnvironment};
use minijinja::context;
use serde_json::json;

use super::framework::{self, Briefing, Opening};
use super::framework_step::{remember, FrameworkSteps, Stepped};
use super::tags::tag_content;
use super::{AgentView, CallLog, EmbodiedError, StepView};
use crate::reasoning::prompts::render;

/// `prompts/coela/message.jinja`: ProposeMessage (A.8).
pub const MESSAGE_PROMPT: &str = include_str!("../../../../prompts/coela/message.jinja");
/// `prompts/coela/action.jinja`: ChooseAction (A.9).
pub const ACTION_PROMPT: &str = include_str!("../../../../prompts/coela/action.jinja");

/// Messages the group chat keeps by default (WILDFIRE-ORCH `COELA/agent.py` `add_message`;
/// option `chat`, the paper's A.19 says 30).
pub const CHAT_CAP: usize = 5;
/// The token an action starts with (or holds) to send a message (WILDFIRE-ORCH
/// `COELA/__main__.py`).
pub const SEND_TOKEN: &str = "SEND_MESSAGE";
/// Entries of the own past-action record kept per agent (off Wildfire).
pub const HISTORY_CAP: usize = 30;

/// What an agent that sent a message did, in its past-action record.
const SENT: &str = "sent a message";
/// What the past-action record keeps for an agent whose action was not given.
const DO_NOTHING: &str = "do nothing";
/// What the send option shows when no message was proposed.
const NO_MESSAGE: &str = "(no message)";

/// The shared group chat: `(t, sender, message)`, oldest first, at most `cap` entries.
#[derive(Debug, Clone)]
pub struct GroupChat {
    cap: usize,
    messages: VecDeque<(u64, AgentId, String)>,
}

impl GroupChat {
    /// An empty chat keeping the `cap` most recent messages.
    pub fn new(cap: usize) -> Self {
        Self {
            cap,
            messages: VecDeque::new(),
        }
    }

    /// Appends a message, dropping the oldest ones beyond the cap.
    pub fn push(&mut self, t: u64, sender: AgentId, message: String) {
        self.messages.push_back((t, sender, message));
        while self.messages.len() > self.cap {
            self.messages.pop_front();
        }
    }

    /// The messages, oldest first.
    pub fn messages(&self) -> Vec<(u64, AgentId, String)> {
        self.messages.iter().cloned().collect()
    }

    /// Number of messages kept.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// True when no message was sent yet.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
}

/// The fallbacks and messages of an episode so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CoelaCounts {
    /// ProposeMessage replies without a `<message>` (nothing to send).
    pub missing_message: u64,
    /// ChooseAction replies without an `<action>` (the agent did nothing).
    pub missing_action: u64,
    /// Messages appended to the group chat.
    pub messages_sent: u64,
    /// ChooseAction replies that chose to send a message (sent or not).
    pub send_choices: u64,
}

/// The `coela` framework (see the module docs).
#[derive(Debug)]
pub struct Coela {
    chat: GroupChat,
    history: BTreeMap<AgentId, Vec<String>>,
    counts: CoelaCounts,
}

impl Coela {
    /// The fallbacks and messages counted so far in this episode.
    pub fn counts(&self) -> CoelaCounts {
        self.counts
    }

    /// The group chat as it is now.
    pub fn chat(&self) -> &GroupChat {
        &self.chat
    }
}

/// True when a chosen action sends a message: it holds [`SEND_TOKEN`] anywhere (as the
/// official code tests), or starts with `send message` in any case (leading quotes,
/// brackets and asterisks skipped, so `[send message to groupchat] …` counts too).
pub fn is_send_message(action: &str) -> bool {
    action.contains(SEND_TOKEN) || starts_with_send_words(skip_marks(action))
}

/// True when `text` starts with the words `send message` (any case) followed by the end or a
/// character that is not a letter or digit (`send messages to …` is an action, not a send).
fn starts_with_send_words(text: &str) -> bool {
    text.get(..12)
        .is_some_and(|head| head.eq_ignore_ascii_case("send message"))
        && !text[12..].starts_with(|c: char| c.is_alphanumeric())
}

fn skip_marks(text: &str) -> &str {
    text.trim_start_matches(|c: char| c.is_whitespace() || "'\"`[]*:".contains(c))
}

/// The text a sending action sends: the action without [`SEND_TOKEN`] (or a leading
/// `send message`, and a `[…]` label right after it), trimmed; `None` when nothing is left.
pub fn sent_text(action: &str) -> Option<String> {
    let mut t = action.replace(SEND_TOKEN, "");
    let head = skip_marks(&t);
    if starts_with_send_words(head) {
        let rest = &head[12..];
        // A short label closed by `]` right after the words (`… to groupchat]`) goes too.
        let rest = match rest.find(']') {
            Some(end) if end <= 20 && !rest[..end].contains('[') => &rest[end + 1..],
            _ => rest,
        };
        t = rest.to_string();
    }
    let t = t.trim();
    let t = t.strip_prefix("[]").unwrap_or(t);
    let t = t
        .trim_start_matches(|c: char| c.is_whitespace() || ":*".contains(c))
        .trim_end_matches(|c: char| c.is_whitespace() || c == '*');
    // The prompt's placeholder for a missing proposal is not a message.
    (!t.is_empty() && t != NO_MESSAGE).then(|| t.to_string())
}

/// `AGENT-TYPE` and `POSITION` of `agent`, when the environment profiles its agents
/// ([`colony_env_api::FrameworkBriefing::agent_profile`]; Wildfire does).
fn identity(env: &dyn DynEnvironment, agent: &str) -> (Option<String>, Option<String>) {
    env.briefing()
        .and_then(|b| b.agent_profile(agent))
        .map_or((None, None), |p| (Some(p.kind), Some(p.position)))
}

/// The parts both prompts of one agent share.
struct Context<'a> {
    name: String,
    kind: Option<String>,
    position: Option<String>,
    briefing: &'a Briefing,
    block: String,
    past_actions: String,
    abilities: String,
}

fn prompt(
    template: &'static str,
    c: &Context<'_>,
    chat: &str,
    message: &str,
) -> Result<String, EmbodiedError> {
    render(
        template,
        context! {
            name => c.name,
            kind => c.kind,
            position => c.position,
            team_composition => c.briefing.team_composition.trim_end(),
            task => c.briefing.task.trim_end(),
            block => c.block,
            chat => chat,
            past_actions => c.past_actions,
            abilities => c.abilities,
            message => message,
        },
    )
    .map_err(|e| EmbodiedError::config("coela", e))
}

#[async_trait]
impl FrameworkSteps for Coela {
    const NAME: &'static str = "coela";

    fn fresh(options: &mut PolicyOptions) -> Result<Self, EmbodiedError> {
        let chat = options.whole("chat", CHAT_CAP as u64, 1..=1000)?;
        Ok(Self {
            chat: GroupChat::new(chat as usize),
            history: BTreeMap::new(),
            counts: CoelaCounts::default(),
        })
    }

    async fn step(
        &mut self,
        view: &StepView,
        o: &Opening<'_>,
        calls: &mut Vec<CallLog>,
    ) -> Result<Option<Stepped>, EmbodiedError> {
        let live_ids: Vec<AgentId> = o.live.iter().map(|v| v.id.clone()).collect();

        let mut chat = self.chat.clone();
        let mut counts = self.counts;
        let mut record: Vec<(AgentId, &'static str, Option<String>)> = Vec::new();
        let mut to_execute: Vec<(AgentView, String)> = Vec::new();
        let mut sent = Vec::new();
        for a in view.deciding.iter().filter(|d| live_ids.contains(&d.id)) {
            let own = self.history.get(&a.id).map_or(&[][..], Vec::as_slice);
            let (kind, position) = identity(&*o.env, &a.id);
            let ctx = Context {
                name: o.names.name(&a.id),
                kind,
                position,
                briefing: &o.briefing,
                block: framework::agent_block(&o.names, a, o.perception(&a.id), &[], true),
                past_actions: framework::past_actions(&*o.env, &a.id, own),
                abilities: o.ability_bullets(&a.id),
            };
            let history = framework::chat_history(&o.names, &chat.messages());
            let p = prompt(MESSAGE_PROMPT, &ctx, &history, "")?;
            let log = o.ask(calls, a, "coela.message", p).await?;
            let message = log.reply.as_deref().and_then(|r| tag_content(r, "message"));
            calls.push(log);
            if message.is_none() {
                counts.missing_message += 1;
                tracing::debug!(step = o.step, agent = %a.id, "coela: no <message> proposed");
            }
            let offered = message.as_deref().unwrap_or(NO_MESSAGE);
            let p = prompt(ACTION_PROMPT, &ctx, &history, offered)?;
            let mut log = o.ask(calls, a, "coela.action", p).await?;
            let action = log.reply.as_deref().and_then(|r| tag_content(r, "action"));
            match action {
                Some(act) if is_send_message(&act) => {
                    counts.send_choices += 1;
                    if let Some(m) = sent_text(&act).or(message) {
                        counts.messages_sent += 1;
                        sent.push(json!({"agent": a.id, "message": m}));
                        chat.push(o.step, a.id.clone(), m);
                    }
                    record.push((a.id.clone(), SENT, None));
                }
                Some(act) => {
                    if a.execution.is_none() {
                        log.decides = true;
                    }
                    record.push((a.id.clone(), "", Some(act.clone())));
                    to_execute.push((a.clone(), act));
                }
                None => {
                    counts.missing_action += 1;
                    tracing::debug!(step = o.step, agent = %a.id, "coela: no <action>, the environment's no-op");
                    record.push((a.id.clone(), DO_NOTHING, None));
                }
            }
            calls.push(log);
        }
        let replies = o.execute_all(calls, to_execute).await?;

        self.chat = chat;
        self.counts = counts;
        for (agent, fixed, chosen) in record {
            remember(
                &mut self.history,
                &agent,
                chosen.as_deref().unwrap_or(fixed),
                HISTORY_CAP,
            );
        }
        let trace = Some(json!({
            "sent": sent,
            "chat_len": self.chat.len(),
            "missing_message": counts.missing_message,
            "missing_action": counts.missing_action,
            "messages_sent": counts.messages_sent,
        }));
        Ok(Some(Stepped { replies, trace }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embodied::framework_step::Framework;
    use crate::embodied::test_support::{first_view, pattern, script, wildfire_script};
    use crate::embodied::{CallerConfig, EmbodiedPolicy};

    #[test]
    fn the_chat_keeps_the_most_recent_messages() {
        for (cap, first) in [(CHAT_CAP, 35u64), (30, 10)] {
            let mut chat = GroupChat::new(cap);
            for i in 0..40u64 {
                chat.push(i, format!("{}", i % 3), format!("m{i}"));
            }
            let m = chat.messages();
            assert_eq!(chat.len(), cap);
            assert_eq!(m[0], (first, format!("{}", first % 3), format!("m{first}")));
            assert_eq!(m[cap - 1].2, "m39");
            assert!(m.windows(2).all(|w| w[0].0 < w[1].0));
        }
        let p = Framework::<Coela>::new(CallerConfig::default(), "chat=30").unwrap();
        assert_eq!(p.chat.cap, 30);
        let e = Framework::<Coela>::new(CallerConfig::default(), "chat=0").unwrap_err();
        assert!(
            e.to_string()
                .contains("`chat` must be a whole number in 1..=1000"),
            "{e}"
        );
    }

    #[test]
    fn the_sent_text_is_the_action_without_the_send_words() {
        for (action, sent) in [
            ("SEND_MESSAGE fire at (3, 4)", Some("fire at (3, 4)")),
            ("[SEND_MESSAGE] come help", Some("come help")),
            ("I SEND_MESSAGE: go north", Some("I : go north")),
            ("SEND MESSAGE on my way", Some("on my way")),
            ("[send message to groupchat] hi", Some("hi")),
            ("send message: [x] y", Some("[x] y")),
            ("SEND_MESSAGE", None),
            ("SEND_MESSAGE (no message)", None),
            ("send message é", Some("é")),
            ("**SEND MESSAGE**", None),
        ] {
            assert_eq!(sent_text(action).as_deref(), sent, "{action}");
        }
    }

    #[test]
    fn send_message_in_any_case_is_recognised() {
        for yes in [
            "SEND MESSAGE 'fire at (3, 4)'",
            "send message",
            "  Send Message: hi",
            "'SEND MESSAGE hi'",
            "[send message to groupchat] hi",
            "**SEND MESSAGE**",
            "SEND_MESSAGE hi",
            "I choose to SEND_MESSAGE now",
        ] {
            assert!(is_send_message(yes), "{yes}");
        }
        for no in [
            "move to (1, 2)",
            "send_message hi",
            "send messages to all: fire at (3, 4)",
            "Send Messageé",
            "sending a message",
            "send",
            "do nothing",
            "",
        ] {
            assert!(!is_send_message(no), "{no}");
        }
    }

    #[tokio::test]
    async fn wildfire_message_then_action_per_agent_and_sending_costs_the_step() {
        let lines = vec![
            (
                "1",
                0,
                "coela.message",
                "<message>fire near (3, 4)</message>",
            ),
            (
                "1",
                0,
                "coela.action",
                "<action>SEND_MESSAGE fire near (3, 4), come help</action>",
            ),
            ("2", 0, "coela.message", "<message>on my way<message>"),
            (
                "2",
                0,
                "coela.action",
                "<action>send message on my way</action>",
            ),
            (
                "3",
                0,
                "coela.message",
                "<reasoning>nothing to say</reasoning>",
            ),
            ("3", 0, "coela.action", "<reasoning>no tag</reasoning>"),
        ];
        let mut p = Framework::<Coela>::new(wildfire_script(&lines), "").unwrap();
        let d = p
            .decide(first_view("wildfire", &["level=1"]))
            .await
            .unwrap();
        let expected: Vec<(String, String)> = [
            ("1", "perception"),
            ("2", "perception"),
            ("3", "perception"),
            ("1", "coela.message"),
            ("1", "coela.action"),
            ("2", "coela.message"),
            ("2", "coela.action"),
            ("3", "coela.message"),
            ("3", "coela.action"),
        ]
        .iter()
        .map(|(a, p)| (a.to_string(), p.to_string()))
        .collect();
        assert_eq!(pattern(&d.calls), expected);
        // Agent 2 already sees agent 1's message of this step, and the send option.
        let prompt2 = &d.calls[5].messages.last().unwrap().content;
        // The action's own text is what is sent.
        assert!(
            prompt2.contains("TIME 0: AGENT_1: fire near (3, 4), come help"),
            "{prompt2}"
        );
        let action3 = &d.calls[8].messages.last().unwrap().content;
        assert!(action3.contains("- [SEND_MESSAGE] (no message)"));
        assert!(action3.contains("TIME 0: AGENT_2: on my way"));
        assert!(action3.lines().last().unwrap().starts_with("Reply with:"));
        // Senders and the agent without an action take the no-op: no EXECUTION call.
        assert!(d.replies.is_empty());
        assert!(d.calls[4].messages[0].content.contains("planning module"));
        assert_eq!(p.chat().len(), 2);
        assert_eq!(
            p.counts(),
            CoelaCounts {
                missing_message: 1,
                missing_action: 1,
                messages_sent: 2,
                send_choices: 2,
            }
        );
        let trace = p.take_trace().unwrap();
        assert_eq!(trace["sent"].as_array().unwrap().len(), 2);
    }

    #[tokio::test]
    async fn elsewhere_senders_and_silent_agents_are_left_out_of_the_replies() {
        let lines = [
            (
                "Agent_0",
                0,
                "coela.message",
                "<message>wall to the north</message>",
            ),
            (
                "Agent_0",
                0,
                "coela.action",
                "<action>Send Message now</action>",
            ),
            ("Agent_1", 0, "coela.message", "<message>ok</message>"),
            ("Agent_1", 0, "coela.action", "<action>ACTION: UP</action>"),
            ("Agent_2", 0, "coela.message", "<message>hi</message>"),
            ("Agent_2", 0, "coela.action", "<action></action>"),
        ];
        let mut p = Framework::<Coela>::new(script(&lines), "").unwrap();
        let view = first_view("swarmbench", &["agents=3"]);
        assert_eq!(view.deciding.len(), 3);
        let d = p.decide(view).await.unwrap();
        assert_eq!(d.calls.len(), 6, "no perception or execution call");
        assert_eq!(d.replies.len(), 1);
        assert_eq!(d.replies["Agent_1"], "ACTION: UP");
        assert!(d.calls[3].decides && !d.calls[1].decides && !d.calls[5].decides);
        assert_eq!(p.counts().missing_action, 1);
        assert_eq!(p.history["Agent_0"], vec![SENT.to_string()]);
        assert_eq!(p.history["Agent_1"], vec!["ACTION: UP".to_string()]);
        assert_eq!(p.history["Agent_2"], vec![DO_NOTHING.to_string()]);
        assert!(Framework::<Coela>::new(CallerConfig::default(), "x=1").is_err());
    }
}
