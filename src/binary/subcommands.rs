//! The subcommands (`sessions`, `sessions rm`, `sessions rename`, `search`, `export`):
//! each reads the data directory, prints, and returns; none starts a chat. `help` prints
//! the manual and reads nothing.

use super::setup::data_dir;
use anyhow::Result;
use ollm_tui::app::words;
use ollm_tui::config::ExportFormat;
use ollm_tui::store;
use std::io::Write;

/// `ollm-tui help [TOPIC]`: the topic's Markdown as it is (readable as plain text, and
/// ready for a pager or a Markdown viewer), or the list of topics.
pub fn manual(topic: Option<&str>) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match topic {
        Some(asked) => out.write_all(ollm_tui::manual::find(asked)?.text.as_bytes())?,
        None => write!(
            out,
            "The manual, one topic at a time: ollm-tui help TOPIC (in the app: /help TOPIC).\n\n\
             {}\nA topic can be named by its start (comp) or a word for it (config, approval).\n\
             Flags and subcommands: ollm-tui --help.\n",
            ollm_tui::manual::listing()
        )?,
    }
    Ok(())
}

/// Characters of a session's title shown by `ollm-tui sessions`.
pub const TITLE_WIDTH: usize = 60;

pub fn list_sessions(root: &std::path::Path) -> Result<()> {
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

pub fn remove_session(root: &std::path::Path, id: &str) -> Result<()> {
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

pub fn rename_session(root: &std::path::Path, id: &str, title: &str) -> Result<()> {
    let dir = data_dir(root)?;
    let id = store::sessions::resolve(&dir, id)?;
    match store::manage::rename(&dir, &id, title)? {
        Some(t) => println!("Session {id} is now titled {t:?}."),
        None => println!("Session {id} is titled by its first message again."),
    }
    Ok(())
}

pub fn search(root: &std::path::Path, text: &str, limit: usize) -> Result<()> {
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

pub fn export(
    root: &std::path::Path,
    id: &str,
    format: ExportFormat,
    output: Option<&std::path::Path>,
) -> Result<()> {
    let dir = data_dir(root)?;
    let id = store::sessions::resolve(&dir, id)?;
    let log = store::SessionLog::read(&dir, &id)?;
    // Markdown's pictures: copied beside the file written, else linked where they are kept.
    let (text, missing) = match (format, output) {
        (ExportFormat::Md, Some(path)) => {
            let md = store::export::markdown_beside(&dir, &log, &words::MARKDOWN, path)?;
            (md.text, md.missing)
        }
        (ExportFormat::Md, None) => {
            let md = store::export::markdown_printed(&dir, &log, &words::MARKDOWN);
            (md.text, md.missing)
        }
        (ExportFormat::Json, _) => (store::export::to_json_text(&log)?, 0),
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
    if missing > 0 {
        eprintln!(
            "ollm-tui: note: {}",
            words::pictures::export_missing(missing)
        );
    }
    Ok(())
}
