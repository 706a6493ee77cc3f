//! Running one prepared command: feeding the source on standard input, reading both outputs
//! up to the cap, and killing it at the wall-clock limit.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::{Limits, RunOutcome, SandboxError, Termination};

/// Runs `command` with `source` on its standard input under `limits`' wall time and output cap.
pub(crate) fn run_command(
    mut command: Command,
    source: &str,
    limits: &Limits,
    sandboxed: bool,
) -> Result<RunOutcome, SandboxError> {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so nothing it starts shares ours.
        .process_group(0);
    let started = Instant::now();
    let mut child = command.spawn()?;
    let over_cap = Arc::new(AtomicBool::new(false));
    let stdin = child.stdin.take();
    let source = source.as_bytes().to_vec();
    // A program that never reads its input must not block us: write from a thread, and
    // ignore a pipe the interpreter closed.
    let writer = std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&source);
        }
    });
    let out = reader(child.stdout.take(), limits.output_bytes, over_cap.clone());
    let err = reader(child.stderr.take(), limits.output_bytes, over_cap.clone());
    let mut termination = wait(&mut child, started, limits.wall, &over_cap)?;
    if sandboxed {
        // bubblewrap reports a program killed by signal N as exit code 128 + N.
        if let Termination::Exited { code } = termination {
            if (129..160).contains(&code) {
                termination = Termination::Signaled { signal: code - 128 };
            }
        }
    }
    let _ = writer.join();
    let (stdout, cut_out) = out.join().unwrap_or_default();
    let (stderr, cut_err) = err.join().unwrap_or_default();
    Ok(RunOutcome {
        termination,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        truncated: cut_out || cut_err,
        wall: started.elapsed(),
        sandboxed,
    })
}

type Reader = std::thread::JoinHandle<(Vec<u8>, bool)>;

/// Reads a pipe to its end, keeping at most `cap` bytes; past the cap it raises `over_cap`
/// (the waiter then kills the program) and keeps draining so the writer never blocks.
fn reader<R: Read + Send + 'static>(
    pipe: Option<R>,
    cap: usize,
    over_cap: Arc<AtomicBool>,
) -> Reader {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut cut = false;
        let Some(mut pipe) = pipe else {
            return (kept, cut);
        };
        let mut buf = [0u8; 8192];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    if n > room {
                        cut = true;
                        over_cap.store(true, Ordering::Relaxed);
                    }
                }
            }
        }
        (kept, cut)
    })
}

/// Waits for the child, killing it at the wall-clock limit or when the output cap was hit.
fn wait(
    child: &mut Child,
    started: Instant,
    wall: Duration,
    over_cap: &AtomicBool,
) -> Result<Termination, SandboxError> {
    // Poll with a short pause: most programs finish in tens of milliseconds, and every
    // millisecond slept past their end is paid once per program (a syscall per wake is cheap).
    let mut pause = Duration::from_micros(100);
    loop {
        if let Some(status) = child.try_wait()? {
            if over_cap.load(Ordering::Relaxed) {
                return Ok(Termination::OutputLimit);
            }
            return Ok(termination_of(status));
        }
        let killed = if over_cap.load(Ordering::Relaxed) {
            Some(Termination::OutputLimit)
        } else if started.elapsed() >= wall {
            Some(Termination::WallTimeout)
        } else {
            None
        };
        if let Some(reason) = killed {
            // Killing the sandbox's first process ends its PID namespace, and with it every
            // process the program started (bubblewrap); on the host the process group goes too.
            let _ = child.kill();
            kill_group(child.id());
            let _ = child.wait();
            return Ok(reason);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(1));
    }
}

/// Sends SIGKILL to the process group `pgid` (the child's own, see `process_group(0)`).
fn kill_group(pgid: u32) {
    let _ = Command::new("/usr/bin/kill")
        .args(["-s", "KILL", "--", &format!("-{pgid}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

fn termination_of(status: std::process::ExitStatus) -> Termination {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Termination::Exited { code },
        (None, Some(signal)) => Termination::Signaled { signal },
        (None, None) => Termination::Exited { code: -1 },
    }
}
