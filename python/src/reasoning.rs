//! Reasoning policies written in Python: an object with
//! `solve(question, ask) -> final text` runs in `colony.eval` like a built-in, as the row
//! `python:<name>`. `ask(prompt, agent=0)` asks agent `agent` of the policy's team (its `agents`
//! attribute, default 1, drawn round-robin from the run's roster) through colony's runtime, so
//! each call is in the item's transcript, counted, recorded, replayed and seeded by (run
//! seed, item, policy, call index, agent) like a built-in's.
//!
//! Decision: as for embodied policies ([`crate::policy`]), `solve` runs on a blocking thread
//! and each `ask` is served by the item's task; a failed call fails the item even when the
//! Python code catches the error, so it is counted as an error, never graded.

use async_trait::async_trait;
use colony::policy::reasoning::{
    llm_seed, PolicyError, PolicyOptions, PolicyOutput, Query, ReasoningContext, ReasoningPolicy,
    Roster,
};
use colony::runtime::AskOptions;
use pyo3::prelude::*;
use tokio::sync::mpsc;

use crate::bridge::{ask_and_wait, exception_line, AskRequest, ObjectTable};

/// The largest team a Python reasoning policy may ask for.
const MAX_AGENTS: usize = 64;

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
    let (object, agents) = Python::attach(|py| {
        let object = SOLVERS.get(py, &name)?;
        let agents = object
            .bind(py)
            .getattr("agents")
            .and_then(|a| a.extract::<usize>())
            .unwrap_or(1);
        Some((object, agents))
    })
    .ok_or_else(|| {
        PolicyError::Config(format!(
            "python:{name}: no Python policy of this name is registered (pass the object \
             itself to colony.eval)"
        ))
    })?;
    if !(1..=MAX_AGENTS).contains(&agents) {
        return Err(PolicyError::Config(format!(
            "python:{name}: agents = {agents}, not 1 to {MAX_AGENTS}"
        )));
    }
    Ok(Box::new(PythonSolver {
        label: format!("python:{name}"),
        object,
        agents,
    }))
}

/// A Python object solving items.
struct PythonSolver {
    label: String,
    object: Py<PyAny>,
    agents: usize,
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
        let mut python = tokio::task::spawn_blocking(move || {
            Python::attach(|py| -> PyResult<String> {
                let ask = Py::new(py, AskAgent { requests })?;
                object
                    .bind(py)
                    .call_method1("solve", (question, ask))?
                    .extract()
            })
        });
        let mut failure: Option<PolicyError> = None;
        let mut index = 0u32;
        let done = loop {
            tokio::select! {
                Some(r) = incoming.recv() => {
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
                            let _ = r.reply.send(Ok(reply.text));
                        }
                        Err(e) => {
                            let _ = r.reply.send(Err(e.to_string()));
                            failure.get_or_insert(PolicyError::Runtime(e));
                        }
                    }
                }
                done = &mut python => break done,
            }
        };
        let output = match (failure, done) {
            (Some(e), _) => Err(e),
            (None, Err(e)) => Err(PolicyError::Config(format!(
                "{}: solve did not finish: {e}",
                self.label
            ))),
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
