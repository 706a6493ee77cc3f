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

/// f32 values as little-endian bytes: on little-endian machines a plain copy of the memory
/// (a 64-copy CUBE n = 32 batch is 42 MB per step, so a per-value conversion would dominate).
pub(crate) fn from_f32(values: &[f32]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(values))
    } else {
        std::borrow::Cow::Owned(values.iter().flat_map(|v| v.to_le_bytes()).collect())
    }
}

/// f64 values as little-endian bytes (see [`from_f32`]).
pub(crate) fn from_f64(values: &[f64]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(values))
    } else {
        std::borrow::Cow::Owned(values.iter().flat_map(|v| v.to_le_bytes()).collect())
    }
}
