//! colony-eval, the evaluation floor of colony (docs/design/architecture.md §2): the one episode
//! loop and results writer ([`eval`]), suites, shards and merges ([`suite`]), the viewer
//! ([`view`]), the simulation studies ([`study`]) and `serve-mock` ([`mock_server`], feature
//! `serve-mock`). It sits above the policies floor and below the command line; the `colony`
//! facade re-exports each module under its own name.

pub mod eval;
#[cfg(feature = "serve-mock")]
pub mod mock_server;
pub mod study;
pub mod suite;
pub mod view;
