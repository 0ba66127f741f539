//! What a run needs before it starts: the data directory, logging, the servers, the
//! prompts, the model word checked, whether stdin brings a message; and the chat's refusal
//! without a terminal, said before the terminal changes.

use anyhow::{Context, Result, bail};
use ollm_tui::config::{Cli, Settings};
use ollm_tui::core::prompts::Prompts;
use ollm_tui::llm::OllamaBackend;
use ollm_tui::store::DataDir;

pub fn data_dir(root: &std::path::Path) -> Result<DataDir> {
    DataDir::new(root).with_context(|| {
        format!(
            "cannot use the data directory {} (set OLLM_HOME to change it)",
            root.display()
        )
    })
}

/// File-only logging (the TUI owns the terminal): daily files under `logs/`.
pub fn init_logging(
    dir: &DataDir,
    level: &str,
) -> Option<tracing_appender::non_blocking::WorkerGuard> {
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

/// `ollm-tui WORD`: refuse a word that is neither a subcommand nor a model the server
/// has, before the terminal is touched (see `model_word`).
pub fn check_model_word(backend: &OllamaBackend, word: &str) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let verdict = runtime.block_on(ollm_tui::model_word::check(backend, word));
    match ollm_tui::model_word::refusal(word, &verdict) {
        Some(why) => bail!("{why}"),
        None => Ok(()),
    }
}

/// The first word on the command line, when the person meant it as the start of the
/// message: with text to send (a pipe, more words) or a session to go on with (`--resume`),
/// a plain word the server has no model by (`model_word::reads_as_prompt`). Returns the
/// command line with that word moved into the prompt (the caller says so, naming the
/// model that answers); `None` when
/// the word stays what it was (a model, or a typo refused later with the installed ones).
pub fn word_as_prompt(cli: &Cli, settings: &Settings, piped: bool) -> Result<Option<Cli>> {
    let Some(word) = cli.model_word() else {
        return Ok(None);
    };
    if !(piped || !cli.prompt_words.is_empty() || cli.resume.is_some()) {
        return Ok(None);
    }
    let (backend, _) = backends(settings)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let verdict = runtime.block_on(ollm_tui::model_word::check(&backend, word));
    let ollm_tui::model_word::Verdict::Missing { installed } = verdict else {
        return Ok(None);
    };
    if !ollm_tui::model_word::reads_as_prompt(word, &installed) {
        return Ok(None);
    }
    let mut words = vec![word.to_string()];
    words.extend(cli.prompt_words.iter().cloned());
    Ok(Some(Cli {
        model_word: None,
        prompt_words: words,
        ..cli.clone()
    }))
}

/// Whether stdin brings text: a pipe, a redirected file or a socket. A terminal is the
/// chat's, and /dev/null (or a closed stdin) brings nothing.
pub fn stdin_is_input() -> bool {
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
pub fn backends(settings: &Settings) -> Result<(OllamaBackend, Option<OllamaBackend>)> {
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
pub fn load_prompts(dir: &DataDir) -> Result<Prompts> {
    let path = dir.root().join("prompts.toml");
    Ok(
        match ollm_tui::small_file::read_to_string(
            &path,
            Some(dir.root()),
            ollm_tui::small_file::SETTINGS,
        ) {
            Ok(text) => Prompts::with_overrides(&text).context("in prompts.toml")?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Prompts::builtin(),
            Err(e) => return Err(e).context("prompts.toml cannot be read"),
        },
    )
}

/// The chat draws on a terminal and reads keys from one.
pub fn refuse_without_terminal() -> Result<()> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        bail!(
            "the chat needs a terminal: stdin and stdout must be a TTY (to read a session \
             from a script, use `ollm-tui export ID`)"
        );
    }
    Ok(())
}
