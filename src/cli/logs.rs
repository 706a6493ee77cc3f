//! `colony logs`: read a run's call logs (`cat`: as the classic JSON lines, whatever form they
//! were stored in). Parses flags, calls [`crate::eval::log_cat::cat`], prints.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::eval::log_cat::{cat, LogCatError, LogFilter};

/// Arguments of `colony logs`.
#[derive(Args, Debug)]
pub struct LogsArgs {
    #[command(subcommand)]
    cmd: LogsCmd,
}

#[derive(Subcommand, Debug)]
enum LogsCmd {
    /// Print the call logs of a run as JSON lines (one model call per line for episodes, one
    /// item's transcript per line for `colony eval`), compact or plain.
    Cat(CatArgs),
}

#[derive(Args, Debug)]
struct CatArgs {
    /// The run's output directory (of `colony compare`, `colony eval` or a suite).
    run_dir: PathBuf,
    /// Only this episode: `POLICY/SEED`, or `CONFIG/POLICY/SEED` in a grid.
    #[arg(long, value_name = "POLICY/SEED")]
    episode: Option<String>,
    /// Only this eval item (its id in the dataset).
    #[arg(long, value_name = "ID")]
    item: Option<String>,
}

/// Runs `colony logs`.
pub fn run(a: LogsArgs) -> anyhow::Result<()> {
    let LogsCmd::Cat(c) = a.cmd;
    let filter = LogFilter {
        episode: c.episode,
        item: c.item,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let report = match cat(&c.run_dir, &filter, &mut out) {
        // A reader that stopped reading (`| head`) ends the command quietly.
        Err(LogCatError::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
        other => other?,
    };
    for path in &report.torn {
        eprintln!(
            "{}: the log ends early (an interrupted or running episode); its complete calls were printed",
            path.display()
        );
    }
    for problem in &report.problems {
        eprintln!("{problem}");
    }
    anyhow::ensure!(
        report.problems.is_empty(),
        "{} problem(s): some recorded calls could not be printed (listed above)",
        report.problems.len()
    );
    Ok(())
}
