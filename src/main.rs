//! The `colony` command line: chat, serve-mock, models, bench.

mod cli;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

/// colony: LLM multi-agent orchestration with pluggable environments.
#[derive(Parser, Debug)]
#[command(name = "colony", version, about, propagate_version = true)]
struct Cli {
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
    Chat(cli::chat::ChatArgs),
    /// Serve an OpenAI-compatible API on loopback, backed by the simulated model, with faults.
    ServeMock(cli::serve_mock::ServeMockArgs),
    /// List configured models and check that each endpoint answers.
    Models(cli::models::ModelsArgs),
    /// Embed texts and print their pairwise cosine similarities; `fetch-minilm` installs MiniLM.
    Embed(cli::embed::EmbedArgs),
    /// Run reasoning policies over a dataset (resumable) and print the results table.
    Eval(cli::eval::EvalArgs),
    /// Run a suite (evals/<suite>.toml): datasets and environments × policies × models × seeds.
    Run(cli::run::RunArgs),
    /// Join a suite's shard directories into one results directory.
    Merge(cli::merge::MergeArgs),
    /// Compare coordination policies on one embodied task, same seeds, side by side
    /// (resumable; table, plots, trajectories and call logs).
    Compare(cli::compare::CompareArgs),
    /// Tools to look inside SelfOrg (graph formation from embedding vectors).
    Selforg(cli::selforg::SelforgArgs),
    /// Tools to look inside SwarmSys (`match`: the ε-greedy matching distribution).
    Swarmsys(cli::swarmsys::SwarmsysArgs),
    /// Grade a JSONL of model outputs against a reasoning dataset.
    Grade(cli::grade::GradeArgs),
    /// List the supported reasoning datasets and the file format each expects.
    Datasets(cli::grade::DatasetsArgs),
    /// Simulation studies (labelled as simulation): `selforg-amplification`.
    Study(cli::study::StudyArgs),
    /// SwarmBench tools: `physics` runs one physics step on JSON scenarios.
    Swarmbench(cli::swarmbench::SwarmbenchArgs),
    /// CREW-Wildfire tools: `bcs` (NS/BCS metrics), `levels`, `snapshot` (SVG of a state).
    Wildfire(cli::wildfire::WildfireArgs),
    /// CUBE tools: `symbolic-bench` (per-call cost of each symbolic action, paper Fig. 4).
    Cube(cli::cube::CubeArgs),
    /// Environments: list, reset, step, run built-in policies, bench.
    Env(cli::env::EnvArgs),
    /// Measure client throughput or runtime scale (one JSON line).
    Bench(cli::bench::BenchArgs),
    /// Write one self-contained HTML page of a run (tables, plots, calls, replayed episodes).
    View(cli::view::ViewArgs),
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let config = cli.models_config.as_deref();
    match cli.command {
        Cmd::Chat(a) => cli::chat::run(a, config).await,
        Cmd::ServeMock(a) => cli::serve_mock::run(a).await,
        Cmd::Models(a) => cli::models::run(a, config).await,
        Cmd::Bench(a) => cli::bench::run(a).await,
        Cmd::Embed(a) => cli::embed::run(a).await,
        Cmd::Grade(a) => cli::grade::run(a),
        Cmd::Eval(a) => cli::eval::run(a, config).await,
        Cmd::Run(a) => cli::run::run(a, config).await,
        Cmd::Merge(a) => cli::merge::run(a).await,
        Cmd::Compare(a) => cli::compare::run(a, config).await,
        Cmd::Selforg(a) => cli::selforg::run(a),
        Cmd::Swarmsys(a) => cli::swarmsys::run(a),
        Cmd::Datasets(a) => cli::grade::datasets(a),
        Cmd::Env(a) => cli::env::run(a).await,
        Cmd::Cube(a) => cli::cube::run(a),
        Cmd::Swarmbench(a) => cli::swarmbench::run(a),
        Cmd::Wildfire(a) => cli::wildfire::run(a).await,
        Cmd::Study(a) => cli::study::run(a).await,
        Cmd::View(a) => cli::view::run(a),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
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
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
