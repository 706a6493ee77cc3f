//! Model-graded scoring (docs/design/grading.md §7): a judge model grades each item's full
//! response, as a role of its own apart from the method.
//!
//! * **Graders:** [`JudgeGrader::Equivalence`] (xVerify-style, [`equivalence`]),
//!   [`JudgeGrader::Rubric`] (weighted criteria from a TOML file, [`rubric`]) and
//!   [`JudgeGrader::Pairwise`] (against another policy's response, [`pairwise`]).
//! * **Modes** ([`GradeMode`], `--grade`): `rules` (no judge), `judge` (the judge's verdict is
//!   the item's `correct`), `both` (`correct` stays the rule verdict and `judge_correct` holds
//!   the judge's; the summary compares them, [`agreement`]).
//! * **Apart from the method:** judge calls run on their own one-agent team (`judge`), so their
//!   calls, tokens and cost are recorded in the item's `judge` object and never in the method's
//!   `calls`, `prompt_tokens` or `cost_usd`; their transcript goes to the calls log under
//!   `judge`. Every judge call is seeded from the run seed and the item id, decodes at
//!   temperature 0 unless the judge's `models.toml` entry says otherwise, and is recorded and
//!   replayed like any model call when the run records or replays.
//! * **A judge failure is never a wrong answer:** a call that fails after the client's retries,
//!   or a reply that cannot be read twice (the first unreadable reply is asked once more with
//!   the format repeated), leaves the item with `error = "judge: …"`: counted in `errors`,
//!   excluded from every mean, and solved and graded again on the next run.
//! * Items that already ended in an error are not sent to the judge (there is nothing to grade).

pub mod agreement;
pub mod build;
pub mod equivalence;
pub mod pairwise;
pub mod rubric;
pub mod simulated;

use std::collections::BTreeMap;
use std::sync::Arc;

use colony_llm::{Sampling, SharedModel};
use colony_policy::reasoning::{llm_seed, Member, Roster};
use colony_qa::Item;
use colony_runtime::{AskOptions, RoleCard, Transcript};
use serde::{Deserialize, Serialize};

use crate::eval::results::ItemResult;
pub use agreement::JudgeSummary;
pub use build::JudgeSpec;
pub use equivalence::{parse_verdict, Verdict};
pub use pairwise::{Pairwise, PairwiseRecord, PairwiseSummary};
pub use rubric::{Rubric, RubricError, RubricScore};

/// The agent id judge calls are made and logged under.
pub const JUDGE_AGENT: &str = "judge";

/// The judge's default decoding: greedy, up to 1,024 completion tokens (a verdict is two lines;
/// the room is for models that reason first). Its `models.toml` entry beats it.
pub const JUDGE_SAMPLING: Sampling = Sampling {
    temperature: Some(0.0),
    top_p: None,
    max_tokens: Some(1024),
    seed: None,
    stop: Vec::new(),
};

/// Which grader decides an item's `correct` (`--grade`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum GradeMode {
    /// The dataset's rule grader only (the default; no judge is called).
    #[default]
    Rules,
    /// The judge's verdict is the item's `correct`.
    Judge,
    /// Both: `correct` is the rule verdict, `judge_correct` the judge's.
    Both,
}

impl GradeMode {
    /// Its command-line spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Rules => "rules",
            Self::Judge => "judge",
            Self::Both => "both",
        }
    }
}

/// How the judge grades a response.
#[derive(Debug, Clone, PartialEq)]
pub enum JudgeGrader {
    /// Equivalence with the gold answer ([`equivalence`]).
    Equivalence,
    /// A weighted rubric ([`rubric`]).
    Rubric(Arc<Rubric>),
    /// A comparison with another policy's response ([`pairwise`]).
    Pairwise(Arc<Pairwise>),
}

impl JudgeGrader {
    /// A grader from its `--judge-grader` spelling: `equivalence` or `rubric:FILE` (the file
    /// path is taken as given, so nothing depends on the working directory but the user's
    /// own relative path).
    pub fn parse(spec: &str) -> Result<Self, RubricError> {
        match spec.trim().split_once(':') {
            Some(("rubric", path)) => Ok(Self::Rubric(Arc::new(Rubric::load(
                std::path::Path::new(path.trim()),
            )?))),
            Some(("pairwise", label)) if !label.trim().is_empty() => {
                Ok(Self::Pairwise(Arc::new(Pairwise::new(label.trim()))))
            }
            _ if spec.trim() == "equivalence" => Ok(Self::Equivalence),
            _ => Err(RubricError::Field {
                path: "--judge-grader".into(),
                field: colony_env_api::clip(spec),
                message: "unknown grader: use `equivalence`, `rubric:FILE` or `pairwise:LABEL`"
                    .into(),
            }),
        }
    }

    /// Its name in results (`equivalence`, `rubric:<rubric name>`).
    pub fn name(&self) -> String {
        match self {
            Self::Equivalence => "equivalence".into(),
            Self::Rubric(r) => format!("rubric:{}", r.name),
            Self::Pairwise(p) => format!("pairwise:{}", p.against),
        }
    }

    /// The reference policy of a pairwise grader.
    pub fn pairwise(&self) -> Option<&Arc<Pairwise>> {
        match self {
            Self::Pairwise(p) => Some(p),
            _ => None,
        }
    }

    /// The call purpose of its judge calls (the simulated judge's responder owns `judge`).
    fn purpose(&self) -> &'static str {
        match self {
            Self::Equivalence => "judge.equivalence",
            Self::Rubric(_) => "judge.rubric",
            Self::Pairwise(_) => "judge.pairwise",
        }
    }

    fn prompt(&self, item: &Item, response: &str, run_seed: u64) -> Result<String, JudgeFailure> {
        let question = item.prompt();
        match self {
            Self::Equivalence => equivalence::equivalence_prompt(&question, &item.gold, response),
            Self::Rubric(r) => r.prompt(&question, &item.gold, response),
            Self::Pairwise(p) => {
                let reference = p.response(&item.id).ok_or_else(|| {
                    JudgeFailure(format!(
                        "pairwise: {} has no response to this item (it errored or did not run)",
                        p.against
                    ))
                })?;
                let (first, second) = if pairwise::policy_first(run_seed, &item.id) {
                    (response, reference.as_str())
                } else {
                    (reference.as_str(), response)
                };
                pairwise::pairwise_prompt(&question, &item.gold, first, second)
            }
        }
        .map_err(|e| JudgeFailure(format!("prompt: {e}")))
    }

    fn format(&self) -> String {
        match self {
            Self::Equivalence => equivalence::EQUIVALENCE_FORMAT.to_string(),
            Self::Rubric(r) => r.format(),
            Self::Pairwise(_) => pairwise::PAIRWISE_FORMAT.to_string(),
        }
    }

    /// What a reply says, `None` when it cannot be read.
    fn read(&self, reply: &str, item: &Item, run_seed: u64) -> Option<Reading> {
        match self {
            Self::Equivalence => parse_verdict(reply).map(|v| Reading {
                correct: Some(v.correct),
                extracted: v.extracted,
                ..Reading::default()
            }),
            Self::Rubric(r) => r.parse_scores(reply).map(|s| Reading {
                correct: Some(s.total >= r.pass),
                score: Some(s.total),
                criteria: s.criteria,
                ..Reading::default()
            }),
            Self::Pairwise(p) => pairwise::parse_winner(reply).map(|w| {
                let policy_first = pairwise::policy_first(run_seed, &item.id);
                let winner = match (w, policy_first) {
                    (pairwise::Winner::Tie, _) => "tie",
                    (pairwise::Winner::First, true) | (pairwise::Winner::Second, false) => "policy",
                    _ => "reference",
                };
                Reading {
                    pairwise: Some(PairwiseRecord {
                        against: p.against.clone(),
                        policy_first,
                        winner: winner.into(),
                    }),
                    ..Reading::default()
                }
            }),
        }
    }
}

/// What a readable judge reply said (`correct` is `None` for a pairwise verdict).
#[derive(Default)]
struct Reading {
    correct: Option<bool>,
    extracted: Option<String>,
    score: Option<f64>,
    criteria: BTreeMap<String, f64>,
    pairwise: Option<PairwiseRecord>,
}

/// Why the judge could not grade an item (its message goes to the item's `error`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct JudgeFailure(String);

/// What the judge did for one item: the `judge` object of an item's results line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgeRecord {
    /// The grader (`equivalence`, `rubric:<name>`).
    pub grader: String,
    /// The judge model's id.
    pub model: String,
    /// The judge's verdict; `None` when it failed.
    pub correct: Option<bool>,
    /// The verdict is the item's `correct` (`--grade judge`), so it is not compared with the
    /// rules.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub primary: bool,
    /// The final answer the judge read from the response (equivalence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extracted: Option<String>,
    /// The weighted rubric score, 0 to 1 (rubric).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The rubric's per-criterion scores (rubric).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub criteria: BTreeMap<String, f64>,
    /// The comparison with the reference policy (pairwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairwise: Option<PairwiseRecord>,
    /// A first reply could not be read and the judge was asked once more.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reasked: bool,
    /// Why the judge failed, if it did (the item is then an error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Successful judge calls.
    pub calls: u64,
    /// Failed judge calls.
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub failed_calls: u64,
    /// Prompt tokens of the judge calls (never added to the method's).
    pub prompt_tokens: u64,
    /// Completion tokens of the judge calls.
    pub completion_tokens: u64,
    /// What the judge calls cost at the judge model's price; absent without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// The judge of a run: a model, a grader and the mode.
#[derive(Clone)]
pub struct Judge {
    /// The judge model (recorded or replayed like the run's models).
    pub model: SharedModel,
    /// Its sampling from `models.toml` (beats [`JUDGE_SAMPLING`]).
    pub sampling: Sampling,
    /// The grader.
    pub grader: JudgeGrader,
    /// Which verdict is the item's `correct`.
    pub mode: GradeMode,
}

impl std::fmt::Debug for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Judge")
            .field("model", &self.model.id())
            .field("grader", &self.grader.name())
            .field("mode", &self.mode)
            .finish()
    }
}

impl Judge {
    /// How this judge grades, as `settings.json` records it: `both equivalence by MODEL`.
    pub fn settings(&self) -> String {
        format!(
            "{} {} by {}",
            self.mode.as_str(),
            self.grader.name(),
            self.model.id()
        )
    }

    /// Grades `result` (the item's solved result, with its response) in place: sets `judge`,
    /// `judge_correct`, and under [`GradeMode::Judge`] `correct`; a judge failure makes the
    /// item an error (see the module docs). Items that already errored are left alone.
    /// The reference policy of a pairwise grader (`label`) is not judged.
    pub async fn apply(&self, result: &mut ItemResult, item: &Item, run_seed: u64, label: &str) {
        if self.mode == GradeMode::Rules || result.error.is_some() {
            return;
        }
        if self.grader.pairwise().is_some_and(|p| p.against == label) {
            return;
        }
        let response = result.response.clone().unwrap_or_default();
        let (record, transcript) = self.grade(item, &response, run_seed).await;
        result.judge_transcript = Some(transcript);
        match (&record.error, record.correct) {
            (None, Some(verdict)) => {
                result.judge_correct = Some(verdict);
                if self.mode == GradeMode::Judge {
                    result.correct = verdict;
                }
            }
            (None, None) if record.pairwise.is_some() => result.judge_correct = None,
            _ => {
                result.judge_correct = None;
                result.correct = false;
                result.error = Some(format!(
                    "judge: {}",
                    record.error.as_deref().unwrap_or("no verdict")
                ));
            }
        }
        result.judge = Some(JudgeRecord {
            primary: self.mode == GradeMode::Judge,
            ..record
        });
    }

    /// The judge's record for `response` to `item`, and the judge team's transcript.
    pub async fn grade(
        &self,
        item: &Item,
        response: &str,
        run_seed: u64,
    ) -> (JudgeRecord, Transcript) {
        let roster = Roster {
            members: vec![Member {
                sampling: self.sampling.clone(),
                ..Member::new(Arc::new(RoleCard::new(JUDGE_AGENT, "")), self.model.clone())
            }],
            sampling: JUDGE_SAMPLING,
        };
        let mut record = JudgeRecord {
            grader: self.grader.name(),
            model: self.model.id().to_string(),
            ..JudgeRecord::default()
        };
        let team = match roster.team_for(&[JUDGE_AGENT]) {
            Ok(team) => team,
            Err(e) => {
                record.error = Some(e.to_string());
                return (record, Transcript::default());
            }
        };
        let outcome = self.ask(&team, item, response, run_seed, &mut record).await;
        let usage = team.usage().run;
        let transcript = team.transcript();
        team.shutdown().await;
        record.calls = usage.calls;
        record.failed_calls = usage.failed_calls;
        record.prompt_tokens = usage.usage.prompt_tokens + usage.cached_usage.prompt_tokens;
        record.completion_tokens =
            usage.usage.completion_tokens + usage.cached_usage.completion_tokens;
        record.cost_usd = (usage.usage + usage.cached_usage)
            .cost_nusd
            .map(colony_llm::usd);
        match outcome {
            Ok(reading) => {
                record.correct = reading.correct;
                record.extracted = reading.extracted;
                record.score = reading.score;
                record.criteria = reading.criteria;
                record.pairwise = reading.pairwise;
            }
            Err(JudgeFailure(why)) => record.error = Some(why),
        }
        (record, transcript)
    }

    /// The judge's asks: the prompt, and once more with the format repeated when the first
    /// reply cannot be read.
    async fn ask(
        &self,
        team: &colony_runtime::Team,
        item: &Item,
        response: &str,
        run_seed: u64,
        record: &mut JudgeRecord,
    ) -> Result<Reading, JudgeFailure> {
        let prompt = self.grader.prompt(item, response, run_seed)?;
        let mut last = String::new();
        for attempt in 0..2u32 {
            let text = if attempt == 0 {
                prompt.clone()
            } else {
                record.reasked = true;
                let reask = colony_policy::reasoning::prompts::render(
                    REASK,
                    serde_json::json!({ "format": self.grader.format() }),
                )
                .map_err(|e| JudgeFailure(format!("prompt: {e}")))?;
                format!("{prompt}\n\n{reask}")
            };
            let options = AskOptions::new()
                .seed(llm_seed(
                    run_seed,
                    &item.id,
                    "judge",
                    Some(attempt),
                    JUDGE_AGENT,
                ))
                .purpose(self.grader.purpose())
                .tag(if attempt == 0 { "judge" } else { "judge reask" })
                .stateless();
            let reply = team
                .ask_with(JUDGE_AGENT, text, options)
                .await
                .map_err(|e| JudgeFailure(format!("the judge call failed: {e}")))?;
            if let Some(reading) = self.grader.read(&reply.text, item, run_seed) {
                return Ok(reading);
            }
            last = reply.text;
        }
        Err(JudgeFailure(format!(
            "the judge's reply could not be read twice (last: {:?})",
            colony_env_api::clip(&last)
        )))
    }
}

/// `prompts/judge/reask.jinja`: the second ask after an unreadable reply.
pub const REASK: &str = include_str!("../../../../../prompts/judge/reask.jinja");
