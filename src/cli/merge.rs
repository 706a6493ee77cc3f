//! `colony merge OUT SHARD_DIR…`: joins a suite's shard directories into one results
//! directory (see `crate::suite::merge`).

use std::path::PathBuf;

use clap::Args;

/// Arguments of `colony merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The merged results directory (new or empty).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// Shard directories (`OUT/shard-<i>-of-<N>` of `colony run --shard`).
    #[arg(value_name = "SHARD_DIR", required = true)]
    pub shards: Vec<PathBuf>,
    /// Merge what is there when shards or work items are missing, and report the gaps.
    #[arg(long)]
    pub allow_partial: bool,
}

/// Runs `colony merge`.
pub async fn run(a: MergeArgs, registry: &crate::registry::Registry) -> anyhow::Result<()> {
    let outcome = crate::suite::merge_shards(registry, &a.out, &a.shards, a.allow_partial).await?;
    println!("{}", outcome.markdown);
    for g in &outcome.gaps {
        eprintln!("gap: {g}");
    }
    eprintln!(
        "merged {} shard(s) into {}",
        a.shards.len(),
        a.out.display()
    );
    Ok(())
}
