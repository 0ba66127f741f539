//! Command line, config file and paths, resolved into one [`Settings`].
//!
//! Precedence: command-line flags, then environment (`OLLAMA_HOST`, `OLLM_HOME`,
//! `NO_COLOR`), then `$OLLM_HOME/config.toml`, then defaults. Every config key is
//! optional and documented in `assets/default-config.toml`. Unknown keys are an error
//! that names them: a typo should not silently fall back to a default.

use crate::core::budget::BudgetConfig;
use crate::core::engine::EngineConfig;
use crate::core::mode::Mode;
use crate::llm::{DEFAULT_HOST, EmbeddingChoice, OllamaOptions, parse_host};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod cli;
mod tools;

use cli::check_ctx;
pub use cli::{CTX_RANGE, Cli, Command, ExportFormat, MAX_RESERVE_TOKENS, ModeArg, SessionsAction};
pub use tools::{McpFileConfig, ToolSettings, ToolsFile};

/// Repeats of the same lines that stop a reply (`repeat_limit`), unless the config says
/// otherwise: the guard's own default (`launch`'s tests hold the two equal).
pub const DEFAULT_REPEAT_LIMIT: usize = 10;

/// The documented default config, shipped in the binary.
pub const DEFAULT_CONFIG: &str = include_str!("../../assets/default-config.toml");

/// `config.toml` as written: every key optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub host: Option<String>,
    pub model: Option<String>,
    pub ctx: Option<u32>,
    pub mode: Option<String>,
    pub temperature: Option<f32>,
    pub think: Option<crate::llm::Think>,
    pub summary_model: Option<String>,
    pub summary_host: Option<String>,
    pub compress_at: Option<f64>,
    pub fold_to: Option<f64>,
    pub reserve_tokens: Option<u32>,
    pub preserve_recent_tokens: Option<u32>,
    pub auto_snapshots: Option<bool>,
    pub keep_auto_snapshots: Option<usize>,
    pub first_token_timeout_secs: Option<u64>,
    pub idle_timeout_secs: Option<u64>,
    pub theme: Option<String>,
    pub ascii: Option<bool>,
    /// Capture the mouse for wheel scrolling (`false`: the terminal selects text).
    pub mouse: Option<bool>,
    /// Draw sent pictures as thumbnails where the terminal can (`false`: chips only).
    pub thumbnails: Option<bool>,
    pub paste_limit_kib: Option<usize>,
    /// A reply that repeats the same lines this many times in a row is stopped; 0: never.
    pub repeat_limit: Option<usize>,
    pub log_level: Option<String>,
    #[serde(default)]
    pub keys: BTreeMap<String, String>,
    #[serde(default)]
    pub tools: ToolsFile,
    /// `[mcp.NAME]`: MCP servers whose tools are offered beside the built-in ones.
    #[serde(default)]
    pub mcp: BTreeMap<String, McpFileConfig>,
    /// `[recall]`: how folded lines are found again.
    #[serde(default)]
    pub recall: RecallFileConfig,
}

/// `[recall]` as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallFileConfig {
    /// `"auto"` (the default): an installed embedding model, if any; `"off"`: by words
    /// alone; else the name of the embedding model to use.
    pub embedding_model: Option<String>,
}

impl RecallFileConfig {
    /// The choice the actor gets.
    pub fn embedding(&self) -> EmbeddingChoice {
        match self.embedding_model.as_deref().map(str::trim) {
            None | Some("" | "auto") => EmbeddingChoice::Auto,
            Some("off") => EmbeddingChoice::Off,
            Some(name) => EmbeddingChoice::Named(name.to_string()),
        }
    }
}

/// A config problem, naming the file and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("cannot find your home directory; set OLLM_HOME to where ollm-tui may keep its data")]
    NoHome,
}

/// Everything resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub data_dir: PathBuf,
    pub host: String,
    /// Where the host came from, for messages ("--host", "OLLAMA_HOST", "config", "default").
    pub host_source: &'static str,
    pub model: Option<String>,
    pub ctx: Option<u32>,
    pub mode: Option<Mode>,
    pub temperature: Option<f32>,
    /// `think` for thinking models; `None`: the model's own default.
    pub think: Option<crate::llm::Think>,
    /// The model that writes summaries; `None`: the chat model.
    pub summary_model: Option<String>,
    /// The summary model's server (normalized); `None`: the chat server.
    pub summary_host: Option<String>,
    pub engine: EngineConfig,
    pub keep_auto_snapshots: usize,
    pub ollama: OllamaOptions,
    pub theme: String,
    pub ascii: bool,
    /// Capture the mouse at start (the wheel scrolls); `false`: the terminal's selection.
    pub mouse: bool,
    /// Thumbnails of sent pictures where the terminal draws images (default true).
    pub thumbnails: bool,
    pub no_color: bool,
    pub paste_limit_bytes: usize,
    /// Repeats of the same lines that stop a reply (the repetition guard); 0: never.
    pub repeat_limit: usize,
    pub log_level: String,
    pub keys: BTreeMap<String, String>,
    pub tools: ToolSettings,
    /// Which model makes the vectors of recall by meaning (`[recall] embedding_model`).
    pub embedding: EmbeddingChoice,
}

/// The data directory: `OLLM_HOME` if set, else `~/.ollm`.
pub fn data_dir(ollm_home: Option<&str>) -> Result<PathBuf, ConfigError> {
    if let Some(h) = ollm_home.filter(|h| !h.trim().is_empty()) {
        return Ok(PathBuf::from(h));
    }
    directories::BaseDirs::new()
        .map(|b| b.home_dir().join(".ollm"))
        .ok_or(ConfigError::NoHome)
}

/// Parse a config file's text.
pub fn parse_file_config(text: &str, path: &Path) -> Result<FileConfig, ConfigError> {
    let cfg: FileConfig = toml::from_str(text).map_err(|e| ConfigError::Invalid {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    if let Some(c) = cfg.ctx {
        check_ctx(c).map_err(|e| invalid(format!("ctx = {c}: {e}")))?;
    }
    if let Some(r) = cfg.reserve_tokens
        && r > MAX_RESERVE_TOKENS
    {
        return Err(invalid(format!(
            "reserve_tokens = {r}: at most {MAX_RESERVE_TOKENS} (0 = follow reply lengths)"
        )));
    }
    for (key, value) in [
        ("first_token_timeout_secs", cfg.first_token_timeout_secs),
        ("idle_timeout_secs", cfg.idle_timeout_secs),
    ] {
        if value == Some(0) {
            return Err(invalid(format!(
                "{key} = 0: every request would time out at once; use at least 1"
            )));
        }
    }
    if cfg.repeat_limit == Some(1) {
        return Err(invalid(
            "repeat_limit = 1: a line said once is no repetition; use 2 or more (0 turns the guard off)"
                .into(),
        ));
    }
    if let Some(c) = cfg.compress_at
        && !(0.1..=0.95).contains(&c)
    {
        return Err(invalid(format!(
            "compress_at = {c}: use a value between 0.1 and 0.95"
        )));
    }
    let compress_at = cfg
        .compress_at
        .unwrap_or(BudgetConfig::default().compress_at);
    if let Some(f) = cfg.fold_to
        && !(0.1..compress_at).contains(&f)
    {
        return Err(invalid(format!(
            "fold_to = {f}: use a value from 0.1 up to below compress_at ({compress_at})"
        )));
    }
    if let Some(m) = &cfg.mode {
        m.parse::<Mode>().map_err(|e| invalid(e.to_string()))?;
    }
    if let Some(h) = &cfg.host {
        parse_host(h).map_err(|e| invalid(format!("host: {e}")))?;
    }
    if let Some(h) = cfg.summary_host.as_deref().filter(|h| !h.trim().is_empty()) {
        parse_host(h).map_err(|e| invalid(format!("summary_host: {e}")))?;
    }
    Ok(cfg)
}

/// The environment the settings depend on (passed in, so tests need not mutate it).
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub ollm_home: Option<String>,
    pub ollama_host: Option<String>,
    pub no_color: bool,
    /// LANG / LC_ALL / LC_CTYPE, to guess whether the terminal does UTF-8.
    pub locale: Option<String>,
}

impl Env {
    pub fn from_process() -> Env {
        let var = |k: &str| std::env::var(k).ok();
        Env {
            ollm_home: var("OLLM_HOME"),
            ollama_host: var("OLLAMA_HOST"),
            no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            locale: var("LC_ALL")
                .filter(|v| !v.is_empty())
                .or_else(|| var("LC_CTYPE").filter(|v| !v.is_empty()))
                .or_else(|| var("LANG")),
        }
    }
}

/// Resolve flags, environment and config file into settings.
pub fn resolve(cli: &Cli, env: &Env) -> Result<Settings, ConfigError> {
    let data_dir = data_dir(env.ollm_home.as_deref())?;
    let path = cli
        .config
        .clone()
        .unwrap_or_else(|| data_dir.join("config.toml"));
    // The data folder's own config follows no link out of it; one named with `--config`
    // is the person's to point anywhere (still never a FIFO or a device).
    let root = cli.config.is_none().then_some(data_dir.as_path());
    let file = match crate::small_file::read_to_string(&path, root, crate::small_file::SETTINGS) {
        Ok(text) => parse_file_config(&text, &path)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && cli.config.is_none() => {
            FileConfig::default()
        }
        Err(source) => return Err(ConfigError::Read { path, source }),
    };
    resolve_with(cli, env, file, data_dir, &path)
}

/// [`resolve`] with the file already read.
pub fn resolve_with(
    cli: &Cli,
    env: &Env,
    file: FileConfig,
    data_dir: PathBuf,
    path: &Path,
) -> Result<Settings, ConfigError> {
    let (raw_host, host_source) = if let Some(h) = &cli.host {
        (h.clone(), "--host")
    } else if let Some(h) = env.ollama_host.as_ref().filter(|h| !h.trim().is_empty()) {
        (h.clone(), "OLLAMA_HOST")
    } else if let Some(h) = &file.host {
        (h.clone(), "config")
    } else {
        (DEFAULT_HOST.to_string(), "default")
    };
    let host = parse_host(&raw_host).map_err(|e| ConfigError::Invalid {
        path: PathBuf::from(host_source),
        message: e.to_string(),
    })?;
    let summary_host = match (&cli.summary_host, &file.summary_host) {
        (Some(h), _) => Some((h.as_str(), "--summary-host")),
        (None, Some(h)) => Some((h.as_str(), "config")),
        (None, None) => None,
    }
    .filter(|(h, _)| !h.trim().is_empty())
    .map(|(h, source)| {
        parse_host(h).map_err(|e| ConfigError::Invalid {
            path: PathBuf::from(source),
            message: format!("summary host: {e}"),
        })
    })
    .transpose()?
    .filter(|h| *h != host);
    let mode = match cli.mode {
        Some(m) => Some(m.into()),
        None => file
            .mode
            .as_deref()
            .map(str::parse::<Mode>)
            .transpose()
            .map_err(|e| ConfigError::Invalid {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?,
    };
    let tools = tools::resolve(cli, &file.tools, &file.mcp, path)?;
    let defaults = BudgetConfig::default();
    let engine = EngineConfig {
        budget: BudgetConfig {
            compress_at: file.compress_at.unwrap_or(defaults.compress_at),
            reserve_tokens: file.reserve_tokens.filter(|r| *r > 0),
            preserve_recent_tokens: file
                .preserve_recent_tokens
                .unwrap_or(defaults.preserve_recent_tokens),
            min_free_fraction: defaults.min_free_fraction,
            fold_to: file.fold_to.unwrap_or(defaults.fold_to),
        },
        auto_snapshots: file.auto_snapshots.unwrap_or(true),
        tool_rounds: tools.rounds,
        whole_results: tools.results == tools::ResultsMode::Whole,
        digest_results: tools.results == tools::ResultsMode::Summarize,
        digest_max_secs: tools.digest_max_secs,
    };
    let ollama_defaults = OllamaOptions::default();
    let utf8 = env
        .locale
        .as_deref()
        .is_none_or(|l| l.is_empty() || l.to_ascii_lowercase().replace('-', "").contains("utf8"));
    Ok(Settings {
        data_dir,
        host,
        host_source,
        model: cli
            .model
            .clone()
            .or_else(|| cli.model_word().map(str::to_string))
            .or(file.model)
            .filter(|m| !m.trim().is_empty()),
        // 0 is automatic wherever it is given; the flag's 0 overrides the file's size.
        ctx: cli.ctx.or(file.ctx).filter(|c| *c > 0),
        mode,
        temperature: file.temperature,
        think: cli.think.or(file.think),
        summary_model: cli
            .summary_model
            .clone()
            .or(file.summary_model)
            .filter(|m| !m.trim().is_empty()),
        summary_host,
        engine,
        keep_auto_snapshots: file.keep_auto_snapshots.unwrap_or(5),
        ollama: OllamaOptions {
            first_token_timeout: file
                .first_token_timeout_secs
                .map_or(ollama_defaults.first_token_timeout, Duration::from_secs),
            idle_timeout: file
                .idle_timeout_secs
                .map_or(ollama_defaults.idle_timeout, Duration::from_secs),
            ..ollama_defaults
        },
        theme: cli
            .theme
            .clone()
            .or(file.theme)
            .unwrap_or_else(|| "dark".into()),
        ascii: file.ascii.unwrap_or(!utf8),
        mouse: file.mouse.unwrap_or(true),
        thumbnails: file.thumbnails.unwrap_or(true),
        no_color: env.no_color,
        paste_limit_bytes: file.paste_limit_kib.unwrap_or(1024).max(1) * 1024,
        repeat_limit: file.repeat_limit.unwrap_or(DEFAULT_REPEAT_LIMIT),
        log_level: file.log_level.unwrap_or_else(|| "info".into()),
        keys: file.keys,
        tools,
        embedding: file.recall.embedding(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::tools::{Policy, ToolMode};
    use clap::Parser;

    fn cli(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("ollm-tui").chain(args.iter().copied())).unwrap()
    }

    fn settings(args: &[&str], env: Env, file: &str) -> Settings {
        let f = parse_file_config(file, Path::new("c.toml")).unwrap();
        resolve_with(
            &cli(args),
            &env,
            f,
            PathBuf::from("/d"),
            Path::new("c.toml"),
        )
        .unwrap()
    }

    #[test]
    fn think_comes_from_the_flag_then_the_file_else_the_model() {
        use crate::llm::Think;
        assert_eq!(settings(&[], Env::default(), "").think, None);
        assert_eq!(
            settings(&[], Env::default(), "think = \"low\"").think,
            Some(Think::Low)
        );
        assert_eq!(
            settings(&["--think", "off"], Env::default(), "think = \"high\"").think,
            Some(Think::Off)
        );
        assert!(parse_file_config("think = \"maybe\"", Path::new("c.toml")).is_err());
        assert!(Cli::try_parse_from(["ollm-tui", "--think", "lots"]).is_err());
    }

    #[test]
    fn zero_means_automatic_everywhere_and_what_cannot_work_is_refused() {
        // ctx 0: automatic in the file and on the command line, and the flag's 0 wins.
        assert_eq!(settings(&[], Env::default(), "ctx = 0").ctx, None);
        assert_eq!(
            settings(&["--ctx", "0"], Env::default(), "ctx = 8192").ctx,
            None
        );
        assert_eq!(
            settings(&["--ctx", "4096"], Env::default(), "ctx = 0").ctx,
            Some(4096)
        );
        assert!(Cli::try_parse_from(["ollm-tui", "--ctx", "100"]).is_err());
        let refused = |text: &str, key: &str| {
            let err = parse_file_config(text, Path::new("c.toml"))
                .unwrap_err()
                .to_string();
            assert!(err.contains("c.toml") && err.contains(key), "{text}: {err}");
        };
        refused("ctx = 100", "ctx");
        refused("first_token_timeout_secs = 0", "first_token_timeout_secs");
        refused("idle_timeout_secs = 0", "idle_timeout_secs");
        refused("reserve_tokens = 999999999", "reserve_tokens");
        refused("repeat_limit = 1", "repeat_limit");
        // The edges that work are accepted.
        for ok in [
            "ctx = 512",
            "reserve_tokens = 0",
            "reserve_tokens = 524288",
            "repeat_limit = 0",
        ] {
            assert!(parse_file_config(ok, Path::new("c.toml")).is_ok(), "{ok}");
        }
        // The repetition guard: on by default, off with 0.
        assert_eq!(
            settings(&[], Env::default(), "").repeat_limit,
            DEFAULT_REPEAT_LIMIT
        );
        assert_eq!(
            settings(&[], Env::default(), "repeat_limit = 0").repeat_limit,
            0
        );
    }

    #[test]
    fn summary_model_and_host_flag_over_file_and_unset_means_the_chat_server() {
        let s = settings(&[], Env::default(), "");
        assert_eq!((s.summary_model, s.summary_host), (None, None));
        let file = "summary_model = \"qwen2.5:0.5b\"\nsummary_host = \":7000\"";
        let s = settings(&[], Env::default(), file);
        assert_eq!(s.summary_model.as_deref(), Some("qwen2.5:0.5b"));
        assert_eq!(s.summary_host.as_deref(), Some("http://127.0.0.1:7000"));
        let s = settings(
            &["--summary-model", "small", "--summary-host", "box:9"],
            Env::default(),
            file,
        );
        assert_eq!(s.summary_model.as_deref(), Some("small"));
        assert_eq!(s.summary_host.as_deref(), Some("http://box:9"));
        // The chat server named again is the chat server: one backend.
        let s = settings(&["--host", ":7000"], Env::default(), file);
        assert_eq!(s.summary_host, None);
        // Empty values mean unset, as documented.
        let s = settings(
            &[],
            Env::default(),
            "summary_model = \"\"\nsummary_host = \"\"",
        );
        assert_eq!((s.summary_model, s.summary_host), (None, None));
        // A bad address is refused, named.
        let err = parse_file_config("summary_host = \"host:notaport\"", Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("summary_host"), "{err}");
    }

    #[test]
    fn the_documented_default_config_parses_to_defaults() {
        let f = parse_file_config(DEFAULT_CONFIG, Path::new("default")).unwrap();
        assert_eq!(f, FileConfig::default());
        // Uncommented, every documented key is accepted.
        let uncommented: String = DEFAULT_CONFIG
            .lines()
            .map(|l| {
                l.strip_prefix("# ")
                    .filter(|r| {
                        r.split_once(" = ").is_some_and(|(k, _)| {
                            k.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                        }) || r.starts_with('[')
                    })
                    .unwrap_or("")
            })
            .map(|l| l.split("  #").next().unwrap_or("").trim_end().to_string() + "\n")
            .collect();
        let f = parse_file_config(&uncommented, Path::new("uncommented")).unwrap();
        assert_eq!(f.compress_at, Some(0.95));
        assert_eq!(f.keys.get("snapshot").map(String::as_str), Some("ctrl+s"));
        assert_eq!(f.tools.mode, Some(ToolMode::Ask));
        assert_eq!(f.tools.policy.get("run_command"), Some(&Policy::Ask));
    }

    #[test]
    fn the_embedding_model_is_automatic_off_or_named() {
        let choice = |text: &str| settings(&[], Env::default(), text).embedding;
        assert_eq!(choice(""), EmbeddingChoice::Auto);
        assert_eq!(
            choice("[recall]\nembedding_model = \"auto\""),
            EmbeddingChoice::Auto
        );
        assert_eq!(
            choice("[recall]\nembedding_model = \"off\""),
            EmbeddingChoice::Off
        );
        assert_eq!(
            choice("[recall]\nembedding_model = \"nomic-embed-text\""),
            EmbeddingChoice::Named("nomic-embed-text".into())
        );
        assert!(parse_file_config("[recall]\nembedings = \"off\"", Path::new("c.toml")).is_err());
    }

    #[test]
    fn host_precedence_flag_env_file_default() {
        let env = Env {
            ollama_host: Some(":9999".into()),
            ..Env::default()
        };
        let s = settings(&["--host", "box:1234"], env.clone(), "host = \"other:1\"");
        assert_eq!(
            (s.host.as_str(), s.host_source),
            ("http://box:1234", "--host")
        );
        let s = settings(&[], env, "host = \"other:1\"");
        assert_eq!(
            (s.host.as_str(), s.host_source),
            ("http://127.0.0.1:9999", "OLLAMA_HOST")
        );
        let s = settings(&[], Env::default(), "host = \"other:1\"");
        assert_eq!(
            (s.host.as_str(), s.host_source),
            ("http://other:1", "config")
        );
        let s = settings(&[], Env::default(), "");
        assert_eq!((s.host.as_str(), s.host_source), (DEFAULT_HOST, "default"));
    }

    #[test]
    fn flags_win_over_the_file() {
        let s = settings(
            &[
                "--model",
                "qwen:0.5b",
                "--ctx",
                "4096",
                "--mode",
                "debugger",
            ],
            Env::default(),
            "model = \"llama3.2\"\nctx = 16384\nmode = \"planning\"\ncompress_at = 0.7",
        );
        assert_eq!(s.model.as_deref(), Some("qwen:0.5b"));
        assert_eq!(s.ctx, Some(4096));
        assert_eq!(s.mode, Some(Mode::Debugger));
        assert_eq!(s.engine.budget.compress_at, 0.7);
    }

    #[test]
    fn bad_config_is_refused_with_the_key() {
        for (text, needle) in [
            ("modle = \"x\"", "modle"),
            ("compress_at = 2.0", "compress_at"),
            ("mode = \"poet\"", "poet"),
            ("ctx = \"big\"", "ctx"),
        ] {
            let err = parse_file_config(text, Path::new("c.toml"))
                .unwrap_err()
                .to_string();
            assert!(err.contains(needle) && err.contains("c.toml"), "{err}");
        }
    }

    #[test]
    fn resume_takes_an_optional_id() {
        assert_eq!(cli(&["--resume"]).resume.as_deref(), Some(""));
        assert_eq!(cli(&["--resume", "abc"]).resume.as_deref(), Some("abc"));
        assert_eq!(cli(&[]).resume, None);
        assert!(Cli::try_parse_from(["ollm-tui", "--ctx", "10"]).is_err());
        assert!(Cli::try_parse_from(["ollm-tui", "--mode", "poet"]).is_err());
    }

    #[test]
    fn subcommands() {
        match cli(&["export", "abc", "--format", "json"]).command {
            Some(Command::Export { id, format, .. }) => {
                assert_eq!(id, "abc");
                assert_eq!(format, ExportFormat::Json);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            cli(&["sessions"]).command,
            Some(Command::Sessions { action: None })
        ));
        match cli(&["sessions", "rename", "abc", "Infra", "notes"]).command {
            Some(Command::Sessions {
                action: Some(SessionsAction::Rename { id, title }),
            }) => {
                assert_eq!(id, "abc");
                assert_eq!(title.join(" "), "Infra notes");
            }
            other => panic!("{other:?}"),
        }
        match cli(&["search", "cache", "port", "--limit", "5"]).command {
            Some(Command::Search { text, limit }) => {
                assert_eq!(text.join(" "), "cache port");
                assert_eq!(limit, 5);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn data_dir_and_ascii_from_env() {
        assert_eq!(data_dir(Some("/x/y")).unwrap(), PathBuf::from("/x/y"));
        let s = settings(
            &[],
            Env {
                locale: Some("C".into()),
                ..Env::default()
            },
            "",
        );
        assert!(s.ascii);
        let s = settings(
            &[],
            Env {
                locale: Some("en_US.UTF-8".into()),
                ..Env::default()
            },
            "",
        );
        assert!(!s.ascii);
        let s = settings(
            &[],
            Env {
                no_color: true,
                ..Env::default()
            },
            "",
        );
        assert!(s.no_color);
    }
}
