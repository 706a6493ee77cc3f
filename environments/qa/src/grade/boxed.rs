//! `\boxed{…}` / `\fbox{…}` contents with brace matching (docs/design/grading.md §4.4 step 2,
//! "Boxed").

/// One boxed candidate: its content and the byte offset where `\boxed`/`\fbox` starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Boxed {
    /// Byte offset of the backslash of `\boxed` or `\fbox`.
    pub start: usize,
    /// The content between the matching braces (or the run after `\boxed `).
    pub content: String,
}

/// Every complete boxed candidate of `text`, in order of appearance.
///
/// `\boxed` or `\fbox`, optional spaces, `{`, content up to the matching `}` counting braces,
/// where `\{` and `\}` are literal and do not change depth. No matching `}` (truncated output)
/// is not a candidate. `\boxed 5` (space, no brace) yields the following run of non-space,
/// non-`$` characters. Linear time: brace pairs are computed once.
pub fn boxed_candidates(text: &str) -> Vec<Boxed> {
    let mut out = Vec::new();
    if !text.contains("\\boxed") && !text.contains("\\fbox") {
        return out;
    }
    let pairs = brace_pairs(text);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let rest = text.get(i..).unwrap_or("");
        let cmd_len = if rest.starts_with("\\boxed") {
            "\\boxed".len()
        } else if rest.starts_with("\\fbox") {
            "\\fbox".len()
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let start = i;
        let mut j = i + cmd_len;
        // A longer command name (e.g. `\boxedtext`) is not a box.
        if bytes.get(j).is_some_and(|b| b.is_ascii_alphabetic()) {
            i = j;
            continue;
        }
        let after_cmd = j;
        while bytes.get(j) == Some(&b' ') {
            j += 1;
        }
        if bytes.get(j) == Some(&b'{') {
            if let Some(content) = pair_close(&pairs, j).and_then(|end| text.get(j + 1..end)) {
                out.push(Boxed {
                    start,
                    content: content.to_string(),
                });
                i = j + 1 + content.len() + 1;
                continue;
            }
            i = j + 1;
            continue;
        }
        if j > after_cmd {
            let run: String = text
                .get(j..)
                .unwrap_or("")
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '$')
                .collect();
            if !run.is_empty() {
                i = j + run.len();
                out.push(Boxed {
                    start,
                    content: run,
                });
                continue;
            }
        }
        i = j.max(i + 1);
    }
    out
}

/// Whether `text` contains a `\boxed{` or `\fbox{` whose `{` has no matching `}`.
pub fn has_unterminated_box(text: &str) -> bool {
    if !text.contains("\\boxed") && !text.contains("\\fbox") {
        return false;
    }
    let pairs = brace_pairs(text);
    let bytes = text.as_bytes();
    text.match_indices('\\').any(|(i, _)| {
        let rest = text.get(i..).unwrap_or("");
        let len = if rest.starts_with("\\boxed") {
            6
        } else if rest.starts_with("\\fbox") {
            5
        } else {
            return false;
        };
        let mut j = i + len;
        if bytes.get(j).is_some_and(u8::is_ascii_alphabetic) {
            return false;
        }
        while bytes.get(j) == Some(&b' ') {
            j += 1;
        }
        bytes.get(j) == Some(&b'{') && pair_close(&pairs, j).is_none()
    })
}

/// Content of the last complete box in `text`.
pub fn last_boxed(text: &str) -> Option<String> {
    boxed_candidates(text).pop().map(|b| b.content)
}

/// Byte index of the `}` matching the `{` at `open`, skipping escaped `\{` and `\}`.
///
/// `None` when `open` is not a `{` or it has no matching `}`.
pub fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(open) != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut k = open;
    while let Some(&b) = bytes.get(k) {
        match b {
            b'\\' if matches!(bytes.get(k + 1), Some(b'{') | Some(b'}')) => {
                k += 2;
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
        k += 1;
    }
    None
}

/// All matched `{`…`}` pairs of `text` as byte offsets `(open, close)`, sorted by `open`.
///
/// Escaped `\{` and `\}` are literal; a `}` without an open `{` is ignored. Same pairs as
/// [`matching_brace`] gives for each `{`, in one linear pass.
pub fn brace_pairs(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut stack = Vec::new();
    let mut pairs = Vec::new();
    let mut k = 0;
    while let Some(&b) = bytes.get(k) {
        match b {
            b'\\' if matches!(bytes.get(k + 1), Some(b'{') | Some(b'}')) => {
                k += 2;
                continue;
            }
            b'{' => stack.push(k),
            b'}' => {
                if let Some(open) = stack.pop() {
                    pairs.push((open, k));
                }
            }
            _ => {}
        }
        k += 1;
    }
    pairs.sort_unstable();
    pairs
}

/// The close offset paired with the `{` at `open` in `pairs` (from [`brace_pairs`]).
pub fn pair_close(pairs: &[(usize, usize)], open: usize) -> Option<usize> {
    pairs
        .binary_search_by_key(&open, |p| p.0)
        .ok()
        .and_then(|i| pairs.get(i))
        .map(|p| p.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_escaped_truncated_and_spaced_boxes() {
        assert_eq!(
            last_boxed(r"so \boxed{\frac{a+\sqrt{b}}{c^{2}}}."),
            Some(r"\frac{a+\sqrt{b}}{c^{2}}".into())
        );
        assert_eq!(last_boxed(r"\boxed{\{1,2\}}"), Some(r"\{1,2\}".into()));
        assert_eq!(last_boxed(r"\boxed{3} then \fbox {5}"), Some("5".into()));
        assert_eq!(last_boxed(r"Thus \boxed{\frac{1}{2}"), None);
        assert_eq!(last_boxed(r"\boxed 5$ done"), Some("5".into()));
        let all = boxed_candidates(r"a \boxed{1} b \boxed{2}");
        assert_eq!(all.iter().map(|b| b.start).collect::<Vec<_>>(), [2, 14]);
        assert_eq!(last_boxed("no box here, é ü"), None);
        assert_eq!(last_boxed(r"\boxed{ \boxed{7}"), Some("7".into()));
        assert_eq!(last_boxed("\\boxed é"), Some("é".into()));
        assert_eq!(last_boxed("\\boxed"), None);
        assert!(has_unterminated_box(r"x \boxed{1} \fbox {2"));
        assert!(!has_unterminated_box(r"x \boxed{1} \boxedx{2 \boxed 3"));
    }

    #[test]
    fn pairs_agree_with_matching_brace() {
        let t = r"}{a{b\}c}{d}}{e";
        let pairs = brace_pairs(t);
        for (open, _) in t.char_indices().filter(|(_, c)| *c == '{') {
            assert_eq!(
                pair_close(&pairs, open),
                matching_brace(t, open),
                "at {open}"
            );
        }
        assert_eq!(matching_brace("}", 0), None);
    }
}
