//! Failures of the sandbox itself (never of the program it runs).

use thiserror::Error;

/// Why a sandbox could not run a program.
#[derive(Debug, Error)]
pub enum SandboxError {
    /// `bwrap` is not on `PATH`.
    #[error(
        "bubblewrap (bwrap) is not installed, so model-written code cannot be run safely; install \
         it (Debian/Ubuntu: `apt-get install bubblewrap`) or pass `--sandbox none` to run it \
         unsandboxed on this machine"
    )]
    NotInstalled,
    /// `bwrap` is there but could not create its namespaces (e.g. user namespaces are off).
    #[error("bubblewrap cannot create a sandbox here: {0}")]
    Unusable(String),
    /// The interpreter to run is not an absolute path to a file.
    #[error("python interpreter {0:?} is not an absolute path to an executable file")]
    Interpreter(String),
    /// A `--sandbox` name colony does not know.
    #[error("unknown sandbox {0:?}; known: bubblewrap, none")]
    UnknownSandbox(String),
    /// The interpreter did not start inside the sandbox (limits too small, sandbox broken).
    #[error("the program did not start in the sandbox ({0})")]
    DidNotStart(String),
    /// Starting the process or talking to it failed.
    #[error("sandbox process: {0}")]
    Io(#[from] std::io::Error),
}
