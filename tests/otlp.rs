//! `--otlp` against a real collector: Arize Phoenix from PyPI, started by the test on free
//! loopback ports (`COLONY_PHOENIX` names its `phoenix` executable). The spans of a compare and
//! an eval run arrive with their parent links (run → episode → step → chat, run → item →
//! chat) and their token attributes add up to the runs' `summary.json`; a collector that is
//! down changes no result and is warned about. Skips without Phoenix unless
//! `COLONY_REQUIRE_PHOENIX=1` (CI sets it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::HashMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{colony_cmd, summary};
use serde_json::Value;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running Phoenix, killed when dropped.
struct Phoenix {
    child: Child,
    url: String,
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn get(url: &str) -> Option<Value> {
    let out = Command::new("curl")
        .args(["-sf", "--max-time", "5", url])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| serde_json::from_slice(&out.stdout).ok())
        .flatten()
}

fn phoenix(work: &Path) -> Option<Phoenix> {
    let exe = match std::env::var("COLONY_PHOENIX") {
        Ok(p) if Path::new(&p).is_file() => PathBuf::from(p),
        _ => {
            assert!(
                std::env::var("COLONY_REQUIRE_PHOENIX").as_deref() != Ok("1"),
                "COLONY_REQUIRE_PHOENIX=1 but COLONY_PHOENIX names no phoenix executable"
            );
            eprintln!("skipped: no Phoenix (set COLONY_PHOENIX)");
            return None;
        }
    };
    let (port, grpc) = (free_port(), free_port());
    let child = Command::new(exe)
        .arg("serve")
        .env("PHOENIX_WORKING_DIR", work)
        .env("PHOENIX_PORT", port.to_string())
        .env("PHOENIX_GRPC_PORT", grpc.to_string())
        .env("PHOENIX_HOST", "127.0.0.1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let p = Phoenix {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let start = Instant::now();
    while get(&format!("{}/v1/projects", p.url)).is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "Phoenix did not start"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    Some(p)
}

/// Every span Phoenix holds, by trace id.
fn spans(p: &Phoenix) -> HashMap<String, Vec<Value>> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!("{}/v1/projects/default/spans?limit=1000", p.url);
        if let Some(c) = &cursor {
            url.push_str(&format!("&cursor={c}"));
        }
        let page = get(&url).unwrap();
        all.extend(page["data"].as_array().unwrap().iter().cloned());
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let mut by_trace: HashMap<String, Vec<Value>> = HashMap::new();
    for s in all {
        let t = s["context"]["trace_id"].as_str().unwrap().to_string();
        by_trace.entry(t).or_default().push(s);
    }
    by_trace
}

/// The first trace `keep` accepts, after waiting for it to arrive (`what` names it).
fn trace_where(p: &Phoenix, what: &str, keep: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let start = Instant::now();
    loop {
        if let Some(t) = spans(p).into_values().find(|t| keep(t)) {
            return t;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let seen: Vec<(usize, Vec<String>)> = spans(p)
                .into_values()
                .map(|t| {
                    let roots = t
                        .iter()
                        .filter(|s| s["parent_id"].is_null())
                        .map(|s| s["name"].to_string())
                        .collect();
                    (t.len(), roots)
                })
                .collect();
            panic!("no trace {what}; traces (spans, roots): {seen:?}");
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// The trace whose root span is `run`, after waiting for it to hold `at_least` spans.
fn trace_of(p: &Phoenix, run: &str, at_least: usize) -> Vec<Value> {
    trace_where(p, &format!("of {run} with {at_least} spans"), |t| {
        t.iter()
            .any(|s| s["name"] == run && s["parent_id"].is_null())
            && t.len() >= at_least
    })
}

/// The name of each span's parent, by span name prefix of the child.
fn parent_names(trace: &[Value]) -> Vec<(String, String)> {
    let by_id: HashMap<&str, &Value> = trace
        .iter()
        .map(|s| (s["context"]["span_id"].as_str().unwrap(), s))
        .collect();
    trace
        .iter()
        .filter_map(|s| {
            let parent = by_id.get(s["parent_id"].as_str()?)?;
            Some((
                s["name"].as_str().unwrap().to_string(),
                parent["name"].as_str().unwrap().to_string(),
            ))
        })
        .collect()
}

fn tokens(trace: &[Value], key: &str) -> u64 {
    trace
        .iter()
        .filter(|s| s["name"].as_str().unwrap().starts_with("chat "))
        .map(|s| s["attributes"][key].as_u64().unwrap())
        .sum()
}

fn total(summary: &Value, key: &str) -> u64 {
    summary["policies"]
        .as_object()
        .unwrap()
        .values()
        .map(|p| p[key].as_u64().unwrap())
        .sum()
}

#[test]
fn runs_are_traced_to_a_real_collector_with_parents_and_tokens() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(p) = phoenix(&tmp.path().join("phoenix")) else {
        return;
    };
    // A comparison, with the collector given by the flag.
    let cmp = tmp.path().join("cmp");
    let run = colony_cmd([
        "compare",
        "--env",
        "swarmbench",
        "--set",
        "agents=3",
        "--set",
        "max_round=3",
        "--policies",
        "independent",
        "--seeds",
        "0..2",
        "--quiet",
        "--otlp",
        &p.url,
        "--out",
        cmp.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let s = summary(&cmp);
    let calls = total(&s, "calls") as usize;
    let trace = trace_of(&p, "colony compare", 1 + 2 + calls);
    let links = parent_names(&trace);
    let count = |child: &str, parent: &str| {
        links
            .iter()
            .filter(|(c, q)| c.starts_with(child) && q.starts_with(parent))
            .count()
    };
    assert_eq!(
        count("episode independent/", "colony compare"),
        2,
        "{links:?}"
    );
    assert_eq!(count("step ", "episode "), 6, "{links:?}");
    assert_eq!(count("chat ", "step "), calls, "{links:?}");
    assert_eq!(
        tokens(&trace, "gen_ai.usage.input_tokens"),
        total(&s, "prompt_tokens")
    );
    assert_eq!(
        tokens(&trace, "gen_ai.usage.output_tokens"),
        total(&s, "completion_tokens")
    );
    let chat = trace
        .iter()
        .find(|s| s["name"].as_str().unwrap().starts_with("chat "))
        .unwrap();
    assert_eq!(
        chat["attributes"]["gen_ai.operation.name"], "chat",
        "{chat}"
    );

    // An eval, with the collector given by OpenTelemetry's own variable.
    let ev = tmp.path().join("eval");
    let run = colony_cmd(["eval", "--dataset", "gsm8k", "--data"])
        .arg(common::eval_run::gsm8k_sample())
        .args([
            "--policy",
            "self_consistency:k=2",
            "--limit",
            "3",
            "--quiet",
            "--out",
        ])
        .arg(&ev)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &p.url)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let s = summary(&ev);
    let trace = trace_of(&p, "colony eval", 1 + 3 + 6);
    let links = parent_names(&trace);
    assert_eq!(
        links
            .iter()
            .filter(|(c, q)| c.starts_with("item ") && q == "colony eval")
            .count(),
        3,
        "{links:?}"
    );
    assert_eq!(
        links
            .iter()
            .filter(|(c, q)| c.starts_with("chat ") && q.starts_with("item "))
            .count(),
        6,
        "{links:?}"
    );
    assert_eq!(
        tokens(&trace, "gen_ai.usage.input_tokens"),
        total(&s, "prompt_tokens")
    );

    // Tool calls: one `execute_tool` span per call, a child of the ask's `chat` span, a
    // failed one marked with its kind (serve-mock's script: a malformed call, then 3 + 4).
    let script = common::tool_script(tmp.path());
    let mock = common::Mock::start(&["--script", script.to_str().unwrap()], &[]);
    let tooled = tmp.path().join("tools");
    common::run_ok(&mut common::eval_run::eval_command(
        "single",
        &mock.url,
        &tooled,
        &["--tools", "calculator", "--limit", "1", "--otlp", &p.url],
    ));
    let tools = trace_where(&p, "with two tool spans", |t| {
        t.iter()
            .filter(|s| s["name"].as_str().unwrap().starts_with("execute_tool "))
            .count()
            >= 2
    });
    let links = parent_names(&tools);
    let under_chat = links
        .iter()
        .filter(|(c, q)| c == "execute_tool calculator" && q.starts_with("chat "))
        .count();
    assert_eq!(under_chat, 2, "{links:?}");
    let failed: Vec<&Value> = tools
        .iter()
        .filter(|s| s["name"] == "execute_tool calculator")
        .filter(|s| s["attributes"]["error.type"] == "invalid_json")
        .collect();
    assert_eq!(failed.len(), 1, "{tools:?}");
    assert!(tools
        .iter()
        .any(|s| s["attributes"]["gen_ai.tool.name"] == "calculator"));

    // A collector that is down: the same results, and a warning with the count.
    let down = tmp.path().join("down");
    let dead = format!("http://127.0.0.1:{}", free_port());
    let run = colony_cmd([
        "compare",
        "--env",
        "swarmbench",
        "--set",
        "agents=3",
        "--set",
        "max_round=3",
        "--policies",
        "independent",
        "--seeds",
        "0..2",
        "--quiet",
        "--otlp",
        &dead,
        "--out",
        down.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(err.contains("could not be sent"), "{err}");
    assert_eq!(
        common::timeless(&summary(&down)),
        common::timeless(&summary(&cmp)),
        "tracing changes no result"
    );
}
