//! One writer per output directory: an exclusive OS lock on `DIR/.colony.lock`, holding the
//! writer's pid for the error message.
//!
//! The lock is the kernel's (`flock`), so it is released when the process exits for any
//! reason, `kill -9` included: a stale lock cannot outlive its holder, and a second
//! `colony eval`/`compare` on the same `--out` is refused instead of doing all the work twice.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

/// File name of the lock inside the directory.
pub const LOCK_FILE: &str = ".colony.lock";

/// The directory could not be locked.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LockError {
    /// Another process holds the lock.
    #[error("{dir} is being written by another colony process{}; wait for it or use another --out", .pid.as_deref().map(|p| format!(" (pid {p})")).unwrap_or_default())]
    Busy {
        /// The directory.
        dir: PathBuf,
        /// The holder's pid, when it wrote one.
        pid: Option<String>,
    },
    /// The lock file could not be created.
    #[error("{path}: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// A held directory lock; released on drop (and on process exit).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

impl DirLock {
    /// Locks `dir` (created if missing) for this process.
    pub fn acquire(dir: &Path) -> Result<Self, LockError> {
        let path = dir.join(LOCK_FILE);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = file.take(32).read_to_string(&mut pid);
                let pid = pid.trim().to_string();
                return Err(LockError::Busy {
                    dir: dir.to_path_buf(),
                    pid: (!pid.is_empty()).then_some(pid),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        Ok(Self { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(dir.path()).unwrap();
        let err = DirLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("another colony process") && err.contains(&std::process::id().to_string()),
            "{err}"
        );
        drop(first);
        assert!(DirLock::acquire(dir.path()).is_ok());
    }
}
