//! Choosing which loaded items to run: the MASLab evaluation subset (docs/design/grading.md §4.1),
//! a seeded sample, and an offset/limit window.
//!
//! [`select`] applies them in this order: MASLab subset, then sample, then offset, then limit.

use std::collections::HashSet;

use colony_env_api::rng::PyRandom;

use crate::item::Item;

/// The seed of MASLab's shuffle.
pub const MASLAB_SEED: u64 = 2024;
/// How many items MASLab keeps after shuffling (before de-duplication).
pub const MASLAB_SIZE: usize = 500;

/// Which items to keep (`--subset maslab`, `--sample N --seed S`, `--offset K`, `--limit N`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Items to skip from the start (after the subset and sample).
    pub offset: usize,
    /// At most this many items (after the offset).
    pub limit: Option<usize>,
    /// `(n, seed)`: keep a seeded sample of `n` items (see [`seeded_sample`]).
    pub sample: Option<(usize, u64)>,
    /// Reduce to the MASLab evaluation subset first (see [`maslab_subset`]).
    pub maslab: bool,
}

/// Applies `sel` to `items` (in published order): MASLab subset, sample, offset, limit.
pub fn select(items: Vec<Item>, sel: &Selection) -> Vec<Item> {
    let mut items = if sel.maslab {
        maslab_subset(items)
    } else {
        items
    };
    if let Some((n, seed)) = sel.sample {
        items = seeded_sample(items, n, seed);
    }
    let rest = items.into_iter().skip(sel.offset);
    match sel.limit {
        Some(n) => rest.take(n).collect(),
        None => rest.collect(),
    }
}

/// The MASLab subset (design §4.1): shuffle the whole list with the CPython-compatible
/// shuffle seeded with 2024, keep the first min(500, n), then drop later items whose
/// `question` (the question body) repeats an earlier one. The result is in shuffled order,
/// as MASLab runs it.
///
/// `items` must be the complete split in published order, or the subset changes.
pub fn maslab_subset(mut items: Vec<Item>) -> Vec<Item> {
    PyRandom::from_u64(MASLAB_SEED).shuffle(&mut items);
    items.truncate(MASLAB_SIZE);
    let mut seen = HashSet::new();
    items.retain(|it| seen.insert(it.question.clone()));
    items
}

/// A reproducible sample of `n` items: the first `n` positions of the CPython-compatible
/// shuffle of `0..len` seeded with `seed`, returned in their original order (all items when
/// `n >= len`). The same seed always picks the same items, and Python reproduces it with
/// `random.seed(seed); idx = list(range(len)); random.shuffle(idx); sorted(idx[:n])`.
pub fn seeded_sample(items: Vec<Item>, n: usize, seed: u64) -> Vec<Item> {
    if n >= items.len() {
        return items;
    }
    let mut idx: Vec<usize> = (0..items.len()).collect();
    PyRandom::from_u64(seed).shuffle(&mut idx);
    let mut keep = vec![false; items.len()];
    for &i in &idx[..n] {
        keep[i] = true;
    }
    items
        .into_iter()
        .zip(keep)
        .filter_map(|(it, k)| k.then_some(it))
        .collect()
}
