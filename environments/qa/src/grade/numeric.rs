//! Numeric answers (docs/design/grading.md §4.5, GSM8K, GSM-Hard, AIME): candidate clean-up, the
//! numeric token grammar, exact values and the equivalence rules of Numeric and Integer items.
//!
//! Values: every token gets an `f64` (correctly rounded from its decimal literal, used for the
//! relative tolerance 1e-6, where `f64` precision is ample) and, when it fits, an exact
//! [`Rational`] over `i128` (used to decide integer-valuedness and integer equality). The
//! decimal-rounding rule compares decimal strings digit by digit, so it is exact too.

use super::boxed::last_boxed;
use super::latex::{command_at, unwrap_commands};
use super::rational::Rational;

/// The value of one numeric token.
#[derive(Debug, Clone, PartialEq)]
pub struct Number {
    /// Nearest `f64` (may be infinite for huge exponents or NaN for `0/0`).
    pub value: f64,
    /// Exact value when it fits in an `i128` fraction.
    pub exact: Option<Rational>,
    /// Set for plain decimal literals (no fraction, exponent or power of ten).
    plain: Option<PlainDecimal>,
}

/// A plain decimal literal: sign, integer digits (commas removed), fractional digits.
#[derive(Debug, Clone, PartialEq)]
struct PlainDecimal {
    negative: bool,
    int_digits: String,
    frac_digits: String,
}

/// One numeric token found in a string: its byte range and value.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// Byte offset of the first character (the `-` of a negative token).
    pub start: usize,
    /// Byte offset just past the token.
    pub end: usize,
    /// The token's value.
    pub number: Number,
}

impl Number {
    fn from_f64(value: f64) -> Self {
        Self {
            value,
            exact: None,
            plain: None,
        }
    }

    /// Whether the value is an integer (exactly when the exact form is known).
    pub fn is_integer(&self) -> bool {
        match self.exact {
            Some(r) => r.is_integer(),
            None => self.value.is_finite() && self.value.fract() == 0.0,
        }
    }

    fn negated(self) -> Self {
        Self {
            value: -self.value,
            exact: self.exact.and_then(Rational::neg),
            plain: self.plain.map(|p| PlainDecimal {
                negative: !p.negative,
                ..p
            }),
        }
    }

    fn divided(self, den: Number) -> Self {
        Self {
            value: self.value / den.value,
            exact: match (self.exact, den.exact) {
                (Some(a), Some(b)) => a.div(b),
                _ => None,
            },
            plain: None,
        }
    }
}

/// §4.5 step 2: unwrap `\text{…}`; delete `\$`, `$`, `\%`, `%`, `\!`, `\,`; `{,}` → `,`.
pub fn clean(segment: &str) -> String {
    let unwrapped = unwrap_commands(segment, &["text"]);
    if !unwrapped.contains(['$', '%', '\\', '{']) {
        return unwrapped;
    }
    unwrapped
        .replace("\\$", "")
        .replace('$', "")
        .replace("\\%", "")
        .replace('%', "")
        .replace("\\!", "")
        .replace("\\,", "")
        .replace("{,}", ",")
}

/// §4.5 step 3: `s` up to its first sentence end, a `.` or `;` followed by whitespace or the
/// end of `s`.
pub fn cut_sentence(s: &str) -> &str {
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if (c == '.' || c == ';') && it.peek().is_none_or(|(_, n)| n.is_whitespace()) {
            return s.get(..i).unwrap_or(s);
        }
    }
    s
}

/// §4.5 step 4: what follows the last `=`, or all of `s`.
pub fn after_last_eq(s: &str) -> &str {
    match s.rfind('=') {
        Some(p) => s.get(p + 1..).unwrap_or(""),
        None => s,
    }
}

/// Parses one candidate segment (§4.5 steps 1–6): the token as written after clean-up and
/// its value. `phrase` selects the sentence cut of step 3 (not for box contents).
pub fn parse_candidate(segment: &str, phrase: bool) -> Option<(String, Number)> {
    let (seg, boxed) = match last_boxed(segment) {
        Some(content) => (content, true),
        None => (segment.to_string(), false),
    };
    let cleaned = clean(&seg);
    let mut s = cleaned.as_str();
    if phrase && !boxed {
        s = cut_sentence(s);
    }
    s = after_last_eq(s);
    let t = first_token(s)?;
    Some((s.get(t.start..t.end)?.to_string(), t.number))
}

/// The weak fallback (§4.4 step 4): the last numeric token of the whole text after the
/// clean-up of §4.5 step 2 (which removes `$`).
pub fn last_number(text: &str) -> Option<(String, Number)> {
    let cleaned = clean(text);
    let t = Tokens::new(&cleaned).last()?;
    Some((cleaned.get(t.start..t.end)?.to_string(), t.number))
}

/// The value of an answer or gold string: its first numeric token after clean-up, else a
/// plain `f64` literal such as `inf`.
pub fn parse_number(s: &str) -> Option<Number> {
    first_token(&clean(s))
        .map(|t| t.number)
        .or_else(|| s.trim().parse::<f64>().ok().map(Number::from_f64))
}

/// The value of `s` if it is exactly one numeric token (surrounding spaces allowed).
pub fn whole_number(s: &str) -> Option<Number> {
    let t = s.trim();
    first_token(t)
        .filter(|tok| tok.start == 0 && tok.end == t.len())
        .map(|tok| tok.number)
}

/// Whether two values are within the tolerance `|a − b| ≤ 1e-6 · max(1, |b|)`.
pub fn close(a: f64, b: f64) -> bool {
    a.is_finite() && b.is_finite() && (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

/// Numeric equivalence (§4.5): tolerance, else the decimal-rounding rule for a non-integer
/// gold and a plain decimal prediction with at least two fractional digits.
pub fn numeric_equal(pred: &Number, gold: &Number) -> bool {
    if close(pred.value, gold.value) {
        return true;
    }
    if gold.is_integer() || !gold.value.is_finite() {
        return false;
    }
    let Some(p) = &pred.plain else {
        return false;
    };
    let d = p.frac_digits.len();
    if d < 2 {
        return false;
    }
    round_half_away(&format!("{}", gold.value), d)
        .is_some_and(|r| r == canonical(p.negative, &p.int_digits, &p.frac_digits))
}

/// Integer equivalence (§4.5, AIME): the prediction is integer-valued and equal to the gold.
pub fn integer_equal(pred: &Number, gold: &Number) -> bool {
    if !pred.is_integer() {
        return false;
    }
    match (pred.exact, gold.exact) {
        (Some(a), Some(b)) => a == b,
        _ => pred.value.is_finite() && pred.value == gold.value,
    }
}

/// `-?int.frac` with leading zeros of `int` removed and no sign on zero.
fn canonical(negative: bool, int: &str, frac: &str) -> String {
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let zero = int == "0" && frac.bytes().all(|b| b == b'0');
    let sign = if negative && !zero { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// Rounds the decimal string `g` (`-?digits(.digits)?`) half away from zero to `d`
/// fractional digits, in [`canonical`] form.
fn round_half_away(g: &str, d: usize) -> Option<String> {
    let (negative, body) = match g.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, g),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    if frac.len() <= d {
        let padded = format!("{frac:0<d$}");
        return Some(canonical(negative, int, &padded));
    }
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes().take(d)).collect();
    if frac.as_bytes().get(d).is_some_and(|b| *b >= b'5') {
        let mut carry = true;
        for b in digits.iter_mut().rev() {
            if *b == b'9' {
                *b = b'0';
            } else {
                *b += 1;
                carry = false;
                break;
            }
        }
        if carry {
            digits.insert(0, b'1');
        }
    }
    let split = digits.len().checked_sub(d)?;
    let s = String::from_utf8(digits).ok()?;
    Some(canonical(negative, s.get(..split)?, s.get(split..)?))
}

/// The first numeric token of `s` (§4.5 step 5).
pub fn first_token(s: &str) -> Option<Token> {
    Tokens::new(s).next()
}

/// Numeric tokens of a string, scanned left to right taking the longest match at each
/// position and resuming after it (§4.5 step 5).
pub struct Tokens<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Tokens<'a> {
    /// Scans `s` from its start.
    pub fn new(s: &'a str) -> Self {
        Self { s, i: 0 }
    }
}

impl Iterator for Tokens<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let b = self.s.as_bytes();
        while let Some(&c) = b.get(self.i) {
            // Only these characters can start a token.
            let may_start = c.is_ascii_digit() || matches!(c, b'-' | b'.' | b'\\');
            if !may_start {
                self.i += 1;
                continue;
            }
            if let Some(t) = token_at(self.s, self.i) {
                self.i = t.end.max(self.i + 1);
                return Some(t);
            }
            self.i += self
                .s
                .get(self.i..)
                .and_then(|r| r.chars().next())
                .map_or(1, char::len_utf8);
        }
        None
    }
}

fn is_digit(b: &[u8], k: usize) -> bool {
    b.get(k).is_some_and(u8::is_ascii_digit)
}

fn digits_run(b: &[u8], k: usize) -> usize {
    b.get(k..)
        .map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count())
}

fn skip_spaces(b: &[u8], mut k: usize) -> usize {
    while b.get(k) == Some(&b' ') {
        k += 1;
    }
    k
}

/// The token starting at byte `i` (a char boundary), if one does.
fn token_at(s: &str, i: usize) -> Option<Token> {
    let b = s.as_bytes();
    let mut j = i;
    let mut negative = false;
    if b.get(j) == Some(&b'-') {
        let prev = s.get(..i).and_then(|p| p.chars().next_back());
        if prev.is_some_and(|c| c.is_alphanumeric() || c == ')' || c == '}') {
            return None;
        }
        negative = true;
        j += 1;
    }
    if let Some((number, end)) = latex_frac(s, j) {
        let number = if negative { number.negated() } else { number };
        return Some(Token {
            start: i,
            end,
            number,
        });
    }
    let (int, frac, mut k) = if is_digit(b, j) {
        let run = digits_run(b, j);
        let mut k = j + run;
        let mut int = s.get(j..k)?.to_string();
        if run <= 3 {
            while b.get(k) == Some(&b',') && digits_run(b, k + 1) == 3 {
                int.push_str(s.get(k + 1..k + 4)?);
                k += 4;
            }
        }
        let mut frac = "";
        if b.get(k) == Some(&b'.') && is_digit(b, k + 1) {
            let r = digits_run(b, k + 1);
            frac = s.get(k + 1..k + 1 + r)?;
            k += 1 + r;
        }
        (int, frac, k)
    } else if b.get(j) == Some(&b'.') && is_digit(b, j + 1) {
        let r = digits_run(b, j + 1);
        (String::new(), s.get(j + 1..j + 1 + r)?, j + 1 + r)
    } else {
        return None;
    };
    let mut plain = true;
    let mut slash = None;
    if b.get(k) == Some(&b'/') && is_digit(b, k + 1) {
        let r = digits_run(b, k + 1);
        slash = Some(s.get(k + 1..k + 1 + r)?);
        k += 1 + r;
        plain = false;
    }
    let mut exp: i64 = 0;
    if matches!(b.get(k), Some(b'e' | b'E')) {
        if let Some((e, end)) = signed_int(b, k + 1) {
            exp = e;
            k = end;
            plain = false;
        }
    }
    if let Some((p, end)) = times_pow10(s, k) {
        exp = exp.saturating_add(p);
        k = end;
        plain = false;
    }
    let mut number = decimal(&int, frac, exp, plain);
    if let Some(den) = slash {
        number = number.divided(decimal(den, "", 0, false));
    }
    if negative {
        number = number.negated();
    }
    Some(Token {
        start: i,
        end: k,
        number,
    })
}

/// `±?digits` at `k` as a saturating `i64`, and the offset after it.
fn signed_int(b: &[u8], k: usize) -> Option<(i64, usize)> {
    let (neg, m) = match b.get(k) {
        Some(b'-') => (true, k + 1),
        Some(b'+') => (false, k + 1),
        _ => (false, k),
    };
    let r = digits_run(b, m);
    if r == 0 {
        return None;
    }
    let mut v: i64 = 0;
    for d in b.get(m..m + r)? {
        v = v.saturating_mul(10).saturating_add(i64::from(d - b'0'));
    }
    Some((if neg { -v } else { v }, m + r))
}

/// `\times 10^{±d}` or `\times 10^±d` (also `\cdot`, `×`, `x`; spaces around the sign) at `k`.
fn times_pow10(s: &str, k: usize) -> Option<(i64, usize)> {
    let b = s.as_bytes();
    let mut m = skip_spaces(b, k);
    if command_at(s, m, "times") {
        m += 6;
    } else if command_at(s, m, "cdot") {
        m += 5;
    } else if s.get(m..).is_some_and(|r| r.starts_with('×')) {
        m += '×'.len_utf8();
    } else if b.get(m) == Some(&b'x') {
        m += 1;
    } else {
        return None;
    }
    m = skip_spaces(b, m);
    if !s.get(m..).is_some_and(|r| r.starts_with("10^")) {
        return None;
    }
    m += 3;
    if b.get(m) == Some(&b'{') {
        let (p, end) = signed_int(b, skip_spaces(b, m + 1))?;
        let end = skip_spaces(b, end);
        (b.get(end) == Some(&b'}')).then_some((p, end + 1))
    } else {
        signed_int(b, m)
    }
}

/// `\frac{A}{B}` (also `\dfrac`, `\tfrac`) at `j` with decimal `A`, `B`; a single digit
/// without braces is accepted as an argument too (`\frac12`).
fn latex_frac(s: &str, j: usize) -> Option<(Number, usize)> {
    let name_len = if command_at(s, j, "frac") {
        5
    } else if command_at(s, j, "dfrac") || command_at(s, j, "tfrac") {
        6
    } else {
        return None;
    };
    let (num, m) = frac_arg(s, j + name_len)?;
    let (den, m) = frac_arg(s, m)?;
    Some((num.divided(den), m))
}

/// One argument of [`latex_frac`]: `{ -?digits(.digits)? }` or a single digit.
fn frac_arg(s: &str, m: usize) -> Option<(Number, usize)> {
    let b = s.as_bytes();
    if is_digit(b, m) {
        return Some((decimal(s.get(m..m + 1)?, "", 0, false), m + 1));
    }
    if b.get(m) != Some(&b'{') {
        return None;
    }
    let mut k = skip_spaces(b, m + 1);
    let negative = b.get(k) == Some(&b'-');
    if negative {
        k += 1;
    }
    let r = digits_run(b, k);
    if r == 0 {
        return None;
    }
    let int = s.get(k..k + r)?;
    k += r;
    let mut frac = "";
    if b.get(k) == Some(&b'.') && is_digit(b, k + 1) {
        let fr = digits_run(b, k + 1);
        frac = s.get(k + 1..k + 1 + fr)?;
        k += 1 + fr;
    }
    k = skip_spaces(b, k);
    if b.get(k) != Some(&b'}') {
        return None;
    }
    let n = decimal(int, frac, 0, false);
    Some((if negative { n.negated() } else { n }, k + 1))
}

/// The value of the non-negative literal `int.frac · 10^exp`.
fn decimal(int: &str, frac: &str, exp: i64, plain: bool) -> Number {
    let e = exp.clamp(-1_000_000, 1_000_000);
    let i = if int.is_empty() { "0" } else { int };
    let f = if frac.is_empty() { "0" } else { frac };
    let value = format!("{i}.{f}e{e}").parse::<f64>().unwrap_or(f64::NAN);
    let exact = Rational::from_decimal(int, frac).and_then(|r| r.scale10(exp));
    Number {
        value,
        exact,
        plain: plain.then(|| PlainDecimal {
            negative: false,
            int_digits: int.to_string(),
            frac_digits: frac.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<(&str, f64)> {
        Tokens::new(s)
            .map(|t| (s.get(t.start..t.end).unwrap_or("?"), t.number.value))
            .collect()
    }

    #[test]
    fn token_grammar() {
        assert_eq!(
            toks("1,234 and 1,2345"),
            [("1,234", 1234.0), ("1", 1.0), ("2345", 2345.0)]
        );
        assert_eq!(toks("20-8"), [("20", 20.0), ("8", 8.0)]);
        assert_eq!(toks("x -8, (-2)"), [("-8", -8.0), ("-2", -2.0)]);
        assert_eq!(toks("3,5 l"), [("3", 3.0), ("5", 5.0)]);
        assert_eq!(toks("1/2."), [("1/2", 0.5)]);
        assert_eq!(toks("-.5"), [("-.5", -0.5)]);
        assert_eq!(toks("1.5 \\times 10^{6}."), [("1.5 \\times 10^{6}", 1.5e6)]);
        assert_eq!(toks("2 x 10^-3 g"), [("2 x 10^-3", 0.002)]);
        assert_eq!(toks("2×10^{ -1 }"), [("2×10^{ -1 }", 0.2)]);
        assert_eq!(toks("3 x 10 apples"), [("3", 3.0), ("10", 10.0)]);
        assert_eq!(toks("1e-05 and 5eggs"), [("1e-05", 1e-5), ("5", 5.0)]);
        assert_eq!(toks("-\\frac{7}{2}"), [("-\\frac{7}{2}", -3.5)]);
        assert_eq!(
            toks("\\dfrac{ 1.5 }{3} \\tfrac12"),
            [("\\dfrac{ 1.5 }{3}", 0.5), ("\\tfrac12", 0.5)]
        );
        assert_eq!(toks("1,200.00"), [("1,200.00", 1200.0)]);
        assert_eq!(toks("é-5ü"), [("5", 5.0)]);
        assert!(toks("\\frac{x}{0}").iter().all(|t| t.1 == 0.0));
    }

    #[test]
    fn candidate_steps() {
        let p = |s: &str, phrase: bool| parse_candidate(s, phrase).map(|(t, _)| t);
        assert_eq!(p("8. Check: 8 * 3 = 24", true).as_deref(), Some("8"));
        assert_eq!(p("8. Check: 8 * 3 = 24", false).as_deref(), Some("24"));
        assert_eq!(p("3 \\times 6 = 18", true).as_deref(), Some("18"));
        assert_eq!(p("\\$18.50", false).as_deref(), Some("18.50"));
        assert_eq!(p("3.5 \\text{ hours}", false).as_deref(), Some("3.5"));
        assert_eq!(p("x \\boxed{1{,}000} y 7", true).as_deref(), Some("1,000"));
        assert_eq!(p("25%.", true).as_deref(), Some("25"));
        assert_eq!(p("no digits", true), None);
        assert_eq!(
            last_number("The total cost is \\$1,200.00")
                .map(|t| t.0)
                .as_deref(),
            Some("1,200.00")
        );
    }

    #[test]
    fn rounding_rule() {
        assert_eq!(
            round_half_away("0.3333333333333333", 3).as_deref(),
            Some("0.333")
        );
        assert_eq!(round_half_away("2.675", 2).as_deref(), Some("2.68"));
        assert_eq!(round_half_away("-2.675", 2).as_deref(), Some("-2.68"));
        assert_eq!(round_half_away("9.996", 2).as_deref(), Some("10.00"));
        assert_eq!(round_half_away("-0.001", 2).as_deref(), Some("0.00"));
        assert_eq!(round_half_away("1.5", 3).as_deref(), Some("1.500"));
        assert_eq!(round_half_away("NaN", 2), None);
        let n = |s: &str| parse_number(s).unwrap_or(Number::from_f64(f64::NAN));
        assert!(numeric_equal(&n("0.333"), &n("0.3333333333333333")));
        assert!(numeric_equal(&n("0.67"), &n("0.6666666666666666")));
        assert!(!numeric_equal(&n("0.66"), &n("0.6666666666666666")));
        assert!(!numeric_equal(&n("0.3"), &n("0.3333333333333333")));
        assert!(!numeric_equal(&n("20.5"), &n("20")));
        assert!(numeric_equal(&n("5.00"), &n("5")));
        assert!(numeric_equal(&n("-1,234.57"), &n("-1234.5678")));
        assert!(!numeric_equal(&n("1/3"), &n("0.3333")));
        assert!(integer_equal(&n("033"), &n("33")));
        assert!(integer_equal(&n("3.3e1"), &n("33")));
        assert!(!integer_equal(&n("33.5"), &n("33")));
        assert!(!integer_equal(&n("1e400"), &n("33")));
    }
}
