//! Parser snapshot tests: tables of (input, expected S-expression rendering) and (input,
//! error code, line, column), with cases drawn from the Oils spec categories
//! (`quote`, `word-split`, `pipeline`, `redirect`, `here-doc`, `command-parsing`,
//! `assign`) and brush's `and_or`/`redirection` cases, restricted to Ultra's subset.
//!
//! The rendering is documented in `src/ast.rs`: `"x"` unquoted literal, `q"x"` quoted
//! literal, `$X`/`q$X` parameters, `g"*"` unquoted globs, `+` joins the parts of one word.

use ultra_shell::{RedirectKind, RedirectTarget, Span, WordPart, parse};

const OK: &[(&str, &str)] = &[
    // --- empty input, blank lines, comments ---
    ("", ""),
    ("\n\n   \n", ""),
    ("# only a comment", ""),
    ("# c1\n\n# c2\n", ""),
    ("echo hi # trailing comment", r#"(cmd "echo" "hi")"#),
    ("echo a#b", r#"(cmd "echo" "a#b")"#),
    (
        "echo '#x' \"#y\" \\#z",
        r##"(cmd "echo" q"#x" q"#y" q"#"+"z")"##,
    ),
    ("echo hi;# comment", r#"(cmd "echo" "hi")"#),
    // --- words, quoting, concatenation ---
    ("echo", r#"(cmd "echo")"#),
    ("  echo   a\tb  ", r#"(cmd "echo" "a" "b")"#),
    ("echo a\"b\"'c'$X", r#"(cmd "echo" "a"+q"bc"+$X)"#),
    ("echo 'a b' \"c d\"", r#"(cmd "echo" q"a b" q"c d")"#),
    ("echo '' \"\"", r#"(cmd "echo" q"" q"")"#),
    ("echo ''x", r#"(cmd "echo" q""+"x")"#),
    ("echo '$X \\n \"'", r#"(cmd "echo" q"$X \\n \"")"#),
    ("echo \"it's\"", r#"(cmd "echo" q"it's")"#),
    ("echo 'multi\nline'", r#"(cmd "echo" q"multi\nline")"#),
    ("echo é\"ü\"", r#"(cmd "echo" "é"+q"ü")"#),
    (
        "echo if for while case",
        r#"(cmd "echo" "if" "for" "while" "case")"#,
    ),
    ("echo { } ! [[", r#"(cmd "echo" "{" "}" "!" "[[")"#),
    ("echo ~/x a=b --k=v", r#"(cmd "echo" "~/x" "a=b" "--k=v")"#),
    // --- escapes ---
    ("echo a\\ b", r#"(cmd "echo" "a"+q" "+"b")"#),
    ("echo \\\\ \\' \\\"", r#"(cmd "echo" q"\\" q"'" q"\"")"#),
    (
        "echo \"a\\\"b\\\\c\\$d\\`e\\x\"",
        r#"(cmd "echo" q"a\"b\\c$d`e\\x")"#,
    ),
    ("echo \\$HOME", r#"(cmd "echo" q"$"+"HOME")"#),
    ("ec\\\nho hi", r#"(cmd "echo" "hi")"#),
    ("echo a \\\n b", r#"(cmd "echo" "a" "b")"#),
    ("echo \"a\\\nb\"", r#"(cmd "echo" q"ab")"#),
    // --- parameters ---
    ("echo $HOME", r#"(cmd "echo" $HOME)"#),
    ("echo ${HOME}x", r#"(cmd "echo" $HOME+"x")"#),
    ("echo $X_1.txt", r#"(cmd "echo" $X_1+".txt")"#),
    ("echo $? $1 $@ $# $12", r#"(cmd "echo" $? $1 $@ $# $1+"2")"#),
    ("echo ${12}", r#"(cmd "echo" $12)"#),
    (
        "echo \"$HOME/${USER}x$?\"",
        r#"(cmd "echo" q$HOME+q"/"+q$USER+q"x"+q$?)"#,
    ),
    ("echo $ \"$\" a$ $/", r#"(cmd "echo" "$" q"$" "a$" "$/")"#),
    ("echo '$X' \"'$X'\"", r#"(cmd "echo" q"$X" q"'"+q$X+q"'")"#),
    // --- globs: unquoted are globs, quoted and escaped are literal ---
    ("ls *.rs", r#"(cmd "ls" g"*"+".rs")"#),
    (
        "ls '*.rs' \"*.rs\" \\*.rs",
        r#"(cmd "ls" q"*.rs" q"*.rs" q"*"+".rs")"#,
    ),
    ("ls x?y", r#"(cmd "ls" "x"+g"?"+"y")"#),
    ("ls [a-z]*", r#"(cmd "ls" g"[a-z]"+g"*")"#),
    (
        "ls [!0-9] [^x] []a]",
        r#"(cmd "ls" g"[!0-9]" g"[^x]" g"[]a]")"#,
    ),
    ("ls a[b", r#"(cmd "ls" "a[b")"#),
    ("ls \"$D\"/*.md", r#"(cmd "ls" q$D+"/"+g"*"+".md")"#),
    ("ls src/**/x", r#"(cmd "ls" "src/"+g"*"+g"*"+"/x")"#),
    // --- pipelines ---
    ("a | b", r#"(pipe (cmd "a") (cmd "b"))"#),
    (
        "cat f | grep x | head -3",
        r#"(pipe (cmd "cat" "f") (cmd "grep" "x") (cmd "head" "-3"))"#,
    ),
    ("a|b", r#"(pipe (cmd "a") (cmd "b"))"#),
    ("a |\n\n b", r#"(pipe (cmd "a") (cmd "b"))"#),
    // --- and/or lists: equal precedence, left-associative, bind looser than | ---
    ("a && b", r#"(&& (cmd "a") (cmd "b"))"#),
    ("a || b", r#"(|| (cmd "a") (cmd "b"))"#),
    ("a && b || c", r#"(|| (&& (cmd "a") (cmd "b")) (cmd "c"))"#),
    ("a || b && c", r#"(&& (|| (cmd "a") (cmd "b")) (cmd "c"))"#),
    (
        "a | b && c | d",
        r#"(&& (pipe (cmd "a") (cmd "b")) (pipe (cmd "c") (cmd "d")))"#,
    ),
    ("a&&b||c", r#"(|| (&& (cmd "a") (cmd "b")) (cmd "c"))"#),
    ("a &&\n# why\nb", r#"(&& (cmd "a") (cmd "b"))"#),
    ("a ||\n\nb", r#"(|| (cmd "a") (cmd "b"))"#),
    // --- ; and newlines ---
    ("a; b", r#"(cmd "a"); (cmd "b")"#),
    ("a;b;", r#"(cmd "a"); (cmd "b")"#),
    ("a\nb\n\nc\n", r#"(cmd "a"); (cmd "b"); (cmd "c")"#),
    (
        "a && b; c || d",
        r#"(&& (cmd "a") (cmd "b")); (|| (cmd "c") (cmd "d"))"#,
    ),
    // --- assignments ---
    ("X=1", r#"(cmd X="1")"#),
    ("X=1; echo $X", r#"(cmd X="1"); (cmd "echo" $X)"#),
    ("X=1 Y=2 cmd arg=3", r#"(cmd X="1" Y="2" "cmd" "arg=3")"#),
    ("X= cmd", r#"(cmd X= "cmd")"#),
    ("X='a b'", r#"(cmd X=q"a b")"#),
    ("X=a\"$Y\"*", r#"(cmd X="a"+q$Y+g"*")"#),
    ("_x9=1", r#"(cmd _x9="1")"#),
    ("9x=1 'X'=1 X\\=1", r#"(cmd "9x=1" q"X"+"=1" "X"+q"="+"1")"#),
    ("cmd X=1", r#"(cmd "cmd" "X=1")"#),
    ("X=1 >f", r#"(cmd X="1" (1> "f"))"#),
    // --- redirects ---
    ("echo hi > out", r#"(cmd "echo" "hi" (1> "out"))"#),
    ("echo hi >out", r#"(cmd "echo" "hi" (1> "out"))"#),
    ("echo hi >> log", r#"(cmd "echo" "hi" (1>> "log"))"#),
    ("sort < in", r#"(cmd "sort" (0< "in"))"#),
    ("cmd 2> err", r#"(cmd "cmd" (2> "err"))"#),
    ("cmd 2>> err", r#"(cmd "cmd" (2>> "err"))"#),
    ("cmd 2>&1", r#"(cmd "cmd" (2>& 1))"#),
    ("cmd > f 2>&1", r#"(cmd "cmd" (1> "f") (2>& 1))"#),
    ("cmd &> both", r#"(cmd "cmd" (&> "both"))"#),
    ("cmd &>> both", r#"(cmd "cmd" (&>> "both"))"#),
    ("echo err >&2", r#"(cmd "echo" "err" (1>& 2))"#),
    ("echo err 1>&2", r#"(cmd "echo" "err" (1>& 2))"#),
    ("echo x >| f", r#"(cmd "echo" "x" (1> "f"))"#),
    ("> f", r#"(cmd (1> "f"))"#),
    ("< in sort > out", r#"(cmd "sort" (0< "in") (1> "out"))"#),
    ("echo a2>f", r#"(cmd "echo" "a2" (1> "f"))"#),
    ("echo 2 > f", r#"(cmd "echo" "2" (1> "f"))"#),
    ("cat 0<in", r#"(cmd "cat" (0< "in"))"#),
    ("echo > \"my file\"", r#"(cmd "echo" (1> q"my file"))"#),
    ("echo > $OUT.txt", r#"(cmd "echo" (1> $OUT+".txt"))"#),
    (
        "a 2>&1 | b > o",
        r#"(pipe (cmd "a" (2>& 1)) (cmd "b" (1> "o")))"#,
    ),
    // --- here-documents ---
    (
        "cat <<EOF\nhello $X\n  \\$Y\nEOF\n",
        r#"(cmd "cat" (0<< (heredoc "EOF" expand q"hello "+q$X+q"\n  $Y\n")))"#,
    ),
    (
        "cat <<'EOF'\nhello $X \\$\nEOF\n",
        r#"(cmd "cat" (0<< (heredoc "EOF" literal "hello $X \\$\n")))"#,
    ),
    (
        "cat <<\"EOF\"\n$X\nEOF\n",
        r#"(cmd "cat" (0<< (heredoc "EOF" literal "$X\n")))"#,
    ),
    (
        "cat <<\\EOF\n$X\nEOF\n",
        r#"(cmd "cat" (0<< (heredoc "EOF" literal "$X\n")))"#,
    ),
    (
        "cat <<E'O'F\n$X\nEOF\n",
        r#"(cmd "cat" (0<< (heredoc "EOF" literal "$X\n")))"#,
    ),
    (
        "cat <<-EOF\n\t\ttabbed $X\n\tEOF\n",
        r#"(cmd "cat" (0<<- (heredoc "EOF" expand q"tabbed "+q$X+q"\n")))"#,
    ),
    (
        "cat <<-'EOF'\n\t  a\n\tEOF\n",
        r#"(cmd "cat" (0<<- (heredoc "EOF" literal "  a\n")))"#,
    ),
    (
        "cat <<EOF\n\tEOF\nEOF\n",
        r#"(cmd "cat" (0<< (heredoc "EOF" expand q"\tEOF\n")))"#,
    ),
    (
        "cat <<A <<\"B\"; echo next\na $1\nA\nb $2\nB\necho after",
        r#"(cmd "cat" (0<< (heredoc "A" expand q"a "+q$1+q"\n")) (0<< (heredoc "B" literal "b $2\n"))); (cmd "echo" "next"); (cmd "echo" "after")"#,
    ),
    (
        "cat <<A | tr a b <<B\n1\nA\n2\nB\n",
        r#"(pipe (cmd "cat" (0<< (heredoc "A" expand q"1\n"))) (cmd "tr" "a" "b" (0<< (heredoc "B" expand q"2\n"))))"#,
    ),
    (
        "cat <<EOF\nat end\nEOF",
        r#"(cmd "cat" (0<< (heredoc "EOF" expand q"at end\n")))"#,
    ),
    (
        "cat <<EOF\nEOF",
        r#"(cmd "cat" (0<< (heredoc "EOF" expand)))"#,
    ),
    (
        "cat <<EOF > out\nx \"q\" 'y'\nEOF",
        r#"(cmd "cat" (0<< (heredoc "EOF" expand q"x \"q\" 'y'\n")) (1> "out"))"#,
    ),
    (
        "cat <<EOF\na\\\nb\nEOF",
        r#"(cmd "cat" (0<< (heredoc "EOF" expand q"ab\n")))"#,
    ),
    (
        "cat 3<<EOF\nx\nEOF",
        r#"(cmd "cat" (3<< (heredoc "EOF" expand q"x\n")))"#,
    ),
    (
        "cat <<EOF # comment\n# not a comment\nEOF",
        r##"(cmd "cat" (0<< (heredoc "EOF" expand q"# not a comment\n")))"##,
    ),
    (
        "echo ${X:-y} \"${#X}\" ${f%.*} ${p##*/} ${Y:+\"a b\"}",
        r#"(cmd "echo" ${X:-"y"} q${#X} ${f%".*"} ${p##"*/"} ${Y:+q"a b"})"#,
    ),
    (
        "echo $((1+2)) \"n=$(( (x + 1) * 2 ))\" a$((y))b",
        r#"(cmd "echo" $((1+2)) q"n="+q$(( (x + 1) * 2 )) "a"+$((y))+"b")"#,
    ),
    // --- compound commands, functions, substitutions ---
    (
        "if [ -f x ]; then echo a; elif b; then c; else d; fi",
        r#"(if {(cmd "[" "-f" "x" "]")} {(cmd "echo" "a")} {(cmd "b")} {(cmd "c")} else {(cmd "d")})"#,
    ),
    (
        "for f in src/*.py a; do echo $f; done > out",
        r#"(for f in "src/"+g"*"+".py" "a" {(cmd "echo" $f)} (1> "out"))"#,
    ),
    ("for a\ndo echo; done", r#"(for a {(cmd "echo")})"#),
    (
        "while read l; do n=$((n+1)); done < f",
        r#"(while {(cmd "read" "l")} {(cmd n=$((n+1)))} (0< "f"))"#,
    ),
    (
        "until false\ndo\n:\ndone",
        r#"(until {(cmd "false")} {(cmd ":")})"#,
    ),
    (
        "case $x in *.rs|*.py) echo code;; (b) ;; esac",
        r#"(case $x (g"*"+".rs"|g"*"+".py" {(cmd "echo" "code")}) ("b" {}))"#,
    ),
    (
        "case x in\n  a)\n    echo a\n    ;;\n  *) echo other\nesac",
        r#"(case "x" ("a" {(cmd "echo" "a")}) (g"*" {(cmd "echo" "other")}))"#,
    ),
    (
        "{ echo a; echo b; } | sort; (cd src && ls)",
        r#"(pipe (brace {(cmd "echo" "a"); (cmd "echo" "b")}) (cmd "sort")); (subshell {(&& (cmd "cd" "src") (cmd "ls"))})"#,
    ),
    (
        "f() { local x=$1; return 2; }\nfunction g { f; }",
        r#"(fn f (brace {(cmd "local" "x="+$1); (cmd "return" "2")})); (fn g (brace {(cmd "f")}))"#,
    ),
    (
        "! grep -q x f && echo no",
        r#"(&& (! (cmd "grep" "-q" "x" "f")) (cmd "echo" "no"))"#,
    ),
    (
        "[[ -f $f && ( $x == *.rs || ! -d d ) ]]",
        r#"([[ (&& (-f $f) (|| (== $x g"*"+".rs") (! (-d "d")))))"#,
    ),
    (
        "[[ $v =~ ^(a|b)[0-9]+$ && a < b ]]",
        r#"([[ (&& (=~ $v "^(a|b)[0-9]+$") (< "a" "b")))"#,
    ),
    (
        "echo $(ls src | wc -l) \"$(echo a; echo b)\" `echo \\`hi\\``",
        r#"(cmd "echo" $({(pipe (cmd "ls" "src") (cmd "wc" "-l"))}) q$({(cmd "echo" "a"); (cmd "echo" "b")}) $({(cmd "echo" $({(cmd "hi")}))}))"#,
    ),
    (
        "echo $(case $x in a) echo A;; esac) $((1 + $(echo 2)))",
        r#"(cmd "echo" $({(case $x ("a" {(cmd "echo" "A")}))}) $((q"1 + "+q$({(cmd "echo" "2")}))))"#,
    ),
    (
        "cat <<EOF\n$(ls)\nEOF",
        r#"(cmd "cat" (0<< (heredoc "EOF" expand q$({(cmd "ls")})+q"\n")))"#,
    ),
    ("echo done fi }", r#"(cmd "echo" "done" "fi" "}")"#),
];

/// (input, code, line, column)
const ERR: &[(&str, &str, usize, usize)] = &[
    ("echo \"abc", "unterminated_quote", 1, 6),
    ("echo 'abc", "unterminated_quote", 1, 6),
    ("echo a\n  echo x\"b", "unterminated_quote", 2, 9),
    ("echo ${X", "unterminated_quote", 1, 6),
    ("echo $((1+2)", "unterminated_quote", 1, 6),
    ("echo $((1+(2)", "unterminated_quote", 1, 6),
    ("echo ${X/a/b}", "unsupported_syntax", 1, 6),
    ("echo ${X:0:2}", "unsupported_syntax", 1, 6),
    ("echo ${X:-y", "unterminated_quote", 1, 6),
    ("echo $'x'", "unsupported_syntax", 1, 6),
    ("diff <(a) b", "unsupported_syntax", 1, 6),
    ("tee >(a)", "unsupported_syntax", 1, 5),
    ("a &", "unsupported_syntax", 1, 3),
    ("a & b", "unsupported_syntax", 1, 3),
    ("a |& b", "unsupported_syntax", 1, 3),
    ("cat <<< hi", "unsupported_syntax", 1, 5),
    ("cat <&3", "unsupported_syntax", 1, 5),
    ("echo >&file", "unsupported_syntax", 1, 6),
    ("echo 300>f", "unsupported_syntax", 1, 6),
    ("a )", "unexpected_token", 1, 3),
    ("echo >", "unexpected_token", 1, 7),
    ("echo > | b", "unexpected_token", 1, 8),
    ("echo >\nf", "unexpected_token", 1, 7),
    ("cat <<", "unexpected_token", 1, 7),
    ("cat << ;", "unexpected_token", 1, 8),
    ("cat <<EOF", "missing_heredoc_terminator", 1, 5),
    ("cat <<EOF\nx\n", "missing_heredoc_terminator", 1, 5),
    (
        "echo\ncat <<EOF\nx\n EOF\n",
        "missing_heredoc_terminator",
        2,
        5,
    ),
    ("cat <<A <<B\nA\n", "missing_heredoc_terminator", 1, 9),
    ("| a", "empty_command", 1, 1),
    ("a | | b", "empty_command", 1, 3),
    ("a |", "empty_command", 1, 3),
    ("a &&", "empty_command", 1, 3),
    ("a ||\n", "empty_command", 1, 3),
    ("&& b", "empty_command", 1, 1),
    (";", "empty_command", 1, 1),
    ("a ; ; b", "empty_command", 1, 5),
    ("a\n;", "empty_command", 2, 1),
    ("a && ; b", "empty_command", 1, 3),
    // Compound commands: what is missing is named where it should be.
    ("a && if x", "unexpected_token", 1, 10),
    ("if true; then fi", "unexpected_token", 1, 15),
    ("if true; echo; fi", "unexpected_token", 1, 16),
    ("for i in a b; echo $i; done", "unexpected_token", 1, 15),
    ("for 1 in a; do :; done", "unexpected_token", 1, 5),
    ("while true; do; done", "empty_command", 1, 15),
    ("while true; do :; od", "unexpected_token", 1, 21),
    ("case x in a) echo; esac; fi", "unexpected_token", 1, 26),
    ("case x a) ;; esac", "unexpected_token", 1, 8),
    ("case x in a echo;; esac", "unexpected_token", 1, 13),
    ("{ a; ", "unexpected_token", 1, 6),
    ("{ }", "unexpected_token", 1, 3),
    ("( a", "unexpected_token", 1, 4),
    ("a )", "unexpected_token", 1, 3),
    ("done", "unexpected_token", 1, 1),
    ("echo; }", "unexpected_token", 1, 7),
    ("f() echo", "unexpected_token", 1, 5),
    ("f( ) { :; } x", "unexpected_token", 1, 13),
    ("[[ -f x", "unexpected_token", 1, 8),
    ("[[ a == ]]", "unexpected_token", 1, 9),
    ("[[ ( a ]]", "unexpected_token", 1, 8),
    ("echo $(ls", "unterminated_quote", 1, 6),
    ("echo `ls", "unterminated_quote", 1, 6),
    ("echo $(if)", "unexpected_token", 1, 11),
    ("echo `ls )`", "unexpected_token", 1, 6),
    (
        "echo x; for ((i=0; i<3; i++)); do :; done",
        "unsupported_syntax",
        1,
        13,
    ),
    ("((n++))", "unsupported_syntax", 1, 1),
    ("X=(a b)", "unsupported_syntax", 1, 3),
    ("select x in a; do :; done", "unsupported_syntax", 1, 1),
    ("case x in a) :;& esac", "unsupported_syntax", 1, 15),
    ("[[ $x =~ ^(\"a\"|b)$ ]]", "unsupported_syntax", 1, 10),
];

#[test]
fn snapshots() {
    assert!(OK.len() >= 60, "{} cases", OK.len());
    let mut failures = Vec::new();
    for (input, expected) in OK {
        match parse(input) {
            Ok(script) => {
                let got = script.to_string();
                if got != *expected {
                    failures.push(format!(
                        "{input:?}\n  expected {expected}\n  got      {got}"
                    ));
                }
            }
            Err(e) => failures.push(format!("{input:?}\n  expected {expected}\n  error    {e}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn errors() {
    let mut failures = Vec::new();
    for (input, code, line, column) in ERR {
        match parse(input) {
            Ok(s) => failures.push(format!("{input:?}: expected {code}, parsed {s}")),
            Err(e) => {
                let p = e.pos();
                if e.code() != *code || p.line != *line || p.column != *column {
                    failures.push(format!(
                        "{input:?}: expected {code} at {line}:{column}, got {} at {p} ({e})",
                        e.code()
                    ));
                }
                let msg = e.to_string();
                if !msg.starts_with(&format!("{line}:{column}: ")) {
                    failures.push(format!("{input:?}: message {msg:?} lacks the position"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn every_error_code_is_covered() {
    let mut codes: Vec<&str> = ERR.iter().map(|c| c.1).collect();
    codes.extend(limit_errors().iter().map(|e| e.code()));
    for code in [
        "unterminated_quote",
        "unsupported_syntax",
        "unexpected_token",
        "missing_heredoc_terminator",
        "empty_command",
        "input_too_large",
        "too_many_commands",
        "too_many_tokens",
        "word_too_long",
    ] {
        assert!(codes.contains(&code), "no case for {code}");
    }
}

fn limit_errors() -> Vec<ultra_shell::ParseError> {
    let big = "a".repeat(ultra_shell::MAX_INPUT + 1);
    let many = "a;".repeat(ultra_shell::MAX_COMMANDS + 1);
    let long = format!("echo {}", "x".repeat(ultra_shell::MAX_WORD + 10));
    let tokens = format!("echo {}", "a ".repeat(ultra_shell::MAX_TOKENS));
    [big, many, long, tokens]
        .iter()
        .map(|s| parse(s).expect_err("over a limit"))
        .collect()
}

#[test]
fn limits() {
    let errs = limit_errors();
    assert_eq!(errs[0].code(), "input_too_large");
    assert_eq!((errs[0].pos().line, errs[0].pos().column), (1, 1));
    assert_eq!(errs[1].code(), "too_many_commands");
    let p = errs[1].pos();
    assert_eq!(p.offset, 2 * ultra_shell::MAX_COMMANDS);
    assert_eq!(errs[2].code(), "word_too_long");
    assert_eq!(errs[2].pos().column, 6);
    assert_eq!(errs[3].code(), "too_many_tokens");
    assert_eq!(errs[3].pos().offset, 5 + 2 * (ultra_shell::MAX_TOKENS - 1));
    // Exactly at the limits is fine.
    assert!(parse(&"a;".repeat(ultra_shell::MAX_COMMANDS)).is_ok());
    let pipes = format!("{}a", "a | ".repeat(ultra_shell::MAX_COMMANDS - 1));
    assert!(parse(&pipes).is_ok());
}

#[test]
fn spans_and_structure() {
    let s = parse("X=1 cat  'a b' > out <<EOF\nbody\nEOF\n").expect("parses");
    let cmd = s.simple_commands()[0];
    assert_eq!(cmd.assignments[0].name, "X");
    assert_eq!(cmd.assignments[0].span, Span { start: 0, end: 3 });
    assert_eq!(cmd.words[1].span, Span { start: 9, end: 14 });
    assert_eq!(
        cmd.words[1].parts,
        vec![WordPart::Literal {
            text: "a b".into(),
            quoted: true
        }]
    );
    assert_eq!(cmd.redirects[0].span, Span { start: 15, end: 20 });
    assert_eq!(
        cmd.redirects[1].kind,
        RedirectKind::HereDoc { strip_tabs: false }
    );
    let RedirectTarget::HereDoc(h) = &cmd.redirects[1].target else {
        panic!("not a here-doc");
    };
    assert_eq!((h.body.as_str(), h.expand), ("body\n", true));
    assert_eq!(cmd.span, Span { start: 0, end: 26 });
    assert!(!cmd.words[1].has_glob());
    let g = parse("ls *.rs").expect("parses");
    assert!(g.simple_commands()[0].words[1].has_glob());
}

#[test]
fn error_positions_count_characters() {
    let e = parse("échö 'x").expect_err("unterminated");
    assert_eq!((e.pos().line, e.pos().column, e.pos().offset), (1, 6, 7));
}
