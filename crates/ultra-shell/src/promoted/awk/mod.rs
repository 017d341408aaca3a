//! `awk`: a complete POSIX awk run in process (lexer, parser, tree-walking interpreter),
//! with the gawk extensions agents use (`gawk.rs`; off under `--posix`), reading and writing
//! files only through the shell's confined file system; `system()`, `print | "cmd"` and
//! `"cmd" | getline` are refused because the shell spawns no processes. Strings are bytes,
//! as in gawk under `LC_ALL=C` (see `re.rs` for regexes).

pub mod ast;
pub mod format;
pub mod input;
pub mod interp;
pub mod lexer;
pub mod parser;
pub mod re;
pub mod value;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Issue, Promoted, PromotedSpec, Risk, TypedExample};
use crate::command::{Cx, Example, Io};

/// `awk`.
pub struct Awk;

/// Arguments of `awk`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AwkArgs {
    /// The awk program text. Exactly one of `program` and `programFile`.
    pub program: Option<String>,
    /// Workspace file(s) holding the program (`-f`; `-` is stdin), instead of `program`.
    pub program_file: Option<ProgramFiles>,
    /// `--posix`: gawk's extensions off.
    #[serde(default)]
    pub posix: bool,
    /// `--csv` (`-k`): records and fields by CSV's rules (gawk 5.3). Shell flag only.
    #[serde(default)]
    #[schemars(skip)]
    pub csv: bool,
    /// Input files, in order; `-` is stdin and `var=value` operands assign between files.
    /// Empty: read stdin.
    #[serde(default)]
    pub files: Vec<String>,
    /// The input field separator (`-F`): a single character, `\t`, a regex, or a single
    /// space for the default whitespace splitting.
    pub field_separator: Option<String>,
    /// Variable assignments made before the program starts (`-v var=value`), each
    /// `name=value`; escapes such as `\t` in the value are processed.
    #[serde(default)]
    pub assign: Vec<String>,
}

/// One program file or several.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ProgramFiles {
    One(String),
    Many(Vec<String>),
}

impl ProgramFiles {
    fn names(&self) -> Vec<&str> {
        match self {
            ProgramFiles::One(f) => vec![f.as_str()],
            ProgramFiles::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

fn valid_assign(a: &str) -> bool {
    a.split_once('=').is_some_and(|(n, _)| {
        let b = n.as_bytes();
        !b.is_empty()
            && (b[0].is_ascii_alphabetic() || b[0] == b'_')
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    })
}

impl Promoted for Awk {
    type Args = AwkArgs;
    const SPEC: PromotedSpec = PromotedSpec {
        name: "awk",
        summary: "Run an awk program (POSIX, plus gawk's gensub, asort, strftime, IGNORECASE, FPAT...) over files or stdin; files stay inside the workspace, no commands are spawned.",
        usage: "awk [-F fs] [-v var=val]... ['program' | -f progfile...] [file | var=val]...",
        cli_examples: &[
            "awk -F, '$2 > 25 { print $1 }' data.csv",
            "awk '{ n[$1]++ } END { for (k in n) print k, n[k] }' log.txt",
            "awk -v OFS='\\t' 'NR > 1 { $1 = $1; print }' table.txt",
        ],
        example: Example {
            args: &["NR == 2 { print NR \": \" $1 }", "f.txt"],
            stdin: "",
            stdout: "2: a\n",
            status: 0,
        },
        typed_example: TypedExample {
            args: r#"{"program": "{ n++ } END { print n \" lines\" }", "files": ["f.txt"]}"#,
            stdout: "3 lines\n",
            status: 0,
        },
        max_risk: Risk::OVERWRITE,
    };

    fn parse_cli_args(&self, args: &[String]) -> Result<Value, Vec<Issue>> {
        let mut fs: Option<String> = None;
        let mut assign: Vec<String> = Vec::new();
        let mut prog_files: Vec<String> = Vec::new();
        let mut posix = false;
        let mut csv = false;
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if a == "--" {
                i += 1;
                break;
            }
            if a == "-" || !a.starts_with('-') {
                break;
            }
            if a == "--posix" || a == "-P" {
                posix = true;
                i += 1;
                continue;
            }
            if a == "--csv" || a == "-k" {
                csv = true;
                i += 1;
                continue;
            }
            let letter = a.chars().nth(1).unwrap_or('-');
            if !matches!(letter, 'F' | 'v' | 'f') {
                return Err(vec![Issue::new(
                    a.clone(),
                    "unknown_flag",
                    format!(
                        "awk: unknown option {a}; options are -F fs, -v var=value, -f progfile, -P (--posix), -k (--csv)"
                    ),
                )]);
            }
            // `letter` is ASCII, so byte 2 is a char boundary.
            let flag = &a[..2];
            let value = if a.len() > 2 {
                a[2..].to_string()
            } else {
                i += 1;
                match args.get(i) {
                    Some(v) => v.clone(),
                    None => {
                        return Err(vec![Issue::new(
                            flag,
                            "missing_value",
                            format!("awk: option {flag} requires an argument"),
                        )]);
                    }
                }
            };
            match letter {
                'F' => fs = Some(value),
                'v' => assign.push(value),
                _ => prog_files.push(value),
            }
            i += 1;
        }
        let mut rest = args[i.min(args.len())..].iter();
        let program = if prog_files.is_empty() {
            match rest.next() {
                Some(p) => Value::String(p.clone()),
                None => {
                    return Err(vec![Issue::new(
                        "program",
                        "missing_field",
                        "awk needs a program ('{ print $1 }') or -f progfile",
                    )]);
                }
            }
        } else {
            Value::Null
        };
        let files: Vec<&String> = rest.collect();
        let prog_file = match prog_files.len() {
            0 => Value::Null,
            1 => Value::String(prog_files.remove(0)),
            _ => json!(prog_files),
        };
        Ok(json!({
            "program": program,
            "programFile": prog_file,
            "posix": posix,
            "csv": csv,
            "files": files,
            "fieldSeparator": fs,
            "assign": assign,
        }))
    }

    fn validate(&self, args: &AwkArgs) -> Result<(), Vec<Issue>> {
        let mut issues = Vec::new();
        match (&args.program, &args.program_file) {
            (Some(_), Some(_)) => issues.push(Issue::new(
                "program",
                "invalid_value",
                "give either program or programFile, not both",
            )),
            (None, None) => issues.push(Issue::new(
                "program",
                "missing_field",
                "awk needs a program or a programFile",
            )),
            (Some(p), None) => {
                if let Err(e) = parser::parse_with(p.as_bytes(), args.posix) {
                    issues.push(Issue::new("program", "syntax_error", e.to_string()));
                }
            }
            (None, Some(_)) => {}
        }
        for (k, a) in args.assign.iter().enumerate() {
            if !valid_assign(a) {
                issues.push(Issue::new(
                    format!("assign.{k}"),
                    "invalid_value",
                    format!("'{a}' is not a var=value assignment"),
                ));
            }
        }
        if issues.is_empty() {
            Ok(())
        } else {
            Err(issues)
        }
    }

    fn risk(&self, args: &AwkArgs) -> Risk {
        let Some(p) = &args.program else {
            // The program is in a file we cannot read here: assume the worst.
            return Risk::OVERWRITE;
        };
        match parser::parse_with(p.as_bytes(), args.posix) {
            Ok(prog) if prog.truncates_files => Risk::OVERWRITE,
            Ok(prog) if prog.writes_files => Risk {
                writes: true,
                destructive: false,
                runs: false,
            },
            _ => Risk::READ,
        }
    }

    fn execute(&self, args: AwkArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        // The program text, and where each source starts: (first line, name).
        let mut text = Vec::new();
        let mut origins: Vec<(usize, String)> = Vec::new();
        match (&args.program, &args.program_file) {
            (Some(p), _) => {
                text = p.as_bytes().to_vec();
                origins.push((1, "cmd. line".to_string()));
            }
            (None, Some(files)) => {
                for f in files.names() {
                    let bytes = if f == "-" || f == "/dev/stdin" {
                        let mut b = Vec::new();
                        if let Err(e) = io.stdin.read_to_end(&mut b) {
                            let _ = writeln!(io.stderr, "awk: can't read source from stdin: {e}");
                            return 2;
                        }
                        b
                    } else {
                        match cx.fs.read_file(cx.cwd, f) {
                            Ok((_, bytes)) => bytes,
                            Err(e) => {
                                let _ =
                                    writeln!(io.stderr, "awk: can't open source file `{f}': {e}");
                                return 2;
                            }
                        }
                    };
                    let line = 1 + text.iter().filter(|&&b| b == b'\n').count();
                    origins.push((line, f.to_string()));
                    text.extend_from_slice(&bytes);
                    if !text.ends_with(b"\n") {
                        text.push(b'\n');
                    }
                }
            }
            (None, None) => {
                let _ = writeln!(io.stderr, "awk: no program");
                return 2;
            }
        }
        let prog = match parser::parse_with(&text, args.posix) {
            Ok(p) => p,
            Err(e) => {
                let (first, name) = origins
                    .iter()
                    .rev()
                    .find(|(l, _)| *l <= e.line)
                    .cloned()
                    .unwrap_or((1, String::new()));
                let _ = writeln!(
                    io.stderr,
                    "awk: {name}:{}:{}: {}",
                    e.line + 1 - first,
                    e.col,
                    e.message
                );
                // gawk's status for a program that does not parse.
                return 1;
            }
        };
        let mut interp = match interp::Interp::new(
            &prog,
            &mut *io.stdin,
            &mut *io.stdout,
            &mut *io.stderr,
            cx,
            &args.files,
        ) {
            Ok(i) => i,
            Err(e) => {
                let _ = writeln!(io.stderr, "awk: {e}");
                return 2;
            }
        };
        if args.csv && !args.posix {
            interp.set_csv();
        }
        let mut pre: Vec<Vec<u8>> = Vec::new();
        if let Some(fs) = &args.field_separator {
            pre.push(format!("FS={fs}").into_bytes());
        }
        pre.extend(args.assign.iter().map(|a| a.as_bytes().to_vec()));
        for a in &pre {
            match interp.assign_operand(a) {
                Ok(true) => {}
                Ok(false) => {
                    drop(interp);
                    let _ = writeln!(
                        io.stderr,
                        "awk: '{}' is not a var=value assignment",
                        String::from_utf8_lossy(a)
                    );
                    return 2;
                }
                Err(interp::Jump::Fatal(m)) => {
                    drop(interp);
                    let _ = writeln!(io.stderr, "awk: {m}");
                    return 2;
                }
                Err(_) => return 2,
            }
        }
        interp.run()
    }
}
