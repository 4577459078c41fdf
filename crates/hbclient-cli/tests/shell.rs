//! End-to-end tests of the `hbclient` binary: every command on the command line, scripts on
//! standard input, output formats, exit statuses. Against an in-process mini-hbase by default,
//! or a real HBase when `HBCLIENT_TEST_CLUSTER` is `zk:HOST:PORT` or `rpc:HOST:PORT` (as the
//! hbclient integration suite; `scripts/conformance.sh` runs both).

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value as Json;

/// The cluster under test and how the binary reaches it.
struct Target {
    args: Vec<String>,
    _mini: Option<(tokio::runtime::Runtime, mini_hbase::MiniCluster)>,
}

impl Target {
    fn start() -> Target {
        match std::env::var("HBCLIENT_TEST_CLUSTER")
            .ok()
            .filter(|s| !s.is_empty())
        {
            Some(target) => {
                let args = match target.split_once(':') {
                    Some(("zk", quorum)) => vec!["--zk".to_string(), quorum.to_string()],
                    Some(("rpc", servers)) => vec!["--bootstrap".to_string(), servers.to_string()],
                    _ => panic!("HBCLIENT_TEST_CLUSTER must be zk:HOST:PORT or rpc:HOST:PORT"),
                };
                Target { args, _mini: None }
            }
            None => {
                let rt = tokio::runtime::Runtime::new().unwrap();
                let mini = rt
                    .block_on(mini_hbase::MiniCluster::start(
                        mini_hbase::ClusterConfig::default(),
                    ))
                    .unwrap();
                let args = vec!["--bootstrap".to_string(), mini.master_addr().to_string()];
                Target {
                    args,
                    _mini: Some((rt, mini)),
                }
            }
        }
    }

    fn command(&self, extra: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_hbclient"));
        c.args(&self.args).args(extra);
        c.env_remove("HBASE_CONF_DIR")
            .env_remove("HBASE_ZOOKEEPER")
            .env_remove("HBASE_BOOTSTRAP");
        c
    }

    /// Runs `hbclient ARGS` with no input.
    fn run(&self, extra: &[&str]) -> Output {
        self.command(extra)
            .stdin(Stdio::null())
            .output()
            .expect("run hbclient")
    }

    /// Runs a command that must succeed; its stdout.
    fn ok(&self, extra: &[&str]) -> String {
        let out = self.run(extra);
        assert!(
            out.status.success(),
            "hbclient {extra:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("table and json output is UTF-8")
    }

    /// Runs `hbclient [ARGS]` with `script` on stdin.
    fn script(&self, extra: &[&str], script: &str) -> Output {
        let mut child = self
            .command(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run hbclient");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }
}

fn unique_table() -> String {
    static SEQ: AtomicU32 = AtomicU32::new(0);
    format!(
        "hbclient_cli_{}_{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

fn json_lines(text: &str) -> Vec<Json> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}

/// Drops the table even when the test failed half-way.
struct DropGuard<'a>(&'a Target, String);

impl Drop for DropGuard<'_> {
    fn drop(&mut self) {
        let _ = self.0.run(&["disable", &self.1]);
        let _ = self.0.run(&["drop", &self.1]);
    }
}

#[test]
fn data_commands_on_the_command_line() {
    let t = Target::start();
    let table = unique_table();
    let _guard = DropGuard(&t, table.clone());
    let out = t.ok(&[
        "create",
        &table,
        "{NAME => 'f', VERSIONS => 3}",
        "{SPLITS => ['m']}",
    ]);
    assert_eq!(out, format!("Created table {table}\n"));
    assert!(t.ok(&["exists", &table]).contains("does exist"));

    t.ok(&["put", &table, "a\\x00b", "f:q", "v1", "1000000000000"]);
    t.ok(&["put", &table, "a\\x00b", "f:q", "v2"]);
    t.ok(&["put", &table, "z", "f:bin", "\\xFF\\x00\\x5C"]);
    t.ok(&["put", &table, "n", "f:q", "x"]);

    // get: the newest version, escaped; in JSON with its timestamp.
    let out = t.ok(&["get", &table, "a\\x00b"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("ROW") && lines[0].ends_with("VALUE"),
        "{out}"
    );
    assert!(
        lines[1].starts_with("a\\x00b  f:q") && lines[1].ends_with("  v2"),
        "{out}"
    );
    assert_eq!(lines[2], "1 row(s)");
    let cells = json_lines(&t.ok(&[
        "--format",
        "json",
        "get",
        &table,
        "a\\x00b",
        "{VERSIONS => 3}",
    ]));
    assert_eq!(cells.len(), 2, "{cells:?}");
    assert_eq!(cells[0]["row"], "a\\x00b");
    assert_eq!(cells[0]["column"], "f:q");
    assert_eq!(cells[0]["value"], "v2");
    assert_eq!(cells[1]["value"], "v1");
    assert_eq!(cells[1]["timestamp"], 1000000000000i64);
    // raw: the stored bytes themselves.
    let raw = t.run(&["--format", "raw", "get", &table, "z", "f:bin"]);
    assert!(raw.status.success());
    let fields: Vec<&[u8]> = raw.stdout.split(|&b| b == b'\t').collect();
    assert_eq!(fields[0], b"z");
    assert_eq!(fields[3], b"\xff\x00\\\n");
    // A missing row: no cells, still success.
    assert!(t.ok(&["get", &table, "nothing"]).ends_with("0 row(s)\n"));

    // incr: counters, in every format.
    assert_eq!(t.ok(&["incr", &table, "c", "f:n"]), "COUNTER VALUE = 1\n");
    assert_eq!(
        t.ok(&["--format", "raw", "incr", &table, "c", "f:n", "41"]),
        "42\n"
    );
    assert_eq!(
        json_lines(&t.ok(&["--format", "json", "incr", &table, "c", "f:n", "-2"]))[0]
            ["counter_value"],
        40
    );

    // scan: every row across both regions, then the options.
    let rows = |out: &str| -> Vec<String> {
        json_lines(out)
            .iter()
            .map(|c| c["row"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        rows(&t.ok(&["--format", "json", "scan", &table])),
        ["a\\x00b", "c", "n", "z"]
    );
    assert_eq!(
        rows(&t.ok(&[
            "--format",
            "json",
            "scan",
            &table,
            "{STARTROW => 'c', STOPROW => 'z'}"
        ])),
        ["c", "n"]
    );
    assert_eq!(
        rows(&t.ok(&[
            "--format",
            "json",
            "scan",
            &table,
            "{LIMIT => 2, REVERSED => true}"
        ])),
        ["z", "n"]
    );
    assert_eq!(
        rows(&t.ok(&[
            "--format",
            "json",
            "scan",
            &table,
            "{ROWPREFIXFILTER => 'a'}"
        ])),
        ["a\\x00b"]
    );
    assert_eq!(
        rows(&t.ok(&["--format", "json", "scan", &table, "{COLUMNS => ['f:n']}"])),
        ["c"]
    );
    assert_eq!(
        rows(&t.ok(&[
            "--format",
            "json",
            "scan",
            &table,
            "{FILTER => \"ValueFilter(=, 'binary:x') OR PrefixFilter('z')\"}"
        ])),
        ["n", "z"]
    );
    assert_eq!(
        json_lines(&t.ok(&[
            "--format",
            "json",
            "scan",
            &table,
            "{VERSIONS => 5, COLUMNS => 'f:q', STOPROW => 'b'}"
        ]))
        .len(),
        2
    );
    let out = t.ok(&["scan", &table, "{LIMIT => 1}"]);
    assert!(out.ends_with("1 row(s)\n"), "{out}");

    // count (no progress bar when stderr is not a terminal).
    let out = t.run(&["count", &table]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ROW COUNT = 4\n");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // delete one column's versions, then a whole row.
    t.ok(&["delete", &table, "a\\x00b", "f:q"]);
    assert!(t.ok(&["get", &table, "a\\x00b"]).ends_with("0 row(s)\n"));
    t.ok(&["deleteall", &table, "z"]);
    assert_eq!(t.ok(&["--format", "raw", "count", &table]), "2\n");
}

#[test]
fn admin_commands_on_the_command_line() {
    let t = Target::start();
    let table = unique_table();
    let _guard = DropGuard(&t, table.clone());
    t.ok(&[
        "create",
        &table,
        "f",
        "{NAME => 'g', VERSIONS => 2, TTL => 86400}",
    ]);
    for row in ["b", "k", "t"] {
        t.ok(&["put", &table, row, "f:q", row]);
    }

    let listed = t.ok(&["list", "hbclient_cli_.*"]);
    assert!(listed.lines().any(|l| l == table), "{listed}");
    assert!(t.ok(&["list", "no_such_prefix_.*"]).ends_with("0 row(s)\n"));

    let described = json_lines(&t.ok(&["--format", "json", "describe", &table]));
    assert_eq!(described.len(), 2, "{described:?}");
    let g = described.iter().find(|f| f["family"] == "g").unwrap();
    assert_eq!(g["versions"], 2);
    assert_eq!(g["state"], "ENABLED");
    assert_eq!(g["ttl"], 86400);
    let f = described.iter().find(|f| f["family"] == "f").unwrap();
    assert_eq!(f["ttl"], "FOREVER");
    assert_eq!(g["regions"], 1);

    // status: every server hosting regions, hbase:meta's marked.
    let status = json_lines(&t.ok(&["--format", "json", "status"]));
    assert!(!status.is_empty());
    assert!(
        status.iter().any(|s| s["catalog"] == "hbase:meta"),
        "{status:?}"
    );
    assert!(status.iter().all(|s| s["regions"].as_i64().unwrap() >= 1));

    t.ok(&["flush", &table]);
    t.ok(&["split", &table, "k"]);
    let regions = json_lines(&t.ok(&["--format", "json", "regions", &table]));
    assert_eq!(regions.len(), 2, "{regions:?}");
    assert_eq!(regions[0]["start"], "");
    assert_eq!(regions[0]["end"], "k");
    assert_eq!(regions[1]["start"], "k");
    assert!(regions
        .iter()
        .all(|r| r["server"].as_str().unwrap().contains(':')));
    t.ok(&["compact", &table]);
    t.ok(&["major_compact", &table]);

    // move the upper region (to any server) by its encoded name; its rows stay readable.
    let encoded = regions[1]["region"].as_str().unwrap().to_string();
    t.ok(&["move", &encoded]);
    let mut tries = 0;
    loop {
        let out = t.run(&["--format", "raw", "get", &table, "t", "f:q"]);
        if out.status.success() && !out.stdout.is_empty() {
            break;
        }
        tries += 1;
        assert!(tries < 60, "row t unreadable after the move");
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert_eq!(t.ok(&["--format", "raw", "count", &table]), "3\n");

    // truncate (disables first) keeps the splits with truncate_preserve, not with truncate.
    t.ok(&["truncate_preserve", &table]);
    assert_eq!(t.ok(&["--format", "raw", "count", &table]), "0\n");
    assert!(t.ok(&["regions", &table]).ends_with("2 region(s)\n"));
    t.ok(&["truncate", &table]);
    assert!(t.ok(&["regions", &table]).ends_with("1 region(s)\n"));

    assert_eq!(
        t.ok(&["disable", &table]),
        format!("Disabled table {table}\n")
    );
    // A disabled table's reads fail with the server's reason.
    let out = t.run(&["get", &table, "b"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("TableNotEnabled"));
    t.ok(&["enable", &table]);
    t.ok(&["disable", &table]);
    assert_eq!(t.ok(&["drop", &table]), format!("Dropped table {table}\n"));
    assert!(t.ok(&["exists", &table]).contains("does not exist"));
}

#[test]
fn scripts_in_hbase_shell_syntax_on_stdin() {
    let t = Target::start();
    let table = unique_table();
    let _guard = DropGuard(&t, table.clone());
    let script = format!(
        "# a comment, then a blank line\n\n\
         create '{table}', {{NAME => 'f', VERSIONS => 2}}, SPLITS => ['m']\n\
         put '{table}', 'r1', 'f:a', \"tab\\there\"\n\
         put '{table}', \"r\\x002\", 'f:a', 'two'\n\
         incr '{table}', 'r3', 'f:n', 7\n\
         get '{table}', 'r1'\n\
         scan '{table}', {{COLUMNS => ['f:a'], LIMIT => 5}}\n\
         count '{table}'\n\
         exit\n\
         put '{table}', 'never', 'f:a', 'x'\n"
    );
    let out = t.script(&[], &script);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("Created table {table}")),
        "{stdout}"
    );
    assert!(stdout.contains("COUNTER VALUE = 7"), "{stdout}");
    assert!(stdout.contains("tab\\x09here"), "{stdout}");
    assert!(stdout.contains("r\\x002"), "{stdout}");
    assert!(stdout.contains("ROW COUNT = 3"), "{stdout}");
    // Nothing after `exit` ran.
    assert_eq!(t.ok(&["--format", "raw", "count", &table]), "3\n");

    // A failing line stops the script with its status and says which line.
    let out = t.script(
        &[],
        &format!("put '{table}', 'r4', 'f:a', 'x'\nput '{table}', 'r5' 'f:a'\nput '{table}', 'r6', 'f:a', 'x'\n"),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 2: syntax error at column") && stderr.contains("expected ','"),
        "{stderr}"
    );
    let out = t.script(
        &[],
        &format!("put '{table}', 'r7', 'f:a', 'x'\nget 'no_such_table_cli', 'r'\nput '{table}', 'r8', 'f:a', 'x'\n"),
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("TableNotFound") && stderr.contains("stopped at line 2"),
        "{stderr}"
    );
    let rows = json_lines(&t.ok(&["--format", "json", "scan", &table, "{STARTROW => 'r4'}"]));
    let keys: Vec<&str> = rows.iter().map(|r| r["row"].as_str().unwrap()).collect();
    assert_eq!(keys, ["r4", "r7"], "the lines after a failure did not run");
}

#[test]
fn bad_input_exits_with_status_2_and_says_why() {
    let t = Target::start();
    let cases: &[(&[&str], &str)] = &[
        (&["bogus"], "unknown command \"bogus\""),
        (&["put", "t", "r", "f:q"], "put: missing VALUE"),
        (&["scan", "t", "{LIMIT => }"], "syntax error"),
        (&["scan", "t", "{LIMT => 1}"], "unknown option LIMT"),
        (
            &["get", "t", "r", "{FILTER => \"Nope()\"}"],
            "unknown or unsupported filter",
        ),
        (&["list", "("], "bad regex"),
    ];
    for (args, want) in cases {
        let out = t.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
    // help needs no cluster.
    let out = Command::new(env!("CARGO_BIN_EXE_hbclient"))
        .args(["help"])
        .env_remove("HBASE_CONF_DIR")
        .env_remove("HBASE_ZOOKEEPER")
        .env_remove("HBASE_BOOTSTRAP")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("scan TABLE [, {COLUMNS =>"));
    // No cluster named at all.
    let out = Command::new(env!("CARGO_BIN_EXE_hbclient"))
        .args(["list"])
        .env_remove("HBASE_CONF_DIR")
        .env_remove("HBASE_ZOOKEEPER")
        .env_remove("HBASE_BOOTSTRAP")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no cluster given"));
    // A missing table is the server's error: status 1.
    let out = t.run(&["get", "no_such_table_cli", "r"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("TableNotFound"));
}

#[test]
fn embedded_mini_hbase() {
    let out = Command::new(env!("CARGO_BIN_EXE_hbclient"))
        .args(["--mini", "--format", "raw"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(
                b"create 't', 'f'\nput 't', 'r', 'f:q', 'v'\nget 't', 'r', 'f:q'\nlist\n",
            )?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("r\tf:q\t") && lines[0].ends_with("\tv"),
        "{stdout}"
    );
    assert_eq!(lines[1], "t");
}

#[test]
fn cluster_from_hbase_conf_dir() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mini = rt
        .block_on(mini_hbase::MiniCluster::start(
            mini_hbase::ClusterConfig::default(),
        ))
        .unwrap();
    let dir = std::env::temp_dir().join(format!("hbclient-cli-conf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("hbase-site.xml"),
        format!(
            "<?xml version=\"1.0\"?>\n<configuration>\n\
             <property><name>hbase.client.registry.impl</name>\
             <value>org.apache.hadoop.hbase.client.RpcConnectionRegistry</value></property>\n\
             <property><name>hbase.client.bootstrap.servers</name><value>{}</value></property>\n\
             </configuration>\n",
            mini.master_addr()
        ),
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_hbclient"))
            .args(args)
            .env("HBASE_CONF_DIR", &dir)
            .env_remove("HBASE_ZOOKEEPER")
            .env_remove("HBASE_BOOTSTRAP")
            .output()
            .unwrap()
    };
    let out = run(&["create", "conf_t", "f"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["--format", "raw", "list"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "conf_t\n");
    // A directory without hbase-site.xml or core-site.xml is bad input.
    let out = Command::new(env!("CARGO_BIN_EXE_hbclient"))
        .args(["--conf-dir", "/nonexistent-hbclient-conf", "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent-hbclient-conf"));
    std::fs::remove_dir_all(&dir).unwrap();
}
