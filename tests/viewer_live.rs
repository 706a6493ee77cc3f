//! `colony view` as a report of separate files and as a live server: hostile
//! content from models and datasets stays inert in Chromium, from `file://`
//! and from `--serve`; the server is read-only, confined to the run directory, sends a
//! restrictive Content-Security-Policy, and picks up results written while it runs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use common::browser::{chromium, dom, dom_url};
use common::eval_run::{eval_on, gsm8k_sample};
use common::{colony, compare_args, first_line_server, run_ok};
use serde_json::Value;

/// Sets `data-pwned` on `<html>` if it ever runs.
const RUN: &str = "document.documentElement.setAttribute('data-pwned',1)";

/// Payloads for text fields: closing the script element, an event handler, a `javascript:`
/// link, the two line separators JSON allows and JavaScript did not, and a NUL byte.
fn payloads() -> Vec<String> {
    vec![
        format!("</script><script>{RUN}</script>"),
        format!("<img src=x onerror=\"{RUN}\">"),
        format!("javascript:{RUN}"),
        format!("sep\u{2028}line\u{2029}para</script>\u{2028}<script>{RUN}</script>"),
        format!("nul\u{0}byte<svg onload=\"{RUN}\">"),
    ]
}

/// A name that is also a payload and a valid file name (no `/`, no NUL).
fn hostile_name() -> String {
    format!("<img src=x onerror=\"{RUN}\">")
}

/// Percent-encodes a value for the page address.
fn enc(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A suite holding an eval unit and a compare unit, every shown field made hostile: the
/// suite label, a unit directory and a results file named like markup, the policy label,
/// the answer, gold, error, the question and reply in the call log, and the episode's error.
fn hostile_suite(root: &Path) -> std::path::PathBuf {
    let suite = root.join("suite");
    let eval_dir = suite.join(hostile_name());
    run_ok(
        eval_on("gsm8k", &gsm8k_sample(), "single", &eval_dir).args([
            "--limit",
            "2",
            "--quiet",
            "--log-calls",
            "full",
        ]),
    );
    let p = payloads();
    let policy = hostile_name();
    let lines: Vec<Value> = std::fs::read_to_string(eval_dir.join("single.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut out = String::new();
    for (i, mut r) in lines.into_iter().enumerate() {
        r["policy"] = Value::from(policy.clone());
        r["answer"] = Value::from(p[i % p.len()].clone());
        r["gold"] = Value::from(p[(i + 1) % p.len()].clone());
        r["error"] = Value::from(p[(i + 2) % p.len()].clone());
        out.push_str(&format!("{r}\n"));
    }
    std::fs::remove_file(eval_dir.join("single.jsonl")).unwrap();
    std::fs::write(eval_dir.join(format!("{policy}.jsonl")), out).unwrap();
    let calls = serde_json::json!({
        "dataset": "gsm8k", "id": "0", "policy": policy,
        "entries": [{"agent": p[2], "seq": 0, "event": {"kind": "call", "model": p[1],
            "request": {"messages": [{"role": "user", "content": p[0]}, {"role": p[4], "content": p[3]}]},
            "text": p.join(" | "), "finish_reason": "stop",
            "usage": {"prompt_tokens": 1, "completion_tokens": 1}, "latency": 1000}}]
    });
    std::fs::write(
        eval_dir.join("calls").join(format!("{policy}.jsonl")),
        format!("{calls}\n"),
    )
    .unwrap();

    let cmp = suite.join("cube");
    let (ok, _, err) = colony(&compare_args(
        "cube",
        &["--set", "n=1"],
        "scripted:noop",
        &["--seeds", "0", "--max-steps", "2"],
        &cmp,
    ));
    assert!(ok, "{err}");
    let episodes = cmp.join("episodes.jsonl");
    let mut e: Value =
        serde_json::from_str(std::fs::read_to_string(&episodes).unwrap().trim()).unwrap();
    e["error"] = Value::from(p.join(" | "));
    std::fs::write(&episodes, format!("{e}\n")).unwrap();
    std::fs::write(
        suite.join("manifest.json"),
        serde_json::json!({"suite": p[0], "label": p[1], "units": [p[3]]}).to_string(),
    )
    .unwrap();
    suite
}

/// Asserts that nothing ran: no `data-pwned` anywhere in attributes, no `javascript:` link,
/// and the markup shown as text.
fn assert_inert(dom: &str, what: &str) {
    let html_tag = &dom[..dom.find('>').unwrap_or(0)];
    assert!(!html_tag.contains("data-pwned"), "{what}: a payload ran");
    assert!(!dom.contains("data-pwned=\"1\""), "{what}: a payload ran");
    assert!(
        !dom.contains("href=\"javascript:"),
        "{what}: a javascript: link"
    );
    assert!(
        !dom.contains("<img src=\"x\""),
        "{what}: markup from data rendered"
    );
    assert!(
        !dom.contains("<svg onload"),
        "{what}: markup from data rendered"
    );
}

/// A view that opens a row drew its detail (so the inertness checks saw the payloads), and no
/// detail failed to load or draw.
fn assert_detail_drawn(dom: &str, hash: &str) {
    assert!(!dom.contains("detail-error"), "{hash}: a detail failed");
    if hash.contains("policy=") || hash.contains("compare=") {
        assert!(
            dom.contains("class=\"item-detail\"") || dom.contains("class=\"episode-detail\""),
            "{hash}: no detail drawn"
        );
    }
}

#[test]
fn hostile_content_stays_inert_from_file_and_from_the_server() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = hostile_suite(tmp.path());
    let (ok, out, err) = colony(&["view", suite.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("report.data"), "{out}");
    let page = suite.join("report.html");
    // The index page holds no executable script: only the JSON index and the viewer file.
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<script").count(), 2, "{html}");
    assert!(html.contains("<script type=\"application/json\" id=\"colony-index\">"));
    assert!(
        html.contains("<script src=\"report.data/g-") && html.contains("/viewer.js\"></script>")
    );
    assert!(!html.contains("</script><script>document"));
    let Some(browser) = chromium() else { return };
    let t = tmp.path();
    let unit = enc(&hostile_name());
    let policy = enc(&hostile_name());
    let views = [
        String::new(),
        format!("#unit={unit}"),
        format!("#unit={unit}&policy={policy}&item=0&open=1"),
        format!("#unit={unit}&policy={policy}&item=1&open=1"),
        format!("#unit={unit}&compare={policy},{policy}&item=0&open=1"),
        "#unit=cube&policy=scripted:noop&seed=0".into(),
        "#q=onerror".into(),
        format!("#unit={unit}&filter={}&sort=answer&desc=1", enc("<img")),
    ];
    for hash in &views {
        let d = dom(&browser, t, &page, hash);
        assert_inert(&d, hash);
        assert_detail_drawn(&d, hash);
    }
    // The payloads were shown, as text.
    let item = dom(&browser, t, &page, &views[2]);
    assert!(
        item.contains("&lt;/script&gt;&lt;script&gt;document"),
        "{item}"
    );
    assert!(item.contains("javascript:document"));
    let found = dom(&browser, t, &page, "#q=onerror");
    assert!(found.contains("class=\"hit\""), "search finds the payloads");

    // The same report served: the policy header, and still nothing runs.
    let server = Served::start(&suite);
    let (status, headers, _) = server.get("/", &[]);
    assert_eq!(status, 200);
    let csp = header(&headers, "content-security-policy").unwrap();
    assert!(
        csp.contains("default-src 'none'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
    assert_eq!(
        header(&headers, "x-content-type-options").unwrap(),
        "nosniff"
    );
    for hash in &views[..6] {
        let d = dom_url(&browser, t, &format!("{}{hash}", server.url));
        assert_inert(&d, hash);
        assert_detail_drawn(&d, hash);
    }
    let item = dom_url(&browser, t, &format!("{}{}", server.url, views[2]));
    assert!(item.contains("&lt;/script&gt;&lt;script&gt;document"));
}

/// A `colony view --serve` child process, stopped with SIGTERM on drop.
struct Served {
    child: Child,
    url: String,
    port: u16,
    token: String,
    stopped: Option<bool>,
}

impl Served {
    fn start(run: &Path) -> Served {
        let run = run.to_str().unwrap();
        let (child, url) = first_line_server(&["view", "--serve", "--port", "0", run], &[]);
        assert!(url.starts_with("http://127.0.0.1:"), "{url:?}");
        let (base, token) = url.split_once("/?token=").unwrap();
        let port = base
            .trim_start_matches("http://127.0.0.1:")
            .parse()
            .unwrap();
        let token = token.to_string();
        Served {
            child,
            url,
            port,
            token,
            stopped: None,
        }
    }

    /// A raw request (so paths reach the server as written); returns status, headers, body.
    fn request(&self, raw: &str) -> (u16, String, String) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(raw.as_bytes()).unwrap();
        let mut text = Vec::new();
        let _ = s.read_to_end(&mut text);
        let text = String::from_utf8_lossy(&text).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        (status, head.to_string(), body.to_string())
    }

    /// `GET path` with the token's cookie and `extra` header lines.
    fn get(&self, path: &str, extra: &[&str]) -> (u16, String, String) {
        let cookie = format!("Cookie: colony_view={}", self.token);
        self.get_with(path, &[&[cookie.as_str()][..], extra].concat())
    }

    /// `GET path` with exactly the header lines `extra` (besides Host).
    fn get_with(&self, path: &str, extra: &[&str]) -> (u16, String, String) {
        let mut raw = format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n",
            self.port
        );
        for h in extra {
            raw.push_str(h);
            raw.push_str("\r\n");
        }
        raw.push_str("\r\n");
        self.request(&raw)
    }

    /// The data folder of the report now served.
    fn data(&self) -> String {
        let (_, _, live) = self.get("/live.json", &[]);
        let live: Value = serde_json::from_str(&live).unwrap();
        format!("/report.data/g-{}", live["generation"].as_str().unwrap())
    }

    /// Stops the server as Ctrl-C would and returns whether it exited cleanly.
    fn stop(&mut self) -> bool {
        if let Some(clean) = self.stopped {
            return clean;
        }
        let clean = self.terminate();
        self.stopped = Some(clean);
        clean
    }

    fn terminate(&mut self) -> bool {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            if start.elapsed() > Duration::from_secs(60) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if !self.stop() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn header(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().to_string())
    })
}

#[test]
fn the_server_is_read_only_confined_and_live() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    run_ok(eval_on("gsm8k", &gsm8k_sample(), "single", &run).args(["--limit", "2", "--quiet"]));
    std::fs::write(tmp.path().join("secret.txt"), "OUTSIDE-SECRET").unwrap();
    std::os::unix::fs::symlink(tmp.path().join("secret.txt"), run.join("link.txt")).unwrap();
    std::fs::write(run.join("evil.html"), "<script>alert(1)</script>").unwrap();
    std::fs::write(run.join(".hidden"), "HIDDEN-SECRET").unwrap();
    std::os::unix::fs::symlink(run.join(".hidden"), run.join("hidden-link.txt")).unwrap();
    let mut server = Served::start(&run);

    // The page and its data, with the token's cookie; nothing without it.
    let (status, _, page) = server.get("/", &[]);
    assert_eq!(status, 200);
    assert!(page.contains("colony-index"));
    let (status, _, _) = server.get_with("/", &[]);
    assert_eq!(status, 403, "no token");
    let (status, _, _) = server.get_with("/", &["Cookie: colony_view=0123"]);
    assert_eq!(status, 403, "a wrong token");
    let (status, head, _) = server.get_with(&format!("/?token={}", server.token), &[]);
    assert_eq!(status, 200);
    assert!(header(&head, "set-cookie").unwrap().contains("HttpOnly"));
    let (status, _, _) = server.get("/", &["Sec-Fetch-Site: cross-site"]);
    assert_eq!(status, 403, "a cross-site request");
    let data = server.data();
    let (status, head, js) = server.get(&format!("{data}/viewer.js"), &[]);
    assert_eq!(status, 200);
    assert!(header(&head, "content-type")
        .unwrap()
        .starts_with("text/javascript"));
    assert!(js.contains("colonyChunk"));
    let (status, _, c0) = server.get(&format!("{data}/c0.js"), &[]);
    assert_eq!((status, c0.starts_with("colonyChunk(")), (200, true));
    let (status, _, _) = server.get("/report.data/g-0000/c0.js", &[]);
    assert_eq!(status, 404, "an unknown generation");
    // Run files: read-only, never executable, only inside the run.
    let (status, head, body) = server.get("/files/summary.json", &[]);
    assert_eq!(status, 200);
    assert!(body.contains("policies"));
    assert!(header(&head, "content-type")
        .unwrap()
        .starts_with("text/plain"));
    let (status, head, _) = server.get("/files/evil.html", &[]);
    assert_eq!(status, 200);
    assert!(header(&head, "content-type")
        .unwrap()
        .starts_with("application/octet-stream"));
    assert!(header(&head, "content-security-policy")
        .unwrap()
        .contains("sandbox"));
    for bad in [
        "/files/../secret.txt",
        "/files/%2e%2e/secret.txt",
        "/files/link.txt",
        "/files/hidden-link.txt",
        "/files/..%2fsecret.txt",
        "/files/.hidden",
        "/report.data/..%2f..%2fsecret.txt",
        "/files/%00",
    ] {
        let (status, _, body) = server.get(bad, &[]);
        assert!(matches!(status, 400 | 403 | 404), "{bad}: {status} {body}");
        assert!(
            !body.contains("OUTSIDE-SECRET") && !body.contains("HIDDEN-SECRET"),
            "{bad}"
        );
    }
    // Live: a third item appended to the run is picked up and shown.
    let (_, _, live) = server.get("/live.json", &[]);
    let first: Value = serde_json::from_str(&live).unwrap();
    let results = run.join("single.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    let mut r: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    r["id"] = Value::from("live-item");
    std::fs::write(&results, format!("{text}{r}\n")).unwrap();
    let start = Instant::now();
    let next = loop {
        let (_, _, live) = server.get("/live.json", &[]);
        let now: Value = serde_json::from_str(&live).unwrap();
        if now["generation"] != first["generation"] {
            break now;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "never regenerated"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(next["error"].is_null(), "{next}");
    let (_, _, page) = server.get("/", &[]);
    assert!(page.contains("live-item"));
    if let Some(browser) = chromium() {
        let d = dom_url(
            &browser,
            tmp.path(),
            &format!("{}#unit=.&policy=single&item=live-item", server.url),
        );
        assert!(d.contains("data-item=\"live-item\""), "the new item opens");
    }
    // Ctrl-C (SIGTERM) ends it cleanly and takes its temporary reports along.
    let pid = server.child.id();
    assert!(server.stop(), "the server did not stop cleanly");
    let left: Vec<String> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("colony-view-{pid}-")))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The table's sort, filter and policy choice come from the address, so a
/// link reproduces the view.
#[test]
fn the_table_state_rides_in_the_address() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    run_ok(
        eval_on("gsm8k", &gsm8k_sample(), "single,selforg", &run).args(["--limit", "4", "--quiet"]),
    );
    let (ok, _, err) = colony(&["view", run.to_str().unwrap()]);
    assert!(ok, "{err}");
    let page = run.join("report.html");
    let Some(browser) = chromium() else { return };
    let t = tmp.path();
    let ids = |dom: &str| -> Vec<(String, String)> {
        dom.split("<tr data-row=")
            .skip(1)
            .map(|row| {
                let cells: Vec<&str> = row
                    .split("<td")
                    .skip(1)
                    .map(|c| {
                        let c = &c[c.find('>').unwrap() + 1..];
                        &c[..c.find("</td>").unwrap()]
                    })
                    .collect();
                (cells[0].to_string(), cells[2].to_string())
            })
            .collect()
    };
    let all = ids(&dom(&browser, t, &page, "#unit=."));
    assert_eq!(all.len(), 8);
    let only = ids(&dom(&browser, t, &page, "#unit=.&only=selforg"));
    assert_eq!(only.len(), 4);
    assert!(only.iter().all(|(p, _)| p == "selforg"), "{only:?}");
    let sorted = ids(&dom(
        &browser,
        t,
        &page,
        "#unit=.&only=single&sort=id&desc=1",
    ));
    let order: Vec<&str> = sorted.iter().map(|(_, id)| id.as_str()).collect();
    assert_eq!(order, ["3", "2", "1", "0"]);
    let filtered = dom(&browser, t, &page, "#unit=.&filter=selforg&sort=id");
    assert_eq!(ids(&filtered).len(), 4);
    assert!(
        filtered.contains("placeholder=\"filter rows…\" value=\"selforg\""),
        "the filter box shows the filter"
    );
    // The state stays while a row is open.
    let open = dom(
        &browser,
        t,
        &page,
        "#unit=.&only=single&policy=single&item=2",
    );
    assert_eq!(ids(&open).len(), 4);
    assert!(open.contains("data-item=\"2\""));
}
