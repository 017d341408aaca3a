//! Regex mode: a ripgrep matcher and searcher over stdin, files and directory walks, with
//! GNU grep's output (`file:line:text`, `-` for context lines, `--` between groups) and exit
//! statuses (0 selected, 1 none, 2 trouble).

use std::io::Write;

use grep_regex::RegexMatcherBuilder;

use super::fast::GrepMatcher;
use super::print::Printer;
use super::walk::Walk;
use super::{parallel, regions};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use ultra_workspace::RelPath;
use ultra_workspace::root::Kind;

use super::{GrepArgs, Syntax};
use crate::command::{Cx, Io};
use crate::promoted::posix_re::{self, Flavor};

/// Patterns separated by newlines, as grep reads `-e` lists and pattern files.
pub(super) fn split_patterns(p: &str) -> Vec<String> {
    let p = p.strip_suffix('\n').unwrap_or(p);
    p.split('\n').map(str::to_string).collect()
}

/// The matcher for `patterns` under the arguments' syntax and flags.
pub(super) fn matcher(a: &GrepArgs, patterns: &[String]) -> Result<GrepMatcher, String> {
    let mut b = RegexMatcherBuilder::new();
    b.case_insensitive(a.ignore_case)
        .word(a.word)
        .whole_line(a.line)
        .line_terminator(Some(b'\n'))
        // `^` and `$` as line anchors (they are, a line at a time): a haystack anchor would
        // make the searcher take its slow path, line by line.
        .multi_line(true)
        .dot_matches_new_line(false);
    // A match is the pattern's text itself: no case folding, word or line condition.
    let plain_match = !a.ignore_case && !a.word && !a.line;
    match a.syntax {
        Syntax::Fixed => {
            b.fixed_strings(true);
            let regex = b.build_literals(patterns).map_err(|e| e.to_string())?;
            Ok(match patterns {
                // One string, matched as it is: found by `memmem` alone.
                [one] if plain_match => {
                    GrepMatcher::with_literal(regex, &regex_syntax::escape(one), true)
                }
                _ => GrepMatcher::plain(regex),
            })
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
            let regex = b.build_many(&translated).map_err(|e| posix_re::short(&e))?;
            Ok(match translated.as_slice() {
                [one] if !a.ignore_case => GrepMatcher::with_literal(regex, one, plain_match),
                _ => GrepMatcher::plain(regex),
            })
        }
    }
}

/// `patterns` as the regular expressions (Rust syntax) they mean, for the text index to
/// plan; `None` when one does not translate (the matcher says why).
fn plain_patterns(a: &GrepArgs, patterns: &[String]) -> Option<Vec<String>> {
    let flavor = match a.syntax {
        Syntax::Fixed => return Some(patterns.iter().map(|p| regex_syntax::escape(p)).collect()),
        Syntax::Basic => Flavor::Basic,
        Syntax::Extended => Flavor::Extended,
    };
    patterns
        .iter()
        .map(|p| posix_re::translate(p, flavor).ok())
        .collect()
}

/// A matcher that matches nothing (no patterns at all).
fn nothing() -> Result<GrepMatcher, String> {
    RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .build(r"[^\x00-\x{10FFFF}]")
        .map(GrepMatcher::plain)
        .map_err(|e| e.to_string())
}

/// What one search reports per file.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Output {
    Lines,
    Count,
    FilesWith,
    FilesWithout,
    Quiet,
}

/// What every file's search shares (read-only, so worker threads share it too).
pub(super) struct Cfg<'a> {
    pub(super) a: &'a GrepArgs,
    pub(super) matcher: GrepMatcher,
    pub(super) output: Output,
    names: bool,
}

/// What searching one input found.
#[derive(Default)]
pub(super) struct Searched {
    pub selected: u64,
    /// The output is gone, or `-q` has its answer: stop searching.
    pub stop: bool,
    pub trouble: bool,
}

struct Run<'a, 'c> {
    cfg: Cfg<'a>,
    a: &'a GrepArgs,
    cx: &'a Cx<'c>,
    searcher: Searcher,
    /// Something was printed with context on, so the next group starts with `--`.
    printed_group: bool,
    any_selected: bool,
    trouble: bool,
    /// Files of walks skipped as hard-linked, reported once at the end.
    hardlinked: usize,
    filter: &'a Filter,
    /// The text index's view of the tree: walks take the directories it follows from it and
    /// leave unread the files it knows hold no match.
    view: Option<Box<dyn crate::run::fs::TextView>>,
    /// A file's first block, reused from file to file.
    head: Vec<u8>,
}

/// --include, --exclude and --exclude-dir.
pub(super) struct Filter {
    include: Option<globset::GlobSet>,
    exclude: Option<globset::GlobSet>,
    exclude_dir: Option<globset::GlobSet>,
}

impl Filter {
    /// Whether a file passes --include/--exclude (GNU applies them to the base name).
    pub(super) fn included(&self, name: &str) -> bool {
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

    /// Whether --exclude-dir leaves out a directory of a walk (by its name).
    pub(super) fn excludes_dir(&self, name: &str) -> bool {
        self.exclude_dir.as_ref().is_some_and(|g| g.is_match(name))
    }
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
    // `-f /dev/null`-style: no pattern matches nothing (everything with -v).
    let matcher = match if patterns.is_empty() {
        nothing()
    } else {
        matcher(a, &patterns)
    } {
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
    let paths = a.targets();
    let implicit = paths.is_empty();
    // With `recursive` left out (the typed tool), a directory operand is walked, and its
    // files are named as a walk's are; the shell always says (-r or not).
    let walks_dir = |p: &String| {
        a.recursive.is_none() && cx.fs.stat(cx.cwd, p).is_ok_and(|m| m.kind == Kind::Dir)
    };
    let recursive = a.recursive == Some(true) || implicit || paths.iter().any(walks_dir);
    let names = a.with_filename.unwrap_or(recursive || paths.len() > 1);
    let filter = Filter {
        include,
        exclude,
        exclude_dir,
    };
    // Not for `-v` (a file without a match prints its lines). With `-c` and `-L` a file
    // the index rules out prints as one without a match, unread.
    let view = if a.invert_match || patterns.is_empty() {
        None
    } else {
        cx.fs
            .text()
            .and_then(|t| t.view(&plain_patterns(a, &patterns)?, a.ignore_case))
    };
    let mut run = Run {
        cfg: Cfg {
            a,
            matcher,
            output,
            names,
        },
        view,
        a,
        cx,
        searcher,
        printed_group: false,
        any_selected: false,
        trouble: false,
        hardlinked: 0,
        filter: &filter,
        head: Vec::new(),
    };
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, &mut *io.stdout);
    let mut err = &mut *io.stderr;
    let targets: Vec<String> = if implicit {
        vec![String::new()]
    } else {
        paths.to_vec()
    };
    for t in &targets {
        let stop = run.target(t, io.stdin, &mut out, &mut err);
        if stop {
            break;
        }
    }
    let flushed = out.flush().is_ok();
    if run.hardlinked > 0 && !a.no_messages {
        let _ = writeln!(
            err,
            "{}",
            crate::promoted::hardlink_note("grep", run.hardlinked)
        );
    }
    if run.cfg.output == Output::Quiet && run.any_selected {
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
            return self.search("(standard input)", Input::Stream(stdin), out, err);
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
            if self.a.recursive == Some(false) && !user.is_empty() {
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
        if !self.filter.included(user) {
            return false;
        }
        match self.cx.fs.open_read(self.cx.cwd, path) {
            Ok(f) => {
                if let Some(stop) = self.search_regions(user, &f, out, err) {
                    return stop;
                }
                self.search(user, Input::File(f, None), out, err)
            }
            Err(e) => {
                self.complain(err, path, &e);
                false
            }
        }
    }

    /// Search a large file on every core (see [`regions`]); `None` when it stays on one
    /// thread: it is small, `-m` or context lines are asked for, or it cannot be split.
    fn search_regions(
        &mut self,
        label: &str,
        f: &std::fs::File,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Option<bool> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        let a = self.a;
        let context = [a.after_context, a.before_context, a.context]
            .iter()
            .any(|c| c.is_some_and(|n| n > 0));
        if a.max_count.is_some() || context || threads < 2 {
            return None;
        }
        let len = f.metadata().ok()?.len();
        if len < regions::MIN_LEN {
            return None;
        }
        let split = match regions::split(&self.cfg, f, len, threads) {
            Ok(split) => split?,
            Err(e) => {
                self.complain(err, label, &e);
                return Some(false);
            }
        };
        let rest = SearcherBuilder::new()
            .line_number(a.line_number)
            .invert_match(a.invert_match)
            .binary_detection(BinaryDetection::none())
            .bom_sniffing(false)
            .build();
        let output = self.cfg.output;
        let result = if output == Output::Lines && !split.binary {
            let mut printer = Printer {
                out: &mut *out,
                label,
                names: self.cfg.names,
                matcher: &self.cfg.matcher,
                a,
                output,
                selected: 0,
                printed_group: &mut self.printed_group,
                group_open: false,
                broken: false,
            };
            let printed = regions::print(&self.cfg, &self.searcher, &rest, f, &split, &mut printer);
            printed.map(|()| (printer.selected, printer.broken))
        } else {
            // A binary file's lines are not printed: whether one matches is the answer.
            let any = matches!(output, Output::Quiet | Output::FilesWith | Output::Lines);
            regions::count(&self.cfg, &self.searcher, &rest, f, &split, any).map(|n| (n, false))
        };
        match result {
            Ok((selected, broken)) => {
                let found = report(&self.cfg, label, selected, split.binary, broken, out, err);
                self.any_selected |= selected > 0;
                Some(found.stop)
            }
            Err(e) => {
                self.complain(err, label, &e);
                Some(false)
            }
        }
    }

    fn complain(&mut self, err: &mut dyn Write, path: &str, e: &dyn std::fmt::Display) {
        self.trouble = true;
        if !self.a.no_messages {
            let _ = writeln!(err, "grep: {path}: {e}");
        }
    }

    /// Walk a directory in name order (symlinks are not followed, as `grep -r`), searching
    /// each regular file on every core and printing in walk order.
    fn walk(
        &mut self,
        dir: &RelPath,
        user: &str,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> bool {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        let every_file = matches!(self.cfg.output, Output::Count | Output::FilesWithout);
        let walk = Walk::new(
            self.cx.fs,
            self.filter,
            self.view.as_deref(),
            every_file,
            dir,
            user,
        );
        let done = parallel::search_walk(
            &self.cfg,
            &self.searcher,
            self.cx.fs.root(),
            self.a.no_messages,
            walk,
            threads,
            self.printed_group,
            out,
            err,
        );
        self.printed_group = done.printed_group;
        self.trouble |= done.trouble;
        self.any_selected |= done.any_selected;
        self.hardlinked += done.hardlinked;
        done.stopped
    }

    /// Search one stream; true when the caller should stop.
    fn search(
        &mut self,
        label: &str,
        input: Input<'_>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> bool {
        let found = search_stream(
            &self.cfg,
            &mut self.searcher,
            &mut self.head,
            label,
            input,
            out,
            err,
            &mut self.printed_group,
            self.a.no_messages,
        );
        self.trouble |= found.trouble;
        self.any_selected |= found.selected > 0;
        found.stop
    }
}

/// What to search: a stream (stdin), or an opened file with its length when known.
pub(super) enum Input<'i> {
    Stream(&'i mut dyn std::io::BufRead),
    File(std::fs::File, Option<u64>),
}

/// The reader [`search_stream`] ends up with.
enum Either<'i, 'h> {
    Stream(NulsEndLines<&'i mut dyn std::io::BufRead>),
    File(std::io::Chain<&'h [u8], NulsEndLines<std::fs::File>>),
    /// The whole file, read into the head block.
    Slice(&'h [u8]),
}

/// A reader of a binary input turns its NUL bytes into newlines, as GNU grep does.
pub(super) struct NulsEndLines<R> {
    pub(super) inner: R,
    pub(super) zap: bool,
}

impl<R: std::io::Read> std::io::Read for NulsEndLines<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if self.zap {
            nuls_to_newlines(&mut buf[..n]);
        }
        Ok(n)
    }
}

/// Every byte rewritten (a select the compiler vectorises): NULs in binary files are too
/// dense for a `memchr` per NUL.
fn nuls_to_newlines(buf: &mut [u8]) {
    for b in buf {
        *b = if *b == 0 { b'\n' } else { *b };
    }
}

/// Fill `head` from `f`: how many bytes it holds, and whether that is the whole file (a read
/// came back empty before the block was full, or it holds the `len` a `stat` just gave:
/// walks open thousands of small files, and the read that would only confirm the end is
/// one system call each).
fn read_head(
    f: &mut std::fs::File,
    head: &mut [u8],
    len: Option<u64>,
) -> std::io::Result<(usize, bool)> {
    let mut n = 0;
    while n < head.len() {
        match std::io::Read::read(f, &mut head[n..]) {
            Ok(0) => return Ok((n, true)),
            Ok(got) => {
                n += got;
                if len == Some(n as u64) && n < head.len() {
                    return Ok((n, true));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok((n, false))
}

/// The first block of a file, checked for NUL bytes (GNU grep's binary test).
pub(super) const HEAD: usize = 64 * 1024;

/// Search one stream and print what GNU grep would for it. `printed_group` says whether a
/// context group was printed before (so the next starts with `--`) and is set when this
/// stream prints one.
#[allow(clippy::too_many_arguments)]
pub(super) fn search_stream(
    cfg: &Cfg<'_>,
    searcher: &mut Searcher,
    head: &mut Vec<u8>,
    label: &str,
    input: Input<'_>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    printed_group: &mut bool,
    no_messages: bool,
) -> Searched {
    let mut found = Searched {
        selected: 0,
        stop: false,
        trouble: false,
    };
    let complain = |err: &mut dyn Write, e: &dyn std::fmt::Display| {
        if !no_messages {
            let _ = writeln!(err, "grep: {label}: {e}");
        }
    };
    // GNU grep calls input with a NUL byte in its first block binary: matching lines are
    // not printed, only that it matches, and every NUL ends a line (so `-v`, `-c`, `-x`
    // and `$` see the lines GNU grep sees).
    // A file's first block is read into `head` (sized once, reused from file to file): a
    // file that fits is searched as a slice, a longer one as that block then the rest of
    // the file. No buffer is allocated or cleared per file.
    let text = cfg.a.text;
    let (binary, mut input) = match input {
        Input::Stream(r) => match r.fill_buf() {
            Ok(buf) => {
                let binary = !text && memchr::memchr(0, buf).is_some();
                (
                    binary,
                    Either::Stream(NulsEndLines {
                        inner: r,
                        zap: binary,
                    }),
                )
            }
            Err(e) => {
                complain(err, &e);
                found.trouble = true;
                return found;
            }
        },
        Input::File(mut f, len) => {
            if head.len() < HEAD {
                head.resize(HEAD, 0);
            }
            let (n, whole) = match read_head(&mut f, head, len) {
                Ok(got) => got,
                Err(e) => {
                    complain(err, &e);
                    found.trouble = true;
                    return found;
                }
            };
            let binary = !text && memchr::memchr(0, &head[..n]).is_some();
            if binary {
                nuls_to_newlines(&mut head[..n]);
            }
            if whole {
                (binary, Either::Slice(&head[..n]))
            } else {
                let rest = NulsEndLines {
                    inner: f,
                    zap: binary,
                };
                (binary, Either::File(std::io::Read::chain(&head[..n], rest)))
            }
        }
    };
    let mut sink = Printer {
        out,
        label,
        names: cfg.names,
        matcher: &cfg.matcher,
        a: cfg.a,
        output: if binary && cfg.output == Output::Lines {
            Output::Quiet
        } else {
            cfg.output
        },
        selected: 0,
        printed_group,
        group_open: false,
        broken: false,
    };
    let result = match &mut input {
        Either::Stream(r) => searcher.search_reader(&cfg.matcher, r, &mut sink),
        Either::File(r) => searcher.search_reader(&cfg.matcher, r, &mut sink),
        Either::Slice(s) => searcher.search_slice(&cfg.matcher, s, &mut sink),
    };
    let selected = sink.selected;
    let broken = sink.broken;
    let out = sink.out;
    found.selected = selected;
    if let Err(e) = result {
        if broken {
            found.stop = true;
        } else {
            complain(err, &e);
            found.trouble = true;
        }
        return found;
    }
    report(cfg, label, selected, binary, broken, out, err)
}

/// What a search that selected `selected` lines prints at its end (a count, a name, the
/// binary-file note), and whether to stop.
pub(super) fn report(
    cfg: &Cfg<'_>,
    label: &str,
    selected: u64,
    binary: bool,
    broken: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Searched {
    let mut found = Searched {
        selected,
        stop: false,
        trouble: false,
    };
    let written = match cfg.output {
        Output::Quiet => {
            found.stop = selected > 0;
            return found;
        }
        Output::Count => {
            if cfg.names {
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
    found.stop = written.is_err() || broken;
    found
}
