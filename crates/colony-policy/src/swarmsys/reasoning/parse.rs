//! What SwarmSys reads from replies (docs/design/swarmsys.md §2.7–§2.8, §2.10): the validator's
//! `TERMINATE` line and `VERDICT` lines, the explorer's mode-B sub-event block, role-switch
//! statements and mentions of other agents.
//!
//! The spec states the two line forms as regular expressions; they are implemented by hand
//! (no regex engine in the dependency tree) with the same matches:
//! `(?i)TERMINATE\s*:?\s*The answer is\s*:?\s*(.+)` (last match) and
//! `(?im)^\s*VERDICT\s+(\S+?)\s*:\s*(valid|invalid)\b` (last line per agent wins).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Byte offset of `needle` (ASCII, lowercase) in `hay` at `at`, ignoring ASCII case.
fn starts_with_ci(hay: &str, at: usize, needle: &str) -> bool {
    hay.as_bytes()
        .get(at..at + needle.len())
        .is_some_and(|b| b.eq_ignore_ascii_case(needle.as_bytes()))
}

/// `at` after any whitespace (`\s*`).
fn skip_ws(text: &str, at: usize) -> usize {
    text[at..]
        .char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .map_or(text.len(), |(i, _)| at + i)
}

/// End of the line holding byte `at` (the next `\n`, or the end of the text).
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |k| at + k)
}

/// The capture `(start, end)` of `\s*:?\s*(.+)` at `p`, with the regex's backtracking: the
/// answer after the optional colon if the text goes on; a blank capture when only
/// whitespace with some non-newline character is left; `:` itself when nothing follows it.
fn answer_capture(text: &str, p: usize) -> Option<(usize, usize)> {
    let a = skip_ws(text, p);
    if a < text.len() {
        if text[a..].starts_with(':') {
            let b = skip_ws(text, a + 1);
            if b < text.len() {
                return Some((b, line_end(text, b)));
            }
            return Some(match blank_char(text, a + 1) {
                Some(k) => (k, k),
                None => (a, line_end(text, a)),
            });
        }
        return Some((a, line_end(text, a)));
    }
    blank_char(text, p).map(|k| (k, k))
}

/// The last non-newline character at or after `from` (all of them whitespace here).
fn blank_char(text: &str, from: usize) -> Option<usize> {
    text[from..]
        .char_indices()
        .rfind(|(_, c)| *c != '\n')
        .map(|(i, c)| from + i + c.len_utf8())
}

/// One `TERMINATE … The answer is …` match starting at `at`: its capture `(start, end)`.
fn terminate_at(text: &str, at: usize) -> Option<(usize, usize)> {
    const HEAD: &str = "terminate";
    const PHRASE: &str = "the answer is";
    if !starts_with_ci(text, at, HEAD) {
        return None;
    }
    let mut i = skip_ws(text, at + HEAD.len());
    if text[i..].starts_with(':') {
        i = skip_ws(text, i + 1);
    }
    if !starts_with_ci(text, i, PHRASE) {
        return None;
    }
    answer_capture(text, i + PHRASE.len())
}

/// Unwraps `\boxed{…}`, `$…$` or a comma-free `[…]` enclosing the whole of `s`.
fn unwrap_enclosing(s: &str) -> &str {
    if let Some(inner) = s.strip_prefix("\\boxed{").and_then(|r| r.strip_suffix('}')) {
        // The brace closing `\boxed{` must be the last one.
        let mut depth = 1i32;
        for c in inner.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return s;
                    }
                }
                _ => {}
            }
        }
        return inner;
    }
    if s.len() >= 2 && s.starts_with('$') && s.ends_with('$') {
        return &s[1..s.len() - 1];
    }
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        if !inner.contains(',') && !inner.contains(']') {
            return inner;
        }
    }
    s
}

/// Cleans a TERMINATE capture (§2.8): delete `**`; repeat until nothing changes: trim, drop a
/// trailing `.`, drop a trailing `}` while there are more `}` than `{`; unwrap one enclosing
/// `\boxed{…}`, `$…$` or comma-free `[…]`.
pub fn clean_answer(capture: &str) -> String {
    let mut s = capture.replace("**", "");
    loop {
        let before = s.clone();
        s = s.trim().to_string();
        if let Some(rest) = s.strip_suffix('.') {
            s = rest.to_string();
        }
        if s.ends_with('}') && s.matches('}').count() > s.matches('{').count() {
            s.pop();
        }
        if s == before {
            break;
        }
    }
    unwrap_enclosing(&s).trim().to_string()
}

/// The answer of the last `TERMINATE: The answer is: <answer>` in `text`, cleaned; `None`
/// when there is no match or the cleaned answer is empty (§2.8).
pub fn parse_terminate(text: &str) -> Option<String> {
    // Non-overlapping matches from left to right, as a regex search finds them.
    let mut last = None;
    let mut at = 0;
    while at < text.len() {
        match terminate_at(text, at) {
            Some((start, end)) => {
                last = Some(&text[start..end]);
                at = end.max(at + 1);
            }
            None => at += 1,
        }
        while !text.is_char_boundary(at) {
            at += 1;
        }
    }
    let answer = clean_answer(last?);
    (!answer.is_empty()).then_some(answer)
}

/// `VERDICT <id>: valid|invalid` lines: id (as written) → valid?; the last line per id wins,
/// ids compared case-insensitively (the key is the lowercase id).
pub fn parse_verdicts(text: &str) -> BTreeMap<String, bool> {
    let mut out = BTreeMap::new();
    let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1));
    for line_start in starts {
        let at = skip_ws(text, line_start);
        if !starts_with_ci(text, at, "verdict") {
            continue;
        }
        let after = at + "verdict".len();
        let id_start = skip_ws(text, after);
        if id_start == after || id_start >= text.len() {
            continue; // `\s+` needs whitespace, and an id must follow
        }
        // Lazy `\S+?`: the shortest non-space id after which `\s*:\s*(valid|invalid)\b` holds.
        let word_end = text[id_start..]
            .find(char::is_whitespace)
            .map_or(text.len(), |k| id_start + k);
        let ends = text[id_start..word_end]
            .char_indices()
            .skip(1)
            .map(|(k, _)| id_start + k)
            .chain(std::iter::once(word_end));
        for end in ends {
            if let Some(v) = verdict_value(text, end) {
                out.insert(text[id_start..end].to_lowercase(), v);
                break;
            }
        }
    }
    out
}

/// `\s*:\s*(valid|invalid)\b` at `at`: the verdict it states.
fn verdict_value(text: &str, at: usize) -> Option<bool> {
    let i = skip_ws(text, at);
    if !text[i..].starts_with(':') {
        return None;
    }
    let j = skip_ws(text, i + 1);
    let word = |w: &str| {
        starts_with_ci(text, j, w)
            && text[j + w.len()..]
                .chars()
                .next()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
    };
    if word("valid") {
        Some(true)
    } else if word("invalid") {
        Some(false)
    } else {
        None
    }
}

/// One sub-event the explorer proposed (mode B, §2.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubeventSpec {
    /// The explorer's id for it (unique in the block).
    pub id: String,
    /// Short title.
    pub title: String,
    /// Full statement.
    pub description: String,
    /// Ids of other sub-events of the block it needs.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// What result closes it.
    #[serde(default)]
    pub milestone: String,
}

#[derive(Deserialize)]
struct Block {
    subevents: Vec<SubeventSpec>,
}

/// Why an explorer's sub-event block was not usable (mode B falls back to mode A, §2.7).
#[derive(Debug, Clone, PartialEq, Eq, Error, Serialize, Deserialize)]
pub enum SubeventError {
    /// No JSON object with a `subevents` key.
    #[error("no JSON block with a `subevents` list")]
    Missing,
    /// The block is not valid JSON of the expected shape.
    #[error("the `subevents` block does not parse: {message}")]
    Syntax {
        /// The JSON parser's message.
        message: String,
    },
    /// Not 1 to 4 entries.
    #[error("{count} sub-events (1 to 4 allowed)")]
    Count {
        /// Entries given.
        count: usize,
    },
    /// An empty id, title or description.
    #[error("sub-event {index}: field `{field}` is empty")]
    Empty {
        /// Position in the list.
        index: usize,
        /// The field.
        field: &'static str,
    },
    /// Two entries share an id.
    #[error("sub-event id `{id}` is used twice")]
    Duplicate {
        /// The id.
        id: String,
    },
    /// `depends_on` names an id that is not in the block (or the entry itself).
    #[error("sub-event `{id}` depends on `{dependency}`, which is not another listed sub-event")]
    UnknownDependency {
        /// The entry.
        id: String,
        /// The unknown id.
        dependency: String,
    },
    /// The dependencies form a cycle.
    #[error("the sub-event dependencies form a cycle")]
    Cycle,
}

/// The last `{"subevents": [...]}` block in `text`, checked (§2.7): 1–4 entries, non-empty
/// id, title and description, unique ids, dependencies naming other listed ids, no cycle.
/// `depends_on` and `milestone` may be omitted (empty).
pub fn parse_subevents(text: &str) -> Result<Vec<SubeventSpec>, SubeventError> {
    let Some(key) = text.rfind("\"subevents\"") else {
        return Err(SubeventError::Missing);
    };
    let mut last_error = None;
    // Try every `{` before the key, nearest first: the block is the object holding the key.
    for (open, _) in text[..key]
        .match_indices('{')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        let mut stream = serde_json::Deserializer::from_str(&text[open..]).into_iter::<Block>();
        match stream.next() {
            Some(Ok(block)) => return check(block.subevents),
            Some(Err(e)) if last_error.is_none() => last_error = Some(e.to_string()),
            Some(Err(_)) => {}
            None => {}
        }
    }
    Err(match last_error {
        Some(message) => SubeventError::Syntax { message },
        None => SubeventError::Missing,
    })
}

fn check(list: Vec<SubeventSpec>) -> Result<Vec<SubeventSpec>, SubeventError> {
    if !(1..=4).contains(&list.len()) {
        return Err(SubeventError::Count { count: list.len() });
    }
    let mut ids = BTreeSet::new();
    for (index, s) in list.iter().enumerate() {
        for (field, v) in [
            ("id", &s.id),
            ("title", &s.title),
            ("description", &s.description),
        ] {
            if v.trim().is_empty() {
                return Err(SubeventError::Empty { index, field });
            }
        }
        if !ids.insert(s.id.as_str()) {
            return Err(SubeventError::Duplicate { id: s.id.clone() });
        }
    }
    for s in &list {
        if let Some(d) = s
            .depends_on
            .iter()
            .find(|d| **d == s.id || !ids.contains(d.as_str()))
        {
            return Err(SubeventError::UnknownDependency {
                id: s.id.clone(),
                dependency: d.clone(),
            });
        }
    }
    // Kahn's algorithm: every entry must become ready.
    let mut done: BTreeSet<&str> = BTreeSet::new();
    while done.len() < list.len() {
        let ready: Vec<&str> = list
            .iter()
            .filter(|s| !done.contains(s.id.as_str()))
            .filter(|s| s.depends_on.iter().all(|d| done.contains(d.as_str())))
            .map(|s| s.id.as_str())
            .collect();
        if ready.is_empty() {
            return Err(SubeventError::Cycle);
        }
        done.extend(ready);
    }
    Ok(list)
}

/// Lines of `text` that state a role switch (§2.2 decision: v1 only logs them), cut to 200
/// characters each.
pub fn role_switch_lines(text: &str) -> Vec<String> {
    const CUES: [&str; 5] = [
        "role switch",
        "role-switch",
        "switch role",
        "switching role",
        "reassign myself",
    ];
    text.lines()
        .filter(|l| {
            let lower = l.to_lowercase();
            CUES.iter().any(|c| lower.contains(c))
        })
        .map(|l| l.trim().chars().take(200).collect())
        .collect()
}

/// Whether `text` names the agent `id` as a whole token (`W1` is not in `W10`), for the
/// interaction graph of §2.10.
pub fn mentions(text: &str, id: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(id).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + id.len()..].chars().next();
        before.is_none_or(|c| !is_word(c)) && after.is_none_or(|c| !is_word(c))
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn terminate_forms_of_the_spec() {
        for (text, want) in [
            ("TERMINATE: The answer is: 42", Some("42")),
            ("terminate the answer is 42.", Some("42")),
            ("{TERMINATE: The answer is: [17]}", Some("17")),
            ("{TERMINATE: The answer is: 42}.", Some("42")),
            ("**TERMINATE: The answer is: 7**", Some("7")),
            (
                "TERMINATE: The answer is: \\boxed{\\frac{1}{2}}",
                Some("\\frac{1}{2}"),
            ),
            ("TERMINATE: The answer is: $x^2$.", Some("x^2")),
            ("TERMINATE:\nThe answer is:\n  5 apples", Some("5 apples")),
            ("TERMINATE: The answer is: [1, 2]", Some("[1, 2]")),
            (
                "TERMINATE: The answer is: \\boxed{1}+\\boxed{2}",
                Some("\\boxed{1}+\\boxed{2}"),
            ),
            ("TERMINATE: The answer is: (B)", Some("(B)")),
            ("TERMINATE: The answer is:   \n", None),
            ("TERMINATE: The answer is: **.**", None),
            (
                "TERMINATE: the answer is: 3\nlater TERMINATE: The answer is 4",
                Some("4"),
            ),
            // The second line does not match (`.+` needs a character): the first one counts.
            (
                "TERMINATE: The answer is 3\nTERMINATE: The answer is",
                Some("3"),
            ),
            (
                "TERMINATE: The answer is 3\nTERMINATE: The answer is  ",
                None,
            ),
            ("TERMINATE: The answer is:\n", Some(":")),
            // Matches do not overlap: the first one takes the whole line.
            (
                "TERMINATE: The answer is: TERMINATE: The answer is: 5",
                Some("TERMINATE: The answer is: 5"),
            ),
            ("The answer is 3. TERMINATE", None),
            ("TERMINATED: The answer is 3", None),
            ("", None),
        ] {
            assert_eq!(parse_terminate(text).as_deref(), want, "{text:?}");
        }
    }

    #[test]
    fn verdict_lines_of_the_spec() {
        let v = parse_verdicts(
            "Checks.\nVERDICT W1: valid\n  verdict w2 : INVALID because\nVERDICT W3:valid\n\
             VERDICT W1: invalid\nVERDICT W4: validated\nnot a VERDICT W5: valid\nVERDICT: W6 valid",
        );
        let want: BTreeMap<String, bool> = [("w1", false), ("w2", false), ("w3", true)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert_eq!(v, want);
        assert!(parse_verdicts("").is_empty());
        // The lazy id stops at the first colon that is followed by a verdict.
        let v = parse_verdicts("VERDICT W7:: valid");
        assert_eq!(v.get("w7:"), Some(&true));
    }

    #[test]
    fn subevent_blocks() {
        let good = "Plan...\n```json\n{\"subevents\": [{\"id\": \"S1\", \"title\": \"a\", \
                    \"description\": \"d1\", \"depends_on\": [], \"milestone\": \"m\"}, \
                    {\"id\": \"S2\", \"title\": \"b\", \"description\": \"d2\", \"depends_on\": \
                    [\"S1\"]}]}\n```";
        let s = parse_subevents(good).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].depends_on, vec!["S1"]);
        assert_eq!(s[1].milestone, "");
        let entry = |id: &str, deps: &str| {
            format!("{{\"id\": \"{id}\", \"title\": \"t\", \"description\": \"d\", \"depends_on\": [{deps}]}}")
        };
        let block = |entries: Vec<String>| format!("{{\"subevents\": [{}]}}", entries.join(","));
        for (text, want) in [
            ("no block".to_string(), SubeventError::Missing),
            (block(vec![]), SubeventError::Count { count: 0 }),
            (
                block((0..5).map(|i| entry(&format!("S{i}"), "")).collect()),
                SubeventError::Count { count: 5 },
            ),
            (
                block(vec![entry("S1", ""), entry("S1", "")]),
                SubeventError::Duplicate { id: "S1".into() },
            ),
            (
                block(vec![entry("S1", "\"S9\"")]),
                SubeventError::UnknownDependency {
                    id: "S1".into(),
                    dependency: "S9".into(),
                },
            ),
            (
                block(vec![entry("S1", "\"S2\""), entry("S2", "\"S1\"")]),
                SubeventError::Cycle,
            ),
            (
                block(vec![entry("", "")]),
                SubeventError::Empty {
                    index: 0,
                    field: "id",
                },
            ),
        ] {
            assert_eq!(parse_subevents(&text).unwrap_err(), want, "{text}");
        }
        let e = parse_subevents("{\"subevents\": [oops]}").unwrap_err();
        assert!(matches!(e, SubeventError::Syntax { .. }), "{e:?}");
    }

    #[test]
    fn mentions_and_role_switches() {
        assert!(mentions("I agree with W1.", "W1"));
        assert!(!mentions("I agree with W10.", "W1"));
        assert!(!mentions("XW1", "W1"));
        assert_eq!(
            role_switch_lines("ok\nRole switch: I now act as a worker.\nfine"),
            vec!["Role switch: I now act as a worker."]
        );
    }
}
