//! `colony view RUN_DIR [--out report.html]`: one self-contained HTML page of a run.

use std::path::PathBuf;

use clap::Args;

/// Arguments of `colony view`.
#[derive(Args, Debug)]
pub struct ViewArgs {
    /// A `colony eval` or `colony compare` output directory, or a suite holding several.
    #[arg(value_name = "RUN_DIR")]
    pub run_dir: PathBuf,
    /// The HTML file to write (default: RUN_DIR/report.html).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Writes the page and prints where it went and how big it is.
pub fn run(a: ViewArgs) -> anyhow::Result<()> {
    let r = crate::view::write_report(&a.run_dir, a.out.as_deref())?;
    println!(
        "{} ({} bytes; {} units, {} rows{})",
        r.path.display(),
        r.bytes,
        r.units,
        r.rows,
        if r.notes > 0 {
            format!(", {} notes shown in the page", r.notes)
        } else {
            String::new()
        }
    );
    Ok(())
}
