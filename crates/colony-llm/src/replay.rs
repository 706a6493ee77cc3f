//! `ReplayModel`: a record/replay cache around any model.
//!
//! The key is the SHA-256 of the canonical request: model id, messages, temperature, top_p,
//! max_tokens, stop sequences, the explicit sample index and the sampling seed (when the
//! request has one). Transport settings (timeouts, retries) are not part of a request. The
//! seed is: requests that differ only in their seed are different requests (the simulated
//! model and seed-honouring servers answer them differently, and the reasoning policies give
//! every agent, round and method its own seed), so a recording reproduces the run it recorded
//! call for call. A replay therefore needs the recorded run's `--seed`.
//!
//! Storage is one append-only JSONL file, `DIR/calls.jsonl`, one `{key, model, request,
//! response}` object per line, written whole under a lock so concurrent calls never interleave.
//! Replayed responses are the recorded ones (latency included, kept to the microsecond) with
//! `cached = true`, so a replayed run's transcript is bit-identical and usage accounting does
//! not count them as spend.
//!
//! Identical requests share one key, so while recording they are coalesced: the first caller
//! asks the model, concurrent and later callers with the same key get its reply (marked
//! cached). The recorded run therefore sees exactly what a replay will see. Callers who want
//! independent samples of one prompt set distinct `sample_index` values (or seeds).
//!
//! The file is indexed, not held: loading streams it once, checking every
//! line, and keeps only each key's byte offset; a lookup reads and parses that one line. A
//! multi-gigabyte cache costs memory in proportion to its number of calls (a key and an
//! offset each, 44 bytes: a 3 GB cache of 2.5 million calls replays in 143 MB), not its
//! size. A line longer than [`MAX_RECORD_BYTES`] is an error naming it.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::sync::OnceCell;

use super::{ChatModel, ChatRequest, ChatResponse, Message, ModelError, SharedModel};

/// File name of the cache inside its directory.
pub const CALLS_FILE: &str = "calls.jsonl";

/// What a [`ReplayModel`] does on a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayMode {
    /// Answer from the cache when recorded, else call the model and append the reply.
    Record,
    /// Answer only from the cache; a miss is [`ModelError::CacheMiss`]. No model, no network.
    Replay,
}

#[derive(Serialize)]
struct KeyFields<'a> {
    model: &'a str,
    messages: &'a [Message],
    temperature: Option<f32>,
    top_p: Option<f32>,
    max_tokens: Option<u32>,
    stop: &'a [String],
    sample_index: u32,
    /// Left out when absent, so keys of seedless requests are unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    /// The offered tools, their choice and the response format: left out when absent, so keys
    /// of requests without them are unchanged.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tools: &'a [super::ToolSpec],
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<&'a super::ToolChoice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<&'a super::ResponseFormat>,
}

#[derive(Serialize, Deserialize)]
struct Record {
    key: String,
    model: String,
    request: ChatRequest,
    response: ChatResponse,
}

/// A request key as bytes: the SHA-256 itself (the file holds it as 64 hex digits).
type Key = [u8; 32];

/// The key of a record line, or `None` when it is not 64 hex digits.
fn key_bytes(hex: &str) -> Option<Key> {
    let hex = hex.as_bytes();
    if hex.len() != 64 {
        return None;
    }
    let mut key = [0u8; 32];
    for (i, pair) in hex.chunks(2).enumerate() {
        let digits = std::str::from_utf8(pair).ok()?;
        key[i] = u8::from_str_radix(digits, 16).ok()?;
    }
    Some(key)
}

/// Longest record line read (a request and its reply); longer is an error naming the line.
pub const MAX_RECORD_BYTES: usize = 256 << 20;

/// The records of the file loaded at start: each key once (its first line), sorted, with
/// where its line is. 44 bytes a call, so a 3 GB cache of 2.5 million calls indexes in about
/// 110 MB.
#[derive(Default)]
struct DiskIndex(Vec<(Key, u64, u32)>);

impl DiskIndex {
    /// The byte offset and length (newline excluded) of `key`'s line.
    fn get(&self, key: &Key) -> Option<(u64, usize)> {
        self.0
            .binary_search_by(|(k, _, _)| k.cmp(key))
            .ok()
            .map(|i| (self.0[i].1, self.0[i].2 as usize))
    }
}

/// The record/replay cache (see the module docs).
pub struct ReplayModel {
    id: String,
    inner: Option<SharedModel>,
    mode: ReplayMode,
    dir: PathBuf,
    disk: DiskIndex,
    /// Replies recorded (or being recorded) by this process; concurrent callers share them.
    live: Mutex<HashMap<Key, Arc<OnceCell<ChatResponse>>>>,
    writer: Mutex<Option<File>>,
    /// The recorded model is the simulated one (known from the inner model when recording,
    /// told by [`ReplayModel::marked_simulated`] when replaying).
    simulated: bool,
    /// The configured context of the replayed model ([`ReplayModel::with_context_tokens`]),
    /// or the server's, as recorded in [`CONTEXT_FILE`].
    context_tokens: Option<u64>,
    /// Where `context_tokens` comes from, as the client names it in its refusal.
    context_origin: &'static str,
}

/// The file of a record directory that keeps, per model id, the context its server reported
/// (`GET /props`) when a recorded run had a prompt refused for it. Decision: a replay reads it
/// and refuses the same prompts, so the caller cuts them as the recorded run did and the
/// replay finds every cut prompt in the cache, instead of stopping at a bare cache miss.
pub const CONTEXT_FILE: &str = "context.json";

/// The contexts recorded in `dir`'s [`CONTEXT_FILE`] (empty when there is none or it cannot
/// be read: a replay then behaves as before).
fn recorded_contexts(dir: &Path) -> std::collections::BTreeMap<String, u64> {
    colony_env_api::bounded::read_string_if_exists(&dir.join(CONTEXT_FILE), 1 << 20)
        .ok()
        .flatten()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

impl std::fmt::Debug for ReplayModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayModel")
            .field("id", &self.id)
            .field("mode", &self.mode)
            .field("dir", &self.dir)
            .finish()
    }
}

impl ReplayModel {
    /// Records the calls of `inner` into `dir` (created if missing), reusing what is already
    /// recorded there.
    pub fn record(inner: SharedModel, dir: &Path) -> Result<Self, ModelError> {
        std::fs::create_dir_all(dir).map_err(|cause| io_err(dir, cause))?;
        let path = dir.join(CALLS_FILE);
        let disk = load(&path)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|cause| io_err(&path, cause))?;
        drop_torn_tail(&path, &file)?;
        Ok(Self {
            id: inner.id().to_string(),
            simulated: inner.simulated(),
            inner: Some(inner),
            mode: ReplayMode::Record,
            dir: dir.to_path_buf(),
            disk,
            live: Mutex::new(HashMap::new()),
            writer: Mutex::new(Some(file)),
            context_tokens: None,
            context_origin: "`context_tokens`",
        })
    }

    /// Replays the calls recorded in `dir` for model `model_id`; never calls a model.
    pub fn replay(model_id: &str, dir: &Path) -> Result<Self, ModelError> {
        let path = dir.join(CALLS_FILE);
        if !path.exists() {
            return Err(ModelError::Config(format!(
                "replay directory {} has no {CALLS_FILE} (record a run first with --record)",
                dir.display()
            )));
        }
        Ok(Self {
            id: model_id.to_string(),
            inner: None,
            mode: ReplayMode::Replay,
            dir: dir.to_path_buf(),
            disk: load(&path)?,
            live: Mutex::new(HashMap::new()),
            writer: Mutex::new(None),
            simulated: false,
            context_tokens: recorded_contexts(dir).get(model_id).copied(),
            context_origin: super::client::PROPS_ORIGIN,
        })
    }

    /// This cache, refusing prompts longer than `context_tokens` as the model's client does
    /// (`context_tokens` in models.toml or `--context-tokens`), before looking them up: a
    /// refusal is never recorded, and the caller's answer to it (the embodied token guard cuts
    /// the prompt and asks again) must replay as it ran, also from a cache recorded with a
    /// larger context. A context the client learnt from the server (`GET /props`) comes from
    /// the recording's [`CONTEXT_FILE`] instead; a configured one wins over it.
    pub fn with_context_tokens(mut self, context_tokens: Option<u64>) -> Self {
        // A configured context wins over one recorded from the server, as in the client.
        if context_tokens.is_some() {
            self.context_tokens = context_tokens;
            self.context_origin = "`context_tokens`";
        }
        self
    }

    /// Notes in [`CONTEXT_FILE`] the server context a recorded refusal was made at.
    fn record_context(&self, context_tokens: u64) {
        static WRITING: Mutex<()> = Mutex::new(());
        let _one = WRITING.lock().unwrap_or_else(|p| p.into_inner());
        let mut all = recorded_contexts(&self.dir);
        if all.get(&self.id) == Some(&context_tokens) {
            return;
        }
        all.insert(self.id.clone(), context_tokens);
        let path = self.dir.join(CONTEXT_FILE);
        let written = serde_json::to_vec_pretty(&all)
            .map_err(std::io::Error::other)
            .and_then(|bytes| {
                let tmp = path.with_extension("json.tmp");
                std::fs::write(&tmp, bytes)?;
                std::fs::rename(&tmp, &path)
            });
        if let Err(e) = written {
            tracing::warn!(file = %path.display(), "cannot record the server's context: {e}");
        }
    }

    /// This replay, marked as replaying the simulated model's calls (its results then say
    /// SIMULATION, as the recorded run's did).
    pub fn marked_simulated(mut self, simulated: bool) -> Self {
        self.simulated = simulated;
        self
    }

    /// The mode.
    pub fn mode(&self) -> ReplayMode {
        self.mode
    }

    /// Number of recorded calls available.
    pub fn len(&self) -> usize {
        let live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        self.disk.0.len() + live.values().filter(|c| c.initialized()).count()
    }

    /// True when nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cache key of `request` for this model.
    pub fn key(&self, request: &ChatRequest) -> String {
        request_key(&self.id, request)
    }
}

/// The cache key of `request` sent to `model` (hex SHA-256 of the canonical fields).
pub fn request_key(model: &str, r: &ChatRequest) -> String {
    hex(&request_digest(model, r))
}

/// The 64 hex digits of a key, as the file holds them.
fn hex(key: &Key) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of the canonical fields of `request` sent to `model` (see [`request_key`]).
fn request_digest(model: &str, r: &ChatRequest) -> Key {
    let fields = KeyFields {
        model,
        messages: &r.messages,
        temperature: r.sampling.temperature,
        top_p: r.sampling.top_p,
        max_tokens: r.sampling.max_tokens,
        stop: &r.sampling.stop,
        sample_index: r.sample_index,
        seed: r.sampling.seed,
        tools: &r.tools,
        tool_choice: r.tool_choice.as_ref(),
        response_format: r.response_format.as_ref(),
    };
    // Serializing plain structs of strings and numbers cannot fail.
    let bytes = serde_json::to_vec(&fields).unwrap_or_default();
    Sha256::digest(&bytes).into()
}

/// Cuts a torn last line (no trailing newline) so new records start on a line of their own;
/// reads the file backwards in small blocks, never whole.
fn drop_torn_tail(path: &Path, file: &File) -> Result<(), ModelError> {
    let reader = File::open(path).map_err(|cause| io_err(path, cause))?;
    let size = reader
        .metadata()
        .map_err(|cause| io_err(path, cause))?
        .len();
    let mut last = [0u8; 1];
    if size == 0 || {
        reader
            .read_exact_at(&mut last, size - 1)
            .map_err(|cause| io_err(path, cause))?;
        last[0] == b'\n'
    } {
        return Ok(());
    }
    let mut end = size;
    let mut keep = 0;
    let mut block = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let chunk = &mut block[..(end - start) as usize];
        reader
            .read_exact_at(chunk, start)
            .map_err(|cause| io_err(path, cause))?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            keep = start + i as u64 + 1;
            break;
        }
        end = start;
    }
    tracing::warn!(file = %path.display(), bytes = size - keep, "dropping torn last line of replay cache");
    file.set_len(keep).map_err(|cause| io_err(path, cause))
}

fn io_err(path: &Path, cause: std::io::Error) -> ModelError {
    ModelError::Io {
        path: path.display().to_string(),
        cause,
    }
}

/// Indexes a cache file; a missing file is an empty cache. Every line is parsed and checked
/// once (streamed, one line in memory); only the first offset of each key is kept. A torn last
/// line (a run killed while writing) is skipped with a warning; a bad line elsewhere is an
/// error naming file and line.
fn load(path: &Path) -> Result<DiskIndex, ModelError> {
    use std::io::Read;
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(DiskIndex::default()),
        Err(cause) => return Err(io_err(path, cause)),
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut index = Vec::new();
    let mut line = Vec::new();
    let mut offset = 0u64;
    let mut number = 0usize;
    loop {
        line.clear();
        let n = (&mut reader)
            .take(MAX_RECORD_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|cause| io_err(path, cause))?;
        if n == 0 {
            break;
        }
        number += 1;
        if n > MAX_RECORD_BYTES {
            return Err(ModelError::Config(format!(
                "replay cache {}:{number}: a line longer than {MAX_RECORD_BYTES} bytes",
                path.display()
            )));
        }
        let start = offset;
        offset += n as u64;
        let torn = line.last() != Some(&b'\n');
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_record(text) {
            Ok(rec) if !rec.response.usage.is_plausible() => {
                return Err(ModelError::Config(format!(
                    "replay cache {}:{number}: implausible usage ({} prompt, {} completion tokens)",
                    path.display(),
                    rec.response.usage.prompt_tokens,
                    rec.response.usage.completion_tokens
                )))
            }
            Ok(rec) => {
                let Some(key) = key_bytes(&rec.key) else {
                    return Err(ModelError::Config(format!(
                        "replay cache {}:{number}: key is not 64 hex digits",
                        path.display()
                    )));
                };
                // Bounded by MAX_RECORD_BYTES above.
                let len = u32::try_from(text.len()).unwrap_or(u32::MAX);
                index.push((key, start, len));
            }
            Err(e) if torn => {
                tracing::warn!(file = %path.display(), line = number, error = %e, "skipping torn last line of replay cache");
            }
            Err(e) => {
                return Err(ModelError::Config(format!(
                    "replay cache {}:{number}: {e}",
                    path.display()
                )))
            }
        }
    }
    // The first line of each key wins, as when the file was written.
    index.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    index.dedup_by(|later, first| later.0 == first.0);
    index.shrink_to_fit();
    Ok(DiskIndex(index))
}

fn parse_record(bytes: &[u8]) -> Result<Record, serde_json::Error> {
    serde_json::from_slice(bytes)
}

#[async_trait]
impl ChatModel for ReplayModel {
    fn id(&self) -> &str {
        &self.id
    }

    fn simulated(&self) -> bool {
        self.simulated
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        if let Some(context_tokens) = self.context_tokens {
            let prompt_tokens = super::approx_prompt_tokens(&request.messages);
            if prompt_tokens > context_tokens {
                return Err(ModelError::ContextOverflow {
                    model: self.id.clone(),
                    prompt_tokens,
                    context_tokens,
                    origin: self.context_origin,
                });
            }
        }
        let bytes = request_digest(&self.id, request);
        let key = hex(&bytes);
        if let Some((offset, len)) = self.disk.get(&bytes) {
            let response = self.read_recorded(offset, len)?;
            return Ok(ChatResponse {
                cached: true,
                ..response
            });
        }
        let cell = {
            let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
            match (live.get(&bytes), &self.inner) {
                (Some(cell), _) => cell.clone(),
                (None, Some(_)) => {
                    let cell = Arc::new(OnceCell::new());
                    live.insert(bytes, cell.clone());
                    cell
                }
                (None, None) => {
                    return Err(ModelError::CacheMiss {
                        dir: self.dir.display().to_string(),
                        key,
                        model: self.id.clone(),
                    })
                }
            }
        };
        let mut asked_model = false;
        let response = cell
            .get_or_try_init(|| {
                asked_model = true;
                self.call_and_append(key, request)
            })
            .await;
        if let Err(ModelError::ContextOverflow {
            context_tokens,
            origin,
            ..
        }) = &response
        {
            if *origin == super::client::PROPS_ORIGIN {
                self.record_context(*context_tokens);
            }
        }
        let response = response?;
        Ok(ChatResponse {
            cached: !asked_model,
            ..response.clone()
        })
    }
}

impl ReplayModel {
    /// The reply of the record at `offset` (indexed by [`load`]).
    fn read_recorded(&self, offset: u64, len: usize) -> Result<ChatResponse, ModelError> {
        let path = self.dir.join(CALLS_FILE);
        let file = File::open(&path).map_err(|cause| io_err(&path, cause))?;
        let mut bytes = vec![0u8; len];
        file.read_exact_at(&mut bytes, offset)
            .map_err(|cause| io_err(&path, cause))?;
        parse_record(&bytes).map(|r| r.response).map_err(|e| {
            ModelError::Config(format!(
                "replay cache {} changed while in use: {e}",
                path.display()
            ))
        })
    }

    /// Asks the wrapped model and appends the record; returns the reply as stored.
    async fn call_and_append(
        &self,
        key: String,
        request: &ChatRequest,
    ) -> Result<ChatResponse, ModelError> {
        let Some(inner) = &self.inner else {
            return Err(ModelError::CacheMiss {
                dir: self.dir.display().to_string(),
                key,
                model: self.id.clone(),
            });
        };
        let mut response = inner.chat(request).await?;
        // Stored to the microsecond: return exactly what a replay will return.
        response.latency =
            Duration::from_micros(u64::try_from(response.latency.as_micros()).unwrap_or(u64::MAX));
        response.cached = false;
        let record = Record {
            key,
            model: self.id.clone(),
            request: request.clone(),
            response,
        };
        let mut line = serde_json::to_string(&record)
            .map_err(|e| ModelError::Config(format!("cannot serialize record: {e}")))?;
        line.push('\n');
        let mut writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(file) = writer.as_mut() {
            let path = self.dir.join(CALLS_FILE);
            file.write_all(line.as_bytes())
                .map_err(|cause| io_err(&path, cause))?;
            file.flush().map_err(|cause| io_err(&path, cause))?;
        }
        Ok(record.response)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{SimulatedConfig, SimulatedModel};

    fn req(text: &str, i: u32) -> ChatRequest {
        ChatRequest::new(vec![Message::user(text)])
            .sample_index(i)
            .seed(7)
    }

    #[tokio::test]
    async fn record_then_strict_replay() {
        let dir = tempfile::tempdir().unwrap();
        let sim: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig::default()));
        let rec = ReplayModel::record(sim, dir.path()).unwrap();
        let a = rec.chat(&req("hello", 0)).await.unwrap();
        let b = rec.chat(&req("hello", 1)).await.unwrap();
        assert!(!a.cached);
        // Same request again: served from the cache, not appended twice.
        assert!(rec.chat(&req("hello", 0)).await.unwrap().cached);
        // Concurrent identical requests are coalesced into one model call.
        let twin = req("twins", 0);
        let (x, y) = tokio::join!(rec.chat(&twin), rec.chat(&twin));
        let (x, y) = (x.unwrap(), y.unwrap());
        assert_eq!(x.text, y.text);
        assert!(x.cached != y.cached);
        let lines = std::fs::read_to_string(dir.path().join(CALLS_FILE)).unwrap();
        assert_eq!(lines.lines().count(), 3);

        let rep = ReplayModel::replay("sim", dir.path()).unwrap();
        assert_eq!(rep.len(), 3);
        let a2 = rep.chat(&req("hello", 0)).await.unwrap();
        assert!(a2.cached);
        assert_eq!(
            ChatResponse {
                cached: false,
                ..a2
            },
            a
        );
        let b2 = rep.chat(&req("hello", 1)).await.unwrap();
        assert_eq!(b2.text, b.text);
        // The seed is part of the key: the same prompt with another seed is another request.
        let other_seed = rep.chat(&req("hello", 1).seed(99)).await;
        assert!(other_seed.is_err());
        let miss = rep
            .chat(&req("never asked", 0))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            miss.contains("replay cache miss") && miss.contains("--record"),
            "{miss}"
        );
    }

    #[test]
    fn bad_cache_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let err = ReplayModel::replay("m", dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("has no calls.jsonl"), "{err}");
        std::fs::write(dir.path().join(CALLS_FILE), "{broken\n{\"also\": 1}\n").unwrap();
        let err = ReplayModel::replay("m", dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("calls.jsonl:1"), "{err}");
    }

    /// The index keeps the first line of a key, as the recording run saw it, and refuses a
    /// key that is not a SHA-256.
    #[tokio::test]
    async fn the_first_record_of_a_key_wins_and_keys_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let sim: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig::default()));
        let rec = ReplayModel::record(sim, dir.path()).unwrap();
        let first = rec.chat(&req("what is 2 + 2?", 0)).await.unwrap();
        let second = rec.chat(&req("and 3 + 3?", 0)).await.unwrap();
        drop(rec);
        let path = dir.path().join(CALLS_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // The second call's reply filed again under the first call's key: a later duplicate.
        let key0: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        let mut dup: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
        dup["key"] = key0["key"].clone();
        std::fs::write(&path, format!("{text}{dup}\n")).unwrap();
        let replay = ReplayModel::replay("sim", dir.path()).unwrap();
        assert_eq!(replay.len(), 2);
        let again = replay.chat(&req("what is 2 + 2?", 0)).await.unwrap();
        assert_eq!(again.text, first.text);
        assert_ne!(again.text, second.text);
        dup["key"] = serde_json::Value::from("not-hex");
        std::fs::write(&path, format!("{text}{dup}\n")).unwrap();
        let err = ReplayModel::replay("sim", dir.path())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("calls.jsonl:3") && err.contains("64 hex"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn torn_last_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let sim: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig::default()));
        let rec = ReplayModel::record(sim, dir.path()).unwrap();
        rec.chat(&req("kept", 0)).await.unwrap();
        drop(rec);
        let path = dir.path().join(CALLS_FILE);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"key\": \"abc\", \"mod");
        std::fs::write(&path, text).unwrap();
        let rep = ReplayModel::replay("sim", dir.path()).unwrap();
        assert_eq!(rep.len(), 1);
        assert!(rep.chat(&req("kept", 0)).await.is_ok());
        // Recording again cuts the torn tail and appends cleanly.
        let sim: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig::default()));
        let rec = ReplayModel::record(sim, dir.path()).unwrap();
        rec.chat(&req("added", 0)).await.unwrap();
        assert_eq!(ReplayModel::replay("sim", dir.path()).unwrap().len(), 2);
    }
}
