//! `calculator`: exact rational arithmetic on one expression, no code execution.
//!
//! Grammar: numbers (integers of any size, decimals such as `0.25`, read exactly as 1/4),
//! `+ - * /`, `^` or `**` with an integer exponent, unary minus, parentheses. The result is
//! the exact fraction in lowest terms, with a decimal rendering when it is not an integer
//! (`7/6 ≈ 1.1666666667`). Decision: bounded so no expression can hang or exhaust memory:
//! at most [`MAX_EXPRESSION`] bytes, nesting of [`MAX_DEPTH`], exponents of magnitude at most
//! [`MAX_EXPONENT`], and no intermediate value above [`MAX_BITS`] bits.

use async_trait::async_trait;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use serde_json::{json, Value};

use colony_llm::ToolSpec;
use colony_runtime::{Tool, ToolError};

/// Longest expression accepted, in bytes.
pub const MAX_EXPRESSION: usize = 4096;
/// Deepest nesting of parentheses and unary minus.
pub const MAX_DEPTH: usize = 64;
/// Largest exponent magnitude.
pub const MAX_EXPONENT: u32 = 4096;
/// Largest numerator or denominator of any intermediate value, in bits.
pub const MAX_BITS: u64 = 65_536;

/// The `calculator` tool (see the module docs).
#[derive(Debug)]
pub struct Calculator {
    spec: ToolSpec,
}

impl Default for Calculator {
    fn default() -> Self {
        Self {
            spec: ToolSpec {
                name: "calculator".into(),
                description: "Evaluates an arithmetic expression exactly (rational numbers): \
                              + - * / ^ and parentheses; returns the exact fraction and a decimal."
                    .into(),
                parameters: json!({
                    "type": "object",
                    "properties": {"expression": {
                        "type": "string",
                        "description": "The expression, e.g. '(1/3 + 2^10) * 3'.",
                        "examples": ["(1/3 + 2^10) * 3"],
                        "maxLength": MAX_EXPRESSION,
                    }},
                    "required": ["expression"],
                    "additionalProperties": false,
                }),
            },
        }
    }
}

#[async_trait]
impl Tool for Calculator {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, arguments: Value) -> Result<String, ToolError> {
        let expr = arguments
            .get("expression")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::InvalidArguments {
                message: "`expression` must be a string".into(),
            })?;
        evaluate(expr)
            .map(|v| render(&v))
            .map_err(|message| ToolError::Failed { message })
    }
}

/// The exact value of `expr`, or what is wrong with it.
pub fn evaluate(expr: &str) -> Result<BigRational, String> {
    if expr.len() > MAX_EXPRESSION {
        return Err(format!("expression longer than {MAX_EXPRESSION} bytes"));
    }
    let tokens = tokenize(expr)?;
    let mut p = Parser { tokens, at: 0 };
    let v = p.sum(0)?;
    match p.tokens.get(p.at) {
        None => Ok(v),
        Some(t) => Err(format!("unexpected {t:?} after a complete expression")),
    }
}

/// `7/6 ≈ 1.1666666667`, or the integer alone.
pub fn render(v: &BigRational) -> String {
    if v.is_integer() {
        return v.to_integer().to_string();
    }
    let approx = v
        .numer()
        .to_f64()
        .zip(v.denom().to_f64())
        .map(|(n, d)| n / d)
        .filter(|f| f.is_finite());
    match approx {
        Some(f) => format!("{}/{} ≈ {}", v.numer(), v.denom(), format_float(f)),
        None => format!("{}/{}", v.numer(), v.denom()),
    }
}

fn format_float(f: f64) -> String {
    let s = format!("{f:.10}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Num(BigRational),
    Op(char),
    Open,
    Close,
}

fn tokenize(s: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '0'..='9' | '.' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_ascii_digit() || chars[i] == '.' || chars[i] == '_')
                {
                    i += 1;
                }
                let text: String = chars[start..i].iter().filter(|&&c| c != '_').collect();
                out.push(Token::Num(number(&text)?));
            }
            '*' if chars.get(i + 1) == Some(&'*') => {
                out.push(Token::Op('^'));
                i += 2;
            }
            '+' | '-' | '*' | '/' | '^' => {
                out.push(Token::Op(c));
                i += 1;
            }
            '×' => {
                out.push(Token::Op('*'));
                i += 1;
            }
            '÷' => {
                out.push(Token::Op('/'));
                i += 1;
            }
            '(' => {
                out.push(Token::Open);
                i += 1;
            }
            ')' => {
                out.push(Token::Close);
                i += 1;
            }
            other => return Err(format!("unexpected character {other:?}")),
        }
    }
    Ok(out)
}

fn number(text: &str) -> Result<BigRational, String> {
    let (int, frac) = match text.split_once('.') {
        Some((a, b)) => (a, b),
        None => (text, ""),
    };
    if frac.contains('.') || (int.is_empty() && frac.is_empty()) {
        return Err(format!("malformed number {text:?}"));
    }
    let digits = format!("{int}{frac}");
    let n: BigInt = digits
        .parse()
        .map_err(|_| format!("malformed number {text:?}"))?;
    let d = num_traits::pow(BigInt::from(10), frac.len());
    Ok(BigRational::new(n, d))
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

fn bounded(v: BigRational) -> Result<BigRational, String> {
    if v.numer().bits() > MAX_BITS || v.denom().bits() > MAX_BITS {
        return Err(format!("a value grew beyond {MAX_BITS} bits"));
    }
    Ok(v)
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn sum(&mut self, depth: usize) -> Result<BigRational, String> {
        let mut v = self.product(depth)?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.peek().cloned() {
            self.at += 1;
            let rhs = self.product(depth)?;
            v = bounded(if op == '+' { v + rhs } else { v - rhs })?;
        }
        Ok(v)
    }

    fn product(&mut self, depth: usize) -> Result<BigRational, String> {
        let mut v = self.unary(depth)?;
        while let Some(Token::Op(op @ ('*' | '/'))) = self.peek().cloned() {
            self.at += 1;
            let rhs = self.unary(depth)?;
            v = bounded(if op == '*' {
                v * rhs
            } else {
                if rhs.is_zero() {
                    return Err("division by zero".into());
                }
                v / rhs
            })?;
        }
        Ok(v)
    }

    fn unary(&mut self, depth: usize) -> Result<BigRational, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        match self.peek() {
            Some(Token::Op('-')) => {
                self.at += 1;
                Ok(-self.unary(depth + 1)?)
            }
            Some(Token::Op('+')) => {
                self.at += 1;
                self.unary(depth + 1)
            }
            _ => self.power(depth),
        }
    }

    fn power(&mut self, depth: usize) -> Result<BigRational, String> {
        let base = self.atom(depth)?;
        if let Some(Token::Op('^')) = self.peek() {
            self.at += 1;
            // Right-associative: 2^3^2 = 2^9.
            let exp = self.unary(depth + 1)?;
            if !exp.is_integer() {
                return Err("exponents must be integers (the result would not be rational)".into());
            }
            let e = exp
                .to_integer()
                .to_i64()
                .filter(|e| e.unsigned_abs() <= u64::from(MAX_EXPONENT))
                .ok_or_else(|| format!("exponent beyond ±{MAX_EXPONENT}"))?;
            if base.is_zero() && e < 0 {
                return Err("division by zero".into());
            }
            let bits = base.numer().bits().max(base.denom().bits());
            if bits.saturating_mul(e.unsigned_abs()) > MAX_BITS {
                return Err(format!("a value grew beyond {MAX_BITS} bits"));
            }
            let p = num_traits::pow(base.clone(), e.unsigned_abs() as usize);
            return bounded(if e < 0 { p.recip() } else { p });
        }
        Ok(base)
    }

    fn atom(&mut self, depth: usize) -> Result<BigRational, String> {
        match self.tokens.get(self.at).cloned() {
            Some(Token::Num(n)) => {
                self.at += 1;
                Ok(n)
            }
            Some(Token::Open) => {
                self.at += 1;
                let v = self.sum(depth + 1)?;
                match self.peek() {
                    Some(Token::Close) => {
                        self.at += 1;
                        Ok(v)
                    }
                    _ => Err("missing `)`".into()),
                }
            }
            Some(t) => Err(format!("unexpected {t:?}")),
            None => Err("the expression ends too early".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn eval(s: &str) -> String {
        render(&evaluate(s).unwrap())
    }

    #[test]
    fn exact_results() {
        assert_eq!(eval("1/3 + 1/6"), "1/2 ≈ 0.5");
        assert_eq!(eval("(1/3 + 2^10) * 3"), "3073");
        assert_eq!(eval("0.1 + 0.2"), "3/10 ≈ 0.3");
        assert_eq!(eval("2^3^2"), "512");
        assert_eq!(eval("-2**-2"), "-1/4 ≈ -0.25");
        assert_eq!(eval("2^100"), "1267650600228229401496703205376");
        assert_eq!(eval("7 × 6 ÷ 3"), "14");
    }

    #[test]
    fn bad_input_is_refused_not_crashed() {
        for (bad, says) in [
            ("1/0", "division by zero"),
            ("2^0.5", "integers"),
            ("(1+2", "missing `)`"),
            ("1 +", "ends too early"),
            ("import os", "unexpected character"),
            ("2^100000", "exponent beyond"),
            ("10^4000^2", "exponent beyond"),
            ("1.2.3", "malformed number"),
            ("3 4", "after a complete expression"),
        ] {
            let err = evaluate(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
        assert!(evaluate(&"(".repeat(100)).unwrap_err().contains("nested"));
        assert!(evaluate(&"9".repeat(5000)).unwrap_err().contains("longer"));
        let huge = "(2^4000)*(2^4000)*".repeat(10) + "1";
        assert!(evaluate(&huge).unwrap_err().contains("bits"));
    }
}
