//! This test binary run again as a child, for one of its ignored tests: a process of its
//! own, whose peak memory is its own, or that may play the app (a subreaper) with no other
//! test beside it. The child prints `NAME value` lines for the parent to read.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the child did.
pub struct ChildRun {
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
}

impl ChildRun {
    /// Run the ignored test `test` of this binary with `env`, killed after `limit` (a
    /// build that hangs fails instead of holding the suite).
    pub fn of(test: &str, env: &[(&str, &str)], limit: Duration) -> ChildRun {
        let exe = std::env::current_exe().expect("the test binary");
        let mut child = Command::new(exe)
            .args([test, "--exact", "--ignored", "--nocapture", "--quiet"])
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the test binary runs");
        let started = Instant::now();
        while matches!(child.try_wait(), Ok(None)) {
            if started.elapsed() > limit {
                let _ = child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().expect("the child's output");
        ChildRun {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            success: out.status.success(),
        }
    }

    /// The value of the line `NAME value` the child printed, if it printed one.
    pub fn field(&self, name: &str) -> Option<String> {
        self.stdout
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .map(|v| v.trim().to_string())
    }

    /// [`ChildRun::field`], or a failure that shows what the child printed.
    pub fn expect(&self, name: &str) -> String {
        self.field(name)
            .unwrap_or_else(|| panic!("no {name} in:\n{}\n{}", self.stdout, self.stderr))
    }

    pub fn assert_success(&self) {
        assert!(self.success, "{}\n{}", self.stdout, self.stderr);
    }
}
