//! The colony command line, run in-process from Python: `colony.eval`,
//! `colony.compare` and `colony.run_suite` build the arguments and call [`run_cli`], so they
//! run exactly the code the CLI runs (same files, resume, record/replay).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use colony::cli::{run_args_until, CommandEnd};
use pyo3::prelude::*;

use crate::colony_error;

/// How often a running command looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// Runs `colony ARGS…` in this process with the GIL released. Raises `ColonyError` with the
/// CLI's one-line message on failure. Ctrl-C stops the command at its next await point
/// (finished results are already on disk, so the same call resumes) and raises
/// `KeyboardInterrupt`.
#[pyfunction]
pub fn run_cli(py: Python<'_>, args: Vec<String>) -> PyResult<()> {
    let interrupt: Arc<Mutex<Option<PyErr>>> = Arc::new(Mutex::new(None));
    let slot = Arc::clone(&interrupt);
    // The stop future is polled by `block_on` on this (the calling, main) thread, the only
    // one where Python runs signal handlers.
    let stop = async move {
        loop {
            tokio::time::sleep(SIGNAL_POLL).await;
            if let Err(e) = Python::attach(|py| py.check_signals()) {
                if let Ok(mut s) = slot.lock() {
                    *s = Some(e);
                }
                return;
            }
        }
    };
    let end = py.detach(|| run_args_until(crate::registry(), args, stop));
    match end {
        Ok(CommandEnd::Finished) => Ok(()),
        Ok(CommandEnd::Stopped) => Err(interrupt
            .lock()
            .ok()
            .and_then(|mut s| s.take())
            .unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("stopped"))),
        Err(e) => Err(colony_error(e)),
    }
}
