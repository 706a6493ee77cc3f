//! OpenTelemetry traces of a run (`--otlp URL`, or `OTEL_EXPORTER_OTLP_ENDPOINT`): one span
//! per run, item or episode, step and model call, with the GenAI semantic conventions
//! (`gen_ai.operation.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens`, …), sent
//! by the OpenTelemetry SDK's batch processor through its OTLP/HTTP (protobuf) exporter.
//!
//! Decisions:
//! - The URL is the collector's base, as `OTEL_EXPORTER_OTLP_ENDPOINT` is
//!   (`http://127.0.0.1:4318`); `/v1/traces` is added unless the URL already ends with it.
//!   The flag wins over the variable.
//! - Spans are batched on the SDK's own thread and never wait for the collector: a collector
//!   that is down slows and fails nothing. Spans that could not be sent are counted, and the
//!   command warns once at its end with the count ([`Tracing::finish`]); the results are the
//!   same with or without tracing.
//! - The tracer provider is the process's (OpenTelemetry's global) for the command's
//!   duration, so a model call finds its parent in the current context (the step, item or
//!   episode span it runs under) without a handle threaded through every policy. Calls a
//!   policy makes from a task it spawns itself have no parent in the trace.
//! - Parents: run → episode (compare) or item (eval) → step (embodied) → `chat MODEL` →
//!   `execute_tool NAME` (one per tool call the ask made, see [`tool_spans`]).
//!   Token attributes are the provider's counts (`usage`), so a trace's tokens add up to the
//!   run's.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use colony_llm::{ChatModel, ChatRequest, ChatResponse, ModelError, SharedModel};
use opentelemetry::trace::{FutureExt, Span, SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{global, Context, KeyValue};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use thiserror::Error;

/// The environment variable of the collector's base URL (OpenTelemetry's own name).
pub const ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
/// The instrumentation scope of every span.
const SCOPE: &str = "colony";
/// How long one export may take before it counts as failed.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(5);
/// Spans waiting for export; more are dropped by the SDK (a collector far behind).
const MAX_QUEUE: usize = 65_536;

/// Set while a command traces, so untraced runs create no span at all.
static TRACING: AtomicBool = AtomicBool::new(false);

/// Why tracing could not start.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum OtlpError {
    /// The URL is not an `http(s)://` URL.
    #[error("--otlp {0:?}: not an http:// or https:// URL of an OTLP collector")]
    BadUrl(String),
    /// The exporter could not be built.
    #[error("--otlp {url}: {message}")]
    Exporter {
        /// The traces URL.
        url: String,
        /// What the SDK said.
        message: String,
    },
}

/// A command's tracing: its provider and what was sent.
pub struct Tracing {
    provider: SdkTracerProvider,
    url: String,
    counts: Arc<Counts>,
    run: Context,
}

#[derive(Debug, Default)]
struct Counts {
    sent: AtomicU64,
    failed: AtomicU64,
}

/// The exporter, counting what it sent and what failed.
#[derive(Debug)]
struct CountingExporter {
    inner: opentelemetry_otlp::SpanExporter,
    counts: Arc<Counts>,
}

impl SpanExporter for CountingExporter {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let n = batch.len() as u64;
        let r = self.inner.export(batch).await;
        let to = if r.is_ok() {
            &self.counts.sent
        } else {
            &self.counts.failed
        };
        to.fetch_add(n, Ordering::Relaxed);
        r
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.inner.set_resource(resource);
    }
}

/// The traces URL of `flag`, else of [`ENDPOINT_VAR`] (read through `var`); `None`: no
/// tracing.
pub fn traces_url(
    flag: Option<&str>,
    var: impl Fn(&str) -> Option<String>,
) -> Result<Option<String>, OtlpError> {
    let Some(base) = flag.map(str::to_string).or_else(|| var(ENDPOINT_VAR)) else {
        return Ok(None);
    };
    let base = base.trim().trim_end_matches('/').to_string();
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(OtlpError::BadUrl(colony_env_api::clip(&base)));
    }
    Ok(Some(if base.ends_with("/v1/traces") {
        base
    } else {
        format!("{base}/v1/traces")
    }))
}

impl Tracing {
    /// Starts tracing to `url` (a traces URL, see [`traces_url`]) under a run span named
    /// `run` with `attributes`; the command's future runs under [`Tracing::context`].
    pub fn start(
        url: &str,
        run: &str,
        attributes: &[(&'static str, String)],
    ) -> Result<Self, OtlpError> {
        let attributes: Vec<KeyValue> = attributes
            .iter()
            .map(|(k, v)| KeyValue::new(*k, v.clone()))
            .collect();
        use opentelemetry_otlp::WithExportConfig;
        // The exporter builds its own reqwest client, which needs the TLS provider.
        colony_llm::http::ensure_tls_provider();
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_endpoint(url)
            .with_timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(|e| OtlpError::Exporter {
                url: url.to_string(),
                message: e.to_string(),
            })?;
        let counts = Arc::new(Counts::default());
        let processor = opentelemetry_sdk::trace::BatchSpanProcessor::builder(CountingExporter {
            inner: exporter,
            counts: counts.clone(),
        })
        .with_batch_config(
            opentelemetry_sdk::trace::BatchConfigBuilder::default()
                .with_max_queue_size(MAX_QUEUE)
                .with_scheduled_delay(Duration::from_millis(500))
                .build(),
        )
        .build();
        let provider = SdkTracerProvider::builder()
            .with_span_processor(processor)
            .with_resource(
                opentelemetry_sdk::Resource::builder()
                    .with_service_name("colony")
                    .build(),
            )
            .build();
        global::set_tracer_provider(provider.clone());
        TRACING.store(true, Ordering::SeqCst);
        // Asks carry the asker's context to the agent task that calls the model.
        colony_llm::trace_parent::set_capture(Some(|| {
            colony_llm::TraceParent::new(Context::current())
        }));
        let span = global::tracer(SCOPE)
            .span_builder(run.to_string())
            .with_kind(SpanKind::Internal)
            .with_attributes(attributes)
            .start(&global::tracer(SCOPE));
        Ok(Self {
            provider,
            url: url.to_string(),
            counts,
            run: Context::current_with_span(span),
        })
    }

    /// Tracing for a command started with `--otlp flag` (or [`ENDPOINT_VAR`] in the process
    /// environment); `None` when neither is set.
    pub fn from_flag(
        flag: Option<&str>,
        run: &str,
        attributes: &[(&'static str, String)],
    ) -> Result<Option<Self>, OtlpError> {
        traces_url(flag, |k| std::env::var(k).ok())?
            .map(|url| Self::start(&url, run, attributes))
            .transpose()
    }

    /// `future` run under the run span.
    pub async fn run<F: Future>(&self, future: F) -> F::Output {
        future.with_context(self.run.clone()).await
    }

    /// The run span's context: the command's future runs under it
    /// (`future.with_context(tracing.context())`).
    pub fn context(&self) -> Context {
        self.run.clone()
    }

    /// Ends the run span (with `error`, if the run failed), sends what is left and shuts the
    /// provider down; returns a warning when spans could not be sent.
    pub fn finish(self, error: Option<&str>) -> Option<String> {
        let span = self.run.span();
        if let Some(e) = error {
            span.set_status(Status::error(colony_env_api::clip(e)));
        }
        span.end();
        let _ = self.provider.force_flush();
        let _ = self.provider.shutdown();
        TRACING.store(false, Ordering::SeqCst);
        colony_llm::trace_parent::set_capture(None);
        let failed = self.counts.failed.load(Ordering::Relaxed);
        (failed > 0).then(|| {
            format!(
                "warning: {failed} trace span(s) could not be sent to {} (is the collector \
                 running?); {} were sent; the run's results are unaffected",
                self.url,
                self.counts.sent.load(Ordering::Relaxed)
            )
        })
    }
}

/// Whether a command traces now.
pub fn enabled() -> bool {
    TRACING.load(Ordering::Relaxed)
}

/// `future` run under a new span `name` (child of the current context) with `attributes`,
/// ended when it completes; `future` as it is when nothing traces.
pub async fn in_span<F: Future>(name: String, attributes: Vec<KeyValue>, future: F) -> F::Output {
    if !enabled() {
        return future.await;
    }
    let tracer = global::tracer(SCOPE);
    let span = tracer
        .span_builder(name)
        .with_attributes(attributes)
        .start_with_context(&tracer, &Context::current());
    let cx = Context::current_with_span(span);
    let out = future.with_context(cx.clone()).await;
    cx.span().end();
    out
}

/// The current context, for work a task spawns (`tokio::spawn` does not carry it).
pub fn current() -> Context {
    Context::current()
}

/// `future` under `cx` (see [`current`]).
pub fn under<F: Future>(cx: Context, future: F) -> impl Future<Output = F::Output> {
    future.with_context(cx)
}

/// One `execute_tool NAME` span per tool call of a tool-using ask (the GenAI conventions'
/// tool spans), children of its `chat` span. Decision: the tool loop runs inside the traced
/// call, so the spans are made from the reply's exchanges once it returns, each placed at the
/// time the call ended minus its measured duration (a replayed call's, the recorded one).
fn tool_spans(
    tracer: &global::BoxedTracer,
    chat: &Context,
    exchanges: &[colony_llm::ToolExchange],
) {
    for x in exchanges {
        let name = x.tool.clone().unwrap_or_else(|| x.call.name.clone());
        let end = x.finished_at.unwrap_or_else(std::time::SystemTime::now);
        let start = end
            .checked_sub(Duration::from_micros(x.elapsed_us))
            .unwrap_or(end);
        let mut attributes = vec![
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            KeyValue::new("gen_ai.tool.name", name.clone()),
            KeyValue::new("gen_ai.tool.call.id", x.call.id.clone()),
        ];
        if x.cached {
            attributes.push(KeyValue::new("colony.replayed", true));
        }
        let mut span = tracer
            .span_builder(format!("execute_tool {name}"))
            .with_kind(SpanKind::Internal)
            .with_start_time(start)
            .with_attributes(attributes)
            .start_with_context(tracer, chat);
        if let Some(kind) = &x.error {
            span.set_attribute(KeyValue::new("error.type", kind.clone()));
            span.set_status(Status::error(colony_env_api::clip(&x.result)));
        }
        span.end_with_timestamp(end);
    }
}

/// A model whose calls are `chat MODEL` spans (GenAI client spans) under the current context.
pub struct TracedModel {
    inner: SharedModel,
}

/// `model` traced (see [`TracedModel`]).
pub fn traced(model: SharedModel) -> SharedModel {
    Arc::new(TracedModel { inner: model })
}

#[async_trait]
impl ChatModel for TracedModel {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn simulated(&self) -> bool {
        self.inner.simulated()
    }

    fn offers_tools(&self) -> bool {
        self.inner.offers_tools()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        if !enabled() {
            return self.inner.chat(request).await;
        }
        let tracer = global::tracer(SCOPE);
        let mut attributes = vec![
            KeyValue::new("gen_ai.operation.name", "chat"),
            KeyValue::new("gen_ai.request.model", self.inner.id().to_string()),
        ];
        if let Some(p) = &request.purpose {
            attributes.push(KeyValue::new("colony.purpose", p.clone()));
        }
        if let Some(t) = request.sampling.temperature {
            attributes.push(KeyValue::new("gen_ai.request.temperature", f64::from(t)));
        }
        // The asker's context when the call came through an agent's task, else the current.
        let parent = request
            .trace
            .get::<Context>()
            .cloned()
            .unwrap_or_else(Context::current);
        let span = tracer
            .span_builder(format!("chat {}", self.inner.id()))
            .with_kind(SpanKind::Client)
            .with_attributes(attributes)
            .start_with_context(&tracer, &parent);
        let cx = parent.with_span(span);
        let span = cx.span();
        let r = self.inner.chat(request).await;
        match &r {
            Ok(resp) => {
                tool_spans(&tracer, &cx, &resp.tool_trace);
                span.set_attributes([
                    KeyValue::new("gen_ai.response.model", resp.model.clone()),
                    KeyValue::new("gen_ai.usage.input_tokens", resp.usage.prompt_tokens as i64),
                    KeyValue::new(
                        "gen_ai.usage.output_tokens",
                        resp.usage.completion_tokens as i64,
                    ),
                    KeyValue::new("colony.latency_ms", resp.latency.as_secs_f64() * 1e3),
                    KeyValue::new("colony.tool_calls", resp.tool_trace.len() as i64),
                ]);
            }
            Err(e) => {
                span.set_attribute(KeyValue::new("error.type", "model_error"));
                span.set_status(Status::error(colony_env_api::clip(&e.to_string())));
            }
        }
        span.end();
        r
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn the_url_is_the_collectors_base_and_the_flag_wins() {
        let none = |_: &str| None;
        assert_eq!(traces_url(None, none).unwrap(), None);
        assert_eq!(
            traces_url(Some("http://h:4318/"), none).unwrap().as_deref(),
            Some("http://h:4318/v1/traces")
        );
        let var = |_: &str| Some("http://env:1".to_string());
        assert_eq!(
            traces_url(None, var).unwrap().as_deref(),
            Some("http://env:1/v1/traces")
        );
        assert_eq!(
            traces_url(Some("http://f/v1/traces"), var)
                .unwrap()
                .as_deref(),
            Some("http://f/v1/traces")
        );
        assert!(traces_url(Some("localhost:4318"), none).is_err());
    }
}
