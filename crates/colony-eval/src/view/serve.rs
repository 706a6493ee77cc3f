//! `colony view RUN_DIR --serve`: the report served on loopback, regenerated while a run is
//! still writing (a live view, like `inspect view`), for users on a remote machine who forward
//! one port.
//!
//! Decisions:
//! - The report is the one `colony view` writes, generated into a temporary folder only its
//!   user may read (never into the run directory, which a running `colony` owns). A watcher
//!   fingerprints the run directory's files (names, sizes, modification times) every second;
//!   when they change it regenerates, at most once per twice the last generation's duration
//!   (and never more often than every 2 s), and swaps the new report in whole. The previous
//!   generation stays served (its data folder has its own name), so a page opened on it keeps
//!   working; older ones are deleted, and so is a generation that failed. The page polls
//!   `live.json`: it reloads itself when a newer report exists and nothing is open, and shows
//!   a banner otherwise; its address keeps the view.
//! - Only the user who started it: the printed URL carries a random token, which the first
//!   request turns into an `HttpOnly`, `SameSite=Strict` cookie; every request must carry one
//!   or the other (other users of a shared machine can reach 127.0.0.1 too). Requests whose
//!   `Host` is not this loopback address, and cross-site requests, are refused.
//! - Read-only: only `GET` and `HEAD`; no request writes anything. Paths are names: the
//!   generated report (`/`, `/report.html`, `/report.data/g-GEN/NAME`), `live.json`, and the
//!   run directory's own regular files under `/files/PATH`; a component that is `.`, `..`,
//!   hidden or holds a separator is refused (empty components are skipped), and so is a file
//!   that resolves outside the run directory or through a hidden name (a symlink). Run files
//!   are streamed as `text/plain` or `application/octet-stream` (images as images) with
//!   `nosniff` and a sandboxing policy, so nothing from a run executes.
//! - Every response carries a restrictive Content-Security-Policy: scripts and styles only
//!   from the server itself (the viewer script and the detail files), images from the server
//!   or `data:` (the plots), `fetch` only to the server, no frames, forms or base URL.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime};

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::{write_report, ViewError};
use colony_env_api::EnvEntry;

/// The policy sent with every page and data file.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The policy sent with the run directory's own files: nothing in them may run.
const FILE_POLICY: &str =
    "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";

/// Largest run file served; larger ones are refused with a message naming the file.
pub const MAX_SERVED_FILE_BYTES: u64 = 64 << 20;

/// Most files the watcher looks at per fingerprint (a bigger tree is fingerprinted partly).
const MAX_WATCHED_FILES: usize = 200_000;

/// Deepest directory level the watcher descends to (units are discovered as deep).
const MAX_WATCH_DEPTH: usize = super::discover::MAX_DEPTH + 2;

/// How often the watcher looks for changes.
const POLL: Duration = Duration::from_secs(1);

/// Shortest time between two generations.
const MIN_REGENERATE: Duration = Duration::from_secs(2);

/// The cookie that carries the token.
const COOKIE: &str = "colony_view";

/// A generated report.
#[derive(Debug, Clone)]
struct Generation {
    /// Its folder (`report.html` and `report.data/g-GEN/`).
    dir: PathBuf,
    /// Its token.
    token: String,
}

/// The report served and the one before it.
#[derive(Debug, Clone)]
struct Served {
    current: Generation,
    previous: Option<Generation>,
}

#[derive(Debug)]
struct Shared {
    environments: Vec<&'static dyn EnvEntry>,
    run_dir: PathBuf,
    work: PathBuf,
    port: u16,
    token: String,
    served: RwLock<Served>,
    error: RwLock<Option<String>>,
}

/// A running view server. [`ViewServer::shutdown`] removes its temporary folder; dropping it
/// without shutting down leaves the tasks running and the folder behind.
#[derive(Debug)]
pub struct ViewServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: CancellationToken,
    tasks: Vec<JoinHandle<()>>,
}

impl ViewServer {
    /// Generates the report of `run_dir` and serves it on `127.0.0.1:port` (0: any free port);
    /// episodes are replayed in `environments` (the registry's).
    pub async fn start(
        environments: &[&'static dyn EnvEntry],
        run_dir: &Path,
        port: u16,
    ) -> Result<ViewServer, ViewError> {
        let envs = environments.to_vec();
        let run_dir = run_dir.canonicalize().map_err(|_| ViewError::NotFound {
            path: run_dir.to_path_buf(),
        })?;
        let where_ = PathBuf::from(format!("127.0.0.1:{port}"));
        let bind_err = |e: std::io::Error| ViewError::Io {
            path: where_.clone(),
            source: std::io::Error::new(e.kind(), format!("{e} (pick another with --port)")),
        };
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
            .await
            .map_err(bind_err)?;
        let addr = listener.local_addr().map_err(bind_err)?;
        let work = private_tempdir()?;
        let fingerprint_at_start = fingerprint(&run_dir);
        let first = {
            let (dir, w, envs) = (run_dir.clone(), work.clone(), envs.clone());
            tokio::task::spawn_blocking(move || generate(&envs, &dir, &w, 0))
                .await
                .map_err(|e| ViewError::Io {
                    path: run_dir.clone(),
                    source: std::io::Error::other(e.to_string()),
                })
                .and_then(|r| r)
        };
        let first = match first {
            Ok(first) => first,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&work);
                return Err(e);
            }
        };
        let shared = Arc::new(Shared {
            environments: envs,
            run_dir,
            work,
            port: addr.port(),
            token: random_token(),
            served: RwLock::new(Served {
                current: first,
                previous: None,
            }),
            error: RwLock::new(None),
        });
        let shutdown = CancellationToken::new();
        let router = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&shared));
        let server = tokio::spawn(crate::mock_server::accept_loop(
            listener,
            router,
            Some(Duration::from_secs(10)),
            shutdown.clone(),
        ));
        let watcher = tokio::spawn(watch(
            Arc::clone(&shared),
            shutdown.clone(),
            fingerprint_at_start,
        ));
        Ok(ViewServer {
            addr,
            shared,
            shutdown,
            tasks: vec![server, watcher],
        })
    }

    /// The page's address with its token, e.g. `http://127.0.0.1:PORT/?token=…`.
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.shared.token)
    }

    /// The generation of the report now served.
    pub fn generation(&self) -> String {
        read(&self.shared.served).current.token
    }

    /// Stops serving and watching, and removes the generated reports.
    pub async fn shutdown(mut self) {
        self.shutdown.cancel();
        for task in self.tasks.drain(..) {
            if let Err(e) = task.await {
                tracing::warn!(error = %e, "view server task ended abnormally");
            }
        }
        if let Err(e) = std::fs::remove_dir_all(&self.shared.work) {
            tracing::warn!(dir = %self.shared.work.display(), error = %e, "could not remove the served reports");
        }
    }
}

fn read<T: Clone>(lock: &RwLock<T>) -> T {
    match lock.read() {
        Ok(g) => g.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    }
}

fn write<T>(lock: &RwLock<T>, value: T) {
    match lock.write() {
        Ok(mut g) => *g = value,
        Err(poisoned) => *poisoned.into_inner() = value,
    }
}

/// 128 random bits as hex.
fn random_token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// A fresh folder for the generated reports that only this user may read.
fn private_tempdir() -> Result<PathBuf, ViewError> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::temp_dir();
    for attempt in 0..100u32 {
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = base.join(format!(
            "colony-view-{}-{nanos:x}-{attempt}",
            std::process::id()
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(ViewError::io(&dir)(e)),
        }
    }
    Err(ViewError::io(&base)(std::io::Error::other(
        "no fresh folder name for the served report",
    )))
}

/// Writes generation `n` of the report into `work/gen-n/`; a failed one leaves nothing.
fn generate(
    environments: &[&'static dyn EnvEntry],
    run_dir: &Path,
    work: &Path,
    n: u64,
) -> Result<Generation, ViewError> {
    let dir = work.join(format!("gen-{n}"));
    match write_report(environments, run_dir, Some(&dir.join("report.html"))) {
        Ok(info) => Ok(Generation {
            dir,
            token: info.generation,
        }),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            Err(e)
        }
    }
}

/// Names, sizes and modification times of the run's files, hashed; the report `colony view`
/// writes into the run directory itself (`report.html`, `report.data/`) and hidden
/// temporary files are left out.
fn fingerprint(run_dir: &Path) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut stack = vec![(run_dir.to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for e in entries {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let report = depth == 0 && (name == "report.html" || name == "report.data");
            if name.starts_with('.') || report {
                continue;
            }
            seen += 1;
            if seen > MAX_WATCHED_FILES {
                return h.finish();
            }
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                if depth < MAX_WATCH_DEPTH {
                    stack.push((e.path(), depth + 1));
                }
                continue;
            }
            e.path().hash(&mut h);
            meta.len().hash(&mut h);
            meta.modified().ok().hash(&mut h);
        }
    }
    h.finish()
}

/// Regenerates the report when the run directory changes, until `stop`.
async fn watch(shared: Arc<Shared>, stop: CancellationToken, mut last: u64) {
    let run_dir = shared.run_dir.clone();
    let fp = |dir: PathBuf| async move {
        tokio::task::spawn_blocking(move || fingerprint(&dir))
            .await
            .unwrap_or(0)
    };
    let mut n = 0u64;
    let mut took = Duration::ZERO;
    let mut at = Instant::now();
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(POLL) => {}
        }
        let now = fp(run_dir.clone()).await;
        if now == last || at.elapsed() < MIN_REGENERATE.max(took * 2) {
            continue;
        }
        n += 1;
        let started = Instant::now();
        let (dir, work) = (run_dir.clone(), shared.work.clone());
        let envs = shared.environments.clone();
        let job = tokio::task::spawn_blocking(move || generate(&envs, &dir, &work, n));
        // Ctrl-C does not wait for a generation: the process ends and the folder goes.
        let result = tokio::select! {
            _ = stop.cancelled() => return,
            r = job => r,
        };
        took = started.elapsed();
        at = Instant::now();
        last = now;
        match result {
            Ok(Ok(next)) => {
                let old = read(&shared.served);
                if let Some(gone) = old.previous {
                    if let Err(e) = std::fs::remove_dir_all(&gone.dir) {
                        tracing::warn!(dir = %gone.dir.display(), error = %e, "could not remove an old report");
                    }
                }
                write(
                    &shared.served,
                    Served {
                        current: next,
                        previous: Some(old.current),
                    },
                );
                write(&shared.error, None);
                tracing::info!(
                    generation = n,
                    seconds = took.as_secs_f64(),
                    "view: report regenerated"
                );
            }
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "view: regenerating the report failed; serving the previous one");
                write(&shared.error, Some(e.to_string()));
            }
            Err(e) => write(&shared.error, Some(e.to_string())),
        }
    }
}

/// A response with the security headers every answer carries.
fn respond(status: StatusCode, content_type: &str, body: Body, policy: &str) -> Response {
    let mut r = Response::new(body);
    *r.status_mut() = status;
    let h = r.headers_mut();
    let set = |h: &mut HeaderMap, k: header::HeaderName, v: &str| {
        if let Ok(v) = HeaderValue::from_str(v) {
            h.insert(k, v);
        }
    };
    set(h, header::CONTENT_TYPE, content_type);
    set(h, header::CONTENT_SECURITY_POLICY, policy);
    set(h, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(h, header::REFERRER_POLICY, "no-referrer");
    set(h, header::CACHE_CONTROL, "no-store");
    set(h, header::X_FRAME_OPTIONS, "DENY");
    set(
        h,
        header::HeaderName::from_static("cross-origin-resource-policy"),
        "same-origin",
    );
    r
}

fn text(status: StatusCode, message: String) -> Response {
    respond(
        status,
        "text/plain; charset=utf-8",
        Body::from(message + "\n"),
        CONTENT_SECURITY_POLICY,
    )
}

/// The content type of a generated report file.
fn report_type(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The content type of a run file: never one a browser executes.
fn file_type(name: &str) -> &'static str {
    match name
        .rsplit('.')
        .next()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("json" | "jsonl" | "md" | "csv" | "txt" | "toml" | "log" | "tex") => {
            "text/plain; charset=utf-8"
        }
        _ => "application/octet-stream",
    }
}

/// A name from the address or from a resolved path: one component, not empty, `.`, `..` or
/// hidden, nothing that could mean another folder.
fn plain_component(c: &str) -> bool {
    !c.is_empty()
        && !c.starts_with('.')
        && !c.contains(['\\', '\0', '/'])
        && c.chars().all(|ch| !ch.is_control())
}

/// Percent-decodes one path component; `None` when malformed or not UTF-8.
fn decode(c: &str) -> Option<String> {
    let bytes = c.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Streams a regular file (headers only for `HEAD`), refusing one larger than
/// [`MAX_SERVED_FILE_BYTES`] with a message naming it.
async fn send_file(
    path: PathBuf,
    shown: &str,
    content_type: &str,
    policy: &str,
    head: bool,
) -> Response {
    let file = match tokio::fs::File::open(&path).await {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return text(StatusCode::NOT_FOUND, format!("{shown}: no such file"))
        }
        Err(e) => return text(StatusCode::INTERNAL_SERVER_ERROR, format!("{shown}: {e}")),
    };
    // The opened file's own metadata: what is streamed is what was checked.
    let meta = match file.metadata().await {
        Ok(m) => m,
        Err(e) => return text(StatusCode::INTERNAL_SERVER_ERROR, format!("{shown}: {e}")),
    };
    if !meta.is_file() {
        return text(StatusCode::NOT_FOUND, format!("{shown}: not a file"));
    }
    if meta.len() > MAX_SERVED_FILE_BYTES {
        return text(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{shown}: larger than {MAX_SERVED_FILE_BYTES} bytes; read it from the run directory"
            ),
        );
    }
    use tokio::io::AsyncReadExt;
    let body = if head {
        Body::empty()
    } else {
        Body::from_stream(tokio_util::io::ReaderStream::new(
            file.take(MAX_SERVED_FILE_BYTES),
        ))
    };
    let mut r = respond(StatusCode::OK, content_type, body, policy);
    if let Ok(v) = HeaderValue::from_str(&meta.len().to_string()) {
        r.headers_mut().insert(header::CONTENT_LENGTH, v);
    }
    r
}

/// Whether the request's `Host` names this server's loopback address.
fn host_ok(headers: &HeaderMap, port: u16) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ]
    .iter()
    .any(|h| h.eq_ignore_ascii_case(host))
}

/// The token a request carries, in its query (`?token=`) or its cookie.
fn carried_token<'a>(uri: &'a Uri, headers: &'a HeaderMap) -> (Option<&'a str>, Option<&'a str>) {
    let query = uri
        .query()
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|kv| kv.strip_prefix("token="));
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            c.trim()
                .strip_prefix(COOKIE)
                .and_then(|c| c.strip_prefix('='))
        });
    (query, cookie)
}

/// Compares two tokens in time independent of where they differ.
fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "read-only: GET and HEAD only".into(),
        );
    }
    if !host_ok(&headers, shared.port) {
        return text(
            StatusCode::MISDIRECTED_REQUEST,
            "this server answers only to its loopback address".into(),
        );
    }
    let cross_site = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == "cross-site");
    if cross_site {
        return text(
            StatusCode::FORBIDDEN,
            "cross-site requests are refused".into(),
        );
    }
    let (query, cookie) = carried_token(&uri, &headers);
    let by_query = query.is_some_and(|t| same_token(t, &shared.token));
    if !by_query && !cookie.is_some_and(|t| same_token(t, &shared.token)) {
        return text(
            StatusCode::FORBIDDEN,
            "this view needs the token of the URL `colony view --serve` printed".into(),
        );
    }
    let head = method == Method::HEAD;
    let parts: Option<Vec<String>> = uri
        .path()
        .trim_start_matches('/')
        .split('/')
        .filter(|c| !c.is_empty())
        .map(decode)
        .collect();
    let Some(parts) = parts else {
        return text(StatusCode::BAD_REQUEST, "malformed path".into());
    };
    if !parts.iter().all(|c| plain_component(c)) {
        return text(
            StatusCode::FORBIDDEN,
            "paths are names inside the run directory".into(),
        );
    }
    let served = read(&shared.served);
    let names: Vec<&str> = parts.iter().map(String::as_str).collect();
    let mut response = match names.as_slice() {
        [] | ["report.html"] | ["index.html"] => {
            send_file(
                served.current.dir.join("report.html"),
                "report.html",
                "text/html; charset=utf-8",
                CONTENT_SECURITY_POLICY,
                head,
            )
            .await
        }
        ["live.json"] => {
            let body = serde_json::json!({
                "generation": served.current.token,
                "error": read(&shared.error),
            });
            respond(
                StatusCode::OK,
                "application/json",
                Body::from(body.to_string()),
                CONTENT_SECURITY_POLICY,
            )
        }
        ["report.data", folder, name] => {
            // The current generation's data or the previous one's, by the folder's name.
            let generation = std::iter::once(&served.current)
                .chain(served.previous.as_ref())
                .find(|g| folder.strip_prefix("g-") == Some(g.token.as_str()));
            match generation {
                Some(g) => {
                    send_file(
                        g.dir.join("report.data").join(folder).join(name),
                        name,
                        report_type(name),
                        CONTENT_SECURITY_POLICY,
                        head,
                    )
                    .await
                }
                None => text(
                    StatusCode::NOT_FOUND,
                    format!("{folder}: this report generation is gone; reload the page"),
                ),
            }
        }
        ["files", rest @ ..] if !rest.is_empty() => {
            let path = rest.iter().fold(shared.run_dir.clone(), |p, c| p.join(c));
            let shown = rest.join("/");
            match path.canonicalize() {
                Ok(real) => match real.strip_prefix(&shared.run_dir) {
                    Ok(inside)
                        if inside
                            .components()
                            .all(|c| plain_component(&c.as_os_str().to_string_lossy())) =>
                    {
                        send_file(real.clone(), &shown, file_type(&shown), FILE_POLICY, head).await
                    }
                    Ok(_) => text(
                        StatusCode::FORBIDDEN,
                        format!("{shown}: resolves to a hidden file"),
                    ),
                    Err(_) => text(
                        StatusCode::FORBIDDEN,
                        format!("{shown}: lies outside the run directory"),
                    ),
                },
                Err(_) => text(StatusCode::NOT_FOUND, format!("{shown}: no such file")),
            }
        }
        _ => text(StatusCode::NOT_FOUND, "no such page".into()),
    };
    if by_query {
        let cookie = format!(
            "{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/",
            shared.token
        );
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, v);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_pass() {
        for bad in ["", ".", "..", ".hidden", "a\\b", "a\0b", "a\nb"] {
            assert!(!plain_component(bad), "{bad:?}");
        }
        assert!(plain_component("results.md"));
        assert_eq!(decode("a%2Fb").as_deref(), Some("a/b"));
        assert!(!plain_component(&decode("a%2Fb").unwrap()));
        assert_eq!(decode("%2e%2e").as_deref(), Some(".."));
        assert_eq!(decode("%zz"), None);
        assert_eq!(decode("%"), None);
    }

    #[test]
    fn run_files_never_get_an_executable_type() {
        for name in ["x.html", "x.js", "x.htm", "x.xhtml", "x.mjs", "x"] {
            let t = file_type(name);
            assert!(
                !t.contains("html") && !t.contains("javascript"),
                "{name}: {t}"
            );
        }
    }
}
