//! The syntax tree of Ultra's shell language and its S-expression rendering.
//!
//! The tree keeps everything an executor needs and nothing it must re-derive: which pieces of
//! a word were quoted (so only unquoted glob characters are expanded), which parameters to
//! substitute, each redirect's file descriptor, and here-document bodies already read.
//!
//! `Display` renders a compact S-expression used by the snapshot tests:
//!
//! - a script is its items joined by `"; "`;
//! - `a && b || c` is `(|| (&& A B) C)` (left-associative, equal precedence);
//! - a pipeline of several commands is `(pipe A B ...)`;
//! - a command is `(cmd ASSIGNMENTS... WORDS... REDIRECTS...)`, an assignment `NAME=WORD`;
//! - a word is its parts joined by `+`: an unquoted literal is `"text"`, a quoted one
//!   `q"text"`, a parameter `$NAME` (quoted: `q$NAME`), a glob `g"*"`;
//! - a redirect is `(FD OP TARGET)`, e.g. `(1> "out")`, `(2>& 1)`, `(&> "log")`,
//!   `(0<< (heredoc "EOF" literal "body\n"))` or `(0<<- (heredoc "EOF" expand q"hi "+q$X))`.

use std::fmt;

/// A half-open byte range `start..end` into the parsed input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
}

/// A whole input: a list of and-or lists separated by `;` or newlines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    /// The and-or lists, run in order.
    pub items: Vec<AndOr>,
}

/// The operator joining two pipelines in an [`AndOr`] list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AndOrOp {
    /// `&&`: run the next pipeline only if the previous status was 0.
    And,
    /// `||`: run the next pipeline only if the previous status was not 0.
    Or,
}

/// `first op1 p1 op2 p2 ...`; `&&` and `||` have equal precedence and associate to the left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AndOr {
    /// The first pipeline.
    pub first: Pipeline,
    /// The following pipelines with the operator before each.
    pub rest: Vec<(AndOrOp, Pipeline)>,
}

/// Commands joined by `|`; stdout of each feeds stdin of the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    /// `! pipeline`: the status is inverted.
    pub negated: bool,
    /// At least one command.
    pub commands: Vec<Command>,
}

/// One stage of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Words, assignments and redirects.
    Simple(SimpleCommand),
    /// `if`, `for`, `while`, `case`, `{ }`, `( )`, `[[ ]]`, with its redirects.
    Compound(CompoundCommand),
    /// `name() compound-command`: defines a function when run.
    Function(FunctionDef),
}

/// A compound command and the redirects after it (`done > out`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompoundCommand {
    /// What it is.
    pub kind: Compound,
    /// Redirects, applied around the whole construct.
    pub redirects: Vec<Redirect>,
    /// The bytes of the construct in the input.
    pub span: Span,
}

/// The compound commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compound {
    /// `{ list; }`: runs in the current shell.
    Brace(Script),
    /// `( list )`: runs on a copy of the shell's state.
    Subshell(Script),
    /// `if c; then t; elif c2; then t2; else e; fi`.
    If {
        /// Each condition and the list it guards, in order.
        branches: Vec<(Script, Script)>,
        /// The `else` list.
        otherwise: Option<Script>,
    },
    /// `for name in words; do body; done` (no `in`: over `"$@"`).
    For {
        /// The loop variable.
        var: String,
        /// The words after `in`; `None` without `in`.
        words: Option<Vec<Word>>,
        /// The body.
        body: Script,
    },
    /// `while cond; do body; done`, or `until` when `until` is set.
    Loop {
        /// Loop while the condition fails instead.
        until: bool,
        /// The condition list.
        cond: Script,
        /// The body.
        body: Script,
    },
    /// `case word in pat|pat) list ;; ... esac`.
    Case {
        /// The word matched.
        word: Word,
        /// The arms, tried in order.
        arms: Vec<CaseArm>,
    },
    /// `[[ expression ]]`.
    Cond(CondExpr),
}

/// One arm of a `case`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseArm {
    /// Glob patterns; the arm runs when any matches.
    pub patterns: Vec<Word>,
    /// What runs (may be empty).
    pub body: Script,
}

/// An expression of `[[ ]]`: words are expanded without splitting or globbing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CondExpr {
    /// A word alone: true when not empty.
    Word(Word),
    /// `-f word`, `-z word`, ...
    Unary(String, Word),
    /// `a == pattern`, `a =~ regex`, `a -lt b`, `a < b`, ...
    Binary(Word, String, Word),
    /// `! e`.
    Not(Box<CondExpr>),
    /// `a && b`.
    And(Box<CondExpr>, Box<CondExpr>),
    /// `a || b`.
    Or(Box<CondExpr>, Box<CondExpr>),
}

/// `name() body`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionDef {
    /// The function's name.
    pub name: String,
    /// Its body (usually a brace group); shared, as a definition outlives the run of the
    /// list that made it.
    pub body: std::sync::Arc<CompoundCommand>,
    /// The bytes of the definition.
    pub span: Span,
}

/// One command: optional `NAME=value` prefixes, words (the first is the command name) and
/// redirects (in source order). With no words, the assignments set shell variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// `NAME=value` prefixes, in order.
    pub assignments: Vec<Assignment>,
    /// The command name and its arguments, before expansion.
    pub words: Vec<Word>,
    /// Redirects, in source order (they apply left to right).
    pub redirects: Vec<Redirect>,
    /// The bytes of the command in the input.
    pub span: Span,
}

/// `NAME=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// The variable name (`[A-Za-z_][A-Za-z0-9_]*`).
    pub name: String,
    /// The value; it may have no parts (`X=`).
    pub value: Word,
    /// The bytes of the whole assignment.
    pub span: Span,
}

/// A word: adjacent pieces of text concatenated (`a"b"'c'$X` is one word).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The pieces, in order. Adjacent literals with the same quoting are merged.
    pub parts: Vec<WordPart>,
    /// The bytes of the word in the input.
    pub span: Span,
}

/// A piece of a [`Word`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordPart {
    /// Literal text. `quoted` is true for text from single or double quotes or escaped with a
    /// backslash; such text is never glob-expanded or split.
    Literal {
        /// The text, with quotes and escapes removed.
        text: String,
        /// Whether the text was quoted.
        quoted: bool,
    },
    /// A parameter to substitute: a name, a positional digit, or one of `? @ # * $ ! -`.
    Param {
        /// The parameter name without `$` or braces.
        name: String,
        /// Whether it appeared inside double quotes (or a here-document body).
        quoted: bool,
    },
    /// An unquoted glob: `*`, `?` or a bracket expression such as `[a-z]` or `[!0-9]`.
    Glob {
        /// The pattern text exactly as written.
        pattern: String,
    },
    /// A parameter with an operator: `${X:-word}`, `${#X}`, `${X%.txt}`, ...
    ParamOp {
        /// The parameter name.
        name: String,
        /// What to do with it.
        op: ParamOp,
        /// The word after the operator (expanded only when the operator needs it).
        arg: Vec<WordPart>,
        /// Whether it appeared inside double quotes.
        quoted: bool,
    },
    /// Command substitution `$(...)` or `` `...` ``: the script's output, trailing newlines
    /// removed.
    CommandSub {
        /// The script inside.
        script: Box<Script>,
        /// Whether it appeared inside double quotes.
        quoted: bool,
    },
    /// Arithmetic expansion `$((expr))`, evaluated when the word is expanded.
    Arith {
        /// The expression between `$((` and `))`: literal text, with the `$X`, `${...}`,
        /// `$(...)` inside it as parts (expanded before it is evaluated).
        expr: Vec<WordPart>,
        /// Whether it appeared inside double quotes.
        quoted: bool,
    },
}

/// A POSIX parameter operator. `colon` forms (`:-`) treat an empty value as unset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamOp {
    /// `${X:-word}` / `${X-word}`: the word when unset (or empty).
    Default { colon: bool },
    /// `${X:+word}` / `${X+word}`: the word when set (and not empty), else nothing.
    Alternative { colon: bool },
    /// `${X:?word}` / `${X?word}`: an error naming the word when unset (or empty).
    Error { colon: bool },
    /// `${#X}`: the length in characters.
    Length,
    /// `${X%pat}` / `${X%%pat}`: without the shortest / longest suffix matching `pat`.
    TrimSuffix { longest: bool },
    /// `${X#pat}` / `${X##pat}`: without the shortest / longest prefix matching `pat`.
    TrimPrefix { longest: bool },
}

impl ParamOp {
    fn as_str(self) -> &'static str {
        match self {
            ParamOp::Default { colon } => {
                if colon {
                    ":-"
                } else {
                    "-"
                }
            }
            ParamOp::Alternative { colon } => {
                if colon {
                    ":+"
                } else {
                    "+"
                }
            }
            ParamOp::Error { colon } => {
                if colon {
                    ":?"
                } else {
                    "?"
                }
            }
            ParamOp::Length => "#",
            ParamOp::TrimSuffix { longest } => {
                if longest {
                    "%%"
                } else {
                    "%"
                }
            }
            ParamOp::TrimPrefix { longest } => {
                if longest {
                    "##"
                } else {
                    "#"
                }
            }
        }
    }
}

/// What a redirect does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// `N< file` (N defaults to 0).
    Read,
    /// `N> file` or `N>| file` (N defaults to 1).
    Write,
    /// `N>> file`.
    Append,
    /// `&> file`: stdout and stderr to one file, truncating.
    WriteBoth,
    /// `&>> file`: stdout and stderr to one file, appending.
    AppendBoth,
    /// `N>&M`: make fd N a copy of fd M (the target is [`RedirectTarget::Fd`]).
    Dup,
    /// `N<<DELIM` (`strip_tabs` for `<<-`); the target is [`RedirectTarget::HereDoc`].
    HereDoc {
        /// `<<-`: leading tabs were stripped from body lines and the terminator.
        strip_tabs: bool,
    },
}

/// Where a redirect points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedirectTarget {
    /// A file name, expanded like any word.
    Word(Word),
    /// A file descriptor number (`2>&1`).
    Fd(u32),
    /// A here-document body.
    HereDoc(HereDoc),
}

/// A here-document body, read from the lines after the command's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HereDoc {
    /// The delimiter with quotes removed.
    pub delimiter: String,
    /// The raw body (tabs already stripped for `<<-`), each line ending in `\n`.
    pub body: String,
    /// False when any part of the delimiter was quoted (`<<'EOF'`): the body is literal.
    pub expand: bool,
    /// The body as word parts: one quoted literal when `expand` is false; otherwise
    /// literals and parameters (with `\$`, `\\`, `` \` `` and backslash-newline handled).
    pub parts: Vec<WordPart>,
}

/// One redirect of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The file descriptor redirected (1 for `&>`/`&>>`, which also redirect 2).
    pub fd: u32,
    /// The operation.
    pub kind: RedirectKind,
    /// The file, fd or here-document.
    pub target: RedirectTarget,
    /// The bytes of the operator and its target word (not the here-document body).
    pub span: Span,
}

impl Word {
    /// The word's text if it is a single unquoted literal (used to spot keywords).
    pub fn as_plain(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [
                WordPart::Literal {
                    text,
                    quoted: false,
                },
            ] => Some(text),
            _ => None,
        }
    }

    /// The word's text if it is made of literals only (quoted or not): known before the
    /// script runs, with no parameter to expand and no glob to match.
    pub fn as_literal(&self) -> Option<String> {
        let mut s = String::new();
        for p in &self.parts {
            match p {
                WordPart::Literal { text, .. } => s.push_str(text),
                _ => return None,
            }
        }
        Some(s)
    }

    /// True when some part is an unquoted glob, so the executor must expand the word.
    pub fn has_glob(&self) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(p, WordPart::Glob { .. }))
    }
}

impl Script {
    /// Every simple command in the script, in source order: inside compound commands,
    /// function bodies and command substitutions too.
    pub fn simple_commands(&self) -> Vec<&SimpleCommand> {
        let mut out = Vec::new();
        self.visit(&mut |c| out.push(c));
        out
    }

    /// Calls `f` on every simple command (see [`Script::simple_commands`]).
    pub fn visit<'s>(&'s self, f: &mut dyn FnMut(&'s SimpleCommand)) {
        self.walk(&mut |n| {
            if let Node::Simple(c) = n {
                f(c)
            }
        });
    }

    /// The redirects of every compound command (`done > out`), wherever it sits.
    pub fn compound_redirects(&self) -> Vec<&Redirect> {
        let mut out = Vec::new();
        self.walk(&mut |n| {
            if let Node::Redirects(r) = n {
                out.extend(r)
            }
        });
        out
    }

    fn walk<'s>(&'s self, f: &mut dyn FnMut(Node<'s>)) {
        for item in &self.items {
            for p in std::iter::once(&item.first).chain(item.rest.iter().map(|(_, p)| p)) {
                for c in &p.commands {
                    c.visit(f);
                }
            }
        }
    }

    /// True when the script uses a compound command, a function or a command substitution:
    /// it then needs the deeper stack the runtime gives such scripts.
    pub fn is_compound(&self) -> bool {
        self.items.iter().any(|item| {
            std::iter::once(&item.first)
                .chain(item.rest.iter().map(|(_, p)| p))
                .any(|p| {
                    p.commands.iter().any(|c| match c {
                        Command::Simple(s) => s.word_parts().any(has_subst),
                        _ => true,
                    })
                })
        })
    }
}

fn has_subst(parts: &[WordPart]) -> bool {
    parts.iter().any(|p| match p {
        WordPart::CommandSub { .. } => true,
        WordPart::ParamOp { arg: inner, .. } | WordPart::Arith { expr: inner, .. } => {
            has_subst(inner)
        }
        _ => false,
    })
}

impl SimpleCommand {
    /// The parts of every word the command expands: its words, assignment values, redirect
    /// targets and here-document bodies.
    pub fn word_parts(&self) -> impl Iterator<Item = &[WordPart]> {
        self.words
            .iter()
            .chain(self.assignments.iter().map(|a| &a.value))
            .map(|w| w.parts.as_slice())
            .chain(self.redirects.iter().filter_map(|r| match &r.target {
                RedirectTarget::Word(w) => Some(w.parts.as_slice()),
                RedirectTarget::HereDoc(h) => Some(h.parts.as_slice()),
                RedirectTarget::Fd(_) => None,
            }))
    }
}

/// What [`Script::walk`] reports.
enum Node<'s> {
    Simple(&'s SimpleCommand),
    Redirects(&'s [Redirect]),
}

impl Command {
    fn visit<'s>(&'s self, f: &mut dyn FnMut(Node<'s>)) {
        match self {
            Command::Simple(c) => {
                f(Node::Simple(c));
                for parts in c.word_parts() {
                    visit_parts(parts, f);
                }
            }
            Command::Compound(c) => c.visit(f),
            Command::Function(d) => d.body.visit(f),
        }
    }
}

fn visit_parts<'s>(parts: &'s [WordPart], f: &mut dyn FnMut(Node<'s>)) {
    for p in parts {
        match p {
            WordPart::CommandSub { script, .. } => script.walk(f),
            WordPart::ParamOp { arg: inner, .. } | WordPart::Arith { expr: inner, .. } => {
                visit_parts(inner, f)
            }
            _ => {}
        }
    }
}

impl CompoundCommand {
    fn visit<'s>(&'s self, f: &mut dyn FnMut(Node<'s>)) {
        f(Node::Redirects(&self.redirects));
        for r in &self.redirects {
            match &r.target {
                RedirectTarget::Word(w) => visit_parts(&w.parts, f),
                RedirectTarget::HereDoc(h) => visit_parts(&h.parts, f),
                RedirectTarget::Fd(_) => {}
            }
        }
        match &self.kind {
            Compound::Brace(s) | Compound::Subshell(s) => s.walk(f),
            Compound::If {
                branches,
                otherwise,
            } => {
                for (c, t) in branches {
                    c.walk(f);
                    t.walk(f);
                }
                if let Some(e) = otherwise {
                    e.walk(f);
                }
            }
            Compound::For { words, body, .. } => {
                for w in words.iter().flatten() {
                    visit_parts(&w.parts, f);
                }
                body.walk(f);
            }
            Compound::Loop { cond, body, .. } => {
                cond.walk(f);
                body.walk(f);
            }
            Compound::Case { word, arms } => {
                visit_parts(&word.parts, f);
                for arm in arms {
                    arm.body.walk(f);
                }
            }
            Compound::Cond(e) => e.visit(f),
        }
    }
}

impl CondExpr {
    fn visit<'s>(&'s self, f: &mut dyn FnMut(Node<'s>)) {
        match self {
            CondExpr::Word(w) | CondExpr::Unary(_, w) => visit_parts(&w.parts, f),
            CondExpr::Binary(a, _, b) => {
                visit_parts(&a.parts, f);
                visit_parts(&b.parts, f);
            }
            CondExpr::Not(e) => e.visit(f),
            CondExpr::And(a, b) | CondExpr::Or(a, b) => {
                a.visit(f);
                b.visit(f);
            }
        }
    }
}

fn write_parts(f: &mut fmt::Formatter<'_>, parts: &[WordPart]) -> fmt::Result {
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            f.write_str("+")?;
        }
        write!(f, "{p}")?;
    }
    Ok(())
}

impl fmt::Display for WordPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WordPart::Literal { text, quoted } => {
                write!(f, "{}{text:?}", if *quoted { "q" } else { "" })
            }
            WordPart::Param { name, quoted } => {
                write!(f, "{}${name}", if *quoted { "q" } else { "" })
            }
            WordPart::Glob { pattern } => write!(f, "g{pattern:?}"),
            WordPart::ParamOp {
                name,
                op,
                arg,
                quoted,
            } => {
                let q = if *quoted { "q" } else { "" };
                if *op == ParamOp::Length {
                    return write!(f, "{q}${{#{name}}}");
                }
                write!(f, "{q}${{{name}{}", op.as_str())?;
                write_parts(f, arg)?;
                f.write_str("}")
            }
            WordPart::Arith { expr, quoted } => {
                write!(f, "{}$((", if *quoted { "q" } else { "" })?;
                match expr.as_slice() {
                    [WordPart::Literal { text, .. }] => f.write_str(text)?,
                    parts => write_parts(f, parts)?,
                }
                f.write_str("))")
            }
            WordPart::CommandSub { script, quoted } => {
                write!(f, "{}$({{{script}}})", if *quoted { "q" } else { "" })
            }
        }
    }
}

impl fmt::Display for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_parts(f, &self.parts)
    }
}

impl fmt::Display for Assignment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name, self.value)
    }
}

impl fmt::Display for Redirect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.kind {
            RedirectKind::Read => "<",
            RedirectKind::Write => ">",
            RedirectKind::Append => ">>",
            RedirectKind::WriteBoth => return write!(f, "(&> {})", self.target),
            RedirectKind::AppendBoth => return write!(f, "(&>> {})", self.target),
            RedirectKind::Dup => ">&",
            RedirectKind::HereDoc { strip_tabs: false } => "<<",
            RedirectKind::HereDoc { strip_tabs: true } => "<<-",
        };
        write!(f, "({}{op} {})", self.fd, self.target)
    }
}

impl fmt::Display for RedirectTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedirectTarget::Word(w) => write!(f, "{w}"),
            RedirectTarget::Fd(n) => write!(f, "{n}"),
            RedirectTarget::HereDoc(h) if h.expand => {
                write!(f, "(heredoc {:?} expand", h.delimiter)?;
                if !h.parts.is_empty() {
                    f.write_str(" ")?;
                    write_parts(f, &h.parts)?;
                }
                f.write_str(")")
            }
            RedirectTarget::HereDoc(h) => {
                write!(f, "(heredoc {:?} literal {:?})", h.delimiter, h.body)
            }
        }
    }
}

impl fmt::Display for SimpleCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(cmd")?;
        for a in &self.assignments {
            write!(f, " {a}")?;
        }
        for w in &self.words {
            write!(f, " {w}")?;
        }
        for r in &self.redirects {
            write!(f, " {r}")?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negated {
            f.write_str("(! ")?;
        }
        if let [only] = self.commands.as_slice() {
            write!(f, "{only}")?;
        } else {
            f.write_str("(pipe")?;
            for c in &self.commands {
                write!(f, " {c}")?;
            }
            f.write_str(")")?;
        }
        if self.negated {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Simple(c) => write!(f, "{c}"),
            Command::Compound(c) => write!(f, "{c}"),
            Command::Function(d) => write!(f, "(fn {} {})", d.name, d.body),
        }
    }
}

impl fmt::Display for CompoundCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Compound::Brace(s) => write!(f, "(brace {{{s}}}")?,
            Compound::Subshell(s) => write!(f, "(subshell {{{s}}}")?,
            Compound::If {
                branches,
                otherwise,
            } => {
                f.write_str("(if")?;
                for (c, t) in branches {
                    write!(f, " {{{c}}} {{{t}}}")?;
                }
                if let Some(e) = otherwise {
                    write!(f, " else {{{e}}}")?;
                }
            }
            Compound::For { var, words, body } => {
                write!(f, "(for {var}")?;
                if let Some(words) = words {
                    f.write_str(" in")?;
                    for w in words {
                        write!(f, " {w}")?;
                    }
                }
                write!(f, " {{{body}}}")?;
            }
            Compound::Loop { until, cond, body } => {
                let k = if *until { "until" } else { "while" };
                write!(f, "({k} {{{cond}}} {{{body}}}")?;
            }
            Compound::Case { word, arms } => {
                write!(f, "(case {word}")?;
                for arm in arms {
                    f.write_str(" (")?;
                    for (i, p) in arm.patterns.iter().enumerate() {
                        if i > 0 {
                            f.write_str("|")?;
                        }
                        write!(f, "{p}")?;
                    }
                    write!(f, " {{{}}})", arm.body)?;
                }
            }
            Compound::Cond(e) => write!(f, "([[ {e}")?,
        }
        for r in &self.redirects {
            write!(f, " {r}")?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for CondExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CondExpr::Word(w) => write!(f, "{w}"),
            CondExpr::Unary(op, w) => write!(f, "({op} {w})"),
            CondExpr::Binary(a, op, b) => write!(f, "({op} {a} {b})"),
            CondExpr::Not(e) => write!(f, "(! {e})"),
            CondExpr::And(a, b) => write!(f, "(&& {a} {b})"),
            CondExpr::Or(a, b) => write!(f, "(|| {a} {b})"),
        }
    }
}

impl fmt::Display for AndOr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Left-associative: the innermost (leftmost) operator is written last-opened.
        for (op, _) in self.rest.iter().rev() {
            let s = match op {
                AndOrOp::And => "&&",
                AndOrOp::Or => "||",
            };
            write!(f, "({s} ")?;
        }
        write!(f, "{}", self.first)?;
        for (_, p) in &self.rest {
            write!(f, " {p})")?;
        }
        Ok(())
    }
}

impl fmt::Display for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, item) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}
