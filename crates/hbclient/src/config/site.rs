//! Hadoop-style site files (`core-site.xml`, `hbase-site.xml`): reading their properties
//! (with `${name}` expansion) and applying them leniently, skipping keys hbclient does not use.

use std::path::Path;

use super::ConfigBuilder;
use crate::error::{Error, Result};

impl ConfigBuilder {
    /// Reads `core-site.xml` and then `hbase-site.xml` from `dir` (either may be missing, not
    /// both), as [`Config::from_conf_dir`](crate::Config::from_conf_dir) describes.
    pub fn load_conf_dir(self, dir: impl AsRef<Path>) -> Result<ConfigBuilder> {
        let dir = dir.as_ref();
        let core = dir.join("core-site.xml");
        let hbase = dir.join("hbase-site.xml");
        if !core.is_file() && !hbase.is_file() {
            return Err(Error::invalid(format!(
                "configuration directory {} has neither hbase-site.xml nor core-site.xml",
                dir.display()
            )));
        }
        let mut builder = self;
        for file in [core, hbase] {
            if file.is_file() {
                builder = builder.load_site_file(&file)?;
            }
        }
        Ok(builder)
    }

    /// Applies one Hadoop-style XML file (`<configuration><property><name>…<value>…`). Keys
    /// hbclient does not use are skipped with a debug log.
    pub fn load_site_file(mut self, path: impl AsRef<Path>) -> Result<ConfigBuilder> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::invalid(format!("cannot read {}: {e}", path.display())))?;
        for (key, value) in site_properties(&text)
            .map_err(|e| Error::invalid(format!("{}: {e}", path.display())))?
        {
            match self.apply(&key, &value) {
                Ok(true) => {}
                Ok(false) => {
                    tracing::debug!(file = %path.display(), key, "key not used by hbclient; skipped")
                }
                Err(e) => {
                    return Err(Error::invalid(format!(
                        "{}: {}",
                        path.display(),
                        e.message()
                    )))
                }
            }
        }
        Ok(self)
    }
}

/// The `(name, value)` pairs of a Hadoop configuration file, in file order. Properties without
/// a name are skipped; a missing value is the empty string. `${name}` references to other
/// properties of the same file and to environment variables (`${env.NAME}`) are expanded, as
/// Hadoop's `Configuration` does.
fn site_properties(xml: &str) -> std::result::Result<Vec<(String, String)>, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("not valid XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "configuration" {
        return Err(format!(
            "the root element is <{}>, not <configuration>",
            root.tag_name().name()
        ));
    }
    let mut raw = Vec::new();
    for property in root
        .children()
        .filter(|n| n.is_element() && n.tag_name().name() == "property")
    {
        let child = |tag: &str| {
            property
                .children()
                .find(|n| n.is_element() && n.tag_name().name() == tag)
                .map(|n| n.text().unwrap_or_default().trim().to_string())
        };
        if let Some(name) = child("name").filter(|n| !n.is_empty()) {
            raw.push((name, child("value").unwrap_or_default()));
        }
    }
    let lookup: std::collections::HashMap<String, String> = raw.iter().cloned().collect();
    Ok(raw
        .into_iter()
        .map(|(k, v)| {
            let v = expand(&v, &lookup, 0);
            (k, v)
        })
        .collect())
}

/// Expands `${name}` and `${env.NAME}`; unknown references stay as written.
pub(super) fn expand(
    value: &str,
    props: &std::collections::HashMap<String, String>,
    depth: u32,
) -> String {
    if depth > 20 || !value.contains("${") {
        return value.to_string();
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = &after[..end];
        let replacement = match name.strip_prefix("env.") {
            Some(var) => std::env::var(var).ok(),
            None => props.get(name).map(|v| expand(v, props, depth + 1)),
        };
        match replacement {
            Some(r) => out.push_str(&r),
            None => out.push_str(&rest[start..start + 2 + end + 1]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}
