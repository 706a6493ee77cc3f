//! Embodied policies written in Python: an object with
//! `decide(views, ask) -> {agent: reply}` runs in `colony.compare` like a built-in, as the
//! policy `python:<name>`. Its model calls go through `ask`, which is colony's own caller: every
//! call is logged in the episode's call log, counted in the tables, recorded and replayed,
//! and seeded per (episode, step, agent, purpose) like the built-ins' calls.
//!
//! Decision: the Python `decide` runs on a daemon Python thread ([`crate::worker`]: a stopped
//! run does not wait for it, and it may run `timeout_seconds` between asks); each `ask`
//! sends its request to the episode's task, which makes the call with the policy's
//! [`Caller`] and sends the reply back. A failed call raises `ColonyError` in Python
//! and fails the step even if the Python code catches it, so a failure is never scored as a
//! decision.

use std::collections::BTreeMap;

use async_trait::async_trait;
use colony::policy::embodied::{
    AgentView, CallLog, CallerSlot, Decision, EmbodiedError, EmbodiedPolicy, PolicyContext,
    StepView,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tokio::sync::mpsc;

use crate::bridge::{ask_and_wait, exception_line, refuse_waiting, AskRequest, ObjectTable};
use crate::worker::{CallEnd, PythonCall};

/// Python policy objects by name, registered by `colony.compare` before a run.
static POLICIES: ObjectTable = ObjectTable::new();

/// Registers `policy` (an object with `decide(views, ask)`) as `python:<name>`.
#[pyfunction]
pub fn register_policy(py: Python<'_>, name: &str, policy: Py<PyAny>) -> PyResult<()> {
    POLICIES.register(py, name, policy, "decide", "decide(views, ask)")
}

/// The registry constructor of `python:<name>`.
pub fn build(
    options: &mut colony::policy::PolicyOptions,
    ctx: &PolicyContext,
) -> Result<Box<dyn EmbodiedPolicy>, EmbodiedError> {
    // `python:<name>`: the name is the spec's positional value.
    let name = options.positional().unwrap_or_default();
    let name = name.trim();
    let object =
        Python::attach(|py| POLICIES.get(py, name)).ok_or_else(|| EmbodiedError::Config {
            policy: format!("python:{name}"),
            message: "no Python policy of this name is registered (pass the object itself to \
                  colony.compare)"
                .into(),
        })?;
    let label = format!("python:{name}");
    let timeout_seconds = Python::attach(|py| crate::worker::timeout_seconds(object.bind(py)))
        .map_err(|message| config_error(&label, message))?;
    Ok(Box::new(PythonPolicy {
        label,
        object,
        slot: CallerSlot::new(ctx.caller.clone()),
        timeout_seconds,
    }))
}

/// A Python object driving an episode.
struct PythonPolicy {
    label: String,
    object: Py<PyAny>,
    slot: CallerSlot,
    /// Seconds `decide` may run between asks ([`crate::worker::DEFAULT_TIMEOUT_SECONDS`]).
    timeout_seconds: u64,
}

/// The `ask` handle a Python policy receives: `ask(agent, prompt, purpose="act") -> str`.
#[pyclass(module = "colony._colony")]
pub struct Ask {
    requests: mpsc::UnboundedSender<AskRequest<String>>,
}

#[pymethods]
impl Ask {
    /// Asks agent `agent`'s model: its system prompt is the benchmark's instructions, the
    /// user message is `prompt`. Returns the reply text; raises `ColonyError` if the call
    /// failed (the step then fails too).
    #[pyo3(signature = (agent, prompt, purpose = "act"))]
    fn __call__(
        &self,
        py: Python<'_>,
        agent: &str,
        prompt: &str,
        purpose: &str,
    ) -> PyResult<String> {
        ask_and_wait(
            py,
            &self.requests,
            agent.to_string(),
            purpose,
            prompt,
            "decide",
        )
    }
}

/// The views of the deciding agents as Python dicts.
fn views_to_python<'py>(py: Python<'py>, view: &StepView) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for a in &view.deciding {
        let d = PyDict::new(py);
        d.set_item("id", &a.id)?;
        d.set_item("observation", &a.observation)?;
        d.set_item("instructions", &a.instructions)?;
        d.set_item("feedback", a.feedback.as_deref())?;
        d.set_item("neighbours", &a.neighbours)?;
        d.set_item("step", view.step)?;
        d.set_item("seed", view.seed)?;
        d.set_item("env", &view.env_id)?;
        list.append(d)?;
    }
    Ok(list)
}

#[async_trait]
impl EmbodiedPolicy for PythonPolicy {
    fn name(&self) -> &str {
        &self.label
    }

    fn wants_neighbours(&self) -> bool {
        true
    }

    fn slot(&mut self) -> Option<&mut CallerSlot> {
        Some(&mut self.slot)
    }

    async fn decide(&mut self, view: StepView) -> Result<Decision, EmbodiedError> {
        let step = view.step;
        let label = self.label.clone();
        let object = Python::attach(|py| self.object.clone_ref(py));
        let caller = self.slot.caller(view.seed, &view.agents, &view.deciding)?;
        let (requests, mut incoming) = mpsc::unbounded_channel();
        let views = Python::attach(|py| views_to_python(py, &view).map(|v| v.unbind()))
            .map_err(|e| python_error(&label, e))?;
        let mut python = PythonCall::start(object, "decide", move |py| {
            let ask = Py::new(py, Ask { requests })?;
            pyo3::types::PyTuple::new(py, [views.into_any(), ask.into_any()])
        })
        .await
        .map_err(|e| python_error(&label, e))?;
        let mut calls: Vec<CallLog> = Vec::new();
        let mut failure: Option<EmbodiedError> = None;
        let by_id: BTreeMap<&str, &AgentView> =
            view.deciding.iter().map(|a| (a.id.as_str(), a)).collect();
        let limit = std::time::Duration::from_secs(self.timeout_seconds);
        let replies = loop {
            tokio::select! {
                Some(r) = incoming.recv() => {
                    let Some(agent) = by_id.get(r.agent.as_str()) else {
                        let _ = r.reply.send(Err(format!(
                            "ask: agent {:?} is not deciding this step", r.agent
                        )));
                        continue;
                    };
                    match caller.ask(step, agent, &r.purpose, r.prompt).await {
                        Ok(log) => {
                            let _ = r.reply.send(Ok(log.reply.clone().unwrap_or_default()));
                            calls.push(log);
                        }
                        Err(e) => {
                            let _ = r.reply.send(Err(e.to_string()));
                            failure.get_or_insert(e);
                        }
                    }
                }
                end = python.ended() => break Some(end),
                () = tokio::time::sleep(limit) => break None,
            }
        };
        refuse_waiting(&mut incoming, "decide");
        let Some(replies) = replies else {
            python.time_out();
            return Err(config_error(
                &label,
                crate::worker::timeout_message("decide", self.timeout_seconds),
            ));
        };
        if let Some(EmbodiedError::Call {
            step,
            source,
            calls: mut failed,
        }) = failure
        {
            calls.append(&mut failed);
            return Err(EmbodiedError::Call {
                step,
                source,
                calls,
            });
        }
        let replies: BTreeMap<String, String> = match replies {
            CallEnd::Returned(outcome) => outcome
                .and_then(|r| Python::attach(|py| r.bind(py).extract()))
                .map_err(|e| python_error(&label, e))?,
            CallEnd::Lost => {
                return Err(config_error(
                    &label,
                    "decide's thread ended without a reply".into(),
                ))
            }
        };
        if let Some(a) = replies.keys().find(|a| !view.agents.contains(a)) {
            return Err(config_error(
                &label,
                format!("decide replied for unknown agent {a:?}"),
            ));
        }
        // The last call of each agent that replied is the one its action came from.
        for agent in replies.keys() {
            if let Some(c) = calls.iter_mut().rev().find(|c| &c.agent == agent) {
                c.decides = true;
            }
        }
        Ok(Decision { replies, calls })
    }
}

/// A configuration error of policy `label`.
fn config_error(label: &str, message: String) -> EmbodiedError {
    EmbodiedError::Config {
        policy: label.to_string(),
        message,
    }
}

/// A Python exception from `decide`, as one line with its type.
fn python_error(label: &str, e: PyErr) -> EmbodiedError {
    config_error(label, exception_line("decide", e))
}
