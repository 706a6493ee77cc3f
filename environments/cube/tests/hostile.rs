//! Hardening: hostile `--set` values and hostile state fields give a clean error or a working
//! environment — never a panic, abort, hang or multi-GB allocation (see
//! `colony_env_api::hostile`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_env_api::hostile::{
    check_param, check_state_field, json_values, param_values, state_paths, valid_state,
};
use colony_env_api::EnvEntry;
use proptest::prelude::*;

fn entry() -> &'static dyn EnvEntry {
    colony_cube::entry()
}

fn keys() -> Vec<String> {
    entry().info().params.into_iter().map(|p| p.name).collect()
}

fn state() -> serde_json::Value {
    valid_state(entry(), BASE, 5).expect("valid base state")
}

/// Every parameter × every listed hostile value.
#[test]
fn every_parameter_survives_every_hostile_value() {
    for key in keys() {
        for value in param_values() {
            if let Err(e) = check_param(entry(), BASE, &key, &value) {
                let shown: String = value.chars().take(40).collect();
                panic!("--set {key}={shown}: {e}");
            }
        }
    }
}

/// Every top-level state field × every listed hostile value.
#[test]
fn every_top_level_state_field_survives_every_hostile_value() {
    let s = state();
    let fields: Vec<String> = state_paths(&s)
        .into_iter()
        .filter(|p| p.matches('/').count() == 1)
        .collect();
    assert!(!fields.is_empty());
    for field in fields {
        for value in json_values() {
            if let Err(e) = check_state_field(entry(), BASE, &s, &field, value.clone()) {
                let shown: String = value.to_string().chars().take(40).collect();
                panic!("state {field} = {shown}: {e}");
            }
        }
    }
}

fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(param_values()),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<u64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| v.to_string()),
        "[ -~]{0,40}",
        (any::<u32>(), any::<u32>()).prop_map(|(w, c)| format!("{w}x{c}")),
    ]
}

fn hostile_json() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        proptest::sample::select(json_values()),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<u64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(serde_json::Value::from),
        "[ -~]{0,20}".prop_map(serde_json::Value::from),
        proptest::collection::vec(any::<i64>(), 0..4).prop_map(serde_json::Value::from),
    ]
}

proptest! {
    #![proptest_config(config())]

    /// Random hostile values (and random numbers) for random parameters.
    #[test]
    fn random_hostile_parameters(k in any::<proptest::sample::Index>(), value in hostile_text()) {
        let keys = keys();
        let key = &keys[k.index(keys.len())];
        prop_assert!(check_param(entry(), BASE, key, &value).is_ok(),
            "--set {}={}: {:?}", key, value, check_param(entry(), BASE, key, &value));
    }

    /// Random hostile values for random state fields, down to fields of fields.
    #[test]
    fn random_hostile_state_fields(p in any::<proptest::sample::Index>(), value in hostile_json()) {
        let s = STATE.with(|s| s.clone());
        let paths = state_paths(&s);
        let path = &paths[p.index(paths.len())];
        let r = check_state_field(entry(), BASE, &s, path, value.clone());
        prop_assert!(r.is_ok(), "state {} = {}: {:?}", path, value, r);
    }
}

thread_local! {
    static STATE: serde_json::Value = state();
}

const BASE: &[&str] = &["n=4"];
const CASES: u32 = 256;

fn param_key(settings: &[&str]) -> String {
    let p = colony_env_api::EnvParams::parse(settings).unwrap();
    match entry().make(p).map(|_| ()).expect_err("refused") {
        colony_env_api::EnvError::Param { key, .. } => key,
        other => panic!("{other}"),
    }
}

fn state_field(pointer: &str, value: serde_json::Value) -> String {
    let mut s = state();
    *s.pointer_mut(pointer).unwrap() = value;
    let mut env = entry()
        .make(colony_env_api::EnvParams::parse(BASE).unwrap())
        .unwrap();
    match env.load_state_json(s).expect_err("refused") {
        colony_env_api::EnvError::State { field, .. } => field,
        other => panic!("{other}"),
    }
}

/// The cases of the hardening issue, each refused naming its parameter or field.
#[test]
fn documented_bounds_are_enforced() {
    assert_eq!(param_key(&["grid_size=1000000000"]), "grid_size");
    assert_eq!(param_key(&["grid_size=65536"]), "grid_size");
    assert_eq!(param_key(&["grid_size=2001"]), "grid_size");
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

/// The property tests' settings: a fixed seed by default, so every run (CI included) checks
/// the same cases; `COLONY_HOSTILE_SEED` and `COLONY_HOSTILE_CASES` sweep other ones.
fn config() -> ProptestConfig {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    ProptestConfig {
        cases: env("COLONY_HOSTILE_CASES").map_or(CASES, |c| c as u32),
        rng_seed: proptest::test_runner::RngSeed::Fixed(
            env("COLONY_HOSTILE_SEED").unwrap_or(0x5eed),
        ),
        ..ProptestConfig::default()
    }
}
