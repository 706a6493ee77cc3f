//! The `equivalence` grader (docs/design/grading.md §7.2, xVerify-style): the judge reads the
//! question, the gold answer and the policy's full response, and states the response's final
//! answer and whether it is equivalent to the gold one.
//!
//! The prompt is `prompts/judge/equivalence.jinja`; the reply format is two lines,
//! `Extracted answer: …` and `Verdict: CORRECT|INCORRECT`. The parser ([`parse_verdict`]) is
//! lenient about what small models add around them (markdown emphasis, brackets, a trailing
//! period, case, leading prose) and strict about the verdict itself: the last `Verdict:` line
//! decides, and a word other than correct/incorrect (or their common synonyms) is no verdict.

use colony_policy::reasoning::{prompts, PolicyError};

/// `prompts/judge/equivalence.jinja`.
pub const EQUIVALENCE: &str = include_str!("../../../../../prompts/judge/equivalence.jinja");

/// The reply format the equivalence prompt asks for (quoted again when a reply is re-asked).
pub const EQUIVALENCE_FORMAT: &str =
    "Extracted answer: <the final answer of the response, or NONE>\nVerdict: <CORRECT or INCORRECT>";

/// A parsed equivalence verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The response's answer equals the gold one.
    pub correct: bool,
    /// The final answer the judge read from the response (`None` for NONE or no line).
    pub extracted: Option<String>,
}

/// The equivalence prompt for one item.
pub fn equivalence_prompt(
    question: &str,
    reference: &str,
    response: &str,
) -> Result<String, PolicyError> {
    prompts::render(
        EQUIVALENCE,
        serde_json::json!({ "question": question, "reference": reference, "response": response }),
    )
}

/// `line` without markdown emphasis, brackets and surrounding punctuation, lowercased.
fn bare(line: &str) -> String {
    line.chars()
        .filter(|c| !matches!(c, '*' | '_' | '`' | '[' | ']' | '"'))
        .collect::<String>()
        .trim()
        .trim_end_matches(['.', '!'])
        .trim()
        .to_lowercase()
}

/// The value after `key:` on `line` (case-insensitive, emphasis allowed around the key).
fn value_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let lower = line.to_lowercase();
    let at = lower.find(key)?;
    let rest = &line[at + key.len()..];
    let rest = rest.trim_start_matches(['*', '_', ' ']);
    rest.strip_prefix(':').map(str::trim)
}

/// The verdict of a judge reply, or `None` when it states none that can be read.
pub fn parse_verdict(reply: &str) -> Option<Verdict> {
    let verdict = reply
        .lines()
        .rev()
        .find_map(|line| value_after(line, "verdict"))
        .and_then(|v| match bare(v).as_str() {
            "correct" | "equivalent" | "yes" | "true" | "1" => Some(true),
            "incorrect" | "not correct" | "not equivalent" | "wrong" | "no" | "false" | "0" => {
                Some(false)
            }
            _ => None,
        })?;
    let extracted = reply
        .lines()
        .rev()
        .find_map(|line| value_after(line, "extracted answer"))
        .map(|v| v.trim_matches(['*', '_', '`']).trim().to_string())
        .filter(|v| !v.is_empty() && !v.eq_ignore_ascii_case("none"));
    Some(Verdict {
        correct: verdict,
        extracted,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_parse_with_the_noise_small_models_add() {
        let v = parse_verdict("Extracted answer: 42\nVerdict: CORRECT").unwrap();
        assert_eq!((v.correct, v.extracted.as_deref()), (true, Some("42")));
        let v = parse_verdict("Sure!\n**Extracted answer:** (B)\n**Verdict:** Incorrect.").unwrap();
        assert_eq!((v.correct, v.extracted.as_deref()), (false, Some("(B)")));
        let v = parse_verdict("Extracted answer: NONE\nverdict: [[INCORRECT]]").unwrap();
        assert_eq!((v.correct, v.extracted), (false, None));
        // The last verdict line decides.
        let v = parse_verdict("Verdict: CORRECT\nOn reflection:\nVerdict: INCORRECT").unwrap();
        assert!(!v.correct);
    }

    #[test]
    fn replies_without_a_readable_verdict_are_none() {
        assert_eq!(parse_verdict("The answer looks right to me."), None);
        assert_eq!(parse_verdict("Verdict: maybe"), None);
        assert_eq!(parse_verdict("Extracted answer: 4"), None);
        assert_eq!(parse_verdict(""), None);
    }

    #[test]
    fn the_prompt_quotes_question_reference_and_response_verbatim() {
        let p = equivalence_prompt("What is {{ 2 }}?", "4", "It is 4.").unwrap();
        assert!(
            p.contains("<question>\nWhat is {{ 2 }}?\n</question>"),
            "{p}"
        );
        assert!(p.contains("<reference>\n4\n</reference>"), "{p}");
        assert!(p.contains("<response>\nIt is 4.\n</response>"), "{p}");
        assert!(p.contains(EQUIVALENCE_FORMAT), "{p}");
    }
}
