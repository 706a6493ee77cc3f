//! Bounded reading of run files: a run directory may hold a line of hundreds of megabytes (a
//! runaway reply) or a file that is not what its name says, and the viewer must neither
//! allocate without bound nor panic. Lines longer than [`MAX_LINE_BYTES`] are skipped and
//! strings longer than [`MAX_STRING_CHARS`] clipped, each with a note the page shows.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::Value;

use super::ViewError;

/// Longest JSONL line read; longer ones are skipped with a note.
pub const MAX_LINE_BYTES: usize = 16 << 20;
/// Longest string kept in a record (characters); longer ones are clipped with a marker.
pub const MAX_STRING_CHARS: usize = 100_000;
/// Largest small file read whole (`summary.json`, `results.md`, an SVG plot, a state file).
pub const MAX_SMALL_FILE: u64 = 8 << 20;
/// Most notes kept per unit (the rest are counted in the last one).
pub const MAX_NOTES: usize = 200;

/// Notes about what was skipped or clipped, shown in the page.
#[derive(Debug, Default, Clone)]
pub struct Notes {
    list: Vec<String>,
    dropped: usize,
}

impl Notes {
    /// Adds a note (beyond [`MAX_NOTES`] only counted).
    pub fn push(&mut self, note: String) {
        if self.list.len() < MAX_NOTES {
            self.list.push(note);
        } else {
            self.dropped += 1;
        }
    }

    /// The notes as JSON strings.
    pub fn to_json(&self) -> Value {
        let mut v: Vec<Value> = self.list.iter().cloned().map(Value::String).collect();
        if self.dropped > 0 {
            v.push(Value::String(format!("… and {} more notes", self.dropped)));
        }
        Value::Array(v)
    }

    /// True when nothing was noted.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// Clips every string in `v` to `max` characters (marking the cut); returns how many were cut.
pub fn clip_strings(v: &mut Value, max: usize) -> usize {
    match v {
        Value::String(s) => {
            if s.len() > max {
                // Byte length first: only long strings pay for the character count.
                let count = s.chars().count();
                if count > max {
                    let cut: String = s.chars().take(max).collect();
                    *s = format!("{cut}… [clipped by colony view: {count} characters]");
                    return 1;
                }
            }
            0
        }
        Value::Array(a) => a.iter_mut().map(|x| clip_strings(x, max)).sum(),
        Value::Object(o) => o.values_mut().map(|x| clip_strings(x, max)).sum(),
        _ => 0,
    }
}

/// Reads one line into `buf` (without the newline), keeping at most `max` bytes; returns
/// `None` at the end of the file, else `(line too long, ended by a newline)`.
fn read_line_bounded<R: BufRead>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<(bool, bool)>> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let available = r.fill_buf()?;
        if available.is_empty() {
            return Ok(any.then_some((too_long, false)));
        }
        any = true;
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let used = done.unwrap_or(available.len());
        r.consume(used);
        if done.is_some() {
            return Ok(Some((too_long, true)));
        }
    }
}

/// Calls `f(line number, value)` for every JSON line of `path`, strings clipped to
/// [`MAX_STRING_CHARS`]. Empty lines are skipped; a line over `max_line` bytes and a torn
/// last line (no newline: a killed run) are skipped with a note; any other line that does
/// not parse is [`ViewError::Corrupt`]. `f` may return a `String` error, reported as corrupt
/// at that line (the record does not have the expected shape).
pub fn for_each_line(
    path: &Path,
    max_line: usize,
    notes: &mut Notes,
    f: impl FnMut(usize, Value) -> Result<(), String>,
) -> Result<(), ViewError> {
    let file = File::open(path).map_err(ViewError::io(path))?;
    for_each_line_in(
        BufReader::with_capacity(1 << 16, file),
        path,
        max_line,
        notes,
        f,
    )
}

/// [`for_each_line`] over an open reader (a decoded compact call log); `path` names it in
/// notes and errors.
pub fn for_each_line_in(
    mut reader: impl std::io::BufRead,
    path: &Path,
    max_line: usize,
    notes: &mut Notes,
    mut f: impl FnMut(usize, Value) -> Result<(), String>,
) -> Result<(), ViewError> {
    let mut buf = Vec::new();
    let mut line = 0usize;
    let mut clipped = 0usize;
    while let Some((too_long, newline)) =
        read_line_bounded(&mut reader, &mut buf, max_line).map_err(ViewError::io(path))?
    {
        line += 1;
        if too_long {
            notes.push(format!(
                "{}:{line}: skipped, longer than {max_line} bytes",
                path.display()
            ));
            continue;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let mut value: Value = match serde_json::from_slice(&buf) {
            Ok(v) => v,
            Err(_) if !newline => {
                notes.push(format!(
                    "{}:{line}: torn last line skipped (an interrupted run)",
                    path.display()
                ));
                continue;
            }
            Err(e) => {
                return Err(ViewError::Corrupt {
                    path: path.to_path_buf(),
                    line,
                    message: e.to_string(),
                })
            }
        };
        clipped += clip_strings(&mut value, MAX_STRING_CHARS);
        f(line, value).map_err(|message| ViewError::Corrupt {
            path: path.to_path_buf(),
            line,
            message,
        })?;
    }
    if clipped > 0 {
        notes.push(format!(
            "{}: {clipped} strings longer than {MAX_STRING_CHARS} characters clipped",
            path.display()
        ));
    }
    Ok(())
}

/// Reads a small text file whole: `Ok(None)` when missing, an error when larger than
/// [`MAX_SMALL_FILE`] or unreadable.
pub fn read_small(path: &Path) -> Result<Option<String>, ViewError> {
    use colony_env_api::bounded::{read_string_if_exists, BoundedReadError};
    read_string_if_exists(path, MAX_SMALL_FILE).map_err(|e| match e {
        BoundedReadError::Io { source, .. } => ViewError::io(path)(source),
        BoundedReadError::TooLarge { .. } => ViewError::BadFile {
            path: path.to_path_buf(),
            message: format!("larger than {MAX_SMALL_FILE} bytes"),
        },
        other => ViewError::BadFile {
            path: path.to_path_buf(),
            message: other.to_string(),
        },
    })
}

/// Reads a small JSON file, strings clipped: `Ok(None)` when missing.
pub fn read_json_file(path: &Path) -> Result<Option<Value>, ViewError> {
    let Some(text) = read_small(path)? else {
        return Ok(None);
    };
    let mut v: Value = serde_json::from_str(&text).map_err(|e| ViewError::BadFile {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    clip_strings(&mut v, MAX_STRING_CHARS);
    Ok(Some(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: &str, max: usize) -> (Result<Vec<(usize, Value)>, ViewError>, Notes) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.jsonl");
        std::fs::write(&path, text).unwrap();
        let mut notes = Notes::default();
        let mut got = Vec::new();
        let r = for_each_line(&path, max, &mut notes, |n, v| {
            got.push((n, v));
            Ok(())
        });
        (r.map(|()| got), notes)
    }

    #[test]
    fn long_lines_are_skipped_with_a_note_and_torn_last_lines_dropped() {
        let long = format!("{{\"a\":\"{}\"}}", "x".repeat(500));
        let text = format!("{{\"a\":1}}\n{long}\n\n{{\"a\":2}}\n{{\"a\":");
        let (got, notes) = lines_of(&text, 100);
        let got = got.unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].0, 4, "line numbers count every line");
        let notes = notes.to_json().to_string();
        assert!(notes.contains(":2: skipped, longer than 100"), "{notes}");
        assert!(notes.contains(":5: torn last line"), "{notes}");
    }

    #[test]
    fn a_corrupt_middle_line_names_the_file_and_line() {
        let (got, _) = lines_of("{\"a\":1}\nnot json\n{\"a\":2}\n", 1000);
        let e = got.unwrap_err().to_string();
        assert!(e.contains("x.jsonl:2:"), "{e}");
    }

    #[test]
    fn long_strings_are_clipped_with_a_marker() {
        let mut v = serde_json::json!({"a": ["é".repeat(50), "short"]});
        assert_eq!(clip_strings(&mut v, 10), 1);
        let s = v["a"][0].as_str().unwrap();
        assert!(
            s.starts_with(&"é".repeat(10)) && s.contains("50 characters"),
            "{s}"
        );
        assert_eq!(v["a"][1], "short");
    }
}

/// Largest detail block of one item or episode, in bytes of JSON.
pub const MAX_DETAIL_BYTES: usize = 8 << 20;

/// Shrinks the arrays `keys` of `detail` (halving the longest, from the end) until its JSON
/// fits in `max` bytes, noting in `detail["notes"]` what was cut; returns whether it cut.
pub fn fit_detail(detail: &mut Value, keys: &[&str], max: usize) -> bool {
    let mut cut = false;
    if !detail.is_object() {
        return false;
    }
    loop {
        let size = serde_json::to_string(detail).map_or(0, |s| s.len());
        if size <= max {
            break;
        }
        let longest = keys
            .iter()
            .filter_map(|k| detail[*k].as_array().map(|a| (*k, a.len())))
            .filter(|(_, n)| *n > 0)
            .max_by_key(|(_, n)| *n);
        let Some((key, n)) = longest else { break };
        if let Some(a) = detail[key].as_array_mut() {
            a.truncate(n / 2);
        }
        let note = format!(
            "{key}: only the first {} of {n} kept (the details exceeded {max} bytes)",
            n / 2
        );
        if let Some(notes) = detail["notes"].as_array_mut() {
            notes.push(Value::String(note));
        } else {
            detail["notes"] = Value::Array(vec![Value::String(note)]);
        }
        cut = true;
    }
    cut
}

#[cfg(test)]
mod fit_tests {
    use super::*;

    #[test]
    fn oversized_details_lose_array_tails_with_a_note() {
        let mut d = serde_json::json!({"calls": vec!["x".repeat(100); 100], "steps": [1, 2]});
        assert!(fit_detail(&mut d, &["calls", "steps"], 2_000));
        assert!(serde_json::to_string(&d).unwrap().len() <= 2_000);
        assert_eq!(d["steps"], serde_json::json!([1, 2]));
        assert!(d["notes"][0]
            .as_str()
            .unwrap()
            .starts_with("calls: only the first"));
    }
}
