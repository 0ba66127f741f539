//! `run_command`: a shell command in the working directory, with a timeout and an output
//! cap. It runs under the supervisor (`supervise.rs`, this binary in a mode of its own),
//! which kills everything the command started — detached children included — when the
//! shell ends, on a timeout, a Stop (asked for: what it printed so far is reported; or the
//! future dropped) or the app quitting, and runs it with the person's umask. Without a supervisor (a library used on its own) the command
//! gets a process group of its own, killed the same way.

use super::{Limits, Sandbox, StopSignal, ToolEnv, ToolError, cap, orphans, supervise};
use serde::Deserialize;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;

/// How long a stopped supervisor gets to clean up before it is killed outright.
const CLEANUP_GRACE: Duration = Duration::from_secs(2);

#[derive(Debug, Deserialize)]
pub struct RunCommandArgs {
    command: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunCommand {
    pub command: String,
}

/// Stops the command when dropped (Stop, quit): the supervisor is asked to clean up
/// (SIGTERM), or, without one, the command's process group is killed.
struct StopGuard {
    pid: Option<rustix::process::Pid>,
    supervised: bool,
}

impl StopGuard {
    fn stop(&mut self) {
        use rustix::process::{Signal, kill_process, kill_process_group};
        if let Some(pid) = self.pid.take() {
            let _ = if self.supervised {
                kill_process(pid, Signal::TERM)
            } else {
                kill_process_group(pid, Signal::KILL)
            };
        }
    }
}

impl Drop for StopGuard {
    fn drop(&mut self) {
        self.stop();
    }
}

impl RunCommand {
    pub fn prepare(a: RunCommandArgs, _sb: &Sandbox) -> Result<RunCommand, ToolError> {
        if a.command.trim().is_empty() {
            return Err(ToolError::BadArgs("the command is empty".into()));
        }
        Ok(RunCommand { command: a.command })
    }

    /// Run it to its end, its time limit, or `stop` (the person's Esc): stopped or timed
    /// out, everything it started is killed and what it printed so far is reported, so
    /// the model knows it ran (a command cannot always be run twice).
    pub async fn run(
        self,
        dir: &Path,
        limits: Limits,
        env: &ToolEnv,
        stop: StopSignal,
    ) -> Result<String, ToolError> {
        let mut cmd = match &env.supervisor {
            Some(exe) => {
                let mut c = tokio::process::Command::new(exe);
                c.args(supervise::args(env.umask, &self.command));
                c
            }
            None => {
                // The person's umask, then the command as the model wrote it ($0 is sh).
                let mut c = supervise::shell_command(std::ffi::OsStr::new(&format!(
                    "umask {:04o}; exec {} -c \"$1\"",
                    env.umask & 0o777,
                    supervise::SHELL
                )));
                c.arg(supervise::SHELL).arg(&self.command);
                c
            }
        };
        let started = Instant::now();
        let mut child = cmd
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| ToolError::Failed(format!("cannot start the command: {e}")))?;
        let supervised = env.supervisor.is_some();
        let pid = child.id();
        if let Some(pid) = pid.filter(|_| supervised) {
            orphans::own(pid);
        }
        let mut guard = StopGuard {
            pid: pid.and_then(|id| rustix::process::Pid::from_raw(id as i32)),
            supervised,
        };
        let mut stdout = child.stdout.take();
        let mut stderr = child.stderr.take();
        // Both pipes are read to the end (a full pipe would block the command), keeping at
        // most `limit` bytes of each.
        let limit = limits.output_bytes;
        let read =
            |pipe: Option<tokio::process::ChildStdout>| async move { keep_head(pipe, limit).await };
        let read_err =
            |pipe: Option<tokio::process::ChildStderr>| async move { keep_head(pipe, limit).await };
        // A supervisor killed (by the command: `kill -9 $PPID`) cleaned nothing up: what
        // it had is this process's now (a subreaper), and goes before the pipes are read
        // to their end (it may hold them).
        let ended = async {
            let status = child.wait().await;
            let swept = match &status {
                Ok(s) if supervised && s.signal().is_some() => sweep().await,
                _ => 0,
            };
            if let Some(pid) = pid.filter(|_| status.is_ok()) {
                orphans::disown(pid);
            }
            (status, swept)
        };
        let mut work =
            Box::pin(async { tokio::join!(read(stdout.take()), read_err(stderr.take()), ended) });
        let cut_short = tokio::select! {
            done = tokio::time::timeout(limits.command_timeout, &mut work) => match done {
                Ok((out, err, (status, swept))) => {
                    // Finished (and reaped): there is nothing left to stop.
                    guard.pid = None;
                    let status = status
                        .map_err(|e| ToolError::Failed(format!("waiting for it failed: {e}")))?;
                    let mut code = match status.code() {
                        Some(c) => format!("exit status {c}"),
                        None => "killed by a signal".to_string(),
                    };
                    if swept > 0 {
                        code.push_str(&format!(
                            "\n[ollm-tui: the command killed its supervisor; {swept} process{} \
                             it left running {} killed]",
                            if swept == 1 { "" } else { "es" },
                            if swept == 1 { "was" } else { "were" }
                        ));
                    }
                    let text = report(format!("$ {}\n{code}\n", self.command), out, err);
                    return Ok(cap(text, limit.saturating_mul(2), "the output was cut"));
                }
                Err(_) => CutShort::TimedOut,
            },
            () = stopped(stop) => CutShort::Stopped,
        };
        // Stopped, and waited for: when this returns, nothing it started is left, and the
        // pipes have given all they will.
        guard.stop();
        let (out, err) = match tokio::time::timeout(CLEANUP_GRACE, &mut work).await {
            Ok((out, err, _)) => (out, err),
            Err(_) => {
                drop(work);
                let _ = child.start_kill();
                if supervised && child.wait().await.is_ok() {
                    if let Some(pid) = pid {
                        orphans::disown(pid);
                    }
                    sweep().await;
                }
                ((Vec::new(), 0), (Vec::new(), 0))
            }
        };
        let so_far = if out.1 + err.1 == 0 {
            "it printed nothing".to_string()
        } else {
            report("output so far:\n".to_string(), out, err)
        };
        let so_far = cap(so_far, limit.saturating_mul(2), "the output was cut");
        Err(match cut_short {
            CutShort::TimedOut => ToolError::Failed(format!(
                "the command did not finish within {} s and was killed; {so_far}",
                limits.command_timeout.as_secs()
            )),
            CutShort::Stopped => ToolError::Stopped {
                after: started.elapsed(),
                so_far,
            },
        })
    }
}

/// [`orphans::sweep`] off the runtime's threads (it scans `/proc` and waits).
async fn sweep() -> usize {
    tokio::task::spawn_blocking(orphans::sweep)
        .await
        .unwrap_or(0)
}

/// Why a command did not run to its end.
enum CutShort {
    TimedOut,
    Stopped,
}

/// Resolves when asked to stop; never when the asker is gone without asking.
async fn stopped(stop: StopSignal) {
    if stop.await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// `head`, then each stream that printed something: its first bytes, and how many more.
fn report(head: String, out: (Vec<u8>, usize), err: (Vec<u8>, usize)) -> String {
    let mut text = head;
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
    text
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

    /// A stop never asked for.
    fn never() -> StopSignal {
        tokio::sync::oneshot::channel().1
    }

    /// The report (#36): a command stopped after it ran a while was told to the
    /// model as not run. Stopped, it says how long it ran and what it printed.
    #[tokio::test]
    async fn a_stopped_command_says_it_ran_and_what_it_printed() {
        let d = tempfile::tempdir().unwrap();
        let (ask, stop) = tokio::sync::oneshot::channel();
        let env = ToolEnv::default();
        let run = cmd("echo started; echo warm >&2; touch ready; sleep 30").run(
            d.path(),
            Limits::default(),
            &env,
            stop,
        );
        let ready = d.path().join("ready");
        let asker = async {
            while !ready.exists() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let _ = ask.send(());
        };
        let (err, ()) = tokio::join!(run, asker);
        let err = err.unwrap_err();
        let ToolError::Stopped { after, .. } = &err else {
            panic!("{err}")
        };
        assert!(*after < Duration::from_secs(30), "{after:?}");
        let said = err.to_string();
        assert!(said.starts_with("stopped after "), "{said}");
        assert!(
            said.contains("output so far:\n--- stdout ---\nstarted\n--- stderr ---\nwarm\n"),
            "{said}"
        );
    }

    #[tokio::test]
    async fn output_and_exit_status_are_reported() {
        let d = tempfile::tempdir().unwrap();
        let out = cmd("echo hi; echo oops >&2; exit 3")
            .run(d.path(), Limits::default(), &ToolEnv::default(), never())
            .await
            .unwrap();
        assert!(out.contains("exit status 3"), "{out}");
        assert!(out.contains("--- stdout ---\nhi\n"), "{out}");
        assert!(out.contains("--- stderr ---\noops\n"), "{out}");
        let pwd = cmd("pwd")
            .run(d.path(), Limits::default(), &ToolEnv::default(), never())
            .await
            .unwrap();
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
            ..Limits::default()
        };
        let err = cmd("yes")
            .run(d.path(), limits, &ToolEnv::default(), never())
            .await
            .unwrap_err();
        assert!(err.to_string().contains("did not finish"), "{err}");
        let out = cmd("head -c 100000 /dev/zero | tr '\\0' a")
            .run(d.path(), limits, &ToolEnv::default(), never())
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
        let env = ToolEnv::default();
        let run = cmd(&script).run(d.path(), Limits::default(), &env, never());
        let _ = tokio::time::timeout(Duration::from_millis(200), run).await;
        // The subshell would touch the file after 1 s had it survived.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(!marker.exists(), "a child outlived the stop");
    }
}
