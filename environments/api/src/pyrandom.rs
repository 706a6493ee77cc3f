//! The CPython-compatible MT19937 generator under its older path; it lives in [`crate::rng`]
//! with the crate's other fixed generators.

pub use crate::rng::PyRandom;
