//! The one trajectory format: [`StepRecord`] lines, written as an episode runs.
//!
//! `colony compare` writes `DIR/episodes/<policy>/<seed>/steps.jsonl` (one object per step)
//! and `calls.jsonl` (one [`CallLog`] per model call); `colony env run` writes
//! `DIR/<policy>/seed-<seed>.jsonl`, the same step lines after one header line holding the
//! initial state. Files are created fresh for each attempt of an episode: a rerun after a
//! kill rewrites an unfinished episode's files, and `episodes.jsonl` is what says an episode
//! finished.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use serde::Serialize;

use super::episode::{EpisodeSink, StepRecord};
use crate::eval::call_log::{CallLogWriter, LogCalls};
use colony_policy::embodied::CallLog;

/// Writes one episode's steps (and calls) as JSON lines.
#[derive(Debug)]
pub struct TrajectoryWriter {
    steps: BufWriter<File>,
    calls: Option<CallLogWriter>,
}

fn line<T: Serialize>(w: &mut BufWriter<File>, value: &T) -> std::io::Result<()> {
    serde_json::to_writer(&mut *w, value).map_err(std::io::Error::other)?;
    w.write_all(b"\n")
}

impl TrajectoryWriter {
    /// Creates `steps` (and the call log of the given mode in the given episode directory,
    /// when given), truncating earlier attempts; `header` is written as the first line of
    /// `steps` when given.
    pub fn create(
        steps: &Path,
        calls: Option<(&Path, LogCalls)>,
        header: Option<&serde_json::Value>,
    ) -> std::io::Result<Self> {
        let open = |p: &Path| -> std::io::Result<BufWriter<File>> {
            if let Some(dir) = p.parent() {
                std::fs::create_dir_all(dir)?;
            }
            File::create(p).map(BufWriter::new).map_err(|e| {
                std::io::Error::new(e.kind(), format!("creating {}: {e}", p.display()))
            })
        };
        let mut w = Self {
            steps: open(steps)?,
            calls: calls
                .map(|(dir, mode)| CallLogWriter::create(dir, mode))
                .transpose()?,
        };
        if let Some(h) = header {
            line(&mut w.steps, h)?;
        }
        Ok(w)
    }

    /// Flushes the steps and ends the call log.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.steps.flush()?;
        match self.calls {
            Some(c) => c.finish(),
            None => Ok(()),
        }
    }
}

impl EpisodeSink for TrajectoryWriter {
    fn on_step(&mut self, record: &StepRecord) -> std::io::Result<()> {
        line(&mut self.steps, record)
    }

    fn on_calls(&mut self, calls: &[CallLog]) -> std::io::Result<()> {
        match self.calls.as_mut() {
            Some(w) => w.append(calls),
            None => Ok(()),
        }
    }
}
