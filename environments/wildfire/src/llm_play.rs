//! The text side of "LLM play" for `wildfire-v0` (docs/design/wildfire.md §11,
//! docs/design/frameworks.md §14.1): the system prompt an agent
//! acts under, the text it acts on after PERCEPTION, and the lenient reader of EXECUTION
//! replies. [`crate::env`] wires these into the `Environment` trait's opt-in methods; the
//! colony library's policies drive them (one PERCEPTION, one act and one EXECUTION call per
//! deciding agent and step).
//!
//! The act reply format (a free `<reasoning>…</reasoning>` block, then exactly one
//! `<action>…</action>`) follows §11's "every output starts with a free reasoning block" and
//! §14.1's tag conventions, so the CREW frameworks can reuse the same instructions.

use colony_env_api::ParsedReply;

use crate::primitive::{parse_action_code, translate, validate, Primitive, WildfireAction};
use crate::prompts;
use crate::state::WildfireState;

/// The reply-format paragraph closing every act system prompt (§11, §14.1 tag convention);
/// simulated agents recognise act prompts by it.
pub const ACT_FORMAT: &str = "Reply with a free <reasoning>…</reasoning> block, then exactly one <action>…</action> block holding one natural-language action from your abilities with explicit whole-number target coordinates, for example <action>move to (12, 7)</action>.";

/// The header of the past-actions part of [`perceived_text`] (§11.3 `PAST ACTIONS`).
pub const PAST_ACTIONS_HEADER: &str = "Past actions:\n";

/// The header of the abilities list in [`instructions`] and [`agent_card`]; simulated agents
/// recognise a card by it.
pub const ABILITIES_HEADER: &str = "Your abilities (one per action):\n";

/// Who agent index `i` is: its name, type and the map it acts on (the first paragraph of
/// [`instructions`] and of [`agent_card`]).
fn identity(s: &WildfireState, i: usize) -> String {
    let a = &s.agents[i];
    let m = s.grid.size.saturating_sub(1);
    format!(
        "You are {name}, a {kind} agent in a team of agents fighting wildfires in a grid forest world of {dims} cells (x: [0, {m}], y: [0, {m}]); (0, 0) is the top corner, north is toward y = 0 and east toward larger x.\n",
        name = a.name(),
        kind = a.kind.name(),
        dims = prompts::map_dimensions(s),
    )
}

/// The system prompt of agent index `i` (§11.3 placeholders): who it is (`AGENT_<id>`, its
/// type), the map size, the team composition, the current task (§11.4), its abilities and the
/// act reply format [`ACT_FORMAT`].
pub fn instructions(s: &WildfireState, i: usize) -> String {
    format!(
        "{identity}\n\
         Team composition:\n{team}\n\
         Current task: {task}\n\n\
         {ABILITIES_HEADER}{abilities}\n\
         Each turn you receive your perception of the surroundings, your position, your status and your past actions. Choose your next action; it runs until it completes, then you choose again.\n\
         {ACT_FORMAT}\n",
        identity = identity(s, i),
        team = prompts::team_composition(s),
        task = prompts::task_description(s),
        abilities = prompts::agent_abilities(s.agents[i].kind),
    )
}

/// Agent index `i`'s card for framework prompts that describe several agents
/// ([`colony_env_api::FrameworkBriefing::agent_card`]): [`instructions`] without the team-wide
/// parts (team composition, task, reply format), which those prompts state once. WILDFIRE-ORCH's
/// framework prompts carry each agent's abilities and nothing more of its instructions; the
/// identity line is kept so a reader knows whose abilities these are.
pub fn agent_card(s: &WildfireState, i: usize) -> String {
    format!(
        "{}\n{ABILITIES_HEADER}{}",
        identity(s, i),
        prompts::agent_abilities(s.agents[i].kind).trim_end()
    )
}

/// The text agent index `i` acts on after its PERCEPTION call answered `summary` (§11.3
/// `PERCEPTION` and `PAST ACTIONS`): the summary, position and status lines, then its
/// completed primitives.
pub fn perceived_text(s: &WildfireState, i: usize, summary: &str) -> String {
    format!(
        "{}{PAST_ACTIONS_HEADER}{}",
        prompts::perception(s, i, summary.trim()),
        prompts::past_actions(s, i)
    )
}

/// Removes `<reasoning>…</reasoning>` blocks, which parsers ignore (§11).
pub fn strip_reasoning(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<reasoning>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</reasoning>") {
            Some(end) => rest = &rest[start + end + "</reasoning>".len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The lenient reading of an EXECUTION reply of agent index `i` (§10 validation, §11.2): the
/// reasoning block is ignored, and anything unparsable or invalid for the agent's kind becomes
/// type 0 `ERROR EXECUTING: <text>`, reported as the fallback with feedback for the agent's
/// next act prompt. After the episode ended (§12.4) the reply is not read: do nothing.
pub fn parse_reply(s: &WildfireState, i: usize, text: &str) -> ParsedReply<WildfireAction> {
    let nothing = WildfireAction::Primitive(Primitive::do_nothing());
    if s.terminated || s.truncated {
        return ParsedReply {
            action: nothing,
            feedback: None,
            fallback: Some(format!(
                "the episode ended at step {}; the reply was not executed",
                s.step
            )),
        };
    }
    let Some(a) = s.agents.get(i) else {
        return ParsedReply {
            action: nothing,
            feedback: None,
            fallback: Some(format!("no agent with index {i}")),
        };
    };
    let size = s.grid.size as u32;
    let text = strip_reasoning(text);
    let checked = parse_action_code(&text)
        .map_err(|e| e.to_string())
        .and_then(|p| validate(&p, a.kind, size).map_err(|e| e.to_string()));
    match checked {
        Ok(p) => ParsedReply::ok(WildfireAction::Primitive(p)),
        Err(why) => {
            let m = size.saturating_sub(1);
            ParsedReply {
                action: WildfireAction::Primitive(translate(&text, a.kind, size)),
                feedback: Some(format!(
                    "Your previous action could not be executed ({why}), so you did nothing for one step. \
                     Choose exactly one action from your abilities, with whole-number coordinates inside x: [0, {m}], y: [0, {m}]."
                )),
                fallback: Some(why),
            }
        }
    }
}
