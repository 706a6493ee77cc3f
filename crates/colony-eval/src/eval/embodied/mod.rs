//! `colony env run` and `colony compare`'s job: embodied policies over environment episodes.
//!
//! [`episode`] is the one episode loop and [`trajectory`] the one trajectory format;
//! [`env_run`] runs episodes for `colony env run`; a comparison is described by
//! [`compare_config`], gets its models from [`compare_models`], runs in [`compare`] (over a
//! [`grid`] of settings when asked) and is reported by [`compare_report`] and
//! [`grid_report`].

pub mod compare;
pub mod compare_config;
pub mod compare_latency;
pub mod compare_models;
pub mod compare_report;
pub mod compare_table;
pub mod env_run;
pub mod episode;
pub mod grid;
pub mod grid_layout;
pub mod grid_report;
pub mod initial_state;
pub mod score_curves;
pub mod trajectory;
