//! `grep package QUERY`: the dependencies the workspace declares (Cargo.toml and
//! Cargo.lock, package.json, pyproject.toml, requirements*.txt, go.mod), ranked by how well
//! their names match the query.

use super::GrepArgs;
use crate::command::{Cx, Io};

/// One declared (or locked) dependency.
#[derive(Debug, Clone)]
struct Dep {
    name: String,
    /// The requirement as written (`"1.0"`, `^4.2`, `>=2`), or the locked version.
    version: String,
    /// Where: `Cargo.toml [dev-dependencies]`.
    section: String,
    file: String,
    line: usize,
}

/// Manifest file names this mode reads.
fn is_manifest(name: &str) -> bool {
    matches!(
        name,
        "Cargo.toml" | "Cargo.lock" | "package.json" | "pyproject.toml" | "go.mod"
    ) || (name.starts_with("requirements") && name.ends_with(".txt"))
}

pub(super) fn run(a: &GrepArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let query = a.query.clone().unwrap_or_default().to_lowercase();
    let terms: Vec<&str> = query
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    let mut deps = Vec::new();
    let mut manifests = 0;
    for file in super::skills::walk_files(cx, is_manifest) {
        let Ok((_, bytes)) = cx.fs.read_file(&Default::default(), &file) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        manifests += 1;
        let base = file.rsplit('/').next().unwrap_or(&file);
        match base {
            "Cargo.toml" => cargo_toml(&file, &text, &mut deps),
            "Cargo.lock" => cargo_lock(&file, &text, &mut deps),
            "package.json" => package_json(&file, &text, &mut deps),
            "pyproject.toml" => pyproject(&file, &text, &mut deps),
            "go.mod" => go_mod(&file, &text, &mut deps),
            _ => requirements(&file, &text, &mut deps),
        }
    }
    let mut scored: Vec<(u32, Dep)> = deps
        .into_iter()
        .filter_map(|d| {
            let s = score(&d.name.to_lowercase(), &terms);
            // Declared requirements outrank lock entries for the same name.
            let s = if d.section.ends_with("Cargo.lock") {
                s.saturating_sub(1)
            } else {
                s
            };
            (s > 0).then_some((s, d))
        })
        .collect();
    scored.sort_by(|(sa, a), (sb, b)| {
        sb.cmp(sa)
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.file.cmp(&b.file))
            .then_with(|| a.line.cmp(&b.line))
    });
    if scored.is_empty() {
        let _ = writeln!(
            io.stderr,
            "grep package: no declared dependency matches '{}' ({manifests} manifest{} read)",
            a.query.as_deref().unwrap_or(""),
            if manifests == 1 { "" } else { "s" }
        );
        return 1;
    }
    let limit = a.limit.unwrap_or(10);
    let mut out = String::new();
    for (_, d) in scored.iter().take(limit) {
        out.push_str(&format!(
            "{} {}  ({}:{} {})\n",
            d.name, d.version, d.file, d.line, d.section
        ));
    }
    if scored.len() > limit {
        out.push_str(&format!(
            "... {} more (raise the limit to see them)\n",
            scored.len() - limit
        ));
    }
    if io.stdout.write_all(out.as_bytes()).is_err() {
        return 1;
    }
    0
}

/// How well a dependency name matches the query terms (0: not at all).
fn score(name: &str, terms: &[&str]) -> u32 {
    let words: Vec<&str> = name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let joined = terms.join("-");
    if name == joined || name.replace('_', "-") == joined {
        return 100;
    }
    let mut s = 0;
    for t in terms {
        if words.contains(t) {
            s += 20;
        } else if name.starts_with(t) {
            s += 15;
        } else if name.contains(t) {
            s += 10;
        }
    }
    s
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map_or(1, |i| i + 1)
}

fn toml_version(item: &toml_edit::Item) -> String {
    if let Some(s) = item.as_str() {
        return s.to_string();
    }
    if let Some(t) = item.as_table_like() {
        if let Some(v) = t.get("version").and_then(|v| v.as_str()) {
            return v.to_string();
        }
        if t.get("workspace").and_then(|v| v.as_bool()) == Some(true) {
            return "(workspace)".to_string();
        }
        if let Some(p) = t.get("path").and_then(|v| v.as_str()) {
            return format!("(path {p})");
        }
        if let Some(g) = t.get("git").and_then(|v| v.as_str()) {
            return format!("(git {g})");
        }
    }
    "*".to_string()
}

fn cargo_toml(file: &str, text: &str, deps: &mut Vec<Dep>) {
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return;
    };
    const SECTIONS: &[&str] = &["dependencies", "dev-dependencies", "build-dependencies"];
    let mut tables: Vec<(String, &dyn toml_edit::TableLike)> = Vec::new();
    for s in SECTIONS {
        if let Some(t) = doc.get(s).and_then(|i| i.as_table_like()) {
            tables.push((s.to_string(), t));
        }
    }
    if let Some(t) = doc
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(|i| i.as_table_like())
    {
        tables.push(("workspace.dependencies".to_string(), t));
    }
    if let Some(targets) = doc.get("target").and_then(|i| i.as_table_like()) {
        for (cfg, item) in targets.iter() {
            for s in SECTIONS {
                if let Some(t) = item.get(s).and_then(|i| i.as_table_like()) {
                    tables.push((format!("target.{cfg}.{s}"), t));
                }
            }
        }
    }
    for (section, table) in tables {
        for (name, item) in table.iter() {
            deps.push(Dep {
                name: name.to_string(),
                version: toml_version(item),
                section: format!("Cargo.toml [{section}]"),
                file: file.to_string(),
                line: line_of(text, &format!("{name} ")).max(line_of(text, name)),
            });
        }
    }
}

fn cargo_lock(file: &str, text: &str, deps: &mut Vec<Dep>) {
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return;
    };
    let Some(pkgs) = doc.get("package").and_then(|p| p.as_array_of_tables()) else {
        return;
    };
    for p in pkgs.iter() {
        let (Some(name), Some(version)) = (
            p.get("name").and_then(|v| v.as_str()),
            p.get("version").and_then(|v| v.as_str()),
        ) else {
            continue;
        };
        // Workspace members have no source; they are not dependencies.
        if p.get("source").is_none() {
            continue;
        }
        deps.push(Dep {
            name: name.to_string(),
            version: version.to_string(),
            section: "locked in Cargo.lock".to_string(),
            file: file.to_string(),
            line: line_of(text, &format!("name = \"{name}\"")),
        });
    }
}

fn package_json(file: &str, text: &str, deps: &mut Vec<Dep>) {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    for section in [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ] {
        let Some(map) = v.get(section).and_then(|m| m.as_object()) else {
            continue;
        };
        for (name, req) in map {
            deps.push(Dep {
                name: name.clone(),
                version: req.as_str().unwrap_or("*").to_string(),
                section: format!("package.json {section}"),
                file: file.to_string(),
                line: line_of(text, &format!("\"{name}\"")),
            });
        }
    }
}

/// Split a PEP 508 requirement (`requests[socks]>=2.0; python_version<'3.8'`) into name and
/// version spec.
fn pep508(req: &str) -> Option<(String, String)> {
    let req = req.split(';').next()?.trim();
    if req.is_empty() || req.starts_with('#') || req.starts_with('-') {
        return None;
    }
    let end = req
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(req.len());
    let name = req[..end].to_string();
    if name.is_empty() {
        return None;
    }
    let rest = req[end..].trim();
    let rest = if rest.starts_with('[') {
        rest.split_once(']').map_or("", |(_, r)| r).trim()
    } else {
        rest
    };
    Some((
        name,
        if rest.is_empty() {
            "*".into()
        } else {
            rest.into()
        },
    ))
}

fn pyproject(file: &str, text: &str, deps: &mut Vec<Dep>) {
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return;
    };
    let mut push = |req: &str, section: &str| {
        if let Some((name, version)) = pep508(req) {
            deps.push(Dep {
                line: line_of(text, &name),
                name,
                version,
                section: format!("pyproject.toml {section}"),
                file: file.to_string(),
            });
        }
    };
    if let Some(list) = doc
        .get("project")
        .and_then(|p| p.get("dependencies"))
        .and_then(|d| d.as_array())
    {
        for r in list.iter().filter_map(|v| v.as_str()) {
            push(r, "[project.dependencies]");
        }
    }
    if let Some(opt) = doc
        .get("project")
        .and_then(|p| p.get("optional-dependencies"))
        .and_then(|d| d.as_table_like())
    {
        for (group, list) in opt.iter() {
            if let Some(list) = list.as_array() {
                for r in list.iter().filter_map(|v| v.as_str()) {
                    push(r, &format!("[project.optional-dependencies.{group}]"));
                }
            }
        }
    }
    if let Some(t) = doc
        .get("tool")
        .and_then(|t| t.get("poetry"))
        .and_then(|p| p.get("dependencies"))
        .and_then(|d| d.as_table_like())
    {
        for (name, item) in t.iter() {
            if name == "python" {
                continue;
            }
            deps.push(Dep {
                name: name.to_string(),
                version: toml_version(item),
                section: "pyproject.toml [tool.poetry.dependencies]".to_string(),
                file: file.to_string(),
                line: line_of(text, name),
            });
        }
    }
}

fn requirements(file: &str, text: &str, deps: &mut Vec<Dep>) {
    for (i, l) in text.lines().enumerate() {
        let l = l.split(" #").next().unwrap_or(l);
        if let Some((name, version)) = pep508(l) {
            deps.push(Dep {
                name,
                version,
                section: file.rsplit('/').next().unwrap_or(file).to_string(),
                file: file.to_string(),
                line: i + 1,
            });
        }
    }
}

fn go_mod(file: &str, text: &str, deps: &mut Vec<Dep>) {
    let mut in_block = false;
    for (i, l) in text.lines().enumerate() {
        let l = l.split("//").next().unwrap_or("").trim();
        let spec = if in_block {
            if l == ")" {
                in_block = false;
                continue;
            }
            l
        } else if l == "require (" {
            in_block = true;
            continue;
        } else if let Some(r) = l.strip_prefix("require ") {
            r.trim()
        } else {
            continue;
        };
        let mut parts = spec.split_whitespace();
        if let (Some(name), Some(version)) = (parts.next(), parts.next()) {
            deps.push(Dep {
                name: name.to_string(),
                version: version.to_string(),
                section: "go.mod require".to_string(),
                file: file.to_string(),
                line: i + 1,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn requirement_names() {
        assert_eq!(
            super::pep508("requests[socks]>=2.0; python_version<'3.8'"),
            Some(("requests".into(), ">=2.0".into()))
        );
        assert_eq!(super::pep508("Django"), Some(("Django".into(), "*".into())));
        assert_eq!(super::pep508("# comment"), None);
        assert_eq!(super::pep508("-r other.txt"), None);
    }

    #[test]
    fn scores() {
        assert_eq!(super::score("serde_json", &["serde_json"]), 100);
        assert!(super::score("serde_json", &["json"]) > super::score("jsonschema", &["json"]));
        assert_eq!(super::score("tokio", &["serde"]), 0);
    }
}
