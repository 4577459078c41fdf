//! The interactive shell: a rustyline editor with history in `~/.hbclient_history` and
//! completion of command names and table names, and count's progress bar.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use hbclient::Connection;
use indicatif::{ProgressBar, ProgressStyle};
use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use crate::command::{Command, COMMAND_NAMES};
use crate::output::Format;

/// `count`'s progress: a spinner with the rows counted so far, drawn on stderr only when it is
/// a terminal (indicatif hides it otherwise, so scripts and pipes see nothing).
pub(crate) struct CountProgress {
    bar: ProgressBar,
}

impl CountProgress {
    /// A hidden-until-used spinner.
    pub(crate) fn new() -> CountProgress {
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {pos} rows counted ({per_sec})")
        {
            bar.set_style(style);
        }
        CountProgress { bar }
    }
}

impl crate::exec::Progress for CountProgress {
    fn counted(&self, rows: u64) {
        self.bar.set_position(rows);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Completes the first word from the command names and later words (inside quotes or not)
/// from the table names last listed.
struct ShellHelper {
    tables: Arc<Mutex<Vec<String>>>,
}

impl Completer for ShellHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        Ok(complete(
            line,
            pos,
            &self.tables.lock().unwrap_or_else(|e| e.into_inner()),
        ))
    }
}

/// `(start of the word being completed, candidates)`.
fn complete(line: &str, pos: usize, tables: &[String]) -> (usize, Vec<String>) {
    let before = &line[..pos];
    let start = before
        .rfind(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ',' | '(' | '['))
        .map_or(0, |i| i + 1);
    let word = &before[start..];
    let first_word = before[..start].trim().is_empty();
    let pool: Vec<String> = if first_word {
        COMMAND_NAMES.iter().map(|s| s.to_string()).collect()
    } else {
        tables.to_vec()
    };
    let mut found: Vec<String> = pool.into_iter().filter(|c| c.starts_with(word)).collect();
    found.sort();
    found.dedup();
    (start, found)
}

impl Hinter for ShellHelper {
    type Hint = String;
}
impl Highlighter for ShellHelper {}
impl Validator for ShellHelper {}
impl Helper for ShellHelper {}

fn history_file() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".hbclient_history"))
}

async fn refresh_tables(conn: &Connection, tables: &Mutex<Vec<String>>) {
    if let Ok(names) = conn.admin().list_tables().await {
        *tables.lock().unwrap_or_else(|e| e.into_inner()) =
            names.iter().map(|t| t.to_string()).collect();
    }
}

/// Reads and runs commands until `exit` or end of input; errors are printed and the shell
/// goes on.
pub(crate) async fn run(conn: &Connection, format: Format) -> ExitCode {
    let mut editor: Editor<ShellHelper, DefaultHistory> = match Editor::new() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("ERROR: cannot open the terminal: {e}");
            return ExitCode::from(1);
        }
    };
    let tables = Arc::new(Mutex::new(Vec::new()));
    refresh_tables(conn, &tables).await;
    editor.set_helper(Some(ShellHelper {
        tables: tables.clone(),
    }));
    let history = history_file();
    if let Some(path) = &history {
        // A missing history file is the first run, not an error.
        let _ = editor.load_history(path);
    }
    eprintln!(
        "hbclient shell ({}); 'help' lists the commands, 'exit' or Ctrl-D leaves.",
        conn.cluster_id()
    );
    loop {
        let line = match editor.readline("hbclient> ") {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("ERROR: {e}");
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(line.as_str());
        let command = match crate::parse_statement(&line) {
            Ok(Some(c)) => c,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("ERROR: {e}");
                continue;
            }
        };
        if command == Command::Exit {
            break;
        }
        let changes_tables = matches!(
            command,
            Command::Create { .. } | Command::Drop(_) | Command::Truncate { .. }
        );
        // Errors were printed; the shell goes on.
        let _ = crate::run_one(conn, &command, format).await;
        if changes_tables {
            refresh_tables(conn, &tables).await;
        }
    }
    if let Some(path) = &history {
        if let Err(e) = editor.save_history(path) {
            eprintln!("WARNING: history not saved to {}: {e}", path.display());
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_commands_then_tables() {
        let tables = vec![
            "users".to_string(),
            "usage".to_string(),
            "orders".to_string(),
        ];
        assert_eq!(complete("sc", 2, &tables), (0, vec!["scan".to_string()]));
        assert_eq!(
            complete("de", 2, &tables),
            (
                0,
                vec!["delete".into(), "deleteall".into(), "describe".into()]
            )
        );
        assert_eq!(
            complete("scan 'us", 8, &tables),
            (6, vec!["usage".into(), "users".into()])
        );
        assert_eq!(complete("get 'users', 'r", 15, &tables), (14, vec![]));
        assert_eq!(
            complete("count ord", 9, &tables),
            (6, vec!["orders".into()])
        );
    }
}
