//! The banner of partial results: a run stopped by a failure no retry can fix still writes its
//! reports, and every table of it opens with this line, for `colony eval`,
//! `colony compare` and suites alike.

/// The line a stopped run's tables open with.
pub fn stopped_banner(why: &str) -> String {
    format!(
        "> **Partial results: the run stopped early** ({why}). Rerun the same command to \
         resume; the numbers below cover only the finished work.\n\n"
    )
}
