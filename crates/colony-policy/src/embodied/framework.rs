//! Shared machinery of the CREW-Wildfire coordination frameworks (docs/design/frameworks.md §14.1)
//! on every environment: agent names, per-agent tags, the per-step briefing (team
//! composition, task, abilities), agent blocks for prompts, perception of every live agent,
//! and execution of a chosen text action.
//!
//! What the placeholders of §11.3 mean per environment (decision; the paper defines them for
//! Wildfire only):
//! - **Wildfire:** as the spec says: `TEAM COMPOSITION`, `CURRENT TASK`, abilities per agent
//!   type come from the Wildfire crate's prompt builders; `PERCEPTION` is the PERCEPTION
//!   call's summary plus position and status; actions go through the EXECUTION call.
//! - **SwarmBench and CUBE:** the team is the list of agent names (one kind of agent);
//!   the task and abilities are the agent's own instructions from the environment (CUBE: the
//!   naive agent's rules, action vocabulary and reply format; SwarmBench: its system line,
//!   the task, rules and actions being part of every observation); `PERCEPTION` is the
//!   environment's observation text; a chosen action is the environment's reply text
//!   (SwarmBench `ACTION:`/`MSG:` lines, a CUBE plan), parsed by its lenient parser with no
//!   extra call.
//!
//! Prompt convention (so prompts stay readable and the offline simulated model can answer
//! them from the text alone, see [`super::framework_sim`]): every agent a prompt describes
//! is one block `<agent name="AGENT_k">` holding `<rules>` (its card where the environment
//! has one — who it is and what it can do, the team and task being stated once per prompt —
//! else its instructions) and
//! `<observation>` (its perception), plus status lines; the agent the prompt speaks to is
//! marked `self="true"`. The prompt's last line, `Reply with: …`, lists the tags to answer.

use std::collections::BTreeMap;
use std::sync::Arc;

use colony_env_api::{AgentId, DynEnvironment};
use futures::future::join_all;

use super::call_roles::call_role;
use super::caller::merge_failure;
use super::tags::TagText;
use super::{AgentView, CallLog, Caller, CallerSlot, EmbodiedError, StepView};

/// Framework names of the environment's agents: `AGENT_<k>` where `k` is the id itself when
/// it is a number (Wildfire `1…`, CUBE `0…`), else its index (SwarmBench `Agent_3` →
/// `AGENT_3`).
#[derive(Debug, Clone, Default)]
pub struct Names {
    by_id: BTreeMap<AgentId, String>,
    by_key: BTreeMap<String, AgentId>,
    order: Vec<AgentId>,
}

impl Names {
    /// Names for `agents`, in order.
    pub fn new(agents: &[AgentId]) -> Self {
        let mut n = Self::default();
        for (i, id) in agents.iter().enumerate() {
            let k = if id.chars().all(|c| c.is_ascii_digit()) && !id.is_empty() {
                id.clone()
            } else {
                i.to_string()
            };
            n.by_id.insert(id.clone(), format!("AGENT_{k}"));
            n.by_key.insert(k, id.clone());
            n.order.push(id.clone());
        }
        n
    }

    /// `AGENT_<k>` of `id` (the id itself if unknown).
    pub fn name(&self, id: &str) -> String {
        self.by_id
            .get(id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    /// The agent a name refers to: `AGENT_3`, `AGENT 3` or `agent_3` (§14.1); `None` for
    /// agents not in the team.
    pub fn id_of(&self, name: &str) -> Option<&AgentId> {
        let t = name.trim();
        let upper = t.to_ascii_uppercase();
        let k = upper
            .strip_prefix("AGENT_")
            .or_else(|| upper.strip_prefix("AGENT "))?;
        self.by_key.get(k.trim())
    }

    /// Every agent, in the environment's order.
    pub fn agents(&self) -> &[AgentId] {
        &self.order
    }

    /// The content of `<AGENT_k{suffix}>…` for every agent of the team, either name form and
    /// either closing form (§14.1); agents not in the team are ignored, empty tags are
    /// absent.
    pub fn per_agent(&self, text: &str, suffix: &str) -> BTreeMap<AgentId, String> {
        let mut out = BTreeMap::new();
        let text = TagText::new(text);
        for (id, name) in &self.by_id {
            let spaced = name.replacen('_', " ", 1);
            let found = text
                .get(&format!("{name}{suffix}"))
                .or_else(|| text.get(&format!("{spaced}{suffix}")));
            if let Some(v) = found {
                out.insert(id.clone(), v);
            }
        }
        out
    }
}

/// The texts every framework prompt shares at one step.
#[derive(Debug, Clone)]
pub struct Briefing {
    /// `TEAM COMPOSITION`.
    pub team_composition: String,
    /// `CURRENT TASK`.
    pub task: String,
    /// `LIST OF AGENT ABILITIES ON TEAM`.
    pub team_abilities: String,
    /// `N`.
    pub team_size: usize,
}

/// The briefing of `env` as it is now (see the module docs for what it means where).
pub fn briefing(env: &dyn DynEnvironment, names: &Names) -> Briefing {
    if let Some(b) = env.briefing().and_then(|b| b.team_briefing()) {
        return Briefing {
            team_composition: b.team_composition,
            task: b.task,
            team_abilities: b.team_abilities,
            team_size: b.team_size,
        };
    }
    let list: Vec<String> = names.agents().iter().map(|a| names.name(a)).collect();
    let first = names.agents().first().map(String::as_str).unwrap_or("");
    Briefing {
        team_composition: format!(
            "{} agents of one kind: {}. Each follows the rules in its own instructions.",
            list.len(),
            list.join(", ")
        ),
        task: env.instructions(first),
        team_abilities: "Every agent can take the actions its instructions and observation \
                         describe, written exactly in the format they ask for."
            .to_string(),
        team_size: list.len(),
    }
}

/// `AGENT ABILITIES` of one agent.
pub fn abilities(env: &dyn DynEnvironment, agent: &str) -> String {
    if let Some(abilities) = env.briefing().and_then(|b| b.agent_abilities(agent)) {
        return abilities;
    }
    "The actions your instructions and observation describe, written exactly in the format \
     they ask for."
        .to_string()
}

/// The text `agent` acts on after its PERCEPTION call answered `summary`
/// ([`colony_env_api::CallProtocol::perceived_text`]); the summary itself when the environment
/// has no such protocol.
pub fn perceived_text(env: &dyn DynEnvironment, agent: &str, summary: &str) -> String {
    env.calls()
        .map_or_else(|| summary.to_string(), |c| c.perceived_text(agent, summary))
}

/// An owned view of any agent of the snapshot (not only the deciding ones).
pub fn agent_view(env: &dyn DynEnvironment, id: &str) -> Result<AgentView, EmbodiedError> {
    Ok(AgentView {
        id: id.to_string(),
        instructions: env.instructions(id),
        card: env.briefing().and_then(|b| b.agent_card(id)),
        observation: env.observe_text(id)?,
        perception_prompt: env.calls().and_then(|c| c.perception_prompt(id)),
        execution: env.calls().and_then(|c| c.execution_prompter(id)),
        neighbours: Vec::new(),
        feedback: None,
        reply_schema: None,
    })
}

/// Views of the agents that take part this step (§14.1 step 1): on environments with a
/// PERCEPTION module the agents that have a perception prompt (live, not passengers),
/// elsewhere those with a non-empty observation (SwarmBench's escaped agents have none).
/// The loop's views of the deciding agents are reused, so each observation is rendered
/// once per step.
pub fn live_views(
    env: &dyn DynEnvironment,
    deciding: &[AgentView],
) -> Result<Vec<AgentView>, EmbodiedError> {
    let mut views = Vec::new();
    for id in env.agents() {
        match deciding.iter().find(|d| d.id == id) {
            Some(d) => views.push(d.clone()),
            None => views.push(agent_view(env, &id)?),
        }
    }
    let has_perception = views.iter().any(|v| v.perception_prompt.is_some());
    views.retain(|v| {
        if has_perception {
            v.perception_prompt.is_some()
        } else {
            !v.observation.is_empty()
        }
    });
    Ok(views)
}

/// One agent block of a prompt (see the module docs).
pub fn agent_block(
    names: &Names,
    view: &AgentView,
    perception: &str,
    status: &[(&str, String)],
    is_self: bool,
) -> String {
    let mut out = format!(
        "<agent name=\"{}\"{}>\n<rules>\n{}\n</rules>\n<observation>\n{}\n</observation>\n",
        names.name(&view.id),
        if is_self { " self=\"true\"" } else { "" },
        view.card
            .as_deref()
            .unwrap_or(&view.instructions)
            .trim_end(),
        perception.trim_end()
    );
    for (k, v) in status {
        out.push_str(&format!("{k}: {v}\n"));
    }
    out.push_str("</agent>");
    out
}

/// The agent blocks of one step's global state (CAMON's GlobalData, HMAS-2's GLOBAL STATE),
/// each rendered once per step in both forms, plain and marked as the prompt's own agent, so
/// every agent's prompt is a single join instead of re-rendering all N blocks (N² blocks per
/// step made 10-agent SwarmBench prompts the bulk of the orchestration CPU).
#[derive(Debug, Clone, Default)]
pub struct AgentBlocks {
    ids: Vec<AgentId>,
    plain: Vec<String>,
    own: Vec<String>,
}

impl AgentBlocks {
    /// Blocks of `agents` in order: (view, perception, status lines) each.
    pub fn new<'a>(
        names: &Names,
        agents: impl IntoIterator<Item = (&'a AgentView, &'a str, &'a [(&'a str, String)])>,
    ) -> Self {
        let mut b = Self::default();
        for (view, perception, status) in agents {
            b.ids.push(view.id.clone());
            b.plain
                .push(agent_block(names, view, perception, status, false));
            b.own
                .push(agent_block(names, view, perception, status, true));
        }
        b
    }

    /// Renders `view`'s block again (the agent's entry changed within the step); an agent
    /// without a block is ignored.
    pub fn replace(
        &mut self,
        names: &Names,
        view: &AgentView,
        perception: &str,
        status: &[(&str, String)],
    ) {
        if let Some(i) = self.ids.iter().position(|id| *id == view.id) {
            self.plain[i] = agent_block(names, view, perception, status, false);
            self.own[i] = agent_block(names, view, perception, status, true);
        }
    }

    /// Every block joined by newlines, `me`'s (if any) marked `self="true"`.
    pub fn for_agent(&self, me: Option<&str>) -> String {
        let len: usize = self.plain.iter().map(|b| b.len() + 1).sum::<usize>() + 16;
        let mut out = String::with_capacity(len);
        for (i, id) in self.ids.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let block = if me == Some(id.as_str()) {
                &self.own[i]
            } else {
                &self.plain[i]
            };
            out.push_str(block);
        }
        out
    }
}

/// Perceptions of `agents` (§14.1 step 3), in parallel: a PERCEPTION call where the
/// environment has one (purpose `perception`; `system` in place of the agent's instructions
/// when given), else the observation text.
pub async fn perceive(
    caller: &Caller,
    env: &Arc<dyn DynEnvironment + Sync>,
    step: u64,
    agents: &[AgentView],
    system: Option<&str>,
) -> Result<(BTreeMap<AgentId, String>, Vec<CallLog>), EmbodiedError> {
    let results = join_all(agents.iter().map(|a| async move {
        match &a.perception_prompt {
            Some(prompt) => {
                let log = caller
                    .ask_as(step, a, "perception", system, prompt.clone())
                    .await?;
                Ok(vec![log])
            }
            None => Ok(Vec::new()),
        }
    }))
    .await;
    let logs = merge_failure(step, results)?;
    let mut out = BTreeMap::new();
    for a in agents {
        let text = match logs.iter().find(|l| l.agent == a.id) {
            Some(l) => perceived_text(&**env, &a.id, l.reply.as_deref().unwrap_or("")),
            None => a.observation.clone(),
        };
        out.insert(a.id.clone(), text);
    }
    Ok((out, logs))
}

/// What every framework step starts from (§14.1 steps 1–2): the environment snapshot, the
/// agents' names, the live agents' views, the episode's caller, each live agent's perception
/// (with the perception calls made for it) and the shared briefing.
pub struct Opening<'a> {
    /// The step's read-only environment copy.
    pub env: Arc<dyn DynEnvironment + Sync>,
    /// Environment steps taken so far.
    pub step: u64,
    /// Names of all agents.
    pub names: Names,
    /// Views of the agents that take part ([`live_views`]).
    pub live: Vec<AgentView>,
    /// The caller, with an actor for every live agent.
    pub caller: &'a Caller,
    /// Perception text per live agent ([`perceive`]).
    pub perceptions: BTreeMap<AgentId, String>,
    /// The perception calls (the step's first calls).
    pub calls: Vec<CallLog>,
    /// The shared texts of this step's prompts.
    pub briefing: Briefing,
}

/// Opens a framework step for `policy` (see [`Opening`]). With no live agent it makes no call.
pub async fn open_step<'a>(
    policy: &str,
    slot: &'a mut CallerSlot,
    view: &StepView,
) -> Result<Opening<'a>, EmbodiedError> {
    let env = view.snapshot(policy)?;
    let names = Names::new(&view.agents);
    let live = live_views(&*env, &view.deciding)?;
    let caller = slot.caller(view.seed, &view.agents, &live)?;
    let role = call_role("perception");
    let (perceptions, calls) = perceive(caller, &env, view.step, &live, role).await?;
    let briefing = briefing(&*env, &names);
    Ok(Opening {
        env,
        step: view.step,
        names,
        live,
        caller,
        perceptions,
        calls,
        briefing,
    })
}

/// The prompt of the execution call a structured framework adds on an environment without an
/// EXECUTION call of its own (docs/design/tools.md §8); `{action}` is the chosen text action.
pub const STRUCTURED_EXECUTION: &str = "Your chosen action is: {action}\n\nReply with exactly \
     this action, written as the JSON object the response format describes, and nothing else.";

/// Turns a chosen text action of `agent` into the reply its environment parses: the EXECUTION
/// call where the environment has one (purpose `execution`, §11.2; `system` in place of the
/// agent's instructions when given), else the text itself. The returned call, if any, is
/// marked as the one whose reply became the action.
///
/// Decision (docs/design/tools.md §8): a policy running structured on an environment without
/// an EXECUTION call (CUBE, SwarmBench) gets one, with [`STRUCTURED_EXECUTION`] as its
/// prompt: the planning and dialogue calls keep their own tagged formats, and only the call
/// whose reply becomes the action is constrained to the environment's reply schema, as on
/// Wildfire. It costs one more call per deciding agent and step, which the call log shows
/// under purpose `execution`.
pub async fn execute(
    caller: &Caller,
    step: u64,
    agent: &AgentView,
    action: &str,
    system: Option<&str>,
) -> Result<(String, Option<CallLog>), EmbodiedError> {
    match &agent.execution {
        Some(prompter) => {
            // The EXECUTION reply is the action: constrained to the environment's schema when
            // the policy runs structured.
            let mut log = caller
                .ask_action(step, agent, "execution", system, prompter(action))
                .await?;
            log.decides = true;
            Ok((log.reply.clone().unwrap_or_default(), Some(log)))
        }
        None if agent.reply_schema.is_some() => {
            let prompt = STRUCTURED_EXECUTION.replace("{action}", action);
            let mut log = caller
                .ask_action(step, agent, "execution", system, prompt)
                .await?;
            log.decides = true;
            Ok((log.reply.clone().unwrap_or_default(), Some(log)))
        }
        None => Ok((action.to_string(), None)),
    }
}

/// Executes several (agent, action) pairs in parallel; returns the replies per agent and the
/// calls, in the given order.
pub async fn execute_all(
    caller: &Caller,
    step: u64,
    actions: Vec<(AgentView, String)>,
    system: Option<&str>,
) -> Result<(BTreeMap<AgentId, String>, Vec<CallLog>), EmbodiedError> {
    let results = join_all(actions.iter().map(|(view, action)| async move {
        let (reply, log) = execute(caller, step, view, action, system).await?;
        Ok::<_, EmbodiedError>((view.id.clone(), reply, log))
    }))
    .await;
    let mut replies = BTreeMap::new();
    let mut staged = Vec::new();
    for r in results {
        match r {
            Ok((id, reply, log)) => {
                replies.insert(id, reply);
                staged.push(Ok(log.into_iter().collect()));
            }
            Err(e) => staged.push(Err(e)),
        }
    }
    let logs = merge_failure(step, staged)?;
    Ok((replies, logs))
}

/// `PAST ACTIONS` of one agent: on Wildfire the descriptions of its completed primitives
/// (the environment keeps them), elsewhere the framework's own record `own` of the actions
/// it chose for the agent, oldest first; "None" when empty.
pub fn past_actions(env: &dyn DynEnvironment, agent: &str, own: &[String]) -> String {
    match env.briefing().and_then(|b| b.agent_history(agent)) {
        Some(history) => history,
        None => own_past_actions(own),
    }
}

/// `PAST ACTIONS` from a framework's own record `own` of the actions it chose for an agent,
/// oldest first, numbered; "None" when empty.
pub fn own_past_actions(own: &[String]) -> String {
    if own.is_empty() {
        return "None".into();
    }
    own.iter()
        .enumerate()
        .map(|(k, a)| format!("{}. {}", k + 1, a.replace('\n', " ")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` on one line: every whitespace run becomes one space (how plans, actions and chat
/// lines are quoted inside other prompts).
pub fn one_line(text: &str) -> String {
    one_line_prefix(text, usize::MAX)
}

/// The first `max` characters of [`one_line`]`(text)`, with `…` appended when it is longer;
/// only the part kept is scanned, so summarising a long observation costs its prefix.
pub fn one_line_prefix(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut n = 0usize;
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            if n == max {
                out.push('…');
                return out;
            }
            out.push(' ');
            n += 1;
        }
        for c in word.chars() {
            if n == max {
                out.push('…');
                return out;
            }
            out.push(c);
            n += 1;
        }
    }
    out
}

/// A chat history as §11.3 writes it: `TIME t: AGENT_k: message`, oldest first; "None" when
/// empty.
pub fn chat_history(names: &Names, messages: &[(u64, AgentId, String)]) -> String {
    if messages.is_empty() {
        return "None".into();
    }
    messages
        .iter()
        .map(|(t, from, m)| format!("TIME {t}: {}: {m}", names.name(from)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Adds the step's calls made so far to a failed call's error (every framework's steps make
/// several calls; a failure must carry them all into the episode's call log).
pub(crate) fn with_calls(e: EmbodiedError, calls: &mut Vec<CallLog>) -> EmbodiedError {
    match e {
        EmbodiedError::Call {
            step,
            source,
            calls: mut failed,
        } => {
            calls.append(&mut failed);
            EmbodiedError::Call {
                step,
                source,
                calls: std::mem::take(calls),
            }
        }
        other => other,
    }
}

/// Refuses options for a policy that takes none (`swarmsys:x=1` is a typo, not a setting).
pub(crate) fn no_options(policy: &str, options: &str) -> Result<(), EmbodiedError> {
    // The one parser: it names the key and says that the policy takes none.
    crate::PolicyOptions::parse(policy, options)?.read(|_| Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_tags_and_unknown_agents() {
        let n = Names::new(&["Agent_0".into(), "Agent_1".into()]);
        assert_eq!(n.name("Agent_1"), "AGENT_1");
        assert_eq!(n.id_of("AGENT 1").map(String::as_str), Some("Agent_1"));
        assert_eq!(n.id_of("agent_0").map(String::as_str), Some("Agent_0"));
        assert_eq!(n.id_of("AGENT_7"), None);
        let text = "<AGENT_0>go up</AGENT_0><AGENT 1>stay<AGENT 1><AGENT_9>x</AGENT_9>";
        let tags = n.per_agent(text, "");
        assert_eq!(tags.len(), 2);
        assert_eq!(tags["Agent_0"], "go up");
        assert_eq!(tags["Agent_1"], "stay");
        let w = Names::new(&["1".into(), "2".into()]);
        assert_eq!(w.name("2"), "AGENT_2");
        let pairs = w.per_agent("<AGENT_2-action>cut</AGENT_2-action>", "-action");
        assert_eq!(pairs["2"], "cut");
    }

    #[test]
    fn one_line_collapses_and_cuts_at_the_prefix() {
        assert_eq!(one_line("  a\n\n b\tc  "), "a b c");
        assert_eq!(one_line_prefix("ab  cd ef", 5), "ab cd…");
        assert_eq!(one_line_prefix("ab  cd", 5), "ab cd");
        assert_eq!(one_line_prefix("ab  cd ", 5), "ab cd");
        assert_eq!(one_line_prefix("abcdef", 3), "abc…");
        assert_eq!(one_line_prefix("", 3), "");
        for (text, max) in [("x  y\nzz  w", 4), ("héllo wörld", 7), ("a b", 1)] {
            let full = one_line(text);
            let mut want: String = full.chars().take(max).collect();
            if full.chars().count() > max {
                want.push('…');
            }
            assert_eq!(one_line_prefix(text, max), want, "{text:?} {max}");
        }
    }
}
