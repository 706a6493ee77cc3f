//! `colony cube …`: CUBE tools beyond the environment contract. `symbolic-bench` measures the
//! per-call cost of each symbolic action (the paper's Fig. 4, docs/design/cube.md §13).

use anyhow::Result;
use clap::{Args, Subcommand};

/// `colony cube …`.
#[derive(Args, Debug)]
pub struct CubeArgs {
    #[command(subcommand)]
    command: CubeCmd,
}

#[derive(Subcommand, Debug)]
enum CubeCmd {
    /// Per-call cost of each symbolic action: one JSON line per action.
    SymbolicBench {
        /// Curriculum parameter n (agents; grid max(20, n)).
        #[arg(long, default_value_t = 256)]
        n: u32,
        /// Episode seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Steps timed per action.
        #[arg(long, default_value_t = 20)]
        steps: u32,
    },
}

/// Runs `colony cube …`.
pub fn run(args: CubeArgs) -> Result<()> {
    match args.command {
        CubeCmd::SymbolicBench { n, seed, steps } => {
            for cost in colony_cube::overhead::symbolic_overhead(n, seed, steps)? {
                println!("{}", serde_json::to_string(&cost)?);
            }
            Ok(())
        }
    }
}
