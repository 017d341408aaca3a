//! `sed` (a promoted command) compared with GNU sed 4.9 under `LC_ALL=C`: addresses,
//! every command, `s` flags and replacements, in-place editing, `w`/`r` files, exit
//! statuses; plus the deliberate differences and the structured argument errors.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;

fn ws() -> Ws {
    let ws = Ws::new();
    ws.add(
        "t.txt",
        "hello world\nfoo bar foo\n\nHello Again\nfoo\nlast line here\n",
    );
    ws.add("kv.txt", "a=1\nb=22\nc=333\n# comment\nd=4444\n");
    ws.add("script.sed", "# a script file\ns/foo/FOO/g\n/^$/d\n");
    ws.add("quiet.sed", "#n\n/foo/p\n");
    ws.add("ins.txt", "INSERTED 1\nINSERTED 2\n");
    ws.add("tabs.txt", "a\tb\\c\x01\n");
    ws.add(
        "para.txt",
        "first para line1\nline2\n\nsecond para\n\n\nthird\n",
    );
    ws.add("nul.txt", "one\0two\0three\0");
    ws.add("long.txt", &format!("{}\n", "x".repeat(150)));
    ws
}

const CASES: &[&str] = &[
    // printing and addresses
    "sed -n p f.txt",
    "sed p f.txt",
    "sed -n 2p lines.txt",
    "sed -n '$p' lines.txt",
    "sed -n '3,5p' lines.txt",
    "sed -n '/foo/p' t.txt",
    "sed -n '/foo/!p' t.txt",
    "sed -n '\\,foo,p' t.txt",
    "sed -n '\\%o w%p' t.txt",
    "sed -n '/hello/Ip' t.txt",
    "sed -n '/^foo/,/^Hello/p' t.txt",
    "sed -n '2,/foo/p' t.txt",
    "sed -n '/bar/,+2p' t.txt",
    "sed -n '/bar/,~4p' lines.txt t.txt",
    "sed -n '5,~4p' lines.txt",
    "sed -n '0~4p' lines.txt",
    "sed -n '1~3p' lines.txt",
    "sed -n '2~0p' lines.txt",
    "sed '0,/foo/d' t.txt",
    "sed '1,/foo/d' t.txt",
    "sed -n '5,2p' lines.txt",
    "sed '2,4!d' lines.txt",
    "sed -n '$!p' f.txt",
    "sed -n '/1/,/3/p' lines.txt",
    "sed -n '12,$p' lines.txt",
    "sed -n '$=' lines.txt",
    "sed -n '$=' f.txt lines.txt",
    "sed -s -n '$=' f.txt lines.txt",
    "sed -n '$p' f.txt nonl.txt",
    "sed -s -n '$p' f.txt nonl.txt",
    "sed -n '/a/,/c/{=;p}' f.txt",
    "sed -n '/A/Mp' t.txt",
    "sed 'N;N;s/^b$/X/Mg' f.txt",
    "sed -n '/foo/{/bar/p}' t.txt",
    "sed -n '2{p;p}' f.txt",
    "sed -n '/foo/{\np\n}' t.txt",
    "sed '2 ! s/./X/' f.txt",
    "sed -n '/a/ , /c/ p' f.txt",
    // s command
    "sed 's/foo/bar/' t.txt",
    "sed 's/foo/bar/g' t.txt",
    "sed 's/o/0/2' t.txt",
    "sed 's/o/0/2g' t.txt",
    "sed -n 's/foo/X/p' t.txt",
    "sed 's/hello/X/I' t.txt",
    "sed 's/HELLO/X/ig' t.txt",
    "sed 's/o*/-/g' f.txt",
    "echo baaac | sed 's/a*/x/g'",
    "echo abc | sed 's/x*/-/g'",
    "echo abc | sed 's/b*/x/2'",
    "sed 's/[aeiou]/<&>/g' t.txt",
    "sed 's/\\(foo\\) \\(bar\\)/\\2 \\1/' t.txt",
    "sed -E 's/(foo) (bar)/\\2 \\1/' t.txt",
    "sed -r 's/([a-z]+)=([0-9]+)/\\2=\\1/' kv.txt",
    "sed -E 's/[0-9]{3,}/N/' kv.txt",
    "sed 's/[0-9]\\{2\\}/NN/' kv.txt",
    "sed -E 's/(a|b)=/[\\1]/' kv.txt",
    "sed 's/a\\|b/Z/g' kv.txt",
    "sed 's/o\\+/0/g' t.txt",
    "sed 's/.*/\\U&/' t.txt",
    "sed 's/\\w\\+/\\u&/g' t.txt",
    "sed -E 's/(\\w+) (\\w+)/\\U\\1\\E \\2/' t.txt",
    "sed 's/.*/\\L\\u&/' t.txt",
    "sed -E 's/(.)(.*)/\\2\\l\\1/' t.txt",
    "sed 's/ /\\n/g' t.txt",
    "sed 's/ /\\t/' t.txt",
    "sed 's|o|/|g' t.txt",
    "sed 's/o/\\//g' t.txt",
    "sed 's/foo/[\\&]/' t.txt",
    "sed 's/^/> /' f.txt",
    "sed 's/$/;/' f.txt",
    "sed 's/x/y/;s//z/' f.txt",
    "sed '/foo/s//X/g' t.txt",
    "sed 's/a/b/ p' f.txt",
    "sed 's/o/0/w out.txt' t.txt; cat out.txt",
    "sed -n 's/o/0/gpw out.txt' t.txt; cat out.txt",
    "sed 's/\\<foo\\>/F/g' t.txt",
    "sed 's/l\\{2\\}/LL/' t.txt",
    "sed 'y/abc/xyz/' f.txt",
    "sed 'y/ol/OL/' t.txt",
    "sed 'y/\\n/ /;N;y/\\n/|/' f.txt",
    "sed 's/a/b/;tx;s/$/ no/;b;:x;s/$/ yes/' f.txt",
    "sed 's/a/A/;N;tx;s/$/ no/;b;:x;s/$/ yes/' f.txt",
    "sed 's/a/A/;Tx;s/$/ hit/;:x' f.txt",
    // hold space and multi-line idioms
    "sed -n '1!G;h;$p' lines.txt",
    "sed '1!G;h;$!d' f.txt",
    "sed '$!N;s/\\n/ /' lines.txt",
    "sed ':a;N;$!ba;s/\\n/,/g' lines.txt",
    "sed -e :a -e '$!N;s/\\n//;ta' f.txt",
    "sed 'N;P;D' lines.txt",
    "sed '$!N;P;D' f.txt",
    "sed 'N;D' lines.txt",
    "sed 'N;N;D' f.txt",
    "sed N lines.txt",
    "sed N f.txt",
    "sed -n 'h;n;G;p' lines.txt",
    "sed 'n;d' lines.txt",
    "sed -n 'n;p' lines.txt",
    "sed '$!n;s/a/X/' f.txt",
    "sed 'x' f.txt",
    "sed 'G' f.txt",
    "sed 'H;$!d;x' f.txt",
    "sed -n 'H;${x;s/\\n/-/g;p}' f.txt",
    "sed '/^$/d' t.txt",
    "sed '/^$/N;/\\n$/D' para.txt",
    "sed '1~3{N;N;s/\\n/+/g}' lines.txt",
    "sed 'z;s/^$/empty/' f.txt",
    // other commands
    "sed = f.txt",
    "sed -n '/foo/=' t.txt",
    "sed -n l tabs.txt",
    "sed -n l long.txt",
    "sed -n 'l 20' long.txt",
    "sed -n 'l 0' long.txt",
    "sed -l 30 -n l long.txt",
    "sed -n 'l 1' f.txt",
    "sed -n '$!{N};l' f.txt",
    "sed 2q lines.txt",
    "sed '2q5' lines.txt; echo $?",
    "sed 2Q lines.txt",
    "sed '/b/Q3' f.txt; echo $?",
    "sed -n '3{p;q}' lines.txt",
    "sed '1d' f.txt",
    "sed '$d' f.txt",
    "sed '2,3d;s/$/!/' lines.txt",
    "sed '/^#/d' kv.txt",
    "sed -n '/a/{p;b};p' f.txt",
    "sed -n '/b/{p;b}' f.txt",
    "sed ':top;s/^.\\{1,4\\}$/ &/;ttop' f.txt",
    "sed 'bend;s/a/X/;:end' f.txt",
    "sed F f.txt",
    "cat f.txt | sed -n F",
    "sed -n '/foo/w out.txt' t.txt; cat out.txt",
    "sed -n 'W out.txt' f.txt; cat out.txt",
    "sed 'N;W out.txt' f.txt >/dev/null; cat out.txt",
    "sed 'w /dev/stdout' f.txt",
    "sed '1r ins.txt' f.txt",
    "sed '$r ins.txt' f.txt",
    "sed 'r missing.txt' f.txt",
    "sed '/a/r ins.txt' f.txt nonl.txt",
    "sed 'R ins.txt' f.txt",
    "sed '1a\\\nappended' f.txt",
    "sed '1a appended text' f.txt",
    "sed '1a\\  leading kept' f.txt",
    "sed '2i\\\nline one\\\nline two' f.txt",
    "sed '2i inserted' f.txt",
    "sed '$a END' f.txt nonl.txt",
    "sed 'a\\' f.txt",
    "sed '1a foo\\tbar' f.txt",
    "sed '2c\\\nchanged' f.txt",
    "sed '2c changed' f.txt",
    "sed '1,2c\\\nrange' f.txt",
    "sed '2,3!c X' lines.txt",
    "sed '$!c X' f.txt",
    "sed -e '1a\\' -e 'two pieces' f.txt",
    "sed -e '1{N;a X' -e '};P;D' f.txt",
    "sed '1i\\\nA' f.txt | sed -n '1,2p'",
    "sed -n '/b/{s/b/B/;p;a after\n}' f.txt",
    "sed '1{x;p;x}' f.txt",
    // options
    "sed -n -e 1p -e 3p f.txt",
    "sed -e 's/a/1/' -e 's/b/2/' f.txt",
    "sed --expression=1d --quiet -e p f.txt",
    "sed -ne 2p f.txt",
    "sed -f script.sed t.txt",
    "sed -f quiet.sed t.txt",
    "sed -e 's/hello/HI/' -f script.sed t.txt",
    "sed '#n\n2p' f.txt",
    "sed '# comment\n2d' f.txt",
    "sed -n '2p # print it' f.txt",
    "sed -s '1i ---' f.txt nonl.txt",
    "sed '1i ---' f.txt nonl.txt",
    "sed -s 'F' f.txt nonl.txt",
    "sed -s -n '1p' f.txt lines.txt",
    "sed p nonl.txt",
    "sed '$s/$/!/' nonl.txt f.txt",
    "sed -n '$p' nonl.txt",
    "sed G nonl.txt",
    "sed -z 's/^t/T/' nul.txt | tr '\\0' '\\n'",
    "sed -z -n '2p' nul.txt | tr '\\0' '\\n'",
    "sed -n '/a/p' - < f.txt",
    "cat f.txt | sed 's/a/X/' - nonl.txt",
    "sed -- 's/a/X/' f.txt",
    "sed f.txt 2>/dev/null; echo $?",
    // more idioms and edge cases
    "sed -e '1{a X' -e 'N}' f.txt",
    "sed -n '/1/,/3/{//!p}' lines.txt",
    "sed '/a/,/b/s/$/!/' f.txt dup.txt",
    "sed 10q f.txt",
    "sed -n '2{n;p}' lines.txt",
    "sed '$!{h;d};x;G' f.txt",
    "sed = f.txt | sed 'N;s/\\n/ /'",
    "sed 'N;s/\\(.*\\)\\n\\(.*\\)/\\2\\n\\1/' lines.txt",
    "sed 's/./&&/3g' t.txt",
    "sed '1~2d' lines.txt",
    "sed -E 's/a|$/X/g' f.txt",
    "sed -n 'N;/a\\nc/p;/b\\na/p' f.txt",
    "sed 's/a/b/k' f.txt; echo $?",
    "sed '1' f.txt; echo $?",
    "sed 'a' f.txt; echo $?",
    "sed '/x' f.txt; echo $?",
    "sed 's/a/b/w' f.txt; echo $?",
    "sed 'y/abc/de/' f.txt; echo $?",
    "sed 'v' f.txt",
    "sed '$!d' f.txt nonl.txt",
    "sed -s '$!d' f.txt nonl.txt",
    "sed 's/[[:upper:]]/x/g' t.txt",
    "sed 's/[^a-z]//g' t.txt",
    "sed 's/\\s\\+/ /g' sp.txt",
    "sed -E 's/\\s+$//;s/^\\s+//' sp.txt",
    "sed 'N;s/^/>/Mg' f.txt",
    "sed 'N;N;s/$/</Mg' f.txt",
    "sed 's/a/\\0\\0/' f.txt",
    "sed 's/a/x\\\ny/' f.txt",
    "sed '/A/I,+1d' t.txt",
    "sed -n '/b/,$p' f.txt",
    "sed '2,3{s/^/[/;s/$/]/}' lines.txt",
    "sed -n '/foo/{n;p}' t.txt",
    "printf '' | sed -n '$='",
    "sed 'N;N;N;s/\\n/,/g' lines.txt",
    "sed 's/o/0/' nonl.txt",
    "sed 'a x' nonl.txt",
    "sed 'i x' nonl.txt",
    "sed '$r ins.txt' nonl.txt",
    "sed 'R nonl.txt' f.txt",
    "sed -n 'x;p' nonl.txt",
    "sed '=' nonl.txt",
    "sed -n '/one/{p;n;p}' nonl.txt nonl.txt",
    "sed '$!N;$!D' lines.txt",
    "sed -n '$!{h;d};H;x;p' f.txt",
    "sed -E 's/(b)?a/[\\1]/' f.txt",
    "sed -u p f.txt",
    "sed --posix -n 2p f.txt",
    "sed -E 's/^(.)(.*)$/\\2\\1/' words.txt",
    "sed 's/\\./!/g;s/a.c/X/' f.csv",
    "sed -n '/^$/!{s/^ *//;p}' words.txt",
    "sed 's/[[:space:]]\\{2,\\}/_/g' words.txt",
    "sed -n '2,4{=;p}' lines.txt",
    "sed 'c\\' f.txt",
    "sed '2{h;d};${G}' f.txt",
    "sed -e 'y/,/\\t/' f.csv",
    "sed -n '/[0-9]\\{3\\}/p' f.csv",
    "sed 's/,/;/2' f.csv",
    "sed '1!s/^/  /' f.csv",
    "sed -n -e '/bob/{' -e 's/bob/BOB/p' -e '}' f.csv",
    "sed '/^name/d; s/,[^,]*$//' f.csv",
    "sed -E 's/^([^:]*):([^:]*):.*/\\1 \\2/' pw.txt",
    "sed -n '$p;1p' f.txt",
    // in place
    "printf 'x1\\nx2\\n' > ip.txt; sed -i 's/x/y/' ip.txt; cat ip.txt",
    "printf 'x1\\nx2\\n' > ip.txt; sed -i.bak 's/x/y/' ip.txt; cat ip.txt ip.txt.bak",
    "printf 'x1\\nx2\\n' > ip.txt; sed --in-place=.orig '1d' ip.txt; cat ip.txt ip.txt.orig",
    "printf 'x1\\nx2\\n' > ip.txt; sed -i -e '$a end' ip.txt; cat ip.txt",
    "printf 'a\\nb\\n' > i1.txt; printf 'c\\nd\\n' > i2.txt; sed -i '$d;1s/^/>/' i1.txt i2.txt; cat i1.txt i2.txt",
    "printf 'a\\nb\\n' > i1.txt; sed -n -i '2p' i1.txt; cat i1.txt",
    "printf '1\\n2\\n3\\n' > i1.txt; sed -i 2q i1.txt; cat i1.txt",
    "printf 'a\\nb' > i1.txt; sed -i 's/b/B/' i1.txt; cat i1.txt",
    "printf 'a\\n' > i1.txt; sed -i 's/a/b/' i1.txt missing.txt; echo $?; cat i1.txt",
    "printf 'a\\n' > i1.txt; sed -i 's/a/b' i1.txt; echo $?; cat i1.txt",
    "printf 'a\\n' > i1.txt; sed -i 'w i2.txt' i1.txt; cat i1.txt i2.txt",
    // errors and statuses
    "sed 's/a/b' f.txt; echo $?",
    "sed 'k' f.txt; echo $?",
    "sed p missing.txt; echo $?",
    "sed p missing.txt f.txt; echo $?",
    "sed -n '$p' missing.txt f.txt; echo $?",
    "sed '2{p' f.txt; echo $?",
    "sed 'p}' f.txt; echo $?",
    "sed 'bnowhere' f.txt; echo $?",
    "sed 'y/ab/c/' f.txt; echo $?",
    "sed '0,3d' f.txt; echo $?",
    "sed 's/a/b/gg' f.txt; echo $?",
    "sed 's/\\(a/b/' f.txt; echo $?",
    "sed -f missing.sed f.txt; echo $?",
    "sed -x p f.txt; echo $?",
    "sed; echo $?",
    "sed -i p; echo $?",
    "sed 's/a/\\2/' f.txt; echo $?",
    // issue 20 §2: the delimiter inside brackets; ranges whose first line was skipped;
    // `i\` then an empty line; numeric escapes in regexes and `y`; `-z` with `M`
    "sed 's/[/]/X/' lines.txt; echo a/b/c | sed 's/[/]/X/g'",
    "echo 'a/b|c' | sed 's|[|]|X|; s,[[:alpha:]],Y,g'",
    "echo 'a]b/' | sed 's/[]/]/X/g'",
    "echo 'x/y' | sed 's/[^/]*$/Z/'",
    "sed -n '1d;1,3p' lines.txt",
    "sed -n '2d;2,4p' lines.txt",
    "sed -n '1d;1,/3/p' lines.txt",
    "sed -n '1d;1,+2p' lines.txt",
    "sed -n '1d;1,~4p' lines.txt",
    "sed -n '1,4d;1,3p' lines.txt",
    "sed -n '1,4d;2,/x/p' lines.txt",
    "sed '1d;1,3s/^/>/' lines.txt",
    "sed '1i\\\n' f.txt",
    "sed -e '1i\\' -e 'hello' f.txt",
    "sed '1i\\' f.txt",
    "echo abc | sed 'y/b/\\x00/' | tr '\\0' @",
    "echo abc | sed 'y/abc/\\x41\\o102\\d067/'",
    "echo 'aAb.' | sed 's/\\x41/Q/;s/\\o142/B/;s/\\d097/Z/;s/\\x2e/!/'",
    "echo 'a.b' | sed -E 's/\\x2e|b/X/g'",
    "printf 'caf\\351 x\\377y\\n' | sed 's/\\xe9/E/;s/[\\xff]/F/'",
    "printf 'a\\001b\\n' | sed 's/\\cA/-/'",
    "echo ',' | sed 's/\\d300/X/'; echo a | sed 'y/a/\\d300/'; echo a | sed 's/a/\\d300/'",
    "sed -z 's/^t/T/Mg' nul.txt | tr '\\0' '|'",
    "printf 'a\\nb\\0c\\nd\\0' | sed -z 'N;s/^c/C/M;s/d$/D/M;s/^b/B/M' | tr '\\0' '|'",
];

#[test]
fn matches_gnu() {
    let mut ws = ws();
    common::differential(&mut ws, CASES);
}

/// Where Ultra's sed differs from GNU on purpose, checked against Ultra's own expected
/// output.
#[test]
fn intended_differences() {
    let mut ws = ws();
    // `e` and `s///e` run shell commands; Ultra's shell spawns no processes, so the script
    // is refused (GNU would run `date`).
    let (out, err, status) = ws.run("sed 'e date' f.txt");
    assert_eq!((out.as_str(), status), ("", 1));
    assert!(err.contains("e is not available"), "{err}");
    let (_, err, status) = ws.run("sed 's/a/date/e' f.txt");
    assert_eq!(status, 1);
    assert!(err.contains("e is not available"), "{err}");
    // Back-references inside a pattern: the `regex` crate has none, so the script is
    // refused with a clear message instead of matching.
    let (out, err, status) = ws.run("sed '$!N;/^\\(.*\\)\\n\\1$/!P;D' dup.txt");
    assert_eq!((out.as_str(), status), ("", 1));
    assert!(err.contains("back-reference"), "{err}");
}

#[test]
fn bad_script_gives_a_structured_error() {
    let mut ws = ws();
    let (out, err, status) = ws.run("sed 's/a/b' f.txt");
    assert_eq!((out.as_str(), status), ("", 1));
    let v: serde_json::Value = serde_json::from_str(&err).unwrap();
    assert_eq!(v["error"], "invalid_arguments");
    assert_eq!(v["command"], "sed");
    assert_eq!(v["issues"][0]["path"], "script");
    assert_eq!(v["issues"][0]["code"], "syntax_error");
    let msg = v["issues"][0]["message"].as_str().unwrap();
    assert_eq!(msg, "-e expression #1, char 5: unterminated `s' command");
    let (_, err, status) = ws.run("sed -e p -e 'k' f.txt");
    assert_eq!(status, 1);
    assert!(
        err.contains("-e expression #2, char 1: unknown command: `k'"),
        "{err}"
    );
    let (_, err, status) = ws.run("sed --bogus p f.txt");
    assert_eq!(status, 1);
    assert!(err.contains("unknown_flag"), "{err}");
}

#[test]
fn typed_substitution_form() {
    use ultra_shell::promoted::Promoted;
    use ultra_shell::promoted::sed::{Sed, SedArgs};
    let args: SedArgs = serde_json::from_str(
        r#"{"pattern": "a/b|c", "replacement": "x\ny", "flags": "g", "files": ["f.txt"]}"#,
    )
    .unwrap();
    assert!(Sed.validate(&args).is_ok());
    let args: SedArgs = serde_json::from_str(r#"{"script": ["s/a/b"], "pattern": "a"}"#).unwrap();
    assert!(Sed.validate(&args).is_err());
    let args: SedArgs =
        serde_json::from_str(r#"{"script": ["s/(/b/"], "extended": true}"#).unwrap();
    let issues = Sed.validate(&args).unwrap_err();
    assert_eq!(issues[0].code, "syntax_error");
    let args: SedArgs =
        serde_json::from_str(r#"{"script": ["w out.txt"], "files": ["f.txt"]}"#).unwrap();
    assert!(Sed.risk(&args).writes && !Sed.risk(&args).destructive);
    let args: SedArgs =
        serde_json::from_str(r#"{"script": ["p"], "files": ["f.txt"], "inPlace": true}"#).unwrap();
    assert!(Sed.risk(&args).destructive);
    let args: SedArgs = serde_json::from_str(r#"{"script": ["p"]}"#).unwrap();
    assert!(!Sed.risk(&args).writes);
}
