//! `serve-mock` under stalled clients: 600 clients declare a 1 GB body and
//! send one byte. The server holds at most `MAX_CONNECTIONS` (512) of them and closes the rest
//! on accept, drops the held ones once the body deadline (`--header-read-timeout`) passes, and
//! then answers normal requests again. The server runs as its own process, as users run it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use colony::mock_server::MAX_CONNECTIONS;
use common::Mock;

const CLIENTS: usize = 600;

/// Whether the server has closed `s` by now (EOF or reset, possibly after an error
/// response): what is already there is read without waiting more than a moment.
fn closed(s: &TcpStream) -> bool {
    let wait = Duration::from_millis(20);
    s.set_read_timeout(Some(wait)).unwrap();
    let mut r = s;
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + wait;
    loop {
        match r.read(&mut buf) {
            Ok(0) => return true,
            // An error response (400) may come before the close.
            Ok(_) if Instant::now() < deadline => continue,
            Ok(_) => return false,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false
            }
            Err(_) => return true,
        }
    }
}

#[test]
fn stalled_bodies_are_bounded_in_number_and_in_time() {
    let m = Mock::start(&["--header-read-timeout", "3"], &[]);
    let addr = m
        .url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let head =
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                Content-Length: 1000000000\r\n\r\n{";
    let clients: Vec<TcpStream> = (0..CLIENTS)
        .map(|_| {
            let mut s = TcpStream::connect(&addr).unwrap();
            // A connection the server already closed may refuse the write: that is fine.
            let _ = s.write_all(head.as_bytes());
            s
        })
        .collect();
    // Those beyond the limit are closed at once.
    std::thread::sleep(Duration::from_millis(500));
    let closed_at_once = clients.iter().filter(|s| closed(s)).count();
    assert!(
        closed_at_once >= CLIENTS - MAX_CONNECTIONS,
        "{closed_at_once} closed at once"
    );
    assert!(closed_at_once < CLIENTS, "the server held none");
    // The held ones are dropped once the body deadline (3 s) passes.
    std::thread::sleep(Duration::from_secs(5));
    let still_open = clients.iter().filter(|s| !closed(s)).count();
    assert_eq!(
        still_open, 0,
        "stalled connections outlived the body deadline"
    );
    drop(clients);
    // And the server serves normal requests again.
    let out = std::process::Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "-H",
            "content-type: application/json",
        ])
        .args([
            "-d",
            r#"{"model":"sim","messages":[{"role":"user","content":"2+2?"}]}"#,
        ])
        .arg(format!("{}/chat/completions", m.url))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "200");
}
