//! Which programs a command line runs, for "allow for the session".
//!
//! An allowance names programs (`cargo`, `tail`); a line runs unasked only when every
//! program it runs is allowed. Judged on the first word alone, `echo x; touch pwned` ran
//! with only `echo` allowed. So the line is read as `sh` would split it — quotes ('…',
//! "…", backslashes), the operators `;` `&` `&&` `|` `||` `|&` and newlines between
//! commands — and the first word of each command is a program it runs. Anything whose
//! effect this reading cannot see makes the whole line [`Opaque`]: command substitution
//! (`$(…)`, backticks), subshells and groups (`(`, `{`), redirections other than joining
//! the output streams or discarding to `/dev/null` (`> file` writes a file), variables
//! set before a command (`PATH=. ls`), a program named by a path, a quote or an expansion,
//! and programs that run other programs or change the shell (`sh -c`, `env`, `xargs`,
//! `sudo`, `eval`, `exec`, `export`, keywords such as `if`…). An opaque line always asks,
//! and cannot be allowed for the session.
//!
//! The reading errs towards asking: it never finds fewer programs than `sh` would run.

/// Why a command line cannot be judged by its program names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opaque(pub String);

/// Programs that run other programs, change how the shell runs what follows, or are
/// shell syntax: a line that names one always asks.
const NEVER_ALLOWED: &[&str] = &[
    // shells and interpreters of command strings
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "fish",
    "csh",
    "tcsh",
    "busybox",
    "eval",
    "exec",
    "source",
    "command",
    "builtin",
    // run the program given as an argument
    "env",
    "xargs",
    "nohup",
    "setsid",
    "sudo",
    "doas",
    "su",
    "runuser",
    "nice",
    "ionice",
    "timeout",
    "time",
    "stdbuf",
    "chroot",
    "unshare",
    "nsenter",
    "watch",
    "strace",
    "ltrace",
    "parallel",
    "flock",
    "script",
    "ssh",
    "chrt",
    "taskset",
    "systemd-run",
    "setpriv",
    "prlimit",
    "firejail",
    "bwrap",
    // change what later commands mean
    "alias",
    "unalias",
    "export",
    "declare",
    "typeset",
    "local",
    "readonly",
    "set",
    "unset",
    "shopt",
    "trap",
    "enable",
    "hash",
    "function",
    "coproc",
    "select",
    // keywords
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "for",
    "in",
    "while",
    "until",
    "do",
    "done",
    "case",
    "esac",
];

/// Whether `name` may be allowed for the session at all.
pub fn allowable(name: &str) -> bool {
    !NEVER_ALLOWED.contains(&name)
}

fn opaque(why: &str) -> Opaque {
    Opaque(why.to_string())
}

/// A plain program name: letters, digits and `_ . + -`, not starting with `-`.
fn plain(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-'))
}

/// One word as read: its text, and whether any of it was quoted, escaped or expanded
/// (such a word is not a plain program name).
#[derive(Debug, Default)]
struct Word {
    text: String,
    literal: bool,
}

/// The programs `line` runs, in order (repeats kept), or why it cannot be told.
pub fn programs(line: &str) -> Result<Vec<String>, Opaque> {
    let chars: Vec<char> = line.chars().collect();
    let mut programs = Vec::new();
    // The words of the current simple command.
    let mut words: Vec<Word> = Vec::new();
    let mut word: Option<Word> = None;
    let mut i = 0;
    let end_command = |words: &mut Vec<Word>, programs: &mut Vec<String>| -> Result<(), Opaque> {
        let Some(first) = words.first() else {
            return Ok(());
        };
        if first.text.contains('=') && first.literal {
            return Err(opaque("it sets variables for the program it runs"));
        }
        if !first.literal || !plain(&first.text) {
            return Err(opaque(
                "a program is named by a path, a quote or an expansion",
            ));
        }
        if !allowable(&first.text) {
            return Err(Opaque(format!("it runs `{}`", first.text)));
        }
        programs.push(first.text.clone());
        words.clear();
        Ok(())
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
                i += 1;
            }
            '\n' | ';' | '&' | '|' => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
                // `>&` and `&>` are redirections, handled where `>` is read.
                if c == '&' && chars.get(i + 1) == Some(&'>') {
                    return Err(opaque("it redirects output to a file"));
                }
                end_command(&mut words, &mut programs)?;
                i += 1;
                // `&&`, `||`, `|&`, `;;` are one operator.
                if matches!(chars.get(i), Some('&' | '|' | ';')) {
                    i += 1;
                }
            }
            '(' | ')' | '{' | '}' | '`' => {
                return Err(opaque(match c {
                    '`' => "it substitutes a command's output (backticks)",
                    _ => "it runs a subshell or a group of commands",
                }));
            }
            '<' | '>' => {
                // Only joining streams (`2>&1`, `>&2`) or discarding (`>/dev/null`): any
                // other redirection reads or writes files the line does not name as a
                // program.
                let digits_before = word
                    .as_ref()
                    .is_some_and(|w| w.literal && w.text.chars().all(|d| d.is_ascii_digit()));
                if word.is_some() && !digits_before {
                    return Err(opaque("it redirects output to a file"));
                }
                word = None;
                let mut j = i + 1;
                if c == '>' && chars.get(j) == Some(&'&') {
                    j += 1;
                    let target: String = chars[j..]
                        .iter()
                        .take_while(|d| d.is_ascii_digit() || **d == '-')
                        .collect();
                    if target.is_empty() {
                        return Err(opaque("it redirects output to a file"));
                    }
                    i = j + target.chars().count();
                    continue;
                }
                if c == '>' {
                    while chars.get(j) == Some(&' ') {
                        j += 1;
                    }
                    let target: String = chars[j..]
                        .iter()
                        .take_while(|d| !d.is_whitespace() && !";&|".contains(**d))
                        .collect();
                    if target == "/dev/null" {
                        i = j + target.chars().count();
                        continue;
                    }
                }
                return Err(opaque(if c == '<' {
                    "it reads a file or a here-document into a program"
                } else {
                    "it redirects output to a file"
                }));
            }
            '\'' => {
                let w = word.get_or_insert_with(|| Word {
                    literal: false,
                    ..Word::default()
                });
                w.literal = false;
                let Some(close) = chars[i + 1..].iter().position(|d| *d == '\'') else {
                    return Err(opaque("a quote is not closed"));
                };
                w.text.extend(&chars[i + 1..i + 1 + close]);
                i += close + 2;
            }
            '"' => {
                let w = word.get_or_insert_with(Word::default);
                w.literal = false;
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(opaque("a quote is not closed")),
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some('\\') => {
                            if let Some(n) = chars.get(i + 1) {
                                w.text.push(*n);
                            }
                            i += 2;
                        }
                        Some('`') => {
                            return Err(opaque("it substitutes a command's output (backticks)"));
                        }
                        Some('$') if chars.get(i + 1) == Some(&'(') => {
                            return Err(opaque("it substitutes a command's output ($(…))"));
                        }
                        Some(d) => {
                            w.text.push(*d);
                            i += 1;
                        }
                    }
                }
            }
            '\\' => {
                let w = word.get_or_insert_with(Word::default);
                w.literal = false;
                if let Some(n) = chars.get(i + 1) {
                    w.text.push(*n);
                }
                i += 2;
            }
            '$' => {
                if matches!(chars.get(i + 1), Some('(')) {
                    return Err(opaque("it substitutes a command's output ($(…))"));
                }
                let w = word.get_or_insert_with(Word::default);
                w.literal = false;
                w.text.push(c);
                i += 1;
                // `${NAME}`: read to its brace (a substitution inside is still opaque).
                if chars.get(i) == Some(&'{') {
                    let Some(close) = chars[i..].iter().position(|d| *d == '}') else {
                        return Err(opaque("a `${` is not closed"));
                    };
                    let inside: String = chars[i..i + close].iter().collect();
                    if inside.contains('`') || inside.contains("$(") {
                        return Err(opaque("it substitutes a command's output ($(…))"));
                    }
                    w.text.push_str(&inside);
                    i += close + 1;
                }
            }
            _ => {
                let w = word.get_or_insert_with(|| Word {
                    text: String::new(),
                    literal: true,
                });
                // Globs in a program name are expansions too.
                if matches!(c, '*' | '?' | '[' | '~') {
                    w.literal = false;
                }
                w.text.push(c);
                i += 1;
            }
        }
    }
    if let Some(w) = word.take() {
        words.push(w);
    }
    end_command(&mut words, &mut programs)?;
    if programs.is_empty() {
        return Err(opaque("it runs no program"));
    }
    Ok(programs)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn names(line: &str) -> Vec<String> {
        programs(line).unwrap_or_else(|e| panic!("{line:?}: {}", e.0))
    }

    #[test]
    fn every_command_of_a_list_or_pipeline_is_a_program() {
        assert_eq!(names("cargo test"), ["cargo"]);
        assert_eq!(names("echo x; touch pwned"), ["echo", "touch"]);
        assert_eq!(
            names("a && b || c | d |& e & f"),
            ["a", "b", "c", "d", "e", "f"]
        );
        assert_eq!(names("echo one\ntouch two"), ["echo", "touch"]);
        assert_eq!(names("cargo test 2>&1 | tail -n 20"), ["cargo", "tail"]);
        assert_eq!(names("make >/dev/null 2>/dev/null"), ["make"]);
        assert_eq!(names("ls -la   \n\n\n  "), ["ls"]);
    }

    #[test]
    fn quoted_operators_are_arguments_not_commands() {
        assert_eq!(names("echo 'a; touch b'"), ["echo"]);
        assert_eq!(names("echo \"a && touch b\""), ["echo"]);
        assert_eq!(names("echo a\\; touch b"), ["echo"]);
        assert_eq!(names("grep -n \"$HOME\" notes.txt"), ["grep"]);
        assert_eq!(names("ls ${HOME}/src && wc -l *.rs"), ["ls", "wc"]);
    }

    #[test]
    fn what_cannot_be_seen_through_is_opaque() {
        for line in [
            "echo $(touch x)",
            "echo \"$(touch x)\"",
            "echo `touch x`",
            "echo ${x:-$(touch y)}",
            "(touch x)",
            "{ touch x; }",
            "echo x > ~/.bashrc",
            "echo x >> log",
            "cat < secret",
            "cat <<EOF\nx\nEOF",
            "echo x &>file",
            "sh -c 'touch x'",
            "bash -c 'touch x'",
            "env touch x",
            "FOO=1 touch x",
            "LD_PRELOAD=./evil.so echo hi",
            "./touch x",
            "/bin/touch x",
            "'touch' x",
            "t\\ouch x",
            "$CMD x",
            "to* x",
            "xargs touch < list",
            "find . | xargs rm",
            "nohup touch x &",
            "setsid sh -c 'sleep 6; touch X' &",
            "if true; then touch x; fi",
            "export PATH=.:$PATH; ls",
            "echo 'unclosed",
            "",
            "   ",
        ] {
            assert!(
                programs(line).is_err(),
                "{line:?} was read as {:?}",
                programs(line)
            );
        }
    }

    #[test]
    fn wrappers_and_keywords_can_never_be_allowed() {
        for name in ["sh", "env", "xargs", "sudo", "eval", "if"] {
            assert!(!allowable(name), "{name}");
        }
        assert!(allowable("cargo"));
    }
}
