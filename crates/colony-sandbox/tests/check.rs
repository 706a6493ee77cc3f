//! Verdicts of the HumanEval-style check driver, against programs whose verdict under the
//! official harness's rules is known.

// A test crate: helpers fail loudly on anything unexpected.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use colony_sandbox::{check_all, check_program, Bubblewrap, Limits, PythonCheck};

fn check(programs: &[&str], timeout: f64) -> Vec<(bool, String)> {
    let b = Bubblewrap::detect().unwrap_or_else(|e| panic!("needs bubblewrap: {e}"));
    let checks: Vec<PythonCheck> = programs
        .iter()
        .map(|p| PythonCheck {
            program: p.to_string(),
            timeout: Duration::from_secs_f64(timeout),
        })
        .collect();
    check_all(&b, &checks, &Limits::default(), 2)
        .into_iter()
        .map(|v| {
            let v = v.unwrap_or_else(|e| panic!("sandbox failure: {e}"));
            assert!(v.sandboxed);
            (v.passed, v.result)
        })
        .collect()
}

#[test]
fn verdicts_follow_the_official_harness() {
    let add = check_program(
        "def add(a, b):\n    \"\"\"Add.\"\"\"\n",
        "    return a + b\n",
        "def check(candidate):\n    assert candidate(2, 3) == 5\n",
        "add",
    );
    let wrong = add.replace("return a + b", "return a - b");
    let got = check(
        &[
            &add,
            &wrong,
            "raise ValueError('bad value')",
            "import sys\nsys.exit(0)",
            "import os\nos._exit(0)",
            "while True:\n    pass",
            "print('noise')\nx = input()",
            "import os\nprint(os.getcwd())",
        ],
        0.5,
    );
    assert_eq!(got[0], (true, "passed".into()));
    assert_eq!(
        got[1],
        (false, "failed: ".into()),
        "an assert without message"
    );
    assert_eq!(got[2], (false, "failed: bad value".into()));
    // SystemExit is a BaseException: the harness reports it as a failure.
    assert_eq!(got[3], (false, "failed: 0".into()));
    // Leaving without a result is the harness's "timed out".
    assert_eq!(got[4], (false, "timed out".into()));
    assert_eq!(got[5], (false, "timed out".into()));
    // Standard input is the harness's write-only stream: reading it raises.
    assert!(!got[6].0);
    assert!(got[6].1.starts_with("failed"), "{:?}", got[6]);
    // Printing and reading the working directory are allowed.
    assert_eq!(got[7], (true, "passed".into()));
}

#[test]
fn check_program_is_the_harness_concatenation() {
    assert_eq!(
        check_program("P", "C", "T", "f"),
        "PC\nT\ncheck(f)".to_string()
    );
}
