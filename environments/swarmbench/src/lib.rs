//! swarmbench environment (work in progress).
