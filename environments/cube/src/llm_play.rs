//! CUBE's side of the opt-in "LLM play" methods of `Environment` for the paper's naive
//! language agent (docs/design/cube.md §12.2): the instructions (system prompt), the lenient reply
//! parser with per-action feedback, and the outcomes of an agent's previous plan for its next
//! observation.
//!
//! The episode loop of the library asks every agent whose plan is exhausted
//! ([`CubeEnv::deciding_agents`](colony_env_api::Environment::deciding_agents)) for a plan with
//! two messages: system = [`naive_agent_instructions`], user = the observation text plus the
//! feedback of the previous reply. The simulated agent ([`crate::sim_agent`]) recognises this
//! prompt by its first line ([`is_naive_agent_prompt`]).

use colony_env_api::ParsedReply;
use serde_json::Value;

use crate::executor::{Executor, HistoryEntry};
use crate::plan_parser::{limit_llm_plan, parse_plan, MAX_LLM_PLAN};
use crate::symbolic::{CubeAction, SymbolicCall};

/// The naive-agent instructions template (design §12.2 "Prompt content", in our own words):
/// rules, action vocabulary, strategy hint, reply format. Placeholders: `{agent}` (the
/// agent's name, `agent_<i>`) and `{max_actions}` ([`MAX_LLM_PLAN`]).
pub const NAIVE_AGENT_TEMPLATE: &str = include_str!("../prompts/naive_agent.txt");

/// The first line of [`NAIVE_AGENT_TEMPLATE`]: it identifies a CUBE naive-agent prompt
/// (design §12.2; used by the simulated agent, `EnvEntry::simulated_reply`).
pub fn naive_agent_header() -> &'static str {
    NAIVE_AGENT_TEMPLATE.lines().next().unwrap_or_default()
}

/// Whether `system` is a CUBE naive-agent system prompt (its first line is
/// [`naive_agent_header`]).
pub fn is_naive_agent_prompt(system: &str) -> bool {
    system.lines().next().map(str::trim) == Some(naive_agent_header().trim())
}

/// The name of an agent in prompts: `agent_<i>` for an index, the id itself otherwise
/// (design §1: names `agent_0 …` in text interfaces).
pub fn agent_name(agent: &str) -> String {
    match agent.parse::<usize>() {
        Ok(i) => format!("agent_{i}"),
        Err(_) => agent.to_string(),
    }
}

/// The system prompt of the naive language agent for `agent` (design §12.2): the rules, the
/// seven symbolic actions with their arguments (§9.2), the paper's strategy hint, the agent's
/// name and the reply format (a JSON array of at most [`MAX_LLM_PLAN`] actions, or one call
/// per line).
pub fn naive_agent_instructions(agent: &str) -> String {
    NAIVE_AGENT_TEMPLATE
        .replace("{agent}", &agent_name(agent))
        .replace("{max_actions}", &MAX_LLM_PLAN.to_string())
}

/// The lenient reply parser of the naive agent (design §12.2, `parse_llm_plan` semantics) for a
/// `k × k` grid. The plan is the first JSON array of action objects or strings in the reply;
/// without one, the lines that look like calls (`name(…)`, possibly numbered or bulleted).
/// **Decision:** other lines (reasoning, prose, code fences) are ignored rather than reported
/// as invalid actions, since the format allows a line of reasoning. At most three valid
/// actions are kept (the rest are ignored and mentioned in the feedback); invalid actions are
/// dropped, each named with its reason in `feedback`, and set `fallback`; an empty or
/// unreadable plan becomes `[idle(1)]` and sets `fallback`.
pub fn parse_plan_reply(text: &str, k: u32) -> ParsedReply<CubeAction> {
    let body = plan_body(text);
    let mut plan = parse_plan(&body, k);
    let empty = plan.calls.is_empty();
    let ignored = limit_llm_plan(&mut plan);
    let mut feedback = Vec::new();
    let mut fallback = Vec::new();
    for e in &plan.errors {
        feedback.push(format!(
            "Dropped action {} ({}): {}.",
            e.index, e.text, e.message
        ));
    }
    if !plan.errors.is_empty() {
        fallback.push(format!("dropped {} invalid action(s)", plan.errors.len()));
    }
    if ignored > 0 {
        feedback.push(format!(
            "Only the first {MAX_LLM_PLAN} actions of a plan are used; {ignored} more were ignored."
        ));
    }
    if empty {
        let why = if !plan.errors.is_empty() {
            "no valid action in the reply"
        } else if text.trim().is_empty() {
            "empty reply"
        } else {
            "no plan found in the reply"
        };
        feedback.push(format!(
            "Your reply had no valid action ({why}), so you idled for one step. Reply with a JSON array of actions."
        ));
        fallback.push(format!("{why}: idle(1)"));
    }
    ParsedReply {
        action: CubeAction::Plan(plan.calls),
        feedback: (!feedback.is_empty()).then(|| feedback.join("\n")),
        fallback: (!fallback.is_empty()).then(|| fallback.join("; ")),
    }
}

/// The part of a reply that holds the plan (see [`parse_plan_reply`]).
fn plan_body(text: &str) -> String {
    if let Some(array) = first_action_array(text) {
        return array.to_string();
    }
    let t = text.trim();
    if t.starts_with('{') && serde_json::from_str::<Value>(t).is_ok() {
        return t.to_string();
    }
    t.lines()
        .map(|l| l.trim().trim_matches('`'))
        .filter(|l| looks_like_call(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first `[…]` in `text` that is a JSON array whose items are all objects or strings
/// (trailing text after it is allowed); at most 64 opening brackets are tried.
fn first_action_array(text: &str) -> Option<&str> {
    for (start, _) in text.match_indices('[').take(64) {
        let rest = &text[start..];
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        if let Some(Ok(Value::Array(items))) = stream.next() {
            if items.iter().all(|i| i.is_object() || i.is_string()) {
                return Some(&rest[..stream.byte_offset()]);
            }
        }
    }
    None
}

/// `name(` after optional numbering or bullets.
fn looks_like_call(line: &str) -> bool {
    let l = line.trim_start_matches(|c: char| {
        c.is_ascii_digit() || matches!(c, '.' | '-' | '*' | ')') || c.is_whitespace()
    });
    let name_len = l
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(l.len());
    name_len > 0 && l[name_len..].trim_start().starts_with('(')
}

/// The outcomes of the actions of `agent`'s most recent plan that have ended, as a prompt
/// section (`your previous plan:` then one line per action), or `None` before its first
/// ended action. **Decision** (design §12.2 "reported in the next prompt"): the observation's
/// history window covers only the last 10 steps, so outcomes of a long plan's first actions
/// would be lost; this section keeps them all.
pub fn previous_plan_outcomes(exec: &Executor, agent: usize) -> Option<String> {
    let mut ends: Vec<&HistoryEntry> = Vec::new();
    for h in exec.history.iter().rev() {
        if h.agent != agent || h.status != "end" {
            continue;
        }
        if ends
            .last()
            .is_some_and(|last| h.plan_index >= last.plan_index)
        {
            break;
        }
        ends.push(h);
        if h.plan_index == 0 {
            break;
        }
    }
    if ends.is_empty() {
        return None;
    }
    let mut s = String::from("your previous plan:\n");
    for h in ends.iter().rev() {
        let call = SymbolicCall {
            action: h.action.clone(),
            args: h.args.clone(),
        };
        s.push_str(&format!(
            "  #{} {call} ended at step {}: {}\n",
            h.plan_index,
            h.step,
            h.outcome.as_deref().unwrap_or("?")
        ));
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(p: &ParsedReply<CubeAction>) -> Vec<String> {
        match &p.action {
            CubeAction::Plan(c) => c.iter().map(ToString::to_string).collect(),
            other => vec![format!("not a plan: {other:?}")],
        }
    }

    #[test]
    fn reasoning_lines_and_brackets_in_prose_are_not_actions() {
        let p = parse_plan_reply(
            "I am at (3,0) [normal]; block 1 is closest.\n[{\"action\": \"idle\", \"args\": {\"steps\": 2}}]\nDone [ok].",
            20,
        );
        assert_eq!(calls(&p), ["idle(steps=2)"]);
        assert_eq!((p.feedback, p.fallback), (None, None));
        let p = parse_plan_reply(
            "Plan:\n1. move_to_block(block=2, face=\"left\")\n2. push_block(block=2, steps=3)",
            20,
        );
        assert_eq!(
            calls(&p),
            [
                "move_to_block(block=2, face=left)",
                "push_block(block=2, steps=3)"
            ]
        );
        assert!(p.fallback.is_none());
    }

    #[test]
    fn call_detection() {
        assert!(looks_like_call("  - idle(1)"));
        assert!(looks_like_call("move (up, 2)"));
        assert!(!looks_like_call("I will move (carefully)."));
        assert!(!looks_like_call("```json"));
    }
}
