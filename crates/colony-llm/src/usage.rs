//! Usage accounting: calls, tokens, retries and model time, summed per agent and per run.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{ChatResponse, Usage};

/// Totals for one agent or for a whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct UsageTotals {
    /// Successful model calls (cached replies included).
    pub calls: u64,
    /// Calls answered from a replay cache (their tokens are not spend).
    pub cached_calls: u64,
    /// Calls that ended in an error.
    pub failed_calls: u64,
    /// Failed calls whose error stops a run ([`super::stops_run`]: bad key, wrong URL or
    /// model, replay miss, nothing listening).
    #[serde(default)]
    pub fatal_failures: u64,
    /// Tokens of non-cached calls (what this run spent).
    pub usage: Usage,
    /// Tokens of cached calls (replayed, or coalesced while recording): not spent again, but
    /// part of what the method consumed, so results report `usage + cached_usage` and a
    /// replayed run's tables equal the recorded run's.
    #[serde(default)]
    pub cached_usage: Usage,
    /// Failed attempts that were retried.
    pub retries: u64,
    /// Sum of call latencies (model wall time), in microseconds.
    pub wall_time_us: u64,
    /// Tool calls the agents' tool loops made (replayed ones included).
    #[serde(default)]
    pub tool_calls: u64,
    /// Of those, the ones that failed: bad arguments, unknown tool, tool error, timeout or
    /// replay miss (the model saw an error message; never scored as an answer).
    #[serde(default)]
    pub tool_errors: u64,
    /// Time spent in tools, in microseconds.
    #[serde(default)]
    pub tool_time_us: u64,
}

impl UsageTotals {
    fn add_response(&mut self, r: &ChatResponse) {
        self.calls += 1;
        if r.cached {
            self.cached_calls += 1;
            self.cached_usage += r.usage;
        } else {
            self.usage += r.usage;
        }
        self.retries += u64::from(r.retries);
        self.wall_time_us += u64::try_from(r.latency.as_micros()).unwrap_or(u64::MAX);
        let tools = super::ToolTally::of(&r.tool_trace);
        self.tool_calls += tools.calls;
        self.tool_errors += tools.errors;
        self.tool_time_us = self.tool_time_us.saturating_add(tools.time_us);
    }

    /// Sum of time spent in tools.
    pub fn tool_time(&self) -> Duration {
        Duration::from_micros(self.tool_time_us)
    }

    /// Sum of model wall time.
    pub fn wall_time(&self) -> Duration {
        Duration::from_micros(self.wall_time_us)
    }
}

/// Thread-safe usage ledger keyed by agent id; the run total is the sum over agents.
///
/// Summation is exact (integers), so the total equals what the servers reported however many
/// calls ran concurrently.
#[derive(Debug, Default)]
pub struct UsageLedger {
    per_agent: Mutex<BTreeMap<String, UsageTotals>>,
}

/// A serializable snapshot of a [`UsageLedger`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct UsageReport {
    /// Sum over all agents.
    pub run: UsageTotals,
    /// Per agent id, ordered.
    pub agents: BTreeMap<String, UsageTotals>,
}

impl UsageLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a successful call of `agent`.
    pub fn record(&self, agent: &str, response: &ChatResponse) {
        self.with_agent(agent, |t| t.add_response(response));
    }

    /// Records a failed call of `agent`.
    pub fn record_failure(&self, agent: &str) {
        self.with_agent(agent, |t| t.failed_calls += 1);
    }

    /// Records a call of `agent` that failed with the model error `e`.
    pub fn record_model_failure(&self, agent: &str, e: &super::ModelError) {
        let fatal = super::stops_run(e);
        self.with_agent(agent, |t| {
            t.failed_calls += 1;
            t.fatal_failures += u64::from(fatal);
        });
    }

    fn with_agent(&self, agent: &str, f: impl FnOnce(&mut UsageTotals)) {
        let mut map = self.per_agent.lock().unwrap_or_else(|p| p.into_inner());
        match map.get_mut(agent) {
            Some(t) => f(t),
            None => {
                let mut t = UsageTotals::default();
                f(&mut t);
                map.insert(agent.to_string(), t);
            }
        }
    }

    /// Totals of one agent.
    pub fn agent(&self, agent: &str) -> UsageTotals {
        let map = self.per_agent.lock().unwrap_or_else(|p| p.into_inner());
        map.get(agent).copied().unwrap_or_default()
    }

    /// A snapshot: per-agent totals and their sum.
    pub fn report(&self) -> UsageReport {
        let agents = self
            .per_agent
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let mut run = UsageTotals::default();
        for t in agents.values() {
            run.calls += t.calls;
            run.cached_calls += t.cached_calls;
            run.failed_calls += t.failed_calls;
            run.fatal_failures += t.fatal_failures;
            run.usage += t.usage;
            run.cached_usage += t.cached_usage;
            run.retries += t.retries;
            run.wall_time_us += t.wall_time_us;
            run.tool_calls += t.tool_calls;
            run.tool_errors += t.tool_errors;
            run.tool_time_us = run.tool_time_us.saturating_add(t.tool_time_us);
        }
        UsageReport { run, agents }
    }
}
