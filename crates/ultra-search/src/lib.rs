//! Find in files over a confined workspace, on every core as ripgrep does: gitignore-aware,
//! hidden files and symlinks left out, files read through the confined root (protected
//! paths skipped), open buffers searched as edited. Matches come in path order with
//! 0-based ranges in the caller's position encoding and a preview of their line. The
//! `search.*` commands in `ultra-commands` declare the wire shapes around it.

pub mod trigram;

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use globset::{Glob, GlobMatcher};
use regex::bytes::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_protocol::{CommandError, ErrorCode, Position, PositionEncoding, Range};
use ultra_workspace::Root;

/// Default and largest number of matches in one answer.
pub const DEFAULT_MAX: usize = 2_000;
pub const MAX_MAX: usize = 100_000;
/// Longest preview line.
pub const PREVIEW_CHARS: usize = 200;

/// Seed 003's `SearchOptions`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SearchOptions {
    /// Only files whose workspace path matches this glob (`src/**/*.ts`, `*.rs`).
    pub include: Option<String>,
    /// Leave out files whose path matches this glob.
    pub exclude: Option<String>,
    /// Most matches returned (default 2,000, at most 100,000).
    pub max_results: Option<usize>,
    /// The query is a regular expression (default: literal text).
    #[serde(default)]
    pub use_regex: bool,
    /// Match case (default: ignore it).
    #[serde(default)]
    pub case_sensitive: bool,
    /// Match whole words only.
    #[serde(default)]
    pub whole_word: bool,
}

/// One match.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Match {
    /// 0-based, in the caller's position encoding.
    pub range: Range,
    /// The matching line (trimmed to 200 characters).
    pub preview: String,
    /// Exactly what matched (kept for replacements only).
    #[serde(skip)]
    #[schemars(skip)]
    pub text: Vec<u8>,
}

/// The matches in one file.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchResult {
    pub path: String,
    pub matches: Vec<Match>,
}

/// What `search.findInFiles` found.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Found {
    /// Files in path order.
    pub results: Vec<SearchResult>,
    /// Matches returned.
    pub count: usize,
    /// More matched than `maxResults`.
    pub truncated: bool,
    /// Files left out because they are hard-linked (reading through a hard link is refused
    /// unless `security.allowHardlinkReads` allows it), before the last file shown when the
    /// answer is cut; absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped_hard_links: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A compiled query. Whole-word matching with Unicode `\b` keeps the regex crate off its
/// fastest engines (2.4x slower on a large tree); in a file that is all ASCII, ASCII `\b`
/// means exactly the same, so such files are searched with that variant.
pub struct Query {
    /// The regex (its captures expand replacements).
    pub re: Regex,
    ascii: Option<Regex>,
    /// The query was literal text (its replacement is used as is, not expanded).
    pub literal: bool,
    /// The trigrams every match contains, for an index to pick the files that may match.
    pub grams: trigram::Query,
}

impl Query {
    /// The regex to search `text` with.
    fn for_text(&self, text: &[u8]) -> &Regex {
        match &self.ascii {
            Some(a) if text.is_ascii() => a,
            _ => &self.re,
        }
    }
}

/// The longest query, in characters. Matching time grows with the pattern's length times
/// the text's, and past about 1,500 characters the regex engine's fast paths give up: a
/// 2,000-character query took 0.8 s on one small file, a 70,000-character one over a
/// minute (ripgrep: two), holding a request thread all the while.
pub const MAX_QUERY_CHARS: usize = 1000;

/// Compile a query with `o`'s regex, case and whole-word options.
pub fn compile(query: &str, o: &SearchOptions) -> Result<Query, CommandError> {
    if query.is_empty() {
        return Err(CommandError::new(
            ErrorCode::InvalidArguments,
            "empty query",
        ));
    }
    let chars = query.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(CommandError::new(
            ErrorCode::InvalidArguments,
            format!("the query has {chars} characters; at most {MAX_QUERY_CHARS}"),
        )
        .with_suggestion(
            "search for a distinctive part of it (a line or a name), then read around the matches",
        ));
    }
    let pattern = if o.use_regex {
        query.to_string()
    } else {
        regex::escape(query)
    };
    let build = |pattern: &str| {
        regex::bytes::RegexBuilder::new(pattern)
            .case_insensitive(!o.case_sensitive)
            .multi_line(true)
            .size_limit(1 << 24)
            .build()
            .map_err(|e| {
                CommandError::new(ErrorCode::InvalidArguments, format!("query: {e}"))
                    .with_suggestion(
                        "escape regex characters, or search literal text (useRegex: false)",
                    )
            })
    };
    let grams = trigram::Query::regex(&pattern, !o.case_sensitive).unwrap_or(trigram::Query::All);
    let (re, ascii) = if o.whole_word {
        (
            build(&format!(r"\b(?:{pattern})\b"))?,
            Some(build(&format!(r"(?-u:\b)(?:{pattern})(?-u:\b)"))?),
        )
    } else {
        (build(&pattern)?, None)
    };
    Ok(Query {
        re,
        ascii,
        literal: !o.use_regex,
        grams,
    })
}

/// Which files a search reads.
#[derive(Debug, Clone)]
pub enum Files {
    /// Walk the workspace ([`walker`]).
    Walk,
    /// These workspace paths, sorted: an index's candidates, every file of the walk that
    /// may hold a match (and every open buffer among them).
    Listed(Vec<String>),
}

/// The walk a search makes of the tree under `base`: gitignore-aware (with or without a
/// repository), hidden files and directories left out, symlinks not followed. An index of
/// what searches read walks with it too, so both read the same files.
pub fn walker(base: &std::path::Path) -> ignore::WalkBuilder {
    let mut b = ignore::WalkBuilder::new(base);
    b.follow_links(false).require_git(false);
    b
}

/// The file at workspace path `rel` as a search reads it: confined, and not protected
/// (protected paths, `.git` and restricted globs, are not searched for agents).
pub fn searchable(root: &Root, rel: &str) -> Option<ultra_workspace::RelPath> {
    let r = root.lexical(rel).ok()?;
    root.check_readable(&r, false).is_ok().then_some(r)
}

/// Every match of `query` in the files `o` selects among `files`, the first `o.maxResults`
/// in path order (the same whichever way the files are found, and however many threads
/// search); with `keep`, each match keeps the exact text it matched (for replacing). Open
/// buffers (`buffers`, path to text) answer with their text; everything else is read from
/// disk.
pub fn find(
    root: &Root,
    buffers: &HashMap<String, String>,
    query: &Query,
    o: &SearchOptions,
    enc: PositionEncoding,
    keep: bool,
    files: &Files,
) -> Result<Found, CommandError> {
    let glob = |g: &Option<String>, what: &str| -> Result<Option<GlobMatcher>, CommandError> {
        g.as_deref()
            .filter(|g| !g.is_empty())
            .map(|g| {
                // A glob without a slash matches a file name anywhere.
                let g = if g.contains('/') {
                    g.to_string()
                } else {
                    format!("**/{g}")
                };
                Glob::new(&g).map(|g| g.compile_matcher()).map_err(|e| {
                    CommandError::new(ErrorCode::InvalidArguments, format!("{what}: {e}"))
                })
            })
            .transpose()
    };
    let include = glob(&o.include, "include")?;
    let exclude = glob(&o.exclude, "exclude")?;
    let max = o.max_results.unwrap_or(DEFAULT_MAX).clamp(1, MAX_MAX);
    // The refused hard links met, by path: an answer that is cut counts those before the cut.
    let hard_links = Mutex::new(Vec::new());
    // The matches in one file (up to one more than the cap: enough to know it is cut).
    let search_file = |rel: &str, buf: &mut Vec<u8>| -> Vec<Match> {
        if include.as_ref().is_some_and(|g| !g.is_match(rel))
            || exclude.as_ref().is_some_and(|g| g.is_match(rel))
        {
            return Vec::new();
        }
        let Some(r) = searchable(root, rel) else {
            return Vec::new();
        };
        let text: &[u8] = match buffers.get(rel) {
            Some(t) => t.as_bytes(),
            None if read(root, &r, buf, &|| lock(&hard_links).push(rel.to_string())) => buf,
            None => return Vec::new(),
        };
        search(query.for_text(text), text, enc, max + 1, keep)
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_file = match files {
        Files::Walk => walk_search(root, threads, max, &search_file),
        Files::Listed(paths) => listed_search(paths, threads, max, &search_file),
    };
    let mut results = Vec::new();
    let mut count = 0;
    let mut truncated = false;
    for mut r in per_file {
        if count + r.matches.len() > max {
            r.matches.truncate(max - count);
            truncated = true;
        }
        count += r.matches.len();
        if !r.matches.is_empty() {
            results.push(r);
        }
        if truncated {
            break;
        }
    }
    let mut hard_links = hard_links.into_inner().unwrap_or_else(|p| p.into_inner());
    if truncated && let Some(cut) = results.last().map(|r| r.path.as_str()) {
        hard_links.retain(|p| p.as_str() < cut);
    }
    Ok(Found {
        results,
        count,
        truncated,
        skipped_hard_links: hard_links.len(),
    })
}

/// The per-file matches of a walk, in path order: every file is searched except those
/// after a point where more than `max` matches are already known, and only the files
/// before that point are kept.
fn walk_search(
    root: &Root,
    threads: usize,
    max: usize,
    search_file: &(dyn Fn(&str, &mut Vec<u8>) -> Vec<Match> + Sync),
) -> Vec<SearchResult> {
    let kept = Mutex::new(Prefix::default());
    let base = root.path().to_path_buf();
    walker(&base).threads(threads).build_parallel().run(|| {
        let (kept, base) = (&kept, &base);
        // One read buffer per thread, reused for every file it reads.
        let mut buf = Vec::new();
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return ignore::WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return ignore::WalkState::Continue;
            }
            let Some(rel) = entry
                .path()
                .strip_prefix(base)
                .ok()
                .and_then(|p| p.to_str())
            else {
                return ignore::WalkState::Continue;
            };
            if lock(kept).past(rel, max) {
                return ignore::WalkState::Continue;
            }
            let matches = search_file(rel, &mut buf);
            if !matches.is_empty() {
                lock(kept).add(rel.to_string(), matches, max);
            }
            ignore::WalkState::Continue
        })
    });
    let kept = kept.into_inner().unwrap_or_else(|p| p.into_inner());
    kept.files
        .into_iter()
        .map(|(path, matches)| SearchResult { path, matches })
        .collect()
}

/// The files with matches found so far, by path, kept only as far as the first `max + 1`
/// matches in path order reach.
#[derive(Default)]
struct Prefix {
    files: std::collections::BTreeMap<String, Vec<Match>>,
    matches: usize,
}

impl Prefix {
    fn add(&mut self, path: String, matches: Vec<Match>, max: usize) {
        self.matches += matches.len();
        self.files.insert(path, matches);
        // The last file is not needed when the files before it hold more than `max`.
        while let Some((_, last)) = self.files.last_key_value() {
            if self.matches - last.len() <= max {
                break;
            }
            self.matches -= last.len();
            self.files.pop_last();
        }
    }

    /// `path` comes after more than `max` matches: nothing in it can be in the answer.
    fn past(&self, path: &str, max: usize) -> bool {
        self.matches > max
            && self
                .files
                .last_key_value()
                .is_some_and(|(last, _)| path > last.as_str())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The per-file matches of `paths` (sorted), searched on `threads` threads in order,
/// stopping once the files searched from the first on hold more than `max` matches.
fn listed_search(
    paths: &[String],
    threads: usize,
    max: usize,
    search_file: &(dyn Fn(&str, &mut Vec<u8>) -> Vec<Match> + Sync),
) -> Vec<SearchResult> {
    /// Results by position, and how far from the first they are all in.
    struct Ordered {
        slots: Vec<Option<Vec<Match>>>,
        done: usize,
        matches: usize,
    }
    let next = AtomicUsize::new(0);
    // Positions from here on are not needed.
    let stop = AtomicUsize::new(paths.len());
    let ordered = Mutex::new(Ordered {
        slots: (0..paths.len()).map(|_| None).collect(),
        done: 0,
        matches: 0,
    });
    let work = || {
        let mut buf = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= stop.load(Ordering::Relaxed) {
                return;
            }
            let matches = search_file(&paths[i], &mut buf);
            let mut o = lock(&ordered);
            o.slots[i] = Some(matches);
            while o.done < paths.len() {
                let Some(found) = &o.slots[o.done] else { break };
                let n = found.len();
                o.matches += n;
                o.done += 1;
                if o.matches > max {
                    stop.store(o.done, Ordering::Relaxed);
                    break;
                }
            }
        }
    };
    let threads = threads.min(paths.len()).max(1);
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 1..threads {
                s.spawn(work);
            }
            work();
        });
    }
    let o = ordered.into_inner().unwrap_or_else(|p| p.into_inner());
    let stop = stop.into_inner();
    paths
        .iter()
        .zip(o.slots)
        .take(stop)
        .filter_map(|(path, matches)| {
            let matches = matches?;
            (!matches.is_empty()).then(|| SearchResult {
                path: path.clone(),
                matches,
            })
        })
        .collect()
}

/// Read a workspace file through the confined root into `buf`; false for binary or
/// unreadable files. A refused hard link is told to `refused`, for the answer.
fn read(
    root: &Root,
    rel: &ultra_workspace::RelPath,
    buf: &mut Vec<u8>,
    refused: &dyn Fn(),
) -> bool {
    match root.read_into(rel, buf) {
        Ok(_) => {}
        Err(ultra_workspace::WsError::HardLinked(_)) => {
            refused();
            return false;
        }
        Err(_) => return false,
    }
    !is_binary(buf)
}

/// A search leaves a file out as binary: a NUL in its first 8 KiB (ripgrep's and git's
/// test).
pub fn is_binary(text: &[u8]) -> bool {
    text[..text.len().min(8192)].contains(&0)
}

/// Up to `max` matches of `re` in `text`, each with its line as the preview. Linear in the
/// text however many matches share a line (a minified file): the line's end and preview
/// are found once, and columns advance from the previous match.
fn search(re: &Regex, text: &[u8], enc: PositionEncoding, max: usize, keep: bool) -> Vec<Match> {
    let mut out = Vec::new();
    let mut line = 0usize;
    let mut line_start = 0usize;
    let mut scanned = 0usize;
    // The current line's end and preview, once computed.
    let mut line_info: Option<(usize, String)> = None;
    // A byte on the current line and its column.
    let mut col_at = (0usize, 0u32);
    for m in re.find_iter(text) {
        if out.len() >= max {
            break;
        }
        // Count the newlines between the last match and this one.
        for i in memchr::memchr_iter(b'\n', &text[scanned..m.start()]) {
            line += 1;
            line_start = scanned + i + 1;
            line_info = None;
        }
        scanned = m.start();
        let (line_end, preview) = line_info.get_or_insert_with(|| {
            let end =
                memchr::memchr(b'\n', &text[line_start..]).map_or(text.len(), |i| line_start + i);
            // A preview needs at most PREVIEW_CHARS chars: at most 4 bytes each.
            let shown = &text[line_start..end.min(line_start + PREVIEW_CHARS * 4)];
            let preview = String::from_utf8_lossy(shown)
                .trim_end_matches('\r')
                .chars()
                .take(PREVIEW_CHARS)
                .collect();
            col_at = (line_start, 0);
            (end, preview)
        });
        let line_end = *line_end;
        col_at = (m.start(), col_at.1 + units(&text[col_at.0..m.start()], enc));
        let start_col = col_at.1;
        // A regex match may run over line ends: its end is on a later line.
        let end = match memchr::memrchr(b'\n', &text[m.start()..m.end()]) {
            None => Position::new(
                line as u32,
                start_col + units(&text[m.start()..m.end().min(line_end)], enc),
            ),
            Some(i) => {
                let lines = memchr::memchr_iter(b'\n', &text[m.start()..m.end()]).count();
                let start = m.start() + i + 1;
                Position::new((line + lines) as u32, units(&text[start..m.end()], enc))
            }
        };
        out.push(Match {
            range: Range::new(Position::new(line as u32, start_col), end),
            preview: preview.clone(),
            text: if keep {
                text[m.start()..m.end()].to_vec()
            } else {
                Vec::new()
            },
        });
    }
    out
}

/// The length of `bytes` (UTF-8) in `enc`'s units.
fn units(bytes: &[u8], enc: PositionEncoding) -> u32 {
    if enc == PositionEncoding::Utf8 || bytes.is_ascii() {
        return bytes.len() as u32;
    }
    let s = String::from_utf8_lossy(bytes);
    (match enc {
        PositionEncoding::Utf16 => s.chars().map(char::len_utf16).sum(),
        _ => s.chars().count(),
    }) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The incremental columns equal a column counted from the line's start, in every
    /// encoding, for matches sharing lines and matches spanning lines.
    #[test]
    fn overlong_queries_are_refused_before_they_run() {
        let o = SearchOptions::default();
        let at_limit = "x".repeat(MAX_QUERY_CHARS);
        assert!(compile(&at_limit, &o).is_ok());
        let e = compile(&"x".repeat(70_000), &o).err().expect("refused");
        assert_eq!(e.code, ErrorCode::InvalidArguments);
        assert!(e.message.contains("70000 characters"), "{}", e.message);
        // Characters, not bytes.
        assert!(compile(&"é".repeat(MAX_QUERY_CHARS), &o).is_ok());
        // What is allowed stays quick on the text that is worst for it.
        let text = "x".repeat(70_000);
        let q = compile(&at_limit, &o).expect("compiles");
        let start = std::time::Instant::now();
        let found = search(
            q.for_text(text.as_bytes()),
            text.as_bytes(),
            PositionEncoding::Utf16,
            10,
            false,
        );
        assert!(!found.is_empty());
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn columns_match_a_count_from_the_line_start() {
        let text = "é😀a b😀a\r\nxa😀\na\n😀😀a😀a".as_bytes();
        for pattern in ["a", "a\\s+x", "😀", "b😀a\\r\\nx"] {
            let re = Regex::new(pattern).unwrap();
            for enc in [
                PositionEncoding::Utf8,
                PositionEncoding::Utf16,
                PositionEncoding::Utf32,
            ] {
                let got = search(&re, text, enc, usize::MAX, true);
                let want: Vec<(u32, u32, u32, u32)> = re
                    .find_iter(text)
                    .map(|m| {
                        let at = |byte: usize| {
                            let before = &text[..byte];
                            let line = before.iter().filter(|&&b| b == b'\n').count();
                            let start = before
                                .iter()
                                .rposition(|&b| b == b'\n')
                                .map_or(0, |i| i + 1);
                            (line as u32, units(&text[start..byte], enc))
                        };
                        let (a, b) = (at(m.start()), at(m.end()));
                        (a.0, a.1, b.0, b.1)
                    })
                    .collect();
                let got: Vec<_> = got
                    .iter()
                    .map(|m| {
                        let r = m.range;
                        (r.start.line, r.start.character, r.end.line, r.end.character)
                    })
                    .collect();
                assert_eq!(got, want, "{pattern} in {enc:?}");
            }
        }
    }
}
