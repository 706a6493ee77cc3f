//! LaTeX scanning helpers shared by the filters of docs/design/grading.md §4.4–4.7: command
//! matching, `\text{…}`-style unwrapping and inline-math spans (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`).
//!
//! Every scanner works on byte offsets of ASCII delimiters, so slices always fall on UTF-8
//! character boundaries, and runs in linear time (brace pairs are computed once).

use super::boxed::{brace_pairs, pair_close};

/// Whether `text[i..]` starts with the command `\name` not followed by another ASCII letter.
pub(crate) fn command_at(text: &str, i: usize, name: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.get(i) != Some(&b'\\') {
        return false;
    }
    let Some(rest) = text.get(i + 1..) else {
        return false;
    };
    rest.starts_with(name)
        && !bytes
            .get(i + 1 + name.len())
            .is_some_and(u8::is_ascii_alphabetic)
}

/// Replaces every `\cmd{X}` (optional spaces before `{`) by `X` for each `cmd` of `names`.
///
/// All matched wrappers are removed at once, which is the same as unwrapping innermost first
/// (removing a matched brace pair never changes the other pairs); repeated while something
/// changes (bounded) in case a removal forms a new wrapper. A wrapper whose `{` has no
/// matching `}` is left alone.
pub(crate) fn unwrap_commands(text: &str, names: &[&str]) -> String {
    let mut cur = text.to_string();
    for _ in 0..4 {
        match unwrap_once(&cur, names) {
            Some(next) => cur = next,
            None => break,
        }
    }
    cur
}

/// One pass of [`unwrap_commands`]; `None` when nothing was unwrapped.
fn unwrap_once(text: &str, names: &[&str]) -> Option<String> {
    if !text.contains('\\') {
        return None;
    }
    let bytes = text.as_bytes();
    let pairs = brace_pairs(text);
    // Byte ranges to delete, in increasing order of start.
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut closes: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes.get(i) == Some(&b'\\') {
            if let Some(name) = names.iter().find(|n| command_at(text, i, n)) {
                let mut j = i + 1 + name.len();
                while bytes.get(j) == Some(&b' ') {
                    j += 1;
                }
                if bytes.get(j) == Some(&b'{') {
                    if let Some(close) = pair_close(&pairs, j) {
                        cuts.push((i, j + 1));
                        closes.push(close);
                        i = j + 1;
                        continue;
                    }
                }
            }
            // Skip the backslash and the next character (an escaped `\\` stays intact).
            i += 1;
            if let Some(c) = text.get(i..).and_then(|r| r.chars().next()) {
                i += c.len_utf8();
            }
            continue;
        }
        i += 1;
    }
    if cuts.is_empty() {
        return None;
    }
    cuts.extend(closes.into_iter().map(|c| (c, c + 1)));
    cuts.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for (a, b) in cuts {
        if a >= pos {
            out.push_str(text.get(pos..a).unwrap_or(""));
        }
        pos = pos.max(b);
    }
    out.push_str(text.get(pos..).unwrap_or(""));
    Some(out)
}

/// Inline-math contents of `text` in order of appearance: `$$…$$`, `$…$`, `\(…\)`, `\[…\]`.
///
/// `\$` is a literal dollar, never a delimiter. An opener without its closer is skipped.
pub(crate) fn inline_math(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // Once a search for a closer fails, every later search for it fails too.
    let mut no_more = [false; 4]; // `$$`, `$`, `\)`, `\]`
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let (open_len, closer, slot) = match (b, bytes.get(i + 1)) {
            (b'\\', Some(b'$')) => {
                i += 2;
                continue;
            }
            (b'$', Some(b'$')) => (2, "$$", 0),
            (b'$', _) => (1, "$", 1),
            (b'\\', Some(b'(')) => (2, "\\)", 2),
            (b'\\', Some(b'[')) => (2, "\\]", 3),
            (b'\\', Some(_)) => {
                // Any other escape: skip the backslash and the escaped character.
                i += 1;
                if let Some(c) = text.get(i..).and_then(|r| r.chars().next()) {
                    i += c.len_utf8();
                }
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        let from = i + open_len;
        let found = if no_more.get(slot).copied().unwrap_or(true) {
            None
        } else {
            find_closer(text, from, closer)
        };
        match found {
            Some(end) => {
                out.push(text.get(from..end).unwrap_or(""));
                i = end + closer.len();
            }
            None => {
                if let Some(flag) = no_more.get_mut(slot) {
                    *flag = true;
                }
                i = from;
            }
        }
    }
    out
}

/// Byte offset of the next `closer` at or after `from`, skipping `\$` for dollar closers.
fn find_closer(text: &str, from: usize, closer: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut k = from;
    while k < bytes.len() {
        if closer.starts_with('$')
            && bytes.get(k) == Some(&b'\\')
            && bytes.get(k + 1) == Some(&b'$')
        {
            k += 2;
            continue;
        }
        if text.get(k..).is_some_and(|r| r.starts_with(closer)) {
            return Some(k);
        }
        k += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwraps_nested_and_skips_unmatched() {
        let names = ["text", "textbf"];
        assert_eq!(unwrap_commands(r"\text{(C)}", &names), "(C)");
        assert_eq!(
            unwrap_commands(r"\text{a \textbf{b}} \frac{1}{2}", &names),
            r"a b \frac{1}{2}"
        );
        assert_eq!(
            unwrap_commands(r"\textit{x} \text{y", &names),
            r"\textit{x} \text{y"
        );
        assert_eq!(unwrap_commands(r"\text {é}", &names), "é");
        assert_eq!(unwrap_commands("\\", &names), "\\");
    }

    #[test]
    fn inline_math_spans() {
        assert_eq!(inline_math(r"is $\frac{3}{4}$. ok"), [r"\frac{3}{4}"]);
        assert_eq!(
            inline_math(r"$$a$$ and \(b\) and \[c\] $d$"),
            ["a", "b", "c", "d"]
        );
        assert_eq!(inline_math(r"costs \$5 and $x$"), ["x"]);
        assert_eq!(inline_math(r"open $x and \( y"), Vec::<&str>::new());
        assert_eq!(inline_math("é$ü$"), ["ü"]);
    }
}
