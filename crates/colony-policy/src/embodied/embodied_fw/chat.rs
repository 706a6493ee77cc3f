//! The chats of the `embodied` framework (docs/design/frameworks.md §14.4) and the parser of
//! GenerateMessages replies.

use std::collections::BTreeMap;

use colony_env_api::AgentId;

use crate::embodied::framework::{self, Names};
use crate::embodied::tags::tag_content;

/// One chat entry: `(t_sent, sender, text)`.
pub type Entry = (u64, AgentId, String);

/// Every agent's chats (see the module docs).
#[derive(Debug, Clone)]
pub struct ChatStore {
    lifespan: u64,
    /// owner → other agent → entries, oldest first.
    private: BTreeMap<AgentId, BTreeMap<AgentId, Vec<Entry>>>,
    /// owner → its GLOBAL chat, oldest first.
    global: BTreeMap<AgentId, Vec<Entry>>,
}

impl ChatStore {
    /// Empty chats whose messages live `lifespan` steps.
    pub fn new(lifespan: u64) -> Self {
        Self {
            lifespan,
            private: BTreeMap::new(),
            global: BTreeMap::new(),
        }
    }

    /// A private message: appended to `from`'s chat with `to` and `to`'s chat with `from`.
    pub fn send_private(&mut self, t: u64, from: &str, to: &str, text: &str) {
        for (owner, other) in [(from, to), (to, from)] {
            self.private
                .entry(owner.to_string())
                .or_default()
                .entry(other.to_string())
                .or_default()
                .push((t, from.to_string(), text.to_string()));
        }
    }

    /// A global message: appended to the GLOBAL chat of every agent of `team`.
    pub fn send_global(&mut self, t: u64, from: &str, text: &str, team: &[AgentId]) {
        for owner in team {
            self.global.entry(owner.clone()).or_default().push((
                t,
                from.to_string(),
                text.to_string(),
            ));
        }
    }

    /// Drops the messages expired at the start of step `now` (sent at `t0` with
    /// `t0 + lifespan <= now`); returns how many entries went.
    pub fn purge(&mut self, now: u64) -> usize {
        let lifespan = self.lifespan;
        let mut dropped = 0;
        let mut keep = |v: &mut Vec<Entry>| {
            let before = v.len();
            v.retain(|(t0, _, _)| t0.saturating_add(lifespan) > now);
            dropped += before - v.len();
        };
        for chats in self.private.values_mut() {
            chats.values_mut().for_each(&mut keep);
            chats.retain(|_, v| !v.is_empty());
        }
        self.private.retain(|_, c| !c.is_empty());
        self.global.values_mut().for_each(&mut keep);
        self.global.retain(|_, v| !v.is_empty());
        dropped
    }

    /// `owner`'s private chat with `other`, oldest first.
    pub fn private_chat(&self, owner: &str, other: &str) -> &[Entry] {
        self.private
            .get(owner)
            .and_then(|c| c.get(other))
            .map_or(&[], Vec::as_slice)
    }

    /// `owner`'s GLOBAL chat, oldest first.
    pub fn global_chat(&self, owner: &str) -> &[Entry] {
        self.global.get(owner).map_or(&[], Vec::as_slice)
    }

    /// Entries of every chat (a message to k counts twice, a global one once per agent).
    pub fn len(&self) -> usize {
        let p: usize = self
            .private
            .values()
            .flat_map(|c| c.values())
            .map(Vec::len)
            .sum();
        p + self.global.values().map(Vec::len).sum::<usize>()
    }

    /// True when no chat holds a message.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `CHAT HISTORY` of `owner`: its GLOBAL chat, then each non-empty private chat in team
    /// order, lines `TIME t: AGENT_k: message`.
    pub fn render(&self, owner: &str, names: &Names) -> String {
        let mut out = format!(
            "GLOBAL:\n{}",
            framework::chat_history(names, self.global_chat(owner))
        );
        for other in names.agents().iter().filter(|o| o.as_str() != owner) {
            let chat = self.private_chat(owner, other);
            if !chat.is_empty() {
                out.push_str(&format!(
                    "\n\nPrivate with {}:\n{}",
                    names.name(other),
                    framework::chat_history(names, chat)
                ));
            }
        }
        out
    }
}

/// A message's text: cut at the next tag of the reply format (see the module docs).
fn clip(message: &str) -> Option<String> {
    let lower = message.to_ascii_lowercase();
    let end = ["<agent", "</agent", "<global", "</global", "<reasoning"]
        .iter()
        .filter_map(|t| lower.find(t))
        .min()
        .unwrap_or(message.len());
    let m = message[..end].trim();
    (!m.is_empty()).then(|| m.to_string())
}

/// `reply` without its `<reasoning>` blocks (parsers ignore them, §11), each closed by
/// `</reasoning>` or a repeated `<reasoning>` (§14.1); an unclosed one is kept.
pub fn without_reasoning(reply: &str) -> String {
    const OPEN: &str = "<reasoning>";
    const CLOSE: &str = "</reasoning>";
    let mut out = String::with_capacity(reply.len());
    let mut rest = reply;
    loop {
        // Lowercasing ASCII keeps byte offsets, so they index the original text.
        let lower = rest.to_ascii_lowercase();
        let Some(at) = lower.find(OPEN) else {
            out.push_str(rest);
            return out;
        };
        let body = &lower[at + OPEN.len()..];
        let end = [(body.find(CLOSE), CLOSE), (body.find(OPEN), OPEN)]
            .into_iter()
            .filter_map(|(i, tag)| i.map(|i| i + tag.len()))
            .min();
        out.push_str(&rest[..at]);
        match end {
            Some(e) => rest = &rest[at + OPEN.len() + e..],
            None => {
                out.push_str(&rest[at..]);
                return out;
            }
        }
    }
}

/// The messages of a GenerateMessages reply (reasoning ignored): private ones per recipient
/// (team agents only, in team order) and the global one.
pub fn parse_messages(names: &Names, reply: &str) -> (Vec<(AgentId, String)>, Option<String>) {
    let reply = &without_reasoning(reply);
    let private = names
        .per_agent(reply, "")
        .into_iter()
        .filter_map(|(to, m)| clip(&m).map(|m| (to, m)))
        .collect();
    (private, tag_content(reply, "GLOBAL").and_then(|m| clip(&m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's A.19 lifespan, which this test's arithmetic is written for.
    const LIFESPAN: u64 = 3;

    fn team() -> Vec<AgentId> {
        ["1", "2", "3"].iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn private_lands_in_both_chats_global_in_everyones_and_expires_at_t0_plus_3() {
        let mut c = ChatStore::new(LIFESPAN);
        c.send_private(5, "1", "2", "meet at (3, 4)");
        c.send_global(6, "3", "fire north", &team());
        assert_eq!(c.private_chat("1", "2"), c.private_chat("2", "1"));
        assert_eq!(c.private_chat("2", "1")[0].1, "1");
        assert!(c.private_chat("1", "3").is_empty() && c.private_chat("3", "1").is_empty());
        for a in team() {
            assert_eq!(
                c.global_chat(&a),
                &[(6, "3".to_string(), "fire north".to_string())]
            );
        }
        assert_eq!(c.len(), 5);
        let names = Names::new(&team());
        let r = c.render("2", &names);
        assert!(r.contains("GLOBAL:\nTIME 6: AGENT_3: fire north"), "{r}");
        assert!(
            r.contains("Private with AGENT_1:\nTIME 5: AGENT_1: meet at (3, 4)"),
            "{r}"
        );
        assert!(!c.render("3", &names).contains("Private"));
        // Sent at 5: visible at 5, 6, 7; gone at the start of 8. Sent at 6: gone at 9.
        assert_eq!(c.purge(7), 0);
        assert_eq!(c.purge(8), 2);
        assert!(c.private_chat("1", "2").is_empty());
        assert_eq!(c.global_chat("1").len(), 1);
        assert_eq!(c.purge(9), 3);
        assert!(c.is_empty());
        assert_eq!(
            ChatStore::new(LIFESPAN).render("1", &names),
            "GLOBAL:\nNone"
        );
        // The default (WILDFIRE-ORCH): sent at 5, visible at 5 and 6, gone at the start of 7.
        let mut c = ChatStore::new(super::super::LIFESPAN);
        c.send_private(5, "1", "2", "x");
        assert_eq!(c.purge(6), 0);
        assert_eq!(c.purge(7), 2);
    }

    #[test]
    fn messages_parse_both_forms_and_ignore_unknown_agents() {
        let names = Names::new(&team());
        let reply = "<reasoning>to AGENT_2</reasoning><AGENT 2>go east<AGENT 2>\
                     <AGENT_9>who?</AGENT_9><AGENT_3>cut here\n<GLOBAL>all hands</GLOBAL>";
        let (private, global) = parse_messages(&names, reply);
        assert_eq!(
            private,
            vec![
                ("2".into(), "go east".into()),
                ("3".into(), "cut here".into())
            ]
        );
        assert_eq!(global.as_deref(), Some("all hands"));
        assert_eq!(parse_messages(&names, "<GLOBAL> </GLOBAL>"), (vec![], None));
        let thinking = "<REASONING>maybe <GLOBAL>x</GLOBAL></Reasoning><AGENT_1>hi</AGENT_1>";
        assert_eq!(without_reasoning(thinking), "<AGENT_1>hi</AGENT_1>");
        assert_eq!(without_reasoning("a<reasoning>b"), "a<reasoning>b");
        assert_eq!(
            without_reasoning("<reasoning>x<REASONING><GLOBAL>go</GLOBAL>"),
            "<GLOBAL>go</GLOBAL>"
        );
        assert_eq!(
            parse_messages(&names, thinking),
            (vec![("1".into(), "hi".into())], None)
        );
    }
}
