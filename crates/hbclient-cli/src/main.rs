//! `hbclient`: an HBase shell without a JVM. Commands and arguments are the HBase shell's, on the
//! command line (`hbclient put t r f:q v`), interactively (`put 't', 'r', 'f:q', 'v'`, with
//! history and completion) or read from standard input. See `hbclient help`.

mod command;
mod exec;
mod filter;
mod interactive;
mod output;
mod syntax;

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use hbclient::{Config, Connection};

use command::Command;
use exec::Failure;
use output::Format;
use syntax::Value;

/// Exit status of a command the user got wrong (syntax, arguments, unknown command).
const EXIT_USAGE: u8 = 2;
/// Exit status of a command the cluster failed or refused.
const EXIT_FAILED: u8 = 1;

/// An HBase shell that starts in milliseconds.
///
/// Without COMMAND it is an interactive shell (a terminal) or runs the commands on standard
/// input, one per line, in the HBase shell's syntax (`put 't', 'r', 'f:q', 'v'`).
#[derive(Debug, Parser)]
#[command(name = "hbclient", version, after_help = command::USAGE)]
struct Cli {
    /// ZooKeeper quorum (host:port,...) to find the cluster through.
    #[arg(long, value_name = "QUORUM", conflicts_with_all = ["bootstrap", "uri", "mini"])]
    zk: Option<String>,
    /// Masters or region servers (host:port,...) for ZooKeeper-free discovery.
    #[arg(long, value_name = "SERVERS", conflicts_with_all = ["uri", "mini"])]
    bootstrap: Option<String>,
    /// A connection URI (hbase+zk://... or hbase+rpc://...).
    #[arg(long, conflicts_with = "mini")]
    uri: Option<String>,
    /// Start an embedded mini-hbase (in memory, gone at exit) and use it.
    #[arg(long)]
    mini: bool,
    /// Directory with hbase-site.xml (default: $HBASE_CONF_DIR).
    #[arg(long, value_name = "DIR")]
    conf_dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// The command and its arguments, in the HBase shell's order. An argument starting with
    /// `{` or `[` is read as a hash or array (`"{LIMIT => 5}"`).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    command: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("ERROR: cannot start the runtime: {e}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    // A command-line command is checked before connecting: bad input fails fast.
    let one_shot = match cli.command.split_first() {
        Some((name, args)) => match command_line(name, args) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("ERROR: {e}");
                return ExitCode::from(EXIT_USAGE);
            }
        },
        None => None,
    };
    // Neither needs a cluster.
    match one_shot {
        Some(Command::Help) => {
            println!("{}", command::USAGE);
            return ExitCode::SUCCESS;
        }
        Some(Command::Exit) => return ExitCode::SUCCESS,
        _ => {}
    }
    runtime.block_on(async {
        let (conn, _mini) = match connect(&cli).await {
            Ok(c) => c,
            Err(e) => {
                eprintln!("ERROR: {e}");
                return ExitCode::from(e.status);
            }
        };
        let code = match one_shot {
            Some(command) => match run_one(&conn, &command, cli.format).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(status) => ExitCode::from(status),
            },
            None if io::stdin().is_terminal() => interactive::run(&conn, cli.format).await,
            None => script(&conn, cli.format).await,
        };
        conn.close();
        code
    })
}

/// A connection failure or bad connection options, with the exit status to use.
struct ConnectError {
    message: String,
    status: u8,
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

async fn connect(cli: &Cli) -> Result<(Connection, Option<mini_hbase::MiniCluster>), ConnectError> {
    let usage = |message: String| ConnectError {
        message,
        status: EXIT_USAGE,
    };
    let mut mini = None;
    let config = if cli.mini {
        let cluster = mini_hbase::MiniCluster::start(mini_hbase::ClusterConfig::default())
            .await
            .map_err(|e| ConnectError {
                message: format!("cannot start mini-hbase: {e}"),
                status: EXIT_FAILED,
            })?;
        let config = Config::bootstrap(&cluster.master_addr().to_string());
        mini = Some(cluster);
        config
    } else if let Some(uri) = &cli.uri {
        Config::from_uri(uri).map_err(|e| usage(format!("--uri: {e}")))?
    } else {
        let conf_dir = cli.conf_dir.clone().or_else(|| {
            std::env::var_os("HBASE_CONF_DIR")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
        });
        let zk = cli
            .zk
            .clone()
            .or_else(|| std::env::var("HBASE_ZOOKEEPER").ok());
        let bootstrap = cli
            .bootstrap
            .clone()
            .or_else(|| std::env::var("HBASE_BOOTSTRAP").ok());
        if conf_dir.is_none() && zk.is_none() && bootstrap.is_none() {
            return Err(usage(
                "no cluster given: pass --zk HOST:PORT, --bootstrap HOST:PORT, --uri, --mini, \
                 or set HBASE_CONF_DIR to a directory with hbase-site.xml"
                    .into(),
            ));
        }
        let mut builder = Config::builder();
        if let Some(dir) = &conf_dir {
            builder = builder
                .load_conf_dir(dir)
                .map_err(|e| usage(format!("{}: {e}", dir.display())))?;
        }
        if let Some(zk) = &zk {
            builder = builder.zookeeper(zk);
        } else if let Some(servers) = &bootstrap {
            builder = builder.bootstrap(servers);
        }
        builder.build()
    };
    let conn = Connection::connect(config)
        .await
        .map_err(|e| ConnectError {
            message: format!("cannot connect: {e}"),
            status: EXIT_FAILED,
        })?;
    Ok((conn, mini))
}

/// A command from the command line: strings, except `{...}`/`[...]` read as shell values.
fn command_line(name: &str, args: &[String]) -> Result<Command, String> {
    let mut values = Vec::with_capacity(args.len());
    for arg in args {
        let trimmed = arg.trim_start();
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            values.push(syntax::parse_value(arg).map_err(|e| format!("{arg:?}: {e}"))?);
        } else {
            values.push(Value::Str(arg.as_bytes().to_vec()));
        }
    }
    command::from_args(name, values).map_err(|e| e.to_string())
}

/// Runs one command and prints its reply; on failure prints why and returns the exit status.
async fn run_one(conn: &Connection, command: &Command, format: Format) -> Result<(), u8> {
    // JSON lines and raw output need no column widths: a scan prints row by row.
    if let (Command::Scan { table, options }, Format::Json | Format::Raw) = (command, format) {
        let mut written = Ok(());
        let scanned = exec::scan_each(conn, table, options, |reply| {
            let mut out = io::stdout().lock();
            written = output::render(&mut out, format, reply).and_then(|()| out.flush());
            written.is_ok()
        })
        .await;
        return report(scanned.map(|_| ()), written);
    }
    let progress = interactive::CountProgress::new();
    match exec::run(conn, command, &progress).await {
        Ok(reply) => {
            let mut out = io::stdout().lock();
            let written = output::render(&mut out, format, &reply).and_then(|()| out.flush());
            report(Ok(()), written)
        }
        Err(failure) => report(Err(failure), Ok(())),
    }
}

/// Prints why a command failed (or its output could not be written) and picks the exit status.
fn report(outcome: Result<(), Failure>, written: io::Result<()>) -> Result<(), u8> {
    match outcome {
        Ok(()) => match written {
            Ok(()) => Ok(()),
            // A closed pipe (`| head`) is not a failure of the command.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            Err(e) => {
                eprintln!("ERROR: writing the output: {e}");
                Err(EXIT_FAILED)
            }
        },
        Err(Failure::Usage(m)) => {
            eprintln!("ERROR: {m}");
            Err(EXIT_USAGE)
        }
        Err(Failure::Server(e)) => {
            eprintln!("ERROR: {e}");
            Err(EXIT_FAILED)
        }
    }
}

/// Commands from standard input, one per line; stops at the first failure with its status.
async fn script(conn: &Connection, format: Format) -> ExitCode {
    let stdin = io::stdin();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("ERROR: reading standard input: {e}");
                return ExitCode::from(EXIT_FAILED);
            }
        };
        let command = match parse_statement(&line) {
            Ok(Some(c)) => c,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("ERROR: line {}: {e}", n + 1);
                return ExitCode::from(EXIT_USAGE);
            }
        };
        if command == Command::Exit {
            break;
        }
        if let Err(status) = run_one(conn, &command, format).await {
            eprintln!("(stopped at line {})", n + 1);
            return ExitCode::from(status);
        }
    }
    ExitCode::SUCCESS
}

/// One line in the HBase shell's syntax; `None` for blank lines and comments.
fn parse_statement(line: &str) -> Result<Option<Command>, String> {
    match syntax::parse_line(line).map_err(|e| e.to_string())? {
        None => Ok(None),
        Some(st) => command::from_args(&st.command, st.args)
            .map(Some)
            .map_err(|e| e.to_string()),
    }
}
