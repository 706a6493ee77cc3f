//! The offline simulated model's answers to framework prompts (CAMON, COELA, Embodied,
//! HMAS-2): it reads only the prompt, as an LLM would, following the convention of
//! [`super::framework`]: agent blocks `<agent name="AGENT_k">` with `<rules>` and
//! `<observation>`, and a last line `Reply with: …` naming the tags to answer.
//!
//! An agent's action comes from the environment's own simulated agent
//! ([`colony_env_api::EnvEntry::simulated_reply`] of the first of the registry's environments
//! that recognises the block) asked with that agent's rules and observation, so a
//! framework run on the simulated model plays as well as the environment's simulated agents
//! do (an expert's action with probability `accuracy`, else a random legal one). Messages
//! are short and plausible; reviews accept with probability `accuracy`; feedback accepts.

use colony_env_api::policy::splitmix64;
use colony_env_api::EnvEntry;

use super::tags::tag_content;

/// One agent block of a prompt.
struct Block<'a> {
    name: &'a str,
    is_self: bool,
    rules: &'a str,
    observation: &'a str,
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(text[start..end].trim_matches('\n'))
}

fn blocks(text: &str) -> Vec<Block<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("<agent name=\"") {
        let after = &rest[at + "<agent name=\"".len()..];
        let Some(q) = after.find('"') else { break };
        let name = &after[..q];
        let Some(end) = after.find("</agent>") else {
            break;
        };
        let body = &after[..end];
        let head_end = body.find('>').unwrap_or(0);
        out.push(Block {
            name,
            is_self: body[..head_end].contains("self=\"true\""),
            rules: between(body, "<rules>\n", "\n</rules>").unwrap_or(""),
            observation: between(body, "<observation>\n", "\n</observation>").unwrap_or(""),
        });
        rest = &after[end..];
    }
    out
}

/// The action part of an environment-native reply: the `<action>` tag when there is one
/// (Wildfire), else the reply without its first (reasoning) line.
fn action_part(native: &str) -> String {
    if let Some(a) = tag_content(native, "action") {
        return a;
    }
    let lines: Vec<&str> = native.lines().collect();
    if lines.len() > 1 {
        lines[1..].join("\n").trim().to_string()
    } else {
        native.trim().to_string()
    }
}

/// The environment's simulated agent's action for block `b`: asked with the block's rules,
/// and when those are a card (the team and task stated once elsewhere in the prompt), with the
/// whole prompt `context` after them.
fn expert_action(
    envs: &[&'static dyn EnvEntry],
    b: &Block<'_>,
    context: &str,
    accuracy: f64,
    draw: u64,
) -> Option<String> {
    let ask = |rules: &str| {
        envs.iter()
            .find_map(|e| e.simulated_reply(rules, b.observation, accuracy, draw))
    };
    ask(b.rules)
        .or_else(|| ask(&format!("{}\n\n{context}", b.rules)))
        .map(|r| action_part(&r))
}

fn unit(draw: &mut u64) -> f64 {
    (splitmix64(draw) >> 11) as f64 / (1u64 << 53) as f64
}

fn message(name: &str, draw: &mut u64) -> String {
    const TEMPLATES: [&str; 4] = [
        "{n} here: I am on my way, follow the plan.",
        "{n}: I will handle the closest target; someone cover the rest.",
        "{n}: progress is good, keep going.",
        "{n}: I need help near my position.",
    ];
    let t = TEMPLATES[(splitmix64(draw) % TEMPLATES.len() as u64) as usize];
    t.replace("{n}", name)
}

/// The first `AGENT_<k>` the prompt names that is not `me`.
fn first_other_name(user: &str, me: &str) -> Option<String> {
    let mut rest = user;
    while let Some(at) = rest.find("AGENT_") {
        let tail = &rest[at + "AGENT_".len()..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        let name = &rest[at..at + "AGENT_".len() + digits];
        if digits > 0 && name != me {
            return Some(name.to_string());
        }
        rest = &tail[digits..];
    }
    None
}

/// The simulated reply to a framework prompt, or `None` when `user` is not one; agents'
/// actions come from the simulated agents of `envs`.
pub fn simulated_framework_reply(
    envs: &[&'static dyn EnvEntry],
    user: &str,
    accuracy: f64,
    draw: u64,
) -> Option<String> {
    let format_line = user.lines().rev().find(|l| l.starts_with("Reply with:"))?;
    let all = blocks(user);
    let mut rng = draw;
    let me = all
        .iter()
        .find(|b| b.is_self)
        .or(if all.len() == 1 { all.first() } else { None });
    let my_name = me.map_or("AGENT", |b| b.name);
    let mut out =
        String::from("<reasoning>I read the situation and choose accordingly.</reasoning>\n");
    if format_line.contains("<decision>") {
        let accept = unit(&mut rng) < accuracy;
        out.push_str(if accept {
            "<decision>ACCEPT</decision>\n"
        } else {
            "<decision>REJECT</decision>\n"
        });
    }
    if format_line.contains("<feedback>") {
        out.push_str("<feedback>ACCEPT</feedback>\n");
    }
    if format_line.contains("<action>") {
        // A review rewrites the proposer's action: the proposer is the block marked self.
        let b = me?;
        let a = expert_action(envs, b, user, accuracy, splitmix64(&mut rng))?;
        out.push_str(&format!("<action>{a}</action>\n"));
    }
    if format_line.contains("<message>") {
        out.push_str(&format!(
            "<message>{}</message>\n",
            message(my_name, &mut rng)
        ));
    }
    if format_line.contains("<AGENT_k>action</AGENT_k>") {
        for b in &all {
            let a = expert_action(envs, b, user, accuracy, splitmix64(&mut rng))?;
            out.push_str(&format!("<{0}>{a}</{0}>\n", b.name));
        }
    }
    if format_line.contains("<AGENT_k>message</AGENT_k>") {
        // Talk to one teammate now and then, and sometimes to everyone: the first teammate
        // the prompt names (a block, or the list of recipients).
        let other = all
            .iter()
            .find(|b| !b.is_self && b.name != my_name)
            .map(|b| b.name.to_string())
            .or_else(|| first_other_name(user, my_name));
        if let Some(other) = other {
            if unit(&mut rng) < 0.5 {
                out.push_str(&format!(
                    "<{0}>{1}</{0}>\n",
                    other,
                    message(my_name, &mut rng)
                ));
            }
        }
    }
    if format_line.contains("<GLOBAL>") && unit(&mut rng) < 0.5 {
        out.push_str(&format!(
            "<GLOBAL>{}</GLOBAL>\n",
            message(my_name, &mut rng)
        ));
    }
    Some(out)
}

/// The framework prompts' responder (CAMON, COELA, Embodied, HMAS-2). Calls carry their
/// purpose (`camon.propose`, …), and [`FrameworkResponder::first`] owns the four frameworks'
/// purposes, so it alone answers them. A request without a purpose (from outside the process,
/// through `serve-mock`) is told apart by reading: framework prompts carry an environment's
/// instructions as their system prompt, so an environment's own simulated agent would claim
/// them; their last line, `Reply with: …`, decides. Registered twice by `Registry::builtin`:
/// [`FrameworkResponder::first`] before the environments (it claims prompts ending in
/// `Reply with:`), [`FrameworkResponder::fallback`] after them (it answers what no environment
/// claimed).
#[derive(Clone)]
pub struct FrameworkResponder {
    first: bool,
    environments: Vec<&'static dyn EnvEntry>,
}

/// The call purposes of the four frameworks' prompts (`camon.propose`, `hmas2.plan`, …).
const FRAMEWORK_PURPOSES: [&str; 4] = ["camon", "coela", "embodied", "hmas2"];

impl FrameworkResponder {
    /// Asked before the environments: claims prompts whose last line is `Reply with: …`;
    /// agents' actions come from the simulated agents of `environments`.
    pub fn first(environments: &[&'static dyn EnvEntry]) -> Self {
        Self {
            first: true,
            environments: environments.to_vec(),
        }
    }

    /// Asked after the environments: answers any framework prompt left.
    pub fn fallback(environments: &[&'static dyn EnvEntry]) -> Self {
        Self {
            first: false,
            environments: environments.to_vec(),
        }
    }
}

impl colony_llm::responder::Responder for FrameworkResponder {
    fn name(&self) -> &str {
        if self.first {
            "frameworks"
        } else {
            "frameworks (fallback)"
        }
    }

    fn purposes(&self) -> &[&str] {
        if self.first {
            &FRAMEWORK_PURPOSES
        } else {
            &[]
        }
    }

    fn prompt(&self, p: &colony_llm::responder::Prompt<'_>) -> colony_llm::responder::Response {
        use colony_llm::responder::{owns, Response};
        let reply = || simulated_framework_reply(&self.environments, p.user, p.accuracy, p.draw);
        if !self.first {
            return reply().map_or(Response::Pass, Response::Reply);
        }
        let tagged = p
            .purpose
            .is_some_and(|purpose| FRAMEWORK_PURPOSES.iter().any(|o| owns(o, purpose)));
        if tagged {
            return reply().map_or(Response::Claimed, Response::Reply);
        }
        let is_framework = p
            .user
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.starts_with("Reply with:"));
        if !is_framework {
            return Response::Pass;
        }
        reply().map_or(Response::Claimed, Response::Reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_reply_tags() {
        let prompt = "Task.\n<agent name=\"AGENT_1\" self=\"true\">\n<rules>\nR\n</rules>\n<observation>\nO\n</observation>\nPosition: (1, 2)\n</agent>\n<agent name=\"AGENT_2\">\n<rules>\nR2\n</rules>\n<observation>\nO2\n</observation>\n</agent>\nReply with: <reasoning>…</reasoning> <decision>ACCEPT or REJECT</decision> <message>…</message>";
        let b = blocks(prompt);
        assert_eq!(b.len(), 2);
        assert!(b[0].is_self && !b[1].is_self);
        assert_eq!((b[1].rules, b[1].observation), ("R2", "O2"));
        let r = simulated_framework_reply(&[], prompt, 1.0, 3).unwrap();
        assert!(
            r.contains("<decision>ACCEPT</decision>") && r.contains("<message>AGENT_1"),
            "{r}"
        );
        assert_eq!(
            simulated_framework_reply(&[], "no format line", 1.0, 3),
            None
        );
        assert_eq!(
            action_part("think\nACTION: UP\nMSG: hi"),
            "ACTION: UP\nMSG: hi"
        );
        assert_eq!(
            action_part("<reasoning>x</reasoning><action>move to (1, 2)</action>"),
            "move to (1, 2)"
        );
    }
}
