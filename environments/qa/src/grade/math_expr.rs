//! The expression grammar of docs/design/grading.md §4.6 (recursive descent over a normalised
//! string), its `f64` evaluation and the fixed probe points of symbolic probing.
//!
//! ```text
//! expr  := term (('+'|'-') term)*
//! term  := unary (('*'|'\cdot'|'\times'|'/') unary | power)*   -- bare power: implicit ×
//! unary := ('-'|'+') unary | power
//! power := atom ('^' ('{' expr '}' | '-'? atom))?
//! atom  := number | letter | '\pi' | '(' expr ')' | '{' expr '}' | '\frac' arg arg
//!        | '\sqrt' ('[' expr ']')? arg
//! arg   := '{' expr '}' | atom
//! ```
//!
//! Nesting deeper than [`MAX_DEPTH`] fails the parse, so hostile input cannot overflow the
//! stack; sums and products are n-ary nodes, so long flat chains do not nest either.

use std::collections::BTreeSet;

/// Maximum recursion depth of the parser (each `unary` and `atom` level counts one).
pub const MAX_DEPTH: usize = 200;

/// A parsed expression and the set of its single-letter variables.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    root: Node,
    /// The ASCII letters used as variables, sorted.
    pub vars: BTreeSet<u8>,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Num(f64),
    Var(u8),
    Pi,
    Neg(Box<Node>),
    /// Terms with a `negated` flag.
    Sum(Vec<(bool, Node)>),
    /// Factors with a `divide` flag.
    Product(Vec<(bool, Node)>),
    Pow(Box<Node>, Box<Node>),
    /// Optional index, radicand.
    Root(Option<Box<Node>>, Box<Node>),
}

/// Parses a whole normalised string; `None` if any part of it is outside the grammar.
pub fn parse(s: &str) -> Option<Expr> {
    let mut p = Parser {
        b: s.as_bytes(),
        pos: 0,
        vars: BTreeSet::new(),
    };
    let root = p.expr(0)?;
    (p.pos == p.b.len()).then_some(Expr { root, vars: p.vars })
}

impl Expr {
    /// Evaluates with `value(letter)` for each variable.
    pub fn eval(&self, value: &dyn Fn(u8) -> f64) -> f64 {
        eval(&self.root, value)
    }
}

/// The value of variable number `i` (letters sorted, counted from 0) at probe `k` (0..5).
pub fn probe_value(k: usize, i: usize) -> f64 {
    const POINTS: [f64; 5] = [0.7, 1.3, 1.9, 2.3, 0.55];
    POINTS.get((k + i) % 5).copied().unwrap_or(f64::NAN) + 0.1 * i as f64
}

fn eval(n: &Node, value: &dyn Fn(u8) -> f64) -> f64 {
    match n {
        Node::Num(v) => *v,
        Node::Var(c) => value(*c),
        Node::Pi => std::f64::consts::PI,
        Node::Neg(a) => -eval(a, value),
        Node::Sum(terms) => terms.iter().fold(0.0, |acc, (neg, t)| {
            let v = eval(t, value);
            if *neg {
                acc - v
            } else {
                acc + v
            }
        }),
        Node::Product(factors) => factors.iter().fold(1.0, |acc, (div, f)| {
            let v = eval(f, value);
            if *div {
                acc / v
            } else {
                acc * v
            }
        }),
        Node::Pow(a, b) => eval(a, value).powf(eval(b, value)),
        Node::Root(None, x) => eval(x, value).sqrt(),
        Node::Root(Some(k), x) => eval(x, value).powf(1.0 / eval(k, value)),
    }
}

struct Parser<'a> {
    b: &'a [u8],
    pos: usize,
    vars: BTreeSet<u8>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// The command name (ASCII letters) after a `\` at the current position.
    fn command(&self) -> Option<&[u8]> {
        if self.peek() != Some(b'\\') {
            return None;
        }
        let rest = self.b.get(self.pos + 1..)?;
        let n = rest.iter().take_while(|c| c.is_ascii_alphabetic()).count();
        rest.get(..n)
    }

    /// Consumes `\name` if it is the command at the current position.
    fn eat_command(&mut self, name: &str) -> bool {
        if self.command() == Some(name.as_bytes()) {
            self.pos += 1 + name.len();
            true
        } else {
            false
        }
    }

    fn expr(&mut self, d: usize) -> Option<Node> {
        let first = self.term(d)?;
        let mut terms = vec![(false, first)];
        loop {
            let neg = match self.peek() {
                Some(b'+') => false,
                Some(b'-') => true,
                _ => break,
            };
            self.pos += 1;
            terms.push((neg, self.term(d)?));
        }
        Some(single_or(terms, Node::Sum))
    }

    fn term(&mut self, d: usize) -> Option<Node> {
        let first = self.unary(d)?;
        let mut factors = vec![(false, first)];
        loop {
            if self.eat(b'*') || self.eat_command("cdot") || self.eat_command("times") {
                factors.push((false, self.unary(d)?));
            } else if self.eat(b'/') {
                factors.push((true, self.unary(d)?));
            } else if self.starts_atom() {
                factors.push((false, self.power(d)?));
            } else {
                break;
            }
        }
        Some(single_or(factors, Node::Product))
    }

    /// Whether the next character starts an atom (implicit multiplication).
    fn starts_atom(&self) -> bool {
        match self.peek() {
            Some(c) if c.is_ascii_alphanumeric() || c == b'(' || c == b'{' => true,
            Some(b'\\') => !matches!(self.command(), Some(b"cdot") | Some(b"times")),
            _ => false,
        }
    }

    fn unary(&mut self, d: usize) -> Option<Node> {
        if d > MAX_DEPTH {
            return None;
        }
        if self.eat(b'-') {
            return Some(Node::Neg(Box::new(self.unary(d + 1)?)));
        }
        if self.eat(b'+') {
            return self.unary(d + 1);
        }
        self.power(d)
    }

    fn power(&mut self, d: usize) -> Option<Node> {
        let base = self.atom(d)?;
        if !self.eat(b'^') {
            return Some(base);
        }
        let exp = if self.eat(b'{') {
            let e = self.expr(d + 1)?;
            self.eat(b'}').then_some(e)?
        } else if self.eat(b'-') {
            Node::Neg(Box::new(self.atom(d + 1)?))
        } else {
            self.atom(d + 1)?
        };
        Some(Node::Pow(Box::new(base), Box::new(exp)))
    }

    fn atom(&mut self, d: usize) -> Option<Node> {
        if d > MAX_DEPTH {
            return None;
        }
        let c = self.peek()?;
        if c.is_ascii_digit() {
            return self.number();
        }
        if c.is_ascii_alphabetic() {
            self.pos += 1;
            self.vars.insert(c);
            return Some(Node::Var(c));
        }
        match c {
            b'(' => self.group(b'(', b')', d),
            b'{' => self.group(b'{', b'}', d),
            b'\\' => {
                if self.eat_command("pi") {
                    Some(Node::Pi)
                } else if self.eat_command("frac")
                    || self.eat_command("dfrac")
                    || self.eat_command("tfrac")
                {
                    let num = self.arg(d + 1)?;
                    let den = self.arg(d + 1)?;
                    Some(Node::Product(vec![(false, num), (true, den)]))
                } else if self.eat_command("sqrt") {
                    let index = if self.peek() == Some(b'[') {
                        Some(Box::new(self.group(b'[', b']', d)?))
                    } else {
                        None
                    };
                    Some(Node::Root(index, Box::new(self.arg(d + 1)?)))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    fn group(&mut self, open: u8, close: u8, d: usize) -> Option<Node> {
        if !self.eat(open) {
            return None;
        }
        let e = self.expr(d + 1)?;
        self.eat(close).then_some(e)
    }

    fn arg(&mut self, d: usize) -> Option<Node> {
        if self.peek() == Some(b'{') {
            self.group(b'{', b'}', d)
        } else {
            self.atom(d)
        }
    }

    /// `digits ('.' digits)?`.
    fn number(&mut self) -> Option<Node> {
        let start = self.pos;
        let digits = |b: &[u8], k: usize| {
            b.get(k..)
                .map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count())
        };
        self.pos += digits(self.b, self.pos);
        if self.peek() == Some(b'.') && self.b.get(self.pos + 1).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
            self.pos += digits(self.b, self.pos);
        }
        let text = std::str::from_utf8(self.b.get(start..self.pos)?).ok()?;
        text.parse().ok().map(Node::Num)
    }
}

/// The single element of `items` if it is one un-negated item, else `wrap(items)`.
fn single_or(mut items: Vec<(bool, Node)>, wrap: fn(Vec<(bool, Node)>) -> Node) -> Node {
    if items.len() == 1 && items.first().is_some_and(|(flag, _)| !flag) {
        if let Some((_, n)) = items.pop() {
            return n;
        }
    }
    wrap(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn val(s: &str) -> Option<f64> {
        parse(s).map(|e| e.eval(&|_| f64::NAN))
    }

    #[test]
    fn grammar_and_values() {
        assert_eq!(val("1+2*3"), Some(7.0));
        assert_eq!(val("2-3-4"), Some(-5.0));
        assert_eq!(val("8/2/2"), Some(2.0));
        assert_eq!(val(r"\frac{1}{2}"), Some(0.5));
        assert_eq!(val(r"-\frac{2}{3}"), val(r"\frac{-2}{3}"));
        assert_eq!(
            val(r"2\sqrt{2}").map(|v| (v * 1e9).round()),
            val(r"\sqrt{8}").map(|v| (v * 1e9).round())
        );
        assert_eq!(val(r"\sqrt[3]{27}").map(|v| v.round()), Some(3.0));
        assert_eq!(val("2^{3}"), Some(8.0));
        assert_eq!(val("2^-1"), Some(0.5));
        assert_eq!(val(r"3\cdot4\times2"), Some(24.0));
        assert_eq!(val("2(3+1)"), Some(8.0));
        assert_eq!(val(r"\pi/2"), Some(std::f64::consts::FRAC_PI_2));
        assert_eq!(val("2^3^2"), None);
        assert_eq!(val(r"\sin{x}"), None);
        assert_eq!(val(r"\infty"), None);
        assert_eq!(val("(1,2)"), None);
        assert_eq!(val(""), None);
        assert_eq!(val("1+"), None);
        assert_eq!(val("é"), None);
        let e = parse("x^2+2x+1");
        assert_eq!(
            e.map(|e| e.vars.into_iter().collect::<Vec<_>>()),
            Some(vec![b'x'])
        );
    }

    #[test]
    fn depth_is_capped() {
        let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(parse(&deep).is_none());
        let ok = format!("{}1{}", "(".repeat(150), ")".repeat(150));
        assert_eq!(parse(&ok).map(|e| e.eval(&|_| 0.0)), Some(1.0));
        assert!(parse(&"-".repeat(100_000)).is_none());
        assert!(parse(&"x^{".repeat(10_000)).is_none());
        assert!(parse(&r"\sqrt".repeat(10_000)).is_none());
        let flat = vec!["1"; 50_000].join("+");
        assert_eq!(parse(&flat).map(|e| e.eval(&|_| 0.0)), Some(50_000.0));
    }

    #[test]
    fn probe_points() {
        assert_eq!(probe_value(0, 0), 0.7);
        assert!((probe_value(4, 1) - 0.8).abs() < 1e-12);
        assert!((probe_value(0, 2) - 2.1).abs() < 1e-12);
    }
}
