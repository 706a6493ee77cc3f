//! Simulation studies: reproducible, seeded experiments on the simulated model that illustrate
//! a paper's analysis offline. Every output they write is labelled as simulation.

pub mod amplification;
pub mod framework_scaling;
pub mod gap;
pub mod report;
pub mod swarmsys_scaling;
