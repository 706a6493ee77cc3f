//! Assembles a report: the index page (`report.html`: the compact index of every unit's rows
//! as an inert JSON block, and a link to the viewer script) and its data directory
//! (`report.data/`: the viewer script and styles, and the details of every item or episode
//! packed into `c<k>.js` chunk files of about [`CHUNK_BYTES`], written as units are read and
//! loaded by the page only when one of their rows is opened). Both are written under
//! temporary names and renamed at the end, the page last, so a reader never sees half a report.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::ViewError;
use crate::eval::results::temp_path;

const CSS: &str = include_str!("assets/viewer.css");
const JS_BASE: &str = include_str!("assets/viewer_base.js");
const JS_DETAIL: &str = include_str!("assets/viewer_detail.js");
const JS_MAIN: &str = include_str!("assets/viewer.js");

/// JSON safe inside a `<script>` element: `<`, `>` and `&` only occur inside JSON strings,
/// where their `\u` escapes mean the same, so `</script>` or `<!--` in a reply cannot end the
/// block.
pub fn script_json<T: Serialize + ?Sized>(value: &T) -> String {
    let text = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Text safe as HTML element content or a double-quoted attribute.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page being written: an index page plus a data directory beside it
/// (`report.html` and `report.data/`). Details are appended as they are
/// built, into chunk files (`c<k>.js`) that the page loads only when one of their rows is
/// opened; the viewer
/// script and styles are files there too, so the page holds no inline script and a strict
/// Content-Security-Policy (`view --serve`) allows it.
///
/// Decision: a chunk is a script call, `colonyChunk("GEN", k, "<base64>")`, rather than a
/// `.json` file, because a page opened from `file://` may load a script from its own folder
/// but may not `fetch` a file. Its one argument from the run is base64 (an alphabet that
/// cannot end or escape the call) of the gzip of a JSON array of `[n, detail]` pairs, which
/// the browser inflates with its own `DecompressionStream`: call logs repeat themselves, and
/// the plain JSON of a Wildfire grid's details was ten times its compact logs on disk. `GEN`
/// is the page's generation: a page whose data directory was regenerated under it says so
/// instead of showing another run's rows.
///
/// Each generation's data goes to its own folder, `report.data/g-GEN/` (written as
/// `.g-GEN.tmp`, renamed when complete); the page is written to a temporary file and renamed
/// last, in one step, so a reader finds the old report or the new one, never a page without
/// its data. Older generations are swept afterwards (a page still open on one then says the
/// report was regenerated).
#[derive(Debug)]
pub struct PageWriter {
    out: PathBuf,
    tmp: PathBuf,
    data_name: String,
    data_root: PathBuf,
    data_tmp: PathBuf,
    generation: String,
    title: String,
    next: usize,
    detail_bytes: usize,
    detail_budget: usize,
    finished: bool,
    chunk: Option<Chunk>,
    chunk_starts: Vec<usize>,
}

/// The chunk being built: its details as a JSON array of `[n, detail]`, gzip-compressed as
/// they come.
struct Chunk {
    gz: flate2::write::GzEncoder<Vec<u8>>,
    path: PathBuf,
    bytes: usize,
}

impl std::fmt::Debug for Chunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chunk")
            .field("path", &self.path)
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

/// Details are packed into chunks of about this many bytes of JSON (a larger detail gets a
/// chunk of its own): opening one row parses at most a few megabytes, and a search over a
/// 10,000-item run reads a few dozen files instead of 10,000.
pub const CHUNK_BYTES: usize = 2 << 20;

impl Drop for PageWriter {
    /// A report abandoned on an error leaves nothing behind (the old report stays whole).
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_dir_all(&self.data_tmp);
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Most bytes of detail files one report holds: past it each further
/// detail is cut to [`MIN_DETAIL_ROOM`] (its result and notes; its calls, steps and frames
/// left out, with a note) so every row still opens. `colony logs cat` prints what was cut.
/// Only the opened details are ever loaded, so this bounds the disk a report takes, not
/// what a browser holds.
pub const MAX_PAGE_DETAIL_BYTES: usize = 2 << 30;

/// The room a detail always gets, however much of the report's budget is spent.
pub const MIN_DETAIL_ROOM: usize = 16 << 10;

/// Name of the data directory of the page `out`: its file name without `.html`, plus `.data`.
pub fn data_dir_name(out: &Path) -> String {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report.html".into());
    let stem = name.strip_suffix(".html").unwrap_or(&name);
    format!("{stem}.data")
}

/// A generation token: the time and the process, enough to tell two reports of one
/// directory apart.
fn generation_token() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{:x}-{:x}", nanos, std::process::id())
}

/// `text` percent-encoded for one path segment of a relative URL.
fn url_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl PageWriter {
    /// Starts the page `out` and its data directory (temporary names until
    /// [`PageWriter::finish`]).
    pub fn create(out: &Path, title: &str) -> Result<Self, ViewError> {
        let dir = out
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or_else(|| Path::new("."));
        std::fs::create_dir_all(dir).map_err(ViewError::io(dir))?;
        let data_name = data_dir_name(out);
        let data_root = dir.join(&data_name);
        if data_root.exists() && !data_root.is_dir() {
            return Err(ViewError::BadFile {
                path: data_root,
                message: "exists and is not a directory; the report's data goes there".into(),
            });
        }
        std::fs::create_dir_all(&data_root).map_err(ViewError::io(&data_root))?;
        let generation = generation_token();
        let data_tmp = data_root.join(format!(".g-{generation}.tmp"));
        std::fs::create_dir(&data_tmp).map_err(ViewError::io(&data_tmp))?;
        Ok(Self {
            out: out.to_path_buf(),
            tmp: temp_path(out),
            data_name,
            data_root,
            data_tmp,
            generation,
            title: title.to_string(),
            next: 0,
            detail_bytes: 0,
            detail_budget: MAX_PAGE_DETAIL_BYTES,
            finished: false,
            chunk: None,
            chunk_starts: Vec::new(),
        })
    }

    /// The token every data file of this report carries.
    pub fn generation(&self) -> &str {
        &self.generation
    }

    fn write_file(&self, name: &str, bytes: &[u8]) -> Result<(), ViewError> {
        let path = self.data_tmp.join(name);
        std::fs::write(&path, bytes).map_err(ViewError::io(&path))
    }

    /// Appends one detail to the current chunk; returns its number.
    pub fn detail<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<usize, ViewError> {
        let n = self.next;
        self.next += 1;
        let body = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
        let roll = self
            .chunk
            .as_ref()
            .is_some_and(|c| c.bytes > 0 && c.bytes.saturating_add(body.len()) > CHUNK_BYTES);
        if roll || self.chunk.is_none() {
            self.close_chunk()?;
            let k = self.chunk_starts.len();
            self.chunk = Some(Chunk {
                gz: flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(3)),
                path: self.data_tmp.join(format!("c{k}.js")),
                bytes: 0,
            });
            self.chunk_starts.push(n);
        }
        self.detail_bytes = self.detail_bytes.saturating_add(body.len());
        if let Some(c) = self.chunk.as_mut() {
            let sep = if c.bytes == 0 { "[" } else { "," };
            let item = format!("{sep}[{n},{body}]");
            c.bytes = c.bytes.saturating_add(item.len());
            c.gz.write_all(item.as_bytes())
                .map_err(ViewError::io(&c.path))?;
        }
        Ok(n)
    }

    /// Writes the current chunk's file: `colonyChunk("GEN", k, "<base64 of gzip>");`.
    fn close_chunk(&mut self) -> Result<(), ViewError> {
        let Some(mut c) = self.chunk.take() else {
            return Ok(());
        };
        let k = self.chunk_starts.len() - 1;
        c.gz.write_all(b"]").map_err(ViewError::io(&c.path))?;
        let zipped = c.gz.finish().map_err(ViewError::io(&c.path))?;
        use base64::Engine;
        let text = format!(
            "colonyChunk(\"{}\",{k},\"{}\");\n",
            self.generation,
            base64::engine::general_purpose::STANDARD.encode(zipped)
        );
        std::fs::write(&c.path, text).map_err(ViewError::io(&c.path))
    }

    /// Appends `detail` after cutting the arrays under `keys` so that it fits
    /// [`Self::detail_room`] of [`super::bounded::MAX_DETAIL_BYTES`] (what every report's
    /// row details do); returns its number.
    pub fn fitted_detail(
        &mut self,
        detail: &mut serde_json::Value,
        keys: &[&str],
    ) -> Result<usize, ViewError> {
        let room = self.detail_room(super::bounded::MAX_DETAIL_BYTES);
        super::bounded::fit_detail(detail, keys, room);
        self.detail(detail)
    }

    /// The same page with a detail budget of `bytes` instead of [`MAX_PAGE_DETAIL_BYTES`]
    /// (tests exercise the cut without writing gigabytes).
    pub fn with_detail_budget(mut self, bytes: usize) -> Self {
        self.detail_budget = bytes;
        self
    }

    /// The largest the next detail may be: `per_detail`, or less once the report's detail
    /// budget ([`MAX_PAGE_DETAIL_BYTES`]) is nearly spent (never below [`MIN_DETAIL_ROOM`]).
    pub fn detail_room(&self, per_detail: usize) -> usize {
        self.detail_budget
            .saturating_sub(self.detail_bytes)
            .min(per_detail)
            .max(MIN_DETAIL_ROOM)
    }

    /// Writes the viewer script and styles, then the page with the index, and renames the
    /// data directory and the page into place; returns the page's size in bytes (the index
    /// page alone: details are loaded on demand).
    pub fn finish(mut self, index: &serde_json::Value) -> Result<u64, ViewError> {
        self.close_chunk()?;
        let folder = format!("g-{}", self.generation);
        let data_rel = format!("{}/{folder}", self.data_name);
        let mut index = index.clone();
        index["generation"] = serde_json::Value::String(self.generation.clone());
        index["data"] = serde_json::Value::String(data_rel.clone());
        index["chunks"] = serde_json::json!(self.chunk_starts);
        self.write_file(
            "viewer.js",
            format!(
                "{ERROR_HOOKS}\n(function () {{\n\"use strict\";\n{JS_BASE}\n{JS_DETAIL}\n{JS_MAIN}\n}})();\n"
            )
            .as_bytes(),
        )?;
        self.write_file(
            "viewer.css",
            format!("{CSS}\n{}", legend_css(&index)).as_bytes(),
        )?;
        let data = format!(
            "{}/{}",
            escape_html(&url_segment(&self.data_name)),
            escape_html(&url_segment(&folder))
        );
        let page = format!(
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>colony view: {}</title>\n<link rel=\"stylesheet\" href=\"{data}/viewer.css\">\n</head>\n<body>\n\
             <pre id=\"js-errors\"></pre>\n\
             <div id=\"app\"><p class=\"loading\">Loading… (this page reads the folder {} next to it)</p></div>\n\
             <script type=\"application/json\" id=\"colony-index\">{}</script>\n\
             <script src=\"{data}/viewer.js\"></script>\n</body></html>\n",
            escape_html(&self.title),
            escape_html(&self.data_name),
            script_json(&index),
        );
        {
            let mut w = BufWriter::new(File::create(&self.tmp).map_err(ViewError::io(&self.tmp))?);
            w.write_all(page.as_bytes())
                .map_err(ViewError::io(&self.tmp))?;
            let file = w
                .into_inner()
                .map_err(|e| ViewError::io(&self.tmp)(e.into_error()))?;
            file.sync_all().map_err(ViewError::io(&self.tmp))?;
        }
        // The generation's folder first, then the page in one rename: a reader sees the old
        // report or the new one, never a page without its data.
        let data = self.data_root.join(&folder);
        std::fs::rename(&self.data_tmp, &data).map_err(ViewError::io(&data))?;
        std::fs::rename(&self.tmp, &self.out).map_err(ViewError::io(&self.out))?;
        self.finished = true;
        sweep_generations(&self.data_root, &folder);
        let bytes = std::fs::metadata(&self.out)
            .map_err(ViewError::io(&self.out))?
            .len();
        Ok(bytes)
    }
}

/// The details of one chunk file (`report.data/c<k>.js`) as `(n, detail)` pairs: for tools
/// and tests that read a report without a browser.
pub fn read_chunk(path: &Path) -> Result<Vec<(u64, serde_json::Value)>, ViewError> {
    use base64::Engine;
    use std::io::Read;
    let bad = |message: &str| ViewError::BadFile {
        path: path.to_path_buf(),
        message: message.to_string(),
    };
    let text = std::fs::read_to_string(path).map_err(ViewError::io(path))?;
    let b64 = text
        .trim_end()
        .strip_suffix("\");")
        .and_then(|t| t.rsplit_once(",\""))
        .map(|(_, b)| b)
        .ok_or_else(|| bad("not a colonyChunk(...) call"))?;
    let zipped = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| bad(&format!("bad base64: {e}")))?;
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(&zipped[..])
        .take(1 << 30)
        .read_to_end(&mut json)
        .map_err(ViewError::io(path))?;
    serde_json::from_slice(&json).map_err(|e| bad(&format!("bad JSON: {e}")))
}

/// Removes every other generation's folder (and a crashed run's temporaries) from a report's
/// data folder, once the page points at `keep`; what cannot be removed is only logged, since
/// the new report is already in place.
fn sweep_generations(data_root: &Path, keep: &str) {
    let Ok(entries) = std::fs::read_dir(data_root) else {
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = name.starts_with("g-") || name.starts_with(".g-");
        if ours && name != keep {
            if let Err(err) = std::fs::remove_dir_all(e.path()) {
                tracing::warn!(dir = %e.path().display(), error = %err, "could not remove an old report generation");
            }
        }
    }
}

/// One CSS class per legend entry of every compare unit (`.cell-<n>`; units of one page
/// share classes by position, so the legend of each environment gets its own rule under
/// `[data-env]`).
fn legend_css(index: &serde_json::Value) -> String {
    let mut css = String::new();
    let mut seen = std::collections::BTreeSet::new();
    for unit in index["units"].as_array().into_iter().flatten() {
        let env = unit["env"].as_str().unwrap_or_default();
        let plain = env
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if env.is_empty() || !plain || !seen.insert(env.to_string()) {
            continue;
        }
        for (i, e) in unit["legend"].as_array().into_iter().flatten().enumerate() {
            let colour = |k: &str| {
                let c = e[k].as_str().unwrap_or("#cfd8dc");
                // Only colours of the built-in legends reach here; keep them CSS-inert anyway.
                c.chars()
                    .filter(|ch| ch.is_ascii_alphanumeric() || *ch == '#')
                    .collect::<String>()
            };
            css.push_str(&format!(
                "[data-env=\"{}\"] .cell-{i} {{ background: {}; color: {}; }}\n",
                env,
                colour("bg"),
                colour("fg")
            ));
        }
    }
    css
}

/// The first lines of `viewer.js`: uncaught errors and rejections go into
/// `<pre id="js-errors">`, which the browser test requires to stay empty.
const ERROR_HOOKS: &str = r#"(function () {
  function report(msg) {
    var el = document.getElementById("js-errors");
    if (el) { el.textContent += msg + "\n"; el.classList.add("shown"); }
  }
  window.onerror = function (message, source, line, col, error) {
    report("error: " + message + " at " + line + ":" + col + (error && error.stack ? "\n" + error.stack : ""));
  };
  window.addEventListener("unhandledrejection", function (e) {
    report("unhandled rejection: " + (e.reason && e.reason.stack ? e.reason.stack : e.reason));
  });
})();"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_its_block_and_round_trips() {
        let v = serde_json::json!({"reply": "</script><!-- & \u{2028}"});
        let s = script_json(&v);
        assert!(
            !s.contains('<') && !s.contains('>') && !s.contains('&'),
            "{s}"
        );
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn a_page_holds_at_most_its_detail_budget_and_every_row_keeps_a_detail() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("page.html");
        let budget = 1 << 20;
        let mut page = PageWriter::create(&out, "t")
            .unwrap()
            .with_detail_budget(budget);
        let mut cut = 0;
        for i in 0..40 {
            // About 300 KB of calls per item, as a long call log gives.
            let mut d = serde_json::json!({
                "kind": "item", "result": {"id": i}, "notes": [],
                "entries": vec!["x".repeat(1000); 300],
            });
            if super::super::bounded::fit_detail(&mut d, &["entries"], page.detail_room(8 << 20)) {
                cut += 1;
            }
            assert_eq!(page.detail(&d).unwrap(), i);
        }
        assert!(cut > 30, "{cut}");
        let page_bytes = page.finish(&serde_json::json!({})).unwrap();
        assert!(
            page_bytes < 64 << 10,
            "the index page holds no detail: {page_bytes}"
        );
        let data = std::fs::read_dir(dir.path().join("page.data"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let mut size = 0usize;
        let mut files = 0usize;
        for e in std::fs::read_dir(&data).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('c') && name.ends_with(".js") {
                size += e.metadata().unwrap().len() as usize;
                files += read_chunk(&e.path()).unwrap().len();
            }
        }
        assert_eq!(files, 40, "every detail is in a chunk");
        assert!(size < budget + 40 * MIN_DETAIL_ROOM + (1 << 20), "{size}");
        // Nothing temporary is left beside the page.
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }
}
