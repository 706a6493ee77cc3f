//! Integration tests of the actor runtime on a real tokio runtime with the real simulated model.
//!
//! The only test doubles are tiny `ChatModel`s standing in for a broken endpoint (one that
//! always fails, one that is slow, one that panics): honest stand-ins for failures the
//! simulated model does not produce.

// Test helpers outside `#[test]` functions (the test doubles, the shared program) may panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::future::join_all;

use colony::llm::{
    AnswerKey, ChatModel, ChatRequest, ChatResponse, FinishReason, Message, ModelError, Role,
    SharedModel, SimulatedConfig, SimulatedModel, Usage,
};
use colony::runtime::{
    AgentId, AgentSpec, AskOptions, Budget, Event, Only, Reply, RoleCard, RoleError, RuntimeError,
    Team, TeamBuilder, TeamConfig, Transcript,
};
use tokio::task::JoinHandle;

/// Guards every await that must not hang: a hang fails the test instead of stalling CI.
const NO_HANG: Duration = Duration::from_secs(30);

fn role() -> Arc<RoleCard> {
    Arc::new(RoleCard::new("assistant", "You are a helpful assistant."))
}

fn sim(name: &str, seed: u64) -> SharedModel {
    Arc::new(SimulatedModel::new(SimulatedConfig {
        name: name.to_string(),
        seed,
        ..SimulatedConfig::default()
    }))
}

fn qa_sim(name: &str, seed: u64, accuracy: f64) -> SharedModel {
    let mut key = AnswerKey::new();
    key.insert("Tom has 3 apples and buys 4 more. How many apples?", "7");
    key.insert(
        "A train goes 60 km in 1.5 hours. What is its speed in km/h?",
        "40",
    );
    Arc::new(SimulatedModel::new(SimulatedConfig {
        name: name.to_string(),
        seed,
        accuracy,
        answer_key: key,
        ..SimulatedConfig::default()
    }))
}

fn reply(text: &str, model: &str) -> ChatResponse {
    ChatResponse {
        text: text.to_string(),
        finish_reason: FinishReason::Stop,
        usage: Usage {
            prompt_tokens: 1,
            completion_tokens: 1,
            ..Usage::default()
        },
        latency: Duration::ZERO,
        model: model.to_string(),
        retries: 0,
        cached: false,
        tool_calls: Vec::new(),
        tool_trace: Vec::new(),
    }
}

/// An endpoint that always fails (after its own retries, as a real client would).
struct FailingModel;

#[async_trait]
impl ChatModel for FailingModel {
    fn id(&self) -> &str {
        "failing"
    }
    async fn chat(&self, _: &ChatRequest) -> Result<ChatResponse, ModelError> {
        Err(ModelError::Transient {
            endpoint: "http://127.0.0.1:9".into(),
            status: Some(503),
            message: "service unavailable".into(),
        })
    }
}

/// An endpoint that takes an hour on prompts containing "slow" and answers others at once.
struct SlowModel;

#[async_trait]
impl ChatModel for SlowModel {
    fn id(&self) -> &str {
        "slow"
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let last = request.messages.last().map_or("", |m| m.content.as_str());
        if last.contains("slow") {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        Ok(reply(&format!("done: {last}"), "slow"))
    }
}

/// A team of one agent `s` on the [`SlowModel`], with `setup`'s settings.
fn slow_team(setup: impl FnOnce(TeamBuilder) -> TeamBuilder) -> Team {
    setup(Team::builder())
        .agent(AgentSpec::new("s", role(), Arc::new(SlowModel)))
        .build()
        .unwrap()
}

/// `team.ask("s", prompt)` in the background.
fn ask_in_background(team: &Team, prompt: &'static str) -> JoinHandle<Result<Reply, RuntimeError>> {
    let team = team.clone();
    tokio::spawn(async move { team.ask("s", prompt).await })
}

/// An endpoint whose client code panics.
struct PanickingModel;

#[async_trait]
impl ChatModel for PanickingModel {
    fn id(&self) -> &str {
        "panicking"
    }
    async fn chat(&self, _: &ChatRequest) -> Result<ChatResponse, ModelError> {
        panic!("model client bug");
    }
}

async fn guarded<T>(fut: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(NO_HANG, fut)
        .await
        .expect("the runtime hung")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_agents_answer_concurrently_and_usage_adds_up() {
    // A heterogeneous team: two different models.
    let (a, b) = (sim("sim-a", 1), sim("sim-b", 2));
    let team = Team::builder()
        .agents((0..1000).map(|i| {
            let model = if i % 2 == 0 { a.clone() } else { b.clone() };
            AgentSpec::new(format!("agent_{i:04}"), role(), model)
        }))
        .build()
        .unwrap();
    assert_eq!(team.len(), 1000);
    let asks = team.agents().into_iter().map(|id| {
        let team = team.clone();
        async move { team.ask(&id, format!("Hello {id}")).await }
    });
    let replies: Vec<_> = guarded(join_all(asks)).await;
    let mut sum = Usage::default();
    for (i, r) in replies.into_iter().enumerate() {
        let r = r.unwrap();
        assert_eq!(r.agent.as_str(), format!("agent_{i:04}"));
        assert_eq!(r.model, if i % 2 == 0 { "sim-a" } else { "sim-b" });
        sum += r.usage;
    }
    let usage = team.usage();
    assert_eq!(usage.run.calls, 1000);
    assert_eq!(usage.run.failed_calls, 0);
    assert_eq!(usage.run.usage, sum);
    assert_eq!(usage.agents.len(), 1000);
    assert!(usage.agents.values().all(|t| t.calls == 1));
    let transcript = team.transcript();
    assert_eq!(transcript.calls().count(), 1000);
    assert_eq!(transcript.total_usage(), sum);
    assert_eq!(team.budget_usage().calls, 1000);
    assert_eq!(team.budget_usage().tokens, sum.total());
    guarded(team.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_agent_does_not_block_the_others() {
    let good = sim("sim", 3);
    let team = Team::builder()
        .agents((0..9).map(|i| AgentSpec::new(format!("good_{i}"), role(), good.clone())))
        .agent(AgentSpec::new("bad", role(), Arc::new(FailingModel)))
        .build()
        .unwrap();
    let asks = team.agents().into_iter().map(|id| {
        let team = team.clone();
        async move { (id.clone(), team.ask(&id, "Hi").await) }
    });
    for (id, result) in guarded(join_all(asks)).await {
        if id == "bad" {
            let err = result.unwrap_err();
            assert!(
                matches!(&err, RuntimeError::Model { agent, source } if agent == "bad"
                && matches!(source, ModelError::Transient { status: Some(503), .. }))
            );
            let msg = err.to_string();
            assert!(
                msg.contains("agent bad") && msg.contains("service unavailable"),
                "{msg}"
            );
        } else {
            assert!(result.is_ok(), "{id}: {result:?}");
        }
    }
    // The failing agent keeps serving: the next ask fails again instead of hanging, and a
    // message still reaches its memory.
    let again = guarded(team.ask("bad", "Still there?")).await;
    assert!(matches!(again, Err(RuntimeError::Model { .. })));
    guarded(team.tell("good_0", "bad", "hello")).await.unwrap();
    assert_eq!(guarded(team.memory("bad")).await.unwrap().len(), 1);
    let usage = team.usage();
    assert_eq!(usage.agents["bad"].failed_calls, 2);
    assert_eq!(usage.run.calls, 9);
    assert_eq!(team.transcript().failures().count(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_model_stops_its_agent_without_hanging_callers() {
    let team = Team::builder()
        .agent(AgentSpec::new("ok", role(), sim("sim", 4)))
        .agent(AgentSpec::new("boom", role(), Arc::new(PanickingModel)))
        .build()
        .unwrap();
    let (boom, ok) =
        guarded(async { tokio::join!(team.ask("boom", "x"), team.ask("ok", "y")) }).await;
    assert!(matches!(boom, Err(RuntimeError::AgentStopped { ref agent }) if agent == "boom"));
    assert!(ok.is_ok());
    let later = guarded(team.ask("boom", "again")).await;
    assert!(
        matches!(later, Err(RuntimeError::AgentStopped { .. })),
        "{later:?}"
    );
    assert!(guarded(team.ask("ok", "still fine")).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_call_budget_admits_exactly_its_limit() {
    let model = sim("sim", 5);
    let team = Team::builder()
        .budget(Budget::calls(10))
        .agents((0..5).map(|i| AgentSpec::new(format!("a{i}"), role(), model.clone())))
        .build()
        .unwrap();
    let asks = (0..50).map(|i| {
        let team = team.clone();
        async move {
            team.ask(format!("a{}", i % 5), format!("question {i}"))
                .await
        }
    });
    let results = guarded(join_all(asks)).await;
    let ok = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(ok, 10);
    for err in results.into_iter().filter_map(Result::err) {
        match &err {
            RuntimeError::BudgetExhausted {
                kind, limit, used, ..
            } => {
                assert_eq!((*kind, *limit, *used), ("calls", 10, 10));
            }
            other => panic!("unexpected error {other}"),
        }
        let msg = err.to_string();
        assert!(!msg.contains('\n'));
        assert!(
            msg.contains("budget exhausted: 10 of 10 calls used"),
            "{msg}"
        );
    }
    // The run has stopped: later asks fail fast, and no further call was made.
    assert!(guarded(team.ask("a0", "more?"))
        .await
        .unwrap_err()
        .is_budget_exhausted());
    assert_eq!(team.usage().run.calls, 10);
    assert_eq!(team.budget_usage().calls, 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_budget_stops_the_run_once_crossed() {
    let team = Team::builder()
        .budget(Budget::tokens(100))
        .agent(AgentSpec::new("a", role(), sim("sim", 6)))
        .build()
        .unwrap();
    let mut ok = 0;
    let err = loop {
        match guarded(team.ask("a", "Tell me something.")).await {
            Ok(_) => ok += 1,
            Err(e) => break e,
        }
        assert!(ok < 100, "the token budget never stopped the run");
    };
    assert!(ok >= 1);
    match err {
        RuntimeError::BudgetExhausted {
            kind, limit, used, ..
        } => {
            assert_eq!((kind, limit), ("tokens", 100));
            assert!(used >= 100);
        }
        other => panic!("unexpected error {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_abandons_a_slow_call_and_the_agent_serves_the_next_ask() {
    let team = slow_team(|b| b);
    let opts = AskOptions::new().timeout(Duration::from_millis(50));
    let err = guarded(team.ask_with("s", "be slow", opts))
        .await
        .unwrap_err();
    assert!(
        matches!(err, RuntimeError::Timeout { ref agent, after } if agent == "s"
        && after == Duration::from_millis(50))
    );
    assert!(
        err.to_string()
            .contains("agent s: no reply within the deadline of 0.050s"),
        "{err}"
    );
    // The agent abandoned the hour-long call and answers the next ask at once.
    let next = guarded(team.ask("s", "be quick")).await.unwrap();
    assert_eq!(next.text, "done: be quick");
    let transcript = team.transcript();
    let failures: Vec<_> = transcript.failures().collect();
    assert_eq!(failures.len(), 1);
    assert!(failures[0].1.error.contains("abandoned"));
    assert_eq!(team.usage().agents["s"].failed_calls, 1);
    // A caller that drops its ask frees the agent the same way.
    let dropped = ask_in_background(&team, "slow again");
    tokio::time::sleep(Duration::from_millis(20)).await;
    dropped.abort();
    assert!(guarded(team.ask("s", "quick again")).await.is_ok());
    // A team-wide default deadline applies to plain asks too.
    let team = slow_team(|b| b.timeout(Duration::from_millis(50)));
    assert!(matches!(
        guarded(team.ask("s", "slow")).await,
        Err(RuntimeError::Timeout { .. })
    ));
    assert!(guarded(team.ask("s", "quick")).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_cancels_in_flight_calls_and_refuses_new_asks() {
    let team = slow_team(|b| b);
    let pending = ask_in_background(&team, "slow please");
    // Let the call start, then shut down.
    tokio::time::sleep(Duration::from_millis(50)).await;
    guarded(team.shutdown()).await;
    let result = guarded(pending).await.unwrap();
    assert!(matches!(result, Err(RuntimeError::ShutDown { ref agent }) if agent == "s"));
    assert!(team.is_shut_down());
    assert!(matches!(
        team.ask("s", "x").await,
        Err(RuntimeError::ShutDown { .. })
    ));

    // A run-wide token cancels the team; dropping the last handle cancels it too.
    let run = tokio_util::sync::CancellationToken::new();
    let team = slow_team(|b| b.cancel_on(&run));
    let pending = ask_in_background(&team, "slow please");
    tokio::time::sleep(Duration::from_millis(20)).await;
    run.cancel();
    let result = guarded(pending).await.unwrap();
    assert!(
        matches!(result, Err(RuntimeError::ShutDown { .. })),
        "{result:?}"
    );
    let token = team.cancellation_token();
    drop(team);
    assert!(token.is_cancelled());
}

#[test]
fn agents_need_a_tokio_runtime() {
    let team = Team::new(TeamConfig::default());
    let err = team
        .add_agent(AgentSpec::new("a", role(), sim("sim", 1)))
        .unwrap_err();
    assert!(matches!(err, RuntimeError::NoRuntime { .. }));
    assert!(err.to_string().starts_with("agent a:"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asks_to_one_agent_are_served_in_mailbox_order_under_backpressure() {
    let replies: Vec<String> = (0..6).map(|i| format!("r{i}")).collect();
    let model: SharedModel = Arc::new(SimulatedModel::scripted("script", replies));
    let team = Team::builder()
        .mailbox_capacity(1)
        .agent(AgentSpec::new("a", role(), model))
        .build()
        .unwrap();
    let asks = (0..6).map(|i| team.ask("a", format!("q{i}")));
    let results = guarded(join_all(asks)).await;
    let texts: Vec<_> = results.into_iter().map(|r| r.unwrap().text).collect();
    assert_eq!(texts, ["r0", "r1", "r2", "r3", "r4", "r5"]);
    let memory = guarded(team.memory("a")).await.unwrap();
    let prompts: Vec<_> = memory
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(prompts, ["q0", "q1", "q2", "q3", "q4", "q5"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tell_broadcast_and_filtered_delivery_reach_memory_and_the_transcript() {
    let model = sim("sim", 7);
    let team = Team::builder()
        .agents(["a", "b", "c", "d"].map(|id| AgentSpec::new(id, role(), model.clone())))
        .build()
        .unwrap();
    guarded(team.tell("a", "b", "psst")).await.unwrap();
    let all = guarded(team.broadcast("a", "hello all")).await.unwrap();
    assert_eq!(all, ["b", "c", "d"]);
    // Agents on a line; an environment only lets messages travel one cell.
    let position: BTreeMap<&str, i32> = [("a", 0), ("b", 1), ("c", 2), ("d", 5)].into();
    let near =
        |from: &AgentId, to: &AgentId| (position[from.as_str()] - position[to.as_str()]).abs() <= 1;
    let heard = guarded(team.deliver_where("b", "who is near?", near))
        .await
        .unwrap();
    assert_eq!(heard, ["a", "c"]);
    let only = guarded(team.deliver_where("env", "fire at (3, 4)", Only::new(["d"]))).await;
    assert_eq!(only.unwrap(), ["d"]);
    assert!(matches!(
        guarded(team.tell("a", "zed", "x")).await,
        Err(RuntimeError::UnknownAgent { ref agent }) if agent == "zed"
    ));

    let contents = |m: Vec<Message>| m.into_iter().map(|m| m.content).collect::<Vec<_>>();
    assert_eq!(
        contents(team.memory("a").await.unwrap()),
        ["[b] who is near?"]
    );
    assert_eq!(
        contents(team.memory("b").await.unwrap()),
        ["[a] psst", "[a] hello all"]
    );
    assert_eq!(
        contents(team.memory("c").await.unwrap()),
        ["[a] hello all", "[b] who is near?"]
    );
    assert_eq!(
        contents(team.memory("d").await.unwrap()),
        ["[a] hello all", "[env] fire at (3, 4)"]
    );
    assert!(team
        .memory("a")
        .await
        .unwrap()
        .iter()
        .all(|m| m.role == Role::User));

    let transcript = team.transcript();
    let delivered: Vec<_> = transcript
        .messages()
        .map(|m| (m.from.as_str(), m.to.as_str(), m.text.as_str()))
        .collect();
    assert_eq!(
        delivered,
        [
            ("b", "a", "who is near?"),
            ("a", "b", "psst"),
            ("a", "b", "hello all"),
            ("a", "c", "hello all"),
            ("b", "c", "who is near?"),
            ("a", "d", "hello all"),
            ("env", "d", "fire at (3, 4)"),
        ]
    );
    // A delivered message is part of the next conversational prompt.
    let r = guarded(team.ask("d", "What happened?")).await.unwrap();
    let transcript = team.transcript();
    let (_, call) = transcript.calls().find(|(agent, _)| *agent == "d").unwrap();
    assert_eq!(call.text, r.text);
    let sent: Vec<_> = call
        .request
        .messages
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(
        sent,
        [
            "You are a helpful assistant.",
            "[a] hello all",
            "[env] fire at (3, 4)",
            "What happened?"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_grows_with_conversation_and_not_with_stateless_asks() {
    let card = RoleCard {
        sampling: colony::llm::Sampling {
            temperature: Some(0.3),
            max_tokens: Some(200),
            ..Default::default()
        },
        ..(*role()).clone()
    };
    let team = Team::new(TeamConfig::default());
    // The agent's defaults (flags over models.toml over built-in) sit under the role card.
    let defaults = colony::llm::Sampling {
        temperature: Some(0.9),
        top_p: Some(0.8),
        ..Default::default()
    };
    team.add_agent(AgentSpec::new("a", card, sim("sim", 8)).with_sampling(defaults))
        .unwrap();
    assert!(matches!(
        team.add_agent(AgentSpec::new("a", role(), sim("sim", 8))),
        Err(RuntimeError::DuplicateAgent { .. })
    ));
    guarded(team.ask("a", "first")).await.unwrap();
    guarded(team.ask("a", "second")).await.unwrap();
    let memory = team.memory("a").await.unwrap();
    let roles: Vec<_> = memory.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::User, Role::Assistant]
    );
    assert_eq!(memory[2].content, "second");

    let opts = AskOptions::new()
        .stateless()
        .temperature(1.0)
        .seed(9)
        .sample_index(3)
        .tag("probe");
    guarded(team.ask_with("a", "independent", opts))
        .await
        .unwrap();
    assert_eq!(team.memory("a").await.unwrap(), memory);

    let transcript = team.transcript();
    let calls: Vec<_> = transcript.calls().map(|(_, c)| c.clone()).collect();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[1].request.messages.len(), 4); // system, first, reply, second
    assert_eq!(
        (
            calls[1].request.sampling.temperature,
            calls[1].request.sampling.max_tokens
        ),
        (Some(0.3), Some(200))
    );
    assert_eq!(calls[1].request.sampling.top_p, Some(0.8));
    let probe = &calls[2];
    assert_eq!(probe.request.messages.len(), 2); // system + prompt only
    assert_eq!(probe.request.sampling.temperature, Some(1.0));
    assert_eq!(probe.request.sampling.max_tokens, Some(200));
    assert_eq!(
        (probe.request.sampling.seed, probe.request.sample_index),
        (Some(9), 3)
    );
    assert_eq!(probe.tag.as_deref(), Some("probe"));

    guarded(team.reset_memory("a")).await.unwrap();
    assert!(team.memory("a").await.unwrap().is_empty());
    let last = team.transcript();
    assert_eq!(
        last.entries().last().map(|e| &e.event),
        Some(&Event::MemoryReset)
    );
    let seqs: Vec<_> = last.entries().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [0, 1, 2, 3]);
}

/// A small deterministic program: concurrent asks on a heterogeneous team, a broadcast, a
/// second round that sees the first, stateless samples, a reset.
async fn debate_program() -> Transcript {
    let question = "Tom has 3 apples and buys 4 more. How many apples?";
    let team = Team::builder()
        .agents((0..6).map(|i| {
            let model = if i < 3 {
                qa_sim("sim-a", 11, 0.5)
            } else {
                qa_sim("sim-b", 12, 0.7)
            };
            AgentSpec::new(format!("agent_{i}"), role(), model)
        }))
        .build()
        .unwrap();
    let ids = team.agents();
    let round1 = join_all(ids.iter().map(|id| team.ask(id, question))).await;
    let answers: Vec<_> = round1.into_iter().map(|r| r.unwrap()).collect();
    // Deliveries from different senders to one agent are ordered by the program: one sender
    // after the other.
    for r in &answers {
        assert_eq!(
            team.broadcast(r.agent.clone(), r.text.clone())
                .await
                .unwrap()
                .len(),
            5
        );
    }
    let round2 = join_all(ids.iter().map(|id| {
        team.ask_with(
            id,
            "Reconsider given your peers.",
            AskOptions::new().tag("round 2"),
        )
    }))
    .await;
    assert!(round2.iter().all(Result::is_ok));
    let samples = join_all((0..4u32).map(|k| {
        let opts = AskOptions::new()
            .stateless()
            .temperature(0.8)
            .sample_index(k);
        team.ask_with("agent_0", question, opts)
    }))
    .await;
    assert!(samples.iter().all(Result::is_ok));
    team.reset_memory("agent_5").await.unwrap();
    team.shutdown().await;
    team.transcript()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identical_runs_give_identical_transcripts() {
    let first = guarded(debate_program()).await;
    let second = guarded(debate_program()).await;
    assert_eq!(first, second);
    let (j1, j2) = (
        serde_json::to_string(&first).unwrap(),
        serde_json::to_string(&second).unwrap(),
    );
    assert_eq!(j1, j2);
    let back: Transcript = serde_json::from_str(&j1).unwrap();
    assert_eq!(back, first);
    // 6 + 6 + 4 calls, 6 × 5 messages, 1 reset.
    assert_eq!(first.calls().count(), 16);
    assert_eq!(first.messages().count(), 30);
    assert_eq!(first.len(), 47);
    // The second round saw the broadcasts: peers' answers are in its prompt.
    let (_, r2) = first
        .calls()
        .find(|(a, c)| *a == "agent_3" && c.tag.is_some())
        .unwrap();
    assert_eq!(r2.request.messages.len(), 1 + 2 + 5 + 1);
}

#[test]
fn role_cards_load_and_bad_toml_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken_role.toml");
    std::fs::write(&bad, "name = \"x\"\nsystem_prompt = \"unterminated\n").unwrap();
    let err = RoleCard::load(&bad).unwrap_err();
    assert!(matches!(err, RoleError::Parse { .. }));
    assert!(err.to_string().contains("broken_role.toml"), "{err}");

    let missing = dir.path().join("missing_role.toml");
    let err = RoleCard::load(&missing).unwrap_err();
    assert!(matches!(err, RoleError::Io { .. }));
    assert!(err.to_string().contains("missing_role.toml"), "{err}");

    let shipped = RoleCard::load(concat!(env!("CARGO_MANIFEST_DIR"), "/roles/assistant.toml"));
    assert_eq!(shipped.unwrap().name, "assistant");
}

/// Compile-time check: the public futures can be spawned on a multi-threaded runtime.
#[allow(dead_code)]
fn public_futures_are_send(team: &Team, id: &AgentId) {
    fn is_send<T: Send>(_: T) {}
    fn is_send_sync_clone<T: Send + Sync + Clone>() {}
    is_send_sync_clone::<Team>();
    is_send(team.ask("a", "prompt"));
    is_send(team.ask(id, String::from("prompt")));
    is_send(team.ask_with(id.clone(), "prompt", AskOptions::new()));
    is_send(team.tell("env", id, "text"));
    is_send(team.broadcast("env", "text"));
    is_send(team.deliver_where("env", "text", |_: &AgentId, _: &AgentId| true));
    is_send(team.memory(id));
    is_send(team.reset_memory(id));
    is_send(team.shutdown());
}

/// Scale smoke run (the lead benchmarks the real figures): `cargo test --release --test runtime
/// -- --ignored --nocapture ten_thousand`. Prints wall time and peak RSS; asserts no timings.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "scale run; prints figures"]
async fn ten_thousand_agents_one_ask_each() {
    let started = std::time::Instant::now();
    let model = sim("sim", 13);
    let role = role();
    let team = Team::builder()
        .agents(
            (0..10_000)
                .map(|i| AgentSpec::new(format!("agent_{i:05}"), role.clone(), model.clone())),
        )
        .build()
        .unwrap();
    let spawned = started.elapsed();
    let asks = team.agents().into_iter().map(|id| {
        let team = team.clone();
        tokio::spawn(async move { team.ask(&id, "What is 2 + 2?").await })
    });
    for r in join_all(asks).await {
        r.unwrap().unwrap();
    }
    let asked = started.elapsed();
    assert_eq!(team.usage().run.calls, 10_000);
    let transcript = team.transcript();
    let json = serde_json::to_string(&transcript).unwrap();
    team.shutdown().await;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("VmHWM: ?");
    println!(
        "10k agents: spawn {spawned:?}, spawn+asks {asked:?}, total {:?}, transcript {} bytes, {hwm}",
        started.elapsed(),
        json.len()
    );
}
