//! A suite as a real Slurm job array (4 tasks) against `serve-mock`, merged, equals one
//! process's run. Needs a running Slurm (`.ci/slurm-local.sh`, which CI starts): without
//! `sbatch` on PATH it prints `SKIPPED` unless `COLONY_REQUIRE_SLURM=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Command;

use common::{colony, colony_cmd, run_ok, summary, timeless, Mock, BIN};

fn slurm_ready() -> bool {
    Command::new("sinfo")
        .args(["-h", "-o", "%t"])
        .output()
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty())
}

#[test]
fn a_slurm_job_array_merges_into_the_unsharded_run() {
    if !slurm_ready() {
        assert!(
            std::env::var("COLONY_REQUIRE_SLURM").as_deref() != Ok("1"),
            "COLONY_REQUIRE_SLURM=1 but no Slurm cluster answers (run .ci/slurm-local.sh)"
        );
        eprintln!("SKIPPED: no Slurm cluster (run .ci/slurm-local.sh as root)");
        return;
    }
    let mock = Mock::start(&[], &[]);
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("slurm.toml");
    std::fs::write(
        &suite,
        format!(
            r#"name = "slurm"
policies = ["single", "debate:agents=2,rounds=2"]
[[datasets]]
name = "gsm8k"
data = "{root}/environments/qa/samples/gsm8k.jsonl"
limit = 8
[[environments]]
id = "swarmbench"
set = {{ task = "pursuit", agents = 4, size = 8, max_round = 6 }}
seeds = "0..4"
policies = ["independent", "scripted:heuristic"]
"#,
            root = env!("CARGO_MANIFEST_DIR")
        ),
    )
    .unwrap();
    let flags = format!("--base-url {} --model mock-model --quiet", mock.url);
    let sharded = tmp.path().join("sharded");
    let job = tmp.path().join("job.sh");
    std::fs::write(
        &job,
        format!(
            "#!/bin/bash\nset -e\nexec {BIN} run {} --out {} {flags}\n",
            suite.display(),
            sharded.display()
        ),
    )
    .unwrap();
    let out = Command::new("sbatch")
        .args(["--wait", "--array=0-3", "--output"])
        .arg(tmp.path().join("task-%a.log"))
        .arg("--chdir")
        .arg(env!("CARGO_MANIFEST_DIR"))
        .arg(&job)
        .output()
        .unwrap();
    let logs: String = (0..4)
        .map(|i| {
            std::fs::read_to_string(tmp.path().join(format!("task-{i}.log"))).unwrap_or_default()
        })
        .collect();
    assert!(
        out.status.success(),
        "sbatch: {}{}\n{logs}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let dirs: Vec<String> = (0..4)
        .map(|i| {
            sharded
                .join(format!("shard-{i}-of-4"))
                .display()
                .to_string()
        })
        .collect();
    for d in &dirs {
        assert!(
            Path::new(d).join("plan.json").is_file(),
            "{d} missing\n{logs}"
        );
    }
    let merged = tmp.path().join("merged");
    let mut args = vec!["merge", merged.to_str().unwrap()];
    args.extend(dirs.iter().map(String::as_str));
    let (ok, _, err) = colony(&args);
    assert!(ok, "{err}");
    let whole = tmp.path().join("whole");
    let mut args = vec![
        "run",
        suite.to_str().unwrap(),
        "--out",
        whole.to_str().unwrap(),
        "--no-shard",
    ];
    args.extend(flags.split(' '));
    run_ok(&mut colony_cmd(&args));
    assert_eq!(timeless(&summary(&merged)), timeless(&summary(&whole)));
    assert_eq!(
        std::fs::read_to_string(merged.join("results.md")).unwrap(),
        std::fs::read_to_string(whole.join("results.md")).unwrap()
    );
}
