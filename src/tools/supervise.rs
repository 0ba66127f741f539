//! The supervisor of one `run_command`, so that nothing a command starts outlives it.
//!
//! A process group is not enough: `setsid sh -c "sleep 6; touch X" &` leaves the group,
//! and a killed group's orphans go to init. So the app runs each command through this
//! binary in a mode of its own (`ollm-tui __supervise UMASK PARENT COMMAND`), which:
//! marks itself a child subreaper (Linux), so every process the command starts — detached,
//! double-forked, in a new session — becomes its child when its own parent dies; sets the
//! person's umask; runs `sh -c COMMAND` in a process group of its own; and when the shell
//! ends, or the app asks it to stop (SIGTERM: Esc, the timeout, quitting), or the app is
//! gone (its parent changed), kills the shell's group and then every child it has, reaping
//! each, until none is left. Only then does it exit, with the shell's status, so the app
//! reads the output to its end only after everything that could write it is gone. Where
//! the system has no subreaper, the group is still killed.

use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Duration;

/// The first argument that selects this mode.
pub const ARG: &str = "__supervise";

/// The shell that runs a command line (`sh -c LINE`), found on `PATH`; the session
/// allowance reads a line as this shell does (`tools::shell`).
pub const SHELL: &str = "sh";

/// Variables that lead a command to a server which starts processes outside the
/// supervisor's reach (`tmux new-window` through the person's own tmux, `screen -X`, a
/// terminal's or an editor's remote control): not handed down. A server reached without
/// them (tmux's default socket, `systemd-run --user`) is still out of reach; the manual says so (`help tools`).
pub const SERVER_VARIABLES: &[&str] = &[
    "TMUX",
    "TMUX_PANE",
    "STY",
    "WINDOW",
    "ZELLIJ",
    "ZELLIJ_SESSION_NAME",
    "ZELLIJ_PANE_ID",
    "KITTY_LISTEN_ON",
    "KITTY_WINDOW_ID",
    "KITTY_PID",
    "WEZTERM_UNIX_SOCKET",
    "WEZTERM_PANE",
    "ALACRITTY_SOCKET",
    "NVIM",
    "NVIM_LISTEN_ADDRESS",
    "TERMINATOR_UUID",
];

/// `sh -c LINE` as every command runs: without the server variables, stdin empty, a
/// process group of its own.
pub fn shell_command(line: &std::ffi::OsStr) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(SHELL);
    c.arg("-c").arg(line);
    for v in SERVER_VARIABLES {
        c.env_remove(v);
    }
    c.stdin(std::process::Stdio::null()).process_group(0);
    c
}

/// How often it checks that the app is still there.
const PARENT_CHECK: Duration = Duration::from_millis(200);

/// Run as the supervisor when the arguments ask for it (called first thing in `main`).
pub fn main_if_asked() -> Option<ExitCode> {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).and_then(|a| a.to_str()) != Some(ARG) {
        return None;
    }
    let parsed = (|| {
        let umask = u32::from_str_radix(args.get(2)?.to_str()?, 8).ok()?;
        let parent: i32 = args.get(3)?.to_str()?.parse().ok()?;
        Some((umask, parent, args.get(4)?.clone()))
    })();
    let Some((umask, parent, command)) = parsed else {
        eprintln!("ollm-tui {ARG}: expected UMASK PARENT-PID COMMAND");
        return Some(ExitCode::from(2));
    };
    Some(supervise(umask, parent, command))
}

/// The arguments that run `command` under the supervisor.
pub fn args(umask: u32, command: &str) -> Vec<String> {
    vec![
        ARG.to_string(),
        format!("{umask:o}"),
        std::process::id().to_string(),
        command.to_string(),
    ]
}

fn parent_is(parent: i32) -> bool {
    rustix::process::getppid().map(|p| p.as_raw_nonzero().get()) == Some(parent)
}

fn supervise(umask: u32, parent: i32, command: OsString) -> ExitCode {
    super::orphans::adopt();
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(umask & 0o777));
    if !parent_is(parent) {
        // The app is already gone: start nothing.
        return ExitCode::from(143);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ollm-tui: cannot supervise the command: {e}");
            return ExitCode::from(126);
        }
    };
    let (status, group) = runtime.block_on(run_shell(parent, command));
    if let Some(group) = group {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    let left = reap_everything();
    drop(runtime);
    // When stopped, the shell itself is among them, and the app says what happened.
    if left > 0 && status.is_some() {
        eprintln!(
            "[ollm-tui: {left} process{} the command left running {} killed]",
            if left == 1 { "" } else { "es" },
            if left == 1 { "was" } else { "were" }
        );
    }
    match status {
        Some(code) => ExitCode::from(code),
        None => ExitCode::from(143),
    }
}

/// Run the shell until it ends (its exit code) or until told to stop (`None`); also the
/// shell's process group, to kill.
async fn run_shell(parent: i32, command: OsString) -> (Option<u8>, Option<rustix::process::Pid>) {
    use std::os::unix::process::ExitStatusExt;
    use tokio::signal::unix::{SignalKind, signal};
    // Listening before the shell starts: a stop that came first is not lost.
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        eprintln!("ollm-tui: cannot supervise the command: no signal handling");
        return (Some(126), None);
    };
    let spawned = shell_command(&command).spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ollm-tui: cannot start sh: {e}");
            return (Some(127), None);
        }
    };
    let group = child
        .id()
        .and_then(|id| rustix::process::Pid::from_raw(id as i32));
    let mut check = tokio::time::interval(PARENT_CHECK);
    loop {
        tokio::select! {
            status = child.wait() => {
                let code = match status {
                    Ok(s) => s
                        .code()
                        .map(|c| c.clamp(0, 255) as u8)
                        .or_else(|| s.signal().map(|n| (128 + n).clamp(0, 255) as u8))
                        .unwrap_or(1),
                    Err(_) => 1,
                };
                return (Some(code), group);
            }
            _ = term.recv() => return (None, group),
            _ = int.recv() => return (None, group),
            _ = hup.recv() => return (None, group),
            _ = check.tick() => {
                if !parent_is(parent) {
                    return (None, group);
                }
            }
        }
    }
}

/// Kill every child this process has and reap it, until none is left (a subreaper
/// inherits the orphans of each one killed). Returns how many there were.
fn reap_everything() -> usize {
    use rustix::io::Errno;
    use rustix::process::{Signal, WaitOptions, kill_process, wait};
    let mut reaped = 0;
    let me = rustix::process::getpid().as_raw_nonzero().get();
    loop {
        // None where there is no `/proc`: the kill of the process group is then all there is.
        for child in super::orphans::children_of(me) {
            let _ = kill_process(child.pid, Signal::KILL);
        }
        match wait(WaitOptions::empty()) {
            Ok(Some(_)) => reaped += 1,
            Err(Errno::INTR) | Ok(None) => {}
            Err(_) => return reaped,
        }
    }
}
