//! Hostile inputs for the hardening tests every environment crate runs: `--set` values and
//! state fields that are huge, negative, NaN/infinite, of the wrong type or deeply nested.
//!
//! The rule they check: any input gives either a clean error ([`EnvError::Param`] naming a
//! known parameter, or [`EnvError::State`] naming a field, with a bounded message) or a valid
//! environment that can step, observe, render, save and reset — never a panic, an abort, a
//! hang or an allocation of gigabytes. Crates drive [`check_param`] and [`check_state_field`]
//! from property tests, picking keys and fields from [`EnvEntry::info`] and a real state.

use serde_json::Value;
use thiserror::Error;

use crate::{DynEnvironment, EnvEntry, EnvError, EnvParams, CLIP_CHARS, MAX_MESSAGE_CHARS};

/// Longest message a hostile input may produce, in characters (the wrapper's cap plus a
/// clipped name and the variant's prefix).
const MAX_ERROR_CHARS: usize = MAX_MESSAGE_CHARS + CLIP_CHARS + 64;

fn nested_text(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// Values for `--set key=VALUE`: integer and float edges, sizes just past every documented
/// bound, NaN and infinities, wrong types, long and deeply nested texts.
pub fn param_values() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        "-1",
        "0",
        "1",
        "2",
        "-0",
        "7",
        "127",
        "255",
        "256",
        "2001",
        "4001",
        "5000",
        "65535",
        "65536",
        "100001",
        "1000000",
        "10000000",
        "1000000000",
        "2147483647",
        "2147483648",
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "18446744073709551615",
        "18446744073709551616",
        "-2147483648",
        "-9223372036854775808",
        "1e9",
        "1e308",
        "-1e308",
        "1e-320",
        "0.5",
        "-0.5",
        "NaN",
        "nan",
        "inf",
        "-inf",
        "+inf",
        "infinity",
        "true",
        "false",
        "x",
        "null",
        "[1]",
        "{\"a\":1}",
        "1x1",
        "0x1",
        "1x0",
        "1x4294967295",
        "4294967295x1",
        "1000x1000",
        "1x1000000000",
        "2x2,1x4294967295,1x4294967295",
        "\u{0}",
        "é",
        "1,1",
        " 1 ",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push("x".repeat(100_000));
    v.push("9".repeat(400));
    v.push(nested_text(1000));
    v.push(format!("{}x1", "9".repeat(30)));
    v.push(vec!["1x1"; 10_000].join(","));
    v
}

fn nested_array(depth: usize) -> Value {
    (0..depth).fold(Value::Null, |inner, _| Value::Array(vec![inner]))
}

fn nested_object(depth: usize) -> Value {
    (0..depth).fold(Value::Null, |inner, _| {
        let mut m = serde_json::Map::new();
        m.insert("a".into(), inner);
        Value::Object(m)
    })
}

/// JSON values to put in place of a state field (JSON has no NaN or infinity; `1e308` and
/// its negation stand for them after arithmetic).
pub fn json_values() -> Vec<Value> {
    vec![
        Value::Null,
        Value::Bool(true),
        Value::from(-1),
        Value::from(0),
        Value::from(1),
        Value::from(2),
        Value::from(255),
        Value::from(256),
        Value::from(2001),
        Value::from(4001),
        Value::from(65_536),
        Value::from(1_000_000),
        Value::from(10_000_000),
        Value::from(1_000_000_000u64),
        Value::from(i64::from(i32::MAX)),
        Value::from(i64::from(u32::MAX)),
        Value::from(1u64 << 32),
        Value::from(1_000_000_000_000_000u64),
        Value::from(i64::MAX),
        Value::from(u64::MAX),
        Value::from(i64::MIN),
        Value::from(1e308),
        Value::from(-1e308),
        Value::from(0.5),
        Value::from(-0.5),
        Value::from(""),
        Value::from("x"),
        Value::from("NaN"),
        Value::from("x".repeat(100_000)),
        Value::Array(Vec::new()),
        Value::Array(vec![Value::Null]),
        Value::Array(vec![Value::from(1); 3]),
        Value::Array(vec![Value::from(u64::MAX); 3]),
        Value::Array(vec![Value::from(1_000_000_000u64); 2]),
        Value::Array(vec![Value::from(-1); 2]),
        Value::Object(serde_json::Map::new()),
        serde_json::json!({"a": 1}),
        serde_json::json!({"seed": 1, "draws": 1_000_000_000_000_000u64}),
        nested_array(500),
        nested_object(500),
        Value::Array((0..1000).map(Value::from).collect()),
    ]
}

/// JSON pointers of a state's fields: every top-level field, every field one level below
/// (object members and the first element of arrays), and the members of that element.
pub fn state_paths(state: &Value) -> Vec<String> {
    fn children(v: &Value, prefix: &str, depth: usize, out: &mut Vec<String>) {
        if depth == 0 {
            return;
        }
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    let p = format!("{prefix}/{}", k.replace('~', "~0").replace('/', "~1"));
                    out.push(p.clone());
                    children(child, &p, depth - 1, out);
                }
            }
            Value::Array(a) => {
                if let Some(first) = a.first() {
                    let p = format!("{prefix}/0");
                    out.push(p.clone());
                    children(first, &p, depth - 1, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    children(state, "", 3, &mut out);
    out
}

/// How an environment mishandled a hostile input (what the checks below report).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum HostileFailure {
    /// The error message is longer than a clean error may be.
    #[error("error message of {chars} characters (max {MAX_ERROR_CHARS}): {head}…")]
    LongMessage {
        /// Length of the message, in characters.
        chars: usize,
        /// Its first 200 characters.
        head: String,
    },
    /// A parameter error names a key that is not one of the environment's parameters.
    #[error("parameter error names no known parameter: {0}")]
    UnknownParameter(String),
    /// A state error names no field.
    #[error("state error names no field: {0}")]
    UnnamedField(String),
    /// An accepted environment has no agents to exercise.
    #[error("the environment has no agents")]
    NoAgents,
    /// The test's own base settings were refused (a mistake in the test, not the input).
    #[error("base settings: {0}")]
    BaseSettings(EnvError),
}

/// Checks that an error from a hostile input is clean: a parameter error names a known
/// parameter, a state error names a field, and the message is short.
pub fn check_error(e: &EnvError, known_params: &[String]) -> Result<(), HostileFailure> {
    let text = e.to_string();
    let chars = text.chars().count();
    if chars > MAX_ERROR_CHARS {
        return Err(HostileFailure::LongMessage {
            chars,
            head: text.chars().take(200).collect(),
        });
    }
    match e {
        EnvError::Param { key, .. } if !known_params.iter().any(|k| k == key) => {
            Err(HostileFailure::UnknownParameter(text))
        }
        EnvError::State { field, .. } if field.is_empty() => {
            Err(HostileFailure::UnnamedField(text))
        }
        _ => Ok(()),
    }
}

/// Uses an environment that accepted a hostile input: one random step, the first agent's
/// observation, the state, the picture, then a reset and another step. Errors of
/// `observe_text` are fine; a panic, hang or huge allocation is not.
pub fn exercise(env: &mut dyn DynEnvironment) -> Result<(), HostileFailure> {
    let agents = env.agents();
    let first = agents.first().ok_or(HostileFailure::NoAgents)?.clone();
    let mut rng = 11;
    env.step_random(&mut rng);
    let _ = env.observe_text(&first);
    let _ = env.state_json();
    let _ = env.render();
    let _ = env.score();
    env.reset(3);
    env.step_random(&mut rng);
    Ok(())
}

fn known(entry: &dyn EnvEntry) -> Vec<String> {
    entry.info().params.into_iter().map(|p| p.name).collect()
}

fn make(entry: &dyn EnvEntry, settings: &[String]) -> Result<Box<dyn DynEnvironment>, EnvError> {
    entry.make(EnvParams::parse(settings)?)
}

/// `make` with `base` settings plus `key=value` (replacing any base setting of `key`), then
/// [`check_error`] on failure or [`exercise`] on success.
pub fn check_param(
    entry: &dyn EnvEntry,
    base: &[&str],
    key: &str,
    value: &str,
) -> Result<(), HostileFailure> {
    let mut settings: Vec<String> = base
        .iter()
        .filter(|s| s.split_once('=').map(|(k, _)| k.trim()) != Some(key))
        .map(|s| s.to_string())
        .collect();
    settings.push(format!("{key}={value}"));
    match make(entry, &settings) {
        Err(e) => check_error(&e, &known(entry)),
        Ok(mut env) => exercise(env.as_mut()),
    }
}

/// A valid state of the environment made from `base`: reset with `seed`, a few random steps.
pub fn valid_state(
    entry: &dyn EnvEntry,
    base: &[&str],
    seed: u64,
) -> Result<Value, HostileFailure> {
    let settings: Vec<String> = base.iter().map(|s| s.to_string()).collect();
    let mut env = make(entry, &settings).map_err(HostileFailure::BaseSettings)?;
    env.reset(seed);
    let mut rng = seed;
    for _ in 0..3 {
        if env.step_random(&mut rng) {
            break;
        }
    }
    Ok(env.state_json())
}

/// Loads `state` with the field at `pointer` replaced by `value` into an environment made
/// from `base`, then [`check_error`] on failure or [`exercise`] on success. A pointer that
/// does not exist in `state` checks nothing.
pub fn check_state_field(
    entry: &dyn EnvEntry,
    base: &[&str],
    state: &Value,
    pointer: &str,
    value: Value,
) -> Result<(), HostileFailure> {
    let mut hostile = state.clone();
    let Some(slot) = hostile.pointer_mut(pointer) else {
        return Ok(());
    };
    *slot = value;
    let settings: Vec<String> = base.iter().map(|s| s.to_string()).collect();
    let mut env = make(entry, &settings).map_err(HostileFailure::BaseSettings)?;
    match env.load_state_json(hostile) {
        Err(e) => check_error(&e, &known(entry)),
        Ok(()) => exercise(env.as_mut()),
    }
}

/// The hostile-input tests every environment crate runs, in one place: every parameter and
/// every top-level state field against every listed hostile value, and property tests with
/// random hostile values for random parameters and random fields down to fields of fields
/// (a fixed seed; `COLONY_HOSTILE_SEED` / `COLONY_HOSTILE_CASES` sweep others). Call it once
/// in a test file of a crate that has `proptest` as a dev-dependency:
///
/// ```ignore
/// colony_env_api::hostile_tests!(entry = colony_cube::entry(), base = ["n=4"],
///                                skip = |_key, _value| false);
/// ```
///
/// It also defines `entry()`, `state()`, `BASE`, `param_key(settings)` (the key a refused
/// setting names) and `state_field(pointer, value)` (the field a refused state names) for
/// the crate's own cases. `skip(key, value)` leaves out valid but slow parameter values.
#[macro_export]
macro_rules! hostile_tests {
    (entry = $entry:expr, base = [$($base:expr),* $(,)?], skip = $skip:expr $(,)?) => {
        fn entry() -> &'static dyn $crate::EnvEntry {
            $entry
        }

        const BASE: &[&str] = &[$($base),*];
        const CASES: u32 = 256;

        fn keys() -> Vec<String> {
            entry().info().params.into_iter().map(|p| p.name).collect()
        }

        fn state() -> serde_json::Value {
            $crate::hostile::valid_state(entry(), BASE, 5).expect("valid base state")
        }

        fn skipped(key: &str, value: &str) -> bool {
            let skip: fn(&str, &str) -> bool = $skip;
            skip(key, value)
        }

        /// The key a refused setting names.
        #[allow(dead_code)]
        fn param_key(settings: &[&str]) -> String {
            let p = $crate::EnvParams::parse(settings).unwrap();
            match entry().make(p).map(|_| ()).expect_err("refused") {
                $crate::EnvError::Param { key, .. } => key,
                other => panic!("{other}"),
            }
        }

        /// The field a refused state names, after setting `pointer` to `value`.
        #[allow(dead_code)]
        fn state_field(pointer: &str, value: serde_json::Value) -> String {
            let mut s = state();
            *s.pointer_mut(pointer).unwrap() = value;
            let mut env = entry().make($crate::EnvParams::parse(BASE).unwrap()).unwrap();
            match env.load_state_json(s).expect_err("refused") {
                $crate::EnvError::State { field, .. } => field,
                other => panic!("{other}"),
            }
        }

        /// Every parameter × every listed hostile value.
        #[test]
        fn every_parameter_survives_every_hostile_value() {
            for key in keys() {
                for value in $crate::hostile::param_values() {
                    if skipped(&key, &value) {
                        continue;
                    }
                    if let Err(e) = $crate::hostile::check_param(entry(), BASE, &key, &value) {
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
            let fields: Vec<String> = $crate::hostile::state_paths(&s)
                .into_iter()
                .filter(|p| p.matches('/').count() == 1)
                .collect();
            assert!(!fields.is_empty());
            for field in fields {
                for value in $crate::hostile::json_values() {
                    if let Err(e) =
                        $crate::hostile::check_state_field(entry(), BASE, &s, &field, value.clone())
                    {
                        let shown: String = value.to_string().chars().take(40).collect();
                        panic!("state {field} = {shown}: {e}");
                    }
                }
            }
        }

        fn hostile_text() -> impl ::proptest::strategy::Strategy<Value = String> {
            use ::proptest::prelude::*;
            ::proptest::prop_oneof![
                ::proptest::sample::select($crate::hostile::param_values()),
                any::<i64>().prop_map(|v| v.to_string()),
                any::<u64>().prop_map(|v| v.to_string()),
                any::<f64>().prop_map(|v| v.to_string()),
                "[ -~]{0,40}",
                (any::<u32>(), any::<u32>()).prop_map(|(w, c)| format!("{w}x{c}")),
            ]
        }

        fn hostile_json() -> impl ::proptest::strategy::Strategy<Value = serde_json::Value> {
            use ::proptest::prelude::*;
            ::proptest::prop_oneof![
                ::proptest::sample::select($crate::hostile::json_values()),
                any::<i64>().prop_map(serde_json::Value::from),
                any::<u64>().prop_map(serde_json::Value::from),
                any::<f64>().prop_map(serde_json::Value::from),
                "[ -~]{0,20}".prop_map(serde_json::Value::from),
                ::proptest::collection::vec(any::<i64>(), 0..4).prop_map(serde_json::Value::from),
            ]
        }

        /// The property tests' settings: a fixed seed, so every run (CI included) checks the
        /// same cases; `COLONY_HOSTILE_SEED` and `COLONY_HOSTILE_CASES` sweep other ones.
        fn config() -> ::proptest::test_runner::Config {
            let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
            ::proptest::test_runner::Config {
                cases: env("COLONY_HOSTILE_CASES").map_or(CASES, |c| c as u32),
                rng_seed: ::proptest::test_runner::RngSeed::Fixed(
                    env("COLONY_HOSTILE_SEED").unwrap_or(0x5eed),
                ),
                ..::proptest::test_runner::Config::default()
            }
        }

        ::std::thread_local! {
            static STATE: serde_json::Value = state();
        }

        ::proptest::proptest! {
            #![proptest_config(config())]

            /// Random hostile values (and random numbers) for random parameters.
            #[test]
            fn random_hostile_parameters(
                k in ::proptest::prelude::any::<::proptest::sample::Index>(),
                value in hostile_text(),
            ) {
                let keys = keys();
                let key = &keys[k.index(keys.len())];
                ::proptest::prop_assume!(!skipped(key, &value));
                let r = $crate::hostile::check_param(entry(), BASE, key, &value);
                ::proptest::prop_assert!(r.is_ok(), "--set {}={}: {:?}", key, value, r);
            }

            /// Random hostile values for random state fields, down to fields of fields.
            #[test]
            fn random_hostile_state_fields(
                p in ::proptest::prelude::any::<::proptest::sample::Index>(),
                value in hostile_json(),
            ) {
                let s = STATE.with(|s| s.clone());
                let paths = $crate::hostile::state_paths(&s);
                let path = &paths[p.index(paths.len())];
                let r = $crate::hostile::check_state_field(entry(), BASE, &s, path, value.clone());
                ::proptest::prop_assert!(r.is_ok(), "state {} = {}: {:?}", path, value, r);
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_reach_two_levels_and_array_elements() {
        let s = serde_json::json!({"a": {"b": 1, "c/d": [ {"e": 2} ]}, "f": [3]});
        let p = state_paths(&s);
        for want in ["/a", "/a/b", "/a/c~1d", "/a/c~1d/0", "/f", "/f/0"] {
            assert!(p.iter().any(|x| x == want), "{want} missing from {p:?}");
        }
        assert!(p.iter().all(|x| s.pointer(x).is_some()));
    }

    #[test]
    fn hostile_values_cover_the_classes() {
        let t = param_values();
        assert!(t.iter().any(|s| s == "NaN") && t.iter().any(|s| s.len() >= 100_000));
        assert!(json_values().iter().any(|v| v.as_u64() == Some(u64::MAX)));
    }

    #[test]
    fn clean_errors_name_known_parameters() {
        let known = vec!["n".to_string()];
        let ok = EnvError::Param {
            key: "n".into(),
            message: "too big".into(),
        };
        assert!(check_error(&ok, &known).is_ok());
        let unknown = EnvError::Param {
            key: "config".into(),
            message: "x".into(),
        };
        assert!(check_error(&unknown, &known).is_err());
        let long = EnvError::Action {
            agent: "0".into(),
            message: "x".repeat(5000),
        };
        assert!(check_error(&long, &known).is_err());
        assert!(check_error(&long.clipped(), &known).is_ok());
    }
}
