//! The offline simulated model on every dataset loader: keyed with the bundled
//! sample's items, each of its answers extracts and grades, and its measured accuracy sits
//! within the 99.9% binomial interval of the configured accuracy.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use colony::eval::{build_model, CallRouting};
use colony::llm::{ChatRequest, Message, ModelOverrides, ModelsConfig};
use colony_qa::{grade, load, Dataset, Item, JudgeOptions, LoadOptions};

/// The configured accuracy of the built-in simulated model.
const ACCURACY: f64 = 0.6;
/// Two-sided 99.9% normal quantile.
const Z: f64 = 3.29;
/// Draws per dataset (items × sample indices).
const DRAWS: usize = 1200;

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("environments/qa/samples")
        .join(name)
}

const SAMPLES: [(Dataset, &str); 9] = [
    (Dataset::Gsm8k, "gsm8k.jsonl"),
    (Dataset::GsmHard, "gsm-hard.jsonl"),
    (Dataset::Math, "math-500.jsonl"),
    (Dataset::AquaRat, "aqua-rat.jsonl"),
    (Dataset::Mmlu, "mmlu.csv"),
    (Dataset::Mmlu, "mmlu.parquet"),
    (Dataset::MmluPro, "mmlu-pro.parquet"),
    (Dataset::Gpqa, "gpqa.csv"),
    (Dataset::Aime2024, "aime-2024.parquet"),
];

fn items(dataset: Dataset, file: &str) -> Vec<Item> {
    let opts = LoadOptions {
        strict: true,
        ..LoadOptions::default()
    };
    load(dataset, &sample(file), &opts)
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .items
}

/// Correct answers and failures (reply, item) over `DRAWS` single-call answers.
async fn measure(items: &[Item]) -> (usize, usize, Vec<String>) {
    let spec = ModelsConfig::default()
        .resolve(Some("sim"), &ModelOverrides::default())
        .unwrap();
    let model = build_model(
        &spec,
        items,
        CallRouting::Live,
        &colony::registry::Registry::builtin().responders(),
    )
    .unwrap();
    let (mut correct, mut n, mut failures) = (0, 0, Vec::new());
    let rounds = DRAWS.div_ceil(items.len());
    for r in 0..rounds {
        for item in items {
            // The request of the `single` policy: the item's prompt, a per-call seed.
            let request = ChatRequest::new(vec![Message::user(item.prompt())])
                .seed(r as u64)
                .sample_index(u32::try_from(r).unwrap());
            let reply = model.chat(&request).await.unwrap();
            let verdict = grade(&reply.text, item, &JudgeOptions::default());
            n += 1;
            correct += usize::from(verdict.correct);
            if verdict.extracted.is_none() && failures.len() < 5 {
                failures.push(format!(
                    "item {} (gold {}): {:?}",
                    item.id, item.gold, reply.text
                ));
            } else if verdict.extracted.is_none() {
                failures.push(String::new());
            }
        }
    }
    (correct, n, failures)
}

#[tokio::test]
async fn simulated_answers_extract_and_score_the_configured_accuracy_on_every_loader() {
    let mut report = Vec::new();
    for (dataset, file) in SAMPLES {
        let items = items(dataset, file);
        assert!(!items.is_empty(), "{file}");
        let (correct, n, failures) = measure(&items).await;
        let acc = correct as f64 / n as f64;
        let half = Z * (ACCURACY * (1.0 - ACCURACY) / n as f64).sqrt();
        let ok = failures.is_empty() && (acc - ACCURACY).abs() <= half;
        report.push(format!(
            "{file}: accuracy {acc:.4} over {n} draws (interval {:.4}..{:.4}), {} unextracted{}",
            ACCURACY - half,
            ACCURACY + half,
            failures.len(),
            if ok {
                String::new()
            } else {
                format!(" e.g. {:?}", &failures[..failures.len().min(2)])
            }
        ));
        assert!(ok, "{}", report.join("\n"));
    }
    eprintln!("{}", report.join("\n"));
}
