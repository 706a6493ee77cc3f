//! [`CompareModels`]: who answers a comparison's model calls, decided once for `colony
//! compare` and for a suite's environment units (one setup, not two copies).
//!
//! A comparison's calls go to a reply script (`--model script:FILE`), to the resolved model
//! specs (one, or a `--models` list the caller cycles through), or nowhere when no policy of
//! the run calls a model (then the label is `none` and nothing is built). The embodied
//! defaults ([`EMBODIED_SAMPLING`]) sit under every model's own sampling.

use std::path::Path;
use std::sync::Arc;

use crate::eval::models::caller_models;
use crate::eval::CallRouting;
use colony_llm::{ModelError, ModelKind, ModelSpec, Responders};
use colony_policy::embodied::EMBODIED_SAMPLING;
use colony_policy::embodied::{CallerConfig, EmbodiedFactory, ReplyScript, ScriptError};

/// The model side of a comparison: the caller configuration of its LLM policies, the model
/// label written into results, and whether it is the offline simulation.
#[derive(Debug, Clone)]
pub struct CompareModels {
    /// What the policies' calls go through.
    pub caller: CallerConfig,
    /// The model label of results (`script:FILE`, the model's id, the `--models` list, or
    /// `none`).
    pub model: String,
    /// Every model is the simulated one (reports say the figures are offline).
    pub simulated: bool,
}

impl CompareModels {
    /// Replies come from the script `file` (`--model script:FILE`).
    pub fn script(file: &Path) -> Result<Self, ScriptError> {
        let script = ReplyScript::load(file)?;
        Ok(Self {
            caller: CallerConfig {
                script: Some(Arc::new(script)),
                ..base()
            },
            model: format!("script:{}", file.display()),
            simulated: false,
        })
    }

    /// Calls go to `specs` when one of `policies` calls a model. `label` names the run's
    /// models (default: the first spec's id); `sim_accuracy` overrides every spec's simulated
    /// accuracy. With `build`, the models are built (simulated ones taught by those
    /// responders); without, nothing is built (reports and estimates only): the caller knows
    /// each model's sampling but has no model.
    pub fn models(
        policies: &[EmbodiedFactory],
        mut specs: Vec<ModelSpec>,
        label: Option<String>,
        sim_accuracy: Option<f64>,
        calls: CallRouting<'_>,
        build: Option<&Responders>,
    ) -> Result<Self, ModelError> {
        if !policies.iter().any(EmbodiedFactory::uses_models) {
            return Ok(Self {
                caller: base(),
                model: "none".into(),
                simulated: false,
            });
        }
        for spec in &mut specs {
            spec.accuracy = sim_accuracy.or(spec.accuracy);
        }
        let mut caller = base();
        caller.model_sampling = specs.iter().map(|s| s.sampling.clone()).collect();
        if let Some(responders) = build {
            let (models, sampling) = caller_models(&specs, calls, responders)?;
            caller.models = models;
            caller.model_sampling = sampling;
        }
        let model =
            label.unwrap_or_else(|| specs.first().map_or_else(String::new, |s| s.build_id()));
        Ok(Self {
            caller,
            model,
            simulated: specs.iter().all(|s| s.kind == ModelKind::Simulated),
        })
    }
}

fn base() -> CallerConfig {
    CallerConfig {
        sampling: EMBODIED_SAMPLING,
        ..CallerConfig::default()
    }
}
