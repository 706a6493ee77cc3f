//! Hardening: hostile `--set` values and hostile state fields give a clean error or a working
//! environment — never a panic, abort, hang or multi-GB allocation (see
//! `colony_env_api::hostile`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

colony_env_api::hostile_tests!(
    entry = colony_swarmbench::entry(),
    base = ["agents=3"],
    skip = |_key, _value| false,
);

/// The cases of the hardening issue, each refused naming its parameter or field.
#[test]
fn documented_bounds_are_enforced() {
    assert_eq!(param_key(&["view=1000000000"]), "view");
    assert_eq!(param_key(&["view=11"]), "view");
    assert_eq!(param_key(&["size=2001"]), "height");
    assert_eq!(param_key(&["width=2001"]), "width");
    assert_eq!(param_key(&["memory=1001"]), "memory");
    assert_eq!(param_key(&["max_round=4294967295"]), "max_round");
    assert_eq!(param_key(&["delay_max=4294967295"]), "delay_max");
    assert_eq!(param_key(&["agents=18446744073709551615"]), "agents");
    assert_eq!(param_key(&["size=2000", "view=2000"]), "memory");
    let j = serde_json::Value::from;
    assert_eq!(state_field("/config/view", j(1_000_000_000)), "config.view");
    assert_eq!(
        state_field("/rng/draws", j(1_000_000_000_000_000u64)),
        "rng.draws"
    );
    assert_eq!(state_field("/round", j(u64::from(u32::MAX))), "round");
    assert_eq!(
        state_field("/memory/0/decisions", j(u64::from(u32::MAX))),
        "memory[0].decisions"
    );
    let huge = "x".repeat(100_000);
    let err = entry()
        .make(colony_env_api::EnvParams::parse(&[format!("task={huge}")]).unwrap())
        .err()
        .unwrap()
        .to_string();
    assert!(err.len() < 300, "{err}");
}

/// A stream past the replay limit is saved with its generator state and restores exactly.
#[test]
fn long_rng_streams_round_trip_through_the_state() {
    let mut s = state();
    let mut env = entry()
        .make(colony_env_api::EnvParams::parse(BASE).unwrap())
        .unwrap();
    env.load_state_json(s.clone()).unwrap();
    let mut rng = 9;
    env.step_random(&mut rng);
    let words: Vec<u32> = (0..624).map(|i| i * 7 + 1).collect();
    s["rng"] =
        serde_json::json!({"seed": 1, "draws": 1u64 << 40, "mt": {"words": words, "index": 5}});
    env.load_state_json(s.clone()).unwrap();
    let saved = env.state_json();
    assert_eq!(saved["rng"], s["rng"]);
    let mut other = entry()
        .make(colony_env_api::EnvParams::parse(BASE).unwrap())
        .unwrap();
    other.load_state_json(saved).unwrap();
    let (mut r1, mut r2) = (3, 3);
    for _ in 0..5 {
        env.step_random(&mut r1);
        other.step_random(&mut r2);
    }
    assert_eq!(env.state_json(), other.state_json());
}
