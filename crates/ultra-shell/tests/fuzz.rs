//! Robustness: `parse` never panics on arbitrary input (property tests over random strings and
//! random mixes of shell metacharacters), reports positions inside the input, and finishes
//! fast on large pathological inputs.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use ultra_shell::parse;

/// Pieces that exercise every lexer and parser path.
const PIECES: &[&str] = &[
    " ",
    "\t",
    "\n",
    "\\",
    "\\\n",
    "'",
    "\"",
    "$",
    "${",
    "}",
    "$(",
    "$((",
    "`",
    "(",
    ")",
    "{",
    "|",
    "||",
    "&",
    "&&",
    ";",
    ";;",
    "<",
    ">",
    ">>",
    "<<",
    "<<-",
    "<<<",
    "2>",
    "&>",
    ">&",
    "2>&1",
    "#",
    "*",
    "?",
    "[",
    "]",
    "[!",
    "=",
    "X=",
    "EOF",
    "\tEOF",
    "if",
    "for",
    "echo",
    "a",
    "é",
    "1",
    "$?",
    "$1",
    "$X",
    "!",
    "-",
    "\r",
    "\0",
    "then",
    "else",
    "elif",
    "fi",
    "while",
    "until",
    "do",
    "done",
    "case",
    "in",
    "esac",
    "a)",
    "*)",
    "function",
    "f()",
    "{ ",
    " }",
    "[[",
    "]]",
    "==",
    "=~",
    "((",
    "))",
    "$@",
    "\"$@\"",
    "$#",
    "local",
    "return",
    "break",
    "`echo",
    "$(case x in a)",
];

fn check(input: &str) {
    match parse(input) {
        Ok(script) => {
            let _ = script.to_string();
        }
        Err(e) => {
            let p = e.pos();
            assert!(p.offset <= input.len(), "{input:?}: {e}");
            assert!(input.is_char_boundary(p.offset), "{input:?}: {e}");
            assert!(p.line >= 1 && p.column >= 1, "{input:?}: {e}");
            assert!(!e.code().is_empty());
            let _ = e.to_string();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn never_panics_on_arbitrary_strings(s in any::<String>()) {
        check(&s);
    }

    #[test]
    fn never_panics_on_metacharacter_soup(
        pieces in prop::collection::vec(prop::sample::select(PIECES), 0..80)
    ) {
        check(&pieces.concat());
    }

    #[test]
    fn plain_words_round_trip(
        // A leading `x` keeps keywords (`if`, `while`, ...) out of command position.
        words in prop::collection::vec("x[a-z0-9_./-]{0,8}", 1..6),
        piped in any::<bool>(),
    ) {
        let line = words.join(if piped { " | " } else { " " });
        let script = parse(&line).expect("plain words parse");
        let cmds = script.simple_commands();
        if piped {
            prop_assert_eq!(cmds.len(), words.len());
        } else {
            prop_assert_eq!(cmds.len(), 1);
            prop_assert_eq!(cmds[0].words.len(), words.len());
            for (w, text) in cmds[0].words.iter().zip(&words) {
                prop_assert_eq!(w.as_plain(), Some(text.as_str()));
                prop_assert_eq!(&line[w.span.start..w.span.end], text.as_str());
            }
        }
    }
}

#[test]
fn pathological_inputs_finish_fast() {
    const N: usize = 100 * 1024;
    let cases = [
        "(".repeat(N),
        "'".repeat(N),
        "''".repeat(N / 2),
        "\"".repeat(N),
        "[".repeat(N),
        "[a".repeat(N / 2),
        "${".repeat(N / 2),
        "$".repeat(N),
        "\\".repeat(N),
        "\\\n".repeat(N / 2),
        "<<A ".repeat(N / 4),
        format!("cat {}\n", "<<A ".repeat(N / 5)),
        format!("cat <<A\n{}", "line\n".repeat(N / 5)),
        "a|".repeat(N / 2),
        "a ".repeat(N / 2),
        "\n".repeat(N),
        "#".repeat(N),
        ";".repeat(N),
        "2>".repeat(N / 2),
        "X=".repeat(N / 2),
        "*?".repeat(N / 2),
        "é".repeat(N / 2),
        "$(".repeat(N / 2),
        "$(a)".repeat(N / 4),
        "`a`".repeat(N / 3),
        "`".repeat(N),
        "$(( ".repeat(N / 4),
        "if true; then ".repeat(N / 14),
        format!("{}{}", "if a; then b; fi\n".repeat(N / 17), "fi"),
        "while a; do ".repeat(N / 12),
        "for x in a; do ".repeat(N / 15),
        "case x in a) ".repeat(N / 13),
        "{ ".repeat(N / 2),
        "( ".repeat(N / 2),
        "f() { ".repeat(N / 6),
        "[[ ! ".repeat(N / 5),
        "[[ ( ".repeat(N / 5),
        "! ".repeat(N / 2),
        format!("[[ {} ]]", "a && ".repeat(N / 5)),
        ";;".repeat(N / 2),
    ];
    for input in &cases {
        let t = Instant::now();
        check(input);
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{:?}... took {:?}",
            &input.chars().take(12).collect::<String>(),
            t.elapsed()
        );
    }
}

#[test]
fn input_over_one_mib_is_refused_quickly() {
    let input = "(".repeat(ultra_shell::MAX_INPUT + 1);
    let t = Instant::now();
    let e = parse(&input).expect_err("too large");
    assert_eq!(e.code(), "input_too_large");
    assert!(t.elapsed() < Duration::from_secs(1));
}
