//! Embedding backends as users call them: hashing, the real all-MiniLM-L6-v2 (when its weights
//! are installed), remote `/v1/embeddings` against `serve-mock`, and `colony embed`.
//!
//! MiniLM tests need the model directory in `$COLONY_MINILM_DIR`
//! (`colony embed fetch-minilm`). Without it they print a visible `SKIPPED` line, unless
//! `COLONY_REQUIRE_MINILM=1` (set by CI, which installs the weights) makes them fail.

// A test crate: helpers fail loudly on anything unexpected.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use colony::embed::{
    cosine_matrix, default_embedder, EmbedError, Embedder, HashingEmbedder, MiniLmEmbedder,
    RemoteEmbedder, MINILM_DIR_ENV,
};
use colony::llm::{SimulatedConfig, SimulatedModel};
use colony::mock_server::{Fault, FaultConfig, MockServer, MockServerConfig};
use common::colony;

fn cos(e: &ndarray::Array2<f32>, i: usize, j: usize) -> f32 {
    e.row(i).dot(&e.row(j))
}

fn texts(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The MiniLM model, or `None` (with a visible message) when it is not installed.
fn minilm() -> Option<MiniLmEmbedder> {
    match std::env::var_os(MINILM_DIR_ENV) {
        Some(_) => Some(MiniLmEmbedder::from_env().unwrap()),
        None => {
            assert!(
                std::env::var("COLONY_REQUIRE_MINILM").as_deref() != Ok("1"),
                "COLONY_REQUIRE_MINILM=1 but {MINILM_DIR_ENV} is not set"
            );
            eprintln!(
                "SKIPPED: {MINILM_DIR_ENV} not set (install with `colony embed fetch-minilm`)"
            );
            None
        }
    }
}

#[tokio::test]
async fn minilm_reproduces_published_similarities() {
    let Some(m) = minilm() else { return };
    assert_eq!(m.dim(), 384);
    // Reference cosines of sentence-transformers/all-MiniLM-L6-v2, as printed by the
    // sentence-transformers documentation ("Semantic Textual Similarity" usage page,
    // sbert.net/docs/sentence_transformer/usage/semantic_textual_similarity.html, and its
    // quickstart): 0.8939, 0.6788, 0.5096, -0.0327.
    let pairs = [
        (
            "The new movie is awesome",
            "The new movie is so great",
            0.8939,
        ),
        (
            "The cat sits outside",
            "The cat plays in the garden",
            0.6788,
        ),
        ("I love pasta", "Do you like pizza?", 0.5096),
        ("A man is playing guitar", "A woman watches TV", -0.0327),
    ];
    for (a, b, want) in pairs {
        let e = m.embed(&texts(&[a, b])).await.unwrap();
        let got = cos(&e, 0, 1);
        assert!(
            (got - want).abs() < 0.01,
            "{a:?} / {b:?}: {got} vs published {want}"
        );
    }
}

#[tokio::test]
async fn minilm_vectors_do_not_depend_on_the_batch() {
    let Some(m) = minilm() else { return };
    let long = "word ".repeat(600); // far beyond the 256-token truncation
    let batch = texts(&[
        &long,
        "The cat sits outside",
        "",
        "A considerably longer sentence about cats, gardens, and the afternoon sun that warms them.",
        "ok",
    ]);
    let together = m.embed(&batch).await.unwrap();
    for (i, t) in batch.iter().enumerate() {
        let alone = m.embed(std::slice::from_ref(t)).await.unwrap();
        let diff = (&alone.row(0) - &together.row(i))
            .mapv(f32::abs)
            .fold(0f32, |a, &b| a.max(b));
        assert!(diff < 1e-5, "text {i} differs by {diff} inside a batch");
        let norm = together.row(i).dot(&together.row(i));
        assert!((norm - 1.0).abs() < 1e-4);
    }
    // Truncation: text beyond 256 tokens does not change the vector.
    let longer = format!("{long} and then something completely different at the very end");
    let e = m.embed(&texts(&[&long, &longer])).await.unwrap();
    assert!(cos(&e, 0, 1) > 0.99999);
    assert_eq!(m.embed(&[]).await.unwrap().nrows(), 0);
}

#[test]
fn minilm_missing_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let err = MiniLmEmbedder::load(dir.path()).unwrap_err();
    assert!(
        matches!(&err, EmbedError::MissingFile { file, .. } if file == "config.json"),
        "{err}"
    );
    std::fs::write(dir.path().join("config.json"), "{}").unwrap();
    std::fs::write(dir.path().join("tokenizer.json"), "{}").unwrap();
    let err = MiniLmEmbedder::load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("model.safetensors") && err.contains("fetch-minilm"),
        "{err}"
    );
    std::fs::write(dir.path().join("model.safetensors"), "not weights").unwrap();
    let err = MiniLmEmbedder::load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("config.json"),
        "a broken config must be named: {err}"
    );
}

#[tokio::test]
async fn hashing_is_deterministic_and_answer_sensitive() {
    let e = default_embedder();
    let v = e
        .embed(&texts(&[
            "The answer is 42.",
            "so the final answer is 42",
            "The answer is 17.",
        ]))
        .await
        .unwrap();
    assert!(
        cos(&v, 0, 1) > cos(&v, 0, 2),
        "{} vs {}",
        cos(&v, 0, 1),
        cos(&v, 0, 2)
    );
    // Pinned buckets: the same text maps to the same features on every platform and release.
    let row = e.embed_one("The answer is 42.");
    let mut top: Vec<(usize, f32)> = row.iter().copied().enumerate().collect();
    top.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then(a.0.cmp(&b.0)));
    let pinned: Vec<(usize, bool)> = top.iter().take(3).map(|&(i, x)| (i, x > 0.0)).collect();
    assert_eq!(pinned, PINNED_TOP3, "hashing features changed: {pinned:?}");
    // Empty and huge inputs do not panic.
    let huge = "lorem ipsum 123 ".repeat(65_536); // 1 MiB
    let m = e.embed(&texts(&["", &huge])).await.unwrap();
    assert!(m.row(0).iter().all(|&x| x == 0.0));
    assert!((m.row(1).dot(&m.row(1)) - 1.0).abs() < 1e-4);
    assert_eq!(
        HashingEmbedder::new(64).embed_sync(&texts(&["x"])).ncols(),
        64
    );
}

/// Top-3 buckets of "The answer is 42." under `hashing-v1-512` (index, positive sign).
const PINNED_TOP3: [(usize, bool); 3] = [(219, false), (432, false), (58, false)];

#[tokio::test]
async fn remote_embedder_against_serve_mock() {
    let mut cfg = MockServerConfig::new(Arc::new(SimulatedModel::new(SimulatedConfig::default())));
    // A fault seed whose first requests include a 500, so the retry path is exercised.
    let faults = (0..)
        .map(|seed| FaultConfig {
            fail_500: 0.3,
            seed,
            ..FaultConfig::default()
        })
        .find(|f| (0..3).any(|seq| f.plan(seq).fault == Fault::ServerError))
        .unwrap();
    cfg.faults = faults;
    let srv = MockServer::start(cfg).await.unwrap();
    let remote = RemoteEmbedder::connect(&srv.base_url(), "hash-embedder", None)
        .await
        .unwrap();
    assert_eq!(remote.dim(), 512);
    let input: Vec<String> = (0..150)
        .map(|i| format!("sentence number {i} about colonies"))
        .collect();
    let got = remote.embed(&input).await.unwrap();
    let local = default_embedder().embed_sync(&input);
    let diff = (&got - &local).mapv(f32::abs).fold(0f32, |a, &b| a.max(b));
    assert!(diff < 1e-6, "remote and local vectors differ by {diff}");
    assert!(
        srv.stats().server_errors > 0,
        "faults were injected and retried"
    );
    let sims = cosine_matrix(&got);
    assert!((sims[[3, 3]] - 1.0).abs() < 1e-5);
}

#[test]
fn embed_command_prints_the_cosine_matrix() {
    let (ok, out, err) = colony(&[
        "embed",
        "--json",
        "The answer is 42.",
        "so the final answer is 42",
        "The answer is 17.",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["embedder"], "hashing-v1-512");
    assert_eq!(v["dim"], 512);
    let c = &v["cosine"];
    assert_eq!(c.as_array().unwrap().len(), 3);
    assert!((c[0][0].as_f64().unwrap() - 1.0).abs() < 1e-5);
    assert_eq!(c[0][1], c[1][0]);
    assert!(c[0][1].as_f64().unwrap() > c[0][2].as_f64().unwrap());

    let (ok, _, err) = colony(&["embed", "--embedder", "bert", "x"]);
    assert!(!ok);
    assert!(err.contains("embedder \"bert\""));
    let (_, _, err) = colony(&["embed", "--embedder", "minilm:/nonexistent/dir", "x"]);
    assert!(err.contains("has no config.json"));
}
