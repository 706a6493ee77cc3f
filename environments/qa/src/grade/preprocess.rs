//! Pre-processing of a model output before any candidate is looked for (docs/design/grading.md §4.4
//! step 1).

/// Keeps only what follows the last `</think>`, maps U+2212 (minus sign) to `-`, maps
/// no-break and thin spaces (U+00A0, U+2009, U+202F) to a space, and deletes `**`.
pub fn preprocess(output: &str) -> String {
    const THINK_END: &str = "</think>";
    let after = output
        .rfind(THINK_END)
        .and_then(|i| output.get(i + THINK_END.len()..))
        .unwrap_or(output);
    let mapped: String = after
        .chars()
        .map(|c| match c {
            '\u{2212}' => '-',
            '\u{00A0}' | '\u{2009}' | '\u{202F}' => ' ',
            c => c,
        })
        .collect();
    mapped.replace("**", "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_minus_spaces_and_bold() {
        assert_eq!(
            preprocess("<think>the answer is 5</think>x</think>The answer is 7."),
            "The answer is 7."
        );
        assert_eq!(preprocess("Answer: \u{2212}3"), "Answer: -3");
        assert_eq!(preprocess("1\u{202F}000\u{00A0}m"), "1 000 m");
        assert_eq!(preprocess("**Answer:** 42"), "Answer: 42");
        assert_eq!(preprocess("a***b"), "a*b");
        assert_eq!(preprocess(""), "");
    }
}
