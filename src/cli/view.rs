//! `colony view RUN_DIR [--out report.html] [--serve [--port N]]`: the report of a run (an
//! index page plus its data folder), written once or served live on loopback.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

/// Arguments of `colony view`.
#[derive(Args, Debug)]
pub struct ViewArgs {
    /// A `colony eval` or `colony compare` output directory, or a suite holding several.
    #[arg(value_name = "RUN_DIR")]
    pub run_dir: PathBuf,
    /// The HTML file to write (default: RUN_DIR/report.html); its data goes to the folder
    /// beside it named after it (report.data/).
    #[arg(long, value_name = "FILE", conflicts_with = "serve")]
    pub out: Option<PathBuf>,
    /// Serve the report on 127.0.0.1 instead of writing it (read-only, regenerated while a
    /// run is still writing; the first line printed is the URL). Ctrl-C stops it.
    #[arg(long)]
    pub serve: bool,
    /// The port of --serve (0: any free port).
    #[arg(long, value_name = "N", default_value_t = 8765, requires = "serve")]
    pub port: u16,
}

/// Writes the report and prints where it went and how big it is, or serves it.
pub async fn run(a: ViewArgs, registry: &crate::registry::Registry) -> anyhow::Result<()> {
    let envs = registry.environments();
    if a.serve {
        return serve(a, envs).await;
    }
    let r = crate::view::write_report(envs, &a.run_dir, a.out.as_deref())?;
    println!(
        "{} ({} bytes, data in {}; {} units, {} rows{})",
        r.path.display(),
        r.bytes,
        r.data_dir.display(),
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

async fn serve(a: ViewArgs, envs: &[&'static dyn colony_env_api::EnvEntry]) -> anyhow::Result<()> {
    let server = crate::view::serve::ViewServer::start(envs, &a.run_dir, a.port).await?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", server.url())?;
        out.flush()?;
    }
    tracing::info!(url = %server.url(), "view: serving; Ctrl-C or SIGTERM stops it");
    super::serve_mock::wait_for_stop_signal().await?;
    server.shutdown().await;
    Ok(())
}
