//! `sed`: the stream editor (POSIX sed with the usual GNU extensions) as a promoted
//! command: the typed arguments, the command line (`-n -e -f -E -i[SUF] -s -z -l`), and
//! validation; [`parse`] turns the script into commands and [`exec`] runs them.

pub mod exec;
pub mod parse;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Issue, Promoted, PromotedSpec, Risk, TypedExample, conflict};
use crate::command::{Cx, Example, Io};
use parse::{Piece, Source};

/// `sed`.
pub struct Sed;

/// Arguments of `sed`. Seed 004's shape `{file, pattern, replacement, flags?}` is accepted
/// too: `s/pattern/replacement/flags` on that one file, edited in place.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SedArgs {
    /// Script expressions, each like one `-e`; empty with `pattern`/`replacement`.
    #[serde(default)]
    pub script: Vec<String>,
    /// Script files in the workspace, like `-f`; their text follows `script`.
    #[serde(default)]
    pub script_files: Vec<String>,
    /// Input files, in order; none means standard input.
    #[serde(default)]
    pub files: Vec<String>,
    /// The one file to edit in place (as `files: [file]` with `inPlace`: give one of the
    /// two).
    pub file: Option<String>,
    /// Edit the files in place (`-i`): each file's output replaces it atomically.
    #[serde(default)]
    pub in_place: bool,
    /// Keep the original as FILE+SUFFIX (`-i.bak`; `*` stands for the file name); implies
    /// `inPlace`.
    #[serde(default)]
    pub backup_suffix: Option<String>,
    /// Print only what the script prints (`-n`); no automatic printing of each line.
    #[serde(default)]
    pub quiet: bool,
    /// Extended regular expressions (`-E`): `( ) { } + ? |` are operators unescaped.
    #[serde(default)]
    pub extended: bool,
    /// Treat files separately (`-s`): `$` and line numbers apply per file.
    #[serde(default)]
    pub separate: bool,
    /// Lines are separated by NUL bytes instead of newlines (`-z`).
    #[serde(default)]
    pub null_data: bool,
    /// Wrap width for the `l` command (`-l N`, default 70; 0 never wraps).
    #[serde(default)]
    pub line_length: Option<u64>,
    /// Substitution form: the regular expression to find (builds
    /// `s/pattern/replacement/flags`; no escaping of a delimiter needed).
    #[serde(default)]
    pub pattern: Option<String>,
    /// Substitution form: the replacement (`&` is the match, `\1`..`\9` groups, `\n` a
    /// newline, `\U \L \u \l \E` change case).
    #[serde(default)]
    pub replacement: Option<String>,
    /// Substitution form: the `s` flags, e.g. `g`, `gI`, `2`, `p`, `w out.txt`.
    #[serde(default)]
    pub flags: Option<String>,
}

impl SedArgs {
    /// The input files, from `file` or `files`.
    fn inputs(&self) -> &[String] {
        match &self.file {
            Some(f) => std::slice::from_ref(f),
            None => &self.files,
        }
    }

    /// Whether the files are edited in place: asked for, implied by a backup suffix, or by
    /// seed 004's `file`.
    fn in_place(&self) -> bool {
        self.in_place || self.backup_suffix.is_some() || self.file.is_some()
    }

    /// The script pieces given inline (expressions, or the built substitution).
    fn inline_pieces(&self) -> Vec<Piece> {
        if let Some(pattern) = &self.pattern {
            return vec![Piece {
                text: substitution(
                    pattern,
                    self.replacement.as_deref().unwrap_or(""),
                    self.flags.as_deref().unwrap_or(""),
                ),
                file: None,
            }];
        }
        self.script
            .iter()
            .map(|s| Piece {
                text: s.clone(),
                file: None,
            })
            .collect()
    }
}

/// `s/pattern/replacement/flags` with a delimiter that occurs in neither.
fn substitution(pattern: &str, replacement: &str, flags: &str) -> String {
    const DELIMS: &[char] = &['/', '|', '#', ',', ':', '@', '%', '!', '~', '\u{1}'];
    let delim = DELIMS
        .iter()
        .copied()
        .find(|d| !pattern.contains(*d) && !replacement.contains(*d))
        .unwrap_or('\u{1}');
    let pattern = pattern.replace('\n', "\\n");
    let replacement = replacement.replace('\n', "\\\n");
    format!("s{delim}{pattern}{delim}{replacement}{delim}{flags}")
}

/// A script that does not parse: GNU's message and exit status.
struct BadScript {
    msg: String,
    /// 1 for a syntax error; 4 for what GNU treats as fatal later (a missing label).
    status: i32,
}

/// Parse pieces, reporting like GNU (`-e expression #1, char 3: ...`).
fn parse_pieces(pieces: &[Piece], args: &SedArgs) -> Result<parse::Script, BadScript> {
    let src = Source { pieces };
    parse::parse_with(&src.joined(), args.extended, args.null_data).map_err(|e| {
        if e.pos == usize::MAX {
            BadScript {
                msg: e.msg,
                status: 4,
            }
        } else {
            BadScript {
                msg: format!("{}: {}", src.locate(e.pos), e.msg),
                status: 1,
            }
        }
    })
}

const LONGS: &[(&str, char)] = &[
    ("quiet", 'n'),
    ("silent", 'n'),
    ("expression", 'e'),
    ("file", 'f'),
    ("in-place", 'i'),
    ("line-length", 'l'),
    ("regexp-extended", 'E'),
    ("separate", 's'),
    ("null-data", 'z'),
    ("unbuffered", 'u'),
    ("posix", 'P'),
    ("debug", 'D'),
    ("sandbox", 'S'),
    ("follow-symlinks", 'F'),
    ("binary", 'b'),
];

impl Promoted for Sed {
    type Args = SedArgs;
    const SPEC: PromotedSpec = PromotedSpec {
        name: "sed",
        summary: "Stream editor (POSIX sed with GNU extensions): s///, addresses and ranges, hold space, a/i/c, y, labels; -n, -E, -i[SUFFIX] edits files in place atomically, -s, -z.",
        usage: "sed [-nEsz] [-i[SUFFIX]] [-l N] [-e SCRIPT]... [-f SCRIPTFILE]... [SCRIPT] [FILE...]",
        cli_examples: &[
            "sed -n '10,20p' src/lib.rs",
            "sed -i 's/old_name/new_name/g' src/a.rs src/b.rs",
            "sed -E 's/([a-z]+)=([0-9]+)/\\2=\\1/' conf.txt",
        ],
        example: Example {
            args: &["-e", "s/a/z/", "-e", "2p", "f.txt"],
            stdin: "",
            stdout: "b\nz\nz\nc\n",
            status: 0,
        },
        typed_example: TypedExample {
            args: r#"{"pattern": "a", "replacement": "[&]", "files": ["f.txt"]}"#,
            stdout: "b\n[a]\nc\n",
            status: 0,
        },
        max_risk: Risk::OVERWRITE,
    };

    fn parse_cli_args(&self, args: &[String]) -> Result<Value, Vec<Issue>> {
        let mut script: Vec<String> = Vec::new();
        let mut script_files: Vec<String> = Vec::new();
        let mut files: Vec<String> = Vec::new();
        let mut flags: Vec<char> = Vec::new();
        let mut suffix: Option<String> = None;
        let mut line_length: Option<u64> = None;
        let mut i = 0;
        let missing = |flag: &str| {
            vec![Issue::new(
                flag,
                "missing_value",
                format!(
                    "option requires an argument -- '{}'",
                    flag.trim_start_matches('-')
                ),
            )]
        };
        while i < args.len() {
            let a = &args[i];
            i += 1;
            if a == "--" {
                files.extend(args[i..].iter().cloned());
                break;
            }
            if let Some(long) = a.strip_prefix("--") {
                let (name, val) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_string())),
                    None => (long, None),
                };
                let found: Vec<&(&str, char)> = LONGS
                    .iter()
                    .filter(|(n, _)| *n == name || (!name.is_empty() && n.starts_with(name)))
                    .collect();
                let exact = found.iter().find(|(n, _)| *n == name);
                let Some(&&(full, c)) = exact.or(if found.len() == 1 {
                    found.first()
                } else {
                    None
                }) else {
                    return Err(vec![Issue::new(
                        a.clone(),
                        "unknown_flag",
                        format!("unrecognized option '{a}'"),
                    )]);
                };
                match c {
                    'e' | 'f' | 'l' => {
                        let v = match val {
                            Some(v) => v,
                            None if i < args.len() => {
                                i += 1;
                                args[i - 1].clone()
                            }
                            None => return Err(missing(&format!("--{full}"))),
                        };
                        match c {
                            'e' => script.push(v),
                            'f' => script_files.push(v),
                            _ => {
                                line_length = Some(
                                    super::cli::count("--line-length", &v).map_err(|e| vec![e])?,
                                )
                            }
                        }
                    }
                    'i' => {
                        flags.push('i');
                        suffix = val.filter(|s| !s.is_empty());
                    }
                    _ => {
                        if val.is_some() {
                            return Err(vec![Issue::new(
                                format!("--{full}"),
                                "unexpected_value",
                                format!("option '--{full}' doesn't allow an argument"),
                            )]);
                        }
                        flags.push(c);
                    }
                }
                continue;
            }
            if a.len() < 2 || !a.starts_with('-') {
                files.push(a.clone());
                continue;
            }
            let body = &a[1..];
            for (j, c) in body.char_indices() {
                let rest = &body[j + c.len_utf8()..];
                match c {
                    'n' | 'E' | 'r' | 's' | 'z' | 'u' | 'b' => {
                        flags.push(if c == 'r' { 'E' } else { c })
                    }
                    'i' => {
                        flags.push('i');
                        suffix = (!rest.is_empty()).then(|| rest.to_string());
                        break;
                    }
                    'e' | 'f' | 'l' => {
                        let v = if !rest.is_empty() {
                            rest.to_string()
                        } else if i < args.len() {
                            i += 1;
                            args[i - 1].clone()
                        } else {
                            return Err(missing(&format!("-{c}")));
                        };
                        match c {
                            'e' => script.push(v),
                            'f' => script_files.push(v),
                            _ => {
                                line_length =
                                    Some(super::cli::count("-l", &v).map_err(|e| vec![e])?)
                            }
                        }
                        break;
                    }
                    _ => {
                        return Err(vec![Issue::new(
                            format!("-{c}"),
                            "unknown_flag",
                            format!("invalid option -- '{c}'"),
                        )]);
                    }
                }
            }
        }
        if script.is_empty() && script_files.is_empty() {
            if files.is_empty() {
                return Err(vec![Issue::new(
                    "script",
                    "missing_field",
                    "sed needs a script (first operand, or -e SCRIPT / -f FILE)",
                )]);
            }
            script.push(files.remove(0));
        }
        let has = |c: char| flags.contains(&c);
        Ok(json!({
            "script": script,
            "scriptFiles": script_files,
            "files": files,
            "inPlace": has('i'),
            "backupSuffix": suffix,
            "quiet": has('n'),
            "extended": has('E'),
            "separate": has('s'),
            "nullData": has('z'),
            "lineLength": line_length,
        }))
    }

    fn validate(&self, args: &SedArgs) -> Result<(), Vec<Issue>> {
        if args.file.is_some() && !args.files.is_empty() {
            return Err(vec![conflict("file", "files")]);
        }
        let scripted = !args.script.is_empty() || !args.script_files.is_empty();
        match (&args.pattern, scripted) {
            (Some(_), true) => {
                return Err(vec![Issue::new(
                    "pattern",
                    "invalid_value",
                    "give either script/scriptFiles or pattern (with replacement), not both",
                )]);
            }
            (None, false) => {
                return Err(vec![Issue::new(
                    "script",
                    "missing_field",
                    "sed needs a script, script files, or a pattern and replacement",
                )]);
            }
            _ => {}
        }
        if args.pattern.is_none() && (args.replacement.is_some() || args.flags.is_some()) {
            return Err(vec![Issue::new(
                "pattern",
                "missing_field",
                "replacement and flags need a pattern",
            )]);
        }
        // A missing label is left to `execute`, which exits 4 like GNU.
        if args.script_files.is_empty()
            && let Err(BadScript { msg, status: 1 }) = parse_pieces(&args.inline_pieces(), args)
        {
            let path = if args.pattern.is_some() {
                "pattern"
            } else {
                "script"
            };
            return Err(vec![Issue::new(path, "syntax_error", msg)]);
        }
        Ok(())
    }

    fn risk(&self, args: &SedArgs) -> Risk {
        let in_place = args.in_place();
        let writes = in_place
            || !args.script_files.is_empty()
            || parse_pieces(&args.inline_pieces(), args).is_ok_and(|s| s.writes_files());
        Risk {
            writes,
            destructive: in_place,
            runs: false,
        }
    }

    fn execute(&self, args: SedArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let mut pieces = args.inline_pieces();
        for name in &args.script_files {
            match cx.fs.read_file(cx.cwd, name) {
                Ok((_, bytes)) => pieces.push(Piece {
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                    file: Some(name.clone()),
                }),
                Err(e) => {
                    let _ = writeln!(io.stderr, "sed: couldn't open file {name}: {e}");
                    return 4;
                }
            }
        }
        let script = match parse_pieces(&pieces, &args) {
            Ok(s) => s,
            Err(bad) => {
                let _ = writeln!(io.stderr, "sed: {}", bad.msg);
                return bad.status;
            }
        };
        let in_place = args.in_place();
        if in_place && args.inputs().is_empty() {
            let _ = writeln!(io.stderr, "sed: no input files");
            return 4;
        }
        let opts = exec::Options {
            quiet: args.quiet || script.quiet,
            separate: args.separate,
            in_place,
            backup_suffix: args.backup_suffix.clone(),
            null_data: args.null_data,
            line_length: args
                .line_length
                .map_or(70, |n| usize::try_from(n).unwrap_or(usize::MAX)),
            posix: cx.vars.contains_key("POSIXLY_CORRECT"),
        };
        exec::run(&script, &opts, args.inputs(), io, cx)
    }
}
