//! mini-hbase's modules import in one direction (ARCHITECTURE.md, "mini-hbase layering"):
//! façade → server → handlers → region helpers and call types → cluster state → store, filters,
//! catalog, faults, exceptions. This test reads every `crate::<module>` reference in `src/` and
//! fails on an import that goes up a layer or on any circle among the modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module and its layer (higher may use lower or equal, never the other way).
const LAYERS: &[(&str, u8)] = &[
    // Façade: MiniCluster and its test controls.
    ("cluster", 6),
    // Server: sockets, framing, handshake, dispatch.
    ("server", 5),
    // Service handlers.
    ("client_service", 4),
    ("multi", 4),
    ("scanner", 4),
    ("master_service", 4),
    ("admin_ops", 4),
    ("registry", 4),
    // Cellblock compression of a connection's calls (uses call types).
    ("compression", 4),
    // Region helpers and call types.
    ("call", 3),
    ("region_ops", 3),
    ("condition", 3),
    ("meta_table", 3),
    // Cluster state: regions, servers, scanner leases, procedures, split/move.
    ("state", 2),
    ("leases", 2),
    // Store, filters, catalog, faults, exceptions and the transports below everything.
    ("catalog", 1),
    ("store", 1),
    ("filter", 1),
    ("faults", 1),
    ("request_log", 1),
    ("exception", 1),
    ("tls", 1),
    ("zk", 1),
];

/// `crate::<module>` references of every top-level module (a directory counts as one module).
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap();
            let top = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            let module = top.trim_end_matches(".rs").to_string();
            if module == "lib" || module == "bin" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let deps = graph.entry(module.clone()).or_default();
            for (i, _) in text.match_indices("crate::") {
                // Only this crate's paths (`crate::x`), not an identifier ending in "crate".
                let before = text[..i].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let name: String = text[i + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                    .collect();
                if !name.is_empty() && name != module {
                    deps.insert(name);
                }
            }
        }
    }
    graph
}

/// Modules left after peeling off, again and again, those whose imports are all peeled: the
/// ones on (or above) an import circle.
fn in_circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
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

#[test]
fn modules_import_downward_without_circles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = imports(&src);
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
            if let (Some(from), Some(to)) = (layer.get(module.as_str()), layer.get(dep.as_str())) {
                if to > from {
                    upward.push(format!("{module} (layer {from}) uses {dep} (layer {to})"));
                }
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports going up:\n{}",
        upward.join("\n")
    );

    // No circle, even inside a layer.
    let circle = in_circles(&graph);
    assert!(circle.is_empty(), "modules in an import circle: {circle:?}");
}

#[test]
fn the_checker_finds_a_circle() {
    // The peeling above must not pass a graph with a circle.
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.insert("a".into(), ["b".to_string()].into());
    graph.insert("b".into(), ["a".to_string()].into());
    graph.insert("c".into(), BTreeSet::new());
    assert_eq!(in_circles(&graph), ["a", "b"]);
}
