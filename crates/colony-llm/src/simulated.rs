//! `SimulatedModel`: a seeded, offline stand-in for an LLM.
//!
//! It implements the probabilistic model of SelfOrg §2.6 (docs/design/selforg.md §1.16): on a QA
//! prompt whose question is in the [`AnswerKey`], an agent is correct with probability
//! `accuracy`, otherwise it picks one of `wrong_answers` wrong candidates (equally likely by
//! default, Zipf-skewed with `wrong_skew > 0`). The candidates depend only on the question, so
//! agents share them and their errors can collide, as in the paper's Lemma 1.
//!
//! Peer influence follows the spec's "adoption model": when the prompt already contains
//! answers (`The answer is X` or `\boxed{X}` in any non-system message), the model copies the
//! most frequent of them (first seen on ties) with probability `susceptibility`, and answers
//! independently otherwise. With a correct peer answer the solve rate becomes
//! `s + (1 − s)·p`; `p = 0.49, s = 0.4` gives 0.69, the paper's measured 49% → 69%.
//!
//! Replies are answer-dominated reasoning text ending in `The answer is X.`, so embeddings
//! cluster by answer. Everything is a pure function of (seed, model name, request): the same
//! request gives the same reply, different `sample_index` values give independent draws
//! (except at temperature 0, which is greedy and ignores the sample index). Latency is reported
//! as zero so runs are bit-reproducible.
//!
//! Prompts outside the answer key, and the machine-read turns of some policies, are answered
//! by the responders of its [`SimulatedConfig::responders`] chain ([`super::responder`]):
//! colony's commands hand every simulated model the chain of their registry
//! (`colony::registry::Registry::responders`); a program that builds a `SimulatedModel` by
//! hand passes the chain of the registry it runs with.
//!
//! Scripted mode returns canned replies in order (cycling), for tests ([`super::ScriptedModel`]).

use std::time::Duration;

use async_trait::async_trait;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::answer_key::normalize;
use super::reply_limits::apply_limits;
use super::responder::Responders;
use super::scripted::{ScriptedModel, ScriptedReply};
use super::simulated_tools::tool_call;
use super::{
    approx_prompt_tokens, approx_tokens, AnswerKey, ChatModel, ChatRequest, ChatResponse,
    FinishReason, ModelError, Role, ToolCall, Usage,
};
use crate::stable_hash::StableHasher;

/// Settings of a [`SimulatedModel`].
#[derive(Debug, Clone)]
pub struct SimulatedConfig {
    /// Model id reported in responses.
    pub name: String,
    /// Seed of every draw.
    pub seed: u64,
    /// Probability `p` of answering a known question correctly.
    pub accuracy: f64,
    /// Probability of adopting the peer answers present in the prompt.
    pub susceptibility: f64,
    /// Number `K` of distinct wrong answers per question.
    pub wrong_answers: usize,
    /// Zipf exponent of the wrong-answer distribution (0 = uniform, the dispersed default).
    pub wrong_skew: f64,
    /// Question → gold answer.
    pub answer_key: AnswerKey,
    /// What teaches it the prompts outside the answer key (empty: none).
    pub responders: Responders,
}

impl Default for SimulatedConfig {
    fn default() -> Self {
        Self {
            name: "sim".to_string(),
            seed: 0,
            accuracy: 0.6,
            susceptibility: 0.4,
            wrong_answers: 10,
            wrong_skew: 0.0,
            answer_key: AnswerKey::new(),
            responders: Responders::default(),
        }
    }
}

enum Mode {
    Simulated(SimulatedConfig),
    Scripted(ScriptedModel),
}

/// The offline, seeded model (see the module docs).
pub struct SimulatedModel {
    mode: Mode,
}

impl std::fmt::Debug for SimulatedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimulatedModel")
            .field("id", &self.id())
            .finish()
    }
}

impl SimulatedModel {
    /// A simulated model with the given settings.
    pub fn new(config: SimulatedConfig) -> Self {
        Self {
            mode: Mode::Simulated(config),
        }
    }

    /// A model that returns `replies` in call order, cycling; an empty list is an error on call.
    /// (The scripted mode is a [`ScriptedModel`] of text replies.)
    pub fn scripted(name: &str, replies: Vec<String>) -> Self {
        Self {
            mode: Mode::Scripted(ScriptedModel::new(
                name,
                replies.into_iter().map(ScriptedReply::text).collect(),
            )),
        }
    }

    fn reply_text(&self, cfg: &SimulatedConfig, request: &ChatRequest) -> String {
        let mut rng = ChaCha8Rng::seed_from_u64(request_seed(cfg, request));
        let question = request
            .messages
            .iter()
            .rev()
            .filter(|m| m.role == Role::User)
            .find_map(|m| cfg.answer_key.lookup_entry(&m.content).map(|e| (m, e)));
        let Some((question_msg, entry)) = question else {
            return embodied_reply(cfg, request)
                .unwrap_or_else(|| generic_reply(&cfg.name, request));
        };
        let (question, gold) = (entry.question, entry.gold);
        let peers: Vec<String> = request
            .messages
            .iter()
            .filter(|m| m.role != Role::System)
            .flat_map(|m| {
                if std::ptr::eq(m, question_msg) {
                    // Remove the question itself, keeping line breaks when it appears verbatim.
                    let rest = if m.content.contains(question) {
                        m.content.replacen(question, " ", 1)
                    } else {
                        normalize(&m.content).replacen(question, " ", 1)
                    };
                    extract_answers(&rest)
                } else {
                    extract_answers(&m.content)
                }
            })
            .filter(|a| !is_placeholder(a))
            .collect();
        // Draw every uniform in a fixed order so one decision does not shift the others.
        let (u_adopt, u_correct, u_wrong, u_style) = (
            rng.random::<f64>(),
            rng.random::<f64>(),
            rng.random::<f64>(),
            rng.random::<u32>(),
        );
        let answer = if !peers.is_empty() && u_adopt < cfg.susceptibility {
            plurality(&peers)
        } else if u_correct < cfg.accuracy {
            gold.to_string()
        } else {
            let candidates = wrong_candidates(gold, entry.options, cfg.wrong_answers, cfg.seed);
            pick_skewed(&candidates, cfg.wrong_skew, u_wrong)
        };
        let body = reasoning_text(&answer, u_style);
        // SwarmSys validator and mode-B explorer turns, DyLAN ratings and rankings, and
        // AgentVerse recruiting, critics and evaluators ask for machine-read lines.
        // The policies that own those prompts teach them through their responders.
        let extract = |t: &str| extract_answers(t).pop();
        cfg.responders
            .keyed_reply(&super::responder::KeyedTurn {
                user: &question_msg.content,
                answer: &answer,
                body: &body,
                extract: &extract,
                purpose: request.purpose.as_deref(),
            })
            .unwrap_or(body)
    }
}

#[async_trait]
impl ChatModel for SimulatedModel {
    fn id(&self) -> &str {
        match &self.mode {
            Mode::Simulated(c) => &c.name,
            Mode::Scripted(m) => m.id(),
        }
    }

    fn simulated(&self) -> bool {
        matches!(self.mode, Mode::Simulated(_))
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let text = match &self.mode {
            Mode::Simulated(cfg) => {
                // The draw is hashed only when tools are offered: plain calls pay nothing.
                let call = (!request.tools.is_empty())
                    .then(|| tool_call(request_seed(cfg, request), request))
                    .flatten();
                if let Some(call) = call {
                    return Ok(self.tool_call_response(request, call));
                }
                let text = self.reply_text(cfg, request);
                match &request.response_format {
                    Some(format) => super::simulated_structured::structured_reply(
                        &text,
                        format,
                        request_seed(cfg, request),
                    ),
                    None => text,
                }
            }
            Mode::Scripted(m) => return m.chat(request).await,
        };
        let (text, finish_reason) = apply_limits(text, request);
        Ok(ChatResponse {
            usage: Usage {
                prompt_tokens: approx_prompt_tokens(&request.messages),
                completion_tokens: approx_tokens(&text),
                ..Usage::default()
            },
            text,
            finish_reason,
            latency: Duration::ZERO,
            model: self.id().to_string(),
            retries: 0,
            cached: false,
            tool_calls: Vec::new(),
            tool_trace: Vec::new(),
        })
    }
}

impl SimulatedModel {
    /// A reply that calls `call` (no text, `finish_reason: tool_calls`).
    fn tool_call_response(&self, request: &ChatRequest, call: ToolCall) -> ChatResponse {
        ChatResponse {
            usage: Usage {
                prompt_tokens: approx_prompt_tokens(&request.messages),
                completion_tokens: approx_tokens(&call.name) + approx_tokens(&call.arguments),
                ..Usage::default()
            },
            text: String::new(),
            finish_reason: FinishReason::ToolCalls,
            latency: Duration::ZERO,
            model: self.id().to_string(),
            retries: 0,
            cached: false,
            tool_calls: vec![call],
            tool_trace: Vec::new(),
        }
    }
}

/// Seed of one request: the model seed, the name and every field that changes the answer
/// (tool fields only when present, so draws without tools are unchanged).
fn request_seed(cfg: &SimulatedConfig, r: &ChatRequest) -> u64 {
    let mut h = StableHasher::new();
    h.u64(cfg.seed).str(&cfg.name);
    for m in &r.messages {
        h.str(match m.role {
            Role::System => "s",
            Role::User => "u",
            Role::Assistant => "a",
            Role::Tool => "t",
        })
        .str(&m.content);
        for c in &m.tool_calls {
            h.str(&c.id).str(&c.name).str(&c.arguments);
        }
    }
    for t in &r.tools {
        h.str("tool").str(&t.name);
    }
    h.u64(r.sampling.seed.unwrap_or(u64::MAX));
    let greedy = r.sampling.temperature == Some(0.0);
    h.u64(if greedy {
        0
    } else {
        u64::from(r.sample_index) + 1
    });
    h.finish()
}

/// Answers stated in `text`: `The answer is X` (case-insensitive) and `\boxed{X}`.
pub(crate) fn extract_answers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lower = text.to_lowercase();
    // Lowercasing can change byte lengths outside ASCII; only use positions when it did not.
    if lower.len() == text.len() {
        let needle = "the answer is";
        let mut from = 0;
        while let Some(pos) = lower[from..].find(needle) {
            let start = from + pos + needle.len();
            let line = text[start..].lines().next().unwrap_or("");
            // The answer ends at the line end or the first sentence end (". " then more text).
            let rest = line.find(". ").map_or(line, |cut| &line[..cut]);
            let a = rest.trim().trim_start_matches(':').trim();
            let a = a.trim_end_matches(['.', '!']).trim_matches(['$', '*', ' ']);
            if !a.is_empty() {
                out.push(a.to_string());
            }
            from = start;
        }
    }
    let mut from = 0;
    while let Some(pos) = text[from..].find("\\boxed{") {
        let start = from + pos + "\\boxed{".len();
        let mut depth = 1;
        let mut end = None;
        for (i, c) in text[start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(start + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        let a = text[start..end].trim();
        if !a.is_empty() {
            out.push(a.to_string());
        }
        from = end;
    }
    out
}

/// True for the placeholders of answer-format instructions ("end with 'The answer is X'",
/// `finish with a line of the form "The answer is (X)", where X is the letter …`): the
/// answer, or its first word with quotes and brackets removed, is `X`, `N`, `x` or `...`.
fn is_placeholder(answer: &str) -> bool {
    let a = answer.trim_matches(|c: char| "'\"`".contains(c));
    let first_word = a
        .split(|c: char| c.is_whitespace() || "'\"`,;".contains(c))
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .trim_matches(|c: char| "()[]{}<>:".contains(c));
    let marker = |w: &str| matches!(w, "X" | "N" | "x" | "...");
    marker(a) || marker(first_word) || a.starts_with(['<', '[', '{'])
}

/// The most frequent answer; the first seen wins ties.
fn plurality(answers: &[String]) -> String {
    let mut best: Option<(&String, usize)> = None;
    for a in answers {
        let n = answers.iter().filter(|b| *b == a).count();
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((a, n));
        }
    }
    best.map(|(a, _)| a.clone()).unwrap_or_default()
}

/// `k` distinct wrong answers for `gold`, a function of the gold answer, its option count
/// and the seed only.
///
/// Integers get integer neighbours, decimals keep their precision, option letters get the
/// other letters (of the `options` the question has; without a count A–E, or up to the gold
/// letter), anything else gets small integers.
fn wrong_candidates(gold: &str, options: Option<usize>, k: usize, seed: u64) -> Vec<String> {
    let k = k.max(1);
    let g = gold.trim();
    let mut rng = ChaCha8Rng::seed_from_u64(StableHasher::new().u64(seed).str(g).finish());
    let letter = g.len() == 1 && g.chars().all(|c| c.is_ascii_uppercase());
    if letter {
        let gold_letter = g.chars().next().unwrap_or('A');
        let counted = options
            .filter(|&n| (2..=26).contains(&n))
            .map(|n| char::from(b'A' + (n - 1) as u8))
            .filter(|&last| last >= gold_letter);
        let last = counted.unwrap_or(gold_letter.max('E'));
        return ('A'..=last)
            .filter(|c| c.to_string() != g)
            .map(String::from)
            .take(k)
            .collect();
    }
    let plain = g.replace(',', "");
    let mut out: Vec<String> = Vec::with_capacity(k);
    let push = |s: String, out: &mut Vec<String>| {
        if s != g && s != plain && !out.contains(&s) {
            out.push(s);
        }
    };
    if let Ok(n) = plain.parse::<i64>() {
        let spread = (n.unsigned_abs() / 2).max(10) as i64;
        while out.len() < k {
            let d = rng.random_range(1..=spread) * if rng.random::<bool>() { 1 } else { -1 };
            push((n + d).to_string(), &mut out);
        }
    } else if let Ok(x) = plain.parse::<f64>() {
        let decimals = plain.split('.').nth(1).map_or(0, str::len);
        let mut step = 1;
        while out.len() < k {
            let factor = 1.0 + f64::from(step) * 0.1 * if step % 2 == 0 { -1.0 } else { 1.0 };
            let v = if x == 0.0 {
                f64::from(step)
            } else {
                x * factor
            };
            push(format!("{v:.decimals$}"), &mut out);
            step += 1;
        }
    } else {
        let mut n = 0;
        while out.len() < k {
            n += 1;
            push(n.to_string(), &mut out);
        }
    }
    out
}

/// Picks a candidate with probability ∝ 1/(rank+1)^skew from the uniform `u`.
fn pick_skewed(candidates: &[String], skew: f64, u: f64) -> String {
    let weights: Vec<f64> = (0..candidates.len())
        .map(|i| (i as f64 + 1.0).powf(-skew))
        .collect();
    let total: f64 = weights.iter().sum();
    let mut acc = 0.0;
    for (c, w) in candidates.iter().zip(&weights) {
        acc += w / total;
        if u < acc {
            return c.clone();
        }
    }
    candidates.last().cloned().unwrap_or_default()
}

const OPENERS: [&str; 4] = [
    "Let me work through this step by step.",
    "Let's reason about the problem carefully.",
    "I'll break the problem into smaller steps.",
    "Let me set up what the question gives us.",
];
const MIDDLES: [&str; 3] = [
    "I identify the quantities involved, combine them in the order the question describes, and double-check each step.",
    "Writing down each relation and simplifying it, the computation leads to a single value.",
    "Checking the intermediate results against the conditions of the question, everything is consistent.",
];

/// Answer-dominated reasoning text ending in `The answer is X.`.
fn reasoning_text(answer: &str, style: u32) -> String {
    let opener = OPENERS[style as usize % OPENERS.len()];
    let middle = MIDDLES[(style as usize / OPENERS.len()) % MIDDLES.len()];
    format!("{opener}\n{middle}\nThis gives {answer}, so the result is \\boxed{{{answer}}}.\nThe answer is {answer}.")
}

/// The reply of a simulated agent to a prompt outside the answer key (DESIGN.md, "offline
/// default for embodied runs"): the model's responders of the environments and frameworks
/// that own such prompts are asked in order ([`Responders::prompt_reply`]); they read
/// only the prompt, as an LLM would, and answer in the format it requests, with an expert's
/// action with probability `accuracy`.
fn embodied_reply(cfg: &SimulatedConfig, r: &ChatRequest) -> Option<String> {
    let system = r
        .messages
        .iter()
        .find(|m| m.role == Role::System)
        .map_or("", |m| m.content.as_str());
    let user = r.messages.iter().rev().find(|m| m.role == Role::User)?;
    cfg.responders.prompt_reply(&super::responder::Prompt {
        system,
        user: &user.content,
        accuracy: cfg.accuracy,
        draw: request_seed(cfg, r),
        purpose: r.purpose.as_deref(),
    })
}

/// The reply to a prompt that is not in the answer key.
fn generic_reply(name: &str, r: &ChatRequest) -> String {
    let last = r.messages.iter().rev().find(|m| m.role == Role::User);
    let words = last.map_or(0, |m| m.content.split_whitespace().count());
    let preview: String = last.map_or(String::new(), |m| m.content.chars().take(80).collect());
    format!(
        "This is {name}, colony's offline simulated model. I read your message ({words} words): \
         \"{preview}\". I can only answer questions from an answer key; point colony at a real \
         OpenAI-compatible endpoint (--base-url, or models.toml) for real replies."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Message;

    fn key() -> AnswerKey {
        let mut k = AnswerKey::new();
        k.insert("Tom has 3 apples and buys 4 more. How many apples?", "7");
        k.insert("Which option? (A) x (B) y (C) z", "B");
        k
    }

    fn model(accuracy: f64, susceptibility: f64) -> SimulatedModel {
        SimulatedModel::new(SimulatedConfig {
            accuracy,
            susceptibility,
            answer_key: key(),
            ..SimulatedConfig::default()
        })
    }

    fn ask(q: &str, i: u32) -> ChatRequest {
        ChatRequest::new(vec![Message::system("You are a solver."), Message::user(q)])
            .temperature(0.5)
            .sample_index(i)
    }

    async fn accuracy_over(m: &SimulatedModel, build: impl Fn(u32) -> ChatRequest) -> f64 {
        let mut right = 0;
        for i in 0..2000 {
            let r = m.chat(&build(i)).await.unwrap();
            if extract_answers(&r.text).last().map(String::as_str) == Some("7") {
                right += 1;
            }
        }
        f64::from(right) / 2000.0
    }

    #[tokio::test]
    async fn deterministic_per_request_and_varies_per_sample() {
        let m = model(0.5, 0.4);
        let q = "Tom has 3 apples and buys 4 more. How many apples?";
        let a = m.chat(&ask(q, 0)).await.unwrap();
        let b = m.chat(&ask(q, 0)).await.unwrap();
        assert_eq!(a, b);
        let texts: std::collections::BTreeSet<String> = {
            let mut s = std::collections::BTreeSet::new();
            for i in 0..20 {
                s.insert(m.chat(&ask(q, i)).await.unwrap().text);
            }
            s
        };
        assert!(texts.len() > 1);
        assert!(a
            .text
            .ends_with(&format!("The answer is {}.", extract_answers(&a.text)[0])));
    }

    #[tokio::test]
    async fn accuracy_matches_p_and_susceptibility_raises_it() {
        let q = "Tom has 3 apples and buys 4 more. How many apples?";
        let m = model(0.49, 0.4);
        let alone = accuracy_over(&m, |i| ask(q, i)).await;
        assert!((alone - 0.49).abs() < 0.04, "alone {alone}");
        let with_peer = accuracy_over(&m, |i| {
            ChatRequest::new(vec![Message::user(format!(
                "{q}\nAnother agent said: I computed it. The answer is 7."
            ))])
            .sample_index(i)
        })
        .await;
        // s + (1 − s)·p = 0.4 + 0.6 × 0.49 = 0.694
        assert!((with_peer - 0.694).abs() < 0.04, "with peer {with_peer}");
    }

    #[tokio::test]
    async fn wrong_answers_are_dispersed_and_letters_stay_letters() {
        let m = model(0.0, 0.0);
        let q = "Tom has 3 apples and buys 4 more. How many apples?";
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..300 {
            let r = m.chat(&ask(q, i)).await.unwrap();
            let a = extract_answers(&r.text).pop().unwrap();
            assert_ne!(a, "7");
            seen.insert(a);
        }
        assert_eq!(seen.len(), 10);
        let r = m
            .chat(&ask("Which option? (A) x (B) y (C) z", 3))
            .await
            .unwrap();
        let a = extract_answers(&r.text).pop().unwrap();
        assert!(["A", "C", "D", "E"].contains(&a.as_str()), "{a}");
    }

    #[tokio::test]
    async fn greedy_ignores_sample_index_and_limits_apply() {
        let m = model(0.5, 0.0);
        let q = "Tom has 3 apples and buys 4 more. How many apples?";
        let a = m.chat(&ask(q, 1).temperature(0.0)).await.unwrap();
        let b = m.chat(&ask(q, 2).temperature(0.0)).await.unwrap();
        assert_eq!(a.text, b.text);
        let short = m.chat(&ask(q, 1).max_tokens(3)).await.unwrap();
        assert_eq!(short.finish_reason, FinishReason::Length);
        assert_eq!(short.text.chars().count(), 12);
        let stopped = m.chat(&ask(q, 1).stop(vec!["\n".into()])).await.unwrap();
        assert!(!stopped.text.contains('\n'));
    }

    #[tokio::test]
    async fn scripted_cycles_and_empty_script_errors() {
        let m = SimulatedModel::scripted("s", vec!["one".into(), "two".into()]);
        let r = ChatRequest::new(vec![Message::user("hi")]);
        let got: Vec<String> = [0, 1, 2]
            .iter()
            .map(|_| futures::executor::block_on(m.chat(&r)).unwrap().text)
            .collect();
        assert_eq!(got, ["one", "two", "one"]);
        let empty = SimulatedModel::scripted("e", vec![]);
        assert!(empty.chat(&r).await.is_err());
    }

    #[tokio::test]
    async fn format_instructions_are_not_peer_answers() {
        let m = model(0.0, 1.0);
        let q = "Tom has 3 apples and buys 4 more. How many apples?";
        let r = m
            .chat(&ChatRequest::new(vec![Message::user(format!(
                "Solve this.\n{q}\nEnd your reply with 'The answer is X'."
            ))]))
            .await
            .unwrap();
        // No real peer answer: susceptibility 1 must not copy the placeholder.
        let a = extract_answers(&r.text).pop().unwrap();
        assert!(a.parse::<i64>().is_ok(), "{a}");
    }

    #[test]
    fn extraction_handles_nested_boxes() {
        let got = extract_answers("so \\boxed{\\frac{1}{2}} and The answer is: $42$.");
        assert_eq!(got, ["42", "\\frac{1}{2}"]);
        let got =
            extract_answers("The answer is 6. Then more words follow here.\nThe answer is 3.5");
        assert_eq!(got, ["6", "3.5"]);
    }
}
