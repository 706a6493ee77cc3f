//! Headless Chromium for the viewer tests: `$COLONY_CHROMIUM` or `/usr/bin/chromium`; without
//! one the browser tests print `SKIPPED` and pass, unless `COLONY_REQUIRE_CHROMIUM=1` (CI
//! installs it) makes them fail. The page reports JavaScript errors into
//! `<pre id="js-errors">` and sets `data-ready` on `<body>` when it has rendered; every load
//! asserts both.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The browser, or `None` (after printing why) when the test should skip.
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("COLONY_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var("COLONY_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
        "COLONY_REQUIRE_CHROMIUM=1 but there is no browser at {}",
        path.display()
    );
    println!(
        "SKIPPED: no Chromium at {} (set COLONY_CHROMIUM)",
        path.display()
    );
    None
}

/// Runs headless Chromium on `page#hash` with `extra` flags; returns stdout. A fresh profile
/// each time, nothing from the network, killed if it hangs.
pub fn browse(browser: &Path, tmp: &Path, page: &Path, hash: &str, extra: &[&str]) -> String {
    let url = format!("file://{}{hash}", page.canonicalize().unwrap().display());
    browse_url(browser, tmp, &url, extra)
}

/// Runs headless Chromium on `url` with `extra` flags; returns stdout.
pub fn browse_url(browser: &Path, tmp: &Path, url: &str, extra: &[&str]) -> String {
    let profile = tempfile::tempdir_in(tmp).unwrap();
    let out_path = tmp.join(format!("chromium-{}.out", std::process::id()));
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::read_to_string(&out_path).unwrap()
}

/// The rendered DOM of `page#hash`, checked for JavaScript errors and the ready flag.
pub fn dom(browser: &Path, tmp: &Path, page: &Path, hash: &str) -> String {
    let url = format!("file://{}{hash}", page.canonicalize().unwrap().display());
    dom_url(browser, tmp, &url)
}

/// The rendered DOM of `url`, checked as [`dom`] checks it.
pub fn dom_url(browser: &Path, tmp: &Path, url: &str) -> String {
    let hash = url;
    let dom = browse_url(browser, tmp, url, &["--dump-dom"]);
    let errors = between(&dom, "<pre id=\"js-errors\"", "</pre>");
    assert!(
        errors == ">" || errors.ends_with("\">") && !errors.contains("shown"),
        "JavaScript errors on {hash}: {errors}"
    );
    assert!(
        dom.contains("data-ready=\"1\""),
        "not ready on {hash}: {}",
        &dom[..dom.len().min(2000)]
    );
    dom
}

/// The text from `start` to the next `end` (empty when `start` is absent).
pub fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let Some(i) = text.find(start) else {
        return "";
    };
    let rest = &text[i + start.len()..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}
