//! Fault injection for the mock server: injected latency, rate limits, server errors, dropped
//! connections, stalls and malformed bodies.
//!
//! Why: clients (retry loops, deadlines, concurrency limits) must be tested against the failures
//! real endpoints produce, reproducibly. Every chat or embeddings request draws its fate from a
//! ChaCha8 RNG seeded with the fault seed mixed with the request's sequence number, so a given
//! seed yields the same fault sequence for requests sent one after another, however long each
//! one took. Concurrent requests get their sequence numbers in arrival order.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

/// Injected latency in milliseconds: a fixed value (`"A"`) or uniform in `[A, B]` (`"A..B"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LatencySpec {
    /// Smallest latency, in milliseconds.
    pub min_ms: u64,
    /// Largest latency, in milliseconds (equal to `min_ms` for a fixed latency).
    pub max_ms: u64,
}

impl LatencySpec {
    /// A fixed latency of `ms` milliseconds.
    pub fn fixed(ms: u64) -> Self {
        Self {
            min_ms: ms,
            max_ms: ms,
        }
    }

    /// A latency uniform in `[min_ms, max_ms]`; errors when `min_ms > max_ms`.
    pub fn uniform(min_ms: u64, max_ms: u64) -> Result<Self, LatencyParseError> {
        if min_ms > max_ms {
            return Err(LatencyParseError::Reversed {
                input: format!("{min_ms}..{max_ms}"),
                min: min_ms,
                max: max_ms,
            });
        }
        Ok(Self { min_ms, max_ms })
    }

    /// True when no latency is injected.
    pub fn is_zero(&self) -> bool {
        self.max_ms == 0
    }

    /// Draws one latency.
    fn sample(&self, rng: &mut ChaCha8Rng) -> Duration {
        let ms = if self.min_ms == self.max_ms {
            self.min_ms
        } else {
            rng.random_range(self.min_ms..=self.max_ms)
        };
        Duration::from_millis(ms)
    }
}

impl fmt::Display for LatencySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.min_ms == self.max_ms {
            write!(f, "{}", self.min_ms)
        } else {
            write!(f, "{}..{}", self.min_ms, self.max_ms)
        }
    }
}

/// Why a latency specification did not parse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LatencyParseError {
    /// Not a number or range of numbers.
    #[error(
        "invalid latency {input:?}: expected whole milliseconds as \"A\" or \"A..B\" (e.g. \"50\" or \"20..200\")"
    )]
    Syntax {
        /// The text given.
        input: String,
    },
    /// The lower bound exceeds the upper bound.
    #[error("invalid latency {input:?}: the lower bound {min} ms is greater than the upper bound {max} ms")]
    Reversed {
        /// The text given.
        input: String,
        /// Lower bound.
        min: u64,
        /// Upper bound.
        max: u64,
    },
}

impl FromStr for LatencySpec {
    type Err = LatencyParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = || LatencyParseError::Syntax {
            input: s.to_string(),
        };
        let number = |t: &str| {
            let t = t.trim();
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            t.parse::<u64>().map_err(|_| syntax())
        };
        match s.split_once("..") {
            None => Ok(Self::fixed(number(s)?)),
            Some((a, b)) => {
                let (min, max) = (number(a)?, number(b)?);
                if min > max {
                    return Err(LatencyParseError::Reversed {
                        input: s.to_string(),
                        min,
                        max,
                    });
                }
                Ok(Self {
                    min_ms: min,
                    max_ms: max,
                })
            }
        }
    }
}

/// Which failures to inject and how often (each rate is a probability per request).
///
/// At most one fault hits a request: one uniform draw is compared with the cumulative rates in
/// the order 429, 500, drop, stall, malformed, so each fault happens with exactly its rate and
/// the rates must sum to at most 1.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultConfig {
    /// Latency added before anything else (faults included).
    pub latency: LatencySpec,
    /// Rate of HTTP 429 answers (with `Retry-After` and `retry-after-ms` headers).
    pub fail_429: f64,
    /// Delay advertised by injected 429 answers, in milliseconds.
    pub retry_after_ms: u64,
    /// Rate of HTTP 500 answers.
    pub fail_500: f64,
    /// Rate of connections closed without any response.
    pub drop: f64,
    /// Rate of requests that stall for `stall_for` before being answered.
    pub stall: f64,
    /// How long a stalled request waits before being answered.
    pub stall_for: Duration,
    /// Rate of 200 answers whose JSON body is truncated.
    pub malformed: f64,
    /// Seed of the fault RNG.
    pub seed: u64,
}

impl Default for FaultConfig {
    fn default() -> Self {
        Self {
            latency: LatencySpec::default(),
            fail_429: 0.0,
            retry_after_ms: 1000,
            fail_500: 0.0,
            drop: 0.0,
            stall: 0.0,
            stall_for: Duration::from_secs(3600),
            malformed: 0.0,
            seed: 0,
        }
    }
}

/// An invalid [`FaultConfig`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FaultConfigError {
    /// A rate outside `[0, 1]` (or not a number).
    #[error("fault rate {name} = {value} is not a probability: it must be between 0 and 1")]
    RateOutOfRange {
        /// Which rate.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// The rates sum to more than 1, but at most one fault hits a request.
    #[error("fault rates sum to {sum} (> 1): at most one fault hits a request, so fail_429 + fail_500 + drop + stall + malformed must be at most 1")]
    RatesSumAboveOne {
        /// The sum.
        sum: f64,
    },
}

/// The fate of one request, decided before it is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Answer normally.
    None,
    /// Answer 429 with retry headers.
    RateLimit,
    /// Answer 500.
    ServerError,
    /// Close the connection without answering.
    Drop,
    /// Wait `stall_for`, then answer normally.
    Stall,
    /// Answer 200 with a truncated JSON body.
    Malformed,
}

/// Latency and fault of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultPlan {
    /// Sleep this long first.
    pub latency: Duration,
    /// Then apply this fault.
    pub fault: Fault,
}

impl FaultConfig {
    /// Checks that every rate is a probability and that they sum to at most 1.
    pub fn validate(&self) -> Result<(), FaultConfigError> {
        let mut sum = 0.0;
        for (name, value) in self.rates() {
            if !(0.0..=1.0).contains(&value) {
                return Err(FaultConfigError::RateOutOfRange { name, value });
            }
            sum += value;
        }
        // Tolerate rounding in sums such as 0.1 + 0.2 + 0.7.
        if sum > 1.0 + 1e-9 {
            return Err(FaultConfigError::RatesSumAboveOne { sum });
        }
        Ok(())
    }

    /// True when no fault and no latency is configured.
    pub fn is_quiet(&self) -> bool {
        self.latency.is_zero() && self.rates().iter().all(|(_, r)| *r == 0.0)
    }

    fn rates(&self) -> [(&'static str, f64); 5] {
        [
            ("fail_429", self.fail_429),
            ("fail_500", self.fail_500),
            ("drop", self.drop),
            ("stall", self.stall),
            ("malformed", self.malformed),
        ]
    }

    /// The plan of the request with sequence number `seq` (0 for the first request).
    pub fn plan(&self, seq: u64) -> FaultPlan {
        let mut rng = ChaCha8Rng::seed_from_u64(mix(self.seed, seq));
        let latency = self.latency.sample(&mut rng);
        let u: f64 = rng.random();
        let faults = [
            Fault::RateLimit,
            Fault::ServerError,
            Fault::Drop,
            Fault::Stall,
            Fault::Malformed,
        ];
        let mut acc = 0.0;
        let mut fault = Fault::None;
        for ((_, rate), f) in self.rates().into_iter().zip(faults) {
            acc += rate;
            if rate > 0.0 && u < acc {
                fault = f;
                break;
            }
        }
        FaultPlan { latency, fault }
    }
}

/// Mixes the seed and the sequence number (splitmix64 finalizer) so nearby seeds and nearby
/// requests get unrelated RNG streams.
fn mix(seed: u64, seq: u64) -> u64 {
    let mut z = seed ^ seq.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fixed_and_range() {
        assert_eq!("50".parse::<LatencySpec>().unwrap(), LatencySpec::fixed(50));
        assert_eq!(" 7 ".parse::<LatencySpec>().unwrap(), LatencySpec::fixed(7));
        assert_eq!(
            "20..200".parse::<LatencySpec>().unwrap(),
            LatencySpec {
                min_ms: 20,
                max_ms: 200
            }
        );
        assert_eq!(
            "3..3".parse::<LatencySpec>().unwrap(),
            LatencySpec::fixed(3)
        );
        assert_eq!("0".parse::<LatencySpec>().unwrap().to_string(), "0");
        assert_eq!("1..9".parse::<LatencySpec>().unwrap().to_string(), "1..9");
    }

    #[test]
    fn rejects_bad_latency() {
        for bad in [
            "x", "", "..", "5..", "..5", "-1", "1.5", "1..2..3", "5..=7", "1e3",
        ] {
            let err = bad.parse::<LatencySpec>().unwrap_err();
            assert!(
                matches!(err, LatencyParseError::Syntax { .. }),
                "{bad}: {err}"
            );
            assert!(err.to_string().contains("\"A..B\""), "{err}");
        }
        let err = "5..2".parse::<LatencySpec>().unwrap_err();
        assert_eq!(
            err,
            LatencyParseError::Reversed {
                input: "5..2".into(),
                min: 5,
                max: 2
            }
        );
        assert!(err.to_string().contains("greater than"), "{err}");
        assert!(LatencySpec::uniform(5, 2).is_err());
    }

    #[test]
    fn validates_rates() {
        assert!(FaultConfig::default().validate().is_ok());
        let bad = FaultConfig {
            drop: 1.5,
            ..FaultConfig::default()
        };
        let err = bad.validate().unwrap_err();
        assert!(err.to_string().contains("drop = 1.5"), "{err}");
        let nan = FaultConfig {
            stall: f64::NAN,
            ..FaultConfig::default()
        };
        assert!(nan.validate().is_err());
        let neg = FaultConfig {
            fail_429: -0.1,
            ..FaultConfig::default()
        };
        assert!(neg.validate().is_err());
        let sum = FaultConfig {
            fail_429: 0.6,
            fail_500: 0.6,
            ..FaultConfig::default()
        };
        assert!(matches!(
            sum.validate(),
            Err(FaultConfigError::RatesSumAboveOne { .. })
        ));
        let exact = FaultConfig {
            fail_429: 0.1,
            fail_500: 0.2,
            drop: 0.7,
            ..FaultConfig::default()
        };
        assert!(exact.validate().is_ok());
    }

    #[test]
    fn plans_are_reproducible_and_follow_rates() {
        let cfg = FaultConfig {
            latency: LatencySpec {
                min_ms: 1,
                max_ms: 9,
            },
            fail_429: 0.2,
            fail_500: 0.2,
            drop: 0.2,
            seed: 7,
            ..FaultConfig::default()
        };
        let a: Vec<_> = (0..200).map(|i| cfg.plan(i)).collect();
        let b: Vec<_> = (0..200).map(|i| cfg.plan(i)).collect();
        assert_eq!(a, b);
        let other = FaultConfig {
            seed: 8,
            ..cfg.clone()
        };
        assert_ne!(a, (0..200).map(|i| other.plan(i)).collect::<Vec<_>>());
        let count = |f: Fault| a.iter().filter(|p| p.fault == f).count();
        for f in [
            Fault::RateLimit,
            Fault::ServerError,
            Fault::Drop,
            Fault::None,
        ] {
            assert!(count(f) > 10, "{f:?} drawn {} times", count(f));
        }
        assert_eq!(count(Fault::Stall) + count(Fault::Malformed), 0);
        assert!(a.iter().all(|p| (1..=9).contains(&p.latency.as_millis())));
        let always = FaultConfig {
            malformed: 1.0,
            ..FaultConfig::default()
        };
        assert!((0..50).all(|i| always.plan(i).fault == Fault::Malformed));
        assert!((0..50).all(|i| FaultConfig::default().plan(i).fault == Fault::None));
    }
}
