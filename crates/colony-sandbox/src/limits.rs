//! What a sandboxed program may use.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Bounds on one program run. Every bound is enforced by the kernel (rlimits) or by the
/// runner (wall time, output), never by the program's cooperation.
///
/// Decision (defaults): a HumanEval-sized program needs well under a second and a few tens of
/// MiB; the defaults leave an order of magnitude of room and still stop a bomb quickly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// CPU seconds (RLIMIT_CPU): the kernel kills the program past it.
    pub cpu_seconds: u64,
    /// Wall-clock time; past it the whole sandbox (every process in it) is killed.
    pub wall: Duration,
    /// Address space per process, in bytes (RLIMIT_AS).
    pub memory_bytes: u64,
    /// Processes and threads of the sandbox user (RLIMIT_NPROC), the program included.
    pub processes: u64,
    /// Largest file the program may write, in bytes (RLIMIT_FSIZE).
    pub file_bytes: u64,
    /// Size of the private writable `/tmp`, in bytes.
    pub tmp_bytes: u64,
    /// Bytes of standard output and of standard error kept; past either the program is killed
    /// and the outcome says the output was cut.
    pub output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            cpu_seconds: 10,
            wall: Duration::from_secs(10),
            memory_bytes: 1 << 30,
            processes: 32,
            file_bytes: 16 << 20,
            tmp_bytes: 64 << 20,
            output_bytes: 64 << 10,
        }
    }
}

impl Limits {
    /// `prlimit` options that apply the kernel-enforced limits to the interpreter, with
    /// RLIMIT_NPROC at `processes` when given.
    pub(crate) fn prlimit_args(&self, processes: Option<u64>) -> Vec<String> {
        let mut args = vec![
            format!("--cpu={}", self.cpu_seconds.max(1)),
            format!("--as={}", self.memory_bytes),
            format!("--fsize={}", self.file_bytes),
            "--core=0".to_string(),
            "--nofile=256".to_string(),
        ];
        args.extend(processes.map(|n| format!("--nproc={n}")));
        args
    }
}
