//! The `colony` command line, one file per subcommand, as a library entry point:
//! [`main_with`] runs every subcommand over a [`Registry`], so a user's binary that registers
//! its own policies and environments is the whole `colony` CLI with them in it. colony's own
//! binary is `main_with(Registry::builtin())`. Each subcommand receives the registry and
//! resolves its names through it before calling the library (there is no process global).

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
pub mod export;
pub mod grade;
pub mod judge_args;
pub mod logs;
pub mod merge;
pub mod model_args;
pub mod models;
mod progress_lines;
pub mod run;
pub mod sandbox_args;
pub mod selforg;
pub mod serve_mock;
pub mod study;
pub mod swarmbench;
pub mod swarmsys;
pub mod tool_args;
pub mod view;
pub mod wildfire;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::registry::Registry;
use tracing_subscriber::EnvFilter;

/// colony: LLM multi-agent orchestration with pluggable environments.
#[derive(Parser, Debug)]
#[command(name = "colony", version, about, propagate_version = true)]
pub struct Cli {
    /// More logging on stderr: -v info, -vv debug, -vvv trace (RUST_LOG overrides).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// models.toml to use (default: $COLONY_MODELS, else ./models.toml if present).
    #[arg(long, value_name = "FILE", global = true)]
    models_config: Option<PathBuf>,
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Send one prompt to a model and print the reply.
    Chat(chat::ChatArgs),
    /// Serve an OpenAI-compatible API on loopback, backed by the simulated model, with faults.
    ServeMock(serve_mock::ServeMockArgs),
    /// List configured models and check that each endpoint answers.
    Models(models::ModelsArgs),
    /// Embed texts and print their pairwise cosine similarities; `fetch-minilm` installs MiniLM.
    Embed(embed::EmbedArgs),
    /// Run reasoning policies over a dataset (resumable) and print the results table.
    Eval(Box<eval::EvalArgs>),
    /// Run a suite (evals/<suite>.toml): datasets and environments × policies × models × seeds.
    Run(run::RunArgs),
    /// Join a suite's shard directories into one results directory.
    Merge(merge::MergeArgs),
    /// Compare coordination policies on one embodied task, same seeds, side by side
    /// (resumable; table, plots, trajectories and call logs).
    Compare(Box<compare::CompareArgs>),
    /// Tools to look inside SelfOrg (graph formation from embedding vectors).
    Selforg(selforg::SelforgArgs),
    /// Tools to look inside SwarmSys (`match`: the ε-greedy matching distribution).
    Swarmsys(swarmsys::SwarmsysArgs),
    /// Grade a JSONL of model outputs against a reasoning dataset.
    Grade(grade::GradeArgs),
    /// List the supported reasoning datasets and the file format each expects.
    Datasets(grade::DatasetsArgs),
    /// Simulation studies (labelled as simulation): `selforg-amplification`.
    Study(study::StudyArgs),
    /// SwarmBench tools: `physics` runs one physics step on JSON scenarios.
    Swarmbench(swarmbench::SwarmbenchArgs),
    /// CREW-Wildfire tools: `bcs` (NS/BCS metrics), `levels`, `snapshot` (SVG of a state).
    Wildfire(wildfire::WildfireArgs),
    /// CUBE tools: `symbolic-bench` (per-call cost of each symbolic action, paper Fig. 4).
    Cube(cube::CubeArgs),
    /// Environments: list, reset, step, run built-in policies, bench.
    Env(env::EnvArgs),
    /// Measure client throughput or runtime scale (one JSON line).
    Bench(bench::BenchArgs),
    /// Write an HTML report of a run: report.html and its data folder report.data/ (tables, plots, calls, replayed episodes).
    View(view::ViewArgs),
    /// Read a run's call logs: `cat` prints them as JSON lines, compact or plain.
    Logs(logs::LogsArgs),
    /// Write a run in another tool's format: `inspect` (Inspect AI logs for `inspect view`).
    Export(export::ExportArgs),
}

/// Runs one parsed command over `registry`: the door where every name of the command becomes
/// an object (docs/design/architecture.md §1).
async fn run(cli: Cli, registry: &Registry) -> anyhow::Result<()> {
    let config = cli.models_config.as_deref();
    let r = registry;
    match cli.command {
        Cmd::Chat(a) => chat::run(a, config, r).await,
        Cmd::ServeMock(a) => serve_mock::run(a, r).await,
        Cmd::Models(a) => models::run(a, config).await,
        Cmd::Bench(a) => bench::run(a, r).await,
        Cmd::Embed(a) => embed::run(a).await,
        Cmd::Grade(a) => grade::run(a, r),
        Cmd::Eval(a) => eval::run(*a, config, r).await,
        Cmd::Run(a) => run::run(a, config, r).await,
        Cmd::Merge(a) => merge::run(a, r).await,
        Cmd::Compare(a) => compare::run(*a, config, r).await,
        Cmd::Selforg(a) => selforg::run(a),
        Cmd::Swarmsys(a) => swarmsys::run(a),
        Cmd::Datasets(a) => grade::datasets(a, r),
        Cmd::Env(a) => env::run(a, r).await,
        Cmd::Cube(a) => cube::run(a),
        Cmd::Swarmbench(a) => swarmbench::run(a),
        Cmd::Wildfire(a) => wildfire::run(a).await,
        Cmd::Study(a) => study::run(a, r).await,
        Cmd::View(a) => view::run(a, r).await,
        Cmd::Logs(a) => logs::run(a),
        Cmd::Export(a) => export::run(a),
    }
}

/// Runs the `colony` command line (arguments from the process) over `registry`: checks it,
/// lists its names in the help texts, runs the subcommand with it and returns the exit code
/// (errors printed as one line on stderr).
pub fn main_with(registry: Registry) -> ExitCode {
    if let Err(e) = registry.check() {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let registry = &registry;
    let parsed = with_registry_help(Cli::command(), registry)
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            // clap echoes a bad value whole (a 500-digit number, twice): clipped as every
            // other message of colony is.
            eprintln!("{}", clip_long_words(e.render().to_string().trim_end()));
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    try_init_logging(cli.verbose);
    quiet_on_closed_stdout();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        runtime.block_on(run(cli, registry))
    }));
    match outcome {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
        Err(payload) if is_closed_stdout(payload.as_ref()) => ExitCode::from(CLOSED_STDOUT_EXIT),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// Why an in-process command ([`run_args_until`]) did not finish: the one-line message the
/// command line prints after `error: ` (bad arguments included), or the help text for
/// `--help`.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    /// The message, as the command line would print it.
    pub message: String,
}

/// A clap error as an embedder shows it: `--help` and `--version` in full, every other error
/// as its one line (`invalid value '-1' for '--max-steps <N>': …`), without the usage block
/// that follows it on a terminal.
fn clap_message(e: &clap::Error) -> String {
    use clap::error::ErrorKind;
    let text = e.render().to_string();
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        return text.trim_end().to_string();
    }
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    clip_long_words(first.trim().trim_start_matches("error:").trim())
}

/// `text` with every word longer than 100 characters cut to its first 80 and `…`.
fn clip_long_words(text: &str) -> String {
    text.split_inclusive(char::is_whitespace)
        .map(|w| {
            let word = w.trim_end();
            if word.chars().count() > 100 {
                let cut: String = word.chars().take(80).collect();
                format!("{cut}…{}", &w[word.len()..])
            } else {
                w.to_string()
            }
        })
        .collect()
}

/// How an in-process command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandEnd {
    /// It ran to the end.
    Finished,
    /// `stop` fired first: the command was dropped at its next await point. Every finished
    /// result is already on disk (append-only files), so rerunning the command resumes.
    Stopped,
}

/// Runs one colony command from `args` (without the program name) in-process over
/// `registry`, stopping early when `stop` completes: the same code path as the command line,
/// for embedders such as the Python package (where `stop` watches for Ctrl-C). Logging
/// starts on the first call (`RUST_LOG` applies); `-v` flags of later calls do not change it.
pub fn run_args_until<I, T, F>(
    registry: &Registry,
    args: I,
    stop: F,
) -> Result<CommandEnd, CommandError>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
    F: std::future::Future<Output = ()>,
{
    let argv =
        std::iter::once(std::ffi::OsString::from("colony")).chain(args.into_iter().map(Into::into));
    let cli = with_registry_help(Cli::command(), registry)
        .try_get_matches_from(argv)
        .and_then(|m| Cli::from_arg_matches(&m))
        .map_err(|e| CommandError {
            message: clap_message(&e),
        })?;
    try_init_logging(cli.verbose);
    // This run's own stop flag: every thread of its runtime (and this one while it waits) is
    // bound to it, so stopping it drops only its own appends (results::bind_run_stop).
    let stopped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_start({
            let stopped = stopped.clone();
            move || {
                crate::eval::results::bind_run_stop(Some(stopped.clone()));
            }
        })
        .build()
        .map_err(|e| CommandError {
            message: format!("cannot start the async runtime: {e}"),
        })?;
    let outer = crate::eval::results::bind_run_stop(Some(stopped.clone()));
    // The flag is set before the command's future is dropped, so nothing its cancellation
    // causes is recorded.
    let stop = async {
        stop.await;
        stopped.store(true, std::sync::atomic::Ordering::SeqCst);
    };
    let end = runtime.block_on(async {
        tokio::select! {
            r = run(cli, registry) => r.map(|()| CommandEnd::Finished),
            () = stop => Ok(CommandEnd::Stopped),
        }
    });
    // Tasks the command spawned are cancelled with the runtime, not left running.
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    crate::eval::results::bind_run_stop(outer);
    end.map_err(|e| CommandError {
        message: format!("{e:#}"),
    })
}

/// Logging on stderr at the `-v` level (`RUST_LOG` overrides), started once per process: a
/// second in-process command keeps the first one's subscriber.
fn try_init_logging(verbose: u8) {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let default = ["warn", "info", "debug", "trace"][usize::from(verbose.min(3))];
        let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal())
            .try_init();
    });
}

/// The exit code when the reader of stdout went away: 141, what a shell reports for a tool
/// ended by SIGPIPE, so `set -o pipefail` scripts see the output was cut short.
const CLOSED_STDOUT_EXIT: u8 = 141;

/// Whether a panic is `println!` failing because stdout's reader closed the pipe.
fn is_closed_stdout(payload: &(dyn std::any::Any + Send)) -> bool {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    text.starts_with("failed printing to stdout") && text.contains("Broken pipe")
}

/// Decision: `colony env list | head` ends quietly, as `ls | head` does. Rust ignores SIGPIPE,
/// so `println!` to a closed pipe panics; the hook keeps that one panic silent and
/// [`main_with`] turns it into [`CLOSED_STDOUT_EXIT`]. Every other panic reports as usual.
fn quiet_on_closed_stdout() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !is_closed_stdout(info.payload()) {
            report(info);
        }
    }));
}

/// `cmd` with the registry's names in the help of the flags that take them (`eval --policy`,
/// `compare --policies`, `compare --env`), so a plugin's names show up beside the built-ins.
fn with_registry_help(cmd: clap::Command, registry: &Registry) -> clap::Command {
    let reasoning = registry.reasoning_names().join(", ");
    let embodied = registry.embodied_names().join(", ");
    let envs: Vec<String> = registry
        .environments()
        .iter()
        .map(|e| e.info().id)
        .collect();
    let envs = envs.join(", ");
    cmd.mut_subcommand("eval", |c| {
        c.mut_arg("policy", |a| {
            let help = format!(
                "{} Registered: {reasoning}.",
                a.get_help().map(ToString::to_string).unwrap_or_default()
            );
            a.help(help)
        })
    })
    .mut_subcommand("compare", |c| {
        c.mut_arg("policies", |a| {
            let help = format!(
                "{} Registered: {embodied}, scripted:<the environment's built-ins>.",
                a.get_help().map(ToString::to_string).unwrap_or_default()
            );
            a.help(help)
        })
        .mut_arg("env", |a| {
            let help = format!(
                "{} Registered: {envs}.",
                a.get_help().map(ToString::to_string).unwrap_or_default()
            );
            a.help(help)
        })
    })
}

/// The adaptive-concurrency field of progress-bar messages: ` conc LIMIT/MAX` summed over the
/// live HTTP endpoints ([`crate::llm::concurrency_label`]), or nothing when only simulated or
/// replayed models are in use. Placed next to the retries it explains.
pub(crate) fn conc_field() -> String {
    crate::llm::concurrency_label()
        .map(|label| format!(" {label}"))
        .unwrap_or_default()
}
