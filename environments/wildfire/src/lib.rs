//! wildfire environment (work in progress).
