//! Regex mode: a ripgrep matcher and searcher over stdin, files and directory walks, with
//! GNU grep's output (`file:line:text`, `-` for context lines, `--` between groups) and exit
//! statuses (0 selected, 1 none, 2 trouble).

use std::io::Write;

use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ultra_workspace::RelPath;
use ultra_workspace::root::Kind;

use super::{GrepArgs, Syntax};
use crate::promoted::posix_re::{self, Flavor};
use crate::run::{Cx, Io};

/// Patterns separated by newlines, as grep reads `-e` lists and pattern files.
pub(super) fn split_patterns(p: &str) -> Vec<String> {
    let p = p.strip_suffix('\n').unwrap_or(p);
    p.split('\n').map(str::to_string).collect()
}

/// The matcher for `patterns` under the arguments' syntax and flags.
pub(super) fn matcher(a: &GrepArgs, patterns: &[String]) -> Result<RegexMatcher, String> {
    let mut b = RegexMatcherBuilder::new();
    b.case_insensitive(a.ignore_case)
        .word(a.word)
        .whole_line(a.line)
        .line_terminator(Some(b'\n'))
        .dot_matches_new_line(false);
    match a.syntax {
        Syntax::Fixed => {
            b.fixed_strings(true);
            b.build_literals(patterns).map_err(|e| e.to_string())
        }
        Syntax::Basic | Syntax::Extended => {
            let flavor = if a.syntax == Syntax::Basic {
                Flavor::Basic
            } else {
                Flavor::Extended
            };
            let translated = patterns
                .iter()
                .map(|p| posix_re::translate(p, flavor))
                .collect::<Result<Vec<_>, _>>()?;
            b.build_many(&translated).map_err(|e| {
                let s = e.to_string();
                s.lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("invalid regular expression")
                    .trim()
                    .trim_start_matches("error: ")
                    .to_string()
            })
        }
    }
}

/// What one search reports per file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Output {
    Lines,
    Count,
    FilesWith,
    FilesWithout,
    Quiet,
}

struct Run<'a, 'c> {
    a: &'a GrepArgs,
    cx: &'a Cx<'c>,
    matcher: RegexMatcher,
    searcher: Searcher,
    output: Output,
    names: bool,
    /// Something was printed with context on, so the next group starts with `--`.
    printed_group: bool,
    any_selected: bool,
    trouble: bool,
    include: Option<globset::GlobSet>,
    exclude: Option<globset::GlobSet>,
    exclude_dir: Option<globset::GlobSet>,
}

pub(super) fn run(a: &GrepArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let mut patterns = a.pattern.as_deref().map(split_patterns).unwrap_or_default();
    if let Some(f) = &a.pattern_file {
        match cx.fs.read_file(cx.cwd, f) {
            Ok((_, bytes)) => {
                let text = String::from_utf8_lossy(&bytes);
                if !text.is_empty() {
                    patterns.extend(split_patterns(&text));
                }
            }
            Err(e) => {
                let _ = writeln!(io.stderr, "grep: {f}: {e}");
                return 2;
            }
        }
    }
    if patterns.is_empty() {
        // `-f /dev/null`-style: no pattern matches nothing (everything with -v).
        patterns.push("[^\\x00-\\x{10FFFF}]".to_string());
    }
    let matcher = match matcher(a, &patterns) {
        Ok(m) => m,
        Err(e) => {
            let _ = writeln!(io.stderr, "grep: {e}");
            return 2;
        }
    };
    let output = if a.quiet {
        Output::Quiet
    } else if a.files_with_matches {
        Output::FilesWith
    } else if a.files_without_match {
        Output::FilesWithout
    } else if a.count {
        Output::Count
    } else {
        Output::Lines
    };
    let lines_out = output == Output::Lines;
    let after = a.after_context.or(a.context).unwrap_or(0) as usize;
    let before = a.before_context.or(a.context).unwrap_or(0) as usize;
    let searcher = SearcherBuilder::new()
        .line_number(a.line_number)
        .invert_match(a.invert_match)
        .after_context(if lines_out { after } else { 0 })
        .before_context(if lines_out { before } else { 0 })
        .max_matches(a.max_count)
        .binary_detection(BinaryDetection::none())
        .build();
    let globs = |list: &[String]| -> Result<Option<globset::GlobSet>, String> {
        if list.is_empty() {
            return Ok(None);
        }
        let mut b = globset::GlobSetBuilder::new();
        for g in list {
            b.add(
                globset::GlobBuilder::new(g)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| format!("{g}: {e}"))?,
            );
        }
        b.build().map(Some).map_err(|e| e.to_string())
    };
    let (include, exclude, exclude_dir) =
        match (globs(&a.include), globs(&a.exclude), globs(&a.exclude_dir)) {
            (Ok(i), Ok(e), Ok(d)) => (i, e, d),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
                let _ = writeln!(io.stderr, "grep: invalid glob {e}");
                return 2;
            }
        };
    let implicit = a.paths.is_empty();
    let recursive = a.recursive || implicit;
    let names = a.with_filename.unwrap_or(recursive || a.paths.len() > 1);
    let mut run = Run {
        a,
        cx,
        matcher,
        searcher,
        output,
        names,
        printed_group: false,
        any_selected: false,
        trouble: false,
        include,
        exclude,
        exclude_dir,
    };
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, &mut *io.stdout);
    let mut err = &mut *io.stderr;
    let targets: Vec<String> = if implicit {
        vec![String::new()]
    } else {
        a.paths.clone()
    };
    for t in &targets {
        let stop = run.target(t, io.stdin, &mut out, &mut err);
        if stop {
            break;
        }
    }
    let flushed = out.flush().is_ok();
    if run.output == Output::Quiet && run.any_selected {
        return 0;
    }
    if run.trouble || !flushed {
        2
    } else if run.any_selected {
        0
    } else {
        1
    }
}

impl Run<'_, '_> {
    /// Search one operand; true when the output is gone or `-q` has its answer.
    fn target(
        &mut self,
        user: &str,
        stdin: &mut dyn std::io::BufRead,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> bool {
        if user == "-" {
            return self.search("(standard input)", stdin, out, err);
        }
        let path = if user.is_empty() { "." } else { user };
        let meta = match self.cx.fs.stat(self.cx.cwd, path) {
            Ok(m) => m,
            Err(e) => {
                self.complain(err, path, &e);
                return false;
            }
        };
        if meta.kind == Kind::Dir {
            if !self.a.recursive && !user.is_empty() {
                self.complain(err, user, &"Is a directory");
                return false;
            }
            let rel = match self.cx.fs.resolve_read(self.cx.cwd, path) {
                Ok(r) => r,
                Err(e) => {
                    self.complain(err, path, &e);
                    return false;
                }
            };
            return self.walk(&rel, user, out, err);
        }
        if !self.included(user) {
            return false;
        }
        match self.cx.fs.open_read(self.cx.cwd, path) {
            Ok(f) => {
                let mut r = std::io::BufReader::with_capacity(64 * 1024, f);
                self.search(user, &mut r, out, err)
            }
            Err(e) => {
                self.complain(err, path, &e);
                false
            }
        }
    }

    fn complain(&mut self, err: &mut dyn Write, path: &str, e: &dyn std::fmt::Display) {
        self.trouble = true;
        if !self.a.no_messages {
            let _ = writeln!(err, "grep: {path}: {e}");
        }
    }

    /// Whether a file passes --include/--exclude (GNU applies them to the base name).
    fn included(&self, name: &str) -> bool {
        let base = name.rsplit('/').next().unwrap_or(name);
        if let Some(inc) = &self.include
            && !inc.is_match(base)
        {
            return false;
        }
        if let Some(exc) = &self.exclude
            && exc.is_match(base)
        {
            return false;
        }
        true
    }

    /// Walk a directory in name order (symlinks are not followed, as `grep -r`), searching
    /// each regular file.
    fn walk(
        &mut self,
        dir: &RelPath,
        user: &str,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> bool {
        let root = self.cx.fs.root();
        let base = root.path().join(dir.as_str());
        let exclude_dir = self.exclude_dir.clone();
        let mut builder = ignore::WalkBuilder::new(&base);
        builder
            .standard_filters(false)
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(move |e| {
                e.depth() == 0
                    || !e.file_type().is_some_and(|t| t.is_dir())
                    || !exclude_dir
                        .as_ref()
                        .is_some_and(|g| g.is_match(e.file_name()))
            });
        let prefix = if user.is_empty() {
            String::new()
        } else {
            format!("{}/", user.trim_end_matches('/'))
        };
        for entry in builder.build() {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    self.complain(err, user, &e);
                    continue;
                }
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Ok(sub) = entry.path().strip_prefix(&base) else {
                continue;
            };
            let Some(sub) = sub.to_str() else {
                continue;
            };
            let label = format!("{prefix}{sub}");
            if !self.included(&label) {
                continue;
            }
            let rel = if dir.as_str().is_empty() {
                sub.to_string()
            } else {
                format!("{}/{sub}", dir.as_str())
            };
            let Ok(rel) = root.lexical(&rel) else {
                continue;
            };
            // Protected paths stay unread for agents; skip them quietly, as .git would be.
            if !self.cx.fs.readable(&rel) {
                continue;
            }
            match root.open_file(&rel) {
                Ok(f) => {
                    let mut r = std::io::BufReader::with_capacity(64 * 1024, f);
                    if self.search(&label, &mut r, out, err) {
                        return true;
                    }
                }
                Err(e) => self.complain(err, &label, &e),
            }
        }
        false
    }

    /// Search one stream; true when the caller should stop.
    fn search(
        &mut self,
        label: &str,
        input: &mut dyn std::io::BufRead,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> bool {
        // GNU grep calls input with a NUL byte in its first block binary: matching lines
        // are not printed, only that it matches.
        let binary = match input.fill_buf() {
            Ok(buf) => buf.contains(&0),
            Err(e) => {
                self.complain(err, label, &e);
                return false;
            }
        };
        let mut sink = Printer {
            out,
            label,
            names: self.names,
            matcher: &self.matcher,
            a: self.a,
            output: if binary && self.output == Output::Lines {
                Output::Quiet
            } else {
                self.output
            },
            selected: 0,
            printed_group: &mut self.printed_group,
            group_open: false,
            broken: false,
        };
        let result = self.searcher.search_reader(&self.matcher, input, &mut sink);
        let selected = sink.selected;
        let broken = sink.broken;
        let out = sink.out;
        if let Err(e) = result {
            if broken {
                return true;
            }
            self.complain(err, label, &e);
            return false;
        }
        if selected > 0 {
            self.any_selected = true;
        }
        let written = match self.output {
            Output::Quiet => return selected > 0,
            Output::Count => {
                if self.names {
                    writeln!(out, "{label}:{selected}")
                } else {
                    writeln!(out, "{selected}")
                }
            }
            Output::FilesWith if selected > 0 => writeln!(out, "{label}"),
            Output::FilesWithout if selected == 0 => writeln!(out, "{label}"),
            Output::Lines if binary && selected > 0 => {
                // GNU grep 3.5+ says this on stderr.
                let _ = writeln!(err, "grep: {label}: binary file matches");
                Ok(())
            }
            _ => Ok(()),
        };
        written.is_err() || broken
    }
}

/// Writes selected lines the way GNU grep does.
struct Printer<'p, 'o> {
    out: &'p mut (dyn Write + 'o),
    label: &'p str,
    names: bool,
    matcher: &'p RegexMatcher,
    a: &'p GrepArgs,
    output: Output,
    selected: u64,
    printed_group: &'p mut bool,
    group_open: bool,
    broken: bool,
}

impl Printer<'_, '_> {
    fn context_on(&self) -> bool {
        self.a.after_context.or(self.a.context).unwrap_or(0) > 0
            || self.a.before_context.or(self.a.context).unwrap_or(0) > 0
    }

    fn line(&mut self, sep: u8, number: Option<u64>, bytes: &[u8]) -> std::io::Result<()> {
        if self.names {
            self.out.write_all(self.label.as_bytes())?;
            self.out.write_all(&[sep])?;
        }
        if let Some(n) = number {
            write!(self.out, "{n}")?;
            self.out.write_all(&[sep])?;
        }
        self.out.write_all(bytes)?;
        if !bytes.ends_with(b"\n") {
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    /// The first line printed from a file opens a group; with context on, groups are
    /// separated by `--` across files too. (Within a file the searcher reports breaks.)
    fn open(&mut self) -> std::io::Result<()> {
        if self.group_open {
            return Ok(());
        }
        self.group_open = true;
        if self.context_on() {
            if *self.printed_group {
                self.out.write_all(b"--\n")?;
            }
            *self.printed_group = true;
        }
        Ok(())
    }

    fn fail(&mut self, e: std::io::Error) -> std::io::Error {
        self.broken = true;
        e
    }
}

impl Sink for Printer<'_, '_> {
    type Error = std::io::Error;

    fn begin(&mut self, _s: &Searcher) -> Result<bool, std::io::Error> {
        Ok(true)
    }

    fn matched(&mut self, _s: &Searcher, m: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        self.selected += 1;
        match self.output {
            Output::Quiet | Output::FilesWith => return Ok(false),
            Output::FilesWithout | Output::Count => return Ok(true),
            Output::Lines => {}
        }
        self.open().map_err(|e| self.fail(e))?;
        if self.a.only_matching {
            if self.a.invert_match {
                return Ok(true);
            }
            let line = m.bytes();
            let mut spans = Vec::new();
            let _ = self.matcher.find_iter(line, |mm| {
                if mm.start() < mm.end() {
                    spans.push((mm.start(), mm.end()));
                }
                true
            });
            for (s, e) in spans {
                let mut piece = line[s..e].to_vec();
                piece.push(b'\n');
                self.line(b':', m.line_number(), &piece)
                    .map_err(|e| self.fail(e))?;
            }
            return Ok(true);
        }
        self.line(b':', m.line_number(), m.bytes())
            .map_err(|e| self.fail(e))?;
        Ok(true)
    }

    fn context(&mut self, _s: &Searcher, c: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        if self.output != Output::Lines || self.a.only_matching {
            return Ok(true);
        }
        self.open().map_err(|e| self.fail(e))?;
        self.line(b'-', c.line_number(), c.bytes())
            .map_err(|e| self.fail(e))?;
        Ok(true)
    }

    fn context_break(&mut self, _s: &Searcher) -> Result<bool, std::io::Error> {
        if self.output == Output::Lines && !self.a.only_matching {
            self.out.write_all(b"--\n").map_err(|e| self.fail(e))?;
        }
        Ok(true)
    }
}
