//! `colony view` end to end: real `colony eval` and `colony compare` runs (offline simulated
//! model), the page written by `colony view`, loaded in headless Chromium from `file://` with
//! deep links, asserting on the rendered DOM and on a screenshot.
//!
//! The browser and the checks on every load are in `common::browser`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::browser::{between, browse, chromium, dom};
use common::eval_run::{eval_on, gsm8k_sample};
use common::{colony, jsonl, run_ok};

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

fn html_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The cell characters of the grid shown for `step` (tags stripped, one string per row).
fn grid_rows(dom: &str, step: usize) -> Vec<String> {
    let grid = between(
        dom,
        &format!("<div class=\"grid\" data-step=\"{step}\">"),
        "</div></div><h4",
    );
    assert!(!grid.is_empty(), "no grid for step {step}");
    grid.split("<div class=\"row\">")
        .skip(1)
        .map(|row| {
            let mut text = String::new();
            let mut in_tag = false;
            for c in row.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    c if !in_tag => text.push(c),
                    _ => {}
                }
            }
            text.replace("&amp;", "&")
        })
        .collect()
}

/// The texts of the first `n` cells of each table row of `dom`, in page order.
fn first_cells(dom: &str, n: usize) -> Vec<Vec<String>> {
    dom.split("<tr data-row=")
        .skip(1)
        .map(|row| {
            let row = row.split("</tr>").next().unwrap_or_default();
            row.split("<td")
                .skip(1)
                .take(n)
                .map(|cell| {
                    let inner = cell.split_once('>').map_or("", |(_, rest)| rest);
                    inner.split("</td>").next().unwrap_or_default().to_string()
                })
                .collect()
        })
        .collect()
}

fn view(run: &Path) -> PathBuf {
    let (ok, out, err) = colony(&["view", run.to_str().unwrap()]);
    assert!(ok, "colony view: {err}");
    let page = run.join("report.html");
    assert!(
        out.contains("report.html") && out.contains("bytes"),
        "{out}"
    );
    assert!(page.is_file());
    page
}

fn screenshot(browser: &Path, tmp: &Path, page: &Path, hash: &str, name: &str) {
    let png = tmp.join(name);
    browse(
        browser,
        tmp,
        page,
        hash,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1280,900",
        ],
    );
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.len() > 10_000, "{name}: {} bytes", bytes.len());
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{name}");
    if let Some(dir) = std::env::var_os("COLONY_VIEW_SCREENSHOTS") {
        std::fs::copy(&png, Path::new(&dir).join(name)).unwrap();
    }
}

/// The text a calls fixture puts into the transcript of `single`'s item 0, with markup that
/// must stay text (`</script>` must not end the detail block).
const MARKER: &str = "fixture reply </script><b>17</b> & done";

/// Appends to `calls/single.jsonl` (the file `colony eval` writes: one line per item, the
/// transcript entries of crates/colony-runtime/src/transcript.rs) a line for item 0; the last line per item
/// wins, so the page shows this one instead of the recorded call.
fn calls_fixture(run: &Path) {
    let path = run.join("calls").join("single.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let line = serde_json::json!({
        "dataset": "gsm8k", "id": "0", "policy": "single",
        "entries": [
            {"agent": "agent_0", "seq": 0, "event": {"kind": "call", "model": "sim",
             "request": {"messages": [{"role": "system", "content": "You are a helpful assistant."},
                                      {"role": "user", "content": "What is 8 + 9?"}]},
             "text": MARKER, "finish_reason": "stop",
             "usage": {"prompt_tokens": 21, "completion_tokens": 5}, "latency": 1500,
             "tools": [
                {"call": {"id": "c1", "type": "function",
                          "function": {"name": "calculator", "arguments": "{\"expression\": \"8+9\"}"}},
                 "tool": "calculator", "result": "17", "elapsed_us": 2500},
                {"call": {"id": "c2", "type": "function", "function": {"name": "calculator", "arguments": "{oops"}},
                 "tool": "calculator", "result": "error: arguments are not valid JSON", "error": "invalid_json",
                 "elapsed_us": 0}]}},
            {"agent": "agent_0", "seq": 1, "event": {"kind": "failure", "model": "sim",
             "request": {"messages": [{"role": "user", "content": "again"}]},
             "error": "simulated timeout"}}
        ]
    });
    let mut text = std::fs::read_to_string(&path).unwrap_or_default();
    text.push_str(&format!("{line}\n"));
    std::fs::write(&path, text).unwrap();
}

#[test]
fn reasoning_run_table_selforg_graph_calls_side_by_side_and_search() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("eval");
    run_ok(
        // Plain logs, so the fixture below can append to one.
        eval_on("gsm8k", &gsm8k_sample(), "single,selforg", &run).args([
            "--limit",
            "5",
            "--quiet",
            "--log-calls",
            "full",
        ]),
    );
    assert!(
        run.join("calls/selforg.jsonl").is_file(),
        "colony eval records calls"
    );
    calls_fixture(&run);
    let page = view(&run);
    let Some(browser) = chromium() else { return };
    let t = tmp.path();

    let home = dom(&browser, t, &page, "");
    assert_eq!(count(&home, "<tr data-row="), 10, "5 items × 2 policies");
    // Rows in the tables' order: the paper's method order (single before selforg), then
    // item ids as numbers.
    let want: Vec<Vec<String>> = ["single", "selforg"]
        .iter()
        .flat_map(|p| (0..5).map(move |i| vec![p.to_string(), "gsm8k".into(), i.to_string()]))
        .collect();
    assert_eq!(first_cells(&home, 3), want);
    // The offline model's numbers are labelled on the page as in results.md and the CSV.
    assert!(home.contains("SIMULATION: offline simulated model"));

    // A SelfOrg item: one graph per round, a node per agent (4 role cards by default).
    let so = dom(&browser, t, &page, "#unit=.&policy=selforg&item=2");
    assert!(so.contains("class=\"item-detail\" data-policy=\"selforg\" data-item=\"2\""));
    let graphs = count(&so, "<svg class=\"selforg-graph\"");
    let trace = &jsonl(&run.join("selforg.jsonl"))
        .into_iter()
        .find(|r| r["id"] == "2")
        .unwrap()["trace"];
    assert_eq!(graphs, trace["rounds"].as_array().unwrap().len());
    assert_eq!(count(&so, "<g class=\"node"), 4 * graphs, "{graphs} graphs");
    assert_eq!(count(&so, "<g class=\"node leader\""), graphs);
    assert!(so.contains("<tr data-row=") && so.contains("class=\"open\""));

    // Transcript entries from calls/<policy>.jsonl: recorded ones (single makes one call per
    // item), and item 0's fixture line, which supersedes the recorded one.
    let rec = dom(&browser, t, &page, "#unit=.&policy=single&item=1&open=1");
    assert!(
        rec.contains("Transcript: 1 entries, 1 calls"),
        "recorded call"
    );
    assert!(
        rec.contains("class=\"msg role-user\"")
            && rec.contains("<span class=\"role\">reply</span>")
    );
    let so_calls = dom(&browser, t, &page, "#unit=.&policy=selforg&item=2");
    let n = trace["rounds"].as_array().unwrap().len() * 4;
    assert!(
        so_calls.contains(&format!("Transcript: {n} entries, {n} calls")),
        "4 agents × rounds"
    );
    let single = dom(&browser, t, &page, "#unit=.&policy=single&item=0");
    assert!(single.contains("Transcript: 2 entries, 1 calls"));
    assert!(single.contains("simulated timeout"));
    // Calls are collapsed until opened (`&open=1` opens them all): the reply, its markup kept
    // as text, the prompt messages, usage and latency.
    assert!(!single.contains("fixture reply &lt;"));
    let open = dom(&browser, t, &page, "#unit=.&policy=single&item=0&open=1");
    assert!(open.contains("fixture reply &lt;/script&gt;&lt;b&gt;17&lt;/b&gt; &amp; done"));
    assert!(
        open.contains("What is 8 + 9?") && open.contains("21+5 tok") && open.contains("1.5 ms")
    );
    // The call's tool calls are its children: each with its arguments and result, a failed
    // one marked with its kind.
    assert_eq!(count(&open, "class=\"entry tool\""), 2, "{open}");
    assert!(open.contains("calculator · 2.5 ms") && open.contains("{\"expression\": \"8+9\"}"));
    assert!(
        open.contains(">tool invalid_json<")
            && open.contains("error: arguments are not valid JSON")
    );

    // Side by side: the same item under both policies.
    let side = dom(&browser, t, &page, "#unit=.&compare=single,selforg&item=1");
    assert!(side.contains("class=\"side\" data-policy=\"single\""));
    assert!(side.contains("class=\"side\" data-policy=\"selforg\""));
    assert_eq!(count(&side, "class=\"item-detail\""), 2);
    assert!(side.contains("data-policy=\"single\" data-item=\"1\""));
    assert!(side.contains("data-policy=\"selforg\" data-item=\"1\""));

    // Search runs over the detail blocks without opening them.
    let found = dom(&browser, t, &page, "#q=fixture%20reply");
    assert_eq!(
        count(&found, "class=\"hit\""),
        1,
        "only item 0's fixture line"
    );
    assert!(found.contains("single · item 0"));
    let found = dom(&browser, t, &page, "#q=hashing-v1");
    assert_eq!(
        count(&found, "class=\"hit\""),
        5,
        "the 5 SelfOrg traces name the embedder"
    );

    screenshot(
        &browser,
        t,
        &page,
        "#unit=.&policy=selforg&item=0",
        "selforg.png",
    );
}

/// A reasoning SwarmSys item (whose rounds hold matches as an
/// object, event → role → agents) renders its detail, and a malformed escape in the address
/// (`#q=%`) leaves the page working.
#[test]
fn swarmsys_items_render_and_bad_escapes_in_the_address_are_harmless() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("eval");
    run_ok(eval_on("gsm8k", &gsm8k_sample(), "swarmsys", &run).args(["--limit", "1", "--quiet"]));
    let page = view(&run);
    let Some(browser) = chromium() else { return };
    let t = tmp.path();
    let item = dom(&browser, t, &page, "#unit=.&policy=swarmsys&item=0");
    assert!(item.contains("Matches per round"), "swarmsys detail");
    assert!(item.contains("E1 ← "), "matches listed");
    let home = dom(&browser, t, &page, "#q=%");
    assert_eq!(count(&home, "<tr data-row="), 1, "the table is still shown");
}

#[test]
fn embodied_suite_table_replayed_grids_and_side_by_side() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    let run = |dir: &str, args: &[&str]| {
        let out = suite.join(dir);
        let mut a = vec!["compare"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["--quiet", "--out", out.to_str().unwrap()]);
        let (ok, _, err) = colony(&a);
        assert!(ok, "{err}");
        out
    };
    let swarm = run(
        "swarm",
        &[
            "--env",
            "swarmbench",
            "--policies",
            "independent,scripted:heuristic",
            "--seeds",
            "0..2",
            "--max-steps",
            "10",
        ],
    );
    let fire = run(
        "fire",
        &[
            "--env",
            "wildfire",
            "--policies",
            "scripted:heuristic",
            "--seeds",
            "0..1",
            "--max-steps",
            "6",
        ],
    );
    run(
        "cube",
        &[
            "--env",
            "cube",
            "--set",
            "n=2",
            "--policies",
            "scripted:heuristic",
            "--seeds",
            "0",
            "--max-steps",
            "3",
        ],
    );
    std::fs::write(suite.join("manifest.json"), r#"{"suite": "viewer-test"}"#).unwrap();
    // Episodes recorded in another order than the tables' (as concurrent ones finish).
    let log = swarm.join("episodes.jsonl");
    let mut lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    lines.reverse();
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let page = view(&suite);
    let Some(browser) = chromium() else { return };
    let t = tmp.path();

    let home = dom(&browser, t, &page, "#unit=swarm");
    assert_eq!(count(&home, "<tr data-row="), 4, "2 policies × 2 seeds");
    // Rows sorted by policy (in the run's order) then seed.
    assert_eq!(
        first_cells(&home, 2),
        [
            ["independent", "0"],
            ["independent", "1"],
            ["scripted:heuristic", "0"],
            ["scripted:heuristic", "1"]
        ]
    );
    assert!(home.contains("data-unit=\"fire\"") && home.contains("manifest.json"));
    // The index says which unit's figures come from the simulated model: the one with a
    // model policy (the scripted-only units asked no model).
    assert_eq!(count(&home, " · SIMULATION</a>"), 1);
    let at = home.find(" · SIMULATION</a>").unwrap();
    let link = &home[home[..at].rfind("<a ").unwrap()..at];
    assert!(link.contains("data-unit=\"swarm\""), "{link}");

    // A deep link to a step shows that step's grid (replayed) and its recorded actions.
    let steps = jsonl(&swarm.join("episodes/scripted:heuristic/1/steps.jsonl"));
    let ep = dom(
        &browser,
        t,
        &page,
        "#unit=swarm&policy=scripted:heuristic&seed=1&step=3",
    );
    assert!(
        ep.contains("class=\"episode-detail\" data-policy=\"scripted:heuristic\" data-seed=\"1\"")
    );
    assert!(ep.contains("step 3 / 10"));
    let rows = grid_rows(&ep, 3);
    assert_eq!(rows.len(), 10, "{rows:?}");
    assert!(rows.iter().all(|r| r.chars().count() == 10), "{rows:?}");
    let agents: usize = rows.iter().map(|r| r.matches('A').count()).sum();
    assert_eq!(agents, 10, "{rows:?}");
    assert!(rows[0].chars().all(|c| c == 'W'), "{rows:?}");
    for (agent, action) in steps[3]["actions"].as_object().unwrap() {
        let shown = html_escaped(action.as_str().unwrap());
        assert!(
            ep.contains(&format!(
                "<td>{agent}</td><td><pre class=\"inline action\">{shown}</pre>"
            )),
            "{agent}: {shown}"
        );
    }
    assert!(!ep.contains("replay diverged"));
    // The same picture the episode loop renders live (`colony env run --render`, the same
    // heuristic and seed): replay reproduces the episode.
    let (ok, live, err) = colony(&[
        "env",
        "run",
        "swarmbench",
        "--policy",
        "heuristic",
        "--seeds",
        "1..2",
        "--max-steps",
        "10",
        "--render",
    ]);
    assert!(ok, "{err}");
    let after3: Vec<String> = between(&live, "heuristic seed 1 step 3\n", "\n\n")
        .lines()
        .filter(|l| !l.contains(' '))
        .map(str::to_string)
        .collect();
    assert_eq!(rows, after3, "the grid after 3 steps");
    assert!(ep.contains("pursuit round 3/100"));
    // Step 3 and step 4 pictures differ the way the recorded moves say: something moved.
    let next = dom(
        &browser,
        t,
        &page,
        "#unit=swarm&policy=scripted:heuristic&seed=1&step=4",
    );
    assert_ne!(grid_rows(&next, 4), rows);

    // Side by side: both policies on seed 0 at step 2.
    let side = dom(
        &browser,
        t,
        &page,
        "#unit=swarm&compare=independent,scripted:heuristic&seed=0&step=2",
    );
    assert_eq!(count(&side, "class=\"episode-detail\""), 2);
    assert!(side.contains("data-policy=\"independent\" data-seed=\"0\""));
    assert!(side.contains("data-policy=\"scripted:heuristic\" data-seed=\"0\""));
    assert_eq!(count(&side, "<div class=\"grid\" data-step=\"2\">"), 2);
    // The LLM policy's calls of the step are listed (model calls of the simulated agents).
    assert!(side.contains("model call(s) at this step"));

    // Wildfire: the map with trees and firefighters, with its legend.
    let wf = dom(
        &browser,
        t,
        &page,
        "#unit=fire&policy=scripted:heuristic&seed=0&step=2",
    );
    assert_eq!(count(&wf, "<tr data-row="), 1);
    let rows = grid_rows(&wf, 2);
    assert!(
        rows.len() >= 20 && rows.iter().any(|r| r.contains('F')),
        "{rows:?}"
    );
    assert!(wf.contains("firefighter") && wf.contains("fire") && wf.contains("water"));
    let fire_steps = jsonl(&fire.join("episodes/scripted:heuristic/0/steps.jsonl"));
    assert!(fire_steps.len() >= 3);

    // CUBE's column ruler is the grid's first row (so it lines up with the cells): one digit
    // per cell of a row, and no longer in the status text.
    let cube = dom(
        &browser,
        t,
        &page,
        "#unit=cube&policy=scripted:heuristic&seed=0&step=1",
    );
    let rows = grid_rows(&cube, 1);
    let ruler = between(&cube, "<div class=\"ruler\">", "</div>");
    assert!(
        !rows.is_empty() && ruler.len() == rows[0].len(),
        "{ruler:?} {rows:?}"
    );
    assert!(ruler.chars().all(|c| c.is_ascii_digit()), "{ruler:?}");
    assert!(!between(&cube, "<pre class=\"status\">", "</pre>").contains(ruler));

    screenshot(
        &browser,
        t,
        &page,
        "#unit=swarm&policy=independent&seed=1&step=3",
        "swarm.png",
    );
}

/// Every file of a written page, as text (the page and its data chunks).
fn page_texts(run: &Path) -> String {
    let mut out = std::fs::read_to_string(run.join("report.html")).unwrap();
    for p in common::files_under(&run.join("report.data")) {
        out.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
    }
    out
}

#[test]
fn a_simulated_comparison_still_running_is_labelled() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("cmp");
    let (ok, _, err) = colony(&[
        "compare",
        "--env",
        "cube",
        "--set",
        "n=2",
        "--policies",
        "independent",
        "--seeds",
        "0",
        "--max-steps",
        "2",
        "--quiet",
        "--out",
        run.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    // As while it runs: no summary yet.
    std::fs::remove_file(run.join("summary.json")).unwrap();
    view(&run);
    assert!(page_texts(&run).contains("\"simulated\":true"));
}

#[test]
fn bad_input_is_a_one_line_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope");
    let (ok, _, err) = colony(&["view", missing.to_str().unwrap()]);
    assert!(
        !ok && err.contains("nope") && err.contains("no such directory"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");

    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(empty.join("sub")).unwrap();
    let (ok, _, err) = colony(&["view", empty.to_str().unwrap()]);
    assert!(!ok && err.contains("not a run directory"), "{err}");

    // A corrupt line in the middle of a results file: file and line named, no page written.
    let run = tmp.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("summary.json"), "{}").unwrap();
    let good = r#"{"id":"1","policy":"single","dataset":"gsm8k","answer":"3","gold":"3","correct":true,"calls":1,"prompt_tokens":1,"completion_tokens":1,"wall_ms":1.0}"#;
    std::fs::write(
        run.join("single.jsonl"),
        format!("{good}\n{{not json\n{good}\n"),
    )
    .unwrap();
    let (ok, _, err) = colony(&["view", run.to_str().unwrap()]);
    assert!(!ok && err.contains("single.jsonl:2:"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!run.join("report.html").exists());

    // A torn last line (a killed run) is skipped with a note; a record of the wrong shape
    // is an error naming its line.
    std::fs::write(run.join("single.jsonl"), format!("{good}\n{{\"id\":\"2\",")).unwrap();
    let out = tmp.path().join("out/page.html");
    let (ok, stdout, err) = colony(&[
        "view",
        run.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        stdout.contains("1 rows") && stdout.contains("1 notes"),
        "{stdout}"
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("torn last line skipped"));
    std::fs::write(run.join("single.jsonl"), format!("{good}\n{{\"id\":7}}\n")).unwrap();
    let (ok, _, err) = colony(&["view", run.to_str().unwrap()]);
    assert!(
        !ok && err.contains("single.jsonl:2: not an item result"),
        "{err}"
    );
}
