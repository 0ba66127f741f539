//! The pane the app runs in: start it, send keys, read the screen, wait for it; and the
//! [`Rig`] it runs against (the fake server and a data directory).
//!
//! The wait discipline: a key (or typed text, or a paste) changes the state the next key
//! meets — Esc closes a dialog, and Esc followed at once by a letter is read as Alt+letter.
//! So after sending, the next send is refused until [`Tmux::wait_for`] (or
//! [`Tmux::wait_exit`]) has seen the screen show what the last one did. A test that forgets
//! fails at once, naming both keys, instead of failing on a busy machine now and then.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::support::fake_ollama::{FakeConfig, FakeOllama};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_ollm-tui");
/// Generous: waits are for a screen condition, and a starved CI machine (the suite once ran
/// beside a model on both cores) must not turn slowness into a failure.
const DEADLINE: Duration = Duration::from_secs(60);
static SEQ: AtomicUsize = AtomicUsize::new(0);

pub(crate) struct Tmux {
    socket: String,
    /// What was sent last whose effect the screen has not been seen to show yet.
    unconfirmed: RefCell<Option<String>>,
}

impl Tmux {
    /// A tmux server with one pane running `cmd` (the binary itself, so the pane's pid is
    /// the app's).
    pub(crate) fn start(cmd: &[String], env: &[(&str, String)], width: u16, height: u16) -> Tmux {
        let version = Command::new("tmux").arg("-V").output();
        assert!(
            version.is_ok_and(|o| o.status.success()),
            "tmux is required for the end-to-end tests: apt-get install tmux"
        );
        let socket = format!(
            "ollm-e2e-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::SeqCst)
        );
        let t = Tmux {
            socket,
            unconfirmed: RefCell::new(None),
        };
        let mut c = Command::new("tmux");
        c.args([
            "-L",
            &t.socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "e2e",
        ])
        .args(["-x", &width.to_string(), "-y", &height.to_string()]);
        for (k, v) in env {
            c.args(["-e", &format!("{k}={v}")]);
        }
        // A shell runs the app, then reports its exit status and idles, so the pane keeps
        // exactly the terminal state the app left (tmux's own "pane is dead" line would
        // change it). The person's usual umask is 022, whatever the test runner's.
        c.args([
            "--",
            "sh",
            "-c",
            "umask 022; \"$@\"; echo \"[exit $?]\"; exec sleep 3600",
            "sh",
        ])
        .args(cmd);
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        t
    }

    pub(crate) fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Refuse to send `what` while the effect of the last send has not been seen.
    fn settled(&self, what: &str) {
        if let Some(last) = self.unconfirmed.borrow().as_ref() {
            panic!(
                "{what} sent before the screen showed what {last} did: wait_for it first \
                 (Esc and a letter sent at once read as Alt+letter)"
            );
        }
    }

    fn sent(&self, what: String) {
        *self.unconfirmed.borrow_mut() = Some(what);
    }

    /// Press keys (tmux names: `Escape`, `C-q`, `BSpace`…). Several in one call are one
    /// step: none of them may be Esc unless it is the last.
    pub(crate) fn keys(&self, keys: &[&str]) {
        let what = format!("keys {keys:?}");
        self.settled(&what);
        assert!(
            !keys[..keys.len().saturating_sub(1)].contains(&"Escape"),
            "{what}: Escape followed by another key in one step reads as Alt+key"
        );
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        self.tmux(&args);
        self.sent(what);
    }

    /// Type `text` literally.
    pub(crate) fn type_text(&self, text: &str) {
        let what = format!("text {:?}", short(text));
        self.settled(&what);
        self.tmux(&["send-keys", "-t", "e2e", "-l", text]);
        self.sent(what);
    }

    /// Type `text` and press Enter: send a message, or run a slash command (one step:
    /// typed characters and Enter are read in order whatever the timing).
    pub(crate) fn say(&self, text: &str) {
        let what = format!("{:?} and Enter", short(text));
        self.settled(&what);
        self.tmux(&["send-keys", "-t", "e2e", "-l", text]);
        self.tmux(&["send-keys", "-t", "e2e", "Enter"]);
        self.sent(what);
    }

    /// Paste `text` as a terminal does: `paste-buffer -p` sends a bracketed paste with
    /// each `\n` turned into a CR, as xterm and VTE do. `file` holds it on the way.
    pub(crate) fn paste(&self, file: &Path, text: &str) {
        let what = format!("a paste of {} bytes", text.len());
        self.settled(&what);
        std::fs::write(file, text).unwrap();
        self.tmux(&["load-buffer", file.to_str().unwrap()]);
        self.tmux(&["paste-buffer", "-p", "-t", "e2e"]);
        self.sent(what);
    }

    pub(crate) fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "e2e"])
    }

    pub(crate) fn format(&self, f: &str) -> String {
        self.tmux(&["display-message", "-p", "-t", "e2e", f])
            .trim()
            .to_string()
    }

    /// The app's exit status, once it has exited.
    pub(crate) fn exit_status(&self) -> Option<i32> {
        // After a SIGKILL the terminal is still raw, so the marker may sit mid-line and
        // wrap at the pane's edge: join wrapped lines (-J) before looking.
        let s = self.tmux(&["capture-pane", "-p", "-J", "-t", "e2e"]);
        let at = s.rfind("[exit ")?;
        let rest = &s[at + "[exit ".len()..];
        rest[..rest.find(']')?].parse().ok()
    }

    /// The app's pid (a child of the pane's shell).
    pub(crate) fn pid(&self) -> u32 {
        let shell = self.format("#{pane_pid}");
        let out = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
            .expect("the app is running")
    }

    /// The screen with its colours and attributes, as SGR escape sequences (`-e`): what a
    /// change of theme changes, where the text stays the same.
    pub(crate) fn styled_screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-e", "-t", "e2e"])
    }

    /// Wait until `cond` holds for the screen; panic with the screen if it never does.
    pub(crate) async fn wait_for(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        self.wait_on(what, || self.screen(), cond).await
    }

    /// [`Tmux::wait_for`] on [`Tmux::styled_screen`].
    pub(crate) async fn wait_for_styled(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        self.wait_on(what, || self.styled_screen(), cond).await
    }

    async fn wait_on(
        &self,
        what: &str,
        capture: impl Fn() -> String,
        cond: impl Fn(&str) -> bool,
    ) -> String {
        let start = Instant::now();
        loop {
            let s = capture();
            if cond(&s) {
                self.unconfirmed.replace(None);
                return s;
            }
            if start.elapsed() > DEADLINE {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }

    pub(crate) async fn wait_exit(&self) -> i32 {
        let start = Instant::now();
        loop {
            if let Some(code) = self.exit_status() {
                self.unconfirmed.replace(None);
                return code;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "the app did not exit:\n{}",
                self.screen()
            );
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }

    pub(crate) fn alive(&self) -> bool {
        self.exit_status().is_none()
    }

    /// The app with `extra` arguments, data in `home`, talking to `server`, once it has
    /// connected and is idle.
    pub(crate) async fn connected(
        extra: &[&str],
        home: &Path,
        server: &str,
        width: u16,
        height: u16,
    ) -> Tmux {
        let t = Tmux::start(&args(extra), &env(home, server), width, height);
        t.wait_connected().await;
        t
    }

    /// Wait until the app has connected (the status line is up) and is idle; the screen.
    pub(crate) async fn wait_connected(&self) -> String {
        self.wait_for("connected", |s| s.contains("Context:") && idle(s))
            .await
    }

    /// Send `text` as a message and wait for the fake server's answer to it (which quotes
    /// it: `You said: "text"`, whole up to eight words) with the app idle again; the screen.
    pub(crate) async fn ask(&self, text: &str) -> String {
        self.say(text);
        let quoted = format!("You said: \"{text}\"");
        self.wait_for(&format!("the reply to {:?}", short(text)), |s| {
            s.contains(&quoted) && idle(s)
        })
        .await
    }

    /// Ctrl+Q, and the app exits with status 0.
    pub(crate) async fn quit(&self) {
        self.keys(&["C-q"]);
        let code = self.wait_exit().await;
        assert_eq!(code, 0, "the exit status after Ctrl+Q:\n{}", self.screen());
    }
}

/// What the app talks to and writes in: a fake Ollama server and a data directory of the
/// test's own. Anything that must be there before the app starts (scripted replies,
/// sessions on disk, a config file) is set up on these first; then [`Rig::connect`].
pub(crate) struct Rig {
    home: tempfile::TempDir,
    pub(crate) server: FakeOllama,
}

impl Rig {
    /// The fake server with its defaults and an empty data directory.
    pub(crate) async fn new() -> Rig {
        Rig::serving(FakeOllama::start().await)
    }

    /// A server whose replies are `words` words long, `token_delay` apart (time to act
    /// while one streams), and an empty data directory.
    pub(crate) async fn slow(token_delay: Duration, words: usize) -> Rig {
        Rig::serving(
            FakeOllama::start_with(FakeConfig {
                token_delay,
                reply_words: words,
                ..FakeConfig::default()
            })
            .await,
        )
    }

    /// `server` and an empty data directory.
    fn serving(server: FakeOllama) -> Rig {
        Rig {
            home: tempfile::tempdir().unwrap(),
            server,
        }
    }

    /// The data directory (`OLLM_HOME`).
    pub(crate) fn home(&self) -> &Path {
        self.home.path()
    }

    /// The app with `extra` arguments in a `width`×`height` pane, once it has connected
    /// and is idle.
    pub(crate) async fn connect(&self, extra: &[&str], width: u16, height: u16) -> Tmux {
        Tmux::connected(extra, self.home(), &self.server.url(), width, height).await
    }

    /// The app started, without waiting for anything on the screen.
    pub(crate) fn start(&self, extra: &[&str], width: u16, height: u16) -> Tmux {
        Tmux::start(
            &args(extra),
            &env(self.home(), &self.server.url()),
            width,
            height,
        )
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

pub(crate) fn env(home: &Path, server: &str) -> Vec<(&'static str, String)> {
    vec![
        ("OLLM_HOME", home.display().to_string()),
        ("OLLAMA_HOST", server.to_string()),
        ("LANG", "C.UTF-8".to_string()),
        ("TERM", "xterm-256color".to_string()),
    ]
}

pub(crate) fn args(extra: &[&str]) -> Vec<String> {
    std::iter::once(BIN)
        .chain(extra.iter().copied())
        .map(str::to_string)
        .collect()
}

/// "Context: 1,234/8,192" → 1234.
pub(crate) fn gauge_used(screen: &str) -> Option<u32> {
    let line = screen.lines().find(|l| l.contains("Context: "))?;
    let after = line.split("Context: ").nth(1)?;
    let used = after.split('/').next()?;
    used.replace(',', "").trim().parse().ok()
}

pub(crate) fn idle(screen: &str) -> bool {
    !screen.contains("generating")
        && !screen.contains("waiting for the model")
        && !screen.contains("compressing")
        && !screen.contains("connecting")
}

/// The terminal was handed back: no alternate screen, cursor shown, no mouse reporting.
pub(crate) fn assert_terminal_clean(t: &Tmux) {
    assert_eq!(
        t.format("#{alternate_on}"),
        "0",
        "still on the alternate screen"
    );
    assert_eq!(t.format("#{cursor_flag}"), "1", "cursor hidden");
    assert_eq!(
        t.format("#{mouse_any_flag}"),
        "0",
        "mouse reporting left on"
    );
    assert_eq!(
        t.format("#{mouse_standard_flag}"),
        "0",
        "mouse reporting left on"
    );
}

pub(crate) fn session_logs(home: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(home.join("sessions"))
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect()
        })
        .unwrap_or_default()
}

/// A short form of typed text for messages.
fn short(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}
