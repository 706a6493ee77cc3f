//! The SwarmSys family (docs/design/swarmsys.md): the reasoning policy ([`reasoning`]:
//! explorers, workers and validators matched to events, with the simulated model's SwarmSys
//! responder in [`reasoning::sim`]) and its embodied form ([`embodied`]), which matches agents to
//! an environment's sub-goals with the reasoning policy's matching code.
//!
//! Decision (docs/design/architecture.md §2): a family's folder lives in each floor it has code
//! in, because the floors are crates: its command-line tools are `colony`'s `cli/swarmsys.rs`
//! and `cli/bench_swarmsys.rs`, its scaling study is `colony-eval`'s `study/swarmsys_scaling.rs`.

pub mod embodied;
pub mod reasoning;
