//! Reading files from outside with a byte limit that holds whatever the path is:
//! a symlink to `/dev/zero`, a FIFO or a file still growing report a size of 0 or
//! nothing useful, so the limit is checked on the bytes actually read, never on metadata.

use std::io::Read;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why a bounded read failed; each names the file.
#[derive(Debug, Error)]
pub enum BoundedReadError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// More bytes than the limit.
    #[error("{path}: more than {max} bytes (the limit for this kind of file)")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        max: u64,
    },
    /// Not UTF-8 text.
    #[error("{path}: not UTF-8 text (first bad byte at offset {offset})")]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Offset of the first invalid byte.
        offset: usize,
    },
}

/// The bytes of `path`, at most `max` of them; more is [`BoundedReadError::TooLarge`].
pub fn read_bytes(path: &Path, max: u64) -> Result<Vec<u8>, BoundedReadError> {
    let io = |source| BoundedReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(BoundedReadError::TooLarge {
            path: path.to_path_buf(),
            max,
        });
    }
    Ok(bytes)
}

/// The UTF-8 text of `path`, at most `max` bytes of it.
pub fn read_string(path: &Path, max: u64) -> Result<String, BoundedReadError> {
    String::from_utf8(read_bytes(path, max)?).map_err(|e| BoundedReadError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// [`read_string`], with a missing file as `Ok(None)` (run directories, manifests and
/// summaries that may not exist yet); every other failure is an error naming the file. The
/// one bounded reader of optional files (the viewer's and `colony merge`'s).
pub fn read_string_if_exists(path: &Path, max: u64) -> Result<Option<String>, BoundedReadError> {
    match read_string(path, max) {
        Err(BoundedReadError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        other => other.map(Some),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn endless_sources_stop_at_the_limit() {
        let err = read_bytes(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(
            matches!(err, BoundedReadError::TooLarge { max: 1024, .. }),
            "{err}"
        );
        let dir = std::env::temp_dir().join(format!("bounded-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join("zero");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(read_string(&link, 10)
            .unwrap_err()
            .to_string()
            .contains("more than 10 bytes"));
        let ok = dir.join("ok");
        std::fs::write(&ok, "abc").unwrap();
        assert_eq!(read_string(&ok, 3).unwrap(), "abc");
        assert!(read_string(&ok, 2).is_err());
        std::fs::write(&ok, [0x61, 0xff]).unwrap();
        assert!(matches!(
            read_string(&ok, 9).unwrap_err(),
            BoundedReadError::NotUtf8 { offset: 1, .. }
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
