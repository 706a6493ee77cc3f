//! Single (IO) baseline (docs/design/baselines.md §3.1): one call, user = `query(item)`. The
//! helpers every baseline shares (ask options, concurrent asks, failure bookkeeping) are in
//! `common.rs`.

use async_trait::async_trait;

use super::common::one_call;
use super::{PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};

/// One call answering `query(item)`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Single;

#[async_trait]
impl ReasoningPolicy for Single {
    fn name(&self) -> &str {
        "single"
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        one_call(query, roster, self.name(), query.text()).await
    }
}
