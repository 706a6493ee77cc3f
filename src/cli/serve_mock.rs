//! `colony serve-mock`: runs the OpenAI-compatible mock server backed by the simulated model,
//! with fault injection, until Ctrl-C or SIGTERM.
//!
//! The first line on stdout is the base URL (`http://127.0.0.1:PORT/v1`), flushed at once, so
//! scripts and tests in other processes can start it with `--port 0` and read where it listens.

use crate::registry::Registry;
use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::llm::{AnswerKey, SimulatedConfig, SimulatedModel};
use crate::mock_server::{FaultConfig, LatencySpec, MockServer, MockServerConfig};
use anyhow::Context;

/// Flags of `colony serve-mock`.
#[derive(clap::Args, Debug)]
pub struct ServeMockArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Port to listen on (0 picks a free port; the URL is printed on the first stdout line).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Latency added to every chat/embeddings request, in ms: fixed "A" or uniform "A..B".
    #[arg(long, value_name = "A or A..B")]
    pub latency_ms: Option<LatencySpec>,
    /// Probability of answering HTTP 429 with Retry-After headers.
    #[arg(long = "fail-429", value_name = "RATE", default_value_t = 0.0, value_parser = parse_probability)]
    pub fail_429: f64,
    /// Probability of answering HTTP 500.
    #[arg(long = "fail-500", value_name = "RATE", default_value_t = 0.0, value_parser = parse_probability)]
    pub fail_500: f64,
    /// Probability of closing the connection without any response.
    #[arg(long, value_name = "RATE", default_value_t = 0.0, value_parser = parse_probability)]
    pub drop: f64,
    /// Probability of stalling a request for --stall-secs before answering.
    #[arg(long, value_name = "RATE", default_value_t = 0.0, value_parser = parse_probability)]
    pub stall: f64,
    /// Probability of answering 200 with a truncated JSON body.
    #[arg(long, value_name = "RATE", default_value_t = 0.0, value_parser = parse_probability)]
    pub malformed: f64,
    /// Answer key of the simulated model: JSONL lines `{"question": …, "answer": …}`, or,
    /// with --dataset, any dataset file `colony grade` reads (questions and gold answers).
    #[arg(long, value_name = "FILE")]
    pub answer_key: Option<PathBuf>,
    /// Read --answer-key as a file of this dataset (see `colony datasets`).
    #[arg(long, value_name = "NAME", requires = "answer_key")]
    pub dataset: Option<String>,
    /// Probability that the simulated model answers a known question correctly.
    #[arg(long, value_name = "P", value_parser = parse_probability)]
    pub accuracy: Option<f64>,
    /// Seed of the simulated model and of the fault sequence.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Delay advertised by injected 429 answers, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub retry_after_ms: u64,
    /// How long a stalled request waits before being answered, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 3600.0)]
    pub stall_secs: f64,
    /// Model name to accept (repeatable); without it any name is accepted.
    #[arg(long = "served-model", value_name = "NAME")]
    pub served_model: Vec<String>,
    /// Require `Authorization: Bearer <key>`, the key read from this environment variable.
    #[arg(long, value_name = "VAR")]
    pub require_api_key_env: Option<String>,
    /// Probability that the simulated model adopts the peer answers present in its prompt.
    #[arg(long, value_name = "P", value_parser = parse_probability)]
    pub susceptibility: Option<f64>,
    /// Largest request body accepted, in bytes (larger ones get 413).
    #[arg(long, value_name = "BYTES", default_value_t = 2 * 1024 * 1024)]
    pub max_request_bytes: usize,
    /// Most inputs accepted in one `/v1/embeddings` request (OpenAI's limit).
    #[arg(long, value_name = "N", default_value_t = 2048)]
    pub max_embedding_inputs: usize,
    /// Largest response body produced, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    pub max_response_bytes: usize,
    /// Seconds a client may take to send its request headers (0 turns the limit off).
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub header_read_timeout: f64,
    /// Append every accepted chat-completion request body (as parsed) to FILE, one JSON line
    /// each: what clients actually sent, for tests.
    #[arg(long, value_name = "FILE")]
    pub log_requests: Option<PathBuf>,
    /// Answer from a reply script instead of the simulated model: JSONL, one reply per line,
    /// `{"content": "…"}` or `{"tool_calls": [{"name", "arguments"}]}`, taken in request order
    /// (cycling). For tests of tool-calling clients: one conversation at a time.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["answer_key", "accuracy"])]
    pub script: Option<PathBuf>,
    /// Play a llama-server slot of N tokens: answer `GET /props` with it and refuse (400) a
    /// prompt estimated larger, as llama-server does.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=crate::llm::MAX_CONTEXT_TOKENS))]
    pub context_tokens: Option<u64>,
}

/// Parses a probability in `[0, 1]`.
fn parse_probability(s: &str) -> Result<f64, String> {
    let p: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number"))?;
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!(
            "{s} is not a probability: it must be between 0 and 1"
        ))
    }
}

impl ServeMockArgs {
    /// The server configuration these flags describe; the simulated model is taught by
    /// `registry`'s responders and `--dataset` names one of its datasets.
    fn config(&self, registry: &Registry) -> anyhow::Result<MockServerConfig> {
        let mut sim = SimulatedConfig {
            seed: self.seed,
            responders: registry.responders(),
            ..SimulatedConfig::default()
        };
        if let Some(p) = self.accuracy {
            sim.accuracy = p;
        }
        if let Some(s) = self.susceptibility {
            sim.susceptibility = s;
        }
        match (&self.answer_key, &self.dataset) {
            (Some(path), Some(name)) => {
                let dataset = registry.find_dataset(name)?;
                let loaded = dataset
                    .load(path, &colony_qa::LoadOptions::default())
                    .context("loading the --answer-key dataset file")?;
                sim.answer_key = crate::eval::answer_key(&loaded.items);
            }
            (Some(path), None) => {
                sim.answer_key = AnswerKey::load(path).context("loading the --answer-key file")?;
            }
            _ => {}
        }
        if !(self.stall_secs.is_finite() && self.stall_secs >= 0.0) {
            anyhow::bail!(
                "--stall-secs must be a non-negative number of seconds, got {}",
                self.stall_secs
            );
        }
        let faults = FaultConfig {
            latency: self.latency_ms.unwrap_or_default(),
            fail_429: self.fail_429,
            retry_after_ms: self.retry_after_ms,
            fail_500: self.fail_500,
            drop: self.drop,
            stall: self.stall,
            stall_for: Duration::from_secs_f64(self.stall_secs),
            malformed: self.malformed,
            seed: self.seed,
        };
        faults.validate()?;
        let required_api_key = match &self.require_api_key_env {
            None => None,
            Some(var) => {
                let key = std::env::var(var).map_err(|e| {
                    anyhow::anyhow!(
                        "--require-api-key-env {var}: cannot read environment variable {var}: {e}"
                    )
                })?;
                if key.trim().is_empty() {
                    anyhow::bail!(
                        "--require-api-key-env {var}: environment variable {var} is empty"
                    );
                }
                Some(key.trim().to_string())
            }
        };
        // A scripted server has no key to miss.
        let answer_key =
            (self.script.is_none() && self.answer_key.is_some()).then(|| sim.answer_key.clone());
        let model: crate::llm::SharedModel = match &self.script {
            Some(path) => Arc::new(crate::llm::ScriptedModel::load("script", path)?),
            None => Arc::new(SimulatedModel::new(sim)),
        };
        let mut config = MockServerConfig::new(model);
        config.answer_key = answer_key;
        config.host = self.host;
        config.port = self.port;
        config.served_models = self.served_model.clone();
        config.required_api_key = required_api_key;
        config.faults = faults;
        anyhow::ensure!(
            self.max_request_bytes > 0
                && self.max_embedding_inputs > 0
                && self.max_response_bytes > 0,
            "--max-request-bytes, --max-embedding-inputs and --max-response-bytes must be positive"
        );
        config.max_request_bytes = self.max_request_bytes;
        config.max_embedding_inputs = self.max_embedding_inputs;
        config.max_response_bytes = self.max_response_bytes;
        config.header_read_timeout = match self.header_read_timeout {
            0.0 => None,
            t => Some(Duration::try_from_secs_f64(t).map_err(|_| {
                anyhow::anyhow!(
                    "--header-read-timeout must be a non-negative number of seconds, got {t}"
                )
            })?),
        };
        config.request_log = self.log_requests.clone();
        config.context_tokens = self.context_tokens;
        Ok(config)
    }
}

/// Starts the server, prints its base URL as the first stdout line, serves until Ctrl-C or
/// SIGTERM, then shuts down (aborting stalled requests).
pub async fn run(args: ServeMockArgs, registry: &Registry) -> anyhow::Result<()> {
    let config = args.config(registry)?;
    let addr = format!("{}:{}", config.host, config.port);
    let server = MockServer::start(config)
        .await
        .with_context(|| format!("starting the mock server on {addr}"))?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", server.base_url())?;
        out.flush()?;
    }
    tracing::info!(url = %server.base_url(), "serve-mock ready; Ctrl-C or SIGTERM stops it");
    wait_for_stop_signal().await?;
    let stats = server.stats();
    server.shutdown().await;
    tracing::info!(
        requests = stats.requests,
        completed_ok = stats.completed_ok,
        "serve-mock stopped"
    );
    Ok(())
}

/// Resolves on Ctrl-C (SIGINT) or, on Unix, SIGTERM.
pub(crate) async fn wait_for_stop_signal() -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
        tokio::select! {
            r = tokio::signal::ctrl_c() => r.context("waiting for Ctrl-C")?,
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    tokio::signal::ctrl_c()
        .await
        .context("waiting for Ctrl-C")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: ServeMockArgs,
    }

    #[test]
    fn parses_the_contract_flags() {
        let cli = Cli::try_parse_from([
            "serve-mock",
            "--port",
            "0",
            "--latency-ms",
            "5..20",
            "--fail-429",
            "0.1",
            "--fail-500",
            "0.1",
            "--drop",
            "0.1",
            "--stall",
            "0.1",
            "--malformed",
            "0.1",
            "--accuracy",
            "0.7",
            "--seed",
            "3",
            "--served-model",
            "a",
            "--served-model",
            "b",
        ])
        .unwrap();
        let a = cli.args;
        assert_eq!(
            a.latency_ms,
            Some(LatencySpec {
                min_ms: 5,
                max_ms: 20
            })
        );
        assert_eq!(a.served_model, ["a", "b"]);
        let config = a.config(&Registry::builtin()).unwrap();
        assert_eq!(config.faults.seed, 3);
        assert_eq!(config.served_models, ["a", "b"]);
        assert!(Cli::try_parse_from(["serve-mock", "--drop", "1.5"]).is_err());
        assert!(Cli::try_parse_from(["serve-mock", "--latency-ms", "5..2"]).is_err());
        let sum = Cli::try_parse_from(["serve-mock", "--drop", "0.6", "--stall", "0.6"]).unwrap();
        assert!(sum.args.config(&Registry::builtin()).is_err());
    }
}
