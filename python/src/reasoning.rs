//! Reasoning policies written in Python: an object with
//! `solve(question, ask) -> final text` runs in `colony.eval` like a built-in, as the row
//! `python:<name>`. `ask(prompt, agent=0)` asks agent `agent` of the policy's team (its `agents`
//! attribute, default 1, drawn round-robin from the run's roster) through colony's runtime, so
//! each call is in the item's transcript, counted, recorded, replayed and seeded by (run
//! seed, item, policy, call index, agent) like a built-in's.
//!
//! Decision: as for embodied policies ([`crate::policy`]), `solve` runs on a daemon Python
//! thread ([`crate::worker`]) and each `ask` is served by the item's task; a failed call
//! fails the item even when the Python code catches the error, so it is counted as an error,
//! never graded.

use async_trait::async_trait;
use colony::policy::reasoning::{
    llm_seed, PolicyError, PolicyOptions, PolicyOutput, Query, ReasoningContext, ReasoningPolicy,
    Roster,
};
use colony::runtime::AskOptions;
use pyo3::prelude::*;
use tokio::sync::mpsc;

use crate::bridge::{ask_and_wait, exception_line, refuse_waiting, AskRequest, ObjectTable};
use crate::worker::{CallEnd, PythonCall};

/// The largest team a Python reasoning policy may ask for.
const MAX_AGENTS: usize = 64;
/// Asks one item may make by default (the object's `max_asks` attribute overrides it, up to
/// [`MAX_ASKS_CAP`]). Decision: every ask carries the agent's whole conversation, so prompt
/// tokens grow with the square of the asks; a solver looping on `ask` fails its item with a
/// clear error instead of exhausting memory.
pub const DEFAULT_MAX_ASKS: u64 = 256;
/// The most `max_asks` may raise the bound to.
pub const MAX_ASKS_CAP: u64 = 100_000;
/// Bytes of prompts and replies one item may exchange by default (the object's
/// `max_conversation_bytes` overrides it, up to [`MAX_CONVERSATION_CAP`]).
pub const DEFAULT_MAX_CONVERSATION_BYTES: u64 = 8 << 20;
/// The most `max_conversation_bytes` may raise the bound to.
pub const MAX_CONVERSATION_CAP: u64 = 1 << 30;

/// Python reasoning policy objects by name, registered by `colony.eval` before a run.
static SOLVERS: ObjectTable = ObjectTable::new();

/// Registers `solver` (an object with `solve(question, ask)`) as `python:name=<name>`.
#[pyfunction]
pub fn register_solver(py: Python<'_>, name: &str, solver: Py<PyAny>) -> PyResult<()> {
    SOLVERS.register(py, name, solver, "solve", "solve(question, ask)")
}

/// The registry constructor of `python:name=<name>`.
pub fn build(
    options: &mut PolicyOptions,
    _ctx: &ReasoningContext,
) -> Result<Box<dyn ReasoningPolicy>, PolicyError> {
    let name = options
        .text("name")
        .ok_or_else(|| PolicyError::Config("python: needs name=<registered object>".into()))?;
    let (object, read) = Python::attach(|py| {
        let object = SOLVERS.get(py, &name)?;
        let bound = object.bind(py);
        let read = (
            crate::bridge::int_attribute(bound, "agents", 1, 1..=MAX_AGENTS as u64),
            crate::bridge::int_attribute(bound, "max_asks", DEFAULT_MAX_ASKS, 1..=MAX_ASKS_CAP),
            crate::bridge::int_attribute(
                bound,
                "max_conversation_bytes",
                DEFAULT_MAX_CONVERSATION_BYTES,
                1..=MAX_CONVERSATION_CAP,
            ),
            crate::worker::timeout_seconds(bound),
        );
        Some((object, read))
    })
    .ok_or_else(|| {
        PolicyError::Config(format!(
            "python:{name}: no Python policy of this name is registered (pass the object \
             itself to colony.eval)"
        ))
    })?;
    let bad = |e: String| PolicyError::Config(format!("python:{name}: {e}"));
    let agents = read.0.map_err(bad)? as usize;
    let max_asks = read.1.map_err(bad)?;
    let max_bytes = read.2.map_err(bad)?;
    let timeout_seconds = read.3.map_err(bad)?;
    Ok(Box::new(PythonSolver {
        label: format!("python:{name}"),
        object,
        agents,
        max_asks,
        max_bytes,
        timeout_seconds,
    }))
}

/// A Python object solving items.
struct PythonSolver {
    label: String,
    object: Py<PyAny>,
    agents: usize,
    /// Asks one item may make.
    max_asks: u64,
    /// Prompt and reply bytes one item may exchange.
    max_bytes: u64,
    /// Seconds `solve` may run between asks ([`crate::worker::DEFAULT_TIMEOUT_SECONDS`]).
    timeout_seconds: u64,
}

/// The `ask` handle of a Python reasoning policy: `ask(prompt, agent=0) -> str`.
#[pyclass(module = "colony._colony")]
pub struct AskAgent {
    requests: mpsc::UnboundedSender<AskRequest<usize>>,
}

#[pymethods]
impl AskAgent {
    /// Asks agent `agent` of the team (0-based) with `prompt`; returns the reply text or
    /// raises `ColonyError` (the item then fails too).
    #[pyo3(signature = (prompt, agent = 0))]
    fn __call__(&self, py: Python<'_>, prompt: &str, agent: usize) -> PyResult<String> {
        ask_and_wait(py, &self.requests, agent, "act", prompt, "solve")
    }
}

#[async_trait]
impl ReasoningPolicy for PythonSolver {
    fn name(&self) -> &str {
        &self.label
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let ids: Vec<String> = (0..self.agents).map(|k| format!("agent_{k}")).collect();
        let team = roster.team_for(&ids)?;
        let (requests, mut incoming) = mpsc::unbounded_channel();
        let object = Python::attach(|py| self.object.clone_ref(py));
        let question = query.text();
        let python = PythonCall::start(object, "solve", move |py| {
            let ask = Py::new(py, AskAgent { requests })?;
            pyo3::types::PyTuple::new(
                py,
                [
                    question.into_pyobject(py)?.into_any(),
                    ask.into_bound(py).into_any(),
                ],
            )
        })
        .await;
        let mut python = match python {
            Ok(call) => call,
            Err(e) => {
                team.shutdown().await;
                return Err(PolicyError::Config(format!(
                    "{}: {}",
                    self.label,
                    exception_line("solve", e)
                )));
            }
        };
        let limit = std::time::Duration::from_secs(self.timeout_seconds);
        let mut failure: Option<PolicyError> = None;
        let mut index = 0u32;
        let mut bytes = 0u64;
        let done = loop {
            tokio::select! {
                Some(r) = incoming.recv() => {
                    bytes = bytes.saturating_add(r.prompt.len() as u64);
                    let over = if u64::from(index) >= self.max_asks {
                        Some(format!(
                            "ask: the item made {} asks, the limit (set `max_asks` on the policy \
                             object to raise it)",
                            self.max_asks
                        ))
                    } else if bytes > self.max_bytes {
                        Some(format!(
                            "ask: the item's prompts and replies passed {} bytes, the limit (set \
                             `max_conversation_bytes` on the policy object to raise it)",
                            self.max_bytes
                        ))
                    } else {
                        None
                    };
                    if let Some(why) = over {
                        let _ = r.reply.send(Err(why.clone()));
                        failure.get_or_insert(PolicyError::Config(format!("{}: {why}", self.label)));
                        continue;
                    }
                    let Some(agent) = ids.get(r.agent) else {
                        let _ = r.reply.send(Err(format!(
                            "ask: agent {} is not in the team of {}", r.agent, ids.len()
                        )));
                        continue;
                    };
                    let options = AskOptions::new()
                        .seed(llm_seed(query.run_seed, &query.item.id, &self.label, Some(index), agent))
                        .tag(format!("call {index}"));
                    index += 1;
                    match team.ask_with(agent, r.prompt, options).await {
                        Ok(reply) => {
                            bytes = bytes.saturating_add(reply.text.len() as u64);
                            let _ = r.reply.send(Ok(reply.text));
                        }
                        Err(e) => {
                            let _ = r.reply.send(Err(e.to_string()));
                            failure.get_or_insert(PolicyError::Runtime(e));
                        }
                    }
                }
                end = python.ended() => break Some(end),
                () = tokio::time::sleep(limit) => break None,
            }
        };
        refuse_waiting(&mut incoming, "solve");
        let done = match done {
            Some(CallEnd::Returned(outcome)) => {
                Ok(outcome.and_then(|r| Python::attach(|py| r.bind(py).extract::<String>())))
            }
            Some(CallEnd::Lost) => Err("solve's thread ended without a reply".to_string()),
            None => {
                python.time_out();
                Err(crate::worker::timeout_message(
                    "solve",
                    self.timeout_seconds,
                ))
            }
        };
        let output = match (failure, done) {
            (Some(e), _) => Err(e),
            (None, Err(why)) => Err(PolicyError::Config(format!("{}: {why}", self.label))),
            (None, Ok(Err(e))) => Err(PolicyError::Config(format!(
                "{}: {}",
                self.label,
                exception_line("solve", e)
            ))),
            (None, Ok(Ok(text))) => Ok(PolicyOutput {
                answer: query.extract(&text),
                final_text: text,
                transcript: team.transcript(),
                usage: team.usage(),
                trace: serde_json::json!({ "calls": index }),
            }),
        };
        team.shutdown().await;
        output
    }
}
