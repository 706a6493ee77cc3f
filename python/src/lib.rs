//! `colony._colony`, the compiled core of the `colony` Python package: colony's
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

pub use colony;
pub use pyo3;

mod bridge;
mod bytes;
mod env;
mod policy;
mod reasoning;
mod run;
mod vector;
mod worker;

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

/// The registry of this extension module: the Python front's door. Decision: a Python
/// extension module is one object per process (a second import finds it in `sys.modules`),
/// so the registry it was built with lives beside it for the process's life; the library
/// below reads no global and receives it from here.
static REGISTRY: std::sync::OnceLock<colony::registry::Registry> = std::sync::OnceLock::new();

/// The module's registry (the built-in one before [`module_with`] ran).
pub(crate) fn registry() -> &'static colony::registry::Registry {
    REGISTRY.get_or_init(colony::registry::Registry::builtin)
}

/// Fills `m` with colony's classes and functions over `registry`, plus the policies written
/// in Python (`python:<name>`), and keeps that registry as the module's. colony's own
/// module passes [`colony::registry::Registry::builtin`]; a plugin crate builds its own
/// extension module named `colony._colony` and passes its registry, the way its binary calls
/// `colony::cli::main_with` (every environment of the registry, a user's too).
pub fn module_with(m: &Bound<'_, PyModule>, registry: colony::registry::Registry) -> PyResult<()> {
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
    let registry = registry
        .embodied_policy(
            "python",
            "an object of yours with decide(views, ask), passed to colony.compare (Python only)",
            policy::build,
        )
        .reasoning_policy(
            "python",
            "an object of yours with solve(question, ask), passed to colony.eval (Python only)",
            reasoning::build,
        );
    registry.check().map_err(colony_error)?;
    // A second import of the module in one process finds the registry in place.
    let _ = REGISTRY.set(registry);
    Ok(())
}

/// colony's own module: the built-in registry.
#[cfg(feature = "module")]
#[pymodule]
fn _colony(m: &Bound<'_, PyModule>) -> PyResult<()> {
    module_with(m, colony::registry::Registry::builtin())
}
