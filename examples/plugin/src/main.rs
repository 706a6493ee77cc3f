//! `colony-plugin-demo`: the `colony` command line with this crate's plugins registered.

use std::process::ExitCode;

fn main() -> ExitCode {
    colony::cli::main_with(colony_plugin_demo::registry())
}
