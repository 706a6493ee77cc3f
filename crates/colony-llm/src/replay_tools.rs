//! `ToolReplay`: the record/replay cache of tool results, beside the model calls of a
//! [`super::ReplayModel`] directory (`DIR/tool-calls.jsonl`).
//!
//! A replayed tool-using run must make no tool call whose result was recorded (a tool may
//! read the clock, the network or a server), so each result is stored under a key made of
//! the model request that asked for it (its replay key), the call id and the arguments: the
//! same conversation position always finds the same result, whatever the concurrency. While
//! recording, a key already present is answered from the file (a re-run extends a recording
//! instead of calling twice); in replay mode a missing key is a replay miss, which the tool
//! loop reports to the model as a failed call and counts.
//!
//! The file is append-only JSONL, one `{key, tool, arguments, result, error}` object per line,
//! written whole under a lock. Results are small (the tool loop caps them), so the file is
//! read into memory once; a file larger than [`MAX_TOOL_CACHE_BYTES`] or a bad line is an error
//! naming the file and line.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{request_key, ChatRequest, ModelError, ReplayMode, ToolCall};

/// File name of the tool-result cache inside a replay directory.
pub const TOOL_CALLS_FILE: &str = "tool-calls.jsonl";

/// Largest tool-result cache read (a recorded result is at most a few hundred KiB).
pub const MAX_TOOL_CACHE_BYTES: u64 = 256 << 20;

/// One recorded result: what the model was told, and whether it was an error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedTool {
    /// The text returned to the model.
    pub result: String,
    /// The failure kind when the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Time the recorded call took, in microseconds: a replay reports it again, so its
    /// transcript and results equal the recorded run's.
    #[serde(default)]
    pub elapsed_us: u64,
}

#[derive(Serialize, Deserialize)]
struct Line {
    key: String,
    tool: String,
    arguments: String,
    #[serde(flatten)]
    recorded: RecordedTool,
}

/// The tool-result cache of one replay directory (see the module docs).
#[derive(Debug)]
pub struct ToolReplay {
    mode: ReplayMode,
    path: PathBuf,
    recorded: Mutex<HashMap<String, RecordedTool>>,
    writer: Mutex<Option<File>>,
}

impl ToolReplay {
    /// Records into `dir` (created if missing), reusing what is already there.
    pub fn record(dir: &Path) -> Result<Self, ModelError> {
        std::fs::create_dir_all(dir).map_err(|cause| io_err(dir, cause))?;
        let path = dir.join(TOOL_CALLS_FILE);
        let recorded = load(&path)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|cause| io_err(&path, cause))?;
        Ok(Self {
            mode: ReplayMode::Record,
            path,
            recorded: Mutex::new(recorded),
            writer: Mutex::new(Some(file)),
        })
    }

    /// Replays the results recorded in `dir` (none recorded: every lookup misses).
    pub fn replay(dir: &Path) -> Result<Self, ModelError> {
        let path = dir.join(TOOL_CALLS_FILE);
        Ok(Self {
            mode: ReplayMode::Replay,
            recorded: Mutex::new(load(&path)?),
            path,
            writer: Mutex::new(None),
        })
    }

    /// The mode.
    pub fn mode(&self) -> ReplayMode {
        self.mode
    }

    /// The key of `call`, asked for by `request` sent to `model`.
    pub fn key(model: &str, request: &ChatRequest, call: &ToolCall) -> String {
        let mut h = Sha256::new();
        for part in [
            request_key(model, request).as_str(),
            &call.id,
            &call.name,
            &call.arguments,
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The recorded result of `key`, if any.
    pub fn lookup(&self, key: &str) -> Option<RecordedTool> {
        let map = self.recorded.lock().unwrap_or_else(|p| p.into_inner());
        map.get(key).cloned()
    }

    /// Appends a result (record mode; a no-op when replaying or already recorded).
    pub fn store(
        &self,
        key: &str,
        call: &ToolCall,
        recorded: &RecordedTool,
    ) -> Result<(), ModelError> {
        let mut writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let Some(file) = writer.as_mut() else {
            return Ok(());
        };
        let mut map = self.recorded.lock().unwrap_or_else(|p| p.into_inner());
        if map.contains_key(key) {
            return Ok(());
        }
        let line = Line {
            key: key.to_string(),
            tool: call.name.clone(),
            arguments: call.arguments.clone(),
            recorded: recorded.clone(),
        };
        let mut text = serde_json::to_string(&line).unwrap_or_default();
        text.push('\n');
        file.write_all(text.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|cause| io_err(&self.path, cause))?;
        map.insert(key.to_string(), recorded.clone());
        Ok(())
    }

    /// The file, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Reads the cache at `path` (missing: empty). A torn last line (a run killed mid-write) is
/// skipped; any other bad line is an error naming it.
fn load(path: &Path) -> Result<HashMap<String, RecordedTool>, ModelError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(cause) => return Err(io_err(path, cause)),
    };
    let size = file.metadata().map_err(|cause| io_err(path, cause))?.len();
    if size > MAX_TOOL_CACHE_BYTES {
        return Err(ModelError::Config(format!(
            "tool-result cache {}: {size} bytes, more than the {MAX_TOOL_CACHE_BYTES} a cache may hold",
            path.display()
        )));
    }
    let mut map = HashMap::new();
    let mut lines = BufReader::new(file.take(MAX_TOOL_CACHE_BYTES))
        .lines()
        .peekable();
    let mut number = 0;
    while let Some(line) = lines.next() {
        number += 1;
        let line = line.map_err(|cause| io_err(path, cause))?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Line>(&line) {
            Ok(l) => {
                map.entry(l.key).or_insert(l.recorded);
            }
            Err(_) if lines.peek().is_none() => {
                tracing::warn!(file = %path.display(), "skipping torn last line of the tool-result cache");
            }
            Err(e) => {
                return Err(ModelError::Config(format!(
                    "tool-result cache {}:{number}: {e}",
                    path.display()
                )))
            }
        }
    }
    Ok(map)
}

fn io_err(path: &Path, cause: std::io::Error) -> ModelError {
    ModelError::Io {
        path: path.display().to_string(),
        cause,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Message;

    #[test]
    fn records_then_replays_and_rejects_bad_lines() {
        let dir = std::env::temp_dir().join(format!("colony-tool-replay-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let request = ChatRequest::new(vec![Message::user("q")]);
        let call = ToolCall {
            id: "call_1".into(),
            name: "calculator".into(),
            arguments: "{}".into(),
        };
        let key = ToolReplay::key("m", &request, &call);
        assert_ne!(key, ToolReplay::key("other", &request, &call));
        let rec = ToolReplay::record(&dir).unwrap();
        let got = RecordedTool {
            result: "2".into(),
            error: None,
            elapsed_us: 7,
        };
        rec.store(&key, &call, &got).unwrap();
        rec.store(&key, &call, &got).unwrap();
        drop(rec);
        let text = std::fs::read_to_string(dir.join(TOOL_CALLS_FILE)).unwrap();
        assert_eq!(text.lines().count(), 1);
        let rep = ToolReplay::replay(&dir).unwrap();
        assert_eq!(rep.lookup(&key), Some(got));
        assert_eq!(rep.lookup("missing"), None);
        std::fs::write(dir.join(TOOL_CALLS_FILE), "nonsense\n{\"key\":1}\n").unwrap();
        let err = ToolReplay::replay(&dir).unwrap_err().to_string();
        assert!(err.contains("tool-calls.jsonl:1"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
