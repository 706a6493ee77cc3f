//! What the Python policies of [`crate::policy`] (embodied) and [`crate::reasoning`] share:
//! the table of registered objects, the name rule, exceptions as one line, and the `ask`
//! round trip from Python's thread to the task that makes the model call.

use std::collections::BTreeMap;
use std::sync::Mutex;

use pyo3::prelude::*;
use tokio::sync::{mpsc, oneshot};

use crate::colony_error;

/// Python objects registered by name before a run (`colony.compare`/`colony.eval` do it).
pub struct ObjectTable(Mutex<BTreeMap<String, Py<PyAny>>>);

impl ObjectTable {
    /// An empty table.
    pub const fn new() -> Self {
        Self(Mutex::new(BTreeMap::new()))
    }

    /// Registers `object` as `name`; it must have the method `method` (its call shown as
    /// `call` in the error).
    pub fn register(
        &self,
        py: Python<'_>,
        name: &str,
        object: Py<PyAny>,
        method: &str,
        call: &str,
    ) -> PyResult<()> {
        check_name(name)?;
        if !object.bind(py).hasattr(method)? {
            return Err(colony_error(format!(
                "policy {name}: the object has no {call} method"
            )));
        }
        self.0
            .lock()
            .map_err(|_| colony_error("the policy table was poisoned"))?
            .insert(name.to_string(), object);
        Ok(())
    }

    /// The object registered as `name`.
    pub fn get(&self, py: Python<'_>, name: &str) -> Option<Py<PyAny>> {
        let table = self.0.lock().ok()?;
        table.get(name).map(|o| o.clone_ref(py))
    }
}

/// Checks a Python policy's name: letters, digits, `_`, `-` and `.` (it becomes part of a
/// spec, a results-file name and a table row).
fn check_name(name: &str) -> PyResult<()> {
    if name.is_empty()
        || name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
    {
        return Err(colony_error(format!(
            "policy name {name:?}: use 1 to 64 letters, digits, '_', '-' and '.'"
        )));
    }
    Ok(())
}

/// A Python exception as one line: `"<what> raised <Type>: <message>"`.
pub fn exception_line(what: &str, e: PyErr) -> String {
    Python::attach(|py| {
        let kind = e
            .get_type(py)
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "Exception".into());
        format!("{what} raised {kind}: {}", e.value(py)).replace('\n', " ")
    })
}

/// One `ask` from Python: which agent (an id or a team index), the purpose and prompt, and
/// where the reply (or the failed call's message) goes.
pub struct AskRequest<A> {
    /// The agent asked.
    pub agent: A,
    /// The call's purpose tag.
    pub purpose: String,
    /// The user message.
    pub prompt: String,
    /// The reply text, or the failure's message.
    pub reply: oneshot::Sender<Result<String, String>>,
}

/// Sends one request from Python's thread and waits for its reply with the GIL released;
/// `scope` names where `ask` is valid (`"decide"`, `"solve"`) for the error after it ends.
pub fn ask_and_wait<A>(
    py: Python<'_>,
    requests: &mpsc::UnboundedSender<AskRequest<A>>,
    agent: A,
    purpose: &str,
    prompt: &str,
    scope: &str,
) -> PyResult<String> {
    let (reply, rx) = oneshot::channel();
    let request = AskRequest {
        agent,
        purpose: purpose.to_string(),
        prompt: prompt.to_string(),
        reply,
    };
    requests
        .send(request)
        .map_err(|_| colony_error(format!("ask: called after {scope} returned or timed out")))?;
    py.detach(|| match rx.blocking_recv() {
        Ok(reply) => reply,
        // The request was dropped unanswered: the run that served it stopped (a timed-out
        // call's waiting asks are answered with an error). The interpreter may be exiting, and
        // taking the GIL back then would end this thread through colony's frames, which aborts
        // the process (crate::worker), so the thread stays here, holding nothing, for good.
        Err(_) => loop {
            std::thread::park();
        },
    })
    .map_err(colony_error)
}

/// Answers every ask still queued in `incoming` with an error and closes it, once the call
/// that sent them returned or timed out: a request dropped unanswered would hold its thread
/// for good (see [`ask_and_wait`]).
pub fn refuse_waiting<A>(incoming: &mut mpsc::UnboundedReceiver<AskRequest<A>>, scope: &str) {
    incoming.close();
    while let Ok(r) = incoming.try_recv() {
        let _ = r.reply.send(Err(format!(
            "ask: called after {scope} returned or timed out"
        )));
    }
}

/// The integer attribute `name` of `object` within `range`, `default` when the object has
/// none. Decision: a value that is not an int (a string `"3"`, a float `2.5`, a bool) or is
/// out of range is an error naming the attribute, never read as the default.
pub(crate) fn int_attribute(
    object: &pyo3::Bound<'_, pyo3::PyAny>,
    name: &str,
    default: u64,
    range: std::ops::RangeInclusive<u64>,
) -> Result<u64, String> {
    use pyo3::types::{PyAnyMethods, PyBool, PyInt};
    let Ok(value) = object.getattr(name) else {
        return Ok(default);
    };
    let shown = || {
        value
            .repr()
            .map(|r| colony::env_api::clip(&r.to_string()))
            .unwrap_or_else(|_| "?".into())
    };
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(format!("{name} = {}: not an integer", shown()));
    }
    match value.extract::<i128>() {
        Ok(n) if n >= 0 && range.contains(&(n as u64)) && n <= u64::MAX as i128 => Ok(n as u64),
        _ => Err(format!(
            "{name} = {}: not in {}..={}",
            shown(),
            range.start(),
            range.end()
        )),
    }
}
