//! The rule judge (docs/design/grading.md §4.3 `RuleJudge`, §4.4–4.7): composes pre-processing,
//! strong candidates, the per-type parsers and the weak fallbacks into [`extract`], and the
//! equivalence rules into [`equivalent`] and [`grade`].

use serde::{Deserialize, Serialize};

use super::boxed::{has_unterminated_box, last_boxed};
use super::candidates::{candidates, search, Found, Parsed, Source};
use super::choice;
use super::latex::inline_math;
use super::math_equiv::math_equivalent;
use super::numeric::{self, first_token};
use super::preprocess::preprocess;
use crate::{AnswerType, Item};

/// What extraction found: the answer (if any), where it came from, and whether a hedge
/// stopped the search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extraction {
    /// The extracted answer: a numeric token as written (Numeric, Integer), an expression
    /// string before normalisation (MathExpr) or a letter (Choice); `None` = no answer.
    pub answer: Option<String>,
    /// Where the answer (or the hedge) came from; `None` when nothing was found at all.
    pub source: Option<Source>,
    /// A hedge such as "(A) or (C)" stopped the search (§4.7): `answer` is `None`.
    pub hedge: bool,
}

/// Options of the rule judge (spec flags); `Default` gives the spec defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct JudgeOptions {
    /// Choice fallback: the last standalone allowed capital letter anywhere (off by default;
    /// misreads articles such as "A").
    pub lenient_choice: bool,
    /// MATH tier 4: compare expressions with variables at 5 fixed points (on by default).
    pub symbolic_probing: bool,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        Self {
            lenient_choice: false,
            symbolic_probing: true,
        }
    }
}

/// The grade of one output: the extracted answer (if any) and whether it matches the gold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The extracted answer, as in [`Extraction::answer`].
    pub extracted: Option<String>,
    /// Whether the extracted answer is equivalent to the gold answer.
    pub correct: bool,
}

/// Extracts the final answer of `output` for an item of type `answer_type` (§4.4–4.7).
pub fn extract(output: &str, answer_type: &AnswerType, opts: &JudgeOptions) -> Extraction {
    let text = preprocess(output);
    let cands = candidates(&text);
    match answer_type {
        AnswerType::Numeric | AnswerType::Integer => {
            let found = search(&cands, |source, text| {
                match numeric::parse_candidate(text, source == Source::Phrase) {
                    Some((token, _)) => Parsed::Answer(token),
                    None => Parsed::Invalid,
                }
            });
            finish(found, || numeric::last_number(&text).map(|(t, _)| t))
        }
        AnswerType::MathExpr => finish(search(&cands, math_candidate), || math_fallback(&text)),
        // A completion keeps the reply's own text (indentation included), not the preprocessed one.
        AnswerType::Code { entry_point, .. } => Extraction {
            answer: Some(super::code::extract_completion(output, entry_point)),
            source: None,
            hedge: false,
        },
        AnswerType::Choice { options } => {
            let letters = answer_type.letters();
            let found = search(&cands, |_, text| {
                match choice::parse_candidate(text, &letters, options) {
                    Parsed::Answer(l) => Parsed::Answer(l.to_string()),
                    Parsed::Hedge => Parsed::Hedge,
                    Parsed::Invalid => Parsed::Invalid,
                }
            });
            finish(found, || {
                choice::fallback(&text, &letters, opts.lenient_choice).map(String::from)
            })
        }
    }
}

/// Whether the answer `pred` is equivalent to `gold` for `answer_type` (§4.5–4.7).
pub fn equivalent(pred: &str, gold: &str, answer_type: &AnswerType, opts: &JudgeOptions) -> bool {
    match answer_type {
        AnswerType::Numeric => match (numeric::parse_number(pred), numeric::parse_number(gold)) {
            (Some(p), Some(g)) => numeric::numeric_equal(&p, &g),
            _ => false,
        },
        AnswerType::Integer => match (numeric::parse_number(pred), numeric::parse_number(gold)) {
            (Some(p), Some(g)) => numeric::integer_equal(&p, &g),
            _ => false,
        },
        AnswerType::MathExpr => math_equivalent(pred, gold, opts.symbolic_probing),
        // Code is graded by running it (docs/design/sandbox.md §3); as text, two completions are
        // the same answer only when they are the same program text (agreement between agents).
        AnswerType::Code { .. } => pred.trim() == gold.trim(),
        AnswerType::Choice { .. } => {
            let letter = |s: &str| {
                s.trim()
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .trim()
                    .to_ascii_uppercase()
            };
            let p = letter(pred);
            !p.is_empty() && p == letter(gold)
        }
    }
}

/// Extracts the answer of `output` and compares it with `item.gold`.
pub fn grade(output: &str, item: &Item, opts: &JudgeOptions) -> Verdict {
    let extraction = extract(output, &item.answer_type, opts);
    let correct = extraction
        .answer
        .as_deref()
        .is_some_and(|a| equivalent(a, &item.gold, &item.answer_type, opts));
    Verdict {
        extracted: extraction.answer,
        correct,
    }
}

/// Turns the candidate search into an [`Extraction`], running `fallback` if nothing parsed.
fn finish(found: Found<String>, fallback: impl FnOnce() -> Option<String>) -> Extraction {
    match found {
        Found::Answer(answer, source) => Extraction {
            answer: Some(answer),
            source: Some(source),
            hedge: false,
        },
        Found::Hedge(source) => Extraction {
            answer: None,
            source: Some(source),
            hedge: true,
        },
        Found::Nothing => {
            let answer = fallback();
            Extraction {
                source: answer.as_ref().map(|_| Source::Fallback),
                answer,
                hedge: false,
            }
        }
    }
}

/// A MathExpr candidate (§4.6): a box content, or from a phrase line its box, its first
/// inline math or its plain text; valid when non-empty.
fn math_candidate(source: Source, text: &str) -> Parsed<String> {
    let expr = match source {
        Source::Boxed => Some(text.trim().to_string()),
        _ => phrase_expression(text),
    };
    match expr {
        Some(e) if !e.trim().is_empty() => Parsed::Answer(e.trim().to_string()),
        _ => Parsed::Invalid,
    }
}

/// The expression of a phrase candidate; `None` if it holds an unterminated `\boxed{`.
fn phrase_expression(t: &str) -> Option<String> {
    if has_unterminated_box(t) {
        return None;
    }
    if let Some(b) = last_boxed(t) {
        return Some(b);
    }
    if let Some(m) = inline_math(t).first() {
        return Some((*m).to_string());
    }
    // Plain text up to the first ". " (or the end of the line), minus a trailing period.
    let mut plain = t;
    let mut it = t.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c == '.' && it.peek().is_some_and(|(_, n)| n.is_whitespace()) {
            plain = t.get(..i).unwrap_or(t);
            break;
        }
    }
    let plain = plain.trim();
    let plain = plain.strip_suffix('.').unwrap_or(plain).trim();
    Some(number_before_unit_words(plain).unwrap_or(plain).to_string())
}

/// "3 apples" → "3": a leading number followed only by words of two or more letters.
fn number_before_unit_words(plain: &str) -> Option<&str> {
    let t = first_token(plain).filter(|t| t.start == 0)?;
    let rest = plain.get(t.end..)?;
    let mut words = rest.split_whitespace().peekable();
    let starts_with_space = rest.starts_with(char::is_whitespace);
    let all_words = words.peek().is_some()
        && words.all(|w| w.chars().count() >= 2 && w.chars().all(char::is_alphabetic));
    (starts_with_space && all_words)
        .then(|| plain.get(..t.end))
        .flatten()
}

/// MathExpr fallback: the last inline math on the last non-empty line.
fn math_fallback(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).rfind(|l| !l.is_empty())?;
    inline_math(line)
        .last()
        .map(|m| m.trim().to_string())
        .filter(|m| !m.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrase_expressions() {
        assert_eq!(
            phrase_expression(r"$\frac{3}{4}$. I hope it is correct.").as_deref(),
            Some(r"\frac{3}{4}")
        );
        assert_eq!(phrase_expression("3 apples.").as_deref(), Some("3"));
        assert_eq!(phrase_expression("12 square units").as_deref(), Some("12"));
        assert_eq!(
            phrase_expression("3 x apples").as_deref(),
            Some("3 x apples")
        );
        assert_eq!(
            phrase_expression("x = 5. Then more").as_deref(),
            Some("x = 5")
        );
        assert_eq!(phrase_expression(r"\boxed{\frac{1}{2}"), None);
        assert_eq!(phrase_expression(r"so \boxed{7}").as_deref(), Some("7"));
    }

    #[test]
    fn math_fallback_last_line() {
        assert_eq!(
            math_fallback("$a$\nthen $b$ and $c$\n\n").as_deref(),
            Some("c")
        );
        assert_eq!(math_fallback("$a$\nno math"), None);
    }
}
