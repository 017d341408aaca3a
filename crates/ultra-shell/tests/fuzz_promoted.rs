//! Robustness of the promoted commands: their argument and program parsers never panic on
//! arbitrary input (grep patterns, sed scripts, awk programs, find expressions), and fixed
//! programs never panic on arbitrary bytes, including invalid UTF-8 and NULs.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use ultra_shell::builtins::lookup;
use ultra_shell::run::fs::ShellFs;
use ultra_shell::run::{Cx, Io};
use ultra_workspace::root::RootOptions;
use ultra_workspace::{RelPath, Root};

/// One workspace for every case: a few files to read; the cases never write.
fn fs() -> &'static ShellFs {
    static FS: OnceLock<(tempfile::TempDir, ShellFs)> = OnceLock::new();
    &FS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("d/e")).unwrap();
        std::fs::write(dir.path().join("f.txt"), "b\na\nc\n").unwrap();
        std::fs::write(dir.path().join("d/x.rs"), "fn x() {}\n").unwrap();
        std::fs::write(dir.path().join("d/e/bin"), b"\0\xff\xfe a\n").unwrap();
        let root = Arc::new(Root::open(dir.path(), RootOptions::default()).unwrap());
        let fs = ShellFs::new(root, false);
        (dir, fs)
    })
    .1
}

/// Run `name args` on `stdin`; only that it returns matters.
fn run(name: &str, args: &[String], stdin: &[u8]) -> i32 {
    let b = lookup(name).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut input = std::io::Cursor::new(stdin.to_vec());
    let mut io = Io {
        stdin: &mut input,
        stdout: &mut out,
        stderr: &mut err,
    };
    let vars = BTreeMap::new();
    let cwd = RelPath::default();
    let cx = Cx {
        fs: fs(),
        cwd: &cwd,
        vars: &vars,
    };
    (b.run)(args, &mut io, &cx)
}

const AWK_PIECES: &[&str] = &[
    "BEGIN", "END", "{", "}", "(", ")", "[", "]", ";", "\n", " ", "$", "$0", "$1", "NF", "NR",
    "FS", "x", "a", "k", "=", "+=", "++", "--", "+", "-", "*", "/", "%", "^", "**", "!", "~", "!~",
    "<", ">", ">>", "|", "&&", "||", "?", ":", ",", "in", "if", "else", "while", "for", "do",
    "break", "continue", "next", "exit", "delete", "function", "f", "return", "getline", "print",
    "printf", "\"", "\"%d\"", "\"a\\\"", "/", "/a+/", "\\", "1", "1e9", "0x1", ".5", "length",
    "substr", "split", "sub", "gsub", "match", "sprintf", "index", "tolower", "close", "system",
    "#", "@", "é",
];

/// gawk's names and a few regex literals, added to the awk soup.
const AWK_GAWK_PIECES: &[&str] = &[
    "BEGINFILE",
    "ENDFILE",
    "gensub",
    "asort",
    "asorti",
    "strftime",
    "mktime",
    "systime",
    "and",
    "or",
    "lshift",
    "compl",
    "typeof",
    "IGNORECASE",
    "PROCINFO",
    "FPAT",
    "\"sorted_in\"",
    "\"@val_num_desc\"",
    "/[^]a-]/",
    "/\\x4/",
    "/(a|ab)+?/",
    "/{2,}/",
];

const AWK_RE_PIECES: &[&str] = &[
    "a",
    "b",
    ".",
    "*",
    "+",
    "?",
    "|",
    "(",
    ")",
    "[",
    "]",
    "^",
    "$",
    "{",
    "}",
    "1",
    ",",
    "-",
    "\\",
    "\\x4",
    "\\xzz",
    "\\101",
    "\\y",
    "\\B",
    "\\<",
    "\\>",
    "\\b",
    "\\s",
    "\\w",
    "\\`",
    "\\'",
    "[:alpha:]",
    "[:nope:]",
    "[=a=]",
    "[.b.]",
    "é",
    "\u{ff}",
    "{2,1}",
    "{,3}",
];

const SED_PIECES: &[&str] = &[
    "s", "/", "a", "b", "\\", "\\(", "\\)", "\\1", "&", "g", "p", "i", "I", "w", " ", ";", "\n",
    "{", "}", "!", "$", "1", "2", ",", "~", "+", "0", "y", "d", "D", "n", "N", "h", "H", "x", "G",
    "q", "Q", "l", "=", ":", "t", "T", "c", "e", "r", "#", "|", "*", "[", "]", "^", ".", "é",
];

const RE_PIECES: &[&str] = &[
    "a",
    "b",
    ".",
    "*",
    "+",
    "?",
    "|",
    "(",
    ")",
    "[",
    "]",
    "^",
    "$",
    "{",
    "}",
    "1",
    ",",
    "\\",
    "\\(",
    "\\)",
    "\\{",
    "\\}",
    "\\|",
    "\\1",
    "[:alpha:]",
    "[:nope:]",
    "-",
    "é",
    "\\<",
    "\\>",
    "\\w",
    "\\b",
    "\n",
];

fn soup(pieces: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(pieces), 0..max).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Parsing happens in `risk` (words → typed arguments → validate), which runs nothing.
    #[test]
    fn awk_programs_parse_without_panic(
        p in prop::collection::vec(
            prop::sample::select([AWK_PIECES, AWK_GAWK_PIECES].concat()),
            0..40,
        ).prop_map(|v| v.concat()),
        s in any::<String>(),
    ) {
        let b = lookup("awk").unwrap();
        let _ = b.risk_of(&[p]);
        let _ = b.risk_of(&[s]);
    }

    /// awk regexes (with awk's escapes) compile or are refused, and match any bytes.
    #[test]
    fn awk_regexes_run_without_panic(
        p in soup(AWK_RE_PIECES, 12),
        input in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        let prog = format!("{{ print ($0 ~ \"{}\"), match($0, \"{}\"), RLENGTH; n = gsub(\"{}\", \"<&>\"); print n, $0 }}",
            p.replace('\\', "\\\\").replace('"', "\\\""),
            p.replace('\\', "\\\\").replace('"', "\\\""),
            p.replace('\\', "\\\\").replace('"', "\\\""));
        let st = run("awk", &[prog], &input);
        prop_assert!(st == 0 || st == 2, "awk {} -> {}", p, st);
    }

    #[test]
    fn sed_scripts_parse_without_panic(p in soup(SED_PIECES, 30), s in any::<String>(), e in any::<bool>()) {
        let b = lookup("sed").unwrap();
        let flag = if e { "-E" } else { "-n" };
        let _ = b.risk_of(&[flag.to_string(), "-e".into(), p]);
        let _ = b.risk_of(&[s]);
    }

    #[test]
    fn grep_patterns_run_without_panic(
        p in soup(RE_PIECES, 12),
        input in prop::collection::vec(any::<u8>(), 0..300),
        flags in prop::sample::select(&["-E", "-G", "-F", "-iwo", "-xc", "-vn", "-C1", "-Eo"][..]),
    ) {
        let st = run("grep", &[flags.to_string(), "-e".into(), p], &input);
        prop_assert!((0..=2).contains(&st), "status {}", st);
    }

    #[test]
    fn find_expressions_run_without_panic(
        words in prop::collection::vec(prop::sample::select(&[
            ".", "d", "-name", "*", "x*", "-type", "f", "d", "l", "q", "-o", "!", "-not", "(", ")",
            "-maxdepth", "1", "-1", "-size", "+1k", "-3x", "-newer", "f.txt", "-empty", "-print0",
            "-exec", ";", "-delete", "..", "/", "-path", "[", "-iname", "-mindepth",
        ][..]), 0..10),
    ) {
        let args: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let st = run("find", &args, b"");
        prop_assert!((0..=1).contains(&st), "status {}", st);
    }

    /// Fixed programs on arbitrary bytes: invalid UTF-8, NULs, no final newline.
    #[test]
    fn text_tools_take_any_bytes(input in prop::collection::vec(any::<u8>(), 0..400)) {
        for prog in [
            "{print $1, NF}",
            "{s+=$2} END{print s+0, NR}",
            "{gsub(/a+|\\xff/, \"[&]\"); print toupper($0)}",
            "NR%2{print length($0), substr($0, 2, 3), index($0, \"b\")}",
            "{n=split($0, a, /[,;]/); for (k in a) c[a[k]]++} END{for (k in c) m++; print m+0}",
            "{printf \"%5.2f|%-4s|%c|%x\\n\", $1, $2, $3, $4}",
            "{if (match($0, /[0-9]+/)) print RSTART, RLENGTH}",
            "{print gensub(/(a|b)+/, \"<\\\\1>\", \"g\"), typeof($1), strftime(\"%F %T %V\", $1), mktime($0)}",
            "BEGIN{FPAT=\"([^,]*)|(\\\"[^\\\"]+\\\")\"; IGNORECASE=1} {n=asort(a); c[$1]=$2; if (match($0, /(x)|(y)/, m)) print m[1]} END{PROCINFO[\"sorted_in\"]=\"@val_str_desc\"; for (k in c) print k, and(length(k), 7), compl(NR)}",
        ] {
            let st = run("awk", &[prog.to_string()], &input);
            prop_assert!(st == 0 || st == 2, "awk {} -> {}", prog, st);
        }
        for script in ["s/a*/x/g", "$!N;P;D", "y/abc/xyz/", "1~2d", "/a/,/b/p", "=", "l", "G;h", "s/\\(.\\)\\(.\\)/\\2\\1/2"] {
            let st = run("sed", &[script.to_string()], &input);
            prop_assert_eq!(st, 0, "sed {}", script);
        }
        let st = run("grep", &["-c".into(), "a.b".into()], &input);
        prop_assert!(st <= 1);
    }
}
