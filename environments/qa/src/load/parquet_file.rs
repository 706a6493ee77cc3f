//! Parquet files (the hub copies of MMLU, MMLU-Pro, AIME-2024 and mirrors of the others),
//! read with the `parquet` crate's Arrow reader, and Arrow IPC files (`datasets`'
//! `save_to_disk`), read with `arrow-ipc`; both become rows the same way.
//!
//! Cells become JSON values: strings, integers, floats (non-finite ones as the strings `NaN`,
//! `Infinity`, `-Infinity`), booleans, lists and structs; other Arrow types (dates,
//! decimals, dictionaries, …) become their Arrow display text. Locations are 0-based rows.
//! This build decodes uncompressed and Snappy-compressed files (what the hub serves).

use std::fs::File;
use std::path::Path;
use std::rc::Rc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Map, Number, Value};

use super::{LoadError, Location};
use super::{RawRow, RowResult};

/// Reads every row of a Parquet file.
pub(crate) fn read(file: &Rc<Path>) -> Result<Vec<RowResult>, LoadError> {
    let fmt_err = |message: String| LoadError::Format {
        path: file.to_path_buf(),
        message,
    };
    let handle = File::open(file).map_err(|source| LoadError::Io {
        path: file.to_path_buf(),
        source,
    })?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(handle)
        .and_then(|b| b.build())
        .map_err(|e| fmt_err(format!("not a readable Parquet file: {e}")))?;
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| {
            fmt_err(format!(
                "cannot decode Parquet data: {e} (this build reads uncompressed and Snappy-compressed \
                 Parquet; otherwise convert the file to JSONL keeping the field names)"
            ))
        })?;
        read_batch(file, &batch, &mut out)?;
    }
    Ok(out)
}

/// Reads every row of an Arrow IPC file, stream format (the `datasets` library's
/// `save_to_disk`) or file format (`ARROW1` magic), from its bytes (already size-bounded).
pub(crate) fn read_arrow(file: &Rc<Path>, bytes: &[u8]) -> Result<Vec<RowResult>, LoadError> {
    let fmt_err = |message: String| LoadError::Format {
        path: file.to_path_buf(),
        message,
    };
    let mut out = Vec::new();
    if bytes.starts_with(b"ARROW1") {
        let reader = arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None)
            .map_err(|e| fmt_err(format!("not a readable Arrow file: {e}")))?;
        for batch in reader {
            let batch = batch.map_err(|e| fmt_err(format!("cannot decode Arrow data: {e}")))?;
            read_batch(file, &batch, &mut out)?;
        }
    } else {
        let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)
            .map_err(|e| fmt_err(format!("not a readable Arrow stream: {e}")))?;
        for batch in reader {
            let batch = batch.map_err(|e| fmt_err(format!("cannot decode Arrow data: {e}")))?;
            read_batch(file, &batch, &mut out)?;
        }
    }
    Ok(out)
}

fn read_batch(
    file: &Rc<Path>,
    batch: &RecordBatch,
    out: &mut Vec<RowResult>,
) -> Result<(), LoadError> {
    let schema = batch.schema();
    let start = out.len();
    let mut rows: Vec<Map<String, Value>> = vec![Map::new(); batch.num_rows()];
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        for (r, row) in rows.iter_mut().enumerate() {
            let v = cell(column.as_ref(), r).map_err(|()| LoadError::NotUtf8 {
                path: file.to_path_buf(),
                location: Location::Row(start + r),
            })?;
            row.insert(field.name().clone(), v);
        }
    }
    for (r, fields) in rows.into_iter().enumerate() {
        out.push(Ok(RawRow {
            file: Rc::clone(file),
            location: Location::Row(start + r),
            index: 0,
            rel_path: None,
            fields,
        }));
    }
    Ok(())
}

/// The JSON value of row `r` of `a`; `Err` for binary data that is not UTF-8.
fn cell(a: &dyn Array, r: usize) -> Result<Value, ()> {
    if a.is_null(r) {
        return Ok(Value::Null);
    }
    macro_rules! int {
        ($t:ty) => {
            a.as_primitive_opt::<$t>()
                .map(|x| Value::Number(Number::from(x.value(r))))
        };
    }
    let v = match a.data_type() {
        DataType::Null => Some(Value::Null),
        DataType::Boolean => a.as_boolean_opt().map(|x| Value::Bool(x.value(r))),
        DataType::Int8 => int!(Int8Type),
        DataType::Int16 => int!(Int16Type),
        DataType::Int32 => int!(Int32Type),
        DataType::Int64 => int!(Int64Type),
        DataType::UInt8 => int!(UInt8Type),
        DataType::UInt16 => int!(UInt16Type),
        DataType::UInt32 => int!(UInt32Type),
        DataType::UInt64 => int!(UInt64Type),
        DataType::Float32 => a
            .as_primitive_opt::<Float32Type>()
            .map(|x| float(f64::from(x.value(r)))),
        DataType::Float64 => a
            .as_primitive_opt::<Float64Type>()
            .map(|x| float(x.value(r))),
        DataType::Utf8 => a.as_string_opt::<i32>().map(|x| text(x.value(r))),
        DataType::LargeUtf8 => a.as_string_opt::<i64>().map(|x| text(x.value(r))),
        DataType::Utf8View => a.as_string_view_opt().map(|x| text(x.value(r))),
        DataType::Binary => match a.as_binary_opt::<i32>() {
            Some(x) => Some(utf8(x.value(r))?),
            None => None,
        },
        DataType::LargeBinary => match a.as_binary_opt::<i64>() {
            Some(x) => Some(utf8(x.value(r))?),
            None => None,
        },
        DataType::BinaryView => match a.as_binary_view_opt() {
            Some(x) => Some(utf8(x.value(r))?),
            None => None,
        },
        DataType::List(_) => match a.as_list_opt::<i32>() {
            Some(x) => Some(list(x.value(r).as_ref())?),
            None => None,
        },
        DataType::LargeList(_) => match a.as_list_opt::<i64>() {
            Some(x) => Some(list(x.value(r).as_ref())?),
            None => None,
        },
        DataType::FixedSizeList(_, _) => match a.as_fixed_size_list_opt() {
            Some(x) => Some(list(x.value(r).as_ref())?),
            None => None,
        },
        DataType::Struct(fields) => match a.as_struct_opt() {
            Some(x) => {
                let mut m = Map::new();
                for (f, col) in fields.iter().zip(x.columns()) {
                    m.insert(f.name().clone(), cell(col.as_ref(), r)?);
                }
                Some(Value::Object(m))
            }
            None => None,
        },
        _ => None,
    };
    Ok(v.unwrap_or_else(|| display(a, r)))
}

fn list(values: &dyn Array) -> Result<Value, ()> {
    (0..values.len())
        .map(|i| cell(values, i))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

fn utf8(bytes: &[u8]) -> Result<Value, ()> {
    std::str::from_utf8(bytes).map(text).map_err(|_| ())
}

/// A float as a JSON number; non-finite values as Python spells them.
fn float(f: f64) -> Value {
    match Number::from_f64(f) {
        Some(n) => Value::Number(n),
        None if f.is_nan() => text("NaN"),
        None if f > 0.0 => text("Infinity"),
        None => text("-Infinity"),
    }
}

/// Arrow's display text of a cell of any other type.
fn display(a: &dyn Array, r: usize) -> Value {
    match ArrayFormatter::try_new(a, &FormatOptions::default()) {
        Ok(f) => Value::String(f.value(r).to_string()),
        Err(_) => Value::Null,
    }
}
