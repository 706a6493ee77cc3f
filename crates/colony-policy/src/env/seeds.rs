//! Seed lists from the `--seeds` syntax shared by `colony env run` and `colony compare`:
//! `A..B` (B exclusive), `A..=B`, one number, or a comma-separated list.

use thiserror::Error;

/// Largest number of seeds one spec may expand to (a typo like `0..1e18` must not allocate).
pub const MAX_SEEDS: u64 = 1_000_000;

/// A `--seeds` value that does not parse.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("--seeds {spec:?}: {message}")]
pub struct SeedsError {
    /// The value given.
    pub spec: String,
    /// What is wrong.
    pub message: String,
}

/// The `--seeds` word of `colony compare` and suites that means "each Wildfire level's own
/// evaluation seeds" (see `CompareConfig::level_seeds`).
pub const LEVEL_SEEDS: &str = "level";

/// Seeds of an embodied comparison: `Ok((seeds, false))` for a list [`parse_seeds`] reads, or
/// `Ok((vec![], true))` for [`LEVEL_SEEDS`] (the seeds then come from each configuration).
pub fn parse_compare_seeds(spec: &str) -> Result<(Vec<u64>, bool), SeedsError> {
    if spec.trim() == LEVEL_SEEDS {
        return Ok((Vec::new(), true));
    }
    parse_seeds(spec).map(|s| (s, false))
}

/// Parses `A..B`, `A..=B`, `A` or `A,B,…` into a list of seeds.
pub fn parse_seeds(spec: &str) -> Result<Vec<u64>, SeedsError> {
    // Echoed text is clipped (a 500-digit typo is not repeated whole, twice).
    let err = |message: String| SeedsError {
        spec: colony_env_api::clip(spec),
        message,
    };
    let num = |s: &str| -> Result<u64, SeedsError> {
        s.trim()
            .parse()
            .map_err(|_| err(format!("{:?} is not a number", colony_env_api::clip(s))))
    };
    // Inclusive bounds throughout, so `A..=u64::MAX` needs no `u64::MAX + 1`.
    let range = |a: u64, last: Option<u64>| -> Result<Vec<u64>, SeedsError> {
        let Some(last) = last.filter(|&l| l >= a) else {
            return Ok(Vec::new());
        };
        if last - a >= MAX_SEEDS {
            return Err(err(format!("more than {MAX_SEEDS} seeds")));
        }
        Ok((a..=last).collect())
    };
    let seeds: Vec<u64> = if let Some((a, b)) = spec.split_once("..=") {
        range(num(a)?, Some(num(b)?))?
    } else if let Some((a, b)) = spec.split_once("..") {
        range(num(a)?, num(b)?.checked_sub(1))?
    } else {
        spec.split(',').map(num).collect::<Result<_, _>>()?
    };
    if seeds.is_empty() {
        return Err(err("is empty".into()));
    }
    Ok(seeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_ranges_and_lists() {
        assert_eq!(parse_seeds("0..3").unwrap(), vec![0, 1, 2]);
        assert_eq!(parse_seeds("2..=3").unwrap(), vec![2, 3]);
        assert_eq!(parse_seeds("7").unwrap(), vec![7]);
        assert_eq!(parse_seeds("1,5").unwrap(), vec![1, 5]);
        assert!(parse_seeds("3..3").is_err());
        let max = u64::MAX;
        assert_eq!(parse_seeds(&format!("{max}..={max}")).unwrap(), vec![max]);
        assert_eq!(
            parse_seeds(&format!("{}..={max}", max - 1)).unwrap(),
            vec![max - 1, max]
        );
        assert!(parse_seeds(&format!("5..={max}"))
            .unwrap_err()
            .message
            .contains("more than"));
        assert!(parse_seeds("0..0").is_err());
        assert!(parse_seeds("0..99999999999").is_err());
        assert!(parse_seeds("a..3")
            .unwrap_err()
            .to_string()
            .contains("\"a\""));
    }

    #[test]
    fn compare_seeds_are_a_list_or_the_level_word() {
        assert_eq!(parse_compare_seeds("0..2").unwrap(), (vec![0, 1], false));
        assert_eq!(parse_compare_seeds(" level ").unwrap(), (vec![], true));
        assert!(parse_compare_seeds("levels").is_err());
    }
}
