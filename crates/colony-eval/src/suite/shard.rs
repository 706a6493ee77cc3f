//! Shards: a deterministic 1/N of a suite's work items, for job arrays (Slurm, Kubernetes).
//!
//! An item belongs to shard `h(key) mod N`, where `h` is the stable FNV-1a hash of the item's
//! key (`model/unit/policy/item` or `model/unit/configuration/policy/seed`): shards are
//! balanced in expectation, independent of the order items are listed or run in, and the
//! same on every machine and toolchain, so N processes that never talk to each other split
//! the work exactly once between them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use colony_llm::stable_hash::StableHasher;

/// Largest shard count accepted (a bound on a parameter read from outside).
pub const MAX_SHARDS: u32 = 100_000;

/// Shard `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, in `0..count`.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
}

/// A shard that cannot be used.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{source_name}: {message}")]
pub struct ShardError {
    /// Where the value came from (`--shard`, `SLURM_ARRAY_TASK_ID`, …).
    pub source_name: String,
    /// What is wrong.
    pub message: String,
}

impl Shard {
    /// A checked shard.
    pub fn new(index: u32, count: u32, source_name: &str) -> Result<Self, ShardError> {
        let err = |message: String| ShardError {
            source_name: source_name.to_string(),
            message,
        };
        if count == 0 || count > MAX_SHARDS {
            return Err(err(format!(
                "shard count must be in 1..={MAX_SHARDS}, got {count}"
            )));
        }
        if index >= count {
            return Err(err(format!(
                "shard index {index} is not below the shard count {count} (indices are 0-based)"
            )));
        }
        Ok(Self { index, count })
    }

    /// Whether the item with this key is this shard's.
    pub fn owns(&self, key: &str) -> bool {
        shard_of(key, self.count) == self.index
    }

    /// The directory name of this shard's results: `shard-<i>-of-<N>`.
    pub fn dir_name(&self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }

    /// The shard of a job array, from the environment: Slurm's `SLURM_ARRAY_TASK_ID` and
    /// `SLURM_ARRAY_TASK_COUNT` (an array `--array=0-3` has ids 0..3 and count 4; ids must
    /// start at 0), else Kubernetes Indexed Jobs' `JOB_COMPLETION_INDEX` with `shards` (the
    /// Job's `completions`, given as `--shards`). `None` when neither is set.
    pub fn from_env(
        get: impl Fn(&str) -> Option<String>,
        shards: Option<u32>,
    ) -> Result<Option<Self>, ShardError> {
        let num = |name: &str, v: String| -> Result<u32, ShardError> {
            v.trim().parse().map_err(|_| ShardError {
                source_name: name.to_string(),
                message: format!("{v:?} is not a non-negative integer"),
            })
        };
        if let Some(id) = get("SLURM_ARRAY_TASK_ID") {
            let index = num("SLURM_ARRAY_TASK_ID", id)?;
            let count = match get("SLURM_ARRAY_TASK_COUNT") {
                Some(c) => num("SLURM_ARRAY_TASK_COUNT", c)?,
                None => shards.ok_or_else(|| ShardError {
                    source_name: "SLURM_ARRAY_TASK_COUNT".into(),
                    message: "is not set; pass --shards N".into(),
                })?,
            };
            return Self::new(index, count, "SLURM_ARRAY_TASK_ID").map(Some);
        }
        if let Some(i) = get("JOB_COMPLETION_INDEX") {
            let index = num("JOB_COMPLETION_INDEX", i)?;
            let count = shards.ok_or_else(|| ShardError {
                source_name: "JOB_COMPLETION_INDEX".into(),
                message:
                    "is set but the shard count is unknown; pass --shards N (the Job's completions)"
                        .into(),
            })?;
            return Self::new(index, count, "JOB_COMPLETION_INDEX").map(Some);
        }
        Ok(None)
    }
}

/// The shard (of `count`) that owns `key`.
pub fn shard_of(key: &str, count: u32) -> u32 {
    let h = StableHasher::new().str(key).finish();
    (h % u64::from(count.max(1))) as u32
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    /// `i/N`, 0-based: `0/4` … `3/4`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |message: String| ShardError {
            source_name: "--shard".into(),
            message,
        };
        let (i, n) = s.split_once('/').ok_or_else(|| {
            err(format!(
                "expected i/N (e.g. 0/4), got {:?}",
                colony_env_api::clip(s)
            ))
        })?;
        let parse = |v: &str| -> Result<u32, ShardError> {
            v.trim().parse().map_err(|_| {
                err(format!(
                    "{:?} is not a non-negative integer",
                    colony_env_api::clip(v)
                ))
            })
        };
        Self::new(parse(i)?, parse(n)?, "--shard")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_key_exactly_once_and_are_balanced() {
        let keys: Vec<String> = (0..2000)
            .map(|i| format!("sim/gsm8k/single/item-{i}"))
            .collect();
        for n in 1..=7u32 {
            let mut counts = vec![0usize; n as usize];
            for k in &keys {
                let owners: Vec<u32> = (0..n)
                    .filter(|&i| Shard::new(i, n, "t").is_ok_and(|s| s.owns(k)))
                    .collect();
                assert_eq!(owners.len(), 1, "{k} with {n} shards: {owners:?}");
                counts[owners[0] as usize] += 1;
            }
            let ideal = keys.len() as f64 / f64::from(n);
            for c in counts {
                assert!(
                    (c as f64 - ideal).abs() < 0.2 * ideal,
                    "n={n}: {c} vs {ideal}"
                );
            }
        }
    }

    #[test]
    fn shard_flags_and_environment_are_checked() {
        assert_eq!("1/4".parse::<Shard>(), Ok(Shard { index: 1, count: 4 }));
        assert!("4/4"
            .parse::<Shard>()
            .unwrap_err()
            .message
            .contains("0-based"));
        assert!("x/4".parse::<Shard>().is_err());
        assert!("1-4".parse::<Shard>().unwrap_err().message.contains("i/N"));
        assert!("0/0".parse::<Shard>().is_err());
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            Shard::from_env(
                env(&[
                    ("SLURM_ARRAY_TASK_ID", "2"),
                    ("SLURM_ARRAY_TASK_COUNT", "4")
                ]),
                None
            ),
            Ok(Some(Shard { index: 2, count: 4 }))
        );
        assert_eq!(
            Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "1")]), Some(3)),
            Ok(Some(Shard { index: 1, count: 3 }))
        );
        let e = Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "1")]), None).unwrap_err();
        assert!(e.message.contains("--shards"), "{e}");
        let e = Shard::from_env(env(&[("SLURM_ARRAY_TASK_ID", "a")]), None).unwrap_err();
        assert_eq!(e.source_name, "SLURM_ARRAY_TASK_ID");
        assert_eq!(Shard::from_env(env(&[]), Some(2)), Ok(None));
    }
}
