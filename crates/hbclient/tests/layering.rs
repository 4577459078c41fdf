//! hbclient's modules import in one direction (ARCHITECTURE.md, "The operation engine"):
//! facades → connection → handles (table, admin, mutator) → engine → locate → rpc → config →
//! leaf modules (error, metrics, telemetry, tls, security, codec, hedge). This test reads every
//! `crate::<module>` path in `src/` (comments left out), and fails on an import that goes up a
//! layer, on a circle among the top-level modules, and on a circle among the submodules of one
//! directory (e.g. `table::scan` ⇄ `table::timeline`); and no source file over 1,000 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module and its layer (a module may use lower or equal layers, never higher).
const LAYERS: &[(&str, u8)] = &[
    // Facades over the async API, and the fuzzing entry points.
    ("blocking", 8),
    ("fuzzing", 8),
    ("guide", 8),
    // `Connection`: every handle's constructor.
    ("client", 7),
    // Handles and what they are made of.
    ("admin", 6),
    ("mutator", 6),
    ("slow_log", 6),
    ("table", 6),
    // One engine for every region call: shape, retries, the core handles share.
    ("engine", 5),
    // Region location.
    ("locate", 4),
    // Connections, pool, framing.
    ("rpc", 3),
    // Settings.
    ("config", 2),
    // Leaves.
    ("attributes", 1),
    ("codec", 1),
    ("hedge", 1),
    ("metrics", 1),
    ("security", 1),
    ("telemetry", 1),
    ("time", 1),
    ("tls", 1),
    ("wire", 1),
    ("error", 0),
];

/// `crate::` paths of one file, comment lines left out: the first segment after `crate::`
/// and, when there is one, the second.
fn paths(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        for (i, _) in line.match_indices("crate::") {
            let before = line[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &line[i + 7..];
            let segment = |s: &str| -> String {
                s.chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                    .collect()
            };
            let first = segment(rest);
            if first.is_empty() {
                continue;
            }
            let after = &rest[first.len()..];
            let second = after
                .strip_prefix("::")
                .map(segment)
                .filter(|s| !s.is_empty());
            out.push((first, second));
        }
    }
    out
}

/// Every `.rs` file under `dir` with its path relative to `src`.
fn files(src: &Path) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel: Vec<String> = path
                    .strip_prefix(src)
                    .unwrap()
                    .components()
                    .map(|c| {
                        c.as_os_str()
                            .to_string_lossy()
                            .trim_end_matches(".rs")
                            .to_string()
                    })
                    .collect();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out
}

/// Modules left after peeling off, again and again, those whose imports are all peeled: the
/// ones on (or above) an import circle.
fn in_circles(graph: &Graph) -> Vec<String> {
    let mut left = graph.clone();
    loop {
        let done: Vec<String> = left
            .iter()
            .filter(|(_, deps)| deps.iter().all(|d| !left.contains_key(d)))
            .map(|(m, _)| m.clone())
            .collect();
        if done.is_empty() {
            break;
        }
        for m in done {
            left.remove(&m);
        }
    }
    left.into_keys().collect()
}

/// Modules and the modules each one uses.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// The import graph of the top-level modules, and of each directory's submodules.
fn graphs(src: &Path) -> (Graph, BTreeMap<String, Graph>) {
    let mut top: Graph = BTreeMap::new();
    let mut inner: BTreeMap<String, Graph> = BTreeMap::new();
    for (rel, text) in files(src) {
        let module = rel[0].clone();
        if module == "lib" {
            continue;
        }
        let sub = rel.get(1).filter(|s| *s != "mod").cloned();
        let deps = top.entry(module.clone()).or_default();
        for (first, second) in paths(&text) {
            if first != module {
                deps.insert(first.clone());
            } else if let (Some(sub), Some(second)) = (&sub, &second) {
                if second != sub {
                    inner
                        .entry(module.clone())
                        .or_default()
                        .entry(sub.clone())
                        .or_default()
                        .insert(second.clone());
                }
            }
        }
    }
    (top, inner)
}

#[test]
fn modules_import_downward_without_circles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (graph, inner) = graphs(&src);
    let layer: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    for module in graph.keys() {
        assert!(
            layer.contains_key(module.as_str()),
            "module {module} has no layer in tests/layering.rs: place it"
        );
    }
    let mut upward = Vec::new();
    for (module, deps) in &graph {
        for dep in deps {
            let (from, to) = (layer[module.as_str()], layer.get(dep.as_str()));
            let to = to.unwrap_or_else(|| panic!("{module} uses crate::{dep}, which has no layer"));
            if *to > from {
                upward.push(format!("{module} (layer {from}) uses {dep} (layer {to})"));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports going up:\n{}",
        upward.join("\n")
    );
    let circle = in_circles(&graph);
    assert!(circle.is_empty(), "modules in an import circle: {circle:?}");
    for (dir, graph) in &inner {
        let circle = in_circles(graph);
        assert!(
            circle.is_empty(),
            "submodules of {dir} in an import circle: {circle:?}"
        );
    }
}

/// The checker itself finds what it must: an upward path, a circle, comments ignored.
#[test]
fn the_checker_sees_paths_and_circles() {
    let found =
        paths("use crate::engine::core::Core;\n// crate::blocking in a comment\nx(crate::rpc);");
    assert_eq!(
        found,
        [
            ("engine".to_string(), Some("core".to_string())),
            ("rpc".to_string(), None)
        ]
    );
    let mut g: Graph = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("a".into());
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(in_circles(&g), ["a", "b", "c"]);
    g.get_mut("b").unwrap().clear();
    assert!(in_circles(&g).is_empty());
}

/// A file that one reads once holds one idea: none in `src/` grows past 1,000 lines (split a
/// module's tests or a part with its own job into a file beside it).
#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let long: Vec<String> = files(&src)
        .into_iter()
        .filter(|(_, text)| text.lines().count() > 1000)
        .map(|(rel, text)| format!("{} ({} lines)", rel.join("/"), text.lines().count()))
        .collect();
    assert!(long.is_empty(), "files over 1,000 lines: {long:?}");
}
