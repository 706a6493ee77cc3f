//! Hostile programs against the bubblewrap sandbox: each must be contained, reported as a
//! failed (or harmless) run with its reason, and leave nothing behind.
//!
//! One test runs the cases in turn, so the check that no sandboxed process outlives its run
//! sees only its own case. `.ci/run` installs bubblewrap; without it these tests fail.

// A test crate: helpers fail loudly on anything unexpected.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::net::TcpListener;
use std::time::Duration;

use colony_sandbox::{Bubblewrap, Limits, Program, RunOutcome, Sandbox, Termination};

fn sandbox() -> Bubblewrap {
    match Bubblewrap::detect() {
        Ok(b) => b,
        Err(e) => panic!("these tests need bubblewrap: {e}"),
    }
}

fn quick() -> Limits {
    Limits {
        wall: Duration::from_secs(3),
        cpu_seconds: 2,
        ..Limits::default()
    }
}

fn run(b: &Bubblewrap, source: &str, limits: &Limits) -> RunOutcome {
    b.run(&Program::python(source), limits)
        .unwrap_or_else(|e| panic!("the sandbox failed: {e}"))
}

/// Processes running the sandboxed interpreter (`python3 -I -B -`) anywhere on the machine.
fn sandboxed_interpreters() -> usize {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
                .filter(|c| c.ends_with(b"python3\0-I\0-B\0-\0"))
                .count()
        })
        .unwrap_or(0)
}

/// Waits (bounded) until no sandboxed interpreter is left; returns how many remain.
fn leftovers() -> usize {
    for _ in 0..100 {
        if sandboxed_interpreters() == 0 {
            return 0;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    sandboxed_interpreters()
}

#[test]
fn hostile_programs_are_contained_and_leave_nothing_behind() {
    let b = sandbox();
    let limits = quick();
    assert_eq!(
        leftovers(),
        0,
        "a sandboxed interpreter was running before the test"
    );

    // A program that behaves runs and says so.
    let ok = run(&b, "print(6 * 7)", &limits);
    assert!(ok.success() && ok.sandboxed, "{ok:?}");
    assert_eq!(ok.stdout.trim(), "42");

    // Network: a listener on the host's loopback is not reachable, nor is any address.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let net = run(
        &b,
        &format!(
            "import socket\n\
             for host in ['127.0.0.1', '10.0.0.1', '1.1.1.1']:\n\
             \x20   try:\n\
             \x20       socket.create_connection((host, {port}), timeout=1)\n\
             \x20       print('CONNECTED', host)\n\
             \x20   except OSError as e:\n\
             \x20       print('BLOCKED', host)\n"
        ),
        &limits,
    );
    assert!(!net.stdout.contains("CONNECTED"), "{net:?}");
    assert_eq!(net.stdout.matches("BLOCKED").count(), 3, "{net:?}");
    assert!(
        listener.accept().is_err(),
        "the sandbox reached the host's loopback"
    );

    // Files of the host: /etc/shadow, the home directory, an output directory.
    let out_dir = std::env::temp_dir().join(format!("colony-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let secret = out_dir.join("summary.json");
    std::fs::File::create(&secret)
        .unwrap()
        .write_all(b"SECRET-RESULTS")
        .unwrap();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let files = run(
        &b,
        &format!(
            "import os\n\
             for p in ['/etc/shadow', '/etc/passwd', {home:?}, {secret:?}, {out:?}]:\n\
             \x20   try:\n\
             \x20       print('LEAK', p, os.listdir(p) if os.path.isdir(p) else open(p).read())\n\
             \x20   except OSError:\n\
             \x20       print('BLOCKED', p)\n",
            secret = secret.display().to_string(),
            out = out_dir.display().to_string(),
        ),
        &limits,
    );
    assert!(!files.stdout.contains("LEAK"), "{files:?}");
    assert!(!files.stdout.contains("SECRET-RESULTS"), "{files:?}");
    assert_eq!(files.stdout.matches("BLOCKED").count(), 5, "{files:?}");

    // Environment variables: an API key of colony's process is not passed on.
    let env = run(
        &b,
        "import os, json\nprint(json.dumps(sorted(os.environ)))",
        &limits,
    );
    let names: Vec<String> = serde_json::from_str(env.stdout.trim()).unwrap();
    assert!(
        names
            .iter()
            .all(|n| ["PATH", "HOME", "LANG", "PWD"].contains(&n.as_str())),
        "{names:?}"
    );

    // Writing outside the working directory fails; inside it works and vanishes with the run.
    let marker = format!("colony-hostile-write-{}", std::process::id());
    let writes = run(
        &b,
        &format!(
            "for p in ['/usr/{marker}', '/{marker}', '/etc/{marker}', {out:?} + '/{marker}']:\n\
             \x20   try:\n\
             \x20       open(p, 'w').write('x')\n\
             \x20       print('WROTE', p)\n\
             \x20   except OSError:\n\
             \x20       print('BLOCKED', p)\n\
             open('/tmp/{marker}', 'w').write('mine')\n\
             print('TMP', open('/tmp/{marker}').read())\n",
            out = out_dir.display().to_string(),
        ),
        &limits,
    );
    assert!(!writes.stdout.contains("WROTE"), "{writes:?}");
    assert!(writes.stdout.contains("TMP mine"), "{writes:?}");
    assert!(!std::path::Path::new("/tmp").join(&marker).exists());
    assert!(!out_dir.join(&marker).exists());
    std::fs::remove_dir_all(&out_dir).unwrap();

    // A fork bomb hits the process limit and is killed with everything it started.
    let bomb = run(
        &b,
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        &limits,
    );
    assert!(!bomb.success(), "{bomb:?}");
    assert_eq!(leftovers(), 0, "the fork bomb outlived its run");

    // A daemon that detaches and outlives its parent dies with the sandbox.
    let daemon = run(
        &b,
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(60)\n    os._exit(0)\nprint('parent done')\n",
        &limits,
    );
    assert!(daemon.success(), "{daemon:?}");
    assert_eq!(leftovers(), 0, "a detached daemon outlived its run");

    // Memory bombs end with MemoryError (the address-space limit), not a host OOM.
    for source in [
        "x = bytearray(8 << 30)",
        "a = []\nwhile True:\n    a.append(bytearray(50 << 20))",
    ] {
        let mem = run(&b, source, &limits);
        assert!(!mem.success(), "{source}: {mem:?}");
        assert!(
            mem.stderr.contains("MemoryError")
                || matches!(mem.termination, Termination::Signaled { .. }),
            "{source}: {mem:?}"
        );
    }

    // Busy and sleeping infinite loops are stopped by the CPU and the wall-clock limits.
    let busy = run(&b, "while True:\n    pass", &limits);
    assert!(
        matches!(
            busy.termination,
            Termination::Signaled { .. } | Termination::WallTimeout
        ),
        "{busy:?}"
    );
    let sleepy = run(&b, "import time\ntime.sleep(600)", &limits);
    assert_eq!(sleepy.termination, Termination::WallTimeout, "{sleepy:?}");
    assert_eq!(leftovers(), 0);

    // Huge output is cut at the cap and the program killed.
    let capped = Limits {
        output_bytes: 10_000,
        ..limits.clone()
    };
    let loud = run(&b, "while True:\n    print('x' * 1000)", &capped);
    assert_eq!(loud.termination, Termination::OutputLimit, "{loud:?}");
    assert!(loud.truncated && loud.stdout.len() <= 10_000);
    assert_eq!(leftovers(), 0);

    // A program that closes its outputs and hangs is still stopped.
    let closed = run(
        &b,
        "import os, time\nos.close(1)\nos.close(2)\ntime.sleep(600)",
        &limits,
    );
    assert_eq!(closed.termination, Termination::WallTimeout, "{closed:?}");

    // Signals: its own, and one to every process it can see (only the sandbox's).
    let segv = run(
        &b,
        "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)",
        &limits,
    );
    assert_eq!(
        segv.termination,
        Termination::Signaled { signal: 11 },
        "{segv:?}"
    );
    // Killing every process it may signal ends the sandbox only: this test process (the same
    // user when colony is not root) lives on, and the next run works.
    let all = run(
        &b,
        "import os, signal\nos.kill(-1, signal.SIGKILL)\nprint('alive')",
        &limits,
    );
    assert!(!all.stdout.contains("alive") && !all.success(), "{all:?}");
    assert_eq!(leftovers(), 0);
    assert!(run(&b, "print('still here')", &limits).success());

    // It cannot see the host's processes.
    let ps = run(
        &b,
        "import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))",
        &limits,
    );
    let pids: Vec<u32> = serde_json::from_str(ps.stdout.trim()).unwrap();
    assert!(
        pids.len() <= 3 && !pids.contains(&std::process::id()),
        "{pids:?}"
    );

    // Files larger than the file-size limit cannot be written.
    let small = Limits {
        file_bytes: 1 << 20,
        ..limits.clone()
    };
    let big = run(
        &b,
        "open('/tmp/big', 'wb').write(b'x' * (8 << 20))\nprint('WROTE')",
        &small,
    );
    assert!(!big.stdout.contains("WROTE"), "{big:?}");
    assert!(!big.success());
    assert_eq!(leftovers(), 0);
}
