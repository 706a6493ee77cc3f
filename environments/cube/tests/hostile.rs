//! Hardening: hostile `--set` values and hostile state fields give a clean error or a working
//! environment — never a panic, abort, hang or multi-GB allocation (see
//! `colony_env_api::hostile`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

colony_env_api::hostile_tests!(
    entry = colony_cube::entry(),
    base = ["n=4"],
    skip = |_key, _value| false,
);

/// The cases of the hardening issue, each refused naming its parameter or field.
#[test]
fn documented_bounds_are_enforced() {
    assert_eq!(param_key(&["grid_size=1000000000"]), "grid_size");
    assert_eq!(param_key(&["grid_size=65536"]), "grid_size");
    assert_eq!(param_key(&["grid_size=2001"]), "grid_size");
    assert_eq!(param_key(&["grid_size=501"]), "grid_size");
    assert_eq!(param_key(&["n=501"]), "n");
    assert_eq!(param_key(&["n=10000000"]), "n");
    assert_eq!(param_key(&["deliver_reward=-inf"]), "deliver_reward");
    assert_eq!(param_key(&["deliver_reward=NaN"]), "deliver_reward");
    assert_eq!(param_key(&["step_cost=inf"]), "step_cost");
    assert_eq!(param_key(&["block_specs=1x100000"]), "block_specs");
    assert_eq!(param_key(&["max_steps=4294967295"]), "max_steps");
    let j = serde_json::Value::from;
    assert_eq!(state_field("/grid_size", j(65_536)), "grid_size");
    assert_eq!(state_field("/grid_size", j(1_000_000_000)), "grid_size");
    assert_eq!(state_field("/config/n", j(10_000_000)), "config.n");
    assert_eq!(
        state_field("/config/grid_size", j(65_536)),
        "config.grid_size"
    );
    assert_eq!(state_field("/t", j(u64::from(u32::MAX))), "t");
    let huge = "x".repeat(100_000);
    let err = entry()
        .make(colony_env_api::EnvParams::parse(&[format!("block_specs={huge}")]).unwrap())
        .err()
        .unwrap()
        .to_string();
    assert!(err.len() < 300, "{err}");
}

/// Errors quote at most a short prefix of a huge action text.
#[test]
fn huge_action_texts_are_quoted_clipped() {
    let mut env = entry()
        .make(colony_env_api::EnvParams::parse(BASE).unwrap())
        .unwrap();
    env.reset(1);
    let huge = "x".repeat(100_000);
    for text in [
        huge.clone(),
        format!("{huge}(block=1)"),
        format!("move(direction={huge})"),
    ] {
        let actions = [("0".to_string(), text)].into_iter().collect();
        let err = env.step_events(&actions).unwrap_err().to_string();
        assert!(err.len() < 400, "{}", &err[..400]);
    }
}
