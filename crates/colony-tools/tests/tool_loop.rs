//! The tool loop with the real built-ins: the simulated model calls `calculator` and `python`
//! (in bubblewrap), bad calls come back to the model as counted errors, the round limit and
//! the per-call deadline hold, and a recorded tool-using exchange replays identically without
//! running a tool.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{json, Value};

use colony_llm::{
    ChatModel, ChatRequest, ChatResponse, FinishReason, Message, ModelError, ReplayModel,
    SharedModel, SimulatedConfig, SimulatedModel, ToolCall, ToolReplay, ToolSpec, Usage,
    UsageLedger,
};
use colony_runtime::{SharedTool, Tool, ToolError, ToolLimits, ToolLoop, ToolSet};
use colony_tools::{resolve, ToolContext};

fn sim(seed: u64) -> SharedModel {
    Arc::new(SimulatedModel::new(SimulatedConfig {
        seed,
        ..SimulatedConfig::default()
    }))
}

async fn tools(names: &[&str]) -> Arc<ToolSet> {
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    Arc::new(
        resolve(&names, &ToolContext::default(), &colony_tools::builtin, &[])
            .await
            .unwrap(),
    )
}

fn ask(q: &str) -> ChatRequest {
    ChatRequest::new(vec![Message::user(q)])
}

#[tokio::test]
async fn simulated_model_calls_the_calculator_and_then_answers() {
    let model = ToolLoop::new(
        sim(1),
        tools(&["calculator"]).await,
        ToolLimits::default(),
        None,
    );
    let r = model.chat(&ask("What is (1/3 + 2^10) * 3?")).await.unwrap();
    assert_eq!(r.tool_trace.len(), 1, "{r:?}");
    let ex = &r.tool_trace[0];
    assert_eq!(ex.tool.as_deref(), Some("calculator"));
    assert_eq!(ex.error, None);
    assert_eq!(ex.result, "3073");
    assert!(!r.text.is_empty());
    assert_eq!(r.finish_reason, FinishReason::Stop);
    assert!(r.tool_calls.is_empty());
    let ledger = UsageLedger::new();
    ledger.record("a", &r);
    let totals = ledger.agent("a");
    assert_eq!((totals.tool_calls, totals.tool_errors), (1, 0));
}

#[tokio::test]
async fn python_runs_in_the_sandbox() {
    // `.ci/run` installs bubblewrap; without it this test fails (resolving `python` says how
    // to install it).
    let model = ToolLoop::new(
        sim(2),
        tools(&["python"]).await,
        ToolLimits::default(),
        None,
    );
    let r = model.chat(&ask("Sum 1..10")).await.unwrap();
    let ex = &r.tool_trace[0];
    assert_eq!(ex.error, None, "{ex:?}");
    assert_eq!(ex.result.trim(), "55");
    // The sandbox hides the host: the tool's program sees no environment variables.
    std::env::set_var("COLONY_TOOL_SECRET", "s3cret");
    let set = tools(&["python"]).await;
    let py = set.by_wire_name("python").unwrap();
    let out = py
        .call(json!({"code": "import os; print(sorted(os.environ)); print(open('/etc/hostname').read() if os.path.exists('/etc/hostname') else 'no hostname')"}))
        .await
        .unwrap();
    assert!(
        !out.contains("s3cret") && !out.contains("COLONY_TOOL_SECRET"),
        "{out}"
    );
    let failed = py
        .call(json!({"code": "raise SystemExit(3)"}))
        .await
        .unwrap();
    assert!(failed.contains("[exited with code 3]"), "{failed}");
}

/// A model that makes the given tool calls on its first reply, then answers `done`.
struct Caller {
    calls: Vec<ToolCall>,
    asked: AtomicUsize,
    always: bool,
}

#[async_trait]
impl ChatModel for Caller {
    fn id(&self) -> &str {
        "caller"
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let n = self.asked.fetch_add(1, Ordering::SeqCst);
        let call =
            (n == 0 || self.always) && request.tool_choice != Some(colony_llm::ToolChoice::None);
        Ok(ChatResponse {
            text: if call { String::new() } else { "done".into() },
            finish_reason: if call {
                FinishReason::ToolCalls
            } else {
                FinishReason::Stop
            },
            usage: Usage {
                prompt_tokens: 1,
                completion_tokens: 1,
                ..Usage::default()
            },
            latency: Duration::ZERO,
            model: "caller".into(),
            retries: 0,
            cached: false,
            tool_calls: if call { self.calls.clone() } else { Vec::new() },
            tool_trace: Vec::new(),
        })
    }
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

#[derive(Debug)]
struct Slow(ToolSpec);

#[async_trait]
impl Tool for Slow {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn call(&self, _: Value) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok("never".into())
    }
}

#[tokio::test]
async fn bad_calls_are_errors_for_the_model_never_a_crash() {
    let slow: SharedTool = Arc::new(Slow(ToolSpec {
        name: "slow".into(),
        description: String::new(),
        parameters: json!({"type": "object"}),
    }));
    let mut set: Vec<SharedTool> = tools(&["calculator"]).await.tools().to_vec();
    set.push(slow);
    let set = Arc::new(ToolSet::new(set).unwrap());
    let model = Arc::new(Caller {
        calls: vec![
            call("1", "calculator", "{not json"),
            call("2", "calculator", r#"{"expr": "1"}"#),
            call("3", "nope", "{}"),
            call("4", "slow", "{}"),
            call("5", "calculator", r#"{"expression": "1/0"}"#),
        ],
        asked: AtomicUsize::new(0),
        always: false,
    });
    let limits = ToolLimits {
        call_timeout: Duration::from_millis(200),
        ..ToolLimits::default()
    };
    let r = ToolLoop::new(model, set, limits, None)
        .chat(&ask("go"))
        .await
        .unwrap();
    let kinds: Vec<_> = r
        .tool_trace
        .iter()
        .map(|e| e.error.clone().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "invalid_json",
            "invalid_arguments",
            "unknown_tool",
            "timeout",
            "tool_error"
        ]
    );
    assert!(r.tool_trace[1]
        .result
        .contains("missing required property \"expression\""));
    assert!(r.tool_trace[2]
        .result
        .contains("the tools are: calculator, slow"));
    assert!(r.tool_trace[4].result.contains("division by zero"));
    assert_eq!(r.text, "done");
    assert_eq!(r.usage.prompt_tokens, 2, "both rounds' tokens are summed");
}

#[tokio::test]
async fn the_round_limit_forces_an_answer() {
    let model = Arc::new(Caller {
        calls: vec![call("1", "calculator", r#"{"expression": "2"}"#)],
        asked: AtomicUsize::new(0),
        always: true,
    });
    let limits = ToolLimits {
        max_tool_rounds: 3,
        ..ToolLimits::default()
    };
    let r = ToolLoop::new(model.clone(), tools(&["calculator"]).await, limits, None)
        .chat(&ask("go"))
        .await
        .unwrap();
    // Three rounds ran tools; the fourth was sent with tool_choice none and answered.
    assert_eq!(model.asked.load(Ordering::SeqCst), 4);
    assert_eq!(r.tool_trace.len(), 3);
    assert!(r.tool_trace.iter().all(|e| e.error.is_none()));
    assert_eq!(r.text, "done");
}

#[tokio::test]
async fn a_recorded_tool_run_replays_identically_without_tools_running() {
    let dir = std::env::temp_dir().join(format!("colony-tools-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let set = tools(&["calculator"]).await;
    let recorded = {
        let model: SharedModel = Arc::new(ReplayModel::record(sim(5), &dir).unwrap());
        let replay = Arc::new(ToolReplay::record(&dir).unwrap());
        ToolLoop::new(model, set.clone(), ToolLimits::default(), Some(replay))
            .chat(&ask("What is 6*7?"))
            .await
            .unwrap()
    };
    let model: SharedModel = Arc::new(ReplayModel::replay("sim", &dir).unwrap());
    let replay = Arc::new(ToolReplay::replay(&dir).unwrap());
    let replayed = ToolLoop::new(model, set, ToolLimits::default(), Some(replay))
        .chat(&ask("What is 6*7?"))
        .await
        .unwrap();
    assert_eq!(replayed.text, recorded.text);
    assert_eq!(replayed.tool_trace.len(), 1);
    assert!(
        replayed.tool_trace[0].cached,
        "the result came from the cache"
    );
    assert_eq!(replayed.tool_trace[0].result, recorded.tool_trace[0].result);
    assert_eq!(replayed.tool_trace[0].call, recorded.tool_trace[0].call);
    // A tool call that was never recorded is a counted replay miss, not a run.
    let model: SharedModel = Arc::new(ReplayModel::replay("sim", &dir).unwrap());
    std::fs::remove_file(dir.join(colony_llm::TOOL_CALLS_FILE)).unwrap();
    let replay = Arc::new(ToolReplay::replay(&dir).unwrap());
    let missed = ToolLoop::new(
        model,
        tools(&["calculator"]).await,
        ToolLimits::default(),
        Some(replay),
    )
    .chat(&ask("What is 6*7?"))
    .await;
    // The model's second round saw another tool message, so it is a model replay miss too.
    match missed {
        Ok(r) => assert_eq!(r.tool_trace[0].error.as_deref(), Some("replay_miss")),
        Err(e) => assert!(matches!(e, ModelError::CacheMiss { .. }), "{e}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
