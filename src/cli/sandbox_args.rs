//! `--sandbox`, `--code-timeout`, `--code-workers`: how code items are graded.

use std::sync::Arc;
use std::time::Duration;

use crate::registry::{CodeJudge, HUMANEVAL_TIMEOUT_SECS};
use clap::Args;

/// Where model-written code runs and for how long.
#[derive(Args, Debug, Clone)]
pub struct SandboxArgs {
    /// Where model-written code runs: `bubblewrap` (isolated: no network, no host files, no
    /// environment; the default) or `none` (this machine, unisolated; results say so).
    #[arg(long, default_value = "bubblewrap", value_name = "NAME")]
    pub sandbox: String,
    /// Seconds a code item's tests may run (the official HumanEval harness's timeout).
    #[arg(long = "code-timeout", default_value_t = HUMANEVAL_TIMEOUT_SECS, value_name = "SECONDS")]
    pub code_timeout: f64,
    /// Test programs run at once (default: the number of CPUs).
    #[arg(long = "code-workers", value_name = "N")]
    pub code_workers: Option<usize>,
}

/// Longest `--code-timeout` accepted, in seconds.
const MAX_CODE_TIMEOUT_SECS: f64 = 600.0;

/// Most `--code-workers` accepted.
const MAX_CODE_WORKERS: usize = 256;

impl SandboxArgs {
    /// The judge these options describe; bad values and a missing sandbox are one-line errors.
    pub fn judge(&self) -> anyhow::Result<CodeJudge> {
        let t = self.code_timeout;
        if !t.is_finite() || t <= 0.0 || t > MAX_CODE_TIMEOUT_SECS {
            anyhow::bail!(
                "--code-timeout must be a number of seconds in (0, {MAX_CODE_TIMEOUT_SECS}], got {t}"
            );
        }
        let workers = match self.code_workers {
            Some(n) if n == 0 || n > MAX_CODE_WORKERS => {
                anyhow::bail!("--code-workers must be in 1..={MAX_CODE_WORKERS}, got {n}")
            }
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        // `none` warns through the log (crate::sandbox::by_name).
        let sandbox = crate::sandbox::by_name(&self.sandbox)?;
        Ok(CodeJudge::new(
            Arc::from(sandbox),
            Duration::from_secs_f64(t),
            workers,
        ))
    }
}
