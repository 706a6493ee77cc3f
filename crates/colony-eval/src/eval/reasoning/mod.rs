//! `colony eval`'s job: reasoning policies over dataset items.
//!
//! [`runner`] solves items (one policy, one item, graded), [`dataset_run`] runs a dataset's
//! policies with resume, [`summary`] totals each policy's results (`summary.json`),
//! [`table`] renders the paper's Table 1 layout and the other tables (in [`table_order`]),
//! [`metrics`] and [`latency`] are what items report beyond correctness, and [`report`]
//! writes the report files.

pub mod dataset_run;
pub mod judge_table;
pub mod latency;
pub mod learning;
pub mod metrics;
pub mod report;
pub mod runner;
pub mod samples;
pub mod summary;
pub mod sweep;
pub mod table;
pub mod table_order;
