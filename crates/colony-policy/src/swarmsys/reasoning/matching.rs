//! Dynamic ε-greedy matching of agents to events (docs/design/swarmsys.md §2.6), as pure maths.
//!
//! Nothing here knows about models, prompts or embeddings: the inputs are compatibilities
//! `s_ij ∈ [0, 1]`, recent outcomes and one uniform draw per agent, the outputs are
//! probabilities and slot assignments. The reasoning policy uses it every global round; an
//! embodied SwarmSys (events = an environment's sub-goals) can call the same functions.
//!
//! * [`epsilon`]: `ε_i = ε_min + (ε_max − ε_min)(1 − S̄_i)`, `S̄_i` the mean of the last `W`
//!   outcomes (1.0 with none, so ε starts at `ε_min`).
//! * [`explore`], [`exploit`], [`mixture`]: `P = ε·P_explore + (1 − ε)·P_exploit`, exploration
//!   ∝ compatibility, exploitation by the sigmoid `σ(γ(s − mean s))`.
//! * [`sample`] and [`uniform`]: one uniform draw per agent picks an event (first index whose
//!   cumulative probability exceeds the draw, §0.3).
//! * [`super::assign`] (next file): the round's assignment built on these.
//! * [`distribution`]: the checked entry point behind `colony swarmsys match`.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Lower bound of ε (§2.6 decision (a): the paper's starting exploration rate).
pub const EPS_MIN: f64 = 0.15;
/// Upper bound of ε (§2.6 decision (a): the paper's largest exploration rate).
pub const EPS_MAX: f64 = 0.35;
/// Outcomes that make up the recent success rate `S̄_i` (§2.6, W = 5).
pub const WINDOW: usize = 5;
/// Sharpness γ of the exploitation sigmoid (§2.6 decision (c)).
pub const GAMMA: f64 = 10.0;

/// The bounds ε moves between (§2.6 decision (a)).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EpsilonBounds {
    /// ε of an agent whose recent outcomes are all successes (0.15).
    pub min: f64,
    /// ε of an agent whose recent outcomes are all failures (0.35).
    pub max: f64,
}

impl Default for EpsilonBounds {
    fn default() -> Self {
        Self {
            min: EPS_MIN,
            max: EPS_MAX,
        }
    }
}

/// The role a matching slot is for (§2.2; the matching needs only the kind of slot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Opens every event round with context and a plan.
    Explorer,
    /// Solves the event (several per event).
    Worker,
    /// Checks the workers and may terminate the event.
    Validator,
}

impl Role {
    /// The three roles in slot order (explorer, worker, validator).
    pub const ALL: [Role; 3] = [Role::Explorer, Role::Worker, Role::Validator];

    /// The lowercase name (`explorer`, `worker`, `validator`).
    pub fn name(self) -> &'static str {
        match self {
            Role::Explorer => "explorer",
            Role::Worker => "worker",
            Role::Validator => "validator",
        }
    }
}

/// Why a matching input was refused (design §2.6 domain: finite compatibilities in [0, 1],
/// outcomes 0 or 1, finite γ ≥ 0, 0 ≤ ε_min ≤ ε_max ≤ 1).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MatchError {
    /// No agents were given.
    #[error("`compat` has no agents")]
    NoAgents,
    /// An agent has no candidate events.
    #[error("`compat[{agent}]` has no events")]
    NoEvents {
        /// The agent's row.
        agent: usize,
    },
    /// Rows of different lengths.
    #[error("`compat[{agent}]` has {got} events but `compat[0]` has {expected}")]
    Ragged {
        /// The agent's row.
        agent: usize,
        /// Events in row 0.
        expected: usize,
        /// Events in this row.
        got: usize,
    },
    /// A compatibility outside [0, 1] or not finite.
    #[error("`compat[{agent}][{event}]` must be a number in [0, 1], got {value}")]
    Compat {
        /// The agent's row.
        agent: usize,
        /// The event's column.
        event: usize,
        /// The value given.
        value: f64,
    },
    /// `outcomes` does not have one row per agent.
    #[error("`outcomes` has {got} rows but `compat` has {expected} agents")]
    OutcomeRows {
        /// Rows of `compat`.
        expected: usize,
        /// Rows of `outcomes`.
        got: usize,
    },
    /// An outcome other than 0 or 1.
    #[error("`outcomes[{agent}][{index}]` must be 0 or 1, got {value}")]
    Outcome {
        /// The agent's row.
        agent: usize,
        /// Position in the row.
        index: usize,
        /// The value given.
        value: i64,
    },
    /// γ not finite or negative.
    #[error("gamma must be a finite number ≥ 0, got {0}")]
    Gamma(f64),
    /// ε bounds outside 0 ≤ min ≤ max ≤ 1.
    #[error("epsilon bounds must satisfy 0 ≤ eps-min ≤ eps-max ≤ 1, got [{min}, {max}]")]
    Bounds {
        /// ε_min given.
        min: f64,
        /// ε_max given.
        max: f64,
    },
    /// A window of 0 outcomes.
    #[error("the outcome window must be at least 1")]
    Window,
}

/// Recent success rate `S̄_i`: the mean of the last `window` outcomes (all when fewer), 1.0
/// when there are none (§2.6: so that ε starts at ε_min).
pub fn success_rate(outcomes: &[u8], window: usize) -> f64 {
    let recent = &outcomes[outcomes.len().saturating_sub(window.max(1))..];
    if recent.is_empty() {
        return 1.0;
    }
    recent.iter().map(|&o| f64::from(o.min(1))).sum::<f64>() / recent.len() as f64
}

/// ε of an agent from its outcomes (oldest first): linear in the recent failure rate
/// (§2.6 decision (a)).
pub fn epsilon(outcomes: &[u8], window: usize, bounds: EpsilonBounds) -> f64 {
    bounds.min + (bounds.max - bounds.min) * (1.0 - success_rate(outcomes, window))
}

/// `P_explore(j|i) = s_ij / Σ_k s_ik`; uniform when the sum is 0 (§2.6).
pub fn explore(s: &[f64]) -> Vec<f64> {
    let total: f64 = s.iter().sum();
    if total > 0.0 {
        s.iter().map(|x| x / total).collect()
    } else {
        vec![1.0 / s.len().max(1) as f64; s.len()]
    }
}

/// `σ(x) = 1 / (1 + e^(−x))`.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `P_exploit(j|i) ∝ σ(γ (s_ij − m_i))` with `m_i` the mean of `s` (§2.6 decision (b): the
/// sigmoid is centred on the agent's own mean compatibility).
pub fn exploit(s: &[f64], gamma: f64) -> Vec<f64> {
    if s.is_empty() {
        return Vec::new();
    }
    let mean = s.iter().sum::<f64>() / s.len() as f64;
    let w: Vec<f64> = s.iter().map(|x| sigmoid(gamma * (x - mean))).collect();
    // The largest s is ≥ the mean, so its weight is ≥ 0.5 and the sum is positive.
    let total: f64 = w.iter().sum();
    w.iter().map(|x| x / total).collect()
}

/// `P(j|i) = ε·P_explore + (1 − ε)·P_exploit` over the candidate compatibilities `s`.
pub fn mixture(s: &[f64], eps: f64, gamma: f64) -> Vec<f64> {
    explore(s)
        .into_iter()
        .zip(exploit(s, gamma))
        .map(|(a, b)| eps * a + (1.0 - eps) * b)
        .collect()
}

/// The index `u ∈ [0, 1)` selects from `p`: the first whose cumulative probability exceeds
/// `u`, the last one if rounding leaves none (§0.3); `None` for an empty `p`.
pub fn sample(p: &[f64], u: f64) -> Option<usize> {
    let mut acc = 0.0;
    for (i, x) in p.iter().enumerate() {
        acc += x;
        if acc > u {
            return Some(i);
        }
    }
    p.len().checked_sub(1)
}

/// A uniform draw in [0, 1) as §0.3 fixes it (the shared draw of every policy).
pub use crate::reasoning::uniform;

/// What `colony swarmsys match` reads: compatibilities per agent, optional outcomes per
/// agent (oldest first), and the parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct DistributionRequest {
    /// `compat[i][j] = s_ij`; every agent's candidate set is all events.
    pub compat: Vec<Vec<f64>>,
    /// `outcomes[i]`: agent i's outcomes (0 or 1), oldest first; `None` = none yet.
    pub outcomes: Option<Vec<Vec<i64>>>,
    /// Sharpness γ.
    pub gamma: f64,
    /// ε bounds.
    pub bounds: EpsilonBounds,
    /// Outcome window W.
    pub window: usize,
}

/// ε and `P(j|i)` per agent: the output of `colony swarmsys match`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// ε per agent.
    pub epsilon: Vec<f64>,
    /// `P(j|i)` per agent over all events.
    pub p: Vec<Vec<f64>>,
}

/// Checks a [`DistributionRequest`] and computes ε and `P(j|i)` for every agent (§2.6).
pub fn distribution(req: &DistributionRequest) -> Result<Distribution, MatchError> {
    if !req.gamma.is_finite() || req.gamma < 0.0 {
        return Err(MatchError::Gamma(req.gamma));
    }
    let b = req.bounds;
    if !(b.min.is_finite() && b.max.is_finite() && 0.0 <= b.min && b.min <= b.max && b.max <= 1.0) {
        return Err(MatchError::Bounds {
            min: b.min,
            max: b.max,
        });
    }
    if req.window == 0 {
        return Err(MatchError::Window);
    }
    let Some(first) = req.compat.first() else {
        return Err(MatchError::NoAgents);
    };
    let expected = first.len();
    for (i, row) in req.compat.iter().enumerate() {
        if row.is_empty() {
            return Err(MatchError::NoEvents { agent: i });
        }
        if row.len() != expected {
            return Err(MatchError::Ragged {
                agent: i,
                expected,
                got: row.len(),
            });
        }
        if let Some((j, &value)) = row
            .iter()
            .enumerate()
            .find(|(_, v)| !(v.is_finite() && (0.0..=1.0).contains(*v)))
        {
            return Err(MatchError::Compat {
                agent: i,
                event: j,
                value,
            });
        }
    }
    let mut outcomes: Vec<Vec<u8>> = vec![Vec::new(); req.compat.len()];
    if let Some(rows) = &req.outcomes {
        if rows.len() != req.compat.len() {
            return Err(MatchError::OutcomeRows {
                expected: req.compat.len(),
                got: rows.len(),
            });
        }
        for (i, row) in rows.iter().enumerate() {
            for (k, &v) in row.iter().enumerate() {
                match v {
                    0 | 1 => outcomes[i].push(v as u8),
                    value => {
                        return Err(MatchError::Outcome {
                            agent: i,
                            index: k,
                            value,
                        })
                    }
                }
            }
        }
    }
    let epsilon: Vec<f64> = outcomes.iter().map(|o| epsilon(o, req.window, b)).collect();
    let p = req
        .compat
        .iter()
        .zip(&epsilon)
        .map(|(s, &e)| mixture(s, e, req.gamma))
        .collect();
    Ok(Distribution { epsilon, p })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < tol)
    }

    /// The test vector of §2.6.
    #[test]
    fn spec_test_vector() {
        let s = [0.9, 0.8, 0.6];
        assert!(close(&explore(&s), &[0.3913, 0.3478, 0.2609], 5e-5));
        assert!(close(&exploit(&s, GAMMA), &[0.5163, 0.3801, 0.1036], 5e-5));
        let p = mixture(&s, 0.15, GAMMA);
        assert!(close(&p, &[0.4975, 0.3752, 0.1272], 5e-5), "{p:?}");
        let cum: Vec<f64> = p
            .iter()
            .scan(0.0, |a, x| {
                *a += x;
                Some(*a)
            })
            .collect();
        assert!(close(&cum, &[0.4975, 0.8728, 1.0], 5e-5));
        let eps = epsilon(&[1, 0, 1, 1, 0], WINDOW, EpsilonBounds::default());
        assert!((eps - 0.23).abs() < 1e-12, "{eps}");
        // Sampling: the first index whose cumulative probability exceeds the draw.
        assert_eq!(sample(&p, 0.0), Some(0));
        assert_eq!(sample(&p, 0.4974), Some(0));
        assert_eq!(sample(&p, 0.4976), Some(1));
        assert_eq!(sample(&p, 0.9), Some(2));
        assert_eq!(
            sample(&[0.3, 0.3, 0.3], 0.95),
            Some(2),
            "rounding leaves none"
        );
        assert_eq!(sample(&[], 0.5), None);
    }

    #[test]
    fn epsilon_stays_in_its_bounds_and_falls_with_success() {
        let b = EpsilonBounds::default();
        assert_eq!(epsilon(&[], WINDOW, b), EPS_MIN, "no outcomes: prior 1.0");
        assert!((epsilon(&[0, 0, 0, 0, 0], WINDOW, b) - EPS_MAX).abs() < 1e-12);
        assert_eq!(epsilon(&[1, 1], WINDOW, b), EPS_MIN);
        // Only the last W outcomes count.
        assert_eq!(epsilon(&[0, 0, 0, 1, 1, 1, 1, 1], WINDOW, b), EPS_MIN);
        assert!((epsilon(&[0], WINDOW, b) - EPS_MAX).abs() < 1e-12);
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for _ in 0..2000 {
            let len = (uniform(&mut rng) * 12.0) as usize;
            let o: Vec<u8> = (0..len)
                .map(|_| u8::from(uniform(&mut rng) < 0.5))
                .collect();
            let e = epsilon(&o, WINDOW, b);
            assert!((EPS_MIN..=EPS_MAX).contains(&e), "{o:?} -> {e}");
        }
    }

    #[test]
    fn degenerate_compatibilities() {
        assert_eq!(explore(&[0.0, 0.0]), vec![0.5, 0.5]);
        let p = mixture(&[0.7, 0.7, 0.7], 0.3, GAMMA);
        assert!(close(&p, &[1.0 / 3.0; 3], 1e-12));
        assert_eq!(mixture(&[0.2], 0.15, GAMMA), vec![1.0]);
        let p = mixture(&[1.0, 0.0], 0.15, 1e6);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12 && p[0] > 0.9);
    }

    #[test]
    fn distribution_checks_its_input() {
        let ok = DistributionRequest {
            compat: vec![vec![0.9, 0.8, 0.6], vec![0.5, 0.5, 0.5]],
            outcomes: Some(vec![vec![1, 0, 1, 1, 0], vec![]]),
            gamma: GAMMA,
            bounds: EpsilonBounds::default(),
            window: WINDOW,
        };
        let d = distribution(&ok).unwrap();
        assert!((d.epsilon[0] - 0.23).abs() < 1e-12);
        assert_eq!(d.epsilon[1], EPS_MIN);
        assert!(close(&d.p[1], &[1.0 / 3.0; 3], 1e-12));
        for (req, needle) in [
            (
                DistributionRequest {
                    compat: vec![vec![0.5], vec![0.5, 0.2]],
                    ..ok.clone()
                },
                "`compat[1]` has 2 events",
            ),
            (
                DistributionRequest {
                    compat: vec![vec![0.5, 1.5]],
                    outcomes: None,
                    ..ok.clone()
                },
                "`compat[0][1]` must be a number in [0, 1]",
            ),
            (
                DistributionRequest {
                    outcomes: Some(vec![vec![1, 2], vec![]]),
                    ..ok.clone()
                },
                "`outcomes[0][1]` must be 0 or 1",
            ),
            (
                DistributionRequest {
                    outcomes: Some(vec![vec![1]]),
                    ..ok.clone()
                },
                "`outcomes` has 1 rows",
            ),
            (
                DistributionRequest {
                    gamma: f64::NAN,
                    ..ok.clone()
                },
                "gamma",
            ),
            (
                DistributionRequest {
                    bounds: EpsilonBounds { min: 0.4, max: 0.3 },
                    ..ok.clone()
                },
                "eps-min ≤ eps-max",
            ),
            (
                DistributionRequest {
                    compat: vec![],
                    ..ok.clone()
                },
                "no agents",
            ),
        ] {
            let e = distribution(&req).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        }
    }
}
