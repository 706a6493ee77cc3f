//! colony: LLM multi-agent orchestration with pluggable environments.
//!
//! - [`llm`]: the `ChatModel` trait, the OpenAI-compatible client, simulated and replay models,
//!   usage accounting.
//! - [`embed`]: the `Embedder` trait and its backends.
//! - [`runtime`]: the actor runtime (agents as tokio tasks, teams, transcripts, budgets).
//! - [`mock_server`]: `colony serve-mock`, an OpenAI-compatible server on loopback backed by the
//!   simulated model, with fault injection for tests.
//! - [`policy`] and [`eval`]: coordination policies and the evaluation runner.
//! - [`suite`]: suites (`colony run`), shards and `colony merge`.
//! - [`view`]: `colony view`, one self-contained HTML page of a run directory.
//!
//! - [`registry`]: the open registry of policies and environments (built-ins and plugins alike).
//! - [`env`]: environments by id (construction, seeds, simulated agents), from the registry.
//!
//! Environments live in their own synchronous crates under `environments/`; their shared trait
//! is re-exported as [`env_api`].

/// The `colony` command line as a library ([`cli::main_with`]). Built with `serve-mock`;
/// without the `minilm` and `parquet` features (`full` turns on both), `--embedder minilm:…`
/// and `.parquet` datasets are clear errors naming the flag.
#[cfg(feature = "serve-mock")]
pub mod cli;

/// `colony serve-mock`, the OpenAI-compatible test server (feature `serve-mock`).
#[cfg(feature = "serve-mock")]
pub use colony_eval::mock_server;
/// Evaluation, suites, the viewer and the studies: the `colony-eval` crate.
pub use colony_eval::{eval, study, suite, view};
/// Models, embedders and stable hashing: the `colony-llm` crate (the bottom floor).
pub use colony_llm as llm;
pub use colony_llm::{embed, stable_hash};
/// Policies, the registry and environment lookup: the `colony-policy` crate.
pub use colony_policy as policy;
pub use colony_policy::{env, registry};
/// The actor runtime: the `colony-runtime` crate.
pub use colony_runtime as runtime;

/// The `Environment` trait shared by every environment crate.
pub use colony_env_api as env_api;
/// The reasoning-dataset crate (items, loaders, graders), for plugins that register datasets.
pub use colony_qa as qa;
/// The sandbox model-written code runs in (`crates/colony-sandbox`).
pub use colony_sandbox as sandbox;
/// Tools agents can call: `python`, `calculator`, MCP servers (`colony-tools`).
pub use colony_tools as tools;
