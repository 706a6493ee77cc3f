//! The results store: one JSON line per finished item or episode (`DIR/<policy>.jsonl` of
//! `colony eval`, `DIR/episodes.jsonl` of `colony compare`), appended as they finish, so an
//! interrupted run resumes by skipping what is already there. [`JsonlFile`] is the one
//! append-only writer every command uses.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One finished item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemResult {
    /// Item id.
    pub id: String,
    /// Policy name.
    pub policy: String,
    /// Dataset name (empty in files written before datasets were recorded).
    #[serde(default)]
    pub dataset: String,
    /// Extracted answer.
    pub answer: Option<String>,
    /// Gold answer.
    pub gold: String,
    /// Whether the answer is correct.
    pub correct: bool,
    /// Why the item has no trustworthy answer (its model calls failed), if so: the item is
    /// an error, not a wrong answer — left out of accuracy and retried on the next run.
    #[serde(default)]
    pub error: Option<String>,
    /// Model calls of this item that failed (also when the item still got an answer).
    #[serde(default)]
    pub failed_calls: u64,
    /// The error is one that stops the run (bad key, wrong URL, replay miss; not stored).
    #[serde(skip)]
    pub fatal: bool,
    /// Model calls made.
    pub calls: u64,
    /// Failed attempts the client retried before its calls succeeded (or gave up).
    #[serde(default)]
    pub retries: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Wall time of the item in milliseconds.
    pub wall_ms: f64,
    /// What the item's calls cost in US dollars, at the models' prices;
    /// absent when no model has a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Latency of each successful model call of the item, milliseconds rounded to 0.1, in
    /// transcript order (a replayed call keeps its recorded latency); what the summary's call-latency percentiles
    /// are computed from. Absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub call_latency_ms: Vec<f64>,
    /// Policy trace.
    #[serde(default)]
    pub trace: serde_json::Value,
    /// Every call and message of the item (written to the calls log, not to this line).
    #[serde(skip)]
    pub transcript: Option<colony_runtime::Transcript>,
    /// The answer's code ran on the host (`--sandbox none`), not in the sandbox.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsandboxed: bool,
    /// Tool calls the item's agents made (`--tools`; omitted when none).
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub tool_calls: u64,
    /// Of those, the ones that failed (bad arguments, unknown tool, error, timeout, replay
    /// miss): the model saw an error message; counted, never scored as an answer.
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub tool_errors: u64,
    /// Time spent in tools, milliseconds rounded to 0.1.
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub tool_ms: f64,
    /// Completions drawn for the item (`--samples n`; omitted for one): `answer` and
    /// `correct` are the first sample's, usage is the sum over all.
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub samples: u32,
    /// Of those, the correct ones (what pass@k is estimated from).
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub samples_correct: u32,
    /// The judge's verdict (`--grade both|judge`; omitted without a judge or when it failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_correct: Option<bool>,
    /// What the judge did: grader, verdict, its own calls, tokens and cost (never added to the
    /// method's), and its error if it failed ([`crate::eval::judge::JudgeRecord`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<crate::eval::judge::JudgeRecord>,
    /// The policy's final response text, what the judge reads (not stored: the calls log has
    /// it).
    #[serde(skip)]
    pub response: Option<String>,
    /// The judge's calls (written to the calls log under `judge`, not to this line).
    #[serde(skip)]
    pub judge_transcript: Option<colony_runtime::Transcript>,
}

/// Whether a field holds its default (zero, empty): the one `skip_serializing_if` of the
/// optional counts results add, so files without them keep their old shape.
pub fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// Errors of the results store.
#[derive(Debug, Error)]
pub enum ResultsError {
    /// Reading or writing failed.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        cause: std::io::Error,
    },
    /// A line in the middle of a results file does not parse.
    #[error("{path}:{line}: {message}")]
    Corrupt {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// Parser message.
        message: String,
    },
    /// A learning policy could not train, or its saved learnt state cannot be used.
    #[error("{path}: {message}")]
    Learning {
        /// The learnt-state file (`<label>.<dataset>.learnt.json`).
        path: String,
        /// What went wrong.
        message: String,
    },
}

/// An append-only JSONL file of `T`s: whole lines, flushed one at a time, one writer.
#[derive(Debug)]
pub struct JsonlFile<T> {
    log: AppendLog,
    kind: PhantomData<fn(&T)>,
}

thread_local! {
    /// The stop flag of the run this thread works for ([`bind_run_stop`]); `None` outside any.
    static RUN_STOP: std::cell::RefCell<Option<std::sync::Arc<std::sync::atomic::AtomicBool>>> =
        const { std::cell::RefCell::new(None) };
}

/// Binds this thread to a run's stop flag (or, with `None`, to none) and returns the former
/// binding. Once the flag is set, appends made on threads bound to it are dropped.
///
/// Decision: an embedder stopping a command (Ctrl-C in Python) cancels its tasks; tasks
/// cancelled one after another would otherwise record their neighbours' disappearance as
/// errored episodes ("the agent has stopped"). What finished before the stop is on disk; work
/// in flight is dropped and redone by the resume. The flag belongs to one run, never to the
/// process: each in-process command runs on its own runtime whose worker threads are bound to
/// its flag (`on_thread_start`), so stopping one run cannot truncate another running beside it.
pub fn bind_run_stop(
    flag: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
) -> Option<std::sync::Arc<std::sync::atomic::AtomicBool>> {
    RUN_STOP.with(|s| std::mem::replace(&mut *s.borrow_mut(), flag))
}

/// Whether the run this thread works for has been stopped.
fn run_stopped() -> bool {
    RUN_STOP.with(|s| {
        s.borrow()
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::SeqCst))
    })
}

/// An append-only file of JSON lines of any serializable values, never read back by the
/// writer (call logs, which can be large): opening only cuts a torn last line.
#[derive(Debug)]
pub struct AppendLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl AppendLog {
    /// Opens (creating) `path` for appending; a torn last line (a killed run) is cut by
    /// reading backwards from the end, so the file is never loaded whole.
    pub fn open(path: &Path) -> Result<Self, ResultsError> {
        use std::io::{Read, Seek, SeekFrom};
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| io(path, e))?;
        let len = file.metadata().map_err(|e| io(path, e))?.len();
        let mut end = len;
        let mut buf = [0u8; 4096];
        while end > 0 {
            let start = end.saturating_sub(buf.len() as u64);
            let n = (end - start) as usize;
            file.seek(SeekFrom::Start(start)).map_err(|e| io(path, e))?;
            file.read_exact(&mut buf[..n]).map_err(|e| io(path, e))?;
            match buf[..n].iter().rposition(|&b| b == b'\n') {
                Some(i) => {
                    end = start + i as u64 + 1;
                    break;
                }
                None => end = start,
            }
        }
        if end != len {
            tracing::warn!(file = %path.display(), "dropping torn last line of a log");
            file.set_len(end).map_err(|e| io(path, e))?;
        }
        Ok(Self::wrap(path, file))
    }

    fn wrap(path: &Path, file: File) -> Self {
        Self {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        }
    }

    /// Appends one value as a whole line and flushes it.
    pub fn append<S: Serialize + ?Sized>(&self, r: &S) -> Result<(), ResultsError> {
        if run_stopped() {
            return Ok(());
        }
        let mut line = serde_json::to_string(r).map_err(|e| ResultsError::Corrupt {
            path: self.path.display().to_string(),
            line: 0,
            message: e.to_string(),
        })?;
        line.push('\n');
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        f.write_all(line.as_bytes())
            .map_err(|e| io(&self.path, e))?;
        f.flush().map_err(|e| io(&self.path, e))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The results file of `colony eval`: one [`ItemResult`] per line.
pub type ResultsFile = JsonlFile<ItemResult>;

fn io(path: &Path, cause: std::io::Error) -> ResultsError {
    ResultsError::Io {
        path: path.display().to_string(),
        cause,
    }
}

impl<T: Serialize + DeserializeOwned> JsonlFile<T> {
    /// Opens (creating) `path` and returns the records already in it. A torn last line (a
    /// killed run) is cut so appends start on a fresh line; a bad line elsewhere is an error.
    pub fn open(path: &Path) -> Result<(Self, Vec<T>), ResultsError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        }
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(path, e)),
        };
        let mut done = Vec::new();
        let mut keep = 0usize;
        let mut offset = 0usize;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            offset += line.len();
            if !line.ends_with('\n') {
                tracing::warn!(file = %path.display(), "dropping torn last line of a results file");
                break;
            }
            if line.trim().is_empty() {
                keep = offset;
                continue;
            }
            let r: T = serde_json::from_str(line).map_err(|e| ResultsError::Corrupt {
                path: path.display().to_string(),
                line: i + 1,
                message: e.to_string(),
            })?;
            done.push(r);
            keep = offset;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| io(path, e))?;
        file.set_len(keep as u64).map_err(|e| io(path, e))?;
        Ok((
            Self {
                log: AppendLog::wrap(path, file),
                kind: PhantomData,
            },
            done,
        ))
    }

    /// Appends one record as a whole line and flushes it.
    pub fn append(&self, r: &T) -> Result<(), ResultsError> {
        self.log.append(r)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.log.path()
    }
}

impl JsonlFile<ItemResult> {
    /// Ids of `results` that finished without an error (what a rerun skips).
    pub fn ids(results: &[ItemResult]) -> BTreeSet<String> {
        results
            .iter()
            .filter(|r| r.error.is_none())
            .map(|r| r.id.clone())
            .collect()
    }
}

/// A temporary path next to `path` (same directory, so a rename is atomic), unique to this
/// process.
pub fn temp_path(path: &Path) -> std::path::PathBuf {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(format!(".{name}.tmp-{}", std::process::id()))
}

/// Writes `bytes` to `path` atomically (a temporary file in the same directory, then a
/// rename), so a summary is either the old one or the new one, never half of each.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temp_path(path);
    {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

/// A result or summary value without its wall-clock fields (keys containing `wall` or
/// `latency`, and `calls_per_s`): the only thing two runs of the same work with the same seeds
/// and recorded calls may differ in, so `timeless(a) == timeless(b)` checks that a resumed,
/// merged or replayed run reproduced another.
pub fn timeless(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| {
                    !k.contains("wall") && !k.contains("latency") && k.as_str() != "calls_per_s"
                })
                .map(|(k, x)| (k.clone(), timeless(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(timeless).collect()),
        other => other.clone(),
    }
}
