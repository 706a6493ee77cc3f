//! Many programs at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::{Limits, Program, RunOutcome, Sandbox, SandboxError};

/// Runs every program on `workers` threads (at least one); the outcomes are in the programs'
/// order, whatever order they finished in.
pub fn run_all(
    sandbox: &dyn Sandbox,
    programs: &[Program],
    limits: &Limits,
    workers: usize,
) -> Vec<Result<RunOutcome, SandboxError>> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<RunOutcome, SandboxError>>>> =
        programs.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, programs.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(program) = programs.get(i) else {
                    break;
                };
                let outcome = sandbox.run(program, limits);
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(outcome);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner().ok().flatten().unwrap_or_else(|| {
                Err(SandboxError::Io(std::io::Error::other(
                    "a pool worker stopped before running this program",
                )))
            })
        })
        .collect()
}
