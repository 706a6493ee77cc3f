//! The 80 test cases of docs/design/grading.md §4.8 (extraction + grading of the rule judge),
//! plus cases of our own after them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_qa::grade::{extract, grade, JudgeOptions, Source};
use colony_qa::{AnswerType, Item};

#[derive(Clone, Copy, Debug)]
enum T {
    Num,
    Int,
    Math,
    Mc4,
    Mc10,
    Aqua,
}

fn answer_type(t: T) -> AnswerType {
    let opts = |v: &[&str]| AnswerType::Choice {
        options: v.iter().map(|s| s.to_string()).collect(),
    };
    match t {
        T::Num => AnswerType::Numeric,
        T::Int => AnswerType::Integer,
        T::Math => AnswerType::MathExpr,
        T::Mc4 => opts(&["alpha", "beta", "gamma", "delta"]),
        T::Mc10 => opts(&["o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o9", "o10"]),
        T::Aqua => opts(&["21", "21.5", "22", "22.5", "23"]),
    }
}

fn item(t: T, gold: &str) -> Item {
    Item {
        id: "t".into(),
        question: String::new(),
        choices: Vec::new(),
        gold: gold.into(),
        answer_type: answer_type(t),
        meta: Default::default(),
    }
}

use T::*;

/// (case number, type, model output, gold, correct?)
const SPEC: &[(u32, T, &str, &str, bool)] = &[
    (
        1,
        Num,
        "She earns 6*3 = 18 dollars a day.\nThe answer is 18.",
        "18",
        true,
    ),
    (2, Num, r"The total cost is \$1,200.00", "1200", true),
    (3, Num, "... so 24 + 48 = 72 clips.\n#### 72", "72", true),
    (4, Num, "The answer is 5,000 meters.", "5000", true),
    (5, Num, "Answer: \u{2212}3", "-3", true),
    (
        6,
        Num,
        r"First I got \boxed{18}. Wait, I double-counted Monday. The answer is 20.",
        "20",
        true,
    ),
    (
        7,
        Num,
        "The answer is 18. After 3 more days she would have 54.",
        "18",
        true,
    ),
    (8, Num, r"The answer is 3 \times 6 = 18", "18", true),
    (
        9,
        Num,
        "She has 3 apples and buys 5 more, so 8 apples in total.",
        "8",
        true,
    ),
    (
        10,
        Num,
        "So 8 apples. I checked this in 2 steps.",
        "8",
        false,
    ),
    (11, Num, "The answer is 25%.", "25", true),
    (12, Num, r"\boxed{\$18.50}", "18.5", true),
    (13, Num, "The answer is 1/2.", "0.5", true),
    (14, Num, r"\boxed{\frac{7}{2}}", "3.5", true),
    (15, Num, r"\boxed{3.5 \text{ hours}}", "3.5", true),
    (16, Num, "The answer is 0.333", "0.3333333333333333", true),
    (17, Num, "The answer is 0.3", "0.3333333333333333", false),
    (18, Num, r"\boxed{5,454,400}", "5454400.0", true),
    (
        19,
        Num,
        r"The answer is 1.5 \times 10^{6}.",
        "1500000",
        true,
    ),
    (20, Num, "The answer is 3,5 liters.", "3.5", false),
    (21, Num, "", "0", false),
    (
        22,
        Num,
        "I cannot determine this from the information given.",
        "0",
        false,
    ),
    (23, Num, "**Answer:** 42", "42", true),
    (
        24,
        Num,
        "<think>Maybe the answer is 5.</think>The answer is 7.",
        "7",
        true,
    ),
    (
        25,
        Num,
        "<think>Maybe the answer is 5.</think>The answer is 7.",
        "5",
        false,
    ),
    (26, Int, r"\boxed{033}", "33", true),
    (27, Int, r"\boxed{33.5}", "33", false),
    (28, Math, r"\boxed{\dfrac{1}{2}}", r"\frac12", true),
    (29, Math, r"\boxed{0.5}", r"\frac{1}{2}", true),
    (30, Math, r"\boxed{1/2}", r"\frac{1}{2}", true),
    (
        31,
        Math,
        r"\boxed{\frac{\sqrt{3}}{2}}",
        r"\frac{\sqrt3}{2}",
        true,
    ),
    (32, Math, r"\boxed{x = 5}", "5", true),
    (33, Math, r"\boxed{(2, 5)}", "(2,5)", true),
    (34, Math, r"\boxed{(2,5)}", "[2,5)", false),
    (35, Math, r"\boxed{90^\circ}", "90", true),
    (36, Math, r"\boxed{\text{(C)}}", r"\text{(C)}", true),
    (
        37,
        Math,
        r"\boxed{\frac{a+\sqrt{b}}{c^{2}}}",
        r"\frac{a+\sqrt{b}}{c^2}",
        true,
    ),
    (
        38,
        Math,
        r"Final Answer: The final answer is $\frac{3}{4}$. I hope it is correct.",
        r"\frac34",
        true,
    ),
    (39, Math, r"\boxed{3, 5}", "5, 3", true),
    (40, Math, r"\boxed{10\%}", "10", true),
    (41, Math, r"\boxed{2\sqrt{2}}", r"\sqrt{8}", true),
    (42, Math, r"\boxed{x^2+2x+1}", "(x+1)^2", true),
    (
        43,
        Math,
        r"First \boxed{3}, but rechecking gives \boxed{5}.",
        "5",
        true,
    ),
    (
        44,
        Math,
        r"Thus the value is \boxed{\frac{1}{2}",
        r"\frac{1}{2}",
        false,
    ),
    (45, Math, r"\boxed{-\frac{2}{3}}", r"-\frac23", true),
    (46, Math, r"\boxed{\frac{-2}{3}}", r"-\frac{2}{3}", true),
    (47, Math, r"\boxed{1,000}", "1000", true),
    (48, Math, r"\boxed{\pi}", "3.14", false),
    (
        49,
        Math,
        r"\boxed{(3,\pi/2)}",
        r"\left( 3, \frac{\pi}{2} \right)",
        true,
    ),
    (50, Math, r"\boxed{\text{Evelyn}}", r"\text{Evelyn}", true),
    (51, Mc4, "The answer is (B).", "B", true),
    (52, Mc4, "The answer is B", "B", true),
    (53, Mc4, "**Answer: C**", "C", true),
    (54, Mc4, "I think the answer is (a)", "A", true),
    (
        55,
        Mc4,
        "The answer is a trick question; the best option is (D).",
        "D",
        true,
    ),
    (
        56,
        Mc4,
        "Options (A) and (C) are wrong, so the correct answer is (B).",
        "B",
        true,
    ),
    (57, Mc4, "Between (A) and (C), I choose (C).", "C", true),
    (58, Mc4, r"\boxed{D}", "D", true),
    (59, Mc4, r"\boxed{(D) 42}", "D", true),
    (60, Mc4, "The answer is (E).", "E", false),
    (61, Aqua, "The answer is 22.5", "D", true),
    (62, Aqua, r"\boxed{22}", "C", true),
    (63, Mc4, "The correct answer is: C) 3", "C", true),
    (64, Mc4, "A", "A", true),
    (65, Mc4, "A careful analysis shows the result.", "A", false),
    (66, Mc4, "TERMINATE: The answer is: (B)", "B", true),
    (
        67,
        Mc4,
        "The answer is (B). Wait, actually the answer is (C).",
        "C",
        true,
    ),
    (68, Mc4, "The answer is (A) or (C).", "A", false),
    (69, Mc10, "The answer is (J).", "J", true),
    (70, Mc4, "Answer:\n(C) because the others fail.", "C", true),
    (71, Num, "$1,234", "1234", true),
    (72, Num, "The answer is 5.00", "5", true),
    (73, Num, "The answer is 3 apples.", "3", true),
    (74, Num, "The answer is 8.\n\nCheck: 8 * 3 = 24", "8", true),
    (75, Num, "The answer is 8. Check: 8 * 3 = 24", "8", true),
    (76, Num, "The answer is 20.5", "20", false),
    (77, Math, "The answer is 3 apples.", "3", true),
    (78, Math, r"\boxed{-\dfrac{1}{3}}", r"-\frac{1}{3}", true),
    (79, Math, r"\boxed{1, 500}", "500, 1", true),
    (80, Math, "{TERMINATE: The answer is: 42}", "42", true),
];

/// Our own cases (numbered from 101), default options.
const EXTRA: &[(u32, T, &str, &str, bool)] = &[
    (
        101,
        Num,
        "Final Answer: The final answer is 7. I hope it is correct.",
        "7",
        true,
    ),
    (
        102,
        Mc10,
        "Let's think step by step. ... The answer is (J)",
        "J",
        true,
    ),
    (
        103,
        Num,
        "The temperature drops to -12 degrees.\nThe answer is -12.",
        "-12",
        true,
    ),
    (104, Num, r"The result is \fbox{42}.", "42", true),
    (105, Num, "The answer is -1,234,567.5", "-1234567.5", true),
    (
        106,
        Num,
        "The answer is 123456789012.46",
        "123456789012.4567",
        true,
    ),
    (107, Num, "The answer is -0.67", "-0.6666666666666666", true),
    (108, Num, "The answer is 1.2e-05", "1.2e-05", true),
    (109, Math, r"\boxed{\tfrac{3}{4}}", r"\frac{3}{4}", true),
    (110, Math, r"\boxed{\{1,2\}}", r"\{2,1\}", true),
    (111, Math, r"\boxed{[2,5)}", "[2,5)", true),
    (112, Math, r"\boxed{(2,5]}", "[2,5]", false),
    (
        113,
        Math,
        r"\boxed{\left[ -1, \frac{1}{2} \right)}",
        r"[-1,0.5)",
        true,
    ),
    (114, Mc4, "The answer is (A) and (B).", "A", false),
    (
        115,
        Mc4,
        "Looking at the options, option B is right.",
        "B",
        true,
    ),
    (
        116,
        Math,
        r"\boxed{\frac{x+1}{2}}",
        r"\frac{1}{2}x+\frac12",
        true,
    ),
    (117, Int, "#### 033", "33", true),
    (118, Num, "</think>", "0", false),
    (119, Aqua, "The answer is 21.5 km.", "B", true),
    (120, Math, r"The answer is \(\sqrt{2}\).", r"\sqrt2", true),
];

fn run(cases: &[(u32, T, &str, &str, bool)], opts: &JudgeOptions) -> Vec<String> {
    let mut failures = Vec::new();
    for &(n, t, output, gold, expected) in cases {
        let verdict = grade(output, &item(t, gold), opts);
        if verdict.correct != expected {
            failures.push(format!(
                "#{n} ({t:?}) {output:?} gold {gold:?}: expected {}, got {} (extracted {:?})",
                if expected { "correct" } else { "incorrect" },
                if verdict.correct {
                    "correct"
                } else {
                    "incorrect"
                },
                verdict.extracted
            ));
        }
    }
    failures
}

#[test]
fn spec_table_80_cases() {
    assert_eq!(SPEC.len(), 80);
    let failures = run(SPEC, &JudgeOptions::default());
    assert!(
        failures.is_empty(),
        "{} of 80 spec cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn extra_cases() {
    let failures = run(EXTRA, &JudgeOptions::default());
    assert!(
        failures.is_empty(),
        "failing cases:\n{}",
        failures.join("\n")
    );
}

#[test]
fn lenient_choice_on_and_off() {
    let mc4 = item(Mc4, "A");
    let output = "A careful analysis shows the result.";
    let strict = JudgeOptions::default();
    let lenient = JudgeOptions {
        lenient_choice: true,
        ..JudgeOptions::default()
    };
    assert!(!grade(output, &mc4, &strict).correct);
    assert!(grade(output, &mc4, &lenient).correct);
    // Lenient mode never overrides an explicit answer or a hedge.
    assert_eq!(
        grade("A guess: the answer is (B).", &mc4, &lenient)
            .extracted
            .as_deref(),
        Some("B")
    );
    assert_eq!(
        grade("The answer is (A) or (C).", &mc4, &lenient).extracted,
        None
    );
}

#[test]
fn symbolic_probing_off() {
    let opts = JudgeOptions {
        symbolic_probing: false,
        ..JudgeOptions::default()
    };
    assert!(!grade(r"\boxed{x^2+2x+1}", &item(Math, "(x+1)^2"), &opts).correct);
    assert!(grade(r"\boxed{2\sqrt{2}}", &item(Math, r"\sqrt{8}"), &opts).correct);
}

#[test]
fn extraction_details() {
    let o = JudgeOptions::default();
    let e = extract(r"The total cost is \$1,200.00", &AnswerType::Numeric, &o);
    assert_eq!(e.answer.as_deref(), Some("1,200.00"));
    assert_eq!(e.source, Some(Source::Fallback));
    let e = extract(
        r"The answer is 1.5 \times 10^{6}.",
        &AnswerType::Numeric,
        &o,
    );
    assert_eq!(e.answer.as_deref(), Some(r"1.5 \times 10^{6}"));
    assert_eq!(e.source, Some(Source::Phrase));
    let e = extract(r"\boxed{\frac{7}{2}}", &AnswerType::Numeric, &o);
    assert_eq!(
        (e.answer.as_deref(), e.source),
        (Some(r"\frac{7}{2}"), Some(Source::Boxed))
    );
    let e = extract("The answer is (A) or (C).", &answer_type(Mc4), &o);
    assert_eq!(
        (e.answer, e.source, e.hedge),
        (None, Some(Source::Phrase), true)
    );
    let e = extract("nothing here", &AnswerType::MathExpr, &o);
    assert_eq!((e.answer, e.source, e.hedge), (None, None, false));
    let e = extract(r"\boxed{x = 5}", &AnswerType::MathExpr, &o);
    assert_eq!(e.answer.as_deref(), Some("x = 5"));
}
