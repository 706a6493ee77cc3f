//! Normalisation `norm(s)` of mathematical expressions (docs/design/grading.md §4.6, steps 1–10),
//! applied to the prediction and the gold before the equivalence tiers.

use super::boxed::{brace_pairs, pair_close};
use super::latex::{command_at, unwrap_commands};

/// Normalises a LaTeX answer (§4.6 steps 1–10).
pub fn norm(s: &str) -> String {
    // 1. Line breaks, spacing commands, \displaystyle, \left, \right.
    let mut t: String = s.chars().filter(|c| *c != '\n' && *c != '\r').collect();
    for esc in ["\\!", "\\,", "\\;", "\\:", "\\ "] {
        t = t.replace(esc, "");
    }
    t = remove_commands(&t, &["displaystyle", "left", "right"]);
    // 2. \dfrac, \tfrac → \frac.
    t = t.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac");
    // 3. Degrees, dollars, percents.
    for del in ["^{\\circ}", "^\\circ", "°", "\\$", "$", "\\%", "%"] {
        t = t.replace(del, "");
    }
    // 4. Trailing units after `\text{ `, then unwrap text-like commands.
    if let Some(p) = t.find("\\text{ ") {
        t.truncate(p);
    }
    t = unwrap_commands(
        &t,
        &["text", "textbf", "mathrm", "mathbf", "mbox", "operatorname"],
    );
    // 5. Trim, one trailing period, thousands separators of a whole grouped number.
    let mut u = t.trim();
    if let Some(v) = u.strip_suffix('.') {
        u = v;
    }
    let mut t = if is_grouped_number(u) {
        u.replace(',', "")
    } else {
        u.to_string()
    };
    // 6. `x = 5` → `5` when the left side is at most two characters.
    if t.matches('=').count() == 1 {
        if let Some((left, right)) = t.split_once('=') {
            if left.trim().chars().count() <= 2 {
                t = right.trim().to_string();
            }
        }
    }
    // 7. Spaces (removed first so that `\sqrt 3` is braced too), `\sqrtX`, `{.`, leading `.`.
    t.retain(|c| !c.is_whitespace());
    t = brace_single_args(&t, "sqrt", 1);
    t = t.replace("{.", "{0.");
    if t.starts_with('.') {
        t.insert(0, '0');
    }
    // 8. `\fracAB` → `\frac{A}{B}`.
    t = brace_single_args(&t, "frac", 2);
    // 9. `^{c}` → `^c`.
    t = unbrace_single_exponents(&t);
    // 10. Whole-string `A/B` with integers → `\frac{A}{B}`.
    if let Some((a, b)) = t.split_once('/') {
        let int = |x: &str| {
            let d = x.strip_prefix('-').unwrap_or(x);
            !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit())
        };
        if int(a) && !b.starts_with('-') && int(b) {
            t = format!("\\frac{{{a}}}{{{b}}}");
        }
    }
    t
}

/// Removes each command `\name` (not followed by another letter) of `names`.
fn remove_commands(s: &str, names: &[&str]) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest_from = 0;
    let mut i = 0;
    let bytes = s.as_bytes();
    while i < bytes.len() {
        if bytes.get(i) == Some(&b'\\') {
            if let Some(n) = names.iter().find(|n| command_at(s, i, n)) {
                out.push_str(s.get(rest_from..i).unwrap_or(""));
                i += 1 + n.len();
                rest_from = i;
                continue;
            }
            // Keep an escaped character (e.g. `\\`) as is.
            i += 2;
            continue;
        }
        i += 1;
    }
    out.push_str(s.get(rest_from..).unwrap_or(""));
    out
}

/// `-?d{1,3}(,ddd)+(.d+)?` with no spaces.
fn is_grouped_number(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    if frac.is_some_and(|f| f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let mut groups = int.split(',');
    let first = groups.next().unwrap_or("");
    let digits = |g: &str| g.bytes().all(|b| b.is_ascii_digit());
    let mut n = 0;
    for g in groups {
        if g.len() != 3 || !digits(g) {
            return false;
        }
        n += 1;
    }
    n >= 1 && (1..=3).contains(&first.len()) && digits(first)
}

/// For each `\name` (not followed by a letter), gives its first `count` arguments braces
/// when they are a single ASCII letter or digit (`\sqrt3` → `\sqrt{3}`,
/// `\frac1{72}` → `\frac{1}{72}`). Braced arguments are skipped over by brace matching.
fn brace_single_args(s: &str, name: &str, count: usize) -> String {
    if !s.contains(name) {
        return s.to_string();
    }
    let pairs = brace_pairs(s);
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len() + 8);
    let mut from = 0;
    let mut i = 0;
    while i < bytes.len() {
        if !command_at(s, i, name) {
            i += 1;
            continue;
        }
        let mut k = i + 1 + name.len();
        for _ in 0..count {
            match bytes.get(k) {
                Some(b'{') => match pair_close(&pairs, k) {
                    Some(close) => k = close + 1,
                    None => break,
                },
                Some(c) if c.is_ascii_alphanumeric() => {
                    out.push_str(s.get(from..k).unwrap_or(""));
                    out.push('{');
                    out.push(char::from(*c));
                    out.push('}');
                    k += 1;
                    from = k;
                }
                _ => break,
            }
        }
        i = (i + 1).max(k.min(bytes.len()));
        // `k` may sit inside a multi-byte character only if it never moved past ASCII.
        while i < bytes.len() && !s.is_char_boundary(i) {
            i += 1;
        }
    }
    out.push_str(s.get(from..).unwrap_or(""));
    out
}

/// `^{c}` → `^c` for a single character `c` (not a brace or backslash).
fn unbrace_single_exponents(s: &str) -> String {
    if !s.contains("^{") {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find("^{") {
        let (head, tail) = rest.split_at(p);
        out.push_str(head);
        let after = tail.get(2..).unwrap_or("");
        let mut chars = after.chars();
        match (chars.next(), chars.next()) {
            (Some(c), Some('}')) if !matches!(c, '{' | '}' | '\\') => {
                out.push('^');
                out.push(c);
                rest = after.get(c.len_utf8() + 1..).unwrap_or("");
            }
            _ => {
                out.push_str("^{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps() {
        assert_eq!(norm(r"\dfrac{1}{2}"), r"\frac{1}{2}");
        assert_eq!(norm(r"\frac12"), r"\frac{1}{2}");
        assert_eq!(norm(r"\frac1{72}"), r"\frac{1}{72}");
        assert_eq!(norm(r"\frac{1}2"), r"\frac{1}{2}");
        assert_eq!(norm(r"-\frac23"), r"-\frac{2}{3}");
        assert_eq!(norm(r"\frac{\sqrt3}{2}"), r"\frac{\sqrt{3}}{2}");
        assert_eq!(norm(r"\sqrt 3"), r"\sqrt{3}");
        assert_eq!(norm(r"\frac{a+\sqrt{b}}{c^{2}}"), r"\frac{a+\sqrt{b}}{c^2}");
        assert_eq!(norm("x = 5"), "5");
        assert_eq!(norm("k=3"), "3");
        assert_eq!(norm("abc = 3"), "abc=3");
        assert_eq!(norm("y = x = 2"), "y=x=2");
        assert_eq!(norm(r"90^\circ"), "90");
        assert_eq!(norm(r"10\%"), "10");
        assert_eq!(norm(r"\$1,000.50."), "1000.50");
        assert_eq!(norm("1, 500"), "1,500");
        assert_eq!(norm("1,500"), "1500");
        assert_eq!(norm(r"5 \text{ cm}"), "5");
        assert_eq!(norm(r"\text{(C)}"), "(C)");
        assert_eq!(norm(r"\mathrm{\textbf{Evelyn}}"), "Evelyn");
        assert_eq!(
            norm(r"\left( 3, \frac{\pi}{2} \right)"),
            r"(3,\frac{\pi}{2})"
        );
        assert_eq!(norm(r"\leftarrow \rightarrow"), r"\leftarrow\rightarrow");
        assert_eq!(norm(".5"), "0.5");
        assert_eq!(norm(r"\frac{.5}{2}"), r"\frac{0.5}{2}");
        assert_eq!(norm("1/2"), r"\frac{1}{2}");
        assert_eq!(norm("-3/4"), r"\frac{-3}{4}");
        assert_eq!(norm("x/2"), "x/2");
        assert_eq!(norm("x^{é}"), "x^é");
        assert_eq!(norm("\\"), "\\");
        assert_eq!(norm("\\sqrt"), "\\sqrt");
        assert_eq!(norm("\\fracé"), "\\fracé");
    }
}
