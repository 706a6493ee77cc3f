//! Results never depend on the working directory: the SelfOrg role cards are
//! compiled in, so `colony eval` from a directory without `roles/` gives the same results as
//! from the repository root; `--roles DIR` overrides them explicitly and a missing folder is a
//! one-line error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Output;

use common::eval_run::gsm8k_sample;
use common::{assert_ok, results_by_id, BIN};

/// `colony eval` of SelfOrg on the GSM8K sample, offline, run from `cwd`.
fn eval_from(cwd: &Path, out: &Path, extra: &[&str]) -> Output {
    std::process::Command::new(BIN)
        .current_dir(cwd)
        .env_remove("COLONY_MODELS")
        .args(["eval", "--dataset", "gsm8k", "--data"])
        .arg(gsm8k_sample())
        .args(["--policy", "selforg", "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn selforg_gives_the_same_results_from_any_directory() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let elsewhere = tempfile::tempdir().unwrap();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let from_root = eval_from(root, a.path(), &[]);
    assert_ok(&from_root);
    let from_elsewhere = eval_from(elsewhere.path(), b.path(), &[]);
    assert_ok(&from_elsewhere);
    assert!(
        !String::from_utf8_lossy(&from_elsewhere.stderr).contains("role-card"),
        "{}",
        String::from_utf8_lossy(&from_elsewhere.stderr)
    );
    assert_eq!(
        results_by_id(a.path(), "selforg"),
        results_by_id(b.path(), "selforg")
    );
    // The agents carry the SelfOrg pool's roles, not a generic assistant.
    let settings = common::read_json(&b.path().join("settings.json"));
    let roles: Vec<&str> = settings["gsm8k"]["selforg"]["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["assistant", "programmer", "mathematician", "economist"]
    );
}

#[test]
fn roles_override_is_explicit_and_a_missing_folder_is_an_error() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().unwrap();
    let missing = out.path().join("no-such-roles");
    let r = eval_from(
        root,
        &out.path().join("run"),
        &["--roles", missing.to_str().unwrap()],
    );
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("no-such-roles") && err.contains("not found"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let empty = out.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let r = eval_from(
        root,
        &out.path().join("run"),
        &["--roles", empty.to_str().unwrap()],
    );
    assert!(
        !r.status.success() && String::from_utf8_lossy(&r.stderr).contains("no `*.toml`"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
}
