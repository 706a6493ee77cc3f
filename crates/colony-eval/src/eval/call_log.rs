//! Episode call logs: every model call of an episode, written as it happens, in one of three
//! forms ([`LogCalls`]).
//!
//! - **compact** (the default): `calls.jsonl.zst`, the classic JSON lines in one zstd stream.
//!   Consecutive prompts of a framework repeat most of each other (CAMON's global state, the
//!   rules of every agent), so a compressor whose window spans several prompts stores the
//!   repeated text once; whole-message deduplication was measured first and saves nothing
//!   (each message differs somewhere). The stream is flushed after every step, so everything
//!   written before a `kill -9` is decodable: readers take every complete line and stop at the
//!   torn end.
//! - **full**: `calls.jsonl`, the same lines uncompressed (for `grep` and older scripts).
//! - **none**: `calls.jsonl` with only usage, latency, errors and the action per call: no
//!   messages and no reply text.
//!
//! [`read_call_log`] reads whichever an episode has, so `colony view`, `colony merge` and
//! `colony logs cat` work on all three and on runs made before compact logs.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use colony_policy::embodied::CallLog;

/// The plain call log of an episode (`full` and `none`).
pub const CALLS_JSONL: &str = "calls.jsonl";
/// The compressed call log of an episode (`compact`).
pub const CALLS_ZST: &str = "calls.jsonl.zst";

/// Largest line a call-log reader accepts (a longer one is reported, never allocated whole).
pub const MAX_CALL_LINE_BYTES: usize = 64 << 20;

/// zstd level of compact logs, with an 8 MiB window (several prompts of the largest
/// frameworks). Measured on a CAMON episode of 10-agent SwarmBench (399 calls, 11.3 MB of
/// JSON lines, flushed per call): level 3 gave 95 KB at 62–78 µs per call, level 1 100 KB at
/// 61–73 µs, level −1 110 KB at 59–61 µs, and the plain file 55–62 µs. Level −1 keeps the
/// writing cost at the plain file's and the log 100× smaller.
const LEVEL: i32 = -1;

/// How much of each model call an episode keeps (`--log-calls`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LogCalls {
    /// Every call whole, compressed (`calls.jsonl.zst`).
    #[default]
    Compact,
    /// Every call whole, plain JSON lines (`calls.jsonl`).
    Full,
    /// Usage, latency, errors and actions only (`calls.jsonl`).
    None,
}

impl LogCalls {
    /// The file this mode writes in an episode directory.
    pub fn file_name(self) -> &'static str {
        match self {
            Self::Compact => CALLS_ZST,
            Self::Full | Self::None => CALLS_JSONL,
        }
    }
}

enum Sink {
    Plain(BufWriter<File>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<File>>),
}

impl Sink {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Self::Plain(w) => w,
            Self::Zstd(w) => w,
        }
    }
}

/// The compressor of compact logs: [`LEVEL`], with a window of 8 MiB (several prompts of
/// the largest frameworks).
fn encoder(
    file: BufWriter<File>,
) -> std::io::Result<zstd::stream::write::Encoder<'static, BufWriter<File>>> {
    let mut enc = zstd::stream::write::Encoder::new(file, LEVEL)?;
    enc.window_log(23)?;
    // A content checksum per frame: a flipped byte is then reported as damage instead of
    // decoding into other calls or passing for a log cut short.
    enc.include_checksum(true)?;
    Ok(enc)
}

/// Writes one episode's call log (see the module docs).
pub struct CallLogWriter {
    mode: LogCalls,
    sink: Sink,
    path: PathBuf,
}

impl std::fmt::Debug for CallLogWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallLogWriter")
            .field("mode", &self.mode)
            .field("path", &self.path)
            .finish()
    }
}

impl CallLogWriter {
    /// Creates the log of `mode` in episode directory `dir`, replacing any log an earlier
    /// attempt of the episode left (in either form).
    pub fn create(dir: &Path, mode: LogCalls) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        for stale in [CALLS_JSONL, CALLS_ZST] {
            if stale != mode.file_name() {
                match std::fs::remove_file(dir.join(stale)) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
        }
        let path = dir.join(mode.file_name());
        let file = File::create(&path).map_err(|e| {
            std::io::Error::new(e.kind(), format!("creating {}: {e}", path.display()))
        })?;
        let file = BufWriter::new(file);
        let sink = match mode {
            LogCalls::Compact => Sink::Zstd(encoder(file)?),
            LogCalls::Full | LogCalls::None => Sink::Plain(file),
        };
        Ok(Self { mode, sink, path })
    }

    /// Appends one step's calls and makes them durable against a kill of the process (the
    /// compressed stream is flushed to a decodable point).
    pub fn append(&mut self, calls: &[CallLog]) -> std::io::Result<()> {
        if calls.is_empty() {
            return Ok(());
        }
        let mode = self.mode;
        let w = self.sink.writer();
        for c in calls {
            if mode == LogCalls::None {
                serde_json::to_writer(&mut *w, &Lean::of(c)).map_err(std::io::Error::other)?;
            } else {
                serde_json::to_writer(&mut *w, c).map_err(std::io::Error::other)?;
            }
            w.write_all(b"\n")?;
        }
        w.flush()
    }

    /// Ends the log (the compressed stream gets its end mark).
    pub fn finish(self) -> std::io::Result<()> {
        match self.sink {
            Sink::Plain(mut w) => w.flush(),
            Sink::Zstd(enc) => enc.finish()?.flush(),
        }
    }
}

/// A call as `--log-calls none` keeps it.
#[derive(Serialize)]
struct Lean<'a> {
    step: u64,
    agent: &'a str,
    purpose: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parse_error: Option<&'a str>,
    usage: &'a colony_llm::Usage,
    latency_ms: f64,
    error: Option<&'a str>,
    retries: u32,
}

impl<'a> Lean<'a> {
    fn of(c: &'a CallLog) -> Self {
        Self {
            step: c.step,
            agent: &c.agent,
            purpose: &c.purpose,
            action: c.action.as_deref(),
            parse_error: c.parse_error.as_deref(),
            usage: &c.usage,
            latency_ms: c.latency_ms,
            error: c.error.as_deref(),
            retries: c.retries,
        }
    }
}

/// The call-log file of episode directory `dir`, if it has one (compact first).
pub fn call_log_file(dir: &Path) -> Option<PathBuf> {
    [CALLS_ZST, CALLS_JSONL]
        .into_iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
}

/// What reading a call log found besides its lines.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ReadNotes {
    /// The log ends in a torn line or an unterminated stream (a run killed or still
    /// writing): the complete lines before it were read.
    pub torn: bool,
    /// Lines longer than [`MAX_CALL_LINE_BYTES`], skipped.
    pub too_long: usize,
    /// Complete lines that are not JSON (or not UTF-8), skipped: damage, never a call.
    pub unreadable: usize,
    /// The log could not be read past some point for another reason than a cut end: a
    /// compressed stream that is corrupt (a checksum or block error). What the decoder said.
    pub damaged: Option<String>,
}

/// A reader over a call log that ends where the log's readable part ends: a compressed
/// stream cut short (a writer killed mid-run, or still writing) reads as end of file, and
/// [`EndAtTear::torn`] says so; a stream that is corrupt (zstd's checksum or block errors)
/// ends it too, and [`EndAtTear::damage`] says what the decoder reported.
pub struct EndAtTear<R> {
    inner: R,
    torn: std::sync::Arc<std::sync::atomic::AtomicBool>,
    damage: std::sync::Arc<std::sync::Mutex<Option<String>>>,
}

impl<R> EndAtTear<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            torn: Default::default(),
            damage: Default::default(),
        }
    }

    /// Whether the stream ended early, cut short or damaged (shared flag, readable after the
    /// reader is consumed).
    pub fn torn(&self) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
        self.torn.clone()
    }

    /// What made the stream unreadable when it was damaged rather than cut short (shared).
    pub fn damage(&self) -> std::sync::Arc<std::sync::Mutex<Option<String>>> {
        self.damage.clone()
    }
}

impl<R: Read> Read for EndAtTear<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.torn.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(0);
        }
        match self.inner.read(buf) {
            Ok(n) => Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => Err(e),
            Err(e) => {
                // zstd reports a stream that simply stops as UnexpectedEof ("incomplete
                // frame"); anything else is corruption.
                if e.kind() != std::io::ErrorKind::UnexpectedEof {
                    *self.damage.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
                }
                self.torn.store(true, std::sync::atomic::Ordering::Relaxed);
                Ok(0)
            }
        }
    }
}

/// The decoded bytes of a call log (see [`open_call_log`]).
pub type CallLogReader = BufReader<EndAtTear<Box<dyn Read + Send>>>;

/// Opens the call log of episode directory `dir` (compact or plain) as decoded JSON-lines
/// bytes; `None` when the episode has none.
pub fn open_call_log(dir: &Path) -> std::io::Result<Option<(PathBuf, CallLogReader)>> {
    let Some(path) = call_log_file(dir) else {
        return Ok(None);
    };
    let reader = open_log_file(&path)?;
    Ok(Some((path, reader)))
}

/// Opens one log file as decoded JSON-lines bytes: a `.zst` file through the decompressor,
/// any other as it is; the reader ends where the readable part ends ([`EndAtTear`]).
pub fn open_log_file(path: &Path) -> std::io::Result<CallLogReader> {
    let file = File::open(path)?;
    let inner: Box<dyn Read + Send> = if path.extension().is_some_and(|e| e == "zst") {
        Box::new(zstd::stream::read::Decoder::new(file)?)
    } else {
        Box::new(file)
    };
    Ok(BufReader::with_capacity(1 << 16, EndAtTear::new(inner)))
}

/// Calls `each` with every complete line (without its newline) of the call log of episode
/// directory `dir`, in order, compact or plain; no log is no lines. Stops early when `each`
/// returns `false`.
pub fn read_call_log(dir: &Path, each: impl FnMut(&str) -> bool) -> std::io::Result<ReadNotes> {
    match call_log_file(dir) {
        Some(path) => read_log_file(&path, each),
        None => Ok(ReadNotes::default()),
    }
}

fn read_lines(
    mut r: Box<dyn BufRead>,
    each: &mut dyn FnMut(&str) -> bool,
) -> std::io::Result<ReadNotes> {
    let mut notes = ReadNotes::default();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = match (&mut r)
            .take(MAX_CALL_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
        {
            Ok(n) => n,
            // A stream cut short (killed writer) ends the readable part, as a torn line does.
            Err(_) => {
                notes.torn = true;
                return Ok(notes);
            }
        };
        if n == 0 {
            return Ok(notes);
        }
        if buf.last() != Some(&b'\n') {
            if buf.len() > MAX_CALL_LINE_BYTES {
                notes.too_long += 1;
                // Skip the rest of the long line.
                let mut sink = Vec::new();
                if skip_line(&mut r, &mut sink).is_err() {
                    notes.torn = true;
                    return Ok(notes);
                }
                continue;
            }
            notes.torn = true;
            return Ok(notes);
        }
        buf.pop();
        match std::str::from_utf8(&buf) {
            Ok(line) if line.trim().is_empty() => {}
            Ok(line) if serde_json::from_str::<serde::de::IgnoredAny>(line).is_ok() => {
                if !each(line) {
                    return Ok(notes);
                }
            }
            // A complete line that is not JSON is damage (a flipped byte in a plain log):
            // skipped and counted, never passed on as a call.
            _ => notes.unreadable += 1,
        }
    }
}

fn skip_line(r: &mut Box<dyn BufRead>, scratch: &mut Vec<u8>) -> std::io::Result<()> {
    loop {
        scratch.clear();
        let n = r.take(1 << 20).read_until(b'\n', scratch)?;
        if n == 0 || scratch.last() == Some(&b'\n') {
            return Ok(());
        }
    }
}

/// The call log of one `colony eval` policy label, `calls/<label>.jsonl.zst` (compact) or
/// `calls/<label>.jsonl` (full), one line per finished item, appended across runs (resume).
///
/// A compact log is a sequence of zstd frames, one per run, each flushed after every item.
/// A run killed mid-frame leaves an unterminated frame at the end; the next run first
/// rewrites the log whole from its readable lines (temporary file, then rename), so frames
/// never follow a torn one. `none` writes no log: the results already hold each item's
/// usage and errors.
pub struct ItemCallLog {
    sink: std::sync::Mutex<Option<Sink>>,
    path: PathBuf,
}

impl std::fmt::Debug for ItemCallLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ItemCallLog")
            .field("path", &self.path)
            .finish()
    }
}

/// The file of `label`'s eval call log in `calls_dir` for `mode` (`None` for `none`).
pub fn item_log_path(calls_dir: &Path, label: &str, mode: LogCalls) -> Option<PathBuf> {
    match mode {
        LogCalls::Compact => Some(calls_dir.join(format!("{label}.jsonl.zst"))),
        LogCalls::Full => Some(calls_dir.join(format!("{label}.jsonl"))),
        LogCalls::None => None,
    }
}

impl ItemCallLog {
    /// Opens (creating) the log of `label` in `calls_dir` for appending in `mode`.
    pub fn open(calls_dir: &Path, label: &str, mode: LogCalls) -> std::io::Result<Self> {
        let Some(path) = item_log_path(calls_dir, label, mode) else {
            return Ok(Self {
                sink: std::sync::Mutex::new(None),
                path: calls_dir.join(label),
            });
        };
        std::fs::create_dir_all(calls_dir)?;
        if mode == LogCalls::Compact && path.is_file() {
            repair_compact(&path)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let file = BufWriter::new(file);
        let sink = match mode {
            LogCalls::Compact => Sink::Zstd(encoder(file)?),
            _ => Sink::Plain(file),
        };
        Ok(Self {
            sink: std::sync::Mutex::new(Some(sink)),
            path,
        })
    }

    /// Appends one line (`value` as JSON) and makes it durable against a kill.
    pub fn append<T: Serialize>(&self, value: &T) -> std::io::Result<()> {
        let line = serde_json::to_string(value).map_err(std::io::Error::other)?;
        self.append_raw(&line)
    }

    /// Appends one line that is already JSON (`colony merge` joining shards' logs).
    pub fn append_raw(&self, line: &str) -> std::io::Result<()> {
        let mut guard = self.sink.lock().unwrap_or_else(|p| p.into_inner());
        let Some(w) = guard.as_mut().map(Sink::writer) else {
            return Ok(());
        };
        w.write_all(line.as_bytes())?;
        w.write_all(b"\n")?;
        w.flush()
    }

    /// Ends this run's part of the log (the compressed frame gets its end mark).
    pub fn finish(self) -> std::io::Result<()> {
        match self.sink.into_inner().unwrap_or_else(|p| p.into_inner()) {
            None => Ok(()),
            Some(Sink::Plain(mut w)) => w.flush(),
            Some(Sink::Zstd(enc)) => enc.finish()?.flush(),
        }
    }
}

/// Rewrites a compact log whose last frame a killed run left unterminated, keeping every
/// complete line; a whole log is left as it is.
fn repair_compact(path: &Path) -> std::io::Result<()> {
    let mut lines = Vec::new();
    let notes = read_log_file(path, |l| {
        lines.push(l.to_string());
        true
    })?;
    if !notes.torn {
        return Ok(());
    }
    let tmp = path.with_extension("zst.repair");
    {
        let mut enc = encoder(BufWriter::new(File::create(&tmp)?))?;
        for l in &lines {
            enc.write_all(l.as_bytes())?;
            enc.write_all(b"\n")?;
        }
        enc.finish()?.flush()?;
    }
    std::fs::rename(&tmp, path)
}

/// Calls `each` with every complete line of one log file, compact (`.zst`) or plain; a
/// compressed stream cut short or a torn last line ends it (`torn`).
pub fn read_log_file(
    path: &Path,
    mut each: impl FnMut(&str) -> bool,
) -> std::io::Result<ReadNotes> {
    let reader = open_log_file(path)?;
    let torn = reader.get_ref().torn();
    let damage = reader.get_ref().damage();
    let mut notes = read_lines(Box::new(reader), &mut each)?;
    notes.torn |= torn.load(std::sync::atomic::Ordering::Relaxed);
    notes.damaged = damage.lock().unwrap_or_else(|p| p.into_inner()).take();
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use colony_llm::{Message, Usage};

    fn call(step: u64, text: &str) -> CallLog {
        CallLog {
            step,
            agent: "0".into(),
            purpose: "act".into(),
            messages: vec![Message::user(text)],
            reply: Some(format!("reply {step}")),
            action: Some("UP".into()),
            parse_error: None,
            usage: Usage::default(),
            latency_ms: 1.5,
            error: None,
            retries: 0,
            truncated: None,
            decides: false,
            tools: Vec::new(),
        }
    }

    fn lines(dir: &Path) -> (Vec<serde_json::Value>, ReadNotes) {
        let mut out = Vec::new();
        let notes = read_call_log(dir, |l| {
            out.push(serde_json::from_str(l).unwrap_or_else(|e| unreachable!("{e}: {l}")));
            true
        })
        .unwrap_or_else(|e| unreachable!("{e}"));
        (out, notes)
    }

    #[test]
    fn every_mode_reads_back_and_replaces_the_other_form() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let d = dir.path();
        let calls: Vec<CallLog> = (0..5)
            .map(|s| call(s, &"the same rules ".repeat(200)))
            .collect();
        let full: Vec<serde_json::Value> = calls
            .iter()
            .map(|c| serde_json::to_value(c).unwrap_or_default())
            .collect();
        for mode in [LogCalls::Full, LogCalls::Compact, LogCalls::None] {
            let mut w = CallLogWriter::create(d, mode).unwrap_or_else(|e| unreachable!("{e}"));
            for c in calls.chunks(2) {
                w.append(c).unwrap_or_else(|e| unreachable!("{e}"));
            }
            w.finish().unwrap_or_else(|e| unreachable!("{e}"));
            let (got, notes) = lines(d);
            assert_eq!(notes, ReadNotes::default());
            assert_eq!(call_log_file(d), Some(d.join(mode.file_name())));
            match mode {
                LogCalls::None => {
                    assert_eq!(got.len(), 5);
                    assert!(got.iter().all(|v| v.get("messages").is_none()
                        && v.get("reply").is_none()
                        && v["action"] == "UP"));
                }
                _ => assert_eq!(got, full, "{mode:?}"),
            }
        }
        let zst = {
            let mut w =
                CallLogWriter::create(d, LogCalls::Compact).unwrap_or_else(|e| unreachable!("{e}"));
            w.append(&calls).unwrap_or_else(|e| unreachable!("{e}"));
            w.finish().unwrap_or_else(|e| unreachable!("{e}"));
            std::fs::metadata(d.join(CALLS_ZST))
                .map(|m| m.len())
                .unwrap_or(0)
        };
        assert!(
            !d.join(CALLS_JSONL).exists(),
            "the plain log of the earlier attempt is gone"
        );
        let plain: usize = full.iter().map(|v| v.to_string().len() + 1).sum();
        assert!((zst as usize) * 20 < plain, "{zst} vs {plain}");
    }

    #[test]
    fn a_killed_writer_leaves_every_flushed_step_readable() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let d = dir.path();
        let mut w =
            CallLogWriter::create(d, LogCalls::Compact).unwrap_or_else(|e| unreachable!("{e}"));
        for s in 0..3 {
            w.append(&[call(s, "x")])
                .unwrap_or_else(|e| unreachable!("{e}"));
        }
        // No finish: the process "dies" with the stream unterminated.
        std::mem::forget(w);
        let (got, notes) = lines(d);
        assert_eq!(got.len(), 3);
        assert!(notes.torn, "an unterminated stream reads as torn");
        // A byte cut off the end loses at most the step being written.
        let path = d.join(CALLS_ZST);
        let bytes = std::fs::read(&path).unwrap_or_default();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap_or_else(|e| unreachable!("{e}"));
        let (got, notes) = lines(d);
        assert!(got.len() >= 2 && notes.torn, "{} {notes:?}", got.len());
        // Plain logs: a torn last line is left out.
        std::fs::remove_file(&path).unwrap_or_else(|e| unreachable!("{e}"));
        std::fs::write(d.join(CALLS_JSONL), "{\"step\":0}\n{\"step\":")
            .unwrap_or_else(|e| unreachable!("{e}"));
        let (got, notes) = lines(d);
        assert_eq!((got.len(), notes.torn), (1, true));
    }

    #[test]
    fn item_logs_append_a_frame_per_run_and_repair_a_killed_one() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let d = dir.path();
        let read = |p: &Path| {
            let mut out = Vec::new();
            let notes = read_log_file(p, |l| {
                out.push(l.to_string());
                true
            })
            .unwrap_or_else(|e| unreachable!("{e}"));
            (out, notes)
        };
        let path = d.join("single.jsonl.zst");
        let log = ItemCallLog::open(d, "single", LogCalls::Compact)
            .unwrap_or_else(|e| unreachable!("{e}"));
        log.append(&serde_json::json!({"id": "1"}))
            .unwrap_or_else(|e| unreachable!("{e}"));
        log.finish().unwrap_or_else(|e| unreachable!("{e}"));
        // A second run: its frame follows the first.
        let log = ItemCallLog::open(d, "single", LogCalls::Compact)
            .unwrap_or_else(|e| unreachable!("{e}"));
        log.append(&serde_json::json!({"id": "2"}))
            .unwrap_or_else(|e| unreachable!("{e}"));
        // Killed: the frame is never ended.
        std::mem::forget(log);
        let (lines, notes) = read(&path);
        assert_eq!(lines.len(), 2);
        assert!(notes.torn, "an unterminated frame reads as torn");
        // The next run repairs the log before it appends.
        let log = ItemCallLog::open(d, "single", LogCalls::Compact)
            .unwrap_or_else(|e| unreachable!("{e}"));
        log.append(&serde_json::json!({"id": "3"}))
            .unwrap_or_else(|e| unreachable!("{e}"));
        log.finish().unwrap_or_else(|e| unreachable!("{e}"));
        let (lines, notes) = read(&path);
        assert_eq!(
            lines,
            vec![r#"{"id":"1"}"#, r#"{"id":"2"}"#, r#"{"id":"3"}"#]
        );
        assert!(!notes.torn);
        // `none` writes nothing; `full` appends plain lines.
        let none =
            ItemCallLog::open(d, "x", LogCalls::None).unwrap_or_else(|e| unreachable!("{e}"));
        none.append(&1).unwrap_or_else(|e| unreachable!("{e}"));
        none.finish().unwrap_or_else(|e| unreachable!("{e}"));
        assert!(!d.join("x.jsonl").exists() && !d.join("x.jsonl.zst").exists());
    }
}
