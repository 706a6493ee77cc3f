//! `--judge`, `--grade`, `--judge-grader` and `--judge-agreement`: the judge of a run,
//! resolved at the door into a [`JudgeSpec`] (docs/design/grading.md §7).

use std::path::Path;

use clap::Args;

use crate::eval::judge::{GradeMode, JudgeGrader, JudgeSpec};

/// The judge flags of `colony eval`.
#[derive(Args, Debug, Clone, Default)]
pub struct JudgeArgs {
    /// A model that grades every answered item: a name from models.toml, a model served at
    /// --base-url, `sim` (offline: agrees with the rules at --judge-agreement) or
    /// `script:FILE`. Its calls, tokens and cost are reported apart from the method's.
    #[arg(long, value_name = "MODEL")]
    pub judge: Option<String>,
    /// Which verdict is an item's `correct`: `rules` (the dataset's grader), `judge`, or
    /// `both` (`correct` from the rules, `judge_correct` from the judge, compared in the
    /// summary: κ, the 2×2 table, McNemar). Default: `both` with --judge, else `rules`.
    #[arg(long, value_enum, value_name = "MODE")]
    pub grade: Option<GradeMode>,
    /// The judge's grader: `equivalence` (xVerify-style: question, gold answer and the full
    /// response → verdict), `rubric:FILE` (weighted criteria, e.g. rubrics/deepresearch.toml)
    /// or `pairwise:LABEL` (each policy's response against policy LABEL's, shown in a seeded
    /// order: wins, ties, losses and the position bias).
    #[arg(long, value_name = "GRADER", default_value = "equivalence")]
    pub judge_grader: String,
    /// How often a simulated judge (`--judge sim`) agrees with the rule grader, 0 to 1
    /// (default 0.9, or the judge's `accuracy` in models.toml).
    #[arg(long, value_name = "P")]
    pub judge_agreement: Option<f64>,
}

/// The judge of a run from its spelled-out settings (the flags, or a suite's keys), resolving
/// the model through models.toml with the connection flags of `model` (its sampling flags are
/// the method's and do not apply to the judge). `None` for rules only.
pub fn judge_spec(
    judge: Option<&str>,
    grade: Option<GradeMode>,
    grader: &str,
    agreement: Option<f64>,
    model: &super::model_args::ModelArgs,
    config: Option<&Path>,
) -> anyhow::Result<Option<JudgeSpec>> {
    let mode = match (grade, judge) {
        (Some(GradeMode::Rules), Some(_)) => {
            anyhow::bail!("--judge is given but --grade rules would never call it")
        }
        (Some(m @ (GradeMode::Judge | GradeMode::Both)), None) => {
            anyhow::bail!("--grade {} needs --judge MODEL", m.as_str())
        }
        (_, None) => return Ok(None),
        (Some(m), Some(_)) => m,
        (None, Some(_)) => GradeMode::Both,
    };
    let name = judge.unwrap_or_default();
    anyhow::ensure!(!name.trim().is_empty(), "--judge is empty: name a model");
    if let Some(p) = agreement {
        anyhow::ensure!(
            (0.0..=1.0).contains(&p),
            "--judge-agreement must be in [0, 1], got {p}"
        );
    }
    let cfg = crate::llm::ModelsConfig::discover(config)?;
    let overrides = crate::llm::ModelOverrides {
        sampling: crate::llm::Sampling::default(),
        ..model.overrides()?
    };
    let spec = cfg
        .resolve(Some(name.trim()), &overrides)
        .map_err(|e| anyhow::anyhow!("--judge {name}: {e}"))?;
    let grader = JudgeGrader::parse(grader)?;
    anyhow::ensure!(
        !(grader.pairwise().is_some() && mode == GradeMode::Judge),
        "--judge-grader {}: a pairwise verdict compares two policies and grades neither: use \
         --grade both (the rules keep `correct`)",
        grader.name()
    );
    Ok(Some(JudgeSpec::new(spec, grader, mode, agreement)))
}
