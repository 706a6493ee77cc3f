//! The open registry: every name a run can use — reasoning policies, embodied policies,
//! environments — with a one-line help and a constructor that parses its own options.
//!
//! Decision (after Gymnasium's `register` and Inspect's registry): colony's
//! own built-ins are registered by [`Registry::builtin`] through exactly the public builder
//! methods a user's crate calls, so a plugin is a peer of a built-in.
//!
//! Decision (docs/design/architecture.md §1, "resolve at the door"): there is no process-wide
//! registry. The door (`colony::cli::main_with`, a suite, the Python front, a test) holds one
//! registry and resolves every name of a run through it into objects
//! ([`Registry::environment_entry`], [`Registry::embodied_factory`], [`Registry::reasoning`],
//! [`Registry::find_dataset`]); the layers below receive those objects, never names. Names are unique: registering a name twice
//! is reported by [`Registry::check`] (the builder cannot fail mid-chain).
//!
//! Simulated-model responders ([`colony_llm::responder`]) are registered here too and handed
//! to each simulated model the door builds ([`Registry::responders`]): first those added with
//! [`Registry::responder`], then one per environment with a simulated agent, then those
//! added with [`Registry::fallback_responder`].
//!
//! Datasets ([`DatasetEntry`]: loader and grader), prompt templates (hashed into suite
//! manifests) and the default role cards of reasoning rosters are registered the same way, so a
//! plugin's dataset runs under `eval`, `grade`, `datasets` and suites, and a plugin's prompts
//! are recorded in every manifest.

mod builtin;
mod code_judge;
mod dataset;
mod embodied_builtin;
mod reasoning_builtin;
mod tools;

pub use code_judge::{pass_at_k, CodeGradeError, CodeJudge, HUMANEVAL_TIMEOUT_SECS};
pub use dataset::{DatasetEntry, DatasetGrader, DatasetLoader};
/// The built-in embodied policies (name, help, constructor), as [`Registry::builtin`] registers them.
pub use embodied_builtin::BUILTIN as BUILTIN_EMBODIED;
/// The built-in reasoning policies (name, aliases, help, constructor), in `colony eval --help` order.
pub use reasoning_builtin::BUILTIN as BUILTIN_REASONING;
pub use tools::{ToolCtor, ToolEntry};

use std::sync::Arc;

use colony_env_api::{clip, EnvEntry};
use colony_qa::Dataset;
use thiserror::Error;

use crate::embodied::{EmbodiedError, EmbodiedFactory, EmbodiedPolicy, PolicyContext};
use crate::reasoning::{PolicyError, PolicyOptions, ReasoningContext, ReasoningPolicy};
use colony_llm::responder::{Prompt, Responder, Responders, Response};

/// A reasoning policy constructor: reads its options and builds the policy.
pub type ReasoningCtor = Arc<
    dyn Fn(&mut PolicyOptions, &ReasoningContext) -> Result<Box<dyn ReasoningPolicy>, PolicyError>
        + Send
        + Sync,
>;

/// An embodied policy constructor: the spec's options (read through the one [`PolicyOptions`]
/// parser; the registry refuses what is left unread) and the episode's context.
pub type EmbodiedCtor = Arc<
    dyn Fn(&mut PolicyOptions, &PolicyContext) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError>
        + Send
        + Sync,
>;

/// One registered reasoning policy.
#[derive(Clone)]
pub struct ReasoningEntry {
    /// The name specs use (`selforg`).
    pub name: String,
    /// Other names for it (`sc` for `self_consistency`).
    pub aliases: Vec<String>,
    /// One line: what it is and its options.
    pub help: String,
    build: ReasoningCtor,
}

/// One registered embodied policy.
#[derive(Clone)]
pub struct EmbodiedEntry {
    /// The name specs use (`camon`).
    pub name: String,
    /// One line: what it is and its options.
    pub help: String,
    /// Whether it calls models (runs without a model refuse it); a heuristic says no.
    pub uses_models: bool,
    build: EmbodiedCtor,
}

/// Errors of [`Registry::check`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// A name was registered twice (of the same kind).
    #[error("registry: {kind} `{name}` is registered twice")]
    Duplicate {
        /// `reasoning policy`, `embodied policy`, `environment`, `dataset`, `template` or
        /// `role card`.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A role card registered for the default roster does not parse.
    #[error("registry: role card `{file}`: {message}")]
    RoleCard {
        /// The card's file name as registered.
        file: String,
        /// What is wrong with it.
        message: String,
    },
}

/// A responder as registered: ready, or made from the registry's environments when the chain
/// is assembled (a framework's simulated agents act through the environments' own).
#[derive(Clone)]
enum ResponderSlot {
    Ready(Arc<dyn Responder>),
    OverEnvironments(MakeResponder),
}

/// Makes a responder from the registry's environments.
pub type MakeResponder = Arc<dyn Fn(&[&'static dyn EnvEntry]) -> Arc<dyn Responder> + Send + Sync>;

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("reasoning", &self.reasoning_names())
            .field("embodied", &self.embodied_names())
            .field("environments", &self.environments)
            .field("datasets", &self.datasets.len())
            .finish_non_exhaustive()
    }
}

impl ResponderSlot {
    fn get(&self, environments: &[&'static dyn EnvEntry]) -> Arc<dyn Responder> {
        match self {
            Self::Ready(r) => r.clone(),
            Self::OverEnvironments(make) => make(environments),
        }
    }
}

/// The registry: see the module docs.
#[derive(Clone, Default)]
pub struct Registry {
    reasoning: Vec<ReasoningEntry>,
    embodied: Vec<EmbodiedEntry>,
    environments: Vec<&'static dyn EnvEntry>,
    responders: Vec<ResponderSlot>,
    fallback_responders: Vec<ResponderSlot>,
    datasets: Vec<DatasetEntry>,
    templates: Vec<(&'static str, &'static str)>,
    role_cards: Vec<(String, &'static str)>,
    tools: Vec<ToolEntry>,
    /// The first name registered twice, reported by [`Registry::check`].
    duplicate: Option<RegistryError>,
}

impl Registry {
    /// A registry with nothing in it.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Everything colony ships, registered through the public methods below.
    pub fn builtin() -> Self {
        builtin::register(Self::empty())
    }

    /// Adds a reasoning policy `name` (aliases may follow with [`Registry::alias`]).
    pub fn reasoning_policy<F>(mut self, name: &str, help: &str, build: F) -> Self
    where
        F: Fn(
                &mut PolicyOptions,
                &ReasoningContext,
            ) -> Result<Box<dyn ReasoningPolicy>, PolicyError>
            + Send
            + Sync
            + 'static,
    {
        if self.find_reasoning(name).is_some() {
            self.note_duplicate("reasoning policy", name);
        }
        self.reasoning.push(ReasoningEntry {
            name: name.to_string(),
            aliases: Vec::new(),
            help: help.to_string(),
            build: Arc::new(build),
        });
        self
    }

    /// Adds `alias` as another name of the reasoning policy registered last.
    pub fn alias(mut self, alias: &str) -> Self {
        if self.find_reasoning(alias).is_some() {
            self.note_duplicate("reasoning policy", alias);
        }
        if let Some(last) = self.reasoning.last_mut() {
            last.aliases.push(alias.to_string());
        }
        self
    }

    /// Adds an embodied policy `name` that calls models.
    pub fn embodied_policy<F>(self, name: &str, help: &str, build: F) -> Self
    where
        F: Fn(&mut PolicyOptions, &PolicyContext) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError>
            + Send
            + Sync
            + 'static,
    {
        self.embodied_entry(name, help, true, Arc::new(build))
    }

    /// Adds an embodied policy `name` that never calls a model (a heuristic baseline).
    pub fn embodied_heuristic<F>(self, name: &str, help: &str, build: F) -> Self
    where
        F: Fn(&mut PolicyOptions, &PolicyContext) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError>
            + Send
            + Sync
            + 'static,
    {
        self.embodied_entry(name, help, false, Arc::new(build))
    }

    fn embodied_entry(
        mut self,
        name: &str,
        help: &str,
        uses_models: bool,
        build: EmbodiedCtor,
    ) -> Self {
        if self.embodied.iter().any(|e| e.name == name) {
            self.note_duplicate("embodied policy", name);
        }
        self.embodied.push(EmbodiedEntry {
            name: name.to_string(),
            help: help.to_string(),
            uses_models,
            build,
        });
        self
    }

    /// Adds an environment (its crate's `entry()`); it answers to its id and short name.
    pub fn environment(mut self, entry: &'static dyn EnvEntry) -> Self {
        let id = entry.info().id;
        if self.environments.iter().any(|e| e.info().id == id) {
            self.note_duplicate("environment", &id);
        }
        self.environments.push(entry);
        self
    }

    /// Adds a reasoning dataset (`--dataset NAME`, a suite's `dataset`).
    pub fn dataset(mut self, entry: DatasetEntry) -> Self {
        if self.find_dataset(&entry.name).is_ok() {
            self.note_duplicate("dataset", &entry.name);
        }
        self.datasets.push(entry);
        self
    }

    /// Adds a prompt template by name (`myplugin/vote`): suite manifests record its SHA-256, so
    /// an edited prompt shows up as a changed run. Environments' templates come from
    /// [`EnvEntry::templates`] and need no registration.
    pub fn template(mut self, name: &'static str, text: &'static str) -> Self {
        if self.templates.iter().any(|(n, _)| *n == name) {
            self.note_duplicate("template", name);
        }
        self.templates.push((name, text));
        self
    }

    /// Adds a role card (its file name and TOML text) to the default roster of reasoning runs,
    /// used when a run names no `--roles` folder; cards are taken in registration order.
    pub fn role_card(mut self, file: &str, toml: &'static str) -> Self {
        if self.role_cards.iter().any(|(f, _)| f == file) {
            self.note_duplicate("role card", file);
        }
        if let Err(e) = colony_runtime::RoleCard::parse(toml, file) {
            self.duplicate.get_or_insert(RegistryError::RoleCard {
                file: file.to_string(),
                message: e.to_string(),
            });
        }
        self.role_cards.push((file.to_string(), toml));
        self
    }

    /// Adds a simulated-model responder, asked before the environments' simulated agents.
    pub fn responder(mut self, responder: impl Responder + 'static) -> Self {
        self.responders
            .push(ResponderSlot::Ready(Arc::new(responder)));
        self
    }

    /// Adds a simulated-model responder asked after the environments' simulated agents.
    pub fn fallback_responder(mut self, responder: impl Responder + 'static) -> Self {
        self.fallback_responders
            .push(ResponderSlot::Ready(Arc::new(responder)));
        self
    }

    /// Adds a responder made from every environment of the registry (those registered later
    /// included), asked before the environments' simulated agents.
    pub fn responder_over_environments<F>(mut self, make: F) -> Self
    where
        F: Fn(&[&'static dyn EnvEntry]) -> Arc<dyn Responder> + Send + Sync + 'static,
    {
        self.responders
            .push(ResponderSlot::OverEnvironments(Arc::new(make)));
        self
    }

    /// [`Registry::responder_over_environments`], asked after the environments' agents.
    pub fn fallback_responder_over_environments<F>(mut self, make: F) -> Self
    where
        F: Fn(&[&'static dyn EnvEntry]) -> Arc<dyn Responder> + Send + Sync + 'static,
    {
        self.fallback_responders
            .push(ResponderSlot::OverEnvironments(Arc::new(make)));
        self
    }

    /// The responder chain a simulated model of this registry asks, in order (see the module
    /// docs).
    pub fn responders(&self) -> Responders {
        let envs = self
            .environments
            .iter()
            .map(|e| Arc::new(EnvResponder(*e)) as Arc<dyn Responder>);
        let slot = |s: &ResponderSlot| s.get(&self.environments);
        Responders::new(
            self.responders
                .iter()
                .map(slot)
                .chain(envs)
                .chain(self.fallback_responders.iter().map(slot))
                .collect(),
        )
    }

    fn note_duplicate(&mut self, kind: &'static str, name: &str) {
        self.duplicate.get_or_insert(RegistryError::Duplicate {
            kind,
            name: name.to_string(),
        });
    }

    /// The first problem of this registry (a name registered twice), if any.
    pub fn check(&self) -> Result<(), RegistryError> {
        self.duplicate.clone().map_or(Ok(()), Err)
    }

    /// The reasoning policies, in registration order.
    pub fn reasoning_policies(&self) -> &[ReasoningEntry] {
        &self.reasoning
    }

    /// The embodied policies, in registration order.
    pub fn embodied_policies(&self) -> &[EmbodiedEntry] {
        &self.embodied
    }

    /// The environments, in registration order.
    pub fn environments(&self) -> &[&'static dyn EnvEntry] {
        &self.environments
    }

    /// The environment named `name` (its id, `cube-v0`, or short name, `cube`); an unknown
    /// name is an error listing the registered ids.
    pub fn environment_entry(
        &self,
        name: &str,
    ) -> Result<&'static dyn EnvEntry, crate::env::EnvLookupError> {
        crate::env::find_in(&self.environments, name)
    }

    /// The environment `name` built from `key=value` settings (not yet reset), with its entry.
    pub fn build_environment<S: AsRef<str>>(
        &self,
        name: &str,
        settings: &[S],
    ) -> Result<
        (
            &'static dyn EnvEntry,
            Box<dyn colony_env_api::DynEnvironment>,
        ),
        crate::env::EnvLookupError,
    > {
        let entry = self.environment_entry(name)?;
        Ok((entry, crate::env::build(entry, settings)?))
    }

    /// The datasets, in registration order.
    pub fn datasets(&self) -> &[DatasetEntry] {
        &self.datasets
    }

    /// The dataset `name`; an unknown name is an error listing the registered ones.
    pub fn find_dataset(&self, name: &str) -> Result<&DatasetEntry, colony_qa::UnknownName> {
        // Names match case-insensitively with `_` for `-`, and the published datasets keep
        // their aliases (`math-500`, `aqua`, `aime`).
        let norm = |n: &str| n.trim().to_ascii_lowercase().replace('_', "-");
        let canonical = name
            .parse::<Dataset>()
            .map_or_else(|_| norm(name), |d| d.name().to_string());
        self.datasets
            .iter()
            .find(|d| d.name == name)
            .or_else(|| self.datasets.iter().find(|d| norm(&d.name) == canonical))
            .ok_or_else(|| colony_qa::UnknownName {
                kind: "dataset",
                given: clip(name),
                valid: self
                    .datasets
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// The registered prompt templates (name, text), in registration order.
    pub fn templates(&self) -> &[(&'static str, &'static str)] {
        &self.templates
    }

    /// The default roster's role cards (file name, TOML text), in registration order.
    pub fn role_cards(&self) -> &[(String, &'static str)] {
        &self.role_cards
    }

    fn find_reasoning(&self, name: &str) -> Option<&ReasoningEntry> {
        self.reasoning
            .iter()
            .find(|e| e.name == name || e.aliases.iter().any(|a| a == name))
    }

    /// Builds the reasoning policy of `spec` (`name` or `name:key=value,…`); unknown names
    /// and options are errors listing what exists.
    pub fn reasoning(
        &self,
        spec: &str,
        ctx: &ReasoningContext,
    ) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
        let (name, rest) = match spec.split_once(':') {
            Some((name, rest)) => (name.trim(), rest),
            None => (spec.trim(), ""),
        };
        let options = PolicyOptions::parse(name, rest)?;
        let entry = self
            .find_reasoning(name)
            .ok_or_else(|| PolicyError::UnknownPolicy {
                name: clip(name),
                known: self.reasoning_names().join(", "),
            })?;
        options.read(|o| (entry.build)(o, ctx))
    }

    /// The reasoning policy names (aliases left out), in registration order.
    pub fn reasoning_names(&self) -> Vec<&str> {
        self.reasoning.iter().map(|e| e.name.as_str()).collect()
    }

    /// Resolves the embodied policy `spec` (`name`, `name:options` or `scripted:<name>`) for
    /// runs on `entry`: the name is looked up once and the options are checked by building
    /// the policy once for `entry` (seed 0, no model: constructors only read their options),
    /// so a typo fails at the door; unknown names and options are errors listing what exists.
    pub fn embodied_factory(
        &self,
        spec: &str,
        entry: &'static dyn EnvEntry,
    ) -> Result<EmbodiedFactory, EmbodiedError> {
        let spec = spec.trim();
        let factory = if let Some(name) = spec.strip_prefix("scripted:") {
            EmbodiedFactory::scripted(name)
        } else {
            let (name, options) = spec.split_once(':').unwrap_or((spec, ""));
            let name = name.trim();
            let Some(e) = self.embodied.iter().find(|e| e.name == name) else {
                let mut scripted = vec!["random", "noop"];
                scripted.extend(entry.policy_names());
                return Err(EmbodiedError::Config {
                    policy: clip(name),
                    message: format!(
                        "unknown policy {:?}; known: {}, scripted:<{}>",
                        clip(name),
                        self.embodied_names().join(", "),
                        scripted.join("|")
                    ),
                });
            };
            // The options parse once here (a malformed part fails at the door); each episode
            // reads a fresh copy, and what its constructor leaves unread is refused.
            let parsed = PolicyOptions::parse(name, options)?;
            let build = e.build.clone();
            EmbodiedFactory::new(spec, e.uses_models, move |ctx: &PolicyContext| {
                parsed.clone().read(|o| build(o, ctx))
            })
        };
        factory.build(&PolicyContext {
            entry,
            seed: 0,
            caller: crate::embodied::CallerConfig::default(),
        })?;
        Ok(factory)
    }

    /// The embodied policy names, in registration order.
    pub fn embodied_names(&self) -> Vec<&str> {
        self.embodied.iter().map(|e| e.name.as_str()).collect()
    }
}

/// An environment's simulated agent ([`EnvEntry::simulated_reply`]) as a responder.
struct EnvResponder(&'static dyn EnvEntry);

impl Responder for EnvResponder {
    fn name(&self) -> &str {
        "environment"
    }

    fn prompt(&self, p: &Prompt<'_>) -> Response {
        self.0
            .simulated_reply(p.system, p.user, p.accuracy, p.draw)
            .map_or(Response::Pass, Response::Reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_holds_every_shipped_name_and_duplicates_are_reported() {
        let r = Registry::builtin();
        assert!(r.check().is_ok());
        assert!(r.reasoning_names().contains(&"selforg"));
        assert!(r.embodied_names().contains(&"camon"));
        let ids: Vec<String> = r.environments().iter().map(|e| e.info().id).collect();
        assert_eq!(ids, ["cube-v0", "swarmbench-v0", "wildfire-v0"]);
        let ctx = ReasoningContext::new(Arc::new(colony_llm::embed::default_embedder()));
        assert_eq!(
            r.reasoning("sc:k=3", &ctx)
                .map(|p| p.name().to_string())
                .ok()
                .as_deref(),
            Some("self_consistency")
        );
        let twice = Registry::builtin().reasoning_policy("cot", "again", |_, _| {
            Err(PolicyError::Config("never built".into()))
        });
        assert_eq!(
            twice.check(),
            Err(RegistryError::Duplicate {
                kind: "reasoning policy",
                name: "cot".into()
            })
        );
        let err = r.reasoning("chess", &ctx).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("chess") && e.contains("selforg")));
    }

    #[test]
    fn datasets_templates_and_role_cards_are_registered_and_checked() {
        let r = Registry::builtin();
        assert_eq!(r.datasets().len(), Dataset::all().len());
        let name = |n: &str| r.find_dataset(n).map(|d| d.name.clone()).ok();
        assert_eq!(name("MATH-500").as_deref(), Some("math"));
        assert_eq!(name("aqua").as_deref(), Some("aqua-rat"));
        assert_eq!(name("gsm_hard").as_deref(), Some("gsm-hard"));
        let unknown = r.find_dataset("chess").err().map(|e| e.to_string());
        assert!(unknown.is_some_and(|e| e.contains("chess") && e.contains("gsm8k")));
        assert!(r.templates().iter().any(|(n, _)| *n == "reasoning/cot"));
        assert_eq!(r.role_cards().len(), 8);
        assert!(r.role_cards()[0].0.ends_with("0_assistant.toml"));

        let again = Registry::builtin().dataset(DatasetEntry::published(Dataset::Gsm8k));
        assert_eq!(
            again.check(),
            Err(RegistryError::Duplicate {
                kind: "dataset",
                name: "gsm8k".into()
            })
        );
        let twice = Registry::builtin().template("reasoning/cot", "other text");
        assert!(matches!(
            twice.check(),
            Err(RegistryError::Duplicate {
                kind: "template",
                ..
            })
        ));
        let bad = Registry::empty().role_card("broken.toml", "name = [");
        assert!(matches!(
            bad.check(),
            Err(RegistryError::RoleCard { ref file, .. }) if file == "broken.toml"
        ));
    }

    #[test]
    fn a_registered_grader_decides_correctness() {
        let item = colony_qa::Item {
            id: "1".into(),
            question: "Name a prime above 10.".into(),
            choices: Vec::new(),
            gold: "11".into(),
            answer_type: colony_qa::AnswerType::Numeric,
            meta: Default::default(),
        };
        let plain = DatasetEntry::new("primes", "demo", "none", |path, _| {
            Err(colony_qa::LoadError::Empty {
                path: path.to_path_buf(),
            })
        });
        assert!(plain.is_correct("11.0", &item) && !plain.is_correct("13", &item));
        let any_prime = plain.with_grader(|a, _| ["11", "13", "17"].contains(&a));
        assert!(any_prime.has_grader() && any_prime.is_correct("13", &item));
        assert!(!any_prime.is_correct("11.0", &item));
    }

    #[test]
    fn a_plugin_registers_like_a_builtin() {
        let r = Registry::builtin().reasoning_policy("echo", "answers `single`'s way", |o, _| {
            let _ = o.count("k")?;
            Ok(Box::new(crate::reasoning::Single))
        });
        let ctx = ReasoningContext::new(Arc::new(colony_llm::embed::default_embedder()));
        assert!(r.reasoning("echo:k=2", &ctx).is_ok());
        let err = r.reasoning("echo:q=2", &ctx).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("unknown option `q`")));
        assert!(r.reasoning_names().contains(&"echo"));
    }
}
