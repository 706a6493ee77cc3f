//! `colony serve-mock`: an OpenAI-compatible HTTP server on loopback, backed by any
//! [`ChatModel`](colony_llm::ChatModel) (usually the offline `SimulatedModel`), with fault
//! injection.
//!
//! Why: every LLM code path of colony (client retries, deadlines, concurrency limits, usage
//! accounting, streaming, embeddings) is tested over real HTTP against this server instead of
//! the internet, and the official OpenAI clients can be pointed at it to check compatibility.
//!
//! Routes (OpenAI JSON shapes, see [`colony_llm::wire`]):
//! - `POST /v1/chat/completions`: JSON or, with `stream: true`, server-sent events;
//! - `POST /v1/embeddings`: `encoding_format` `float` (default) or `base64`;
//! - `GET /v1/models`;
//! - `GET /props` (llama-server's properties), only with
//!   [`MockServerConfig::context_tokens`];
//! - `GET /v1/mock/stats` and `POST /v1/mock/reset`: the [`MockStats`] counters, as JSON, for
//!   tests in other processes (no API key needed).
//!
//! With [`MockServerConfig::request_log`] every accepted chat request is also appended to a
//! JSONL file, so tests can check what a client actually sent (sampling settings included).
//!
//! Faults ([`FaultConfig`]) hit chat and embeddings requests only: latency first, then at most
//! one of 429, 500, dropped connection, stall, malformed body, drawn from a seeded RNG.
//!
//! Resource bounds (the server must survive hostile clients): request bodies are limited to
//! [`MockServerConfig::max_request_bytes`] (413 otherwise), an embeddings request to
//! [`MockServerConfig::max_embedding_inputs`] inputs and a response that fits
//! [`MockServerConfig::max_response_bytes`] (400 otherwise, checked before embedding), and a
//! connection that does not deliver a request's headers within
//! [`MockServerConfig::header_read_timeout`] is closed (idle keep-alive connections too).

mod chat;
mod conn;
mod embeddings;
mod errors;
mod faults;
mod routes;
mod stats;

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The bounded accept loop, shared with `colony view --serve`.
pub(crate) use conn::accept_loop;
pub use conn::MAX_CONNECTIONS;
pub use faults::{Fault, FaultConfig, FaultConfigError, FaultPlan, LatencyParseError, LatencySpec};
pub use stats::MockStats;

use colony_llm::embed::{default_embedder, Embedder};
use colony_llm::SharedModel;
use routes::AppState;
use stats::StatsCounters;

/// Default of [`MockServerConfig::max_request_bytes`]: 2 MiB.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 2 * 1024 * 1024;
/// Default of [`MockServerConfig::max_embedding_inputs`]: 2,048, OpenAI's limit.
pub const DEFAULT_MAX_EMBEDDING_INPUTS: usize = 2048;
/// Default of [`MockServerConfig::max_response_bytes`]: 16 MiB, the client's default body
/// limit, so a colony client can always read what the mock server agrees to send.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;
/// Default of [`MockServerConfig::header_read_timeout`]: 10 seconds.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Settings of a [`MockServer`].
#[derive(Clone)]
pub struct MockServerConfig {
    /// Address to bind (default `127.0.0.1`).
    pub host: IpAddr,
    /// Port to bind (default 0: any free port).
    pub port: u16,
    /// Model answering chat completions.
    pub model: SharedModel,
    /// The backing simulated model's answer key (`serve-mock --answer-key`), so a request
    /// whose question is not in it is counted (`unkeyed_requests`) and warned about once.
    pub answer_key: Option<colony_llm::AnswerKey>,
    /// Accepted model names; empty accepts any name, otherwise others get 404 `model_not_found`.
    pub served_models: Vec<String>,
    /// When set, requests need `Authorization: Bearer <key>` (401 otherwise).
    pub required_api_key: Option<String>,
    /// Injected latency and faults.
    pub faults: FaultConfig,
    /// Embedder answering `/v1/embeddings` (default: [`default_embedder`]).
    pub embedder: Arc<dyn Embedder>,
    /// Largest request body accepted, in bytes (default [`DEFAULT_MAX_REQUEST_BYTES`]); a
    /// longer one gets 413 `request_too_large` without being read further.
    pub max_request_bytes: usize,
    /// Most inputs of one embeddings request (default [`DEFAULT_MAX_EMBEDDING_INPUTS`]); more
    /// get 400 `too_many_inputs`.
    pub max_embedding_inputs: usize,
    /// Largest embeddings response body, in bytes, as bounded before embedding (default
    /// [`DEFAULT_MAX_RESPONSE_BYTES`]); a request that could need more gets 400
    /// `response_too_large`.
    pub max_response_bytes: usize,
    /// Time a client has to send a request's headers, counted from when the connection is
    /// ready for the next request (idle keep-alive time included); `None` waits forever.
    /// Default [`DEFAULT_HEADER_READ_TIMEOUT`].
    pub header_read_timeout: Option<Duration>,
    /// When set, every accepted chat-completion request is appended to this file as one JSON
    /// line, as the server parsed it (the OpenAI body; fields colony does not type are
    /// dropped), so a test in another process can check what a client sent. The file is
    /// opened once, at start, for appending (truncate it to clear it; do not remove it).
    pub request_log: Option<PathBuf>,
    /// When set, the server behaves as a llama-server slot of this many tokens: `GET /props`
    /// reports it as `default_generation_settings.n_ctx`, and a chat request whose prompt is
    /// estimated larger gets 400 `exceed_context_size_error` (llama-server's refusal). Unset:
    /// no `/props` (404, as vLLM and hosted APIs) and no limit.
    pub context_tokens: Option<u64>,
}

impl MockServerConfig {
    /// Defaults (loopback, any port, any model name, no key, no faults) around `model`.
    pub fn new(model: SharedModel) -> Self {
        Self {
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            model,
            answer_key: None,
            served_models: Vec::new(),
            required_api_key: None,
            faults: FaultConfig::default(),
            embedder: Arc::new(default_embedder()),
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            max_embedding_inputs: DEFAULT_MAX_EMBEDDING_INPUTS,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            header_read_timeout: Some(DEFAULT_HEADER_READ_TIMEOUT),
            request_log: None,
            context_tokens: None,
        }
    }
}

impl fmt::Debug for MockServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MockServerConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("model", &self.model.id())
            .field("served_models", &self.served_models)
            .field(
                "required_api_key",
                &self.required_api_key.as_ref().map(|_| "<redacted>"),
            )
            .field("faults", &self.faults)
            .field("embedder", &self.embedder.id())
            .field("max_request_bytes", &self.max_request_bytes)
            .field("max_embedding_inputs", &self.max_embedding_inputs)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("request_log", &self.request_log)
            .finish()
    }
}

/// A running mock server; shuts down when [`shutdown`](Self::shutdown) is awaited or on drop.
#[derive(Debug)]
pub struct MockServer {
    addr: SocketAddr,
    stats: Arc<StatsCounters>,
    shutdown: CancellationToken,
    task: Option<JoinHandle<()>>,
}

impl MockServer {
    /// Validates the config, binds the address and starts serving in a background task.
    ///
    /// An invalid fault configuration, a zero size limit or a zero header-read timeout is an
    /// [`std::io::ErrorKind::InvalidInput`] error.
    pub async fn start(config: MockServerConfig) -> Result<MockServer, std::io::Error> {
        config
            .faults
            .validate()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        let invalid =
            |message: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, message);
        for (name, value) in [
            ("max_request_bytes", config.max_request_bytes),
            ("max_embedding_inputs", config.max_embedding_inputs),
            ("max_response_bytes", config.max_response_bytes),
        ] {
            if value == 0 {
                return Err(invalid(format!("mock server: {name} must be positive")));
            }
        }
        if config.header_read_timeout.is_some_and(|t| t.is_zero()) {
            return Err(invalid(
                "mock server: header_read_timeout must be positive (None disables it)".into(),
            ));
        }
        let request_log = match &config.request_log {
            Some(path) => Some(std::sync::Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)?,
            )),
            None => None,
        };
        let listener = TcpListener::bind(SocketAddr::new(config.host, config.port)).await?;
        let addr = listener.local_addr()?;
        let stats = Arc::new(StatsCounters::default());
        let state = Arc::new(AppState {
            model: config.model,
            answer_key: config.answer_key.filter(|k| !k.is_empty()),
            embedder: config.embedder,
            served_models: config.served_models,
            required_api_key: config.required_api_key,
            faults: config.faults,
            stats: Arc::clone(&stats),
            next_id: AtomicU64::new(0),
            started: routes::unix_now(),
            max_request_bytes: config.max_request_bytes,
            max_embedding_inputs: config.max_embedding_inputs,
            max_response_bytes: config.max_response_bytes,
            request_log,
            context_tokens: config.context_tokens,
        });
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(conn::accept_loop(
            listener,
            routes::router(state),
            config.header_read_timeout,
            shutdown.clone(),
        ));
        tracing::info!(%addr, "mock server listening");
        Ok(MockServer {
            addr,
            stats,
            shutdown,
            task: Some(task),
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The OpenAI base URL, e.g. `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> MockStats {
        self.stats.snapshot()
    }

    /// Zeroes the counters and restarts the fault sequence (like `POST /v1/mock/reset`).
    pub fn reset_stats(&self) {
        self.stats.reset();
    }

    /// Stops accepting, aborts every open connection (stalled requests included) and waits
    /// for the server task to end.
    pub async fn shutdown(mut self) {
        self.shutdown.cancel();
        if let Some(task) = self.task.take() {
            if let Err(e) = task.await {
                tracing::warn!(error = %e, "mock server task ended abnormally");
            }
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        // The accept loop sees the cancellation and aborts its connections by itself.
        self.shutdown.cancel();
    }
}
