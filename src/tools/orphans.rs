//! The app as the last subreaper: what a command starts never ends up under init, even
//! when the command kills its own supervisor.
//!
//! `setsid sleep 1009 >/dev/null 2>&1 & kill -9 $PPID` killed the supervisor (the shell's
//! parent) before it could clean up, and the sleep went to PID 1. So the app marks itself
//! a child subreaper too ([`adopt`], Linux): the orphans of a dead supervisor become the
//! app's children. When a supervisor ends killed, [`sweep`] kills every child of the app
//! that the app did not start itself (those it did — supervisors, MCP servers — are
//! [`own`]ed), then reaps each, until none is left; the orphans of the killed ones come to
//! the app in turn and go the same way. Only pids that are not the app's own are waited
//! for, one at a time, so tokio's reaping of its children is left alone.
//!
//! A process started through another server (`tmux new-window`, `systemd-run --user`, `at`)
//! is that server's child, never the app's: nothing here can reach it.

use rustix::process::Pid;
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The app's children that it started itself: never swept.
static OWN: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
/// Whether this process adopts orphans ([`adopt`] succeeded).
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// How long a killed orphan gets to be reaped before the sweep goes on without it (one in
/// uninterruptible sleep dies when it wakes).
const REAP_WAIT: Duration = Duration::from_secs(2);
/// Sweeps at most this many rounds of newly adopted orphans (a fork bomb ends somewhere).
const MAX_ROUNDS: usize = 10_000;

/// Make this process a child subreaper, so that orphans of its descendants come to it.
/// Returns whether it is one (Linux only).
pub fn adopt() -> bool {
    #[cfg(target_os = "linux")]
    let ok = rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok();
    #[cfg(not(target_os = "linux"))]
    let ok = false;
    ADOPTING.store(ok, Ordering::SeqCst);
    ok
}

/// A child this process started and reaps itself: never swept.
pub fn own(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        OWN.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(pid);
    }
}

/// A child of ours that has been reaped: its pid may come back as someone else's.
pub fn disown(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        OWN.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&pid);
    }
}

fn is_own(pid: i32) -> bool {
    OWN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .contains(&pid)
}

/// One process as `/proc/PID/stat` says: its pid and whether it is a zombie.
pub(crate) struct Child {
    pub pid: Pid,
    pub zombie: bool,
}

/// The children of `parent`, from `/proc` (none where there is no `/proc`).
pub(crate) fn children_of(parent: i32) -> Vec<Child> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let name = e.ok()?.file_name();
        let pid: i32 = name.to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // "pid (comm) state ppid …": comm may hold spaces and parentheses.
        let mut rest = stat[stat.rfind(')')? + 1..].split_whitespace();
        let state = rest.next()?;
        let ppid: i32 = rest.next()?.parse().ok()?;
        if ppid != parent {
            return None;
        }
        Some(Child {
            pid: Pid::from_raw(pid)?,
            zombie: state == "Z",
        })
    })
    .collect()
}

/// Kill and reap every child of this process it did not start itself, and the orphans
/// that come of it, until none is left; how many were still running. Does nothing unless
/// this process adopts orphans. Blocking: a few `/proc` scans and waits.
pub fn sweep() -> usize {
    use rustix::process::{Signal, WaitOptions, kill_process, waitpid};
    if !ADOPTING.load(Ordering::SeqCst) {
        return 0;
    }
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let mut swept = 0;
    for _ in 0..MAX_ROUNDS {
        let strays: Vec<Child> = children_of(me)
            .into_iter()
            .filter(|c| !is_own(c.pid.as_raw_nonzero().get()))
            .collect();
        if strays.is_empty() {
            break;
        }
        for c in &strays {
            if !c.zombie {
                let _ = kill_process(c.pid, Signal::KILL);
            }
        }
        for c in strays {
            let until = Instant::now() + REAP_WAIT;
            loop {
                match waitpid(Some(c.pid), WaitOptions::NOHANG) {
                    Ok(Some(_)) => {
                        swept += usize::from(!c.zombie);
                        break;
                    }
                    Ok(None) if Instant::now() < until => {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    _ => break,
                }
            }
        }
    }
    swept
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_among_its_parents_children() {
        let me = rustix::process::getpid().as_raw_nonzero().get();
        let parent = rustix::process::getppid().unwrap().as_raw_nonzero().get();
        assert!(
            children_of(parent)
                .iter()
                .any(|c| c.pid.as_raw_nonzero().get() == me)
        );
    }

    #[test]
    fn nothing_is_swept_without_adopting() {
        // Tests run beside each other in this process: it never adopts here.
        assert_eq!(sweep(), 0);
    }
}
