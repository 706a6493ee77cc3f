//! The SelfOrg family (docs/design/selforg.md): one folder for everything SelfOrg is in this
//! floor: the reasoning policy ([`reasoning`]: the graph maths, the DAG propagation and the
//! rounds) and its embodied form ([`embodied`]), which reuses the reasoning policy's graph code.
//!
//! Decision (docs/design/architecture.md §2): a family's folder lives in each floor it has code
//! in, because the floors are crates and Cargo forbids an upward import: its command-line tools
//! are `colony`'s `cli/selforg.rs`, its study runners live in `colony-eval`'s `study/`.

pub mod embodied;
pub mod reasoning;
