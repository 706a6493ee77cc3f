//! Dataset loaders on the sample files, selection (MASLab subset, seeded sample,
//! offset/limit), and bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use colony_qa::{
    gpqa_order, load, maslab_subset, select, AnswerFamily, AnswerType, Dataset, Format, Item,
    LoadError, LoadOptions, Location, Selection,
};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(name)
}

fn load_ok(dataset: Dataset, name: &str) -> Vec<Item> {
    let loaded = load(dataset, &sample(name), &strict()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(loaded.skipped.is_empty());
    loaded.items
}

fn ids(items: &[Item]) -> Vec<&str> {
    items.iter().map(|i| i.id.as_str()).collect()
}

fn golds(items: &[Item]) -> Vec<&str> {
    items.iter().map(|i| i.gold.as_str()).collect()
}

fn write(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

/// The items of `content`, written to a file called `name`, loaded strictly as `dataset`.
fn load_written(dataset: Dataset, name: &str, content: &[u8]) -> Vec<Item> {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), name, content);
    load(dataset, &p, &strict()).unwrap().items
}

fn strict() -> LoadOptions {
    LoadOptions {
        strict: true,
        ..LoadOptions::default()
    }
}

// ---------------------------------------------------------------- sample files

#[test]
fn gsm8k_sample() {
    let items = load_ok(Dataset::Gsm8k, "gsm8k.jsonl");
    assert_eq!(items.len(), 12);
    assert_eq!(ids(&items)[..3], ["0", "1", "2"]);
    assert_eq!(
        golds(&items),
        ["7", "29", "270", "10", "36", "30000", "55", "-7", "276", "13", "16", "24"]
    );
    assert!(items[0].question.starts_with("A baker makes 36 muffins."));
    assert!(!items[0].question.contains("Choose"));
    assert_eq!(items[0].answer_type, AnswerType::Numeric);
    assert!(items[0].choices.is_empty());
}

#[test]
fn gsm_hard_sample() {
    let items = load_ok(Dataset::GsmHard, "gsm-hard.jsonl");
    assert_eq!(items.len(), 10);
    assert_eq!(
        golds(&items),
        [
            "687",
            "25241",
            "142.85714285714286",
            "-177",
            "466666.6",
            "3604938195",
            "24",
            "463.6666666666667",
            "1600",
            "28860"
        ]
    );
    assert!(items[2].question.starts_with("A train covers 1000 miles"));
    assert_eq!(items[9].id, "9");
    assert_eq!(items[0].answer_type, AnswerType::Numeric);
}

#[test]
fn math500_sample() {
    let items = load_ok(Dataset::Math, "math-500.jsonl");
    assert_eq!(items.len(), 14);
    assert_eq!(items[0].id, "sample/algebra/1.json");
    assert_eq!(items[2].gold, r"\frac{3}{4}");
    assert_eq!(items[7].gold, r"\frac{\sqrt{3}}{2}");
    assert_eq!(items[13].gold, "-1, 4");
    assert_eq!(items[0].question, "Solve for $x$: $3x + 7 = 22$.");
    assert_eq!(items[0].answer_type, AnswerType::MathExpr);
    assert_eq!(items[5].meta["subject"], "Counting & Probability");
    assert_eq!(items[6].meta["level"], 3);
}

/// The same problems as original MATH rows (problem/level/type/solution): gold = the last
/// `\boxed{}` of the solution, which must equal MATH-500's `answer` for every sample.
#[test]
fn original_math_rows_take_the_last_box() {
    let text = std::fs::read_to_string(sample("math-500.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut lines = String::new();
    for (i, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let o = serde_json::json!({
            "problem": v["problem"],
            "level": format!("Level {}", v["level"]),
            "type": v["subject"],
            "solution": v["solution"],
        });
        lines.push_str(&format!("{o}\n"));
        // Also as a directory of one-object .json files.
        let sub = dir.path().join("test").join("algebra");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            sub.join(format!("{}.json", i + 1)),
            serde_json::to_string_pretty(&o).unwrap(),
        )
        .unwrap();
    }
    let p = write(dir.path(), "math.jsonl", lines.as_bytes());
    let original = load(Dataset::Math, &p, &strict()).unwrap().items;
    let m500 = load_ok(Dataset::Math, "math-500.jsonl");
    assert_eq!(golds(&original), golds(&m500));
    assert_eq!(original[0].id, "0");
    assert_eq!(original[0].meta["level"], "Level 1");
    assert_eq!(original[0].meta["subject"], "Algebra");

    let from_dir = load(Dataset::Math, &dir.path().join("test"), &strict())
        .unwrap()
        .items;
    // Natural order: 1.json, 2.json, …, 10.json.
    assert_eq!(from_dir[1].id, "algebra/2.json");
    assert_eq!(from_dir[9].id, "algebra/10.json");
    assert_eq!(golds(&from_dir), golds(&m500));

    // Nested braces and the *last* box win.
    let p = write(
        dir.path(),
        "nested.jsonl",
        br#"{"problem": "p", "level": "Level 2", "type": "Algebra", "solution": "First \\boxed{1}, then $\\boxed{\\frac{a}{b^{2}}}$."}"#,
    );
    let items = load(Dataset::Math, &p, &strict()).unwrap().items;
    assert_eq!(items[0].gold, r"\frac{a}{b^{2}}");
}

#[test]
fn aqua_rat_sample() {
    let items = load_ok(Dataset::AquaRat, "aqua-rat.jsonl");
    assert_eq!(items.len(), 12);
    assert_eq!(
        items[0].question,
        "A shopkeeper sells a lamp for $120 and makes a profit of 20%. What did the lamp cost \
         him? Choose the correct answer from the following options:\nA)$90\nB)$96\nC)$100\n\
         D)$104\nE)$110"
    );
    assert_eq!(items[0].choices, ["$90", "$96", "$100", "$104", "$110"]);
    assert_eq!(
        golds(&items),
        ["C", "B", "C", "D", "B", "B", "D", "C", "C", "C", "B", "D"]
    );
    assert_eq!(
        items[1].answer_type,
        AnswerType::Choice {
            options: items[1].choices.clone()
        }
    );
    assert_eq!(items[1].answer_type.letters(), ['A', 'B', 'C', 'D', 'E']);
}

const MMLU_GOLDS: [&str; 12] = ["A", "B", "C", "D", "A", "C", "B", "D", "C", "B", "A", "B"];

#[test]
fn mmlu_csv_and_parquet_samples_agree() {
    let csv = load_ok(Dataset::Mmlu, "mmlu.csv");
    let pq = load_ok(Dataset::Mmlu, "mmlu.parquet");
    assert_eq!(csv.len(), 12);
    assert_eq!(golds(&csv), MMLU_GOLDS);
    assert_eq!(ids(&csv)[..2], ["0", "1"]);
    assert_eq!(
        csv[0].question,
        "The following is a multiple-choice question:\nWhat is the chemical symbol for \
         sodium?\n\nChoose the correct answer from the following options:\n(A) Na\n(B) So\n\
         (C) Sd\n(D) Nd"
    );
    assert_eq!(csv[0].choices, ["Na", "So", "Sd", "Nd"]);
    // The parquet copy holds the same questions, with a subject column.
    for (a, b) in csv.iter().zip(&pq) {
        assert_eq!(a.question, b.question);
        assert_eq!(a.choices, b.choices);
        assert_eq!(a.gold, b.gold);
        assert_eq!(a.id, b.id);
    }
    assert_eq!(pq[1].meta["subject"], "astronomy");
    assert!(csv[0].meta.is_empty());
    // A quoted CSV cell with embedded quotes and a comma.
    assert!(csv[10]
        .question
        .contains("\"She has lived here ___ 2015.\""));
}

#[test]
fn mmlu_csv_subject_comes_from_the_file_name() {
    let items = load_written(
        Dataset::Mmlu,
        "abstract_algebra_test.csv",
        b"\"Find the order of 2 in Z_5, the integers modulo 5 under addition.\",1,2,5,10,C\n",
    );
    assert_eq!(items[0].meta["subject"], "abstract_algebra");
    assert_eq!(items[0].gold, "C");
}

#[test]
fn mmlu_pro_sample_drops_na_padding() {
    let items = load_ok(Dataset::MmluPro, "mmlu-pro.parquet");
    assert_eq!(items.len(), 11);
    assert_eq!(items[0].id, "9001");
    assert_eq!(
        golds(&items),
        ["B", "C", "D", "C", "B", "C", "B", "C", "A", "C", "B"]
    );
    let blood = &items[5];
    assert_eq!(blood.choices.len(), 6);
    assert!(!blood.question.contains("N/A"));
    assert!(blood.question.ends_with("\n(F) Lymphocytes"));
    assert_eq!(blood.answer_type.letters(), ['A', 'B', 'C', 'D', 'E', 'F']);
    assert_eq!(items[6].choices.len(), 8);
    assert!(items[0].question.starts_with(
        "The following is a multiple-choice question:\nWhat is the sum of the interior angles"
    ));
    assert!(items[0].question.ends_with("\n(I) 630\n(J) 810"));
    assert_eq!(items[0].meta["subject"], "math");
    assert_eq!(items[0].meta["src"], "ori_mmlu-high_school_mathematics");
    assert_eq!(items[7].choices[4], "René Descartes");
}

#[test]
fn mmlu_pro_relabels_after_padding_in_the_middle() {
    let items = load_written(
        Dataset::MmluPro,
        "pro.jsonl",
        br#"{"question_id": 5, "question": "q", "options": ["a", "N/A", "b", "c"], "answer": "D", "answer_index": 3, "category": "math", "src": "x"}"#,
    );
    assert_eq!(items[0].choices, ["a", "b", "c"]);
    assert_eq!(items[0].gold, "C");
}

/// Expected option orders from CPython: `random.Random(seed).shuffle([0, 1, 2, 3])` with
/// seed = first 8 bytes (little-endian) of SHA-256("gpqa|" + Record ID).
const GPQA_ORDERS: [[usize; 4]; 10] = [
    [2, 3, 0, 1],
    [1, 2, 0, 3],
    [2, 1, 0, 3],
    [0, 3, 1, 2],
    [3, 1, 2, 0],
    [1, 3, 2, 0],
    [2, 0, 3, 1],
    [1, 2, 0, 3],
    [0, 1, 2, 3],
    [0, 3, 2, 1],
];

#[test]
fn gpqa_sample_is_shuffled_per_record_id() {
    let items = load_ok(Dataset::Gpqa, "gpqa.csv");
    assert_eq!(items.len(), 10);
    assert_eq!(items[0].id, "recColonySample01");
    for (i, it) in items.iter().enumerate() {
        assert_eq!(gpqa_order(&it.id), GPQA_ORDERS[i], "{}", it.id);
        let want = GPQA_ORDERS[i].iter().position(|&k| k == 0).unwrap();
        assert_eq!(it.gold, ((b'A' + want as u8) as char).to_string());
    }
    assert_eq!(
        golds(&items),
        ["C", "C", "C", "A", "D", "D", "B", "C", "A", "A"]
    );
    // [correct, inc1, inc2, inc3] = [2.48, 1.24, "4.96\n", 0.62] in order [2, 3, 0, 1].
    assert_eq!(
        items[0].choices,
        ["4.96 eV", "0.62 eV", "2.48 eV", "1.24 eV"]
    );
    assert_eq!(
        items[0].question,
        "A photon has a wavelength of 500 nm in vacuum. Approximately what is its energy?\n\
         \n\nChoose the correct answer from the following options:\n(A) 4.96 eV\n(B) 0.62 eV\n\
         (C) 2.48 eV\n(D) 1.24 eV"
    );
    assert_eq!(items[0].meta["subject"], "Physics (general)");
    assert_eq!(items[0].meta["domain"], "Physics");
    // Deterministic across loads.
    assert_eq!(items, load_ok(Dataset::Gpqa, "gpqa.csv"));
}

#[test]
fn gpqa_correct_first_puts_the_answer_at_a() {
    let opts = LoadOptions {
        strict: true,
        gpqa_correct_first: true,
        ..LoadOptions::default()
    };
    let items = load(Dataset::Gpqa, &sample("gpqa.csv"), &opts)
        .unwrap()
        .items;
    assert!(items.iter().all(|i| i.gold == "A"));
    assert_eq!(
        items[0].choices,
        ["2.48 eV", "1.24 eV", "4.96 eV", "0.62 eV"]
    );
}

#[test]
fn aime_sample_and_lower_case_variant() {
    let items = load_ok(Dataset::Aime2024, "aime-2024.parquet");
    assert_eq!(items.len(), 10);
    assert_eq!(items[0].id, "2024-S-1");
    assert_eq!(
        golds(&items),
        ["30", "401", "40", "500", "84", "208", "105", "81", "40", "370"]
    );
    assert_eq!(items[0].answer_type, AnswerType::Integer);
    assert!(items[0]
        .question
        .starts_with("Find the number of positive divisors"));

    let items = load_written(
        Dataset::Aime2024,
        "aime.jsonl",
        br#"{"id": 60, "problem": "Find 1+1.", "solution": "It is 2.", "answer": "002", "url": "u", "year": "2024"}"#,
    );
    assert_eq!(items[0].id, "60");
    assert_eq!(items[0].gold, "2");
    assert_eq!(items[0].meta["year"], "2024");
}

#[test]
fn every_dataset_accepts_jsonl_with_published_field_names() {
    let dir = tempfile::tempdir().unwrap();
    let rows: [(Dataset, &str, &str); 3] = [
        (
            Dataset::Mmlu,
            r#"{"question": "q", "subject": "s", "choices": ["a", "b", "c", "d"], "answer": 2}"#,
            "C",
        ),
        (
            Dataset::Gpqa,
            r#"{"Question": "q", "Correct Answer": "x", "Incorrect Answer 1": "y", "Incorrect Answer 2": "z", "Incorrect Answer 3": "w", "Record ID": "recColonySample05"}"#,
            "D",
        ),
        (
            Dataset::Aime2024,
            r#"{"ID": "2024-II-3", "Problem": "p", "Solution": "s", "Answer": 33}"#,
            "33",
        ),
    ];
    for (ds, row, gold) in rows {
        let p = write(dir.path(), &format!("{ds}.jsonl"), row.as_bytes());
        let items = load(ds, &p, &strict()).unwrap().items;
        assert_eq!(items[0].gold, gold, "{ds}");
    }
}

#[test]
fn json_array_document_and_format_override() {
    let items = load_written(
        Dataset::Gsm8k,
        "data.json",
        b"[{\"question\": \"a\", \"answer\": \"#### 1\"}, {\"question\": \"b\", \"answer\": \"#### 2\"}]",
    );
    assert_eq!(golds(&items), ["1", "2"]);

    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "data.txt",
        b"{\"question\": \"a\", \"answer\": \"#### 3\"}\n",
    );
    let err = load(Dataset::Gsm8k, &p, &strict()).unwrap_err();
    assert!(matches!(err, LoadError::UnknownFormat { .. }), "{err}");
    assert!(err.to_string().contains("data.txt"));
    let opts = LoadOptions {
        format: Some(Format::Jsonl),
        ..strict()
    };
    assert_eq!(load(Dataset::Gsm8k, &p, &opts).unwrap().items[0].gold, "3");
}

// ---------------------------------------------------------------- names

#[test]
fn dataset_names_round_trip_and_errors_list_valid_names() {
    for &d in Dataset::all() {
        assert_eq!(d.name().parse::<Dataset>().unwrap(), d);
        assert!(!d.description().is_empty() && !d.format_help().is_empty());
    }
    assert_eq!("MATH-500".parse::<Dataset>().unwrap(), Dataset::Math);
    assert_eq!("mmlu_pro".parse::<Dataset>().unwrap(), Dataset::MmluPro);
    let err = "gsm9k".parse::<Dataset>().unwrap_err().to_string();
    assert!(err.contains("gsm9k") && err.contains("gsm-hard") && err.contains("aime-2024"));
    assert_eq!(Dataset::Gpqa.answer_family(), AnswerFamily::Choice);
    assert_eq!(Dataset::Aime2024.answer_family(), AnswerFamily::Integer);
    assert_eq!("Parquet".parse::<Format>().unwrap(), Format::Parquet);
    assert!("xlsx".parse::<Format>().is_err());
}

// ---------------------------------------------------------------- selection

fn synthetic(n: usize) -> Vec<Item> {
    (0..n)
        .map(|i| Item {
            id: i.to_string(),
            question: format!("q{i}"),
            choices: Vec::new(),
            gold: "0".into(),
            answer_type: AnswerType::Numeric,
            meta: BTreeMap::new(),
        })
        .collect()
}

#[test]
fn maslab_subset_reproduces_the_spec_shuffle_vectors() {
    for (n, size, first) in [
        (254usize, 254usize, ["56", "156", "153", "177", "122"]),
        (1319, 500, ["1230", "739", "97", "778", "584"]),
        (14042, 500, ["1348", "13230", "4199", "2331", "11765"]),
        (12032, 500, ["1960", "10726", "8966", "4541", "4973"]),
    ] {
        let sub = maslab_subset(synthetic(n));
        assert_eq!(sub.len(), size, "n = {n}");
        assert_eq!(ids(&sub)[..5], first, "n = {n}");
    }
    let ten: Vec<String> = maslab_subset(synthetic(10))
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(ten, ["6", "0", "9", "8", "3", "5", "1", "4", "2", "7"]);
}

#[test]
fn maslab_subset_truncates_then_deduplicates() {
    // Questions repeat for i >= 1000; CPython gives 454 distinct among the first 500.
    let mut items = synthetic(1319);
    for it in &mut items[1000..] {
        let i: usize = it.id.parse().unwrap();
        it.question = format!("q{}", i % 1000);
    }
    let sub = maslab_subset(items);
    assert_eq!(sub.len(), 454);
    assert_eq!(ids(&sub)[..5], ["1230", "739", "97", "778", "584"]);
    assert_eq!(ids(&sub)[451..], ["189", "980", "386"]);
}

#[test]
fn seeded_sample_is_stable_differs_by_seed_and_keeps_order() {
    let pick = |seed| {
        let sel = Selection {
            sample: Some((10, seed)),
            ..Selection::default()
        };
        select(synthetic(100), &sel)
            .into_iter()
            .map(|i| i.id)
            .collect::<Vec<_>>()
    };
    // CPython: random.seed(7); idx = list(range(100)); random.shuffle(idx); sorted(idx[:10])
    assert_eq!(
        pick(7),
        ["1", "21", "25", "33", "78", "81", "82", "84", "93", "99"]
    );
    assert_eq!(pick(7), pick(7));
    assert_eq!(
        pick(8),
        ["0", "7", "35", "36", "43", "50", "56", "61", "77", "80"]
    );
    let all = Selection {
        sample: Some((500, 1)),
        ..Selection::default()
    };
    assert_eq!(select(synthetic(20), &all).len(), 20);
}

#[test]
fn offset_and_limit_apply_last() {
    let sel = Selection {
        offset: 3,
        limit: Some(4),
        ..Selection::default()
    };
    assert_eq!(ids(&select(synthetic(10), &sel)), ["3", "4", "5", "6"]);
    let sel = Selection {
        offset: 8,
        limit: Some(4),
        ..Selection::default()
    };
    assert_eq!(ids(&select(synthetic(10), &sel)), ["8", "9"]);
    let sel = Selection {
        offset: 2,
        limit: Some(2),
        maslab: true,
        ..Selection::default()
    };
    assert_eq!(ids(&select(synthetic(254), &sel)), ["153", "177"]);
    let sel = Selection {
        offset: 20,
        ..Selection::default()
    };
    assert!(select(synthetic(10), &sel).is_empty());
}

// ---------------------------------------------------------------- bad input

const GSM_BAD: &[u8] = b"{\"question\": \"a\", \"answer\": \"#### 1\"}\n\
{\"question\": \"b\", \"answer\": \"#### 2\"\n\
\n\
{\"question\": \"c\"}\n\
{\"question\": \"d\", \"answer\": \"#### 4\"}\n";

#[test]
fn malformed_rows_fail_in_strict_mode_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bad.jsonl", GSM_BAD);
    let err = load(Dataset::Gsm8k, &p, &strict()).unwrap_err();
    let LoadError::Row(row) = &err else {
        panic!("{err}")
    };
    assert_eq!(row.location, Location::Line(2));
    assert_eq!(row.path, p);
    let msg = err.to_string();
    assert!(msg.contains("bad.jsonl") && msg.contains("line 2"), "{msg}");
}

#[test]
fn malformed_rows_are_skipped_otherwise_and_ids_keep_row_positions() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bad.jsonl", GSM_BAD);
    let loaded = load(Dataset::Gsm8k, &p, &LoadOptions::default()).unwrap();
    assert_eq!(golds(&loaded.items), ["1", "4"]);
    // Ids are row positions among the non-blank lines, counting the malformed ones.
    assert_eq!(ids(&loaded.items), ["0", "3"]);
    assert_eq!(loaded.skipped.len(), 2);
    assert_eq!(loaded.skipped[0].location, Location::Line(2));
    assert_eq!(loaded.skipped[1].location, Location::Line(4));
    // A missing field names the field.
    assert_eq!(loaded.skipped[1].field.as_deref(), Some("answer"));
    let msg = loaded.skipped[1].to_string();
    assert!(msg.contains("line 4") && msg.contains("\"answer\"") && msg.contains("missing"));
}

#[test]
fn missing_fields_and_bad_values_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(Dataset, &str, &str); 6] = [
        (Dataset::GsmHard, r#"{"input": "q"}"#, "target"),
        (Dataset::Math, r#"{"problem": "p"}"#, "answer"),
        (
            Dataset::Math,
            r#"{"problem": "p", "solution": "no box"}"#,
            "solution",
        ),
        (
            Dataset::AquaRat,
            r#"{"question": "q", "options": ["A)1", "B)2"], "correct": "E"}"#,
            "correct",
        ),
        (
            Dataset::Mmlu,
            r#"{"question": "q", "choices": ["a", "b", "c", "d"], "answer": 7}"#,
            "answer",
        ),
        (
            Dataset::Gpqa,
            r#"{"Question": "q", "Correct Answer": "x", "Incorrect Answer 1": "y", "Incorrect Answer 2": "z", "Incorrect Answer 3": "w"}"#,
            "Record ID",
        ),
    ];
    for (ds, row, field) in cases {
        let p = write(dir.path(), "row.jsonl", row.as_bytes());
        let err = load(ds, &p, &strict()).unwrap_err();
        let LoadError::Row(e) = &err else {
            panic!("{ds}: {err}")
        };
        assert_eq!(e.field.as_deref(), Some(field), "{ds}: {err}");
        assert!(err.to_string().contains(field), "{err}");
    }
}

#[test]
fn csv_rows_with_the_wrong_field_count_name_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "m.csv",
        b"q1,a,b,c,d,A\n\"q2\nspans lines\",a,b,c,d,B\nq3,a,b,c,D\n\nq4,a,b,c,d,C\n",
    );
    let loaded = load(Dataset::Mmlu, &p, &LoadOptions::default()).unwrap();
    assert_eq!(golds(&loaded.items), ["A", "B", "C"]);
    assert_eq!(loaded.skipped[0].location, Location::Line(4));
    assert!(loaded.skipped[0].message.contains("5 fields"));
    assert_eq!(loaded.skipped.len(), 1, "a blank line is not a row");
    let err = load(Dataset::Mmlu, &p, &strict()).unwrap_err().to_string();
    assert!(err.contains("m.csv, line 4"), "{err}");
}

#[test]
fn non_utf8_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "latin1.jsonl",
        b"{\"question\": \"a\", \"answer\": \"#### 1\"}\n{\"question\": \"caf\xe9\", \"answer\": \"#### 2\"}\n",
    );
    for opts in [LoadOptions::default(), strict()] {
        let err = load(Dataset::Gsm8k, &p, &opts).unwrap_err();
        assert!(
            matches!(
                err,
                LoadError::NotUtf8 {
                    location: Location::Line(2),
                    ..
                }
            ),
            "{err}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains("latin1.jsonl") && msg.contains("UTF-8"),
            "{msg}"
        );
    }
    let p = write(dir.path(), "latin1.csv", b"caf\xe9,a,b,c,d,A\n");
    let err = load(Dataset::Mmlu, &p, &strict()).unwrap_err();
    assert!(matches!(err, LoadError::NotUtf8 { .. }), "{err}");
}

#[test]
fn whole_file_problems_are_errors_even_when_not_strict() {
    let dir = tempfile::tempdir().unwrap();
    let lenient = LoadOptions::default();

    let p = write(dir.path(), "empty.jsonl", b"\n\n");
    let err = load(Dataset::Gsm8k, &p, &lenient).unwrap_err();
    assert!(matches!(err, LoadError::Empty { .. }), "{err}");

    // Every row lacks the dataset's fields (wrong dataset for the file).
    let err = load(Dataset::GsmHard, &sample("gsm8k.jsonl"), &lenient).unwrap_err();
    let LoadError::NoValidRows { count, first, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(*count, 12);
    assert_eq!(first.field.as_deref(), Some("input"));

    let p = write(dir.path(), "fake.parquet", b"not parquet at all");
    let err = load(Dataset::Mmlu, &p, &lenient).unwrap_err();
    assert!(matches!(err, LoadError::Format { .. }), "{err}");
    assert!(err.to_string().contains("fake.parquet"));

    let mixed = dir.path().join("mixed");
    std::fs::create_dir(&mixed).unwrap();
    write(&mixed, "a_test.csv", b"q,a,b,c,d,A\n");
    write(&mixed, "b.jsonl", b"{}\n");
    let err = load(Dataset::Mmlu, &mixed, &lenient).unwrap_err();
    assert!(err.to_string().contains("several formats"), "{err}");
    let csv_only = LoadOptions {
        format: Some(Format::Csv),
        ..LoadOptions::default()
    };
    assert_eq!(
        load(Dataset::Mmlu, &mixed, &csv_only).unwrap().items[0].meta["subject"],
        "a"
    );

    let err = load(Dataset::Mmlu, &dir.path().join("missing.csv"), &lenient).unwrap_err();
    assert!(matches!(err, LoadError::Io { .. }), "{err}");
    assert!(err.to_string().contains("missing.csv"));
}

#[test]
fn python_nonfinite_json_keeps_the_row() {
    let items = load_written(
        Dataset::GsmHard,
        "h.jsonl",
        b"{\"input\": \"a\", \"code\": \"\", \"target\": NaN}\n{\"input\": \"b\", \"code\": \"\", \"target\": 2.5}\n",
    );
    assert_eq!(golds(&items), ["NaN", "2.5"]);
}

#[test]
fn humaneval_reads_gzip_as_published_and_plain_jsonl_alike() {
    let items = load_ok(Dataset::HumanEval, "humaneval.jsonl.gz");
    assert_eq!(ids(&items), ["Sample/0", "Sample/1", "Sample/2"]);
    assert_eq!(golds(&items)[0], "    return a + b\n");
    match &items[1].answer_type {
        AnswerType::Code { entry_point, test } => {
            assert_eq!(entry_point, "is_palindrome");
            assert!(test.starts_with("def check(candidate):"));
        }
        other => panic!("{other:?}"),
    }
    assert!(items[0]
        .prompt()
        .contains("```python\ndef add(a: int, b: int) -> int:"));
    assert_eq!(Dataset::HumanEval.answer_family(), AnswerFamily::Code);
    assert_eq!("human_eval".parse::<Dataset>().unwrap(), Dataset::HumanEval);

    // The same rows uncompressed; a gzip that is not one, and a row without tests, are errors
    // naming the file and the field.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(
            std::fs::File::open(sample("humaneval.jsonl.gz")).unwrap(),
        ),
        &mut text,
    )
    .unwrap();
    let plain = dir.path().join("he.jsonl");
    std::fs::write(&plain, &text).unwrap();
    let again = load(Dataset::HumanEval, &plain, &strict()).unwrap().items;
    assert_eq!(again, items);
    let bad_gz = dir.path().join("bad.jsonl.gz");
    std::fs::write(&bad_gz, "not gzip").unwrap();
    let err = load(Dataset::HumanEval, &bad_gz, &strict())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("bad.jsonl.gz") && err.contains("gzip"),
        "{err}"
    );
    let no_test = dir.path().join("no_test.jsonl");
    std::fs::write(
        &no_test,
        r#"{"task_id": "X/0", "prompt": "def f():\n", "canonical_solution": "", "entry_point": "f"}"#,
    )
    .unwrap();
    let err = load(Dataset::HumanEval, &no_test, &strict())
        .unwrap_err()
        .to_string();
    assert!(err.contains("test"), "{err}");
}

/// A file whose columns are not the dataset's: the error lists the columns and suggests the
/// `--field` mapping (a column named like the field when there is one).
#[test]
fn a_missing_field_error_lists_the_columns_and_suggests_a_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("renamed.jsonl");
    std::fs::write(
        &path,
        "{\"id\": \"a\", \"problem\": \"What is 2+2?\", \"solution\": \"#### 4\"}\n",
    )
    .unwrap();
    let err = load(Dataset::Gsm8k, &path, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the file's columns are: id, problem, solution"),
        "{err}"
    );
    assert!(err.contains("--field question=problem"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
