//! Running model-written code where it can do no harm (docs/design/sandbox.md).
//!
//! Model-written code is hostile. A [`Sandbox`] runs one Python [`Program`] under [`Limits`]
//! and reports a [`RunOutcome`]: how it ended (exit code, signal, wall-time kill, output cap)
//! and its clipped output. [`Bubblewrap`] is the default: Linux namespaces through Debian's
//! `bwrap` (no network, a fresh tmpfs, only `/usr` visible and read-only, no environment
//! variables, an unprivileged user), with rlimits on CPU time, memory, processes and file size.
//! [`Unsandboxed`] runs on the host with the same limits, for machines without bubblewrap, and
//! says so in every outcome ([`RunOutcome::sandboxed`]). [`run_all`] runs many programs at once.
//!
//! Everything is synchronous: callers in async code run it on a blocking thread.

mod bubblewrap;
mod check;
mod error;
mod limits;
mod outcome;
mod pool;
mod process;
mod unsandboxed;

pub use bubblewrap::Bubblewrap;
pub use check::{check_all, check_program, random_marker, CheckVerdict, PythonCheck};
pub use error::SandboxError;
pub use limits::Limits;
pub use outcome::{RunOutcome, Termination};
pub use pool::run_all;
pub use unsandboxed::Unsandboxed;

/// One Python program: its source, read by the interpreter from standard input (so the
/// program itself sees an empty standard input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The whole source.
    pub source: String,
}

impl Program {
    /// A Python program with this source.
    pub fn python(source: impl Into<String>) -> Self {
        Self {
            source: source.into(),
        }
    }
}

/// Where programs run: [`Bubblewrap`] (isolated) or [`Unsandboxed`] (the host, marked).
pub trait Sandbox: Send + Sync {
    /// The name `--sandbox` takes (`bubblewrap`, `none`).
    fn name(&self) -> &'static str;

    /// Whether programs are isolated from the host (false for `--sandbox none`): the
    /// `sandboxed` flag of every outcome and result.
    fn isolated(&self) -> bool;

    /// Runs `program` under `limits`. An error is a failure of the sandbox itself (it could not
    /// start, a pipe broke), never of the program: a program that crashes, is killed or runs out
    /// of time is an [`Ok`] outcome saying so.
    fn run(&self, program: &Program, limits: &Limits) -> Result<RunOutcome, SandboxError>;
}

/// The sandbox `--sandbox NAME` names: `bubblewrap` (the default; refused with an install hint
/// when `bwrap` is missing or cannot create namespaces) or `none` (the host, with a warning).
pub fn by_name(name: &str) -> Result<Box<dyn Sandbox>, SandboxError> {
    match name {
        "bubblewrap" | "bwrap" => Ok(Box::new(Bubblewrap::detect()?)),
        "none" => {
            tracing::warn!(
                "--sandbox none: model-written code runs on this machine without isolation; \
                 every result produced this way is marked unsandboxed"
            );
            Ok(Box::new(Unsandboxed::new()))
        }
        other => Err(SandboxError::UnknownSandbox(
            other.chars().take(80).collect(),
        )),
    }
}
