//! `grep skill QUERY`: ranked search over the workspace's Markdown docs. Each file is cut
//! into sections at its headings and sections are ranked with BM25, headings and file
//! names counting double, so "how do I release" finds `docs/release.md ## Publishing`.

use std::collections::HashMap;

use super::GrepArgs;
use crate::command::{Cx, Io};

/// Most files a semantic walk reads.
const MAX_FILES: usize = 20_000;

/// Workspace files (relative to the root) whose base name passes `want`, in name order:
/// gitignore-aware, skipping hidden, `node_modules`, `target` and `vendor` directories and
/// paths this caller may not read.
pub(super) fn walk_files(cx: &Cx<'_>, want: fn(&str) -> bool) -> Vec<String> {
    let root = cx.fs.root();
    let base = root.path().to_path_buf();
    let mut builder = ignore::WalkBuilder::new(&base);
    builder
        .follow_links(false)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|e| {
            !(e.depth() > 0
                && e.file_type().is_some_and(|t| t.is_dir())
                && matches!(
                    e.file_name().to_str(),
                    Some("node_modules" | "target" | "vendor")
                ))
        });
    let mut files = Vec::new();
    for entry in builder.build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(name) = entry.file_name().to_str() else {
            continue;
        };
        if !want(name) {
            continue;
        }
        let Some(rel) = entry
            .path()
            .strip_prefix(&base)
            .ok()
            .and_then(|p| p.to_str())
        else {
            continue;
        };
        let Ok(rel) = root.lexical(rel) else {
            continue;
        };
        if cx.fs.readable(&rel) {
            files.push(rel.as_str().to_string());
        }
        if files.len() >= MAX_FILES {
            break;
        }
    }
    files
}

fn is_markdown(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown") || lower.ends_with(".mdx")
}

/// Lowercase words of two or more letters or digits.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1)
        .map(str::to_lowercase)
}

/// A heading and the text under it, up to the next heading.
struct Section {
    file: String,
    line: usize,
    heading: String,
    body: String,
}

fn sections(file: &str, text: &str) -> Vec<Section> {
    let mut out = vec![Section {
        file: file.to_string(),
        line: 1,
        heading: String::new(),
        body: String::new(),
    }];
    let mut fenced = false;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        }
        if !fenced && t.starts_with('#') && t.trim_start_matches('#').starts_with(' ') {
            out.push(Section {
                file: file.to_string(),
                line: i + 1,
                heading: t.to_string(),
                body: String::new(),
            });
            continue;
        }
        let s = out.last_mut().expect("at least one section");
        s.body.push_str(l);
        s.body.push('\n');
    }
    out.retain(|s| !s.heading.is_empty() || !s.body.trim().is_empty());
    out
}

pub(super) fn run(a: &GrepArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let query = a.query.clone().unwrap_or_default();
    let mut terms: Vec<String> = tokens(&query).collect();
    terms.sort();
    terms.dedup();
    if terms.is_empty() {
        let _ = writeln!(
            io.stderr,
            "grep skill: the query has no words to search for"
        );
        return 2;
    }
    let files = walk_files(cx, is_markdown);
    let mut all = Vec::new();
    for f in &files {
        if let Ok((_, bytes)) = cx.fs.read_file(&Default::default(), f) {
            all.extend(sections(f, &String::from_utf8_lossy(&bytes)));
        }
    }
    // BM25 over sections; terms in the heading or file name count double.
    let docs: Vec<HashMap<String, f64>> = all
        .iter()
        .map(|s| {
            let mut tf: HashMap<String, f64> = HashMap::new();
            for t in tokens(&s.body) {
                *tf.entry(t).or_default() += 1.0;
            }
            for t in tokens(&s.heading).chain(tokens(&s.file)) {
                *tf.entry(t).or_default() += 2.0;
            }
            tf
        })
        .collect();
    let lens: Vec<f64> = docs.iter().map(|d| d.values().sum()).collect();
    let n = docs.len().max(1) as f64;
    let avg = (lens.iter().sum::<f64>() / n).max(1.0);
    let (k1, b) = (1.2, 0.75);
    let mut scored: Vec<(f64, usize)> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let mut s = 0.0;
        for t in &terms {
            let Some(&f) = d.get(t) else { continue };
            let df = docs.iter().filter(|d| d.contains_key(t)).count() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            s += idf * f * (k1 + 1.0) / (f + k1 * (1.0 - b + b * lens[i] / avg));
        }
        if s > 0.0 {
            scored.push((s, i));
        }
    }
    scored.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    if scored.is_empty() {
        let _ = writeln!(
            io.stderr,
            "grep skill: nothing in {} Markdown file{} matches '{query}'",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
        return 1;
    }
    let mut out = String::new();
    for (score, i) in scored.iter().take(a.limit.unwrap_or(10)) {
        let s = &all[*i];
        let title = if s.heading.is_empty() {
            "(top of file)"
        } else {
            &s.heading
        };
        out.push_str(&format!("{}:{}  {title}  [{score:.2}]\n", s.file, s.line));
        if let Some(snippet) = s.body.lines().find(|l| {
            let lower = l.to_lowercase();
            terms.iter().any(|t| lower.contains(t.as_str()))
        }) {
            let snippet: String = snippet.trim().chars().take(160).collect();
            out.push_str(&format!("    {snippet}\n"));
        }
    }
    if io.stdout.write_all(out.as_bytes()).is_err() {
        return 1;
    }
    0
}
