//! The grader of code items: the dataset's tests run in the sandbox, the way the official
//! HumanEval harness runs them (docs/design/sandbox.md §3).
//!
//! Resolved at the door like the rest of a dataset entry: the command line chooses the sandbox
//! (`--sandbox`), the harness timeout and how many programs run at once, and hands the judge to
//! the [`DatasetEntry`](super::DatasetEntry). A code item graded without a judge, or whose
//! check the sandbox could not run, is an error of that item, never a wrong answer.

use std::sync::Arc;
use std::time::Duration;

use colony_qa::{AnswerType, Item};
use colony_sandbox::{check_all, check_program, CheckVerdict, Limits, PythonCheck, Sandbox};
use thiserror::Error;

/// The official harness's default timeout, in seconds (`evaluate_functional_correctness`).
pub const HUMANEVAL_TIMEOUT_SECS: f64 = 3.0;

/// Why a code answer could not be graded.
#[derive(Debug, Error)]
pub enum CodeGradeError {
    /// The item is not a code item.
    #[error("item {0} is not a code item")]
    NotCode(String),
    /// No sandbox was configured for code items.
    #[error("item {0} is graded by running code, and no sandbox was configured")]
    NoSandbox(String),
    /// The sandbox failed.
    #[error("item {id}: {source}")]
    Sandbox {
        /// The item.
        id: String,
        /// What failed.
        source: colony_sandbox::SandboxError,
    },
}

/// Runs code items' tests in a sandbox.
#[derive(Clone)]
pub struct CodeJudge {
    sandbox: Arc<dyn Sandbox>,
    timeout: Duration,
    workers: usize,
    limits: Limits,
}

impl std::fmt::Debug for CodeJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeJudge")
            .field("sandbox", &self.sandbox.name())
            .field("timeout", &self.timeout)
            .field("workers", &self.workers)
            .finish()
    }
}

impl CodeJudge {
    /// A judge running checks in `sandbox` with the harness `timeout`, `workers` at once.
    pub fn new(sandbox: Arc<dyn Sandbox>, timeout: Duration, workers: usize) -> Self {
        Self {
            sandbox,
            timeout,
            workers: workers.max(1),
            limits: Limits::default(),
        }
    }

    /// The sandbox's name (`bubblewrap`, `none`).
    pub fn sandbox_name(&self) -> &'static str {
        self.sandbox.name()
    }

    /// Whether checks are isolated from the host (false for `--sandbox none`).
    pub fn isolated(&self) -> bool {
        self.sandbox.isolated()
    }

    /// The verdict on `completion` for the code item `item`.
    pub fn check(&self, item: &Item, completion: &str) -> Result<CheckVerdict, CodeGradeError> {
        self.check_all(&[(item, completion)])
            .pop()
            .unwrap_or_else(|| Err(CodeGradeError::NotCode(item.id.clone())))
    }

    /// The verdicts on many `(item, completion)` pairs, run `workers` at once, in order.
    pub fn check_all(&self, pairs: &[(&Item, &str)]) -> Vec<Result<CheckVerdict, CodeGradeError>> {
        let checks: Vec<Result<PythonCheck, CodeGradeError>> = pairs
            .iter()
            .map(|(item, completion)| match &item.answer_type {
                AnswerType::Code { entry_point, test } => Ok(PythonCheck {
                    program: check_program(&item.question, completion, test, entry_point),
                    timeout: self.timeout,
                }),
                _ => Err(CodeGradeError::NotCode(item.id.clone())),
            })
            .collect();
        let runnable: Vec<PythonCheck> = checks.iter().flatten().cloned().collect();
        let mut verdicts =
            check_all(self.sandbox.as_ref(), &runnable, &self.limits, self.workers).into_iter();
        checks
            .into_iter()
            .zip(pairs)
            .map(|(check, (item, _))| {
                check?;
                let sandbox = |source| CodeGradeError::Sandbox {
                    id: item.id.clone(),
                    source,
                };
                // One verdict per runnable check, in order.
                verdicts
                    .next()
                    .unwrap_or_else(|| {
                        Err(colony_sandbox::SandboxError::DidNotStart(
                            "no verdict".into(),
                        ))
                    })
                    .map_err(sandbox)
            })
            .collect()
    }
}

/// The unbiased pass@k estimator of the HumanEval paper (Chen et al. 2021, Section 2.1):
/// `1 - C(n - c, k) / C(n, k)` for `n` samples of which `c` passed; `None` when `k > n`.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || k > n {
        return None;
    }
    let c = c.min(n);
    if n - c < k {
        return Some(1.0);
    }
    // The product form, stable for large n: prod_{i = n-c+1}^{n} (1 - k / i).
    let mut miss = 1.0;
    for i in (n - c + 1)..=n {
        miss *= 1.0 - k as f64 / i as f64;
    }
    Some(1.0 - miss)
}
