//! Safety: one instance per session (across processes), private file modes, and write
//! errors that surface.
#![allow(clippy::unwrap_used)]

#[path = "store_fixtures.rs"]
mod fixtures;

use fixtures::*;
use ollm_tui::core::record::SnapshotPurpose;
use ollm_tui::store::{DataDir, FileStore, SessionLock, SessionStore, StoreError};
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Set in the child process: the data dir whose session "shared" it should hold open.
const CHILD_ENV: &str = "OLLM_STORE_TEST_LOCK_HOLDER";
const HELD_MARKER: &str = "OLLM-TEST-SESSION-HELD";
/// Safety net only: the child normally reports within a fraction of a second.
const CHILD_TIMEOUT: Duration = Duration::from_secs(120);

/// Not a test of its own: when this binary is re-run as a child with `CHILD_ENV` set, it
/// opens the session, says so, and holds it until its stdin closes.
#[test]
fn lock_holder_child() {
    let Ok(root) = std::env::var(CHILD_ENV) else {
        return;
    };
    let dir = DataDir::new(root).unwrap();
    let _store = FileStore::open(&dir, "shared").unwrap();
    // libtest prints "test lock_holder_child ... " without a newline first; the marker
    // ends that line.
    println!("{HELD_MARKER}");
    std::io::stdout().flush().unwrap();
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
}

struct Holder {
    child: Child,
}

/// Start a child process holding session "shared"; returns once it has the lock.
fn spawn_holder(dir: &DataDir) -> Holder {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "lock_holder_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, dir.root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if line.trim_end().ends_with(HELD_MARKER) {
                let _ = tx.send(());
            }
        }
        // Keep reading to EOF so the child never blocks on a full pipe.
    });
    if rx.recv_timeout(CHILD_TIMEOUT).is_err() {
        let _ = child.kill();
        panic!("lock holder did not report: {:?}", child.wait());
    }
    Holder { child }
}

impl Drop for Holder {
    fn drop(&mut self) {
        // On a failed assertion, do not leave the child behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_second_instance_on_the_same_session_is_refused_with_the_holders_pid() {
    let (_tmp, dir) = data_dir();
    drop(FileStore::create(&dir, header("shared")).unwrap());
    let mut holder = spawn_holder(&dir);
    let child_pid = holder.child.id();

    let err = FileStore::open(&dir, "shared").unwrap_err();
    match &err {
        StoreError::Locked { pid, ours, .. } => {
            assert_eq!(*pid, Some(child_pid));
            assert!(!ours);
        }
        other => panic!("expected Locked, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("open in another ollm-tui (pid {child_pid}")),
        "{msg}"
    );
    assert!(msg.contains("shared"), "{msg}");
    // The refused open changed nothing: the log is intact and still the holder's.
    assert!(SessionLock::acquire(&dir, "shared").is_err());

    drop(holder.child.stdin.take());
    assert!(holder.child.wait().unwrap().success());
    let (_store, loaded) = FileStore::open(&dir, "shared").unwrap();
    assert!(loaded.report.is_clean());
}

#[test]
fn a_crashed_holder_does_not_block_the_session() {
    let (_tmp, dir) = data_dir();
    drop(FileStore::create(&dir, header("shared")).unwrap());
    let mut holder = spawn_holder(&dir);
    holder.child.kill().unwrap();
    holder.child.wait().unwrap();
    // The kernel released the flock with the process; the stale pid is overwritten.
    let lock = SessionLock::acquire(&dir, "shared").unwrap();
    let text = fs::read_to_string(lock.path()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["pid"], std::process::id());
}

#[test]
fn the_same_session_opened_twice_in_one_process_is_refused() {
    let (_tmp, dir) = data_dir();
    let first = FileStore::create(&dir, header("s")).unwrap();
    let err = FileStore::open(&dir, "s").unwrap_err();
    assert!(
        matches!(err, StoreError::Locked { ours: true, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("already open in this ollm-tui"));
    assert!(matches!(
        FileStore::create(&dir, header("s")),
        Err(StoreError::Locked { .. })
    ));
    drop(first);
    FileStore::open(&dir, "s").unwrap();
}

/// Set in the child process: the data dir to populate under umask 022.
const UMASK_CHILD_ENV: &str = "OLLM_STORE_TEST_UMASK_CHILD";

/// Not a test of its own: run as a child under `umask 022`, it creates a session with a
/// record, a snapshot and a torn tail set aside, so the parent can inspect the modes.
#[test]
fn populate_under_umask_child() {
    let Ok(root) = std::env::var(UMASK_CHILD_ENV) else {
        return;
    };
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("Umask:")) {
        assert_eq!(line.split_whitespace().nth(1), Some("0022"), "{line}");
    }
    let dir = DataDir::new(root).unwrap();
    let mut store = FileStore::create(&dir, header("s")).unwrap();
    store.append(&user(1, "secret")).unwrap();
    store
        .save_snapshot(&snapshot(SnapshotPurpose::Rollback, 0, "secret"))
        .unwrap();
    drop(store);
    let path = dir.session_log_path("s");
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(b"{\"torn");
    fs::write(&path, bytes).unwrap();
    let (_store, loaded) = FileStore::open(&dir, "s").unwrap();
    assert!(loaded.report.torn_tail.is_some());
}

#[test]
fn everything_created_under_umask_022_is_private() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ollm");
    let status = Command::new("sh")
        .arg("-c")
        .arg("umask 022 && exec \"$0\" --exact populate_under_umask_child --test-threads=1")
        .arg(std::env::current_exe().unwrap())
        .env(UMASK_CHILD_ENV, &root)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    // Under umask 022 a plain create gives 0644 / 0755; prove the umask was really 022.
    let probe = tmp.path().join("probe");
    let status = Command::new("sh")
        .arg("-c")
        .arg("umask 022 && : > \"$0\"")
        .arg(&probe)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(mode_of(&probe), 0o644);

    let dir = DataDir::new(&root).unwrap();
    for d in [
        dir.root().to_path_buf(),
        dir.sessions_dir(),
        dir.snapshots_root(),
        dir.snapshots_dir("s"),
        dir.logs_dir(),
    ] {
        assert_eq!(mode_of(&d), 0o700, "{}", d.display());
    }
    let snap = fs::read_dir(dir.snapshots_dir("s"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for f in [dir.session_log_path("s"), dir.corrupt_path("s"), snap] {
        assert_eq!(mode_of(&f), 0o600, "{}", f.display());
    }
    // The lock file went with the clean exit (its mode while held: the next test).
    assert!(!dir.lock_path("s").exists());
}

#[test]
fn looser_modes_are_tightened_on_open() {
    let (_tmp, dir) = data_dir();
    drop(FileStore::create(&dir, header("s")).unwrap());
    // A holder that crashed leaves its lock file behind (a clean exit removes it).
    fs::write(dir.lock_path("s"), "").unwrap();
    let loose = |p: &std::path::Path, m: u32| {
        fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
    };
    loose(&dir.session_log_path("s"), 0o644);
    loose(&dir.lock_path("s"), 0o666);
    loose(dir.root(), 0o755);
    loose(&dir.sessions_dir(), 0o775);

    let dir = DataDir::new(dir.root()).unwrap();
    assert_eq!(mode_of(dir.root()), 0o700);
    assert_eq!(mode_of(&dir.sessions_dir()), 0o700);
    let (_store, _) = FileStore::open(&dir, "s").unwrap();
    assert_eq!(mode_of(&dir.session_log_path("s")), 0o600);
    assert_eq!(mode_of(&dir.lock_path("s")), 0o600);
}
