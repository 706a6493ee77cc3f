//! `models.toml`: named model configurations, and CLI overrides on top of them.
//!
//! ```toml
//! default = "qwen"                       # used when --model is not given
//!
//! [models.qwen]                          # an OpenAI-compatible endpoint (kind = "openai")
//! model = "Qwen/Qwen2.5-7B-Instruct"     # name sent to the server (default: the table name)
//! base_urls = ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"]  # or base_url = "…"
//! api_key_env = "VLLM_API_KEY"           # environment variable holding the key (optional)
//! max_concurrency = 64                   # requests in flight per endpoint
//! timeout_secs = 120                     # one HTTP attempt
//! deadline_secs = 600                    # a whole call, retries included
//! max_retries = 6
//! max_body_bytes = 16777216              # largest response body read (default 16 MiB)
//! max_tokens = 512                       # generation settings of this model's calls
//! temperature = 0.7                      #   (--max-tokens/--temperature/--top-p beat them,
//! top_p = 0.95                           #   role cards beat those; see `Sampling`)
//!
//! [models.sim]                           # the offline simulated model
//! kind = "simulated"
//! accuracy = 0.6
//! susceptibility = 0.4
//! answer_key = "answers.jsonl"           # relative to this file
//! seed = 0
//! ```
//!
//! Keys are never stored here, only the name of the variable that holds them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

use super::responder::Responders;
use super::{
    AnswerKey, ApiKey, ClientSettings, EndpointSettings, ModelError, OpenAiClient, RetryPolicy,
    Sampling, SamplingKeys, SharedModel, SimulatedConfig, SimulatedModel,
};

/// Most calls in flight one endpoint may be given (`max_concurrency`, `--concurrency`): far
/// above what any server serves, and far below the semaphore's limit.
pub const MAX_CONCURRENCY: usize = 65_536;

/// Largest `models.toml` read, in bytes (a configuration file, not data).
pub const MAX_MODELS_FILE_BYTES: u64 = 1 << 20;

/// Name of the built-in simulated model, available without any configuration.
pub const SIMULATED_NAME: &str = "sim";

/// Backend of a configured model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelKind {
    /// An OpenAI-compatible HTTP endpoint (or pool).
    #[default]
    Openai,
    /// The in-process [`SimulatedModel`].
    Simulated,
}

/// One `[models.NAME]` table.
///
/// Its file form is flat (`temperature`, `top_p`, `max_tokens` next to the other keys, as in
/// role cards); in memory they are one [`Sampling`], so every consumer lays it over the
/// other layers with [`Sampling::or`] instead of rebuilding it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(from = "ModelSpecFile")]
pub struct ModelSpec {
    /// The table name (filled in on load).
    #[serde(skip)]
    pub name: String,
    /// Backend.
    #[serde(default)]
    pub kind: ModelKind,
    /// Model name sent to the server (default: the table name).
    pub model: Option<String>,
    /// One base URL.
    pub base_url: Option<String>,
    /// Several base URLs serving the same model (a pool).
    #[serde(default)]
    pub base_urls: Vec<String>,
    /// Environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// Most requests in flight per endpoint; the adaptive limit (halved on 429/503, grown
    /// back on success) stays at or below it.
    pub max_concurrency: Option<usize>,
    /// Timeout of one HTTP attempt, seconds.
    pub timeout_secs: Option<f64>,
    /// Bound on a whole call including retries, seconds.
    pub deadline_secs: Option<f64>,
    /// Retries after the first attempt.
    pub max_retries: Option<u32>,
    /// Largest response body read, in bytes (default 16 MiB); a longer one is an error.
    pub max_body_bytes: Option<u64>,
    /// Prompt tokens one request may hold (the server's context per slot, e.g. llama-server's
    /// `--ctx-size` divided by `--parallel`): a prompt estimated larger is refused before it
    /// is sent, as a failed call naming both sizes. Unset: no check.
    pub context_tokens: Option<u64>,
    /// How the server spells a JSON-schema `response_format`: `openai` (default) or `llama`
    /// ([`crate::wire::StructuredSpelling`]).
    pub structured_output: Option<crate::wire::StructuredSpelling>,
    /// Prices per million tokens (`price.prompt_per_mtok`, `price.completion_per_mtok`,
    /// `price.cached_per_mtok`): each call's cost is then reported ([`super::PricedModel`]).
    pub price: Option<super::Price>,
    /// Generation settings of this model's calls (the file's `temperature`, `top_p` and
    /// `max_tokens`; after [`ModelsConfig::resolve`], the flags over the entry's keys).
    pub sampling: Sampling,
    /// Simulated: probability of a correct answer.
    pub accuracy: Option<f64>,
    /// Simulated: probability of adopting peer answers.
    pub susceptibility: Option<f64>,
    /// Simulated: number of distinct wrong answers.
    pub wrong_answers: Option<usize>,
    /// Simulated: answer key JSONL (relative to the config file).
    pub answer_key: Option<PathBuf>,
    /// Simulated: seed.
    pub seed: Option<u64>,
}

/// The file form of a [`ModelSpec`]: every key flat, unknown keys refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelSpecFile {
    #[serde(default)]
    kind: ModelKind,
    model: Option<String>,
    base_url: Option<String>,
    #[serde(default)]
    base_urls: Vec<String>,
    api_key_env: Option<String>,
    max_concurrency: Option<usize>,
    timeout_secs: Option<f64>,
    deadline_secs: Option<f64>,
    max_retries: Option<u32>,
    max_body_bytes: Option<u64>,
    context_tokens: Option<u64>,
    structured_output: Option<crate::wire::StructuredSpelling>,
    price: Option<super::Price>,
    temperature: Option<f32>,
    top_p: Option<f32>,
    max_tokens: Option<u32>,
    accuracy: Option<f64>,
    susceptibility: Option<f64>,
    wrong_answers: Option<usize>,
    answer_key: Option<PathBuf>,
    seed: Option<u64>,
}

impl From<ModelSpecFile> for ModelSpec {
    fn from(f: ModelSpecFile) -> Self {
        Self {
            name: String::new(),
            kind: f.kind,
            model: f.model,
            base_url: f.base_url,
            base_urls: f.base_urls,
            api_key_env: f.api_key_env,
            max_concurrency: f.max_concurrency,
            timeout_secs: f.timeout_secs,
            deadline_secs: f.deadline_secs,
            max_retries: f.max_retries,
            max_body_bytes: f.max_body_bytes,
            context_tokens: f.context_tokens,
            structured_output: f.structured_output,
            price: f.price,
            sampling: Sampling {
                temperature: f.temperature,
                top_p: f.top_p,
                max_tokens: f.max_tokens,
                ..Sampling::default()
            },
            accuracy: f.accuracy,
            susceptibility: f.susceptibility,
            wrong_answers: f.wrong_answers,
            answer_key: f.answer_key,
            seed: f.seed,
        }
    }
}

/// Command-line overrides applied on top of a configured (or default) model.
#[derive(Debug, Clone, Default)]
pub struct ModelOverrides {
    /// `--base-url`: use this endpoint (makes the model an OpenAI-compatible one).
    pub base_url: Option<String>,
    /// `--api-key-env`.
    pub api_key_env: Option<String>,
    /// `--timeout`: bound on the whole call, retries included.
    pub timeout: Option<Duration>,
    /// `--max-retries`.
    pub max_retries: Option<u32>,
    /// `--context-tokens`.
    pub context_tokens: Option<u64>,
    /// `--concurrency` per endpoint.
    pub max_concurrency: Option<usize>,
    /// `--seed` for the simulated model.
    pub seed: Option<u64>,
    /// `--answer-key` for the simulated model.
    pub answer_key: Option<PathBuf>,
    /// `--accuracy` for the simulated model.
    pub accuracy: Option<f64>,
    /// `--temperature`, `--top-p`, `--max-tokens`: beat the model entry's keys.
    pub sampling: Sampling,
}

/// A `[mcp.NAME]` table of `models.toml` or a suite: the server's `command = [...]`
/// (spoken to over stdio) or its streamable-HTTP `url = "…"`; `colony-tools` checks and
/// starts it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerTable {
    /// Program and arguments.
    pub command: Option<Vec<String>>,
    /// Streamable-HTTP URL.
    pub url: Option<String>,
}

/// The contents of a `models.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelsConfig {
    /// Model used when none is named.
    pub default: Option<String>,
    /// Named models.
    #[serde(default)]
    pub models: BTreeMap<String, ModelSpec>,
    /// MCP servers agents may use (`[mcp.NAME]` tables), offered with `--tools mcp:NAME`.
    #[serde(default)]
    pub mcp: BTreeMap<String, McpServerTable>,
    /// File it was loaded from.
    #[serde(skip)]
    pub path: Option<PathBuf>,
}

impl ModelsConfig {
    /// Parses a `models.toml`; errors name the file, line and field.
    pub fn load(path: &Path) -> Result<Self, ModelError> {
        let text = colony_env_api::bounded::read_string(path, MAX_MODELS_FILE_BYTES)
            .map_err(|e| ModelError::Config(e.to_string()))?;
        Self::parse(&text, Some(path))
    }

    /// Parses TOML text; `path` is used in errors and to resolve relative paths.
    pub fn parse(text: &str, path: Option<&Path>) -> Result<Self, ModelError> {
        let shown = path.map_or("models.toml".to_string(), |p| p.display().to_string());
        // One line naming the file and line (toml's own message spans several, with a
        // picture of the line).
        let mut cfg: ModelsConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| {
                text.get(..s.start)
                    .map_or(1, |t| t.matches('\n').count() + 1)
            });
            let message = e.message().replace('\n', " ");
            ModelError::Config(format!("{shown}:{line}: {}", message.trim()))
        })?;
        let base = path.and_then(Path::parent).map(Path::to_path_buf);
        for (name, spec) in &mut cfg.models {
            spec.name = name.clone();
            spec.sampling
                .validate(SamplingKeys::Keys)
                .map_err(|e| ModelError::Config(format!("{shown}: model {name}: {e}")))?;
            if let (Some(k), Some(base)) = (&spec.answer_key, &base) {
                if k.is_relative() {
                    spec.answer_key = Some(base.join(k));
                }
            }
        }
        if let Some(d) = &cfg.default {
            if !cfg.models.contains_key(d) && d != SIMULATED_NAME {
                return Err(ModelError::Config(format!(
                    "{shown}: default model {d:?} is not defined under [models]"
                )));
            }
        }
        cfg.path = path.map(Path::to_path_buf);
        Ok(cfg)
    }

    /// Finds the config: `explicit`, else `$COLONY_MODELS`, else `./models.toml`; none is an
    /// empty config (only the simulated model and `--base-url` work then).
    pub fn discover(explicit: Option<&Path>) -> Result<Self, ModelError> {
        if let Some(p) = explicit {
            return Self::load(p);
        }
        if let Some(p) = std::env::var_os("COLONY_MODELS") {
            return Self::load(Path::new(&p));
        }
        let local = Path::new("models.toml");
        if local.is_file() {
            return Self::load(local);
        }
        Ok(Self::default())
    }

    /// The spec for `name` (or the default) with `overrides` applied.
    pub fn resolve(
        &self,
        name: Option<&str>,
        overrides: &ModelOverrides,
    ) -> Result<ModelSpec, ModelError> {
        let name = name.or(self.default.as_deref());
        let mut spec = match name {
            Some(n) => match self.models.get(n) {
                Some(s) => s.clone(),
                None if overrides.base_url.is_some() => ModelSpec {
                    name: n.to_string(),
                    model: Some(n.to_string()),
                    ..ModelSpec::default()
                },
                None if n == SIMULATED_NAME => simulated_spec(),
                None => {
                    let known: Vec<&str> = self.models.keys().map(String::as_str).collect();
                    return Err(ModelError::Config(format!(
                        "unknown model {n:?}; configured: [{}] (plus the built-in {SIMULATED_NAME:?}); \
                         pass --base-url to use an endpoint directly",
                        known.join(", ")
                    )));
                }
            },
            None if overrides.base_url.is_some() => ModelSpec {
                name: UNNAMED_ENDPOINT_MODEL.into(),
                ..ModelSpec::default()
            },
            None => simulated_spec(),
        };
        if let Some(url) = &overrides.base_url {
            spec.kind = ModelKind::Openai;
            spec.base_url = Some(url.clone());
            spec.base_urls.clear();
        }
        let o = overrides;
        spec.api_key_env = o.api_key_env.clone().or(spec.api_key_env);
        spec.deadline_secs = o.timeout.map(|t| t.as_secs_f64()).or(spec.deadline_secs);
        spec.max_retries = o.max_retries.or(spec.max_retries);
        spec.context_tokens = o.context_tokens.or(spec.context_tokens);
        spec.max_concurrency = o.max_concurrency.or(spec.max_concurrency);
        spec.seed = o.seed.or(spec.seed);
        spec.answer_key = o.answer_key.clone().or(spec.answer_key);
        spec.accuracy = o.accuracy.or(spec.accuracy);
        spec.sampling = o.sampling.or(&spec.sampling);
        Ok(spec)
    }
}

pub use super::client::MAX_CONTEXT_TOKENS;

/// The name of a model given only by `--base-url` (no `--model`, no `default` in
/// models.toml); the command line replaces it by the server's one model
/// ([`super::discover_model`]).
pub const UNNAMED_ENDPOINT_MODEL: &str = "default";

fn simulated_spec() -> ModelSpec {
    ModelSpec {
        name: SIMULATED_NAME.into(),
        kind: ModelKind::Simulated,
        ..ModelSpec::default()
    }
}

fn secs(field: &str, name: &str, v: f64) -> Result<Duration, ModelError> {
    Duration::try_from_secs_f64(v)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            ModelError::Config(format!(
                "model {name}: {field} must be a positive number of seconds, got {v}"
            ))
        })
}

fn probability(field: &str, name: &str, v: f64) -> Result<f64, ModelError> {
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(ModelError::Config(format!(
            "model {name}: {field} must be in [0, 1], got {v}"
        )))
    }
}

impl ModelSpec {
    /// The model name sent to servers.
    pub fn wire_model(&self) -> &str {
        self.model.as_deref().unwrap_or(&self.name)
    }

    /// The id the built model reports (what replay caches are keyed by), without building it.
    pub fn build_id(&self) -> String {
        match self.kind {
            ModelKind::Openai => self.wire_model().to_string(),
            ModelKind::Simulated => self.model.clone().unwrap_or_else(|| self.name.clone()),
        }
    }

    /// All base URLs of this model.
    pub fn endpoints(&self) -> Vec<String> {
        self.base_url
            .iter()
            .chain(&self.base_urls)
            .cloned()
            .collect()
    }

    /// This spec with every base URL's credentials masked ([`super::redact_url`]), for logs
    /// and messages (`-vv` must not print a password or query key).
    pub fn redacted(&self) -> ModelSpec {
        let mut out = self.clone();
        out.base_url = out.base_url.as_deref().map(super::redact_url);
        out.base_urls = out.base_urls.iter().map(|u| super::redact_url(u)).collect();
        out
    }

    /// Builds the OpenAI-compatible client (kind `openai`).
    pub fn build_client(&self) -> Result<OpenAiClient, ModelError> {
        let name = &self.name;
        let mut settings = ClientSettings::new(self.wire_model());
        if let Some(t) = self.timeout_secs {
            settings.request_timeout = secs("timeout_secs", name, t)?;
        }
        if let Some(d) = self.deadline_secs {
            settings.deadline = Some(secs("deadline_secs", name, d)?);
            // A request timeout longer than the deadline would never fire.
            settings.request_timeout =
                settings
                    .request_timeout
                    .min(secs("deadline_secs", name, d)?);
        }
        if let Some(n) = self.max_body_bytes {
            settings.max_body_bytes =
                usize::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
                    ModelError::Config(format!(
                        "model {name}: max_body_bytes must be a positive number of bytes, got {n}"
                    ))
                })?;
        }
        if let Some(n) = self.context_tokens {
            check_context_tokens(name, n)?;
            settings.context_tokens = Some(n);
        }
        if let Some(spelling) = self.structured_output {
            settings.structured = spelling;
        }
        settings.retry = RetryPolicy {
            max_retries: self
                .max_retries
                .unwrap_or(RetryPolicy::default().max_retries),
            ..RetryPolicy::default()
        };
        let max_concurrency = self.max_concurrency.unwrap_or(64);
        if !(1..=MAX_CONCURRENCY).contains(&max_concurrency) {
            return Err(ModelError::Config(format!(
                "model {name}: max_concurrency (or --concurrency) must be 1..={MAX_CONCURRENCY}, got {max_concurrency}"
            )));
        }
        let api_key = self
            .api_key_env
            .as_deref()
            .map(ApiKey::from_env)
            .transpose()?;
        let endpoints = self
            .endpoints()
            .into_iter()
            .map(|base_url| EndpointSettings {
                base_url,
                api_key: api_key.clone(),
                max_concurrency,
            })
            .collect();
        OpenAiClient::new(settings, endpoints)
    }

    /// The simulated model's settings (kind `simulated`), taught by `responders` (the run's
    /// registry's chain, handed over by the door that builds the model).
    pub fn simulated_config(&self, responders: &Responders) -> Result<SimulatedConfig, ModelError> {
        let name = &self.name;
        let d = SimulatedConfig::default();
        Ok(SimulatedConfig {
            name: self.model.clone().unwrap_or_else(|| self.name.clone()),
            seed: self.seed.unwrap_or(d.seed),
            accuracy: probability("accuracy", name, self.accuracy.unwrap_or(d.accuracy))?,
            susceptibility: probability(
                "susceptibility",
                name,
                self.susceptibility.unwrap_or(d.susceptibility),
            )?,
            wrong_answers: self.wrong_answers.unwrap_or(d.wrong_answers),
            answer_key: match &self.answer_key {
                Some(p) => AnswerKey::load(p)?,
                None => AnswerKey::new(),
            },
            responders: responders.clone(),
            ..d
        })
    }

    /// `model` priced at this spec's price, when it has one (each answer then carries its
    /// cost); `model` itself otherwise. Applied outside record/replay (see
    /// [`super::PricedModel`]).
    pub fn priced(&self, model: SharedModel) -> Result<SharedModel, ModelError> {
        Ok(match self.price {
            Some(price) => {
                price.check(&self.name)?;
                Arc::new(super::PricedModel::new(model, price))
            }
            None => model,
        })
    }

    /// Builds the model this spec describes; a simulated model is taught by `responders`.
    pub fn build(&self, responders: &Responders) -> Result<SharedModel, ModelError> {
        // Checked for every kind: the simulated model takes no context window, but a value an
        // HTTP model refuses must not pass silently because the model is offline.
        if let Some(n) = self.context_tokens {
            check_context_tokens(&self.name, n)?;
        }
        Ok(match self.kind {
            ModelKind::Openai => Arc::new(self.build_client()?),
            ModelKind::Simulated => {
                Arc::new(SimulatedModel::new(self.simulated_config(responders)?))
            }
        })
    }
}

/// `context_tokens` must be `1..=MAX_CONTEXT_TOKENS`.
fn check_context_tokens(name: &str, n: u64) -> Result<(), ModelError> {
    if (1..=MAX_CONTEXT_TOKENS).contains(&n) {
        Ok(())
    } else {
        Err(ModelError::Config(format!(
            "model {name}: context_tokens (or --context-tokens) must be 1..={MAX_CONTEXT_TOKENS}, got {n}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOML: &str = r#"
default = "qwen"
[models.qwen]
model = "Qwen/Qwen2.5-7B-Instruct"
base_urls = ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"]
max_retries = 2
max_body_bytes = 1048576
[models.sim2]
kind = "simulated"
accuracy = 0.9
"#;

    #[test]
    fn resolves_names_defaults_and_overrides() {
        let cfg = ModelsConfig::parse(TOML, None).unwrap();
        let q = cfg.resolve(None, &ModelOverrides::default()).unwrap();
        assert_eq!(q.wire_model(), "Qwen/Qwen2.5-7B-Instruct");
        assert_eq!(q.endpoints().len(), 2);
        let o = ModelOverrides {
            base_url: Some("http://127.0.0.1:9/v1".into()),
            max_retries: Some(0),
            ..ModelOverrides::default()
        };
        let q = cfg.resolve(Some("qwen"), &o).unwrap();
        assert_eq!(q.endpoints(), ["http://127.0.0.1:9/v1"]);
        assert_eq!(q.max_retries, Some(0));
        let c = q.build_client().unwrap();
        assert_eq!(c.base_urls(), ["http://127.0.0.1:9/v1"]);
        assert_eq!(c.settings().max_body_bytes, 1 << 20);
        // An unknown name with --base-url is used as the wire model name.
        let x = cfg.resolve(Some("llama3"), &o).unwrap();
        assert_eq!(x.wire_model(), "llama3");
        let s = cfg
            .resolve(Some("sim2"), &ModelOverrides::default())
            .unwrap();
        assert_eq!(
            s.simulated_config(&Responders::default()).unwrap().accuracy,
            0.9
        );
        let builtin = ModelsConfig::default()
            .resolve(None, &ModelOverrides::default())
            .unwrap();
        assert_eq!(builtin.kind, ModelKind::Simulated);
    }

    #[test]
    fn sampling_keys_resolve_with_flags_first_and_are_checked() {
        let toml = "[models.cpu]\nbase_url = \"http://127.0.0.1:9/v1\"\nmax_tokens = 256\n\
                    temperature = 0.7\ntop_p = 0.9\n";
        let cfg = ModelsConfig::parse(toml, None).unwrap();
        let plain = cfg
            .resolve(Some("cpu"), &ModelOverrides::default())
            .unwrap();
        assert_eq!(
            plain.sampling,
            Sampling {
                temperature: Some(0.7),
                top_p: Some(0.9),
                max_tokens: Some(256),
                ..Sampling::default()
            }
        );
        // A flag beats the entry's key; the keys no flag sets stay.
        let o = ModelOverrides {
            sampling: Sampling {
                max_tokens: Some(17),
                ..Sampling::default()
            },
            ..ModelOverrides::default()
        };
        let s = cfg.resolve(Some("cpu"), &o).unwrap().sampling;
        assert_eq!(
            (s.max_tokens, s.temperature, s.top_p),
            (Some(17), Some(0.7), Some(0.9))
        );
        // Nothing configured: nothing set (the command's built-in default applies).
        let sim = cfg
            .resolve(Some("sim"), &ModelOverrides::default())
            .unwrap();
        assert!(sim.sampling.is_empty());
        let err = ModelsConfig::parse(
            "[models.a]\nbase_url = \"http://x/v1\"\ntop_p = 0\n",
            Some(Path::new("m.toml")),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("m.toml: model a: `top_p` must be in (0, 1], got 0"),
            "{err}"
        );
        let err = ModelsConfig::parse("[models.a]\nmax_tokens = 0\n", None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("model a: `max_tokens` must be from 1"),
            "{err}"
        );
    }

    #[test]
    fn bad_configs_are_clear_errors() {
        let cfg = ModelsConfig::parse(TOML, None).unwrap();
        let err = cfg
            .resolve(Some("nope"), &ModelOverrides::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown model \"nope\"") && err.contains("qwen"),
            "{err}"
        );
        let err = ModelsConfig::parse("[models.a]\nbase_url = 3\n", Some(Path::new("m.toml")))
            .unwrap_err()
            .to_string();
        assert!(err.contains("m.toml:2:"), "{err}");
        let err = ModelsConfig::parse("[models.a]\nbase_ulr = \"x\"\n", None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("base_ulr"), "{err}");
        let err = ModelsConfig::parse("default = \"zz\"\n", None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"zz\""), "{err}");
        let spec = ModelSpec {
            name: "s".into(),
            accuracy: Some(1.5),
            ..simulated_spec()
        };
        assert!(spec.build(&Responders::default()).is_err());
        let spec = ModelSpec {
            name: "e".into(),
            base_url: Some("ftp://x".into()),
            ..ModelSpec::default()
        };
        assert!(spec
            .build_client()
            .unwrap_err()
            .to_string()
            .contains("http://"));
        let spec = ModelSpec {
            name: "z".into(),
            base_url: Some("http://127.0.0.1:9/v1".into()),
            max_body_bytes: Some(0),
            ..ModelSpec::default()
        };
        assert!(spec
            .build_client()
            .unwrap_err()
            .to_string()
            .contains("max_body_bytes must be a positive"));
        let spec = ModelSpec {
            name: "n".into(),
            ..ModelSpec::default()
        };
        assert!(spec
            .build_client()
            .unwrap_err()
            .to_string()
            .contains("no endpoint"));
    }
}
