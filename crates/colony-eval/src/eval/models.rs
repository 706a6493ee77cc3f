//! The models of a run: the offline simulated model keyed with the evaluated items, and the
//! record/replay cache around whichever model would run.
//!
//! Recording wraps exactly the model a plain run uses (for the simulated model: the one whose
//! answer key holds the evaluated items), so `--record` never changes results; a replay answers
//! under the same model id the recording stored ([`ModelSpec::build_id`]), so its keys match.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use colony_qa::{AnswerType, Item};

use colony_llm::{
    AnswerKey, ModelError, ModelKind, ModelSpec, ReplayModel, Responders, SharedModel,
    SimulatedModel,
};
use colony_policy::reasoning::{Member, Roster, MASLAB_SAMPLING};
use colony_policy::registry::Registry;
use colony_runtime::{RoleCard, RoleError};

/// Where a run's model calls go.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CallRouting<'a> {
    /// Straight to the model.
    #[default]
    Live,
    /// Through the model, recorded into this directory (replies already there are reused).
    Record(&'a Path),
    /// Only from the calls recorded in this directory; no model is built or called.
    Replay(&'a Path),
}

impl<'a> CallRouting<'a> {
    /// From the `--record DIR` and `--replay DIR` flags (replay wins if both are given).
    pub fn from_dirs(record: Option<&'a Path>, replay: Option<&'a Path>) -> Self {
        match (replay, record) {
            (Some(dir), _) => Self::Replay(dir),
            (None, Some(dir)) => Self::Record(dir),
            (None, None) => Self::Live,
        }
    }

    /// Wraps the model `build` makes for `spec` for recording, or replays `spec`'s calls
    /// without building it; then prices it when `spec` has a price.
    pub fn wrap(
        self,
        spec: &ModelSpec,
        build: impl FnOnce() -> Result<SharedModel, ModelError>,
    ) -> Result<SharedModel, ModelError> {
        let model: SharedModel = match self {
            Self::Live => build()?,
            Self::Record(dir) => Arc::new(
                ReplayModel::record(build()?, dir)?.with_context_tokens(spec.context_tokens),
            ),
            Self::Replay(dir) => Arc::new(
                ReplayModel::replay(&spec.build_id(), dir)?
                    .marked_simulated(spec.kind == colony_llm::ModelKind::Simulated)
                    .with_context_tokens(spec.context_tokens),
            ),
        };
        spec.priced(model)
    }
}

/// The answer key of `items` for the simulated model: each question with its gold answer,
/// multiple-choice questions with their option count (so wrong answers are letters that
/// exist).
pub fn answer_key(items: &[Item]) -> AnswerKey {
    let mut key = AnswerKey::new();
    for item in items {
        match &item.answer_type {
            AnswerType::Choice { options } => {
                key.insert_choice(&item.question, item.gold.clone(), options.len());
            }
            _ => key.insert(&item.question, item.gold.clone()),
        }
    }
    key
}

/// Builds `spec`'s model for a run over `items`: a simulated model without an answer key of
/// its own answers from `items` (so the offline default scores its configured accuracy on
/// them); any other model is built as configured. Then wrapped as `calls` says.
pub fn build_model(
    spec: &ModelSpec,
    items: &[Item],
    calls: CallRouting<'_>,
    responders: &Responders,
) -> Result<SharedModel, ModelError> {
    calls.wrap(spec, || {
        if spec.kind == ModelKind::Simulated && spec.answer_key.is_none() {
            let mut sim = spec.simulated_config(responders)?;
            sim.answer_key = answer_key(items);
            return Ok(Arc::new(SimulatedModel::new(sim)) as SharedModel);
        }
        spec.build(responders)
    })
}

/// [`build_model`] for each spec, in order; specs of the same name share one model (one
/// cache, one connection pool), as they are the same model.
pub fn build_models(
    specs: &[ModelSpec],
    items: &[Item],
    calls: CallRouting<'_>,
    responders: &Responders,
) -> Result<Vec<SharedModel>, ModelError> {
    let mut built: HashMap<&str, SharedModel> = HashMap::new();
    specs
        .iter()
        .map(|spec| {
            if let Some(m) = built.get(spec.name.as_str()) {
                return Ok(m.clone());
            }
            let m = build_model(spec, items, calls, responders)?;
            built.insert(&spec.name, m.clone());
            Ok(m)
        })
        .collect()
}

/// The role cards of a reasoning roster, in order: the registry's default cards (the SelfOrg
/// pool compiled into the binary, `roles/selforg/`, unless a plugin registers others), so
/// results never depend on the working directory; or the
/// `*.toml` cards of `dir` in file-name order when a run names one explicitly (`--roles`, a
/// suite's `roles`). A named folder that is missing or holds no card is an error, never a
/// silent generic role.
pub fn role_cards_in_order(
    registry: &Registry,
    dir: Option<&Path>,
) -> Result<Vec<Arc<RoleCard>>, RoleError> {
    let Some(dir) = dir else {
        let cards = registry.role_cards();
        if cards.is_empty() {
            return Err(RoleError::Invalid {
                path: "registry".into(),
                message: "the registry holds no default role card; pass --roles DIR".into(),
            });
        }
        return cards
            .iter()
            .map(|(file, text)| RoleCard::parse(text, file.clone()).map(Arc::new))
            .collect();
    };
    let not_found = |message: &str| RoleError::Invalid {
        path: dir.to_path_buf(),
        message: message.to_string(),
    };
    if !dir.is_dir() {
        return Err(not_found("role-card folder not found (--roles / `roles`)"));
    }
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|source| RoleError::Io {
            path: dir.to_path_buf(),
            source,
        })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(not_found("role-card folder holds no `*.toml` card"));
    }
    files
        .into_iter()
        .map(|p| Ok(Arc::new(RoleCard::load(&p)?)))
        .collect()
}

/// Errors of [`reasoning_roster`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RosterError {
    /// A role card could not be read.
    #[error(transparent)]
    Role(#[from] RoleError),
    /// A model could not be built.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// More agents than a roster may hold.
    #[error("--agents {agents}: a reasoning roster holds 1..={MAX_ROSTER_AGENTS} agents")]
    TooManyAgents {
        /// The number asked for.
        agents: usize,
    },
}

/// Most agents a reasoning roster may hold (`--agents`, suite key `agents`). Decision:
/// the papers' teams have at most a few dozen members; a thousand keeps every
/// sweep possible while a typo cannot allocate gigabytes of members and calls.
pub const MAX_ROSTER_AGENTS: usize = 1000;

/// The roster of a reasoning run: `agents` members taking role cards from `roles` (see
/// [`role_cards_in_order`]; `None`: the compiled-in pool) and models
/// from `specs` round-robin (one spec: a homogeneous team), each model's own sampling kept,
/// MASLab's sampling as the default under them; models are built for `items` and routed as
/// `calls` says.
pub fn reasoning_roster(
    registry: &Registry,
    specs: &[ModelSpec],
    roles: Option<&Path>,
    agents: usize,
    items: &[Item],
    calls: CallRouting<'_>,
) -> Result<Roster, RosterError> {
    if agents > MAX_ROSTER_AGENTS {
        return Err(RosterError::TooManyAgents { agents });
    }
    let roles = role_cards_in_order(registry, roles)?;
    let models = build_models(specs, items, calls, &registry.responders())?;
    let members = (0..agents.max(1))
        .map(|i| Member {
            role: roles[i % roles.len()].clone(),
            model: models[i % models.len()].clone(),
            sampling: specs[i % specs.len()].sampling.clone(),
        })
        .collect();
    Ok(Roster {
        members,
        sampling: MASLAB_SAMPLING,
    })
}

/// The models of an embodied run, for `CallerConfig::models` and `model_sampling`: each spec built and routed as `calls` says.
pub fn caller_models(
    specs: &[ModelSpec],
    calls: CallRouting<'_>,
    responders: &Responders,
) -> Result<(Vec<SharedModel>, Vec<colony_llm::Sampling>), ModelError> {
    let mut models = Vec::new();
    let mut sampling = Vec::new();
    for spec in specs {
        sampling.push(spec.sampling.clone());
        models.push(calls.wrap(spec, || spec.build(responders))?);
    }
    Ok((models, sampling))
}
