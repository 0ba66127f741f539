//! The tools a request offers, and what their schemas cost.
//!
//! A tool's schema rides on every request that offers it: the nine built-in ones came to
//! about 950 tokens, nearly half of a 2K window, on every request of a chat that never
//! used a tool. So they are a fixed cost of their own in the budget, counted from the JSON
//! the request carries (never left for the calibration ratio to absorb, which then read
//! our own miscount as the server truncating), and the offer is kept small:
//!
//! - the workspace tools (files and commands) are offered once the conversation turns to
//!   the workspace — the person names a file or path, pastes code, speaks of files,
//!   folders, scripts or commands, or a tool has run — and from then on, or always in the
//!   developer and debugger modes. A dinner plan does not need `edit_file`: offered it,
//!   the real 0.5B model answered "dinner at mine on saturday" with a call to read
//!   `path/to/dinner.txt` five times out of five, and in words once it was not offered;
//! - a tool whose use depends on the conversation is offered only while the conversation
//!   has what it works on: reading back a shortened result (`recall`) while one is in
//!   view, searching folded history (`search_history`) once something is folded, closing
//!   a task (`task_done`) while tool results are in view;
//! - the rest are offered in the order given while what every request carries before the
//!   conversation — system prompt, goal board, tool schemas — stays within
//!   [`FIXED_SHARE`] of the window; what does not fit is left out and said (the panel
//!   names it).
//!
//! The offer is runtime state (what the server's model can do, which MCP servers run),
//! not part of the log: the actor hands it in after connecting and whenever it changes.

use super::Engine;
use crate::core::message::Role;
use crate::core::mode::Mode;

/// Share of the window the fixed costs (system prompt, goal board, tool schemas) may take
/// together: the rest is the conversation's, its memory's and the reply's.
pub const FIXED_SHARE: f64 = 0.25;
/// Tokens a chat template spends introducing the tools (how to call them) beside their
/// definitions; the calibration takes in what a model's template adds beyond it.
pub const TOOLS_PREAMBLE_TOKENS: u32 = 64;

/// When a tool is worth its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Whenever tools are offered.
    Always,
    /// Once the conversation is about the workspace (see the module docs).
    Workspace,
    /// While a shortened tool result is in view (it names the id to read back).
    ShortenedResult,
    /// Once part of the conversation is folded.
    Folded,
    /// While tool calls and results are in view (a task under way).
    ToolsInUse,
}

/// A tool the actor can offer: its name, its schema as the request carries it (JSON),
/// and when it is worth offering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOffer {
    pub name: String,
    pub schema: String,
    pub need: Need,
}

/// An offer with its schema's count.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Counted {
    offer: ToolOffer,
    raw: u32,
}

/// What the next request offers, and what it leaves out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolsOffered {
    /// Names, in the order offered.
    pub offered: Vec<String>,
    /// Raw tokens of their schemas and the template's preamble (0 when none is offered).
    pub raw: u32,
    /// Tools the window has no room for now (not those waiting for their need).
    pub left_out: Vec<String>,
    /// Workspace tools held back until the conversation turns to files, code or commands.
    pub waiting: Vec<String>,
}

impl Engine {
    /// The tools the actor can offer (empty: none, e.g. a model without the `tools`
    /// capability), each counted once.
    pub(super) fn set_tools(&mut self, offers: Vec<ToolOffer>) {
        self.tools = offers
            .into_iter()
            .map(|offer| Counted {
                raw: self.tok.count(&offer.schema),
                offer,
            })
            .collect();
        self.refresh_offer();
    }

    /// What the next request offers (see the module docs).
    pub fn tools_offered(&self) -> &ToolsOffered {
        &self.offer
    }

    /// Decide the offer again: the state it depends on changed (a record, the window, the
    /// system prompt or the goal board).
    pub(super) fn refresh_offer(&mut self) {
        if self.replaying {
            return;
        }
        let mut out = ToolsOffered::default();
        if self.tools.is_empty() {
            self.offer = out;
            return;
        }
        let shortened = !self.reduced.is_empty()
            || self.active.messages().iter().any(|e| {
                e.role == Role::Tool
                    && self
                        .history
                        .get(e.id)
                        .and_then(|m| m.tool.as_ref())
                        .is_some_and(|t| t.original.is_some())
            });
        let in_use = self
            .active
            .messages()
            .iter()
            .any(|e| e.role == Role::Tool && self.watermark.is_none_or(|w| e.id > w));
        let folded = !self.active.checkpoints().is_empty();
        let workspace =
            self.workspace_talk || matches!(self.settings.mode, Mode::Developer | Mode::Debugger);
        let cal = self.calibration();
        let cap = (f64::from(self.window()) * FIXED_SHARE) as u32;
        let fixed = cal.apply(self.system.raw.saturating_add(self.goal_part.raw));
        let mut raw = TOOLS_PREAMBLE_TOKENS;
        for t in &self.tools {
            let needed = match t.offer.need {
                Need::Always => true,
                Need::Workspace => {
                    if !workspace {
                        out.waiting.push(t.offer.name.clone());
                    }
                    workspace
                }
                Need::ShortenedResult => shortened,
                Need::Folded => folded,
                Need::ToolsInUse => in_use,
            };
            if !needed {
                continue;
            }
            if fixed.saturating_add(cal.apply(raw + t.raw)) <= cap {
                raw += t.raw;
                out.offered.push(t.offer.name.clone());
            } else {
                out.left_out.push(t.offer.name.clone());
            }
        }
        if !out.offered.is_empty() {
            out.raw = raw;
        }
        self.offer = out;
    }
}

/// Whether a message of the person's turns the conversation to the workspace: a path or a
/// file name with a known extension, code (a fence or `inline`), a word only software
/// uses ("repo", "terminal", "git"), or a word for files, folders, scripts or commands
/// (in a few languages) beside something done to them ("read the file", "list the
/// folder"). Words alone like "code" do not count: a buzzer code is not source code, and
/// "a folder of stuff" from the allotment's last secretary is paper (measured: offered
/// the file tools for it, the real 0.5B wrote `read_file` calls as text into 13 of its
/// 44 replies, and answered a question about the shed's key code with one).
pub fn mentions_workspace(text: &str) -> bool {
    if text.contains("```") || inline_code(text) {
        return true;
    }
    let words: Vec<String> = text
        .split_whitespace()
        .map(|raw| {
            raw.trim_matches(|c: char| !c.is_alphanumeric() && !"/\\~._-".contains(c))
                .trim_end_matches(['.', ','])
                .to_string()
        })
        .collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    // A verb, not the noun after an article ("compile a list", "went for a run").
    let done_to = lower.iter().enumerate().any(|(i, w)| {
        WORKSPACE_VERBS.contains(&w.as_str())
            && !i
                .checked_sub(1)
                .is_some_and(|j| DETERMINERS.contains(&lower[j].as_str()))
    });
    words.iter().zip(&lower).any(|(w, l)| {
        path_like(w)
            || file_name(w)
            || WORKSPACE_WORDS.contains(&l.as_str())
            || done_to && THINGS_OF_FILES.contains(&l.as_str())
    })
}

/// Words for files, folders, scripts and commands, which life has too ("a folder of
/// stuff", "file a claim", "the script for the play", "Terminal 5", "compile a list"):
/// the workspace only beside one of [`WORKSPACE_VERBS`].
const THINGS_OF_FILES: &[&str] = &[
    "file",
    "files",
    "filename",
    "folder",
    "folders",
    "directory",
    "directories",
    "script",
    "scripts",
    "command",
    "commands",
    "terminal",
    "shell",
    "compile",
    "cargo",
    "datei",
    "dateien",
    "ordner",
    "verzeichnis",
    "fichier",
    "fichiers",
    "dossier",
    "répertoire",
    "archivo",
    "archivos",
    "carpeta",
    "directorio",
    "arquivo",
    "arquivos",
];

/// Words before a noun.
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "my", "your", "our", "his", "her", "their", "this", "that", "its",
];

/// What is done to a file, a folder or a command.
const WORKSPACE_VERBS: &[&str] = &[
    "read",
    "open",
    "edit",
    "list",
    "show",
    "search",
    "grep",
    "run",
    "execute",
    "save",
    "create",
    "delete",
    "rename",
    "cat",
    "ls",
    "lesen",
    "öffnen",
    "ausführen",
    "lis",
    "lire",
    "ouvre",
    "ouvrir",
    "exécute",
    "lee",
    "leer",
    "abre",
    "abrir",
    "ejecuta",
    "ler",
    "executa",
];

/// Words only software uses: the talk is about the workspace.
const WORKSPACE_WORDS: &[&str] = &[
    "repo",
    "repos",
    "repository",
    "codebase",
    "compiler",
    "traceback",
    "stacktrace",
    "git",
    "npm",
];

/// File extensions that make `name.ext` a file name rather than an abbreviation, a
/// decimal or a web domain.
const EXTENSIONS: &[&str] = &[
    "rs", "py", "js", "ts", "tsx", "jsx", "go", "c", "h", "cc", "cpp", "hpp", "java", "kt", "rb",
    "php", "cs", "swift", "sh", "bash", "zsh", "ps1", "toml", "yaml", "yml", "json", "md", "txt",
    "csv", "tsv", "log", "xml", "html", "css", "sql", "lock", "ini", "cfg", "conf", "env", "pdf",
    "docx", "xlsx", "ipynb", "lua", "zig", "vue", "svelte",
];

/// `~/x`, `./x`, `/etc/x`, `src/a/`, `C:\x`: a path (URLs are the web, not the workspace;
/// one slash between words, as in "and/or", is not a path).
fn path_like(w: &str) -> bool {
    if w.contains("://") || !w.chars().any(char::is_alphabetic) {
        return false;
    }
    let prefixed = ["~/", "./", "../", "/"]
        .iter()
        .any(|p| w.starts_with(p) && w.len() > p.len());
    let slashes = w.matches(['/', '\\']).count();
    prefixed || slashes >= 2 || (slashes == 1 && w.contains('\\'))
}

/// `main.rs`, `Cargo.toml`, `notes.md`: a stem and a known extension.
fn file_name(w: &str) -> bool {
    let name = w.rsplit(['/', '\\']).next().unwrap_or(w);
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && stem.chars().any(char::is_alphabetic)
        && EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
}

/// A pair of backticks around something on one line.
fn inline_code(text: &str) -> bool {
    text.lines().any(|l| {
        let mut parts = l.split('`');
        parts.next();
        matches!((parts.next(), parts.next()), (Some(inner), Some(_)) if !inner.trim().is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::mentions_workspace;

    #[test]
    fn talk_of_files_code_and_commands_turns_to_the_workspace() {
        for yes in [
            "why does src/http/parse.rs panic?",
            "open main.rs and look at line 40",
            "what's in ~/notes",
            "check /etc/hosts for me",
            "the file is huge, can you read it",
            "run `cargo test` please",
            "```\nfn main() {}\n```",
            "list the folder",
            "kannst du die Datei lesen?",
            "lis le fichier README.md",
            "the build log says error E0412 (see build.log)",
            r"look in C:\Users\me",
        ] {
            assert!(mentions_workspace(yes), "{yes}");
        }
    }

    #[test]
    fn a_chat_about_life_stays_a_chat() {
        for no in [
            "hey, short answers pls, on my phone. dinner at mine on saturday, 6 of us",
            "buzzer code is 2207 btw, it's broken half the time",
            "oven at 190 for 50 min, right?",
            "we land at 14:05, e.g. around lunch, approx. 2 hrs before Dr. Okafor",
            "book it on haus-ahorn.ch or https://example.com/a/b/c",
            "it costs €1,450 and/or CHF 180 per head, 24/7",
            "meet at St. Pancras at 7.30",
            "i have a folder of stuff and no idea what any of it means",
            "I need to file a claim with the insurer",
            "Wen wrote the script for the leaving speech",
            "we fly from Terminal 5 and I'll compile a list of what to pack",
        ] {
            assert!(!mentions_workspace(no), "{no}");
        }
    }
}
