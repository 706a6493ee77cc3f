//! The judge of a run as the door resolves it ([`JudgeSpec`]: model, grader, mode) and as a
//! dataset run builds it ([`JudgeSpec::build`]): the simulated judge learns the items it grades
//! ([`super::simulated::JudgeResponder`]), and record/replay wraps the judge model exactly as
//! it wraps the method's models, into the same directory.

use std::sync::Arc;

use colony_llm::{ModelError, ModelKind, ModelSpec, Responders, SharedModel};
use colony_policy::registry::DatasetEntry;
use colony_qa::Item;

use super::simulated::JudgeResponder;
use super::{GradeMode, Judge, JudgeGrader};
use crate::eval::CallRouting;

/// The agreement rate of a simulated judge whose spec sets no accuracy (`--judge-agreement`).
pub const DEFAULT_SIM_AGREEMENT: f64 = 0.9;

/// A run's judge, resolved at the door (`--judge`, `--judge-grader`, `--grade`).
#[derive(Debug, Clone)]
pub struct JudgeSpec {
    /// The judge model (a `models.toml` name, a `--base-url` model, `sim`, `script:`).
    pub model: ModelSpec,
    /// The grader.
    pub grader: JudgeGrader,
    /// Which verdict is the item's `correct` (never [`GradeMode::Rules`] here).
    pub mode: GradeMode,
}

impl JudgeSpec {
    /// A judge spec; a simulated judge without an accuracy of its own agrees with the rules
    /// at `agreement` (default [`DEFAULT_SIM_AGREEMENT`]).
    pub fn new(
        mut model: ModelSpec,
        grader: JudgeGrader,
        mode: GradeMode,
        agreement: Option<f64>,
    ) -> Self {
        if model.kind == ModelKind::Simulated {
            model.accuracy = agreement.or(model.accuracy).or(Some(DEFAULT_SIM_AGREEMENT));
        }
        Self {
            model,
            grader,
            mode,
        }
    }

    /// The judge for a run over `items` of `dataset`, its calls routed as `calls` says.
    pub fn build(
        &self,
        items: &[Item],
        dataset: &DatasetEntry,
        calls: CallRouting<'_>,
        responders: &Responders,
    ) -> Result<Judge, ModelError> {
        let mut chain: Vec<Arc<dyn colony_llm::responder::Responder>> =
            vec![Arc::new(JudgeResponder::new(items, dataset))];
        chain.extend(responders.as_slice().iter().cloned());
        let chain = Responders::new(chain);
        let model: SharedModel = calls.wrap(&self.model, || self.model.build(&chain))?;
        Ok(Judge {
            model,
            sampling: self.model.sampling.clone(),
            grader: self.grader.clone(),
            mode: self.mode,
        })
    }
}
