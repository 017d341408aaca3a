//! The scan against the parse tree as the oracle: on code in every language, with the
//! literals and comments that trip a naive scanner, it must find exactly the identifiers
//! and decision points the tree has, and the TODOs in its comments.

use super::{Sink, State, scan};
use crate::lang::Lang;

/// What the scan reports, kept whole.
#[derive(Default)]
struct Seen {
    idents: Vec<(String, usize, usize)>,
    comments: Vec<String>,
    decisions: usize,
    depth: u32,
    code_rows: Vec<usize>,
}

impl<'s> Sink<'s> for Seen {
    fn ident(&mut self, name: &'s str, row: usize, col: usize) {
        self.idents.push((name.to_string(), row, col));
    }
    fn comment(&mut self, _row: usize, from: usize, to: usize) {
        self.comments.push(format!("{from}..{to}"));
    }
    fn code(&mut self, row: usize) {
        if self.code_rows.last() != Some(&row) {
            self.code_rows.push(row);
        }
    }
    fn decision(&mut self, _row: usize) {
        self.decisions += 1;
    }
    fn block(&mut self, _row: usize, depth: u32) {
        self.depth = self.depth.max(depth);
    }
    fn row_start(&mut self, _row: usize, _state: &State) -> bool {
        true
    }
}

fn lexed(lang: Lang, src: &str) -> Seen {
    let mut seen = Seen::default();
    scan(lang, src.as_bytes(), 0, 0, State::default(), &mut seen);
    seen
}

/// The tree's identifier leaves and decision nodes (the kinds the generic walk used).
fn tree(lang: Lang, src: &str) -> (Vec<(String, usize, usize)>, usize) {
    let (idents, decisions): (&[&str], &[&str]) = match lang {
        Lang::Rust => (
            &["identifier", "type_identifier", "field_identifier"],
            &[
                "if_expression",
                "for_expression",
                "while_expression",
                "loop_expression",
                "match_arm",
                "&&",
                "||",
                "?",
            ],
        ),
        Lang::Python => (
            &["identifier"],
            &[
                "if_statement",
                "elif_clause",
                "for_statement",
                "while_statement",
                "except_clause",
                "conditional_expression",
                "and",
                "or",
                "case_clause",
                "for_in_clause",
                "if_clause",
            ],
        ),
        Lang::Go => (
            &[
                "identifier",
                "field_identifier",
                "type_identifier",
                "package_identifier",
            ],
            &[
                "if_statement",
                "for_statement",
                "expression_case",
                "type_case",
                "&&",
                "||",
            ],
        ),
        Lang::Java => (
            &["identifier", "type_identifier"],
            &[
                "if_statement",
                "for_statement",
                "enhanced_for_statement",
                "while_statement",
                "catch_clause",
                "ternary_expression",
                "&&",
                "||",
            ],
        ),
        Lang::C | Lang::Cpp => (
            &[
                "identifier",
                "field_identifier",
                "type_identifier",
                "namespace_identifier",
            ],
            &[
                "if_statement",
                "for_statement",
                "while_statement",
                "case_statement",
                "conditional_expression",
                "&&",
                "||",
            ],
        ),
        _ => (
            &[
                "identifier",
                "property_identifier",
                "private_property_identifier",
                "type_identifier",
                "shorthand_property_identifier",
                "shorthand_property_identifier_pattern",
            ],
            &[
                "if_statement",
                "for_statement",
                "for_in_statement",
                "while_statement",
                "switch_case",
                "catch_clause",
                "ternary_expression",
                "&&",
                "||",
                "??",
            ],
        ),
    };
    let tree = crate::passes::parse(lang, src.as_bytes(), None).expect("parses");
    assert!(
        !tree.root_node().has_error(),
        "{lang:?} sample must parse cleanly"
    );
    let mut out = Vec::new();
    let mut count = 0;
    let mut c = tree.root_node().walk();
    loop {
        let n = c.node();
        if decisions.contains(&n.kind()) {
            count += 1;
        }
        if n.child_count() == 0 && n.is_named() && idents.contains(&n.kind()) {
            let p = n.start_position();
            out.push((src[n.byte_range()].to_string(), p.row, p.column));
        }
        if !n.kind().contains("comment") && c.goto_first_child() {
            continue;
        }
        while !c.goto_next_sibling() {
            if !c.goto_parent() {
                return (out, count);
            }
        }
    }
}

fn agree(lang: Lang, src: &str) -> Seen {
    let seen = lexed(lang, src);
    let (idents, decisions) = tree(lang, src);
    assert_eq!(seen.idents, idents, "{lang:?}: identifiers");
    assert_eq!(seen.decisions, decisions, "{lang:?}: decisions");
    seen
}

#[test]
fn rust_matches_the_tree() {
    let seen = agree(
        Lang::Rust,
        r###"//! Module docs with "quotes" and an if
/* block /* nested */ still comment fn x() */
use std::collections::HashMap;

#[derive(Debug)]
pub struct Point<'a> { pub x: i32, name: &'a str }

impl<'a> Display for Point<'a> {
    fn fmt(&self, f: &mut Formatter) -> Result {
        let s = "a \"quoted\" if while";
        let r = r#"raw "string" with for"#;
        let c = 'x';
        let b = b'\n';
        let e = '\'';
        for i in 0..10 {
            if i > 3 && i < 8 || flag {
                continue;
            }
        }
        match self.x {
            1 => write!(f, "{}", s)?,
            _ => loop { break },
        }
        let v = 1.5e-3 + x.0 as f64;
        while let Some(y) = it.next() {}
        Ok(())
    }
}
"###,
    );
    assert_eq!(seen.comments.len(), 2);
    assert_eq!(seen.depth, 4, "impl, fn, for, if");
}

#[test]
fn python_matches_the_tree() {
    let seen = agree(
        Lang::Python,
        r#"# a comment with def and class
import os.path as p
from x import (a,
    b)

class Foo(Base):
    """Docstring with class and def
    over lines, and 'quotes'."""

    def method(self, items):
        total = 0
        for item in items:
            if item and not item.skip or total > 3:
                total += item.size
            elif item is None:
                pass
        s = f"{total} items {self.name!r} {{literal}}"
        raw = r'C:\path' + b"bytes" + rb'\d'
        result = [x for x in items if x]
        value = a if total else b
        try:
            match = 1
        except ValueError:
            pass
        while total:
            total -= 1
        return s \
            + raw
"#,
    );
    assert_eq!(seen.comments.len(), 1);
    assert_eq!(seen.depth, 4, "class, def, for and if open levels");
}

#[test]
fn python_match_statements_are_decisions() {
    let src = "match command:\n    case [x]:\n        pass\n    case _:\n        pass\n";
    assert_eq!(lexed(Lang::Python, src).decisions, 2);
}

#[test]
fn typescript_matches_the_tree() {
    agree(
        Lang::TypeScript,
        r#"// line comment with function
/* block comment with class */
import { a, b as c } from "./mod";
export interface Shape { area(): number; name?: string }
export class Circle implements Shape {
    #radius: number;
    constructor(private readonly r: number) { this.#radius = r; }
    area(): number {
        const re = /ab+c\/[/]x/gi;
        const half = this.#radius / 2 / 1;
        const t = `radius ${this.#radius + `inner ${half}`} done`;
        const maybe = obj?.prop ?? fallback;
        return cond ? half : re.lastIndex;
    }
}
function f<T>(x?: T, ...rest: T[]): void {
    if (x && rest || !x) { for (const y of rest) { g(y); } }
    while (false) {}
    switch (x) { case 1: break; default: break; }
    try { h(); } catch (e) { console.log(e.message, { shorthand }); }
    const { p, q } = obj;
}
"#,
    );
}

#[test]
fn javascript_matches_the_tree() {
    agree(
        Lang::JavaScript,
        r#"'use strict';
var x = a / b / c, y = (d) / 2;
var r = x ? /re/.test(s) : [/a/, /b[/]/];
module.exports.default = function named() { return typeof x === "string" };
obj.if = obj.class + obj.new;
const tpl = `line one
line ${two} three`;
"#,
    );
}

#[test]
fn go_matches_the_tree() {
    agree(
        Lang::Go,
        r#"package main

import (
	"fmt"
	str "strings"
)

// Doc with func and if
type Server struct {
	Name string `json:"name"`
}

func (s *Server) Serve(n int) error {
	raw := `raw
string with func`
	for i := 0; i < n && s != nil || true; i++ {
		if i%2 == 0 {
			fmt.Println(str.ToUpper(raw), 'x')
		}
	}
	switch n {
	case 1:
		return nil
	}
	return nil
}
"#,
    );
}

#[test]
fn java_matches_the_tree() {
    agree(
        Lang::Java,
        r#"package a.b;
import java.util.List;
/** Javadoc with class and if */
public class Main<T extends Comparable<? super T>> {
    private List<?> items;
    public int run(String[] args) {
        String s = "if \"while\"";
        String block = """
            text block with for
            """;
        char c = '\'';
        for (String a : args) { if (a.isEmpty() && s != null) { continue; } }
        try { call(); } catch (Exception e) { return c > 0 ? 1 : 0; }
        return 0;
    }
}
"#,
    );
}

#[test]
fn c_matches_the_tree() {
    agree(
        Lang::C,
        r#"#include <stdio.h>
#include "local/header.h"
#define MAX 10
/* comment with if */
struct point { int x; int y; };
static int area(struct point *p, const char *name) {
    const char *s = "string with \"for\" and while";
    char c = '\'';
    for (int i = 0; i < 10; i++) {
        if (p->x > 0 && p->y > 0 || name == NULL) { return p->x; }
    }
    switch (c) { case 'a': break; }
    while (0) {}
    return c ? 1 : 2; // trailing comment
}
"#,
    );
}

#[test]
fn c_macro_bodies_are_read_though_the_tree_keeps_them_opaque() {
    let seen = lexed(Lang::C, "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n");
    let names: Vec<&str> = seen.idents.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, ["MAX", "a", "b", "a", "b", "a", "b"]);
}

#[test]
fn todos_come_from_every_comment_kind() {
    let src = "x = 1  # TODO: py\n'''not a TODO: string'''\n";
    let seen = lexed(Lang::Python, src);
    assert_eq!(seen.comments, vec!["7..17"]);
    let src = "/* FIXME: one\n   TODO: two */ let s = \"// TODO: no\";\n";
    let seen = lexed(Lang::Rust, src);
    assert_eq!(seen.comments, vec!["0..13", "14..29"]);
}

#[test]
fn rows_inside_strings_are_code_and_comment_rows_are_not() {
    let src = "let s = \"a\n\nb\";\n// only a comment\n/* c\n d */\nlet t = 1;\n";
    assert_eq!(lexed(Lang::Rust, src).code_rows, vec![0, 1, 2, 6]);
}

/// Everything a scan reports, by row, with the state at each row start.
#[derive(Default, Debug, PartialEq)]
struct ByRow {
    facts: Vec<(usize, String)>,
    states: Vec<State>,
}

impl<'s> Sink<'s> for ByRow {
    fn ident(&mut self, name: &'s str, row: usize, col: usize) {
        self.facts.push((row, format!("ident {name}@{col}")));
    }
    fn comment(&mut self, row: usize, from: usize, to: usize) {
        self.facts.push((row, format!("comment {from}..{to}")));
    }
    fn code(&mut self, row: usize) {
        self.facts.push((row, "code".into()));
    }
    fn decision(&mut self, row: usize) {
        self.facts.push((row, "decision".into()));
    }
    fn block(&mut self, row: usize, depth: u32) {
        self.facts.push((row, format!("block {depth}")));
    }
    fn row_start(&mut self, _row: usize, state: &State) -> bool {
        self.states.push(*state);
        true
    }
}

/// Any text, in any language: the scan never panics, and scanning from any row start in
/// the state recorded there reports exactly what the whole scan reports from that row on.
/// (This is what lets an edit be scanned from its row: a state that forgot something
/// would make the two differ.)
#[test]
fn a_scan_resumed_at_any_row_agrees_with_the_whole_scan() {
    const PIECES: &[&str] = &[
        "x",
        "if",
        "for ",
        "case",
        "match",
        "fn",
        "impl",
        " ",
        "\t",
        "\n",
        "\n    ",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        "\"",
        "'",
        "`",
        "\"\"\"",
        "'''",
        "/",
        "//",
        "/*",
        "*/",
        "#",
        "\\",
        "${",
        "f\"",
        "r#\"",
        "\"#",
        "R\"d(",
        ")d\"",
        "&&",
        "||",
        "?",
        "=>",
        ".",
        "'a",
        "é",
        "0x1e+5",
        "1.5",
        "#include <a.h>",
        ":",
        "= /re[/]x/g",
        "TODO: x",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for round in 0..6000 {
        let lang = Lang::ALL[round % Lang::ALL.len()];
        let text: String = (0..next(120)).map(|_| PIECES[next(PIECES.len())]).collect();
        let src = text.as_bytes();
        let mut whole = ByRow::default();
        scan(lang, src, 0, 0, State::default(), &mut whole);
        let starts: Vec<usize> = std::iter::once(0)
            .chain(
                src.iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        assert_eq!(whole.states.len() + 1, starts.len(), "{lang:?}: {text:?}");
        for (row, &start) in starts.iter().enumerate().skip(1) {
            let state = whole.states[row - 1];
            if !state.resumable() {
                continue;
            }
            let mut part = ByRow::default();
            scan(lang, src, start, row, state, &mut part);
            let expect: Vec<_> = whole.facts.iter().filter(|f| f.0 >= row).collect();
            let got: Vec<_> = part.facts.iter().collect();
            assert_eq!(got, expect, "{lang:?} from row {row}: {text:?}");
            assert_eq!(
                part.states[..],
                whole.states[row..],
                "{lang:?} from row {row}"
            );
        }
    }
}

/// Names are cut from the text when it is valid UTF-8 and validated one by one when it
/// is not: both ways report the same valid names, and never an invalid one.
#[test]
fn names_in_text_that_is_not_utf8() {
    let names = |src: &[u8]| {
        let mut seen = Seen::default();
        scan(Lang::Rust, src, 0, 0, State::default(), &mut seen);
        seen.idents
    };
    let owned = |v: &[(&str, usize, usize)]| -> Vec<(String, usize, usize)> {
        v.iter().map(|&(n, r, c)| (n.to_string(), r, c)).collect()
    };
    assert_eq!(
        names(b"let a\xff = b;\nfoo \xe9t\xe9 bar"),
        owned(&[("b", 0, 9), ("foo", 1, 0), ("bar", 1, 8)])
    );
    assert_eq!(
        names("let a\u{ff} = b;\nfoo \u{e9}t bar".as_bytes()),
        owned(&[
            ("a\u{ff}", 0, 4),
            ("b", 0, 10),
            ("foo", 1, 0),
            ("\u{e9}t", 1, 4),
            ("bar", 1, 8)
        ])
    );
}
