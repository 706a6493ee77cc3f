//! `--sandbox none`: the host, with the same rlimits and wall-time kill but no isolation.

use std::path::PathBuf;
use std::process::Command;

use crate::process::run_command;
use crate::{Limits, Program, RunOutcome, Sandbox, SandboxError};

/// Runs programs on the host: they see the file system, the network and the user's files.
/// Only the rlimits, the empty environment and the wall-time kill apply, and every outcome
/// carries `sandboxed: false`.
#[derive(Debug, Clone)]
pub struct Unsandboxed {
    python: PathBuf,
}

impl Unsandboxed {
    /// The host's `python3` (`/usr/bin/python3`).
    pub fn new() -> Self {
        Self {
            python: PathBuf::from("/usr/bin/python3"),
        }
    }
}

impl Default for Unsandboxed {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox for Unsandboxed {
    fn name(&self) -> &'static str {
        "none"
    }

    fn isolated(&self) -> bool {
        false
    }

    fn run(&self, program: &Program, limits: &Limits) -> Result<RunOutcome, SandboxError> {
        // A fresh working directory, removed afterwards, so runs do not see each other's files.
        let dir = std::env::temp_dir().join(format!(
            "colony-unsandboxed-{}-{}",
            std::process::id(),
            next_run()
        ));
        std::fs::create_dir_all(&dir)?;
        let mut command = Command::new("/usr/bin/prlimit");
        command
            .env_clear()
            .env("PATH", "/usr/bin")
            .env("HOME", &dir)
            .current_dir(&dir)
            // On the host the process limit would count all of the user's processes; it is
            // left to the wall-time kill of the process group.
            .args(limits.prlimit_args(None))
            .arg("--")
            .arg(&self.python)
            .args(["-I", "-B", "-"]);
        let outcome = run_command(command, &program.source, limits, self.isolated());
        let _ = std::fs::remove_dir_all(&dir);
        outcome
    }
}

fn next_run() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static RUNS: AtomicU64 = AtomicU64::new(0);
    RUNS.fetch_add(1, Ordering::Relaxed)
}
