//! What teaches the offline [`super::SimulatedModel`] the prompts of policies and environments
//! it does not know: responders, registered by the layers that own those prompts.
//!
//! Decision (docs/design/architecture.md §2): `llm` is the bottom layer, so it defines the trait and
//! the chain ([`Responders`]), and imports nothing from `policy` or `env`. Each policy or
//! environment implements its responder next to its own prompts; the open registry
//! (`colony::registry::Registry::responders`) assembles the chain, built-ins first, in
//! registration order, and the door (the CLI, a suite, a test) hands it to each simulated model
//! it builds ([`super::SimulatedConfig::responders`]). There is no process-wide chain: two
//! registries in one process teach their own models.
//!
//! A responder is chosen by the call's purpose, a stable tag the policy sets on the request
//! ([`crate::ChatRequest::purpose`]; `dylan.rank`, `camon.propose`), not by the prompt's
//! wording: a responder declares the purposes it owns ([`Responder::purposes`]; `dylan` owns
//! `dylan` and every `dylan.…`), and a call whose purpose some responder owns is answered by
//! those responders only, so rewording a template cannot hand its prompt to another family's
//! parser. The chosen responder still reads the prompt to build its reply, as an LLM would.
//! Two kinds of call go to every responder in order, each recognising its own prompts: calls
//! without a purpose (requests reaching `serve-mock` from outside the process) and calls whose
//! purpose no responder owns (an environment's native `perception`/`execution` prompts, which
//! every environment's simulated agent shares and tells apart by the observation it reads).

use std::sync::Arc;

/// A question-answering turn of the answer key: the simulated agent has settled on `answer`
/// and written its ordinary reply `body`; a responder may rewrite the reply into the format a
/// policy's machine-read turn asks for (a rating, a verdict, a ranking).
pub struct KeyedTurn<'a> {
    /// The user message that holds the question.
    pub user: &'a str,
    /// The answer the simulated agent settled on.
    pub answer: &'a str,
    /// Its ordinary reasoning reply.
    pub body: &'a str,
    /// How the simulated model reads the answer a text states.
    pub extract: &'a dyn Fn(&str) -> Option<String>,
    /// The call's purpose tag, if the caller set one.
    pub purpose: Option<&'a str>,
}

/// A prompt that is not in the answer key (an environment's or a framework's).
pub struct Prompt<'a> {
    /// The system message (empty when there is none).
    pub system: &'a str,
    /// The last user message.
    pub user: &'a str,
    /// The chance of the expert's reply.
    pub accuracy: f64,
    /// The request's draw (all randomness of the reply comes from it).
    pub draw: u64,
    /// The call's purpose tag, if the caller set one.
    pub purpose: Option<&'a str>,
}

/// A responder's answer to a [`Prompt`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    /// Not this responder's prompt: ask the next one.
    Pass,
    /// The reply.
    Reply(String),
    /// This responder's prompt, but no reply: stop asking (the model's generic reply follows).
    Claimed,
}

/// Teaches the simulated model one family of prompts.
pub trait Responder: Send + Sync {
    /// Its name (diagnostics).
    fn name(&self) -> &str;

    /// The call purposes it owns: `dylan` owns `dylan` and every `dylan.…`. Calls with an
    /// owned purpose are answered by their owners only (see the module docs); a responder that
    /// owns none is asked for calls no responder owns.
    fn purposes(&self) -> &[&str] {
        &[]
    }

    /// The reply to a keyed question turn, or `None` to leave `body` (the default).
    fn keyed(&self, turn: &KeyedTurn<'_>) -> Option<String> {
        let _ = turn;
        None
    }

    /// The reply to a prompt outside the answer key; [`Response::Pass`] by default.
    fn prompt(&self, prompt: &Prompt<'_>) -> Response {
        let _ = prompt;
        Response::Pass
    }
}

/// The chain of responders one simulated model asks, in order (see the module docs); cheap to
/// clone and share. Empty by default: such a model answers only its answer key and generic
/// text.
#[derive(Clone, Default)]
pub struct Responders(Arc<[Arc<dyn Responder>]>);

impl Responders {
    /// The chain `responders`, asked in this order.
    pub fn new(responders: Vec<Arc<dyn Responder>>) -> Self {
        Self(responders.into())
    }

    /// The responders, in the order they are asked.
    pub fn as_slice(&self) -> &[Arc<dyn Responder>] {
        &self.0
    }

    /// The first keyed rewrite of the responders chosen for the turn's purpose, if any; when
    /// the purpose's owners leave the turn alone (an ordinary answer turn of their policy), the
    /// responders that own no purpose are asked next, so the answer's own format (a code
    /// item's fenced block) applies inside every policy.
    pub fn keyed_reply(&self, turn: &KeyedTurn<'_>) -> Option<String> {
        let chosen = chosen(&self.0, turn.purpose);
        if let Some(reply) = chosen.iter().find_map(|r| r.keyed(turn)) {
            return Some(reply);
        }
        // Owners were asked alone only when there are owners, and none of them owns nothing.
        let owners_only = chosen.iter().all(|r| !r.purposes().is_empty());
        self.0
            .iter()
            .filter(|r| owners_only && r.purposes().is_empty())
            .find_map(|r| r.keyed(turn))
    }

    /// The reply of the first responder chosen for the prompt's purpose that claims it.
    pub fn prompt_reply(&self, prompt: &Prompt<'_>) -> Option<String> {
        for r in chosen(&self.0, prompt.purpose) {
            match r.prompt(prompt) {
                Response::Pass => continue,
                Response::Reply(text) => return Some(text),
                Response::Claimed => return None,
            }
        }
        None
    }
}

impl std::fmt::Debug for Responders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|r| r.name()))
            .finish()
    }
}

/// Whether the owned purpose `owned` covers `purpose`: equal, or `purpose` continues it after
/// a dot (`dylan` covers `dylan.rank`, not `dylanx`).
pub fn owns(owned: &str, purpose: &str) -> bool {
    purpose
        .strip_prefix(owned)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The responders asked for a call with `purpose`, in order (see the module docs).
pub fn chosen<'r>(
    all: &'r [Arc<dyn Responder>],
    purpose: Option<&str>,
) -> Vec<&'r Arc<dyn Responder>> {
    let owners: Vec<&Arc<dyn Responder>> = match purpose {
        Some(p) => all
            .iter()
            .filter(|r| r.purposes().iter().any(|o| owns(o, p)))
            .collect(),
        None => Vec::new(),
    };
    if owners.is_empty() {
        all.iter().collect()
    } else {
        owners
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Owner(&'static str, &'static [&'static str]);

    impl Responder for Owner {
        fn name(&self) -> &str {
            self.0
        }

        fn purposes(&self) -> &[&str] {
            self.1
        }

        fn prompt(&self, _: &Prompt<'_>) -> Response {
            Response::Reply(self.0.to_string())
        }

        /// Rewrites a keyed turn only when its answer names this responder.
        fn keyed(&self, t: &KeyedTurn<'_>) -> Option<String> {
            (t.answer == self.0).then(|| format!("{} by {}", t.body, self.0))
        }
    }

    #[test]
    fn a_keyed_turn_its_owners_leave_alone_goes_to_the_responders_owning_nothing() {
        let all = Responders::new(vec![
            Arc::new(Owner("reader", &[])),
            Arc::new(Owner("dylan", &["dylan"])),
        ]);
        let extract = |_: &str| None;
        let turn = |answer: &'static str, purpose: Option<&'static str>| KeyedTurn {
            user: "q",
            answer,
            body: "body",
            extract: &extract,
            purpose,
        };
        // The owner's own rewrite wins for its purpose.
        assert_eq!(
            all.keyed_reply(&turn("dylan", Some("dylan.rank")))
                .as_deref(),
            Some("body by dylan")
        );
        // The owner leaves the turn alone: the responder owning nothing rewrites it.
        assert_eq!(
            all.keyed_reply(&turn("reader", Some("dylan.rank")))
                .as_deref(),
            Some("body by reader")
        );
        // Without owners everyone is asked once; nobody rewrites this one.
        assert_eq!(all.keyed_reply(&turn("other", None)), None);
        assert_eq!(
            all.keyed_reply(&turn("reader", None)).as_deref(),
            Some("body by reader")
        );
    }

    fn names(chosen: Vec<&Arc<dyn Responder>>) -> Vec<&str> {
        chosen.into_iter().map(|r| r.name()).collect()
    }

    #[test]
    fn a_purpose_picks_its_owners_and_anything_else_asks_everyone() {
        let all: Vec<Arc<dyn Responder>> = vec![
            Arc::new(Owner("reader", &[])),
            Arc::new(Owner("dylan", &["dylan", "agentverse"])),
            Arc::new(Owner("vote", &["demo_vote"])),
        ];
        assert_eq!(names(chosen(&all, Some("dylan.rank"))), ["dylan"]);
        assert_eq!(names(chosen(&all, Some("agentverse"))), ["dylan"]);
        assert_eq!(names(chosen(&all, Some("demo_vote.judge"))), ["vote"]);
        // A purpose nobody owns, a prefix that is not a dotted parent, and no purpose at all:
        // every responder, in registration order.
        for purpose in [Some("perception"), Some("dylanx"), None] {
            assert_eq!(
                names(chosen(&all, purpose)),
                ["reader", "dylan", "vote"],
                "{purpose:?}"
            );
        }
        assert!(owns("hmas2", "hmas2.plan") && owns("hmas2", "hmas2"));
        assert!(!owns("hmas2", "hmas2plan") && !owns("hmas2.plan", "hmas2"));
    }
}
