//! The recorded initial state of a comparison's episodes (what the viewer checks its replay
//! against), stored once per configuration and seed and compressed.
//!
//! Every policy of a comparison resets the environment with the same settings and seed, so
//! the initial state is the same for all of them: `episodes/[CONFIG/]initial-<seed>.json.zst`
//! holds it once (a file beside the policy directories, so it can never collide with one).
//! A Wildfire map is megabytes of JSON (6.5 MB on level 8, measured), and the grid of the
//! issue stored it once per policy; stored once it shrinks by the number of policies (nine
//! there), and compression shrinks it about 3× more (2.95× measured on that map). Runs made before keep `initial_state.json` in each episode directory, and
//! [`read_initial_state`] reads either.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::compare::{configuration_dir, episode_dir};

/// Largest decoded initial state read back (a state file, not data: the largest Wildfire map
/// is far below).
pub const MAX_INITIAL_STATE_BYTES: u64 = 512 << 20;

/// zstd level of stored states (zstd's default: a 6.5 MB map in a few milliseconds).
const LEVEL: i32 = 3;

/// Where the shared initial state of `seed` under configuration `label` lives in `out`.
pub fn initial_state_path(out: &Path, label: &str, seed: u64) -> PathBuf {
    configuration_dir(out, label).join(format!("initial-{seed}.json.zst"))
}

/// Writes the initial state of `seed` under `label` unless it is already there (another
/// policy's episode wrote it); atomic, so a reader sees the whole state or none.
pub fn write_initial_state(
    out: &Path,
    label: &str,
    seed: u64,
    state: &serde_json::Value,
) -> std::io::Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let path = initial_state_path(out, label, seed);
    if path.is_file() {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let json = serde_json::to_vec(state).map_err(std::io::Error::other)?;
    let bytes = zstd::stream::encode_all(json.as_slice(), LEVEL)?;
    // Episodes of several policies may write the same state at once: each writes its own
    // temporary file, and the renames leave one whole copy.
    let tmp = path.with_file_name(format!(
        ".initial-{seed}.{}-{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, &path)
}

/// The recorded initial state of episode (`label`, `policy`, `seed`) in `out`: the shared
/// compressed file, else the episode's own `initial_state.json` (runs made before); `None`
/// when neither exists.
pub fn read_initial_state(
    out: &Path,
    label: &str,
    policy: &str,
    seed: u64,
) -> Result<Option<serde_json::Value>, String> {
    let shared = initial_state_path(out, label, seed);
    let (path, bytes) = if shared.is_file() {
        let file =
            std::fs::File::open(&shared).map_err(|e| format!("{}: {e}", shared.display()))?;
        let mut dec = zstd::stream::read::Decoder::new(file)
            .map_err(|e| format!("{}: {e}", shared.display()))?
            .take(MAX_INITIAL_STATE_BYTES + 1);
        let mut bytes = Vec::new();
        dec.read_to_end(&mut bytes)
            .map_err(|e| format!("{}: {e}", shared.display()))?;
        (shared, bytes)
    } else {
        let own = episode_dir(out, label, policy, seed).join("initial_state.json");
        let Ok(file) = std::fs::File::open(&own) else {
            return Ok(None);
        };
        let mut bytes = Vec::new();
        file.take(MAX_INITIAL_STATE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{}: {e}", own.display()))?;
        (own, bytes)
    };
    if bytes.len() as u64 > MAX_INITIAL_STATE_BYTES {
        return Err(format!(
            "{}: larger than {MAX_INITIAL_STATE_BYTES} bytes",
            path.display()
        ));
    }
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_shared_state_per_configuration_and_seed_and_old_runs_still_read() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let out = dir.path();
        let state = serde_json::json!({"grid": vec![0.25; 1000], "seed": 3});
        write_initial_state(out, "level=2", 3, &state).unwrap_or_else(|e| unreachable!("{e}"));
        write_initial_state(out, "level=2", 3, &state).unwrap_or_else(|e| unreachable!("{e}"));
        let path = initial_state_path(out, "level=2", 3);
        assert!(
            path.ends_with("episodes/level=2/initial-3.json.zst"),
            "{}",
            path.display()
        );
        for policy in ["camon", "independent"] {
            let got = read_initial_state(out, "level=2", policy, 3).unwrap_or_default();
            assert_eq!(got.as_ref(), Some(&state));
        }
        assert_eq!(read_initial_state(out, "", "camon", 3), Ok(None));
        let own = episode_dir(out, "", "camon", 4);
        std::fs::create_dir_all(&own).unwrap_or_else(|e| unreachable!("{e}"));
        std::fs::write(own.join("initial_state.json"), "{\"seed\": 4}")
            .unwrap_or_else(|e| unreachable!("{e}"));
        let old = read_initial_state(out, "", "camon", 4).unwrap_or_default();
        assert_eq!(old, Some(serde_json::json!({"seed": 4})));
        assert!(initial_state_path(out, "", 4).ends_with("episodes/initial-4.json.zst"));
    }
}
