//! The default sandbox: Linux namespaces through bubblewrap (`bwrap`).
//!
//! What the program gets (docs/design/sandbox.md §2): a new network namespace with no
//! interface but loopback (no network), new PID, IPC, UTS, cgroup and user namespaces, `/usr`
//! read-only and nothing else of the host's file system (no home, no `/etc`, no output
//! directory), a private size-limited tmpfs `/tmp` as its working directory, an empty
//! environment (no API keys), and, when colony runs as root, the unprivileged user `nobody`,
//! so the process limit counts the sandbox's own processes only. `prlimit` applies the
//! kernel-enforced limits before the interpreter starts.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::process::run_command;
use crate::{Limits, Program, RunOutcome, Sandbox, SandboxError};

/// The user id programs run as when colony itself runs as root (`nobody`).
const NOBODY: u32 = 65534;

/// The bubblewrap sandbox.
#[derive(Debug, Clone)]
pub struct Bubblewrap {
    bwrap: PathBuf,
    python: PathBuf,
    /// colony runs as root: programs run as `nobody`.
    as_root: bool,
}

impl Bubblewrap {
    /// Finds `bwrap` on `PATH` and checks that it can create a sandbox here, with the system
    /// Python (`/usr/bin/python3`).
    pub fn detect() -> Result<Self, SandboxError> {
        let bwrap = find_on_path("bwrap").ok_or(SandboxError::NotInstalled)?;
        let sandbox = Self {
            bwrap,
            python: PathBuf::from("/usr/bin/python3"),
            as_root: own_uid() == Some(0),
        };
        sandbox.probe()?;
        Ok(sandbox)
    }

    /// The same sandbox with another interpreter: an absolute path, made visible read-only
    /// together with its installation prefix (two levels up) when it is outside `/usr`.
    pub fn with_python(mut self, python: &Path) -> Result<Self, SandboxError> {
        if !python.is_absolute() || !python.is_file() {
            return Err(SandboxError::Interpreter(python.display().to_string()));
        }
        self.python = python.to_path_buf();
        Ok(self)
    }

    /// Runs `true` in a sandbox: a machine where bubblewrap cannot create namespaces fails
    /// here with bubblewrap's own message, not on the first program.
    fn probe(&self) -> Result<(), SandboxError> {
        let mut command = self.command(&Limits::default());
        command
            .arg("/usr/bin/true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let out = command.output()?;
        if out.status.success() {
            return Ok(());
        }
        let message = String::from_utf8_lossy(&out.stderr);
        Err(SandboxError::Unusable(
            message.trim().chars().take(300).collect(),
        ))
    }

    /// `bwrap` with every isolation option, ready for the command to run inside.
    fn command(&self, limits: &Limits) -> Command {
        let mut c = Command::new(&self.bwrap);
        c.env_clear().current_dir("/");
        if self.as_root {
            c.uid(NOBODY).gid(NOBODY);
        }
        c.args(["--unshare-all", "--unshare-user", "--disable-userns"])
            .args(["--die-with-parent", "--new-session", "--clearenv"])
            .args(["--hostname", "sandbox"])
            .args(["--ro-bind", "/usr", "/usr"])
            .args(["--symlink", "usr/lib", "/lib"])
            .args(["--symlink", "usr/lib64", "/lib64"])
            .args(["--symlink", "usr/bin", "/bin"])
            .args(["--symlink", "usr/sbin", "/sbin"])
            .args(["--proc", "/proc", "--dev", "/dev"])
            .args(["--size", &limits.tmp_bytes.to_string(), "--tmpfs", "/tmp"])
            .args(["--chdir", "/tmp"])
            .args(["--setenv", "PATH", "/usr/bin"])
            .args(["--setenv", "HOME", "/tmp"])
            .args(["--setenv", "LANG", "C.UTF-8"]);
        if let Some(prefix) = self.python_prefix() {
            let prefix = prefix.display().to_string();
            c.args(["--ro-bind", &prefix, &prefix]);
        }
        // The root bubblewrap builds is a writable tmpfs; only `/tmp` may be written.
        c.args(["--remount-ro", "/"]);
        c
    }

    /// The interpreter's installation prefix when it lies outside `/usr`.
    fn python_prefix(&self) -> Option<PathBuf> {
        if self.python.starts_with("/usr") {
            return None;
        }
        self.python
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
    }
}

impl Sandbox for Bubblewrap {
    fn name(&self) -> &'static str {
        "bubblewrap"
    }

    fn isolated(&self) -> bool {
        true
    }

    fn run(&self, program: &Program, limits: &Limits) -> Result<RunOutcome, SandboxError> {
        let mut command = self.command(limits);
        // RLIMIT_NPROC counts every process of the user: as `nobody` that is the sandbox's
        // own; as an ordinary user the ones it already has are added.
        let processes = if self.as_root {
            limits.processes
        } else {
            limits.processes + own_uid().map_or(0, user_processes)
        };
        command
            .arg("/usr/bin/prlimit")
            .args(limits.prlimit_args(Some(processes)))
            .arg("--")
            .arg(&self.python)
            // Isolated mode (no user site, no PYTHON* variables), no bytecode files, source
            // from standard input.
            .args(["-I", "-B", "-"]);
        run_command(command, &program.source, limits, self.isolated())
    }
}

/// The first executable `name` on `PATH`.
pub(crate) fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// This process's real user id, from `/proc/self/status`.
fn own_uid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    uid_of(&status)
}

/// The real uid of a `/proc/<pid>/status` text.
fn uid_of(status: &str) -> Option<u32> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|uid| uid.parse().ok())
}

/// How many processes the user `uid` has now (every thread counts toward RLIMIT_NPROC).
fn user_processes(uid: u32) -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("status")).ok())
        .filter(|s| uid_of(s) == Some(uid))
        .map(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|t| t.trim().parse::<u64>().ok())
                .unwrap_or(1)
        })
        .sum()
}
