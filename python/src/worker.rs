//! One call of a Python policy's method (`decide`, `solve`) on a daemon Python thread, which
//! the run can interrupt and abandon.
//!
//! Decision: the call runs on a thread Python itself started (`threading.Thread`, daemon),
//! never on one of the async runtime's threads, for three reasons.
//! - A stopped run returns at once: nothing waits for Python code that sleeps or loops; the
//!   thread is sent `KeyboardInterrupt` (an asynchronous exception, seen at its next bytecode)
//!   and left to end on its own.
//! - A thread left running cannot abort the interpreter at exit. Python ends a daemon thread
//!   that wants the GIL after finalization began by unwinding its stack; through the runtime's
//!   frames that unwinding aborted the process, through Python's own it is the normal exit of a
//!   daemon thread. The only colony frame the thread can block in is `ask`, which never takes
//!   the GIL back once the run that served it is gone ([`crate::bridge::ask_and_wait`]).
//! - The call can be timed out ([`DEFAULT_TIMEOUT_SECONDS`]): the thread is sent
//!   `TimeoutError` and the step or item fails with a clear error.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyModule, PyTuple};
use tokio::sync::oneshot;

/// Seconds a Python policy may run between two of its asks (and before the first and after
/// the last) by default; the object's `timeout_seconds` attribute overrides it, up to
/// [`MAX_TIMEOUT_SECONDS`]. Decision: the clock stops while an ask is served, so a slow model
/// never times a policy out; only Python code that neither asks nor returns does.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 600;
/// The most `timeout_seconds` may be (a day).
pub const MAX_TIMEOUT_SECONDS: u64 = 86_400;

/// The object's `timeout_seconds` ([`DEFAULT_TIMEOUT_SECONDS`] when it has none).
pub fn timeout_seconds(object: &Bound<'_, PyAny>) -> Result<u64, String> {
    crate::bridge::int_attribute(
        object,
        "timeout_seconds",
        DEFAULT_TIMEOUT_SECONDS,
        1..=MAX_TIMEOUT_SECONDS,
    )
}

/// The error of a `method` call timed out after `seconds` without asking or returning.
pub fn timeout_message(method: &str, seconds: u64) -> String {
    format!(
        "{method} ran {seconds} s without asking or returning (set `timeout_seconds` on the \
         policy object to allow more)"
    )
}

/// The Python half: the thread's body. Only Python frames sit below the policy's code on the
/// thread (see the module's decision); `done` is a colony object that only stores the
/// outcome, holding the GIL throughout.
const TRAMPOLINE: &std::ffi::CStr = cr#"
import threading

def start(fn, args, done):
    def body():
        try:
            result = fn(*args)
        except BaseException as error:
            done(False, error)
        else:
            done(True, result)
    thread = threading.Thread(target=body, name="colony-policy", daemon=True)
    thread.start()
    return thread.ident
"#;

/// The trampoline module, compiled once per process.
fn trampoline(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    MODULE
        .get_or_try_init(py, || {
            PyModule::from_code(py, TRAMPOLINE, c"colony_worker.py", c"colony._worker")
                .map(Bound::unbind)
        })
        .map(|m| m.bind(py))
}

/// What the thread's body hands back: the method's return value or its exception.
type Outcome = PyResult<Py<PyAny>>;

/// The `done(ok, value)` callback the thread's body calls once.
#[pyclass(module = "colony._colony")]
pub struct Done {
    sender: Mutex<Option<oneshot::Sender<Outcome>>>,
}

#[pymethods]
impl Done {
    fn __call__(&self, py: Python<'_>, ok: bool, value: Py<PyAny>) {
        let outcome = if ok {
            Ok(value)
        } else {
            Err(PyErr::from_value(value.into_bound(py)))
        };
        if let Some(sender) = self.sender.lock().ok().and_then(|mut s| s.take()) {
            // The receiver is gone when the run stopped or timed the call out.
            let _ = sender.send(outcome);
        }
    }
}

/// A running call. Dropping it before its outcome arrived (the run stopped) interrupts the
/// thread with `KeyboardInterrupt`.
pub struct PythonCall {
    ident: u64,
    outcome: oneshot::Receiver<Outcome>,
    ended: bool,
}

/// How a call ended, seen from the run.
pub enum CallEnd {
    /// The method returned or raised.
    Returned(Outcome),
    /// The thread ended without reporting (it cannot, short of the interpreter exiting).
    Lost,
}

impl PythonCall {
    /// Starts `object.method(*args)` on a new daemon thread. Decision: the starting runs
    /// Python code (`threading.Thread.start`), and Python code run on the main thread sees a
    /// pending Ctrl-C as `KeyboardInterrupt` (the run's futures may be polled there), which
    /// would be recorded as the call's error; so it runs on a blocking thread of the runtime,
    /// where signals are never handled, and the run's own Ctrl-C watch sees the signal.
    pub async fn start(
        object: Py<PyAny>,
        method: &'static str,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>> + Send + 'static,
    ) -> PyResult<Self> {
        tokio::task::spawn_blocking(move || {
            Python::attach(|py| Self::start_here(py, object.bind(py), method, args(py)?))
        })
        .await
        .map_err(|e| crate::colony_error(format!("the policy's thread did not start: {e}")))?
    }

    fn start_here(
        py: Python<'_>,
        object: &Bound<'_, PyAny>,
        method: &str,
        args: Bound<'_, PyTuple>,
    ) -> PyResult<Self> {
        // Imported here, off the main thread, so the interrupt's import only finds it.
        py.import("ctypes")?;
        let (sender, outcome) = oneshot::channel();
        let done = Py::new(
            py,
            Done {
                sender: Mutex::new(Some(sender)),
            },
        )?;
        let ident: u64 = trampoline(py)?
            .getattr("start")?
            .call1((object.getattr(method)?, args, done))?
            .extract()?;
        Ok(Self {
            ident,
            outcome,
            ended: false,
        })
    }

    /// Waits for the outcome (cancel-safe: usable as a `select!` branch by `&mut`).
    pub async fn ended(&mut self) -> CallEnd {
        let end = match (&mut self.outcome).await {
            Ok(outcome) => CallEnd::Returned(outcome),
            Err(_) => CallEnd::Lost,
        };
        self.ended = true;
        end
    }

    /// Gives up on the call: its thread is sent `TimeoutError` and its outcome is ignored.
    pub fn time_out(mut self) {
        self.interrupt(|py| py.get_type::<pyo3::exceptions::PyTimeoutError>().into_any());
        self.ended = true;
    }

    /// Raises `kind` in the call's thread at its next bytecode (no effect on a thread blocked
    /// in C code until it returns, nor on one that ended). Decision: through `ctypes`
    /// (`PyThreadState_SetAsyncExc`, no unsafe code here), calling only C-implemented objects,
    /// so no Python bytecode runs on the dropping thread, which may be the main one (a pending
    /// Ctrl-C is then left for the run's watch instead of being consumed here).
    fn interrupt(&self, kind: impl for<'py> FnOnce(Python<'py>) -> Bound<'py, PyAny>) {
        Python::attach(|py| {
            let sent = (|| -> PyResult<()> {
                let ctypes = py.import("ctypes")?;
                let ident = ctypes.getattr("c_ulong")?.call1((self.ident,))?;
                let kind = ctypes.getattr("py_object")?.call1((kind(py),))?;
                ctypes
                    .getattr("pythonapi")?
                    .getattr("PyThreadState_SetAsyncExc")?
                    .call1((ident, kind))?;
                Ok(())
            })();
            // A failure leaves the thread running to its end, which is still safe (see the
            // module's decision), so there is nothing more to do with it.
            drop(sent);
        });
    }
}

impl Drop for PythonCall {
    fn drop(&mut self) {
        if !self.ended {
            self.interrupt(|py| {
                py.get_type::<pyo3::exceptions::PyKeyboardInterrupt>()
                    .into_any()
            });
        }
    }
}
