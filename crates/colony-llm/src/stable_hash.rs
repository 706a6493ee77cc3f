//! A small stable hash (FNV-1a, 64 bit) for seeds and feature hashing.
//!
//! `std`'s `DefaultHasher` may change between Rust releases, and derived `Hash` impls are not
//! a format; seeds derived from them would break "same seed, same run" across toolchains.
//! Everything here is fed explicitly, field by field, with separators.

/// An FNV-1a 64-bit hasher fed with explicit, separated fields.
#[derive(Debug, Clone, Copy)]
pub struct StableHasher(u64);

impl Default for StableHasher {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl StableHasher {
    /// A fresh hasher.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds raw bytes.
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self
    }

    /// Feeds a string followed by a separator byte that cannot occur in UTF-8.
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes()).bytes(&[0xff])
    }

    /// Feeds an integer (little-endian).
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.bytes(&v.to_le_bytes())
    }

    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// Hash of a list of strings.
pub fn hash_strs(parts: &[&str]) -> u64 {
    let mut h = StableHasher::new();
    for p in parts {
        h.str(p);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vector_and_separation() {
        // FNV-1a of the empty input is the offset basis.
        assert_eq!(StableHasher::new().finish(), 0xcbf2_9ce4_8422_2325);
        assert_ne!(hash_strs(&["ab", "c"]), hash_strs(&["a", "bc"]));
    }
}
