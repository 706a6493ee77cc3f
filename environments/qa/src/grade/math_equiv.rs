//! Equivalence tiers of mathematical expressions (docs/design/grading.md §4.6): string, structured
//! (tuples, intervals, sets, lists), numeric value and symbolic probing; the first success wins.

use super::math_expr::{parse, probe_value, Expr};
use super::math_norm::norm;
use super::numeric::close;

/// Nesting depth of structured comparison beyond which only the string tier is used.
const MAX_STRUCT_DEPTH: usize = 16;
/// Unordered lists longer than this are compared as sorted strings (no pairwise matching).
const MAX_MATCHING: usize = 64;

/// Whether the expression `pred` is equivalent to `gold` (both are normalised first).
pub fn math_equivalent(pred: &str, gold: &str, symbolic_probing: bool) -> bool {
    equiv(pred, gold, symbolic_probing, 0)
}

fn equiv(pred: &str, gold: &str, probing: bool, depth: usize) -> bool {
    let a = norm(pred);
    let b = norm(gold);
    // 1. String.
    if a == b {
        return true;
    }
    let alpha = |s: &str| !s.is_empty() && s.chars().all(char::is_alphabetic);
    if alpha(&a) && alpha(&b) && a.to_lowercase() == b.to_lowercase() {
        return true;
    }
    if depth >= MAX_STRUCT_DEPTH {
        return false;
    }
    // 2. Structured.
    if structured_equal(&a, &b, probing, depth) {
        return true;
    }
    // 3. Numeric value, 4. symbolic probing.
    let (Some(x), Some(y)) = (parse(&a), parse(&b)) else {
        return false;
    };
    if x.vars.is_empty() && y.vars.is_empty() {
        return close(x.eval(&|_| f64::NAN), y.eval(&|_| f64::NAN));
    }
    probing && x.vars == y.vars && probes_agree(&x, &y)
}

/// Tier 4: both expressions agree within tolerance at the 5 fixed points.
fn probes_agree(x: &Expr, y: &Expr) -> bool {
    let vars: Vec<u8> = x.vars.iter().copied().collect();
    (0..5).all(|k| {
        let value = |c: u8| {
            vars.iter()
                .position(|v| *v == c)
                .map_or(f64::NAN, |i| probe_value(k, i))
        };
        close(x.eval(&value), y.eval(&value))
    })
}

/// The enclosing wrapper of a normalised answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wrapper {
    /// `(…)`, `[…]` or mixed like `[…)`: ordered, the two bracket characters must agree.
    Ordered(u8, u8),
    /// `\{…\}` or no wrapper: unordered.
    Unordered,
}

/// Splits `s` into its wrapper and top-level comma-separated elements; the flag says whether
/// an explicit wrapper was present.
fn structure(s: &str) -> (Wrapper, bool, Vec<&str>) {
    let b = s.as_bytes();
    let closes_at_end = |open: usize| {
        // Depth over ()[]{} returns to zero only at the last byte.
        let mut depth = 0usize;
        for (k, c) in b.iter().enumerate().skip(open) {
            match c {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return k + 1 == b.len();
                    }
                }
                _ => {}
            }
        }
        false
    };
    if s.len() >= 4 && s.starts_with("\\{") && s.ends_with("\\}") && closes_at_end(1) {
        return (
            Wrapper::Unordered,
            true,
            split_top(s.get(2..s.len() - 2).unwrap_or("")),
        );
    }
    if let (Some(&o), Some(&c)) = (b.first(), b.last()) {
        if matches!(o, b'(' | b'[') && matches!(c, b')' | b']') && b.len() >= 2 && closes_at_end(0)
        {
            return (
                Wrapper::Ordered(o, c),
                true,
                split_top(s.get(1..s.len() - 1).unwrap_or("")),
            );
        }
    }
    (Wrapper::Unordered, false, split_top(s))
}

/// Splits on commas at depth 0 over `()[]{}`.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut from = 0;
    for (k, c) in s.bytes().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                out.push(s.get(from..k).unwrap_or(""));
                from = k + 1;
            }
            _ => {}
        }
    }
    out.push(s.get(from..).unwrap_or(""));
    out
}

/// Tier 2: same wrapper, same number of elements, elements equivalent (ordered or as a
/// multiset). Not applicable (false) unless a side has a wrapper or ≥ 2 elements.
fn structured_equal(a: &str, b: &str, probing: bool, depth: usize) -> bool {
    let (wa, has_a, ea) = structure(a);
    let (wb, has_b, eb) = structure(b);
    let applies = has_a || has_b || ea.len() >= 2 || eb.len() >= 2;
    if !applies || wa != wb || ea.len() != eb.len() {
        return false;
    }
    let eq = |x: &str, y: &str| equiv(x, y, probing, depth + 1);
    match wa {
        Wrapper::Ordered(..) => ea.iter().zip(&eb).all(|(x, y)| eq(x, y)),
        Wrapper::Unordered if ea.len() > MAX_MATCHING => {
            let mut x: Vec<String> = ea.iter().map(|e| norm(e)).collect();
            let mut y: Vec<String> = eb.iter().map(|e| norm(e)).collect();
            x.sort();
            y.sort();
            x == y
        }
        Wrapper::Unordered => {
            let adj: Vec<Vec<bool>> = ea
                .iter()
                .map(|x| eb.iter().map(|y| eq(x, y)).collect())
                .collect();
            perfect_matching(&adj)
        }
    }
}

/// Whether the square boolean matrix `adj` (rows: prediction, columns: gold) has a perfect
/// matching (augmenting paths).
fn perfect_matching(adj: &[Vec<bool>]) -> bool {
    let n = adj.len();
    let mut owner: Vec<Option<usize>> = vec![None; n];
    for row in 0..n {
        let mut seen = vec![false; n];
        if !augment(row, adj, &mut owner, &mut seen) {
            return false;
        }
    }
    true
}

fn augment(row: usize, adj: &[Vec<bool>], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
    let Some(edges) = adj.get(row) else {
        return false;
    };
    for (col, &ok) in edges.iter().enumerate() {
        if !ok || seen.get(col).copied().unwrap_or(true) {
            continue;
        }
        if let Some(s) = seen.get_mut(col) {
            *s = true;
        }
        let current = owner.get(col).copied().flatten();
        let free = match current {
            None => true,
            Some(other) => augment(other, adj, owner, seen),
        };
        if free {
            if let Some(o) = owner.get_mut(col) {
                *o = Some(row);
            }
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eq(a: &str, b: &str) -> bool {
        math_equivalent(a, b, true)
    }

    #[test]
    fn tiers() {
        assert!(eq(r"\dfrac{1}{2}", r"\frac12"));
        assert!(eq("0.5", r"\frac{1}{2}"));
        assert!(eq(r"2\sqrt{2}", r"\sqrt{8}"));
        assert!(!eq(r"\pi", "3.14"));
        assert!(eq("x^2+2x+1", "(x+1)^2"));
        assert!(!math_equivalent("x^2+2x+1", "(x+1)^2", false));
        assert!(!eq("x+1", "y+1"));
        assert!(!eq("x^2", "x^3"));
        assert!(eq("Evelyn", "evelyn"));
        assert!(!eq(r"\frac{1}{0}", r"\frac{2}{0}"));
    }

    #[test]
    fn structures() {
        assert!(eq("(2, 5)", "(2,5)"));
        assert!(!eq("(2,5)", "[2,5)"));
        assert!(eq("3, 5", "5, 3"));
        assert!(eq("1, 500", "500, 1"));
        assert!(eq(r"\{1,2\}", r"\{2,1\}"));
        assert!(eq(r"\{1,2\}", "2,1"));
        assert!(!eq("(1,2)", "(2,1)"));
        assert!(eq("(5)", "5"));
        assert!(eq(r"(3,\pi/2)", r"\left( 3, \frac{\pi}{2} \right)"));
        assert!(eq("1,1,2", "2,1,1"));
        assert!(!eq("1,1,2", "2,2,1"));
        assert!(eq("(0.5,(1,2))", r"(\frac12,(1,2))"));
        assert!(!eq("(x+1)(x-1)", "(x-1,x+1)"));
        assert!(eq("(x+1)(x-1)", "x^2-1"));
    }

    #[test]
    fn deep_structures_terminate() {
        let deep = format!("{}1{}", "(".repeat(5_000), ")".repeat(5_000));
        assert!(eq(&deep, &deep));
        let other = format!("{}2{}", "(".repeat(5_000), ")".repeat(5_000));
        assert!(!eq(&deep, &other));
    }
}
