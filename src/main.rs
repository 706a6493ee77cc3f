//! The `colony` binary: the command line over the built-in registry. A program that adds its
//! own policies or environments calls `colony::cli::main_with` with its own registry instead.

use std::process::ExitCode;

use colony::registry::Registry;

fn main() -> ExitCode {
    colony::cli::main_with(Registry::builtin())
}
