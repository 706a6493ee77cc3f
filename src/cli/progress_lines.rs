//! Progress as plain lines when stderr is not a terminal (Slurm logs, pipes, `nohup`), where
//! a progress bar draws nothing.
//!
//! Decision: a line at least every 10 s and at each 5% of the work:
//! `progress: LABEL 120/500 items (24%) calls 360 rate 3.10 items/s ETA 2m03s`. No line before the first
//! unit finishes unless 10 s pass; always one at 100%. On a terminal, and under `--quiet`,
//! nothing is printed (the bar shows the same figures).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Longest silence between two lines.
const EVERY: Duration = Duration::from_secs(10);

/// Printed at each multiple of this many percent.
const STEP_PERCENT: u64 = 5;

/// Prints progress lines for one piece of work (a policy's items, a run's episodes).
pub(crate) struct ProgressLines {
    enabled: bool,
    /// What is counted: `items`, `episodes`.
    unit: &'static str,
    state: Mutex<State>,
}

struct State {
    label: String,
    start: Instant,
    last_line: Instant,
    /// The last multiple of [`STEP_PERCENT`] printed.
    last_step: u64,
    finished: bool,
}

impl State {
    fn new(label: &str) -> Self {
        let now = Instant::now();
        Self {
            label: label.to_string(),
            start: now,
            last_line: now,
            last_step: 0,
            finished: false,
        }
    }
}

impl ProgressLines {
    /// Lines for `label` counting `unit`s; silent when `quiet` or when stderr is a terminal.
    pub(crate) fn new(label: &str, unit: &'static str, quiet: bool) -> Self {
        Self::with(label, unit, !quiet && !std::io::stderr().is_terminal())
    }

    fn with(label: &str, unit: &'static str, enabled: bool) -> Self {
        Self {
            enabled,
            unit,
            state: Mutex::new(State::new(label)),
        }
    }

    /// Starts over for new work named `label` (the next policy of an eval).
    pub(crate) fn restart(&self, label: &str) {
        *self.state.lock().unwrap_or_else(|p| p.into_inner()) = State::new(label);
    }

    /// Reports `done` of `total` with `calls` model calls so far and `extra` figures; prints
    /// a line when one is due.
    pub(crate) fn update(&self, done: u64, total: u64, calls: u64, extra: &str) {
        if !self.enabled {
            return;
        }
        if let Some(line) = self.line_due(done, total, calls, extra, Instant::now()) {
            eprintln!("{line}");
        }
    }

    /// The line to print now, if one is due.
    fn line_due(
        &self,
        done: u64,
        total: u64,
        calls: u64,
        extra: &str,
        now: Instant,
    ) -> Option<String> {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if s.finished || total == 0 {
            return None;
        }
        let percent = done.saturating_mul(100) / total;
        let step = percent / STEP_PERCENT * STEP_PERCENT;
        let complete = done >= total;
        let due = complete
            || (done > 0 && step > s.last_step)
            || now.duration_since(s.last_line) >= EVERY;
        if !due {
            return None;
        }
        s.last_step = s.last_step.max(step);
        s.last_line = now;
        s.finished = complete;
        let elapsed = now.duration_since(s.start).as_secs_f64();
        let rate = if elapsed > 0.0 {
            done as f64 / elapsed
        } else {
            0.0
        };
        let eta = if complete {
            "done".to_string()
        } else if done == 0 || rate <= 0.0 {
            "?".to_string()
        } else {
            clock((total - done) as f64 / rate)
        };
        let extra = if extra.is_empty() {
            String::new()
        } else {
            format!(" {extra}")
        };
        Some(format!(
            "progress: {} {done}/{total} {unit} ({percent}%) calls {calls} rate {rate:.2} {unit}/s{extra} ETA {eta}",
            s.label,
            unit = self.unit
        ))
    }
}

/// `2m03s`, `1h05m`, `41s`.
fn clock(secs: f64) -> String {
    let s = secs.round().clamp(0.0, 1e9) as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_at_each_five_percent_every_ten_seconds_and_at_the_end() {
        let p = ProgressLines::with("single", "items", true);
        let t0 = p
            .state
            .lock()
            .map(|s| s.start)
            .unwrap_or_else(|_| Instant::now());
        let at = |secs: u64| t0 + Duration::from_secs(secs);
        // Nothing before the first unit, until 10 s pass.
        assert_eq!(p.line_due(0, 40, 0, "", at(3)), None);
        assert!(p.line_due(0, 40, 0, "", at(10)).is_some());
        // 1/40 is 2%: not a new 5% step; 2/40 is 5%.
        assert_eq!(p.line_due(1, 40, 2, "", at(11)), None);
        let line = p.line_due(2, 40, 4, "acc 0.500", at(12));
        assert_eq!(
            line.as_deref(),
            Some("progress: single 2/40 items (5%) calls 4 rate 0.17 items/s acc 0.500 ETA 3m48s")
        );
        // A jump over several steps prints once.
        assert!(p.line_due(10, 40, 20, "", at(13)).is_some());
        assert_eq!(p.line_due(10, 40, 20, "", at(14)), None);
        let end = p.line_due(40, 40, 80, "", at(100));
        assert!(end.is_some_and(|l| l.contains("40/40 items (100%)") && l.ends_with("ETA done")));
        assert_eq!(
            p.line_due(40, 40, 80, "", at(200)),
            None,
            "one line at the end"
        );
        p.restart("cot");
        assert!(p
            .line_due(40, 40, 80, "", at(201))
            .is_some_and(|l| l.contains("cot")));
    }

    #[test]
    fn clocks_read_naturally() {
        assert_eq!(clock(41.2), "41s");
        assert_eq!(clock(123.0), "2m03s");
        assert_eq!(clock(3900.0), "1h05m");
    }
}
