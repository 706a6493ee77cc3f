//! A plugin crate for colony, outside colony's source: the `spread-v0` environment, the
//! `demo_vote` reasoning policy and the `demo_nearest` embodied policy, registered into
//! colony's open registry by [`registry`]. Its binary, `colony-plugin-demo`, is the whole
//! `colony` command line with the three in it.

pub mod nearest;
pub mod spread;
pub mod vote;

use colony::registry::Registry;

/// colony's built-ins plus this crate's three plugins.
pub fn registry() -> Registry {
    Registry::builtin()
        .environment(spread::entry())
        .reasoning_policy(
            "demo_vote",
            "three voters; a judge call only when they disagree (no options)",
            vote::build,
        )
        .embodied_policy(
            "demo_nearest",
            "head for the nearest uncovered landmark; ask the model every k-th step (k=5)",
            nearest::build,
        )
}
