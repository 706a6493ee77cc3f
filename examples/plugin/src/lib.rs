//! A plugin crate for colony, outside colony's source: the `spread-v0` environment, the
//! `demo_vote` reasoning policy, the `demo_nearest` embodied policy and the `demo-capitals`
//! dataset, registered into colony's open registry by [`registry`]. Its binary,
//! `colony-plugin-demo`, is the whole `colony` command line with them in it.

pub mod capitals;
pub mod nearest;
pub mod spread;
pub mod vote;
pub mod vote_sim;

use colony::registry::Registry;

/// colony's built-ins plus this crate's plugins.
pub fn registry() -> Registry {
    Registry::builtin()
        .environment(spread::entry())
        .reasoning_policy(
            "demo_vote",
            "three voters; a judge call only when they disagree (no options)",
            vote::build,
        )
        .template("demo/vote_judge", vote::JUDGE)
        .responder(vote_sim::JudgeResponder)
        .dataset(capitals::entry())
        .embodied_policy(
            "demo_nearest",
            "head for the nearest uncovered landmark; ask the model every k-th step (k=5)",
            nearest::build,
        )
}
