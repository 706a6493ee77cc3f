//! `colony._colony`, the compiled core of the `colony` Python package (issue 29): colony's
//! environments with their numeric spaces ([`env::Env`]), B copies stepped in one call on Rust
//! threads ([`vector::VecEnv`]), and the command line run in-process ([`run::run_cli`]). The
//! Python modules in `python/colony/` wrap these into PettingZoo environments and the
//! `colony.eval`/`compare`/`run_suite` functions, and runs embodied policies written in Python
//! ([`policy`]).
//!
//! Decision: arrays cross the boundary as little-endian `bytes` (f32 observations, f64
//! rewards, i64 action codes) that the Python side views with `numpy.frombuffer`, so the
//! extension needs no numpy at build time and each array is copied once.

use pyo3::prelude::*;

mod bytes;
mod env;
mod policy;
mod reasoning;
mod run;
mod vector;

pyo3::create_exception!(
    _colony,
    ColonyError,
    pyo3::exceptions::PyException,
    "An error colony reports as one line: a bad setting, file, action or run."
);

/// The error as a Python `ColonyError` with the same one-line message the CLI prints.
pub(crate) fn colony_error(e: impl std::fmt::Display) -> PyErr {
    ColonyError::new_err(e.to_string())
}

/// The module: classes, functions and the exception type.
#[pymodule]
fn _colony(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ColonyError", m.py().get_type::<ColonyError>())?;
    m.add_class::<env::Env>()?;
    m.add_class::<vector::VecEnv>()?;
    m.add_function(wrap_pyfunction!(run::run_cli, m)?)?;
    m.add_function(wrap_pyfunction!(env::environments, m)?)?;
    m.add_class::<policy::Ask>()?;
    m.add_function(wrap_pyfunction!(policy::register_policy, m)?)?;
    m.add_class::<reasoning::AskAgent>()?;
    m.add_function(wrap_pyfunction!(reasoning::register_solver, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // colony's built-ins plus `python:<name>`, the policies written in Python. Installed once
    // per process; a second import of the module finds it in place.
    let _ = colony::registry::Registry::builtin()
        .embodied_policy(
            "python",
            "an object of yours with decide(views, ask), passed to colony.compare (Python only)",
            policy::build,
        )
        .reasoning_policy(
            "python",
            "an object of yours with solve(question, ask), passed to colony.eval (Python only)",
            reasoning::build,
        )
        .install();
    Ok(())
}
