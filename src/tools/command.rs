//! `run_command`: a shell command in the working directory, with a timeout and an output
//! cap. The command runs in a process group of its own, so a timeout, a Stop (the future is
//! dropped) or the app quitting kills everything it started, not just the shell.

use super::{Limits, Sandbox, ToolError, cap};
use serde::Deserialize;
use std::path::Path;
use std::process::Stdio;
use tokio::io::AsyncReadExt;

#[derive(Debug, Deserialize)]
pub struct RunCommandArgs {
    command: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunCommand {
    pub command: String,
}

/// Kills the command's process group when dropped (Stop, timeout, quit).
struct GroupGuard(Option<rustix::process::Pid>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

impl RunCommand {
    pub fn prepare(a: RunCommandArgs, _sb: &Sandbox) -> Result<RunCommand, ToolError> {
        if a.command.trim().is_empty() {
            return Err(ToolError::BadArgs("the command is empty".into()));
        }
        Ok(RunCommand { command: a.command })
    }

    /// The command's first word, for "allow `cargo` for this session".
    pub fn prefix(&self) -> String {
        self.command
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string()
    }

    pub async fn run(self, dir: &Path, limits: Limits) -> Result<String, ToolError> {
        let mut child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ToolError::Failed(format!("cannot start sh: {e}")))?;
        let guard = GroupGuard(
            child
                .id()
                .and_then(|id| rustix::process::Pid::from_raw(id as i32)),
        );
        let mut stdout = child.stdout.take();
        let mut stderr = child.stderr.take();
        // Both pipes are read to the end (a full pipe would block the command), keeping at
        // most `limit` bytes of each.
        let limit = limits.output_bytes;
        let read =
            |pipe: Option<tokio::process::ChildStdout>| async move { keep_head(pipe, limit).await };
        let read_err =
            |pipe: Option<tokio::process::ChildStderr>| async move { keep_head(pipe, limit).await };
        let work = async {
            let (out, err, status) =
                tokio::join!(read(stdout.take()), read_err(stderr.take()), child.wait());
            (out, err, status)
        };
        let (out, err, status) = match tokio::time::timeout(limits.command_timeout, work).await {
            Ok(done) => done,
            Err(_) => {
                drop(guard);
                return Err(ToolError::Failed(format!(
                    "the command did not finish within {} s and was killed",
                    limits.command_timeout.as_secs()
                )));
            }
        };
        drop(guard);
        let status =
            status.map_err(|e| ToolError::Failed(format!("waiting for it failed: {e}")))?;
        let code = match status.code() {
            Some(c) => format!("exit status {c}"),
            None => "killed by a signal".to_string(),
        };
        let mut text = format!("$ {}\n{code}\n", self.command);
        for (name, (bytes, total)) in [("stdout", out), ("stderr", err)] {
            if total == 0 {
                continue;
            }
            text.push_str(&format!("--- {name} ---\n"));
            text.push_str(&String::from_utf8_lossy(&bytes));
            if !text.ends_with('\n') {
                text.push('\n');
            }
            if total > bytes.len() {
                text.push_str(&format!(
                    "[… {} more bytes of {name} not shown]\n",
                    total - bytes.len()
                ));
            }
        }
        Ok(cap(text, limit.saturating_mul(2), "the output was cut"))
    }
}

/// Read a pipe to its end; keep the first `limit` bytes; return them and the total.
async fn keep_head<R: tokio::io::AsyncRead + Unpin>(
    pipe: Option<R>,
    limit: usize,
) -> (Vec<u8>, usize) {
    let Some(mut pipe) = pipe else {
        return (Vec::new(), 0);
    };
    let mut kept = Vec::new();
    let mut total = 0usize;
    let mut buf = [0u8; 8192];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                total += n;
                let room = limit.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    (kept, total)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn cmd(c: &str) -> RunCommand {
        RunCommand { command: c.into() }
    }

    #[tokio::test]
    async fn output_and_exit_status_are_reported() {
        let d = tempfile::tempdir().unwrap();
        let out = cmd("echo hi; echo oops >&2; exit 3")
            .run(d.path(), Limits::default())
            .await
            .unwrap();
        assert!(out.contains("exit status 3"), "{out}");
        assert!(out.contains("--- stdout ---\nhi\n"), "{out}");
        assert!(out.contains("--- stderr ---\noops\n"), "{out}");
        let pwd = cmd("pwd").run(d.path(), Limits::default()).await.unwrap();
        assert!(
            pwd.contains(&d.path().canonicalize().unwrap().display().to_string()),
            "{pwd}"
        );
    }

    #[tokio::test]
    async fn a_command_that_prints_forever_is_cut_and_killed() {
        let d = tempfile::tempdir().unwrap();
        let limits = Limits {
            output_bytes: 1024,
            command_timeout: Duration::from_millis(500),
        };
        let err = cmd("yes").run(d.path(), limits).await.unwrap_err();
        assert!(err.to_string().contains("did not finish"), "{err}");
        let out = cmd("head -c 100000 /dev/zero | tr '\\0' a")
            .run(d.path(), limits)
            .await
            .unwrap();
        assert!(out.contains("more bytes of stdout not shown"), "{out}");
        assert!(out.len() < 2600, "{}", out.len());
    }

    #[tokio::test]
    async fn dropping_the_run_kills_the_whole_group() {
        let d = tempfile::tempdir().unwrap();
        let marker = d.path().join("alive");
        let script = format!("(sleep 1; touch {}) & sleep 30", marker.display());
        let run = cmd(&script).run(d.path(), Limits::default());
        let _ = tokio::time::timeout(Duration::from_millis(200), run).await;
        // The subshell would touch the file after 1 s had it survived.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(!marker.exists(), "a child outlived the stop");
    }
}
