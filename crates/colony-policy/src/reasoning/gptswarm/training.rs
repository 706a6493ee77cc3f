//! What the training loops of GPTSwarm and G-Designer share (docs/design/baselines.md
//! §3.13–§3.14): the seeded order in which training items are visited, batch after batch,
//! and the usage and failure bookkeeping of every training sample.

use colony_llm::UsageTotals;
use colony_qa::Item;

use crate::reasoning::{shuffle, stream, PolicyOutput};

/// The training items in a seeded order, cycled batch by batch.
pub(crate) struct Batches<'a> {
    items: &'a [Item],
    order: Vec<usize>,
    next: usize,
}

impl<'a> Batches<'a> {
    /// The items of a split, shuffled by `run_seed` for `method`.
    pub(crate) fn new(items: &'a [Item], run_seed: u64, method: &str) -> Self {
        let mut order: Vec<usize> = (0..items.len()).collect();
        shuffle(
            &mut stream(run_seed, "", method, None, None, "train-order"),
            &mut order,
        );
        Self {
            items,
            order,
            next: 0,
        }
    }

    /// The next `size` items (wrapping around the split).
    pub(crate) fn take(&mut self, size: usize) -> Vec<&'a Item> {
        (0..size)
            .map(|_| {
                let item = &self.items[self.order[self.next % self.order.len()]];
                self.next += 1;
                item
            })
            .collect()
    }
}

/// Adds a training sample's calls and tokens to `usage`; true when one of its calls failed
/// (the sample is then left out of the gradient: a failure is not a utility of 0).
pub(crate) fn absorb(usage: &mut UsageTotals, out: &PolicyOutput) -> bool {
    let run = &out.usage.run;
    usage.calls += run.calls;
    usage.failed_calls += run.failed_calls;
    usage.usage += run.usage;
    usage.cached_usage += run.cached_usage;
    run.failed_calls > 0
}
