//! How a program run ended.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The way a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Termination {
    /// The interpreter exited with this code.
    Exited {
        /// The exit code.
        code: i32,
    },
    /// A signal ended it (SIGXCPU or SIGKILL from the CPU limit, SIGSEGV, its own `kill`, …).
    /// Decision: in bubblewrap the program's death by signal N reaches colony as exit code
    /// 128 + N, which is read back as the signal (a program cannot exit with 129–159 and be
    /// told apart; none of the checks depends on it).
    Signaled {
        /// The signal number.
        signal: i32,
    },
    /// It ran past the wall-clock limit and was killed with everything it started.
    WallTimeout,
    /// It wrote more than the output cap and was killed.
    OutputLimit,
}

/// The result of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    /// How it ended.
    pub termination: Termination,
    /// Standard output, lossily decoded, at most the output cap.
    pub stdout: String,
    /// Standard error, lossily decoded, at most the output cap.
    pub stderr: String,
    /// Standard output or error was cut at the cap.
    pub truncated: bool,
    /// Wall-clock time of the run.
    pub wall: Duration,
    /// False when the program ran on the host (`--sandbox none`): results built on it must
    /// say so.
    pub sandboxed: bool,
}

impl RunOutcome {
    /// The interpreter exited with code 0.
    pub fn success(&self) -> bool {
        self.termination == Termination::Exited { code: 0 }
    }

    /// Why the run failed, in a few words; `None` when it succeeded.
    pub fn failure_reason(&self) -> Option<String> {
        match &self.termination {
            Termination::Exited { code: 0 } => None,
            Termination::Exited { code } => Some(format!("exited with code {code}")),
            Termination::Signaled { signal: 24 } => Some("CPU time limit (SIGXCPU)".into()),
            Termination::Signaled { signal } => Some(format!("killed by signal {signal}")),
            Termination::WallTimeout => Some("wall-clock time limit".into()),
            Termination::OutputLimit => Some("output limit".into()),
        }
    }

    /// Standard output and error as a tool result shows them: each clipped, with a marker
    /// where something was cut.
    pub fn combined_text(&self) -> String {
        let mut out = self.stdout.clone();
        if !self.stderr.is_empty() {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&self.stderr);
        }
        if self.truncated {
            out.push_str("\n[output truncated]");
        }
        if let Some(reason) = self.failure_reason() {
            out.push_str(&format!("\n[{reason}]"));
        }
        out
    }
}
