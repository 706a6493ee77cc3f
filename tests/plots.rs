//! Plots a paper can use: every plot kind, drawn from real runs and from
//! hostile inputs (long names, values over seven orders of magnitude, one value, NaN), keeps
//! its drawing inside the canvas, its text apart, and comes as SVG and PNG; simulated runs say
//! SIMULATION on every plot. The SVGs are measured with usvg and the font colony compiles in,
//! independently of the layout code that placed them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use colony::eval::plot::{
    bubble_chart, error_bar_chart, line_chart, Bubble, Caption, Line, MeanBar, HEIGHT, WIDTH,
};
use common::eval_run::{eval_on, gsm8k_sample};
use common::{assert_ok, colony, colony_cmd, compare_args};
use resvg::usvg;

/// Every text of an SVG with its box on the canvas.
fn texts(svg: &Path) -> (Vec<(String, usvg::Rect)>, usvg::Rect) {
    let mut options = usvg::Options::default();
    let font = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/fonts/DejaVuSans.ttf");
    options
        .fontdb_mut()
        .load_font_data(std::fs::read(font).unwrap());
    options.fontdb_mut().set_sans_serif_family("DejaVu Sans");
    let data = std::fs::read(svg).unwrap();
    let tree = usvg::Tree::from_data(&data, &options).unwrap();
    fn walk(g: &usvg::Group, out: &mut Vec<(String, usvg::Rect)>) {
        for node in g.children() {
            match node {
                usvg::Node::Group(g) => walk(g, out),
                usvg::Node::Text(t) => {
                    let s: String = t.chunks().iter().map(|c| c.text()).collect();
                    out.push((s, t.abs_bounding_box()));
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(tree.root(), &mut out);
    (out, tree.root().abs_stroke_bounding_box())
}

/// Checks one plot: inside the canvas, no two texts overlapping, a PNG of the canvas size
/// beside it, and the SIMULATION line when `simulated`. Returns its texts.
fn check_plot(svg: &Path, simulated: bool) -> Vec<String> {
    let (texts, all) = texts(svg);
    let (w, h) = (WIDTH as f32, HEIGHT as f32);
    let inside = |r: &usvg::Rect| {
        r.left() >= -0.5 && r.top() >= -0.5 && r.right() <= w + 0.5 && r.bottom() <= h + 0.5
    };
    assert!(
        inside(&all),
        "{}: drawing {all:?} leaves the {w}x{h} canvas",
        svg.display()
    );
    for (i, (a, ra)) in texts.iter().enumerate() {
        assert!(
            inside(ra),
            "{}: text {a:?} at {ra:?} is clipped",
            svg.display()
        );
        for (b, rb) in &texts[i + 1..] {
            let overlap = ra.left() < rb.right() - 0.5
                && rb.left() < ra.right() - 0.5
                && ra.top() < rb.bottom() - 0.5
                && rb.top() < ra.bottom() - 0.5;
            assert!(
                !overlap,
                "{}: {a:?} {ra:?} overlaps {b:?} {rb:?}",
                svg.display()
            );
        }
    }
    let png = std::fs::read(svg.with_extension("png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let dim = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((dim(16), dim(20)), (WIDTH, HEIGHT), "{}", svg.display());
    let names: Vec<String> = texts.into_iter().map(|(t, _)| t).collect();
    assert_eq!(
        names.iter().any(|t| t.starts_with("SIMULATION")),
        simulated,
        "{}: {names:?}",
        svg.display()
    );
    names
}

fn svgs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .collect();
    out.sort();
    out
}

#[test]
fn every_plot_of_real_runs_stays_inside_its_canvas() {
    let tmp = tempfile::tempdir().unwrap();
    // eval: the bubble chart.
    let eval = tmp.path().join("eval");
    let out = eval_on(
        "gsm8k",
        &gsm8k_sample(),
        "single;self_consistency:k=3;debate;selforg;single:label=a_much_longer_label_of_single",
        &eval,
    )
    .arg("--quiet")
    .output()
    .unwrap();
    assert_ok(&out);
    // compare: the error bars (policy names on a categorical axis) and the score markers.
    let cmp = tmp.path().join("compare");
    let (ok, _, err) = colony(&compare_args(
        "cube",
        &["--set", "n=2"],
        "independent,scripted:noop,camon,coela,embodied,hmas2",
        &["--seeds", "0..3", "--max-steps", "6"],
        &cmp,
    ));
    assert!(ok, "{err}");
    // The simulation study: line charts.
    let study = tmp.path().join("study");
    assert_ok(
        &colony_cmd(["study", "selforg-amplification", "--out"])
            .arg(&study)
            .args([
                "--items",
                "6",
                "--trials",
                "200",
                "--embedder",
                "hash",
                "--p",
                "0.3,0.7",
            ])
            .output()
            .unwrap(),
    );
    let mut kinds = 0;
    for dir in [&eval, &cmp, &study] {
        for svg in svgs(dir) {
            let texts = check_plot(&svg, true);
            // Useful ticks: no tick label repeated beyond once per axis, and none microscopic
            // (equal scores, all 0 here, were once drawn over 1e-9: ticks -1e-10 … 1e-10).
            let mut ticks: std::collections::BTreeMap<&str, usize> = Default::default();
            for t in texts.iter().filter(|t| t.parse::<f64>().is_ok()) {
                *ticks.entry(t.as_str()).or_default() += 1;
            }
            assert!(
                ticks.values().all(|&n| n <= 2),
                "{}: {ticks:?}",
                svg.display()
            );
            let tiny = |t: &&str| t.parse::<f64>().is_ok_and(|v| v != 0.0 && v.abs() < 1e-3);
            assert!(!ticks.keys().any(tiny), "{}: {ticks:?}", svg.display());
            if dir == &cmp {
                // Titles carry the configuration, not only the environment.
                assert!(
                    texts.iter().any(|t| t.contains("cube-v0, n=2")),
                    "{}: {texts:?}",
                    svg.display()
                );
            }
            if svg.ends_with("score.svg") {
                // Every policy is named under its column, not on a numeric axis.
                for p in ["independent", "scripted:noop", "camon", "hmas2"] {
                    assert!(texts.iter().any(|t| t == p), "{p}: {texts:?}");
                }
            }
            kinds += 1;
        }
    }
    assert!(kinds >= 5, "{kinds} plots");
}

#[test]
fn hostile_inputs_keep_plots_readable() {
    let tmp = tempfile::tempdir().unwrap();
    let long_title =
        "Score per policy, mean and 95% t interval over seeds — wildfire-v0 level=17 — \
                      model a-very-long-model-name-served-by-a-cluster-somewhere-far-away [grid]";
    let caption = Caption::new(long_title, false);
    // Twelve long policy names on the categorical axis.
    let bars: Vec<MeanBar> = (0..12)
        .map(|i| MeanBar {
            label: format!("self_consistency:k={i},label=variant-number-{i}-with-a-long-name"),
            mean: f64::from(i) * 1e6,
            lo: f64::from(i) * 1e6 - 5e5,
            hi: f64::from(i) * 1e6 + 5e5,
        })
        .collect();
    let bars_svg = tmp.path().join("bars.svg");
    error_bar_chart(&bars_svg, &caption, "score", &bars).unwrap();
    let texts = check_plot(&bars_svg, false);
    assert!(
        texts.iter().any(|t| t.ends_with("M")),
        "human ticks: {texts:?}"
    );
    assert!(!texts.iter().any(|t| t.contains("000000")), "{texts:?}");
    // Tokens over seven orders of magnitude: a log axis with human ticks.
    let bubbles: Vec<Bubble> = [10.0, 300.0, 4_000.0, 20_000.0, 12_000_000.0, 12_000_001.0]
        .iter()
        .enumerate()
        .map(|(i, &x)| Bubble {
            label: format!("policy-{i} with a label long enough to collide"),
            x,
            y: 50.0 + i as f64,
            radius: 6 + 4 * i as u32,
            interval: Some([40.0, 60.0 + i as f64]),
        })
        .collect();
    let bubble_svg = tmp.path().join("bubbles.svg");
    bubble_chart(
        &bubble_svg,
        &caption,
        "tokens per query",
        "accuracy (%)",
        None,
        &bubbles,
    )
    .unwrap();
    let texts = check_plot(&bubble_svg, false);
    assert!(texts.iter().any(|t| t.contains("(log scale)")), "{texts:?}");
    assert!(
        texts.iter().any(|t| t == "10k" || t == "1M" || t == "100k"),
        "{texts:?}"
    );
    // Every method 100% correct: the accuracy axis ends at 100, not 200.
    let perfect: Vec<Bubble> = (0..3)
        .map(|i| Bubble {
            label: format!("m{i}"),
            x: 1.0 + f64::from(i),
            y: 100.0,
            radius: 8,
            interval: None,
        })
        .collect();
    let perfect_svg = tmp.path().join("perfect.svg");
    bubble_chart(
        &perfect_svg,
        &caption,
        "tokens per query",
        "accuracy (%)",
        Some((0.0, 100.0)),
        &perfect,
    )
    .unwrap();
    let texts = check_plot(&perfect_svg, false);
    let numbers: Vec<f64> = texts.iter().filter_map(|t| t.parse().ok()).collect();
    assert!(numbers.contains(&100.0), "{texts:?}");
    assert!(
        numbers.iter().all(|&v| (0.0..=100.0).contains(&v)),
        "{texts:?}"
    );
    // A scripted policy's 0 tokens beside models' thousands: symlog, 0 at the origin.
    let mixed: Vec<Bubble> = [0.0, 40.0, 25_000.0]
        .iter()
        .enumerate()
        .map(|(i, &x)| Bubble {
            label: format!("p{i}"),
            x,
            y: 50.0,
            radius: 8,
            interval: None,
        })
        .collect();
    let mixed_svg = tmp.path().join("mixed.svg");
    bubble_chart(&mixed_svg, &caption, "tokens", "score", None, &mixed).unwrap();
    let texts = check_plot(&mixed_svg, false);
    assert!(
        texts
            .iter()
            .any(|t| t.contains("(log scale above 1, linear from 0)")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t == "0") && texts.iter().any(|t| t == "10k"),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.starts_with('-')), "{texts:?}");
    // Lines with NaN, one x value, and thirty series (the legend summarises the rest).
    let lines: Vec<Line> = (0..30)
        .map(|i| Line {
            name: format!("series {i} named at length to fill the legend panel"),
            points: vec![(1.0, f64::from(i) / 30.0), (1.0, f64::NAN)],
            markers_only: i % 2 == 0,
        })
        .collect();
    let line_svg = tmp.path().join("lines.svg");
    line_chart(
        &line_svg,
        &Caption::new("t", true),
        "x",
        "y",
        (0.0, 1.0),
        &lines,
    )
    .unwrap();
    let texts = check_plot(&line_svg, true);
    assert!(texts.iter().any(|t| t.starts_with("… and ")), "{texts:?}");
    // Nothing to plot at all still draws an empty, labelled frame.
    let empty = tmp.path().join("empty.svg");
    error_bar_chart(&empty, &caption, "score", &[]).unwrap();
    check_plot(&empty, false);
}
