//! `spread-v0` passes colony_env_api's conformance and hostile-input tests, like the built-in
//! environments.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_env_api::conformance::{check, Options};
use colony_plugin_demo::spread::Spread;

#[test]
fn spread_is_conformant() {
    for n in [1, 3, 5] {
        check(|| Spread::new(n, 8, 25).unwrap(), Options::default()).unwrap();
    }
}

colony_env_api::hostile_tests!(
    entry = colony_plugin_demo::spread::entry(),
    base = ["agents=3"],
    skip = |_key, _value| false,
);
