//! Strong answer candidates and their search order (docs/design/grading.md §4.4 steps 2–3): boxed
//! contents and answer-phrase lines, tried from the last start position to the first; the first one
//! that parses wins and a hedge stops the search.
//!
//! Phrase texts are cut from the line only when a candidate is tried, and the search examines
//! at most [`SEARCH_BUDGET`] bytes of candidate text in total: in a degenerate output (a
//! repetition loop "the answer is the answer is …" on one long line) every candidate's text is
//! a long suffix of the line, and trying them all would take quadratic time. Past the budget
//! the search gives up on strong candidates and the weak fallbacks apply.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::boxed::{boxed_candidates, brace_pairs};

/// Where an extracted answer (or the hedge that stopped the search) came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A `\boxed{…}` / `\fbox{…}` candidate (§4.4 step 2).
    Boxed,
    /// An answer-phrase candidate such as "The answer is" or `####` (§4.4 step 2).
    Phrase,
    /// A weak, type-specific fallback over the whole text (§4.4 step 4).
    Fallback,
}

/// One strong candidate: where it starts in the pre-processed text and the text to parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate<'a> {
    /// Byte offset of `\boxed`/`\fbox` or of the first character of the phrase.
    pub start: usize,
    /// [`Source::Boxed`] or [`Source::Phrase`].
    pub source: Source,
    body: Body<'a>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Body<'a> {
    Boxed(String),
    /// The whole text and where the phrase's candidate text starts; the text is the rest of
    /// that line (or the next non-empty line), trimmed.
    Phrase(&'a str, usize),
}

/// Total bytes of candidate text one search may examine (1 MiB: ten times the longest
/// output the property tests use; real outputs with short answer lines never get near it).
pub const SEARCH_BUDGET: usize = 1 << 20;

impl Candidate<'_> {
    /// The candidate text: the box content, or the phrase line with unmatched trailing `}`
    /// dropped (the SwarmSys `{TERMINATE: …}` form).
    pub fn text(&self) -> Cow<'_, str> {
        match &self.body {
            Body::Boxed(s) => Cow::Borrowed(s.as_str()),
            Body::Phrase(text, pos) => {
                Cow::Borrowed(drop_unmatched_trailing_braces(line_text(text, *pos)))
            }
        }
    }
}

/// Every strong candidate of pre-processed `text`, ordered from the last start to the first.
pub fn candidates(text: &str) -> Vec<Candidate<'_>> {
    let mut out: Vec<Candidate<'_>> = boxed_candidates(text)
        .into_iter()
        .map(|b| Candidate {
            start: b.start,
            source: Source::Boxed,
            body: Body::Boxed(b.content),
        })
        .collect();
    out.extend(phrase_candidates(text));
    out.sort_by_key(|c| std::cmp::Reverse(c.start));
    out
}

/// The outcome of parsing one candidate for an answer type.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed<T> {
    /// A valid answer of the item's type.
    Answer(T),
    /// A hedge (§4.7): stops the search with "no answer".
    Hedge,
    /// Not an answer of this type: try the next candidate.
    Invalid,
}

/// The outcome of the candidate search.
#[derive(Debug, Clone, PartialEq)]
pub enum Found<T> {
    /// The first candidate (in search order) that parsed.
    Answer(T, Source),
    /// A hedge stopped the search.
    Hedge(Source),
    /// No strong candidate parsed: weak fallbacks apply.
    Nothing,
}

/// Tries `cands` in order (already last-start-first) with `parse`, given each candidate's
/// source and text (§4.4 step 3), within [`SEARCH_BUDGET`].
pub fn search<T>(
    cands: &[Candidate<'_>],
    mut parse: impl FnMut(Source, &str) -> Parsed<T>,
) -> Found<T> {
    let mut budget = SEARCH_BUDGET;
    for c in cands {
        let text = c.text();
        budget = match budget.checked_sub(text.len()) {
            Some(b) => b,
            None => break,
        };
        match parse(c.source, &text) {
            Parsed::Answer(a) => return Found::Answer(a, c.source),
            Parsed::Hedge => return Found::Hedge(c.source),
            Parsed::Invalid => {}
        }
    }
    Found::Nothing
}

/// Answer-phrase candidates: `final answer`, `the answer`, `answer`, `correct option`,
/// `correct choice` (case-insensitive, whole words) followed by optional spaces and `is` or
/// `:`, an optional further `:` and optional spaces; plus `####`.
///
/// "final answer" and "the answer" are found through their word "answer": the text after the
/// phrase is the same, and nothing else can start between the two words, so the search order
/// is unchanged.
fn phrase_candidates(text: &str) -> Vec<Candidate<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let found = match b.to_ascii_lowercase() {
            b'#' if text.get(i..).is_some_and(|r| r.starts_with("####")) => Some((i, i + 4)),
            b'a' if word_at(text, i, "answer") => phrase_tail(text, i + 6).map(|end| (i, end)),
            b'o' if word_at(text, i, "option") => after_correct(text, i)
                .and_then(|start| phrase_tail(text, i + 6).map(|end| (start, end))),
            b'c' if word_at(text, i, "choice") => after_correct(text, i)
                .and_then(|start| phrase_tail(text, i + 6).map(|end| (start, end))),
            _ => None,
        };
        if let Some((start, end)) = found {
            out.push(Candidate {
                start,
                source: Source::Phrase,
                body: Body::Phrase(text, end),
            });
        }
        i += 1;
    }
    out
}

/// Whether the ASCII word `w` starts at `i` (case-insensitive), not preceded by a letter or
/// digit. What follows is checked by the caller.
fn word_at(text: &str, i: usize, w: &str) -> bool {
    let matches = text
        .as_bytes()
        .get(i..i + w.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(w.as_bytes()));
    matches && !prev_is_alnum(text, i)
}

/// Whether the character before byte `i` (a char boundary) is alphanumeric.
fn prev_is_alnum(text: &str, i: usize) -> bool {
    text.get(..i)
        .and_then(|s| s.chars().next_back())
        .is_some_and(char::is_alphanumeric)
}

/// Start of the word `correct` separated by spaces from the word at `i`, if any.
fn after_correct(text: &str, i: usize) -> Option<usize> {
    let before = text.get(..i)?;
    let trimmed = before.trim_end_matches([' ', '\t']);
    if trimmed.len() == before.len() {
        return None;
    }
    let start = trimmed.len().checked_sub("correct".len())?;
    word_at(text, start, "correct").then_some(start)
}

/// After a phrase ending at `j`: optional spaces and `is` or `:`, an optional further `:`,
/// optional spaces. Returns where the candidate text starts.
fn phrase_tail(text: &str, j: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let k = skip_spaces(bytes, j);
    let mut pos = if bytes.get(k) == Some(&b':') {
        k + 1
    } else if k > j
        && bytes
            .get(k..k + 2)
            .is_some_and(|s| s.eq_ignore_ascii_case(b"is"))
        && !text
            .get(k + 2..)
            .and_then(|r| r.chars().next())
            .is_some_and(char::is_alphanumeric)
    {
        k + 2
    } else {
        return None;
    };
    pos = skip_spaces(bytes, pos);
    if bytes.get(pos) == Some(&b':') {
        pos += 1;
    }
    Some(skip_spaces(bytes, pos))
}

fn skip_spaces(bytes: &[u8], mut k: usize) -> usize {
    while matches!(bytes.get(k), Some(b' ' | b'\t')) {
        k += 1;
    }
    k
}

/// The rest of the line from `pos`, trimmed; if empty, the next non-empty line, trimmed.
fn line_text(text: &str, pos: usize) -> &str {
    let rest = text.get(pos..).unwrap_or("");
    let mut lines = rest.split('\n');
    let first = lines.next().unwrap_or("").trim();
    if !first.is_empty() {
        return first;
    }
    lines.map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
}

/// `s` without trailing `}` characters that have no matching `{` (spaces around them go too).
pub(crate) fn drop_unmatched_trailing_braces(s: &str) -> &str {
    let mut t = s.trim_end();
    if !t.ends_with('}') {
        return t;
    }
    let mut closes: Vec<usize> = brace_pairs(t).into_iter().map(|p| p.1).collect();
    closes.sort_unstable();
    while t.ends_with('}') {
        let last = t.len() - 1;
        let escaped = t.get(..last).is_some_and(|p| p.ends_with('\\'));
        if escaped || closes.binary_search(&last).is_ok() {
            break;
        }
        t = t.get(..last).unwrap_or("").trim_end();
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(t: &str) -> Vec<(usize, Source, String)> {
        candidates(t)
            .iter()
            .map(|c| (c.start, c.source, c.text().into_owned()))
            .collect()
    }

    #[test]
    fn phrases_and_boxes_last_first() {
        let t = r"First \boxed{18}. The answer is 20.";
        assert_eq!(
            texts(t),
            [
                (22, Source::Phrase, "20.".to_string()),
                (6, Source::Boxed, "18".to_string())
            ]
        );
        let c = texts("Final Answer: The final answer is $x$. I hope");
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].2, "$x$. I hope");
        assert_eq!(c[1].2, "The final answer is $x$. I hope");
    }

    #[test]
    fn phrase_forms() {
        assert_eq!(texts("Answer:\n\n(C) because")[0].2, "(C) because");
        assert_eq!(texts("#### 72")[0].2, "72");
        assert_eq!(texts("The correct answer is: C) 3")[0].2, "C) 3");
        assert_eq!(texts("the Correct option is B")[0].0, 4);
        assert_eq!(texts("the Correct option is B")[0].2, "B");
        assert_eq!(texts("{TERMINATE: The answer is: 42}")[0].2, "42");
        assert!(texts("answers: 5, answer key, answer5, the answeris 3").is_empty());
        assert!(texts("optional: 3; no-choice: 4").is_empty());
        assert_eq!(texts("ÉAnswer: 5").len(), 0);
        assert_eq!(texts("é Answer is é")[0].2, "é");
    }

    #[test]
    fn trailing_braces() {
        assert_eq!(drop_unmatched_trailing_braces("42} }"), "42");
        assert_eq!(
            drop_unmatched_trailing_braces(r"\frac{1}{2}"),
            r"\frac{1}{2}"
        );
        assert_eq!(drop_unmatched_trailing_braces(r"\{1\}"), r"\{1\}");
        assert_eq!(drop_unmatched_trailing_braces("}"), "");
    }

    #[test]
    fn search_stops_at_hedge() {
        let t = r"\boxed{1} \boxed{2} \boxed{x}";
        let c = candidates(t);
        let r = search(&c, |_, t| match t {
            "x" => Parsed::Invalid,
            "2" => Parsed::Hedge,
            s => Parsed::Answer(s.to_string()),
        });
        assert_eq!(r, Found::Hedge(Source::Boxed));
    }

    #[test]
    fn repetition_loop_stays_within_budget() {
        let t = "the answer is ".repeat(20_000);
        let c = candidates(&t);
        assert_eq!(c.len(), 20_000);
        let mut tried = 0;
        let r: Found<()> = search(&c, |_, _| {
            tried += 1;
            Parsed::Invalid
        });
        assert_eq!(r, Found::Nothing);
        assert!(tried < 1_000, "{tried}");
    }
}
