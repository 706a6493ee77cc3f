//! Flags that pick and configure a model, shared by every command that talks to one.
//!
//! `--temperature`, `--top-p` and `--max-tokens` set the generation settings of the run: they
//! beat the model's `models.toml` keys and the command's built-in default, and a role card's
//! keys beat them (the one precedence, documented on [`crate::llm::Sampling`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::llm::{
    ModelOverrides, ModelSpec, ModelsConfig, ReplayModel, Sampling, SamplingKeys, SharedModel,
};
use anyhow::Context;
use clap::Args;

/// Model selection: a name from `models.toml`, or an endpoint given directly.
#[derive(Args, Debug, Clone, Default)]
pub struct ModelArgs {
    /// Model name from models.toml (or the name sent to --base-url). Default: the config's
    /// `default`, else the built-in offline simulated model `sim`.
    #[arg(long)]
    pub model: Option<String>,
    /// The model the `--base-url` server named when asked (`--base-url` without `--model`),
    /// kept so one command asks once and says so once.
    #[arg(skip)]
    pub discovered: std::sync::OnceLock<String>,
    /// Base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1 (overrides models.toml).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Name of the environment variable holding the API key (the key itself is never a flag).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Bound on each whole call in seconds, retries and backoff included.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Retries after the first attempt on 429, 5xx, connection errors and timeouts.
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,
    /// Calls in flight per endpoint, set by commands that own a concurrency flag.
    #[arg(skip)]
    pub max_concurrency: Option<usize>,
    /// Record every call into DIR/calls.jsonl (replies already there are reused).
    #[arg(long, value_name = "DIR", conflicts_with = "replay")]
    pub record: Option<PathBuf>,
    /// Answer only from calls recorded in DIR; no network; a missing call is an error.
    #[arg(long, value_name = "DIR")]
    pub replay: Option<PathBuf>,
    /// Sampling temperature, in [0, 2] (beats models.toml's `temperature`; a role card's key
    /// beats it). Default: eval 0.5, compare and chat the server's.
    #[arg(long, value_name = "T")]
    pub temperature: Option<f32>,
    /// Nucleus sampling mass, in (0, 1] (beats models.toml's `top_p`; a role card's key beats
    /// it).
    #[arg(long, value_name = "P")]
    pub top_p: Option<f32>,
    /// Completion-token limit per call, 1 to 1048576 (beats models.toml's `max_tokens`; a role
    /// card's key beats it). Default: eval 2048, compare 1024, chat the server's. Keep it
    /// small on CPU servers.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Prompt tokens one request may hold (the server's context per slot; beats models.toml's
    /// `context_tokens`): a prompt estimated larger is refused before it is sent, as a failed
    /// call naming both sizes, instead of the server's HTTP 400.
    #[arg(long, value_name = "N")]
    pub context_tokens: Option<u64>,
}

impl ModelArgs {
    /// The overrides these flags make on top of models.toml.
    pub fn overrides(&self) -> anyhow::Result<ModelOverrides> {
        let timeout = self
            .timeout
            .map(|t| {
                Duration::try_from_secs_f64(t)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .with_context(|| {
                        format!("--timeout must be a positive number of seconds, got {t}")
                    })
            })
            .transpose()?;
        let sampling = Sampling {
            temperature: self.temperature,
            top_p: self.top_p,
            max_tokens: self.max_tokens,
            ..Sampling::default()
        };
        sampling.validate(SamplingKeys::Flags)?;
        Ok(ModelOverrides {
            base_url: self.base_url.clone(),
            api_key_env: self.api_key_env.clone(),
            timeout,
            max_retries: self.max_retries,
            context_tokens: self.context_tokens,
            max_concurrency: self.max_concurrency,
            sampling,
            ..ModelOverrides::default()
        })
    }

    /// The API key named by `--api-key-env`, for the other endpoints a command talks to
    /// (e.g. a remote embedder): the same key path as the model's, so `colony eval
    /// --embedder remote:…` and `colony embed` authenticate alike.
    pub fn api_key(&self) -> anyhow::Result<Option<crate::llm::ApiKey>> {
        Ok(self
            .api_key_env
            .as_deref()
            .map(crate::llm::ApiKey::from_env)
            .transpose()?)
    }

    /// The specs of a comma-separated `--models` list (each resolved in models.toml with these
    /// flags' overrides), or the one model [`ModelArgs::spec`] names when there is no list.
    pub fn specs(
        &self,
        models: Option<&str>,
        config: Option<&Path>,
    ) -> anyhow::Result<Vec<ModelSpec>> {
        match models {
            Some(list) => {
                let cfg = crate::llm::ModelsConfig::discover(config)?;
                let overrides = self.overrides()?;
                list.split(',')
                    .map(|name| Ok(cfg.resolve(Some(name.trim()), &overrides)?))
                    .collect()
            }
            None => Ok(vec![self.spec(config)?]),
        }
    }

    /// Resolves the model spec from models.toml (found via `config`) and the flags.
    pub fn spec(&self, config: Option<&Path>) -> anyhow::Result<ModelSpec> {
        let spec = self.configured_spec(config)?;
        // `--base-url` alone (no --model, no models.toml default): ask the server.
        // A replay asks no server: it needs the recorded run's --model.
        if self.model.is_none()
            && self.replay.is_none()
            && self.base_url.is_some()
            && spec.model.is_none()
            && spec.name == crate::llm::UNNAMED_ENDPOINT_MODEL
        {
            // Asked once per command (every later resolution reuses the answer, and the note
            // is printed once).
            if let Some(id) = self.discovered.get() {
                let mut spec = spec;
                spec.name = id.clone();
                spec.model = Some(id.clone());
                return Ok(spec);
            }
            let spec = with_discovered_model(spec)?;
            if let Some(id) = &spec.model {
                let _ = self.discovered.set(id.clone());
            }
            return Ok(spec);
        }
        Ok(spec)
    }

    /// The spec from models.toml and the flags, without asking any server.
    fn configured_spec(&self, config: Option<&Path>) -> anyhow::Result<ModelSpec> {
        let cfg = ModelsConfig::discover(config)?;
        Ok(cfg.resolve(self.model.as_deref(), &self.overrides()?)?)
    }

    /// Builds the model (a simulated one taught by `responders`), wrapped for recording or
    /// replay when asked.
    pub fn build(
        &self,
        config: Option<&Path>,
        responders: &crate::llm::Responders,
    ) -> anyhow::Result<SharedModel> {
        let spec = self.spec(config)?;
        tracing::debug!(spec = ?spec.redacted(), "resolved model");
        let model: SharedModel = if let Some(dir) = &self.replay {
            Arc::new(
                ReplayModel::replay(&spec.build_id(), dir)?
                    .marked_simulated(spec.kind == crate::llm::ModelKind::Simulated)
                    .with_context_tokens(spec.context_tokens),
            )
        } else {
            let model = spec.build(responders)?;
            match &self.record {
                Some(dir) => Arc::new(
                    ReplayModel::record(model, dir)?.with_context_tokens(spec.context_tokens),
                ),
                None => model,
            }
        };
        Ok(spec.priced(model)?)
    }
}

/// `spec` with the one model its server lists (see [`crate::llm::discover_model`]), said on
/// stderr. Asked on a thread with a runtime of its own, so it works whether or not the caller
/// is inside a runtime, and of whichever kind.
fn with_discovered_model(mut spec: ModelSpec) -> anyhow::Result<ModelSpec> {
    let asked = spec.clone();
    let id = std::thread::scope(|scope| {
        scope
            .spawn(move || -> anyhow::Result<String> {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?;
                Ok(rt.block_on(crate::llm::discover_model(&asked))?)
            })
            .join()
            .map_err(|_| anyhow::anyhow!("asking the server for its model failed"))?
    })?;
    eprintln!("note: --base-url without --model: using the server's only model `{id}`");
    spec.name = id.clone();
    spec.model = Some(id);
    Ok(spec)
}

/// Parses a count of things in flight at once (`--concurrency`, `--items-in-flight`,
/// `--episodes-in-flight`): 1 to [`crate::llm::MAX_CONCURRENCY`], so no later product or
/// semaphore overflows.
pub fn parse_in_flight(s: &str) -> Result<usize, String> {
    parse_count(s, crate::llm::MAX_CONCURRENCY)
}

/// Parses a count flag bounded to `1..=max` (the message names the range).
pub fn parse_count(s: &str, max: usize) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        Ok(_) => Err(format!("must be 1..={max}")),
        Err(e) => Err(format!("not a count: {e}")),
    }
}
