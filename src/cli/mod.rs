//! The `colony` subcommands, one file each.

pub mod bench;
pub mod bench_embodied;
pub mod bench_endpoint;
pub mod bench_swarmsys;
pub mod chat;
pub mod compare;
pub mod cube;
pub mod dataset_args;
pub mod embed;
pub mod env;
pub mod eval;
pub mod grade;
pub mod merge;
pub mod model_args;
pub mod models;
pub mod run;
pub mod selforg;
pub mod serve_mock;
pub mod study;
pub mod swarmbench;
pub mod swarmsys;
pub mod view;
pub mod wildfire;

/// The adaptive-concurrency field of progress-bar messages: ` conc LIMIT/MAX` summed over the
/// live HTTP endpoints ([`colony::llm::concurrency_label`]), or nothing when only simulated or
/// replayed models are in use. Placed next to the retries it explains.
pub(crate) fn conc_field() -> String {
    colony::llm::concurrency_label()
        .map(|label| format!(" {label}"))
        .unwrap_or_default()
}
