//! Exact rationals over `i128` for numeric tokens (docs/design/grading.md §4.5 step 6).
//!
//! Every operation is checked: a value that does not fit (more than ~38 significant digits,
//! huge powers of ten) has no exact form and the caller falls back to `f64`, which is enough
//! for the relative tolerance 1e-6 of §4.5.

/// A reduced fraction `num / den` with `den > 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rational {
    num: i128,
    den: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.checked_abs().unwrap_or(i128::MAX);
    b = b.checked_abs().unwrap_or(i128::MAX);
    while b != 0 {
        let r = a % b;
        a = b;
        b = r;
    }
    a
}

impl Rational {
    /// `num / den` reduced; `None` when `den` is zero or the sign cannot be normalised.
    pub fn new(num: i128, den: i128) -> Option<Self> {
        if den == 0 {
            return None;
        }
        let (num, den) = if den < 0 {
            (num.checked_neg()?, den.checked_neg()?)
        } else {
            (num, den)
        };
        let g = gcd(num, den).max(1);
        Some(Self {
            num: num / g,
            den: den / g,
        })
    }

    /// The integer `n`.
    pub fn int(n: i128) -> Self {
        Self { num: n, den: 1 }
    }

    /// A non-negative decimal literal: integer digits, fractional digits (ASCII digits only).
    pub fn from_decimal(int_digits: &str, frac_digits: &str) -> Option<Self> {
        let mut num: i128 = 0;
        for b in int_digits.bytes().chain(frac_digits.bytes()) {
            if !b.is_ascii_digit() {
                return None;
            }
            num = num.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
        }
        let den = pow10(u32::try_from(frac_digits.len()).ok()?)?;
        Self::new(num, den)
    }

    /// `self · 10^k`.
    pub fn scale10(self, k: i64) -> Option<Self> {
        let p = pow10(u32::try_from(k.checked_abs()?).ok()?)?;
        if k >= 0 {
            self.mul(Self::int(p))
        } else {
            self.div(Self::int(p))
        }
    }

    /// `self · o`.
    pub fn mul(self, o: Self) -> Option<Self> {
        let g1 = gcd(self.num, o.den).max(1);
        let g2 = gcd(o.num, self.den).max(1);
        Self::new(
            (self.num / g1).checked_mul(o.num / g2)?,
            (self.den / g2).checked_mul(o.den / g1)?,
        )
    }

    /// `self / o`; `None` when `o` is zero.
    pub fn div(self, o: Self) -> Option<Self> {
        if o.num == 0 {
            return None;
        }
        self.mul(Self::new(o.den, o.num)?)
    }

    /// `-self`.
    pub fn neg(self) -> Option<Self> {
        Some(Self {
            num: self.num.checked_neg()?,
            den: self.den,
        })
    }

    /// Whether the value is an integer.
    pub fn is_integer(self) -> bool {
        self.den == 1
    }
}

/// `10^k` if it fits in `i128`.
fn pow10(k: u32) -> Option<i128> {
    10i128.checked_pow(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_and_overflow() {
        let half = Rational::new(1, 2);
        assert_eq!(Rational::from_decimal("0", "50"), half);
        assert_eq!(Rational::new(-2, -4), half);
        assert_eq!(
            Rational::from_decimal("1", "5").and_then(|r| r.scale10(6)),
            Some(Rational::int(1_500_000))
        );
        assert_eq!(Rational::int(3).scale10(-1), Rational::new(3, 10));
        assert_eq!(Rational::int(7).div(Rational::int(0)), None);
        assert!(Rational::from_decimal(&"9".repeat(50), "").is_none());
        assert!(Rational::int(1).scale10(100).is_none());
        assert!(Rational::int(i128::MIN).neg().is_none());
        assert!(Rational::from_decimal("033", "").is_some_and(|r| r.is_integer()));
        assert!(!Rational::from_decimal("33", "5").is_some_and(|r| r.is_integer()));
    }
}
