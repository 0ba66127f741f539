//! The command line: flags, subcommands, and the checks on their values.

use crate::core::mode::Mode;
use crate::core::read_through::LongInput;
use crate::tools::ToolMode;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Clone, Parser)]
#[command(
    name = "ollm-tui",
    version,
    // `help` is ours: the manual's topics (`ollm-tui help tools`); `--help` stays clap's.
    disable_help_subcommand = true,
    about = "Chat with local Ollama models; long conversations are compressed, never lost.",
    override_usage = "ollm-tui [OPTIONS] [MODEL] [PROMPT]...\n       ollm-tui [OPTIONS] <COMMAND>",
    after_help = "One message without the TUI: ollm-tui [MODEL] PROMPT, or pipe text in \
                  (git diff | ollm-tui \"write a commit message\"); the reply goes to stdout, the \
                  exchange is kept as a session.\n\
                  Keys: Enter send · Alt+Enter newline · Esc stop · Ctrl+S snapshot · Ctrl+R restore · \
                  F7 compress · Ctrl+G goals · Ctrl+L models · F1 or ? help · Ctrl+Q quit\n\
                  In the chat: /new (or /clear) a fresh session, the old one kept · /system TEXT · \
                  /set temperature 0.2 (top_p, seed, num_predict) · /fork · /bye · /help lists them all\n\
                  The manual, offline: ollm-tui help TOPIC (tools, sessions, compression, \
                  configuration, …); ollm-tui help lists the topics.\n\
                  Data: $OLLM_HOME (default ~/.ollm). Server: --host, else $OLLAMA_HOST, else http://127.0.0.1:11434."
)]
pub struct Cli {
    /// Ollama server: URL, host:port or :port [default: $OLLAMA_HOST or http://127.0.0.1:11434]
    #[arg(long, value_name = "URL")]
    pub host: Option<String>,
    /// Model to chat with [default: config, else the session's, else the newest installed]
    #[arg(long, short, value_name = "NAME")]
    pub model: Option<String>,
    /// Context size (num_ctx) sent on every request; 0 = automatic [default: what the
    /// server loaded the model with, else the model's, capped at 8192]
    #[arg(long, value_name = "TOKENS", value_parser = parse_ctx)]
    pub ctx: Option<u32>,
    /// The model that writes summaries [default: config, else the chat model]
    #[arg(long, value_name = "NAME")]
    pub summary_model: Option<String>,
    /// The server of the summary model [default: config, else the chat server]
    #[arg(long, value_name = "URL")]
    pub summary_host: Option<String>,
    /// Resume a session: the one you last used, or the one with this id (a unique prefix
    /// is enough)
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,
    /// What the conversation is about; shapes the summaries
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Colour theme: dark, light, high-contrast, or a file in $OLLM_HOME/themes
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
    /// Read this config file instead of $OLLM_HOME/config.toml
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Tools the model may use: off, read (only reading tools), ask (writing and commands
    /// ask first), auto (nothing asks) [default: config, else ask]
    #[arg(long, value_enum, value_name = "MODE")]
    pub tools: Option<ToolMode>,
    /// The directory tools work in; nothing outside it can be read or written [default:
    /// the current directory]
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
    /// One message (a prompt or a pipe) not kept as a session: nothing of the exchange is
    /// written to disk
    #[arg(long, conflicts_with = "resume")]
    pub no_save: bool,
    /// A system prompt for the new session (a prompt, a pipe or a chat), as /system sets
    /// one: sent after the app's own instructions
    #[arg(long, value_name = "TEXT", conflicts_with = "resume")]
    pub system: Option<String>,
    /// Piped input longer than the model's context: read (the model reads it in parts and
    /// answers from its notes), clip (its start and end), auto (read when that takes
    /// under [tools] digest_max_secs) [default: auto]
    #[arg(long, value_enum, value_name = "HOW")]
    pub long_input: Option<LongInputArg>,
    /// How much a thinking model reasons: on, off, low, medium, high [default: config,
    /// else the model's own]
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub think: Option<crate::llm::Think>,
    /// The model, as `ollama run MODEL` takes it (a subcommand's name wins; with -m this
    /// word is the first of the prompt)
    #[arg(value_name = "MODEL")]
    pub model_word: Option<String>,
    /// Send this one message, print the reply to stdout and exit: no TUI (also when
    /// stdin is piped or redirected: its text is attached to the prompt)
    #[arg(value_name = "PROMPT", trailing_var_arg = true)]
    pub prompt_words: Vec<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// The model named by the first word, as `ollama run MODEL` takes it: none when -m
    /// names it (the word starts the prompt then) or when the word holds a space (a
    /// model's name never does, so it is a prompt).
    pub fn model_word(&self) -> Option<&str> {
        let word = self.model_word.as_deref()?;
        (self.model.is_none() && !word.chars().any(char::is_whitespace)).then_some(word)
    }

    /// The prompt given on the command line (its words joined by spaces), if any.
    pub fn prompt(&self) -> Option<String> {
        let first = self
            .model_word
            .as_deref()
            .filter(|_| self.model_word().is_none());
        let words: Vec<&str> = first
            .into_iter()
            .chain(self.prompt_words.iter().map(String::as_str))
            .collect();
        (!words.is_empty()).then(|| words.join(" "))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    Assistant,
    Developer,
    Planning,
    Debugger,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Assistant => Mode::Assistant,
            ModeArg::Developer => Mode::Developer,
            ModeArg::Planning => Mode::Planning,
            ModeArg::Debugger => Mode::Debugger,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LongInputArg {
    Auto,
    Read,
    Clip,
}

impl From<LongInputArg> for LongInput {
    fn from(a: LongInputArg) -> LongInput {
        match a {
            LongInputArg::Auto => LongInput::Auto,
            LongInputArg::Read => LongInput::Read,
            LongInputArg::Clip => LongInput::Clip,
        }
    }
}

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// List saved sessions, newest first (or rename / delete one)
    Sessions {
        #[command(subcommand)]
        action: Option<SessionsAction>,
    },
    /// Find a text in every message of every session (folded ones too)
    Search {
        /// The text, case-insensitive (several words are one phrase)
        #[arg(required = true, num_args = 1..)]
        text: Vec<String>,
        /// At most this many hits
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Write a session as Markdown or JSON (to stdout, or --output FILE)
    Export {
        /// Session id (a unique prefix is enough)
        id: String,
        #[arg(long, value_enum, default_value_t = ExportFormat::Md)]
        format: ExportFormat,
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Print the documented default config file
    DefaultConfig,
    /// Print a topic of the manual: ollm-tui help TOPIC (alone: the topics)
    Help {
        /// The topic: its name, an alias or the start of one (comp, config, approval)
        topic: Option<String>,
    },
}

#[derive(Debug, Clone, Subcommand)]
pub enum SessionsAction {
    /// Move a session (log, snapshots, saved results, exports) to the trash
    Rm {
        /// Session id (a unique prefix is enough)
        id: String,
    },
    /// Give a session a title (an empty one goes back to its first message)
    Rename {
        /// Session id (a unique prefix is enough)
        id: String,
        /// The new title (several words are one title)
        #[arg(num_args = 0..)]
        title: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Md,
    Json,
}

/// Context sizes a request may use; 0 means automatic, everywhere (flag, file, `/ctx`).
pub const CTX_RANGE: std::ops::RangeInclusive<u32> = 512..=1_048_576;

/// The largest reply reserve worth asking for: half the largest context (a reserve is
/// never more than half of the context in use anyway).
pub const MAX_RESERVE_TOKENS: u32 = *CTX_RANGE.end() / 2;

/// `--ctx`: 0 (automatic) or a size in [`CTX_RANGE`].
fn parse_ctx(arg: &str) -> Result<u32, String> {
    let n: u32 = arg
        .trim()
        .parse()
        .map_err(|_| format!("{arg:?} is not a number of tokens"))?;
    check_ctx(n)
}

pub(super) fn check_ctx(n: u32) -> Result<u32, String> {
    if n == 0 || CTX_RANGE.contains(&n) {
        Ok(n)
    } else {
        Err(format!(
            "{n} is not a context size: use 0 (automatic) or {} to {}",
            CTX_RANGE.start(),
            CTX_RANGE.end()
        ))
    }
}
