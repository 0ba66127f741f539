//! `ollm-tui`: parse arguments, set up logging, open the session, run the app, restore
//! the terminal. Everything else lives in the library.

use anyhow::{Context, Result, bail};

use clap::Parser;
use ollm_tui::actor::{self, ActorConfig, Parts, StoreSlot};
use ollm_tui::app::{App, AppExit, AppOptions, keymap::Keymap, words};
use ollm_tui::config::{self, Cli, Command, Env, ExportFormat, SessionsAction, Settings};
use ollm_tui::core::engine::{Engine, SessionSpec};
use ollm_tui::core::prompts::Prompts;
use ollm_tui::core::record::Header;
use ollm_tui::core::tokens::Tiktoken;
use ollm_tui::llm::OllamaBackend;
use ollm_tui::store::{self, DataDir, FileStore, LoadedLog, StoreError};
use ollm_tui::ui::{Banner, Theme};
use ollm_tui::view::Severity;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

fn main() -> ExitCode {
    // This binary also supervises each command a tool runs (`tools::supervise`).
    if let Some(code) = ollm_tui::tools::supervise::main_if_asked() {
        return code;
    }
    // Conversations are private: whatever creates a file in this process (the daily log,
    // `export -o FILE`) creates it 0600, directories 0700. The person's own umask is kept
    // for what the tools create in their project.
    let usual_umask = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
    let cli = Cli::parse();
    match run(cli, usual_umask.bits()) {
        Ok(()) => ExitCode::SUCCESS,
        // `ollm-tui sessions | head`: the reader had enough; not an error.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            // The terminal is already restored here (the TUI guard drops first). An error
            // may quote a file's content (a crafted session header): no escape sequence
            // reaches the terminal. Nothing to do if stderr is gone (a hangup).
            let _ = writeln!(
                std::io::stderr(),
                "ollm-tui: {}",
                ollm_tui::core::sanitize::sanitize(&error_text(&e))
            );
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli, usual_umask: u32) -> Result<()> {
    let env = Env::from_process();
    let Some(command) = &cli.command else {
        let settings = config::resolve(&cli, &env)?;
        // A prompt, or text on stdin, is one message answered on stdout (as `ollama run
        // MODEL PROMPT` does), not a chat.
        let piped = stdin_is_input();
        if cli.prompt().is_some() || piped {
            return one_shot(&cli, settings, piped);
        }
        return chat(&cli, settings, usual_umask);
    };
    // The subcommands read the data directory (OLLM_HOME, never the config file) and
    // nothing else: a mistake in config.toml must not keep anyone from listing, finding
    // or exporting their sessions, or from printing a good config to compare with. It is
    // still said, since the chat will refuse to start until it is fixed.
    let root = config::data_dir(env.ollm_home.as_deref())?;
    if let Err(e) = config::resolve(&cli, &env) {
        eprintln!(
            "ollm-tui: note: {} (not needed here; the chat starts once it is fixed)",
            ollm_tui::core::sanitize::sanitize(&e.to_string())
        );
    }
    match command {
        Command::DefaultConfig => {
            std::io::stdout()
                .lock()
                .write_all(config::DEFAULT_CONFIG.as_bytes())?;
            Ok(())
        }
        Command::Sessions { action: None } => list_sessions(&root),
        Command::Sessions {
            action: Some(SessionsAction::Rm { id }),
        } => remove_session(&root, id),
        Command::Sessions {
            action: Some(SessionsAction::Rename { id, title }),
        } => rename_session(&root, id, &title.join(" ")),
        Command::Search { text, limit } => search(&root, &text.join(" "), *limit),
        Command::Export { id, format, output } => export(&root, id, *format, output.as_deref()),
    }
}

/// The error and its causes on one line, each said once: a typed error that quotes its
/// source (`cannot open X: Permission denied`) is not followed by that source again.
fn error_text(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let msg = cause.to_string();
        if out.ends_with(&msg) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&msg);
    }
    out
}

fn data_dir(root: &std::path::Path) -> Result<DataDir> {
    DataDir::new(root).with_context(|| {
        format!(
            "cannot use the data directory {} (set OLLM_HOME to change it)",
            root.display()
        )
    })
}

/// Characters of a session's title shown by `ollm-tui sessions`.
const TITLE_WIDTH: usize = 60;

fn list_sessions(root: &std::path::Path) -> Result<()> {
    let dir = data_dir(root)?;
    let sessions = store::sessions::list(&dir)?;
    let mut out = std::io::stdout().lock();
    if sessions.is_empty() {
        writeln!(out, "No sessions yet in {}.", dir.root().display())?;
        return Ok(());
    }
    // Each id as its shortest unique prefix: what `--resume` needs, and no more.
    let all: Vec<&str> = sessions.iter().map(|s| s.id.as_str()).collect();
    let parents: Vec<&str> = sessions
        .iter()
        .filter_map(|s| s.parent.as_deref())
        .collect();
    let short = store::sessions::short_ids(&[all.as_slice(), &parents].concat(), &all);
    let id_width = short.values().map(String::len).max().unwrap_or(0).max(2);
    // The one plain `--resume` opens (the session last used) is marked.
    let latest = store::sessions::latest_among(&dir, &sessions);
    writeln!(
        out,
        "{:<id_width$} {:<19} {:>6} {:>5}  {:<20} TITLE",
        "ID", "LAST ACTIVITY", "MSGS", "COMP", "MODEL"
    )?;
    for s in &sessions {
        // Damage is never hidden behind a title: it comes first, then the title.
        let title = s
            .title
            .as_deref()
            .map(|t| ollm_tui::core::sanitize::sanitize(t).into_owned());
        let mut title: String = match (&s.problem, title) {
            (Some(p), Some(t)) => format!("({}) {t}", ollm_tui::core::sanitize::sanitize(p)),
            (Some(p), None) => format!("({})", ollm_tui::core::sanitize::sanitize(p)),
            (None, Some(t)) => t,
            (None, None) => "(no messages)".into(),
        }
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .collect();
        if title.chars().count() > TITLE_WIDTH {
            title = title.chars().take(TITLE_WIDTH - 1).collect::<String>() + "…";
        }
        if let Some(parent) = &s.parent {
            title = format!("{title} (fork of {})", short[parent]);
        }
        if latest == Some(s.id.as_str()) {
            title = format!("[--resume] {title}");
        }
        if let Some(pid) = store::SessionLock::holder(&dir, &s.id) {
            title = format!("[open, pid {pid}] {title}");
        }
        writeln!(
            out,
            "{:<id_width$} {:<19} {:>6} {:>5}  {:<20} {}",
            short[&s.id],
            s.last_activity
                .with_timezone(&chrono::Local)
                .format("%Y-%m-%d %H:%M"),
            s.messages,
            s.compressions,
            ollm_tui::core::sanitize::sanitize(&s.model),
            title
        )?;
    }
    Ok(())
}

fn remove_session(root: &std::path::Path, id: &str) -> Result<()> {
    let dir = data_dir(root)?;
    let id = store::sessions::resolve(&dir, id)?;
    let t = store::manage::trash(&dir, &id)?;
    println!(
        "Moved session {id} to {} ({}). Move it back into {} to restore it.",
        t.folder.display(),
        t.moved.join(", "),
        dir.sessions_dir().display()
    );
    Ok(())
}

fn rename_session(root: &std::path::Path, id: &str, title: &str) -> Result<()> {
    let dir = data_dir(root)?;
    let id = store::sessions::resolve(&dir, id)?;
    match store::manage::rename(&dir, &id, title)? {
        Some(t) => println!("Session {id} is now titled {t:?}."),
        None => println!("Session {id} is titled by its first message again."),
    }
    Ok(())
}

fn search(root: &std::path::Path, text: &str, limit: usize) -> Result<()> {
    use std::io::IsTerminal;
    let dir = data_dir(root)?;
    let started = std::time::Instant::now();
    let report = store::search::search(&dir, text, limit)?;
    let elapsed = started.elapsed();
    let tty = std::io::stdout().is_terminal();
    let all: Vec<String> = store::sessions::list_ids(&dir)?;
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let found: Vec<&str> = report
        .sessions
        .iter()
        .map(|s| s.session_id.as_str())
        .collect();
    let short = store::sessions::short_ids(&found, &all);
    let mut out = std::io::stdout().lock();
    for s in &report.sessions {
        let title = s.title.as_deref().unwrap_or("(no title)");
        writeln!(
            out,
            "{}  {}  ({} hit{})",
            short[&s.session_id],
            ollm_tui::core::sanitize::sanitize(title),
            s.hits.len(),
            if s.hits.len() == 1 { "" } else { "s" }
        )?;
        for h in &s.hits {
            let (a, m, b) = (
                &h.snippet[..h.matched.start],
                &h.snippet[h.matched.clone()],
                &h.snippet[h.matched.end..],
            );
            let m = if tty {
                format!("\x1b[1;7m{m}\x1b[0m")
            } else {
                m.to_string()
            };
            writeln!(
                out,
                "  #{:<6} {}  {:<9} {a}{m}{b}",
                h.seq,
                h.ts.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M"),
                h.role
            )?;
        }
    }
    let hits = report.hit_count();
    eprintln!(
        "{hits} hit{} in {} of {} sessions ({:.0} ms){}{}",
        if hits == 1 { "" } else { "s" },
        report.sessions.len(),
        report.sessions_searched,
        elapsed.as_secs_f64() * 1000.0,
        if report.truncated {
            format!("; stopped at {limit} (--limit)")
        } else {
            String::new()
        },
        // Only a hit gives an id to open.
        if hits > 0 {
            ". Open one with: ollm-tui --resume ID"
        } else {
            "."
        }
    );
    if report.unreadable_lines > 0 {
        eprintln!(
            "ollm-tui: note: {} line(s) holding the text could not be read in {} (damaged log); they were skipped",
            report.unreadable_lines,
            report.damaged_sessions.join(", ")
        );
    }
    for (id, why) in &report.unreadable_sessions {
        eprintln!("ollm-tui: note: session {id} could not be searched: {why}");
    }
    if report.too_long_lines > 0 {
        eprintln!(
            "ollm-tui: note: {} line(s) holding the text are longer than {} MiB (not written by ollm-tui); they were not shown",
            report.too_long_lines,
            store::search::MAX_LINE_BYTES >> 20
        );
    }
    Ok(())
}

fn export(
    root: &std::path::Path,
    id: &str,
    format: ExportFormat,
    output: Option<&std::path::Path>,
) -> Result<()> {
    let dir = data_dir(root)?;
    let id = store::sessions::resolve(&dir, id)?;
    let log = store::SessionLog::read(&dir, &id)?;
    let text = match format {
        ExportFormat::Md => store::export::to_markdown(&log, &words::MARKDOWN),
        ExportFormat::Json => store::export::to_json_text(&log)?,
    };
    match output {
        // Written beside and renamed in: a link there is replaced, never followed, and
        // the file is private like every file ollm-tui writes.
        Some(path) => store::export::write_replacing(path, text.as_bytes())?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    if !log.report.is_clean() {
        eprintln!("ollm-tui: note: {}", words::load_report(&log.report));
    }
    Ok(())
}

/// File-only logging (the TUI owns the terminal): daily files under `logs/`.
fn init_logging(dir: &DataDir, level: &str) -> Option<tracing_appender::non_blocking::WorkerGuard> {
    let logs = dir.logs_dir();
    std::fs::create_dir_all(&logs).ok()?;
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("ollm-tui")
        .filename_suffix("log")
        .max_log_files(14)
        .build(&logs)
        .ok()?;
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = tracing_subscriber::EnvFilter::try_from_env("OLLM_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("ollm_tui={level},warn")));
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .ok()?;
    Some(guard)
}

/// What the chat starts from.
struct Opened {
    spec: SessionSpec,
    store: StoreSlot<FileStore>,
    loaded: Option<LoadedLog>,
}

/// A new session, created on disk with the first thing worth keeping.
fn new_session(settings: &Settings, dir: &DataDir) -> Opened {
    let session_id = store::new_session_id();
    let dir = dir.clone();
    Opened {
        spec: SessionSpec {
            session_id,
            model: settings.model.clone().unwrap_or_default(),
            mode: settings.mode.unwrap_or_default(),
            ctx: settings.ctx,
            params: Default::default(),
        },
        store: StoreSlot::Lazy(Box::new(move |header: &Header| {
            FileStore::create(&dir, header.clone())
        })),
        loaded: None,
    }
}

fn open_session(cli: &Cli, settings: &Settings, dir: &DataDir) -> Result<Opened> {
    let Some(wanted) = cli.resume.as_deref() else {
        return Ok(new_session(settings, dir));
    };
    let id = if wanted.is_empty() {
        match store::sessions::latest(dir)? {
            Some(id) => id,
            None => bail!(
                "no session to resume in {} (start one with plain `ollm-tui`)",
                dir.root().display()
            ),
        }
    } else {
        store::sessions::resolve(dir, wanted).map_err(|e| {
            // `ollm-tui --resume "and then?"`: the flag took the prompt as its id.
            let hint = if wanted.chars().any(char::is_whitespace) {
                format!(
                    " (to go on with the last session used, put the prompt first: \
                     ollm-tui {wanted:?} --resume)"
                )
            } else {
                String::new()
            };
            anyhow::Error::new(e).context(format!("--resume {wanted:?}{hint}"))
        })?
    };
    open_existing(dir, &id)
}

/// `ollm-tui WORD`: refuse a word that is neither a subcommand nor a model the server
/// has, before the terminal is touched (see `model_word`).
fn check_model_word(backend: &OllamaBackend, word: &str) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let verdict = runtime.block_on(ollm_tui::model_word::check(backend, word));
    match ollm_tui::model_word::refusal(word, &verdict) {
        Some(why) => bail!("{why}"),
        None => Ok(()),
    }
}

/// Whether stdin brings text: a pipe, a redirected file or a socket. A terminal is the
/// chat's, and /dev/null (or a closed stdin) brings nothing.
fn stdin_is_input() -> bool {
    use std::io::IsTerminal;
    use std::os::fd::AsFd;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return false;
    }
    rustix::fs::fstat(stdin.as_fd()).is_ok_and(|st| {
        matches!(
            rustix::fs::FileType::from_raw_mode(st.st_mode),
            rustix::fs::FileType::Fifo
                | rustix::fs::FileType::RegularFile
                | rustix::fs::FileType::Socket
        )
    })
}

/// The chat server and the summary model's, if that is another.
fn backends(settings: &Settings) -> Result<(OllamaBackend, Option<OllamaBackend>)> {
    let backend = OllamaBackend::new(&settings.host, settings.ollama)
        .with_context(|| format!("the Ollama address from {}", settings.host_source))?;
    let summary_backend = settings
        .summary_host
        .as_deref()
        .map(|h| OllamaBackend::new(h, settings.ollama))
        .transpose()
        .context("the summary server's address")?;
    Ok((backend, summary_backend))
}

/// The prompts, with the person's `prompts.toml` over the built-in ones.
fn load_prompts(dir: &DataDir) -> Result<Prompts> {
    Ok(
        match std::fs::read_to_string(dir.root().join("prompts.toml")) {
            Ok(text) => Prompts::with_overrides(&text).context("in prompts.toml")?,
            Err(_) => Prompts::builtin(),
        },
    )
}

/// `ollm-tui [MODEL] PROMPT`, `… | ollm-tui [PROMPT]`: one message through a session like
/// any other, the reply on stdout (see `oneshot`). Tools are off: nobody is there to
/// approve a call, and a reply meant for a pipe should not wait on one.
fn one_shot(cli: &Cli, settings: Settings, piped: bool) -> Result<()> {
    use std::io::Read;
    let input = if piped {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .context("cannot read stdin")?;
        Some(String::from_utf8(bytes).map_err(|e| {
            anyhow::anyhow!(
                "stdin is not UTF-8 text (byte {} is not); nothing was sent",
                e.utf8_error().valid_up_to()
            )
        })?)
    } else {
        None
    };
    let message = ollm_tui::oneshot::compose(cli.prompt().as_deref(), input.as_deref())?;
    let (backend, summary_backend) = backends(&settings)?;
    if let Some(word) = cli.model_word() {
        check_model_word(&backend, word)?;
    }
    let dir = data_dir(&settings.data_dir)?;
    let _log_guard = init_logging(&dir, &settings.log_level);
    let prompts = Arc::new(load_prompts(&dir)?);
    let opened = open_session(cli, &settings, &dir)?;
    let session_id = opened.spec.session_id.clone();
    let tokenizer = Arc::new(SharedTokenizer::loading());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let (sent, persisted, rescued) = runtime.block_on(async {
        let mut spawned = actor::spawn(Parts {
            backend,
            summary_backend,
            engine: make_engine(opened.spec, opened.loaded, &settings, &tokenizer, &prompts),
            store: opened.store,
            config: ActorConfig {
                host: settings.host.clone(),
                temperature: settings.temperature,
                think: settings.think,
                summary_model: settings.summary_model.clone(),
                keep_auto_snapshots: settings.keep_auto_snapshots,
                repeat_limit: settings.repeat_limit,
                tools: None,
                // Not retried: an unreachable server is an error here, said at once.
                reconnect_after: std::time::Duration::from_secs(3600),
                ..ActorConfig::default()
            },
            model: None,
        });
        let mut stdout = std::io::stdout().lock();
        let sent = ollm_tui::oneshot::send(&mut spawned, message, &mut stdout).await;
        if sent.is_err() {
            // A reply still coming (the reader went away) ends here, kept as it is.
            let _ = spawned.handle.send(ollm_tui::actor::Command::Stop).await;
        }
        let _ = spawned
            .handle
            .send(ollm_tui::actor::Command::Shutdown)
            .await;
        drop(spawned.handle);
        let (persisted, rescued) = spawned
            .task
            .await
            .ok()
            .map(|e| (e.store.is_some(), e.rescued))
            .unwrap_or((false, None));
        (sent, persisted, rescued)
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    if let Some(r) = rescued {
        eprintln!(
            "ollm-tui: {} record(s) could not be written to the session log: {}",
            r.records,
            match &r.to {
                Ok(path) => format!("they are saved in {}", path.display()),
                Err(e) => format!("nor to a rescue file ({e}); they are lost"),
            }
        );
    }
    if persisted {
        mark_used(&dir, &session_id);
        let short = store::sessions::short_id(&dir, &session_id);
        eprintln!("ollm-tui: kept as session {short} (go on with: ollm-tui --resume {short})");
    }
    match sent {
        Ok(()) | Err(ollm_tui::oneshot::Stopped::ReaderGone) => Ok(()),
        Err(ollm_tui::oneshot::Stopped::Failed(why)) => Err(why.into()),
    }
}

/// The chat draws on a terminal and reads keys from one.
fn refuse_without_terminal() -> Result<()> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        bail!(
            "the chat needs a terminal: stdin and stdout must be a TTY (to read a session \
             from a script, use `ollm-tui export ID`)"
        );
    }
    Ok(())
}

/// A session on disk, opened (locked) and read.
fn open_existing(dir: &DataDir, id: &str) -> Result<Opened> {
    let id = id.to_string();
    let (file_store, loaded) = FileStore::open(dir, &id).map_err(|e| match e {
        StoreError::Locked { .. } => anyhow::anyhow!("{e}"),
        other => anyhow::Error::new(other).context(format!("cannot open session {id}")),
    })?;
    Ok(Opened {
        spec: SessionSpec {
            session_id: id,
            model: loaded.header.model.clone(),
            mode: loaded.header.mode,
            ctx: loaded.header.ctx,
            params: loaded.header.params.clone(),
        },
        store: StoreSlot::Open(file_store),
        loaded: Some(loaded),
    })
}

fn chat(cli: &Cli, settings: Settings, usual_umask: u32) -> Result<()> {
    // A refusal creates nothing: with no data directory yet there is nothing to resume
    // or read in it, so the missing terminal is said before one is made.
    if !settings.data_dir.exists() {
        refuse_without_terminal()?;
    }
    let dir = data_dir(&settings.data_dir)?;
    let _log_guard = init_logging(&dir, &settings.log_level);
    // Everything that can refuse to start does so here, before the terminal changes.
    let keymap = Keymap::new(&settings.keys).context("in config.toml")?;
    let theme = Theme::load(&settings.theme, Some(&dir.themes_dir()), settings.no_color)?;
    let prompts = load_prompts(&dir)?;
    let (backend, summary_backend) = backends(&settings)?;
    if let Some(word) = cli.model_word() {
        check_model_word(&backend, word)?;
    }
    let opened = open_session(cli, &settings, &dir)?;
    // The tokenizer's tables take 60–260 ms to load: do it while the terminal starts,
    // once for every session opened in this run.
    let tokenizer = Arc::new(SharedTokenizer::loading());

    // Last of the refusals, so that the others (a bad flag, no session) are said first.
    refuse_without_terminal()?;
    // Tools work inside one directory; one that cannot be opened is said now, not at the
    // first call.
    let tool_env = ollm_tui::tools::ToolEnv {
        umask: usual_umask,
        supervisor: std::env::current_exe().ok(),
    };
    let tools = settings.tools.for_session(tool_env).with_context(|| {
        format!(
            "the tools' working directory {} cannot be used",
            settings.tools.workdir.display()
        )
    })?;
    let prompts = Arc::new(prompts);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result: Result<Vec<Ended>> = runtime.block_on(async {
        let mut terminal = ollm_tui::app::terminal::enter()?;
        let mut ended = Vec::new();
        let mut opened = opened;
        let mut banner = damage_banner(&opened).or_else(|| resumed_banner(cli, &dir, &opened));
        let mut start_at = None;
        // The --model flag applies to the session ollm-tui was started with.
        let mut model = settings.model.clone();
        loop {
            let session_id = opened.spec.session_id.clone();
            tracing::info!(
                session = %session_id,
                host = %settings.host,
                summary_model = ?settings.summary_model,
                summary_host = ?settings.summary_host,
                resumed = opened.loaded.is_some(),
                "starting"
            );
            // The person is in this session now: `--resume` alone comes back to it. A new
            // one is named once it has a log (it is created with the first message), so a
            // crash after that still comes back to it.
            let opened_new = opened.loaded.is_none();
            if !opened_new {
                mark_used(&dir, &session_id);
            }
            let spawned = actor::spawn(Parts {
                backend: backend.clone(),
                summary_backend: summary_backend.clone(),
                engine: make_engine(opened.spec, opened.loaded, &settings, &tokenizer, &prompts),
                store: opened.store,
                config: ActorConfig {
                    host: settings.host.clone(),
                    temperature: settings.temperature,
                    think: settings.think,
                    summary_model: settings.summary_model.clone(),
                    keep_auto_snapshots: settings.keep_auto_snapshots,
                    repeat_limit: settings.repeat_limit,
                    tools: tools.clone(),
                    ..ActorConfig::default()
                },
                model: model.take(),
            });
            if opened_new {
                let mut view = spawned.view.clone();
                let (dir, id) = (dir.clone(), session_id.clone());
                tokio::spawn(async move {
                    if view.wait_for(|v| v.persisted).await.is_ok() {
                        mark_used(&dir, &id);
                    }
                });
            }
            let app = App::new(
                spawned.handle.clone(),
                spawned.view.clone(),
                AppOptions {
                    keymap: keymap.clone(),
                    theme: theme.clone(),
                    ascii: settings.ascii,
                    paste_limit_bytes: settings.paste_limit_bytes,
                    startup_banner: banner.take(),
                    data_dir: Some(dir.clone()),
                    start_at: start_at.take(),
                    config_temperature: settings.temperature,
                    mouse: settings.mouse,
                },
            );
            let ran = app.run(&mut terminal, spawned.updates).await;
            // Let the actor finish writing, then stop it.
            let _ = spawned
                .handle
                .send(ollm_tui::actor::Command::Shutdown)
                .await;
            drop(spawned.handle);
            // What the session was set to when it closed: `/new` starts from it.
            let (persisted, rescued, left) = match spawned.task.await {
                Ok(e) => (e.store.is_some(), e.rescued, Some(e.engine.header(""))),
                Err(_) => (false, None, None),
            };
            if persisted {
                mark_used(&dir, &session_id);
            }
            ended.push(Ended {
                session_id: session_id.clone(),
                persisted,
                rescued,
            });
            match ran {
                Err(e) => {
                    ollm_tui::app::terminal::leave();
                    return Err(e.into());
                }
                Ok(AppExit::Quit) => break,
                Ok(AppExit::New { model: asked }) => {
                    opened = new_session(&settings, &dir);
                    if let Some(left) = left {
                        opened.spec.model = left.model;
                        opened.spec.ctx = left.ctx;
                        opened.spec.mode = left.mode;
                        opened.spec.params = left.params;
                    }
                    // A model named with `/new MODEL` is checked with the server and
                    // switched to once the session is loaded, as `--model` is.
                    model = asked;
                    let previous = persisted.then(|| {
                        (
                            session_name(&dir, &session_id),
                            store::sessions::short_id(&dir, &session_id),
                        )
                    });
                    let said = words::new_session(
                        previous.as_ref().map(|(n, s)| (n.as_str(), s.as_str())),
                    );
                    banner = Some(Banner::new(
                        Severity::Info,
                        said.title,
                        said.hint.unwrap_or_default(),
                    ));
                }
                Ok(AppExit::Forked { id, at }) => {
                    opened = match open_existing(&dir, &id) {
                        Ok(o) => {
                            banner = settings_now(&o).map(|now| {
                                let said = words::forked(
                                    at,
                                    &store::sessions::short_id(&dir, &id),
                                    &now.model,
                                    now.ctx,
                                    &now.mode.to_string(),
                                );
                                Banner::new(
                                    Severity::Info,
                                    said.title,
                                    said.hint.unwrap_or_default(),
                                )
                            });
                            o
                        }
                        Err(e) => {
                            banner = Some(Banner::new(
                                Severity::Error,
                                format!("Could not open the fork {id}: {}", error_text(&e)),
                                "You are back in the session you forked from.",
                            ));
                            open_existing(&dir, &session_id)
                                .unwrap_or_else(|_| new_session(&settings, &dir))
                        }
                    };
                }
                Ok(AppExit::Open { id, at }) => {
                    // This session is closed; open the other, or, if it cannot be opened
                    // after all, come back here and say why.
                    opened = match open_existing(&dir, &id) {
                        Ok(o) => {
                            banner = damage_banner(&o);
                            start_at = at;
                            o
                        }
                        Err(e) => {
                            banner = Some(Banner::new(
                                Severity::Error,
                                format!("Could not open session {id}: {}", error_text(&e)),
                                "You are back in the session you left.",
                            ));
                            if persisted {
                                open_existing(&dir, &session_id)
                                    .unwrap_or_else(|_| new_session(&settings, &dir))
                            } else {
                                new_session(&settings, &dir)
                            }
                        }
                    };
                }
            }
        }
        ollm_tui::app::terminal::leave();
        Ok(ended)
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    // After a hangup there is no stderr; nothing to do then.
    let mut err = std::io::stderr();
    let ended = result?;
    for (i, e) in ended.iter().enumerate() {
        let session_id = &e.session_id;
        match &e.rescued {
            Some(ollm_tui::actor::Rescued {
                records,
                to: Ok(path),
            }) => {
                let _ = writeln!(
                    err,
                    "ollm-tui: {records} record(s) could not be written to the session log (disk full?); \
                     they are saved in {}.\nThe session {session_id} ends before them.",
                    path.display()
                );
            }
            Some(ollm_tui::actor::Rescued {
                records,
                to: Err(e),
            }) => {
                let _ = writeln!(
                    err,
                    "ollm-tui: {records} record(s) could not be written to the session log, nor to \
                     a rescue file ({e}); they are lost.\nThe session {session_id} ends before them."
                );
            }
            // Only the session the person quit from is named; the ones left for another
            // are in `ollm-tui sessions`.
            None if e.persisted && i + 1 == ended.len() => {
                let _ = writeln!(err, "{}", saved_line(&dir, session_id));
            }
            None => {}
        }
    }
    Ok(())
}

/// Record that the person uses session `id` (see `store::sessions::latest`). A failure
/// costs only what plain `--resume` opens next, so it is logged, not shown.
fn mark_used(dir: &DataDir, id: &str) {
    if let Err(e) = store::sessions::mark_used(dir, id) {
        tracing::warn!(session = %id, error = %e, "cannot note the session last used");
    }
}

/// How a session is named to the person: its shortest unique id and its title.
fn session_name(dir: &DataDir, id: &str) -> String {
    let short = store::sessions::short_id(dir, id);
    match store::sessions::summary(dir, id).ok().and_then(|s| s.title) {
        Some(title) => format!(
            "{short} \u{201c}{}\u{201d}",
            ollm_tui::core::sanitize::sanitize(&title)
        ),
        None => short,
    }
}

/// What is said when the person leaves a session that was saved: which one, and how to
/// come back (plain `--resume` opens it: it is the one last used).
fn saved_line(dir: &DataDir, id: &str) -> String {
    let short = store::sessions::short_id(dir, id);
    format!(
        "Session saved: {}\nResume it with: ollm-tui --resume (the last one used) or ollm-tui --resume {short}",
        session_name(dir, id)
    )
}

/// `--resume` with no id: say which session that was, since the person did not name it.
fn resumed_banner(cli: &Cli, dir: &DataDir, opened: &Opened) -> Option<Banner> {
    if cli.resume.as_deref() != Some("") {
        return None;
    }
    let id = &opened.spec.session_id;
    let when = store::sessions::summary(dir, id)
        .map(|s| {
            format!(
                " (last active {})",
                s.last_activity
                    .with_timezone(&chrono::Local)
                    .format("%Y-%m-%d %H:%M")
            )
        })
        .unwrap_or_default();
    Some(Banner::new(
        Severity::Info,
        format!(
            "Resumed the session you last used: {}{when}",
            session_name(dir, id)
        ),
        "`ollm-tui --resume ID` opens another (`ollm-tui sessions` lists them). Esc closes this.",
    ))
}

/// A session the app left: what to tell the person after the terminal is handed back.
struct Ended {
    session_id: String,
    persisted: bool,
    rescued: Option<ollm_tui::actor::Rescued>,
}

/// The tokenizer, loaded once on a thread of its own and shared by every engine.
struct SharedTokenizer {
    loading: std::sync::Mutex<
        Option<std::thread::JoinHandle<Result<Tiktoken, ollm_tui::core::tokens::TokenizerError>>>,
    >,
    ready: std::sync::OnceLock<Arc<dyn ollm_tui::core::tokens::Tokenizer>>,
}

impl SharedTokenizer {
    fn loading() -> Self {
        SharedTokenizer {
            loading: std::sync::Mutex::new(Some(std::thread::spawn(Tiktoken::new))),
            ready: std::sync::OnceLock::new(),
        }
    }

    fn get(&self) -> Arc<dyn ollm_tui::core::tokens::Tokenizer> {
        self.ready
            .get_or_init(|| {
                let handle = self.loading.lock().ok().and_then(|mut h| h.take());
                match handle.map(std::thread::JoinHandle::join) {
                    Some(Ok(Ok(t))) => Arc::new(t),
                    // The tables are embedded; failing to load them is a broken build.
                    _ => Arc::new(ollm_tui::core::tokens::ByteEstimate),
                }
            })
            .clone()
    }
}

/// How the actor builds the session's engine (it runs on the actor's task, so the
/// tokenizer is waited for there, not before the terminal starts).
fn make_engine(
    spec: SessionSpec,
    loaded: Option<LoadedLog>,
    settings: &Settings,
    tokenizer: &Arc<SharedTokenizer>,
    prompts: &Arc<Prompts>,
) -> Box<dyn FnOnce() -> Engine + Send> {
    let engine_cfg = settings.engine.clone();
    let tokenizer = tokenizer.clone();
    let prompts = prompts.clone();
    Box::new(move || {
        let tok = tokenizer.get();
        match loaded {
            Some(log) => {
                let LoadedLog {
                    header, records, ..
                } = log;
                let (engine, report) =
                    Engine::replay_owned(&header, records, engine_cfg, tok, prompts);
                for issue in &report.issues {
                    tracing::warn!(%issue, "replay");
                }
                engine
            }
            None => Engine::new(spec, engine_cfg, tok, prompts, chrono::Utc::now()),
        }
    })
}

/// The settings a session opened from disk has now: its header with its `settings`
/// records applied (the header alone holds those it was created with).
fn settings_now(opened: &Opened) -> Option<Header> {
    let loaded = opened.loaded.as_ref()?;
    let mut h = loaded.header.clone();
    for r in &loaded.records {
        h.apply_settings(&r.body);
    }
    Some(h)
}

/// What loading the session's log skipped or set aside, said once at start.
fn damage_banner(opened: &Opened) -> Option<Banner> {
    opened
        .loaded
        .as_ref()
        .filter(|l| !l.report.is_clean())
        .map(|l| {
            // Only a torn last line goes to a .corrupt file; skipped lines stay in the log.
            let hint = if l
                .report
                .torn_tail
                .as_ref()
                .is_some_and(|t| t.set_aside.is_some())
            {
                "Everything readable was loaded; the incomplete line was set aside (see the .corrupt file next to the session)."
            } else {
                "Everything readable was loaded; what could not be read stays in the file untouched."
            };
            Banner::new(
                Severity::Warn,
                format!("The session file was damaged: {}", words::load_report(&l.report)),
                hint,
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_quoting_its_source_is_not_followed_by_it_again() {
        let io = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let said = io.to_string();
        let e = anyhow::Error::new(StoreError::Io {
            path: "/data".into(),
            op: "open",
            source: io,
        })
        .context("cannot use the data directory /data");
        let text = error_text(&e);
        assert_eq!(text.matches(&said).count(), 1, "{text}");
        assert!(text.starts_with("cannot use the data directory /data: cannot open /data: "));
    }

    #[test]
    fn causes_that_add_something_are_kept() {
        let e = anyhow::anyhow!("disk full").context("cannot save the snapshot");
        assert_eq!(error_text(&e), "cannot save the snapshot: disk full");
    }
}
