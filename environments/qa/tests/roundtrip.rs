//! Gold answers round-trip: every sample item's gold, written the ways models write answers,
//! is graded correct; a different answer is graded incorrect.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use colony_qa::{grade, load, AnswerType, Dataset, Item, JudgeOptions, LoadOptions};

const SAMPLES: [(&str, &str); 9] = [
    ("gsm8k", "gsm8k.jsonl"),
    ("gsm-hard", "gsm-hard.jsonl"),
    ("math", "math-500.jsonl"),
    ("aqua-rat", "aqua-rat.jsonl"),
    ("mmlu", "mmlu.csv"),
    ("mmlu", "mmlu.parquet"),
    ("mmlu-pro", "mmlu-pro.parquet"),
    ("gpqa", "gpqa.csv"),
    ("aime-2024", "aime-2024.parquet"),
];

fn items(name: &str, file: &str) -> Vec<Item> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(file);
    let dataset: Dataset = name.parse().unwrap();
    let loaded = load(
        dataset,
        &path,
        &LoadOptions {
            strict: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert!(
        loaded.items.len() >= 10,
        "{file}: only {} items",
        loaded.items.len()
    );
    loaded.items
}

/// Ways a model states `gold` for this answer type.
fn phrasings(item: &Item) -> Vec<String> {
    let g = &item.gold;
    match &item.answer_type {
        AnswerType::Choice { .. } => vec![
            format!("Let me think.\nThe answer is ({g})."),
            format!("**Answer: {g}**"),
            format!("\\boxed{{{g}}}"),
            format!("After weighing the options, the correct option is {g}."),
        ],
        AnswerType::MathExpr => vec![
            format!("So we get \\boxed{{{g}}}."),
            format!("Final Answer: The final answer is ${g}$. I hope it is correct."),
            format!("The answer is ${g}$"),
        ],
        AnswerType::Numeric | AnswerType::Integer => vec![
            format!("Step 1: compute things.\nThe answer is {g}."),
            format!("Therefore \\boxed{{{g}}}"),
            format!("... and so on.\n#### {g}"),
        ],
        AnswerType::Code { .. } => vec![format!("```python\n{g}```"), g.clone()],
    }
}

/// An answer that is certainly wrong for this item.
fn wrong(item: &Item) -> String {
    match &item.answer_type {
        AnswerType::Choice { .. } => {
            let other = item
                .answer_type
                .letters()
                .into_iter()
                .find(|l| l.to_string() != item.gold)
                .unwrap();
            format!("The answer is ({other}).")
        }
        _ => "The answer is \\boxed{987654321}.".to_string(),
    }
}

#[test]
fn gold_answers_round_trip_through_extraction() {
    let opts = JudgeOptions::default();
    let mut failures = Vec::new();
    for (name, file) in SAMPLES {
        for item in items(name, file) {
            for output in phrasings(&item) {
                let v = grade(&output, &item, &opts);
                if !v.correct {
                    failures.push(format!(
                        "{file} {}: {output:?} → {:?} (gold {})",
                        item.id, v.extracted, item.gold
                    ));
                }
            }
            if grade(&wrong(&item), &item, &opts).correct {
                failures.push(format!(
                    "{file} {}: a wrong answer was graded correct",
                    item.id
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn reference_solutions_grade_correct() {
    // GSM8K's worked solutions end in `#### N` and MATH's in a box: graded as model outputs,
    // they must be correct.
    for (name, file, field) in [
        ("gsm8k", "gsm8k.jsonl", "answer"),
        ("math", "math-500.jsonl", "solution"),
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("samples")
            .join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        for (item, line) in items(name, file).iter().zip(text.lines()) {
            let row: serde_json::Value = serde_json::from_str(line).unwrap();
            let solution = row[field].as_str().unwrap();
            let v = grade(solution, item, &JudgeOptions::default());
            assert!(
                v.correct,
                "{file} {}: reference solution graded {:?} vs gold {}",
                item.id, v.extracted, item.gold
            );
        }
    }
}

#[test]
fn prompts_carry_the_question_and_the_format_instruction() {
    for (name, file) in SAMPLES {
        for item in items(name, file) {
            let p = item.prompt();
            assert!(p.starts_with(&item.question), "{file} {}", item.id);
            match item.answer_type {
                AnswerType::Choice { .. } => assert!(p.ends_with("letter of the correct option.")),
                _ => assert!(p.ends_with("inside \\boxed{}.")),
            }
        }
    }
}
