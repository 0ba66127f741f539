//! Which programs a command line runs, for "allow for the session".
//!
//! An allowance names programs (`cargo`, `tail`); a line runs unasked only when every
//! program it runs is allowed. So the line is read as `sh` reads it (POSIX token
//! recognition): comments (`#` at the start of a word, to the end of the line — a
//! backslash or a quote inside one is part of it), line continuations (backslash-newline,
//! removed before anything else outside single quotes), single and double quotes,
//! backslashes, the operators `;` `&` `&&` `|` `||` and newlines between commands; the
//! first word of each command is a program it runs. Judged on less, `echo x #\` followed by
//! a line `touch p` ran `touch` with only `echo` allowed (the comment was read as carrying
//! the backslash on).
//!
//! Whatever this reading cannot follow makes the whole line [`Opaque`]: command
//! substitution (`$(…)`, backticks — anywhere in the line, even quoted, since bash runs one
//! inside an array subscript of `printf -v` or `read`), subshells, here-documents and
//! every other redirection but joining streams (`2>&1`) or discarding to `/dev/null`,
//! parameter expansions beyond `$NAME` and `${NAME}` (`${x:-…}`, `$'…'`), variables set
//! before a command (`PATH=. ls`), a program named by a path, a quote, a glob or an
//! expansion, and programs that run other programs or change the shell ([`NEVER_ALLOWED`]:
//! `sh -c`, `env`, `xargs`, `sudo`, `eval`, `exec`, `.`, `source`, `trap`, `alias`, keywords
//! such as `if`…). Those builtins run inside the shell, so nothing outside it could see
//! them run: refusing them is the only check there is. An opaque line always asks, and
//! cannot be allowed for the session.
//!
//! Invariant: the reading never finds fewer programs than `sh` runs. `tests/shell_differential.rs`
//! holds it against the real shell `run_command` uses, on an attack corpus and thousands
//! of generated lines.

/// Why a command line cannot be judged by its program names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opaque(pub String);

/// Programs that run other programs, change how the shell runs what follows, or are
/// shell syntax: a line that names one always asks.
pub const NEVER_ALLOWED: &[&str] = &[
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
    // run a file of commands in this shell (`.` and `source` are the same builtin)
    ".",
    "source",
    // run the program given as an argument
    "command",
    "builtin",
    "env",
    "xargs",
    "nohup",
    "setsid",
    "sudo",
    "doas",
    "su",
    "runuser",
    "pkexec",
    "run0",
    "sg",
    "newgrp",
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
    // start what they are given through a server of their own, outside the supervisor
    "at",
    "batch",
    "crontab",
    "tmux",
    "screen",
    // bash builtins that run a string (`let` evaluates array subscripts)
    "fc",
    "mapfile",
    "readarray",
    "compgen",
    "complete",
    "bind",
    "let",
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

/// A plain program name: letters, digits and `_ . + -`, starting with a letter, a digit
/// or `_` (so neither `.`, nor an option, nor a path).
fn plain(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-'))
}

/// One word as read: its text, and whether all of it was written as is (nothing quoted,
/// escaped or expanded: only such a word can name a program).
#[derive(Debug)]
struct Word {
    text: String,
    literal: bool,
}

/// Characters that end an unquoted word.
fn delimits(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
    )
}

/// The programs `line` runs, in order (repeats kept), or why it cannot be told.
pub fn programs(line: &str) -> Result<Vec<String>, Opaque> {
    // bash expands `$(…)` inside a quoted array subscript (`printf -v 'a[$(x)]'`), and
    // backticks likewise: wherever they are, the line is not read through.
    let joined = line.replace("\\\n", "");
    if joined.contains('`') {
        return Err(opaque("it substitutes a command's output (backticks)"));
    }
    if joined.contains("$(") {
        return Err(opaque("it substitutes a command's output ($(…))"));
    }
    let mut r = Reader {
        chars: line.chars().collect(),
        i: 0,
    };
    let mut programs = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    loop {
        r.skip_blanks();
        let Some(c) = r.peek() else { break };
        match c {
            '#' => r.skip_comment(),
            '\n' | ';' | '&' | '|' => {
                end_command(&mut words, &mut programs)?;
                r.i += 1;
                match (c, r.peek()) {
                    (';', Some(';')) => return Err(opaque("it holds a `case` branch (`;;`)")),
                    ('&', Some('&')) | ('|', Some('|' | '&')) => r.i += 1,
                    _ => {}
                }
            }
            '(' | ')' => return Err(opaque("it runs a subshell or a group of commands")),
            '<' => {
                return Err(opaque("it reads a file or a here-document into a program"));
            }
            '>' => r.redirection()?,
            _ => {
                let word = r.word()?;
                // dash takes one digit before `>` as the stream it redirects (`2>&1`);
                // `12>&1` runs a program `12` there (bash: stream 12), so a longer
                // number stays a word: named as a program, never overlooked.
                let io_number = word.literal
                    && word.text.len() == 1
                    && word.text.chars().all(|d| d.is_ascii_digit())
                    && matches!(r.peek(), Some('<' | '>'));
                if !io_number {
                    words.push(word);
                }
            }
        }
    }
    end_command(&mut words, &mut programs)?;
    if programs.is_empty() {
        return Err(opaque("it runs no program"));
    }
    Ok(programs)
}

/// A simple command is over: its first word is the program it runs.
fn end_command(words: &mut Vec<Word>, programs: &mut Vec<String>) -> Result<(), Opaque> {
    let Some(first) = words.first() else {
        return Ok(());
    };
    if first.literal && !allowable(&first.text) {
        return Err(Opaque(format!("it runs `{}`", first.text)));
    }
    if first.literal && first.text.contains('=') {
        return Err(opaque("it sets variables for the program it runs"));
    }
    if !first.literal || !plain(&first.text) {
        return Err(opaque(
            "a program is named by a path, a quote, a pattern or an expansion",
        ));
    }
    programs.push(first.text.clone());
    words.clear();
    Ok(())
}

/// The line as `sh` tokenizes it, a character at a time.
struct Reader {
    chars: Vec<char>,
    i: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.i + offset).copied()
    }

    /// Blanks and line continuations between words.
    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(' ' | '\t') => self.i += 1,
                Some('\\') if self.at(1) == Some('\n') => self.i += 2,
                _ => return,
            }
        }
    }

    /// A comment runs to the end of the line; the newline still ends the command.
    fn skip_comment(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.i += 1;
        }
    }

    /// One word, up to the first unquoted delimiter.
    fn word(&mut self) -> Result<Word, Opaque> {
        let mut w = Word {
            text: String::new(),
            literal: true,
        };
        while let Some(c) = self.peek() {
            if delimits(c) {
                break;
            }
            match c {
                '\\' => match self.at(1) {
                    Some('\n') => self.i += 2,
                    Some(n) => {
                        w.text.push(n);
                        w.literal = false;
                        self.i += 2;
                    }
                    None => return Err(opaque("a backslash ends the line")),
                },
                '\'' => {
                    w.literal = false;
                    let rest = &self.chars[self.i + 1..];
                    let Some(close) = rest.iter().position(|d| *d == '\'') else {
                        return Err(opaque("a quote is not closed"));
                    };
                    w.text.extend(&rest[..close]);
                    self.i += close + 2;
                }
                '"' => {
                    w.literal = false;
                    self.double_quoted(&mut w)?;
                }
                '$' => {
                    w.literal = false;
                    self.expansion(&mut w)?;
                }
                c => {
                    w.text.push(c);
                    self.i += 1;
                }
            }
        }
        Ok(w)
    }

    /// `"…"`: a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline.
    fn double_quoted(&mut self, w: &mut Word) -> Result<(), Opaque> {
        self.i += 1;
        loop {
            match self.peek() {
                None => return Err(opaque("a quote is not closed")),
                Some('"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some('\\') => match self.at(1) {
                    Some('\n') => self.i += 2,
                    Some(n @ ('$' | '`' | '"' | '\\')) => {
                        w.text.push(n);
                        self.i += 2;
                    }
                    _ => {
                        w.text.push('\\');
                        self.i += 1;
                    }
                },
                Some('$') => self.expansion(w)?,
                Some(c) => {
                    w.text.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// `$NAME`, `${NAME}`, `$1`, `$@`…: a value, never a command. Anything else after a
    /// `$` (`${x:-…}`, `$'…'`, `$((…))`) is not followed.
    fn expansion(&mut self, w: &mut Word) -> Result<(), Opaque> {
        let name_start = |c: char| c.is_ascii_alphabetic() || c == '_';
        let name_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let special = |c: char| c.is_ascii_digit() || "@*#?$!-".contains(c);
        w.text.push('$');
        self.i += 1;
        match self.peek() {
            Some('{') => {
                let rest = &self.chars[self.i + 1..];
                let Some(close) = rest.iter().position(|d| *d == '}') else {
                    return Err(opaque("a `${` is not closed"));
                };
                let inside: String = rest[..close].iter().collect();
                let simple = match inside.chars().next() {
                    Some(c) if name_start(c) => inside.chars().all(name_char),
                    Some(c) if c.is_ascii_digit() => inside.chars().all(|d| d.is_ascii_digit()),
                    Some(c) => special(c) && inside.len() == 1,
                    None => false,
                };
                if !simple {
                    return Err(opaque("it expands a parameter in a way not followed here"));
                }
                w.text.push_str(&inside);
                self.i += close + 2;
            }
            Some(c) if name_start(c) => {
                while let Some(c) = self.peek().filter(|c| name_char(*c)) {
                    w.text.push(c);
                    self.i += 1;
                }
            }
            Some(c) if special(c) => {
                w.text.push(c);
                self.i += 1;
            }
            _ => return Err(opaque("a `$` that is not a plain parameter")),
        }
        Ok(())
    }

    /// After `>`: only `>&N`, `>&-` and `>/dev/null` (also `>>`, `>|`) leave no file written.
    fn redirection(&mut self) -> Result<(), Opaque> {
        let to_file = || opaque("it redirects output to a file");
        self.i += 1;
        let dup = match self.peek() {
            Some('&') => {
                self.i += 1;
                true
            }
            Some('>' | '|') => {
                self.i += 1;
                false
            }
            _ => false,
        };
        self.skip_blanks();
        if self.peek().is_none_or(|c| c == '#' || delimits(c)) {
            return Err(opaque("a redirection has no target"));
        }
        let target = self.word()?;
        let harmless = target.literal
            && if dup {
                target.text == "-" || target.text.chars().all(|d| d.is_ascii_digit())
            } else {
                target.text == "/dev/null"
            };
        if harmless { Ok(()) } else { Err(to_file()) }
    }
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
        assert_eq!(names(">/dev/null make 2>&-"), ["make"]);
        assert_eq!(names("1\\\n2>&1 a"), ["12"]);
        assert_eq!(names("ls -la   \n\n\n  "), ["ls"]);
        assert_eq!(names("echo x &&\n\n  touch y"), ["echo", "touch"]);
    }

    #[test]
    fn quoted_operators_are_arguments_not_commands() {
        assert_eq!(names("echo 'a; touch b'"), ["echo"]);
        assert_eq!(names("echo \"a && touch b\""), ["echo"]);
        assert_eq!(names("echo a\\; touch b"), ["echo"]);
        assert_eq!(names("grep -n \"$HOME\" notes.txt"), ["grep"]);
        assert_eq!(names("ls ${HOME}/src && wc -l *.rs"), ["ls", "wc"]);
        assert_eq!(names("echo 'it'\\''s' done"), ["echo"]);
        assert_eq!(names("echo a#b"), ["echo"]);
        assert_eq!(names("echo $# ${#} $1 $@"), ["echo"]);
    }

    /// The forms (#36): a comment ends at the newline, whatever it holds, and the
    /// next line is a command of its own.
    #[test]
    fn a_comment_hides_nothing_on_the_next_line() {
        for (line, expected) in [
            ("echo x #\\\ntouch p1", vec!["echo", "touch"]),
            ("echo x #'\ntouch p2\n#'", vec!["echo", "touch"]),
            ("echo x #\"\ntouch p3\n#\"", vec!["echo", "touch"]),
            ("echo x #${\ntouch p4\n#}", vec!["echo", "touch"]),
            ("echo x;#'\ntouch p5", vec!["echo", "touch"]),
            ("echo x \\\n#'\ntouch p6", vec!["echo", "touch"]),
        ] {
            assert_eq!(names(line), expected, "{line:?}");
        }
        // A continuation joins words; `#` inside a word is no comment.
        assert_eq!(names("echo x\\\n#y; touch z"), ["echo", "touch"]);
        assert_eq!(names("ec\\\nho x"), ["echo"]);
    }

    #[test]
    fn what_cannot_be_seen_through_is_opaque() {
        for line in [
            "echo $(touch x)",
            "echo \"$(touch x)\"",
            "echo `touch x`",
            "echo '$(touch x)'",
            "echo ${x:-$(touch y)}",
            "echo $\\\n(touch y)",
            "(touch x)",
            "{ touch x; }",
            "echo x > ~/.bashrc",
            "echo x >> log",
            "echo x >/dev/null#",
            "echo x > \"/dev/null\"",
            "echo x >&file",
            "cat < secret",
            "cat <<EOF\nx\nEOF",
            "echo x &>file",
            "echo $'\\x41'",
            "echo ${x#y}",
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
            ". ./script",
            "source ./script",
            "xargs touch < list",
            "find . | xargs rm",
            "nohup touch x &",
            "setsid sh -c 'sleep 6; touch X' &",
            "if true; then touch x; fi",
            "export PATH=.:$PATH; ls",
            "trap 'touch x' EXIT",
            "echo 'unclosed",
            "echo x \\",
            "echo x;; touch y",
            "",
            "   ",
            "# only a comment",
        ] {
            assert!(
                programs(line).is_err(),
                "{line:?} was read as {:?}",
                programs(line)
            );
        }
    }

    #[test]
    fn wrappers_builtins_and_keywords_can_never_be_allowed() {
        for name in [
            "sh", "env", "xargs", "sudo", "eval", "if", ".", "source", "trap",
        ] {
            assert!(!allowable(name), "{name}");
        }
        assert!(allowable("cargo"));
    }
}
