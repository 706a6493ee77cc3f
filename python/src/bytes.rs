//! Little-endian byte views of the arrays that cross into Python (see the crate docs).

use pyo3::prelude::*;

/// `codes` as i64 values; the length must be a multiple of 8.
pub(crate) fn codes(raw: &[u8]) -> PyResult<Vec<i64>> {
    if !raw.len().is_multiple_of(8) {
        return Err(crate::colony_error(format!(
            "action codes: {} bytes is not a whole number of int64 values",
            raw.len()
        )));
    }
    Ok(raw
        .chunks_exact(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            i64::from_le_bytes(b)
        })
        .collect())
}

/// f32 values as bytes.
pub(crate) fn from_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// f64 values as bytes.
pub(crate) fn from_f64(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
