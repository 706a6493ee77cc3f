//! cube environment (work in progress).
