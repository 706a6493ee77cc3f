//! Reading dataset files into raw rows (one reader per format) and turning rows into
//! [`Item`]s (one builder per dataset family); `api.rs` holds the public side: [`load`], its
//! options, errors and file formats.
//!
//! Every reader yields [`RawRow`]s: the published field names mapped to JSON values, with the
//! file and location kept for error messages. The builders then only deal with fields, so
//! every dataset is accepted in every format that keeps its field names (e.g. Parquet
//! converted to JSONL).

mod api;
mod choice;
mod code;
mod csv_file;
mod fields;
mod jsonl;
mod mapped;
mod numeric;
#[cfg(feature = "parquet")]
mod parquet_file;

pub use api::{load, Format, LoadError, LoadOptions, Loaded, Location, RowError};
pub use choice::gpqa_order;
pub use code::TESTS_HEADER as CODE_TESTS_HEADER;
pub(crate) use mapped::is_header_row;

use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::{Map, Value};

use crate::dataset::Dataset;
use crate::item::Item;

/// One row of a dataset file, before interpretation.
#[derive(Debug, Clone)]
pub(crate) struct RawRow {
    /// The file it came from.
    pub file: Rc<Path>,
    /// Its line or row in that file.
    pub location: Location,
    /// 0-based index among all rows read (malformed ones included): the fallback item id.
    pub index: usize,
    /// Path relative to the directory given, when the row is the only object of its file in a
    /// directory (original MATH: one problem per `.json` file).
    pub rel_path: Option<String>,
    /// Field name → value.
    pub fields: Map<String, Value>,
}

/// A row or the error that made it unreadable.
pub(crate) type RowResult = Result<RawRow, RowError>;

/// How a CSV file names its columns.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CsvHeader {
    /// The first record is the header.
    Named,
    /// No header: columns get these names (a first record equal to them is skipped).
    Positional(&'static [&'static str]),
}

/// Largest data file read, in bytes: checked on the bytes read, so a symlink to `/dev/zero`
/// stops there.
pub const MAX_DATA_FILE_BYTES: u64 = 512 << 20;

/// The column names of MMLU's original header-less CSV files.
const MMLU_CSV_COLUMNS: &[&str] = &["question", "A", "B", "C", "D", "answer"];

/// Reads every row of `path` in order: a file, or every data file under a directory (all of
/// one format) in natural path order. `named` reads CSV files by their header row even for
/// MMLU (whose original CSVs have none), as a field map does.
pub(crate) fn read_rows(
    dataset: Dataset,
    path: &Path,
    opts: &LoadOptions,
) -> Result<Vec<RowResult>, LoadError> {
    let (format, named) = (opts.format, opts.fields.is_some());
    let header = match dataset {
        Dataset::Mmlu if !named => CsvHeader::Positional(MMLU_CSV_COLUMNS),
        _ => CsvHeader::Named,
    };
    let meta = std::fs::metadata(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        let format = match format {
            Some(f) => f,
            None => Format::from_path(path).ok_or_else(|| LoadError::UnknownFormat {
                path: path.to_path_buf(),
            })?,
        };
        let rows = read_file(path, format, header)?;
        return Ok(number_rows(rows, None, Vec::new()));
    }
    let mut files = Vec::new();
    collect_files(path, format, &mut files)?;
    if let Some(split) = &opts.split {
        let all: Vec<String> = files.iter().map(|f| f.0.clone()).collect();
        files.retain(|(rel, _, _)| in_split(rel, split));
        if files.is_empty() {
            return Err(LoadError::Format {
                path: path.to_path_buf(),
                message: format!(
                    "--split {split}: no data file of this directory belongs to it (splits are \
                     a directory `{split}/` or files named `{split}-…` or `{split}.…`; the files \
                     are: {})",
                    clip_list(&all)
                ),
            });
        }
    }
    files.sort_by(|a, b| natural_cmp(&a.0, &b.0));
    let mut formats: Vec<&str> = files.iter().map(|f| f.2.name()).collect();
    formats.sort_unstable();
    formats.dedup();
    if formats.len() > 1 {
        return Err(LoadError::Format {
            path: path.to_path_buf(),
            message: format!(
                "the directory holds data files of several formats ({}); give the format to read \
                 only one, or point at a single file",
                formats.join(", ")
            ),
        });
    }
    let mut out = Vec::new();
    for (rel, file, fmt) in files {
        let rows = read_file(&file, fmt, header)?;
        let rel = (rows.len() == 1).then_some(rel);
        out = number_rows(rows, rel, out);
    }
    Ok(out)
}

/// Appends `rows` to `out`, setting each row's running index (malformed rows count too) and
/// relative path.
fn number_rows(
    rows: Vec<RowResult>,
    rel: Option<String>,
    mut out: Vec<RowResult>,
) -> Vec<RowResult> {
    for row in rows {
        let index = out.len();
        out.push(row.map(|mut r| {
            r.index = index;
            r.rel_path.clone_from(&rel);
            r
        }));
    }
    out
}

/// Whether the file at `rel` (relative, `/`-separated) belongs to `split`: a directory of that
/// name on its path, or a file name that starts with `split-`, `split_` or `split.`.
fn in_split(rel: &str, split: &str) -> bool {
    let mut parts: Vec<&str> = rel.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    parts.contains(&split)
        || [
            format!("{split}-"),
            format!("{split}_"),
            format!("{split}."),
        ]
        .iter()
        .any(|p| name.starts_with(p.as_str()))
}

/// At most eight of `names`, comma-separated, for an error message.
fn clip_list(names: &[String]) -> String {
    let mut out: Vec<&str> = names.iter().take(8).map(String::as_str).collect();
    if names.len() > 8 {
        out.push("…");
    }
    out.join(", ")
}

/// The metadata files the `datasets` library writes next to the data (`save_to_disk`), which
/// are not rows.
const HF_METADATA: [&str; 3] = ["dataset_info.json", "state.json", "dataset_dict.json"];

/// Files under `dir` (recursively) whose format is `format` or, without one, is known from
/// the extension: `(relative path with '/', path, format)`.
fn collect_files(
    dir: &Path,
    format: Option<Format>,
    out: &mut Vec<(String, PathBuf, Format)>,
) -> Result<(), LoadError> {
    // Directory symlinks are not followed (a `sub/loop -> ..` would read the tree again, or
    // forever), and a file reached through two names is read once.
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|source| LoadError::Io {
            path: d.clone(),
            source,
        })?;
        for entry in entries {
            let entry = entry.map_err(|source| LoadError::Io {
                path: d.clone(),
                source,
            })?;
            let p = entry.path();
            let kind = entry.file_type().map_err(|source| LoadError::Io {
                path: p.clone(),
                source,
            })?;
            if kind.is_dir() {
                stack.push(p);
                continue;
            }
            if p.is_dir() {
                continue;
            }
            if !seen.insert(std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone())) {
                continue;
            }
            if p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| HF_METADATA.contains(&n))
            {
                continue;
            }
            let Some(detected) = Format::from_path(&p) else {
                continue;
            };
            let same_family =
                |f: Format| f == detected || matches!((f, detected), (Format::Json, Format::Jsonl));
            let fmt = match format {
                Some(f) if same_family(f) => f,
                Some(_) => continue,
                None => detected,
            };
            let rel = p
                .strip_prefix(dir)
                .unwrap_or(&p)
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.push((rel, p, fmt));
        }
    }
    Ok(())
}

/// Compares paths so that digit runs compare by value (`2.json` before `10.json`).
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        match (a.chars().next(), b.chars().next()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let na = a.len() - a.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                let nb = b.len() - b.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                let (da, db) = (
                    a[..na].trim_start_matches('0'),
                    b[..nb].trim_start_matches('0'),
                );
                let ord = da
                    .len()
                    .cmp(&db.len())
                    .then_with(|| da.cmp(db))
                    .then_with(|| na.cmp(&nb));
                if ord.is_ne() {
                    return ord;
                }
                a = &a[na..];
                b = &b[nb..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
                a = &a[x.len_utf8()..];
                b = &b[y.len_utf8()..];
            }
        }
    }
}

/// Reads one file in `format`.
fn read_file(path: &Path, format: Format, header: CsvHeader) -> Result<Vec<RowResult>, LoadError> {
    let file: Rc<Path> = Rc::from(path);
    match format {
        #[cfg(feature = "parquet")]
        Format::Parquet => parquet_file::read(&file),
        #[cfg(feature = "parquet")]
        Format::Arrow => parquet_file::read_arrow(&file, &read_bytes(path)?),
        #[cfg(not(feature = "parquet"))]
        Format::Arrow => Err(LoadError::Format {
            path: path.to_path_buf(),
            message: "colony was built without its `parquet` cargo feature (rebuild with \
                      `--features full`)"
                .into(),
        }),
        #[cfg(not(feature = "parquet"))]
        Format::Parquet => Err(LoadError::Format {
            path: path.to_path_buf(),
            message: "colony was built without its `parquet` cargo feature (rebuild with \
                      `--features full`)"
                .into(),
        }),
        Format::Jsonl => Ok(jsonl::read_lines(&file, &read_text(path)?)),
        Format::Json => Ok(jsonl::read_document(&file, &read_text(path)?)),
        Format::Csv => Ok(csv_file::read(&file, &read_text(path)?, header)),
    }
}

/// The file's text: UTF-8 checked (the error names the line of the first bad byte), a leading
/// byte-order mark removed.
fn read_text(path: &Path) -> Result<String, LoadError> {
    let bytes = read_bytes(path)?;
    let bytes = if is_gzip(path) {
        gunzip(path, &bytes)?
    } else {
        bytes
    };
    match String::from_utf8(bytes) {
        Ok(mut s) => {
            if s.starts_with('\u{feff}') {
                s.drain(..'\u{feff}'.len_utf8());
            }
            Ok(s)
        }
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let line = 1 + e.as_bytes()[..valid]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            Err(LoadError::NotUtf8 {
                path: path.to_path_buf(),
                location: Location::Line(line),
            })
        }
    }
}

/// The file's bytes, at most [`MAX_DATA_FILE_BYTES`].
fn read_bytes(path: &Path) -> Result<Vec<u8>, LoadError> {
    colony_env_api::bounded::read_bytes(path, MAX_DATA_FILE_BYTES).map_err(|e| match e {
        colony_env_api::bounded::BoundedReadError::Io { source, .. } => LoadError::Io {
            path: path.to_path_buf(),
            source,
        },
        other => LoadError::Format {
            path: path.to_path_buf(),
            message: other.to_string(),
        },
    })
}

/// A `.gz` file name (case-insensitive).
fn is_gzip(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// The decompressed contents of a gzip file, at most [`MAX_DATA_FILE_BYTES`] (a gzip bomb
/// stops there with an error).
fn gunzip(path: &Path, bytes: &[u8]) -> Result<Vec<u8>, LoadError> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .take(MAX_DATA_FILE_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| LoadError::Format {
            path: path.to_path_buf(),
            message: format!("not a readable gzip file: {e}"),
        })?;
    if out.len() as u64 > MAX_DATA_FILE_BYTES {
        return Err(LoadError::Format {
            path: path.to_path_buf(),
            message: format!("decompresses to more than {MAX_DATA_FILE_BYTES} bytes"),
        });
    }
    Ok(out)
}

/// Turns a raw row into an item of `dataset`.
pub(crate) fn build_item(
    dataset: Dataset,
    row: &RawRow,
    opts: &LoadOptions,
) -> Result<Item, RowError> {
    if let Some(map) = &opts.fields {
        return mapped::build(dataset, row, map);
    }
    match dataset {
        Dataset::Gsm8k => numeric::gsm8k(row),
        Dataset::GsmHard => numeric::gsm_hard(row),
        Dataset::Math => numeric::math(row),
        Dataset::Aime2024 => numeric::aime(row),
        Dataset::AquaRat => choice::aqua_rat(row),
        Dataset::Mmlu => choice::mmlu(row),
        Dataset::MmluPro => choice::mmlu_pro(row),
        Dataset::Gpqa => choice::gpqa(row, opts.gpqa_correct_first),
        Dataset::HumanEval => code::humaneval(row),
        // Without `--field`, the code dataset reads its fields under their own names.
        Dataset::Code => mapped::build(dataset, row, &crate::FieldMap::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;

    #[test]
    fn natural_order_compares_digit_runs_by_value() {
        let mut v = vec![
            "b/10.json",
            "b/2.json",
            "a/1.json",
            "b/02.json",
            "b/1x.json",
        ];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            [
                "a/1.json",
                "b/1x.json",
                "b/2.json",
                "b/02.json",
                "b/10.json"
            ]
        );
    }
}
