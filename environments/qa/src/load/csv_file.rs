//! CSV files: a header row naming the columns (GPQA, CSV exports of the hub copies), or
//! MMLU's original header-less rows `question,A,B,C,D,answer`.
//!
//! Quoted fields may span lines (GPQA questions do); a row's location is the line where its
//! record starts. A row whose field count differs from the header's is malformed.

use std::path::Path;
use std::rc::Rc;

use serde_json::{Map, Value};

use super::{CsvHeader, RawRow, RowResult};
use super::{Location, RowError};

/// Reads the rows of a CSV text.
pub(crate) fn read(file: &Rc<Path>, text: &str, header: CsvHeader) -> Vec<RowResult> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut names: Option<Vec<String>> = match header {
        CsvHeader::Named => None,
        CsvHeader::Positional(cols) => Some(cols.iter().map(|c| c.to_string()).collect()),
    };
    let mut first = true;
    let mut out = Vec::new();
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line() as usize);
                out.push(Err(RowError {
                    path: file.to_path_buf(),
                    location: Location::Line(line),
                    field: None,
                    message: format!("invalid CSV: {e}"),
                }));
                continue;
            }
        };
        let line = record.position().map_or(0, |p| p.line() as usize);
        let cells: Vec<&str> = record.iter().collect();
        if first {
            first = false;
            match &names {
                None => {
                    names = Some(cells.iter().map(|c| c.trim().to_string()).collect());
                    continue;
                }
                Some(cols) if repeats(&cells, cols) => continue,
                Some(_) if names_question_and_answer(&cells) => {
                    names = Some(cells.iter().map(|c| c.trim().to_string()).collect());
                    continue;
                }
                Some(_) => {}
            }
        }
        let Some(cols) = &names else { continue };
        if cells.len() != cols.len() {
            out.push(Err(RowError {
                path: file.to_path_buf(),
                location: Location::Line(line),
                field: None,
                message: format!(
                    "has {} fields, expected {} ({})",
                    cells.len(),
                    cols.len(),
                    cols.join(", ")
                ),
            }));
            continue;
        }
        let fields: Map<String, Value> = cols
            .iter()
            .zip(cells)
            .map(|(k, v)| (k.clone(), Value::String(v.to_string())))
            .collect();
        out.push(Ok(RawRow {
            file: Rc::clone(file),
            location: Location::Line(line),
            index: 0,
            rel_path: None,
            fields,
        }));
    }
    out
}

/// Whether a record repeats the positional column names (a header added by a conversion).
fn repeats(cells: &[&str], cols: &[String]) -> bool {
    cells.len() == cols.len()
        && cells
            .iter()
            .zip(cols)
            .all(|(a, b)| a.trim().eq_ignore_ascii_case(b))
}

/// Whether a record is a header with its own names: it has cells `question` and `answer`.
fn names_question_and_answer(cells: &[&str]) -> bool {
    let has = |name: &str| cells.iter().any(|c| c.trim() == name);
    has("question") && has("answer")
}
