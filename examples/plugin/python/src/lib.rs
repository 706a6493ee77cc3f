//! `colony._colony` with the plugin's environments and policies in its registry: installed
//! with colony's Python modules, `colony.envs.parallel_env("spread-v0")` and
//! `colony.compare(…, policies=["demo_nearest"])` work from Python.

use _colony::pyo3::prelude::*;

/// The module colony's Python package imports, over this plugin's registry.
#[pymodule]
#[pyo3(name = "_colony", crate = "_colony::pyo3")]
fn plugin_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    _colony::module_with(m, colony_plugin_demo::registry())
}
