//! Process resource figures for benchmarks: CPU time and peak resident memory.
//!
//! Read from `/proc/self` on Linux (no `unsafe`, no extra crate); other systems report `None`.
//! CPU time comes in clock ticks of `USER_HZ`, which Linux fixes at 100 per second for user
//! space, so figures have 10 ms resolution: benchmarks run long enough for that not to matter.

use std::time::Duration;

/// Ticks per second of `/proc/<pid>/stat` times (Linux `USER_HZ`).
const USER_HZ: u64 = 100;

/// Peak resident set size of this process (`VmHWM`), in bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// User plus system CPU time consumed by this process so far (all threads).
pub fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is parenthesized and may contain spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the full line, 12 and 13 after the name.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 1000 / USER_HZ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn reads_figures_of_this_process() {
        let rss = peak_rss_bytes().unwrap();
        assert!(
            rss > 1024 * 1024,
            "a test process uses more than 1 MiB: {rss}"
        );
        let before = cpu_time().unwrap();
        let mut x = 0u64;
        for i in 0..50_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(cpu_time().unwrap() >= before);
    }
}
