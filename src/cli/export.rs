//! `colony export`: a run in another tool's format (`inspect`: Inspect AI logs). Parses flags,
//! calls [`crate::eval::inspect::export_inspect`], prints the files written.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::eval::inspect::{export_inspect, InspectFormat};

/// Arguments of `colony export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(subcommand)]
    cmd: ExportCmd,
}

#[derive(Subcommand, Debug)]
enum ExportCmd {
    /// Write a `colony eval` or `colony compare` run as Inspect AI logs (`inspect view` opens
    /// them, `inspect_ai.log.read_eval_log` reads them): one log per policy label and dataset,
    /// or per policy (and grid configuration) with a sample per episode.
    Inspect(InspectArgs),
}

#[derive(Args, Debug)]
struct InspectArgs {
    /// The `colony eval` or `colony compare` output directory.
    run_dir: PathBuf,
    /// Where to write: a file (`run.eval`) when one policy and dataset are exported, else a
    /// directory that receives `<label>.<dataset>.eval` per pair.
    #[arg(long, value_name = "PATH")]
    out: PathBuf,
    /// `eval` (Inspect's zip log) or `json` (one JSON document).
    #[arg(long, value_enum, default_value_t = InspectFormat::Eval)]
    format: InspectFormat,
    /// Only this policy label.
    #[arg(long, value_name = "LABEL")]
    policy: Option<String>,
    /// Only this dataset (eval runs).
    #[arg(long, value_name = "NAME")]
    dataset: Option<String>,
}

/// Runs `colony export`.
pub fn run(a: ExportArgs) -> anyhow::Result<()> {
    let ExportCmd::Inspect(i) = a.cmd;
    let done = export_inspect(
        &i.run_dir,
        &i.out,
        i.format,
        i.policy.as_deref(),
        i.dataset.as_deref(),
    )?;
    for f in &done.files {
        println!("{}", f.display());
    }
    Ok(())
}
