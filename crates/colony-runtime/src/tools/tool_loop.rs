//! [`ToolLoop`]: a model wrapper that offers a [`ToolSet`] and runs the calls the model makes,
//! round after round, until it answers in text: every agent of every policy gets the run's
//! tools without the policy knowing.
//!
//! One ask is one model call to the agent (and one call in the usage ledger); its rounds'
//! tokens and latencies are summed, and each tool call with its result is kept in
//! [`ChatResponse::tool_trace`], which the transcript stores as the call's children. The
//! agent's memory keeps the prompt and the final answer; the tool exchanges live in the
//! transcript (decision: later turns stay short, as the ReAct paper's few-shot traces are).
//!
//! Bounds (see [`ToolLimits`]): `max_tool_rounds` rounds may call tools, the next one is sent
//! with `tool_choice: none`; each call has a deadline and its result a byte cap; calls beyond
//! `max_calls_per_round` in one reply are refused. Every failure is a message to the model and
//! an exchange with `error` set, so it is counted and never ends the run or scores as an
//! answer. Rounds that still call tools after the limit end the ask with the text they carry.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;

use super::{check_arguments, ToolLimits, ToolSet};
use colony_llm::{
    ChatModel, ChatRequest, ChatResponse, FinishReason, Message, ModelError, RecordedTool,
    ReplayMode, SharedModel, ToolCall, ToolChoice, ToolExchange, ToolReplay,
};

/// The tool-running wrapper (see the module docs).
pub struct ToolLoop {
    inner: SharedModel,
    tools: Arc<ToolSet>,
    limits: ToolLimits,
    replay: Option<Arc<ToolReplay>>,
}

impl std::fmt::Debug for ToolLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolLoop")
            .field("model", &self.inner.id())
            .field("tools", &self.tools.names())
            .field("limits", &self.limits)
            .finish()
    }
}

impl ToolLoop {
    /// `inner` with `tools` offered on every request, within `limits`; with `replay`, tool
    /// results are recorded or replayed there.
    pub fn new(
        inner: SharedModel,
        tools: Arc<ToolSet>,
        limits: ToolLimits,
        replay: Option<Arc<ToolReplay>>,
    ) -> Self {
        Self {
            inner,
            tools,
            limits,
            replay,
        }
    }

    /// A call the loop refuses without running it (`kind`, `why`).
    fn refused(&self, call: &ToolCall, kind: &str, why: String) -> ToolExchange {
        let readable = self
            .tools
            .by_wire_name(&call.name)
            .map(|t| t.spec().name.clone());
        exchange(call, readable, failure(kind, why), 0, false)
    }

    /// Runs one call the model made in reply to `asked`.
    async fn run_call(&self, asked: &ChatRequest, call: &ToolCall) -> ToolExchange {
        let tool = self.tools.by_wire_name(&call.name);
        let readable = tool.map(|t| t.spec().name.clone());
        let key = self
            .replay
            .as_ref()
            .map(|_| ToolReplay::key(self.inner.id(), asked, call));
        if let (Some(replay), Some(key)) = (&self.replay, &key) {
            if let Some(rec) = replay.lookup(key) {
                let elapsed = rec.elapsed_us;
                return exchange(call, readable, rec, elapsed, true);
            }
            if replay.mode() == ReplayMode::Replay {
                let rec = failure(
                    "replay_miss",
                    format!(
                        "this tool call was not recorded in {} (a replay makes no tool call)",
                        replay.path().display()
                    ),
                );
                return exchange(call, readable, rec, 0, false);
            }
        }
        let start = Instant::now();
        let rec = match tool {
            None => failure(
                "unknown_tool",
                format!(
                    "no tool named {:?}; the tools are: {}",
                    call.name,
                    self.tools
                        .wire_specs()
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            Some(tool) => match parse_arguments(&call.arguments) {
                Err(e) => failure("invalid_json", format!("arguments are not valid JSON: {e}")),
                Ok(args) => match check_arguments(&tool.spec().parameters, &args) {
                    Err(e) => failure(
                        "invalid_arguments",
                        format!("arguments do not fit the schema: {e}"),
                    ),
                    Ok(()) => match tokio::time::timeout(self.limits.call_timeout, tool.call(args))
                        .await
                    {
                        Err(_) => failure(
                            "timeout",
                            format!(
                                "no result within {} s",
                                self.limits.call_timeout.as_secs_f64()
                            ),
                        ),
                        Ok(Err(e)) => failure("tool_error", e.to_string()),
                        Ok(Ok(text)) => RecordedTool {
                            result: truncate(text, self.limits.max_output_bytes),
                            error: None,
                            elapsed_us: 0,
                        },
                    },
                },
            },
        };
        let elapsed = micros(start.elapsed());
        let rec = RecordedTool {
            elapsed_us: elapsed,
            ..rec
        };
        if let (Some(replay), Some(key)) = (&self.replay, &key) {
            if let Err(e) = replay.store(key, call, &rec) {
                tracing::warn!(error = %e, "cannot record a tool result");
            }
        }
        exchange(call, readable, rec, elapsed, false)
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Empty arguments mean none (some servers send `""` for a function without parameters).
fn parse_arguments(text: &str) -> Result<Value, serde_json::Error> {
    if text.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(text)
}

fn failure(kind: &str, message: String) -> RecordedTool {
    RecordedTool {
        result: format!("error: {message}"),
        error: Some(kind.to_string()),
        elapsed_us: 0,
    }
}

fn exchange(
    call: &ToolCall,
    tool: Option<String>,
    rec: RecordedTool,
    elapsed_us: u64,
    cached: bool,
) -> ToolExchange {
    ToolExchange {
        call: call.clone(),
        tool,
        result: rec.result,
        error: rec.error,
        elapsed_us,
        cached,
        finished_at: Some(std::time::SystemTime::now()),
    }
}

/// `text` cut to at most `max` bytes at a character boundary, with a marker saying how much
/// was cut.
pub(crate) fn truncate(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let dropped = text.len() - cut;
    text.truncate(cut);
    text.push_str(&format!("\n[… {dropped} more bytes truncated]"));
    text
}

#[async_trait]
impl ChatModel for ToolLoop {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn simulated(&self) -> bool {
        self.inner.simulated()
    }

    fn offers_tools(&self) -> bool {
        !self.tools.is_empty()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let mut asked = request.clone();
        for spec in self.tools.wire_specs() {
            if !asked.tools.iter().any(|t| t.name == spec.name) {
                asked.tools.push(spec.clone());
            }
        }
        let mut trace: Vec<ToolExchange> = Vec::new();
        let (mut usage, mut latency, mut retries, mut cached) =
            (colony_llm::Usage::default(), Duration::ZERO, 0, true);
        let mut round = 0;
        loop {
            let last = round >= self.limits.max_tool_rounds;
            if last {
                asked.tool_choice = Some(ToolChoice::None);
            }
            let response = self.inner.chat(&asked).await?;
            usage += response.usage;
            latency += response.latency;
            retries += response.retries;
            cached &= response.cached;
            if response.tool_calls.is_empty() || last {
                for call in &response.tool_calls {
                    let why = format!(
                        "tool round limit of {} reached",
                        self.limits.max_tool_rounds
                    );
                    trace.push(self.refused(call, "round_limit", why));
                }
                let finish_reason = match response.finish_reason {
                    FinishReason::ToolCalls => FinishReason::Stop,
                    other => other,
                };
                return Ok(ChatResponse {
                    usage,
                    latency,
                    retries,
                    cached,
                    finish_reason,
                    tool_calls: Vec::new(),
                    tool_trace: trace,
                    ..response
                });
            }
            let calls = response.tool_calls;
            // The calls of one reply run concurrently; their results keep the reply's order.
            let allowed = calls.len().min(self.limits.max_calls_per_round);
            let mut results = futures::future::join_all(
                calls[..allowed].iter().map(|c| self.run_call(&asked, c)),
            )
            .await;
            for call in &calls[allowed..] {
                let why = format!(
                    "at most {} tool calls per reply",
                    self.limits.max_calls_per_round
                );
                results.push(self.refused(call, "too_many_calls", why));
            }
            asked
                .messages
                .push(Message::assistant_tool_calls(response.text, calls));
            for ex in &results {
                asked
                    .messages
                    .push(Message::tool(ex.call.id.clone(), ex.result.clone()));
            }
            trace.extend(results);
            round += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_a_char_boundary_and_says_so() {
        assert_eq!(truncate("abc".into(), 5), "abc");
        let cut = truncate("ééé".into(), 3);
        assert!(
            cut.starts_with('é') && cut.contains("4 more bytes truncated"),
            "{cut}"
        );
    }
}
