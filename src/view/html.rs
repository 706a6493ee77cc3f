//! Assembles the page: the head (CSS, the error hooks), one `<script type="application/json">`
//! block per item or episode streamed as units are read, then the compact index and the
//! viewer script. Written to a temporary file next to the output and renamed at the end, so
//! a reader never sees half a page.

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

/// The page being written: details are appended as they are built; [`PageWriter::finish`]
/// adds the index and the script and renames the file into place.
#[derive(Debug)]
pub struct PageWriter {
    out: PathBuf,
    tmp: PathBuf,
    w: BufWriter<File>,
    next: usize,
    detail_bytes: usize,
    detail_budget: usize,
}

/// Most bytes of detail blocks one page holds (issue 30, item 23): a 600-item run with 1 MB
/// call logs each made a 614 MB page no browser rendered. Once details reach it, each further
/// detail is cut to [`MIN_DETAIL_ROOM`] (its result and notes; its calls, steps and frames
/// left out, with a note) so every row still opens. `colony logs cat` prints what was cut.
pub const MAX_PAGE_DETAIL_BYTES: usize = 192 << 20;

/// The room a detail always gets, however much of the page budget is spent.
pub const MIN_DETAIL_ROOM: usize = 16 << 10;

impl PageWriter {
    /// Starts the page `out` (a temporary file until [`PageWriter::finish`]).
    pub fn create(out: &Path, title: &str) -> Result<Self, ViewError> {
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(ViewError::io(dir))?;
        }
        let tmp = temp_path(out);
        let file = File::create(&tmp).map_err(ViewError::io(&tmp))?;
        let mut page = Self {
            out: out.to_path_buf(),
            tmp,
            w: BufWriter::with_capacity(1 << 20, file),
            next: 0,
            detail_bytes: 0,
            detail_budget: MAX_PAGE_DETAIL_BYTES,
        };
        let head = format!(
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>colony view: {}</title>\n<style>\n{CSS}\n</style></head>\n<body>\n\
             <pre id=\"js-errors\"></pre>\n<script>\n{ERROR_HOOKS}\n</script>\n\
             <div id=\"app\"><p class=\"loading\">Loading…</p></div>\n<div id=\"details\" hidden>\n",
            escape_html(title)
        );
        page.write(head.as_bytes())?;
        Ok(page)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), ViewError> {
        self.w.write_all(bytes).map_err(ViewError::io(&self.tmp))
    }

    /// Appends one detail block; returns its number (the page finds it as `#d<number>`).
    pub fn detail<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<usize, ViewError> {
        let n = self.next;
        self.next += 1;
        let text = format!(
            "<script type=\"application/json\" id=\"d{n}\">{}</script>\n",
            script_json(value)
        );
        self.detail_bytes = self.detail_bytes.saturating_add(text.len());
        self.write(text.as_bytes())?;
        Ok(n)
    }

    /// The same page with a detail budget of `bytes` instead of [`MAX_PAGE_DETAIL_BYTES`]
    /// (tests exercise the cut without writing hundreds of megabytes).
    pub fn with_detail_budget(mut self, bytes: usize) -> Self {
        self.detail_budget = bytes;
        self
    }

    /// The largest the next detail may be: `per_detail`, or less once the page's detail
    /// budget ([`MAX_PAGE_DETAIL_BYTES`]) is nearly spent (never below [`MIN_DETAIL_ROOM`]).
    pub fn detail_room(&self, per_detail: usize) -> usize {
        self.detail_budget
            .saturating_sub(self.detail_bytes)
            .min(per_detail)
            .max(MIN_DETAIL_ROOM)
    }

    /// Writes the index and the viewer script, then renames the page into place; returns
    /// its size in bytes.
    pub fn finish(mut self, index: &serde_json::Value) -> Result<u64, ViewError> {
        let tail = format!(
            "</div>\n<script type=\"application/json\" id=\"colony-index\">{}</script>\n\
             <script>\n(function () {{\n\"use strict\";\n{JS_BASE}\n{JS_DETAIL}\n{JS_MAIN}\n}})();\n</script>\n\
             <style>{}</style>\n</body></html>\n",
            script_json(index),
            legend_css(index)
        );
        self.write(tail.as_bytes())?;
        let file = self
            .w
            .into_inner()
            .map_err(|e| ViewError::io(&self.tmp)(e.into_error()))?;
        file.sync_all().map_err(ViewError::io(&self.tmp))?;
        drop(file);
        std::fs::rename(&self.tmp, &self.out).map_err(ViewError::io(&self.out))?;
        let bytes = std::fs::metadata(&self.out)
            .map_err(ViewError::io(&self.out))?
            .len();
        Ok(bytes)
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

/// Installed before anything else runs: uncaught errors and rejections go into
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
        let size = page.finish(&serde_json::json!({})).unwrap() as usize;
        assert!(size < budget + 40 * MIN_DETAIL_ROOM + (1 << 20), "{size}");
    }
}
