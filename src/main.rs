//! `ollm-tui`: parse arguments and hand the run to the chat, one message without the TUI,
//! or a subcommand; their parts are in `binary/`. Everything else lives in the library.

mod binary;

use anyhow::Result;
use binary::errors::error_text;
use binary::subcommands::{export, list_sessions, manual, remove_session, rename_session, search};
use binary::{
    chat::chat,
    one_shot::one_shot,
    setup::{stdin_is_input, word_as_prompt},
};
use clap::Parser;
use ollm_tui::config::{self, Cli, Command, Env, SessionsAction};
use std::io::Write;
use std::process::ExitCode;

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
        let mut settings = config::resolve(&cli, &env)?;
        let piped = stdin_is_input();
        // `cat notes | ollm-tui summarize`: the word was the message, not a model.
        let cli = match word_as_prompt(&cli, &settings, piped)? {
            Some(reread) => {
                settings = config::resolve(&reread, &env)?;
                eprintln!(
                    "ollm-tui: {:?} is not an installed model: it was sent as the start of the \
                     message, to {} (to name a model: -m NAME)",
                    reread.prompt_words[0],
                    settings
                        .model
                        .as_deref()
                        .unwrap_or("the newest installed model")
                );
                reread
            }
            None => cli,
        };
        // A prompt, or text on stdin, is one message answered on stdout (as `ollama run
        // MODEL PROMPT` does), not a chat.
        if cli.prompt().is_some() || piped {
            return one_shot(&cli, settings, piped);
        }
        if cli.no_save {
            anyhow::bail!(
                "--no-save is for one message (a prompt, or text piped in); a chat is always kept"
            );
        }
        return chat(&cli, settings, usual_umask);
    };
    // The manual is built in: it needs neither the data directory nor the config.
    if let Command::Help { topic } = command {
        return manual(topic.as_deref());
    }
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
        // Answered above, before the data directory; here for the match to be whole.
        Command::Help { topic } => manual(topic.as_deref()),
    }
}
