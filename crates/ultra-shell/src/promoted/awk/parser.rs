//! awk's parser: tokens to a [`Program`], with POSIX precedence, the newline rules of the
//! grammar, `print`'s `>` redirection, name resolution to slots and array/scalar inference.

use std::collections::HashMap;
use std::rc::Rc;

use super::ast::{
    Arith, CmpOp, Expr, Func, GetSrc, Pattern, Program, Redirect, Rule, SPECIALS, Stmt, VarRef,
};
use super::lexer::{Tok, Token, lex};

/// A syntax error with its 1-based position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.col, self.message
        )
    }
}

type PResult<T> = Result<T, SyntaxError>;

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    globals: HashMap<String, u32>,
    names: Vec<String>,
    /// The current function's parameters.
    locals: Option<Vec<String>>,
    func_ids: HashMap<String, usize>,
    funcs: Vec<Option<Func>>,
    regexes: Vec<Vec<u8>>,
    ranges: usize,
    no_gt: bool,
    no_in: bool,
    writes: bool,
    truncates: bool,
    /// How deep the parse is nested (expressions, statements): bounded, since each level
    /// is a few frames of recursion here and in the interpreter.
    depth: usize,
    /// Binary operators in the current statement: a chain of them (`1+1+...`) is built as
    /// a tree as deep as it is long, which evaluating and dropping recurse through.
    ops: usize,
}

/// The most binary operators one statement may chain.
pub const MAX_OPS: usize = 5_000;

/// The deepest nesting a program may have, counted in parser levels (a parenthesis costs
/// three: expression, operator, operand; a block or chained assignment one), so about 100
/// nested parentheses. Real programs stay far below; a deeper one is a syntax
/// error rather than a stack overflow.
pub const MAX_NESTING: usize = 300;

/// Parse awk program text.
pub fn parse(src: &[u8]) -> PResult<Program> {
    parse_with(src, false)
}

/// Parse awk program text; `posix` leaves gawk's extensions out (`--posix`).
pub fn parse_with(src: &[u8], posix: bool) -> PResult<Program> {
    let toks =
        lex(src, posix).map_err(|(message, line, col)| SyntaxError { line, col, message })?;
    let mut p = Parser {
        toks,
        pos: 0,
        globals: HashMap::new(),
        names: Vec::new(),
        locals: None,
        func_ids: HashMap::new(),
        funcs: Vec::new(),
        regexes: Vec::new(),
        ranges: 0,
        no_gt: false,
        no_in: false,
        writes: false,
        truncates: false,
        depth: 0,
        ops: 0,
    };
    for s in SPECIALS {
        p.global(s);
    }
    let mut prog = Program {
        posix,
        ..Program::default()
    };
    p.program(&mut prog)?;
    // A function called but never defined is fatal only when a call runs (gawk).
    for (name, &fi) in &p.func_ids {
        if p.funcs[fi].is_none() {
            p.funcs[fi] = Some(Func {
                name: name.clone(),
                params: Vec::new(),
                array_param: Vec::new(),
                body: Vec::new(),
                defined: false,
            });
        }
    }
    prog.funcs = p.funcs.into_iter().flatten().collect();
    prog.globals = p.names;
    prog.regexes = p.regexes;
    prog.ranges = p.ranges;
    prog.writes_files = p.writes;
    prog.truncates_files = p.truncates;
    for (i, r) in prog.regexes.iter().enumerate() {
        if let Err(e) = super::re::compile(r) {
            return Err(SyntaxError {
                line: 1,
                col: 1,
                message: format!("regex #{}: /{}/: {e}", i + 1, String::from_utf8_lossy(r)),
            });
        }
    }
    infer(&mut prog)?;
    Ok(prog)
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Newline => "end of line".into(),
        Tok::Eof => "end of program".into(),
        Tok::Number(n) => format!("{n}"),
        Tok::Str(s) => format!("\"{}\"", String::from_utf8_lossy(s)),
        Tok::Regex(s) => format!("/{}/", String::from_utf8_lossy(s)),
        Tok::Name(s) | Tok::FuncName(s) => s.clone(),
        Tok::Builtin(s) => (*s).to_string(),
        other => format!("{other:?}"),
    }
}

fn assign_op(t: &Tok) -> Option<Option<Arith>> {
    Some(match t {
        Tok::Assign => None,
        Tok::AddAssign => Some(Arith::Add),
        Tok::SubAssign => Some(Arith::Sub),
        Tok::MulAssign => Some(Arith::Mul),
        Tok::DivAssign => Some(Arith::Div),
        Tok::ModAssign => Some(Arith::Mod),
        Tok::PowAssign => Some(Arith::Pow),
        _ => return None,
    })
}

impl Parser {
    fn tok(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn peek(&self, n: usize) -> &Tok {
        let i = (self.pos + n).min(self.toks.len() - 1);
        &self.toks[i].tok
    }
    fn advance(&mut self) {
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
    }
    fn err<T>(&self, message: impl Into<String>) -> PResult<T> {
        let t = &self.toks[self.pos];
        Err(SyntaxError {
            line: t.line,
            col: t.col,
            message: message.into(),
        })
    }
    fn unexpected<T>(&self) -> PResult<T> {
        self.err(format!("syntax error at {}", describe(self.tok())))
    }
    fn expect(&mut self, t: &Tok) -> PResult<()> {
        if self.tok() == t {
            self.advance();
            Ok(())
        } else {
            self.err(format!(
                "syntax error: expected {} but found {}",
                describe(t),
                describe(self.tok())
            ))
        }
    }
    /// One level deeper, or a syntax error past [`MAX_NESTING`].
    fn enter(&mut self) -> PResult<()> {
        if self.depth >= MAX_NESTING {
            return self.err(format!(
                "the program nests deeper than {MAX_NESTING} levels (parentheses, blocks, operators); split it up"
            ));
        }
        self.depth += 1;
        Ok(())
    }

    /// One more binary operator in this statement, or a syntax error past [`MAX_OPS`].
    fn grow(&mut self) -> PResult<()> {
        self.ops += 1;
        if self.ops > MAX_OPS {
            return self.err(format!(
                "one statement chains more than {MAX_OPS} operators; split it up"
            ));
        }
        Ok(())
    }

    fn nls(&mut self) {
        while *self.tok() == Tok::Newline {
            self.advance();
        }
    }
    fn global(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.globals.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.globals.insert(name.to_string(), i);
        self.names.push(name.to_string());
        i
    }
    fn var(&mut self, name: &str) -> PResult<VarRef> {
        if let Some(locals) = &self.locals
            && let Some(j) = locals.iter().position(|l| l == name)
        {
            return Ok(VarRef::Local(j as u32));
        }
        if self.func_ids.contains_key(name) {
            return self.err(format!("function name `{name}' used as a variable"));
        }
        Ok(VarRef::Global(self.global(name)))
    }
    fn func_id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.func_ids.get(name) {
            return i;
        }
        let i = self.funcs.len();
        self.funcs.push(None);
        self.func_ids.insert(name.to_string(), i);
        i
    }

    fn program(&mut self, prog: &mut Program) -> PResult<()> {
        // One `;` may end an item (gawk rejects a `;` with no rule before it).
        let mut semi_ok = false;
        loop {
            loop {
                match self.tok() {
                    Tok::Newline => self.advance(),
                    Tok::Semi if semi_ok => {
                        semi_ok = false;
                        self.advance();
                    }
                    Tok::Semi => {
                        return self.err("each rule must have a pattern or an action part");
                    }
                    _ => break,
                }
            }
            semi_ok = true;
            match self.tok().clone() {
                Tok::Eof => return Ok(()),
                Tok::Begin => {
                    self.advance();
                    self.nls();
                    let b = self.block()?;
                    prog.begin.push(b);
                }
                Tok::End => {
                    self.advance();
                    self.nls();
                    let b = self.block()?;
                    prog.end.push(b);
                }
                Tok::BeginFile | Tok::EndFile => {
                    let begin = *self.tok() == Tok::BeginFile;
                    self.advance();
                    self.nls();
                    let b = self.block()?;
                    if begin {
                        prog.beginfile.push(b);
                    } else {
                        prog.endfile.push(b);
                    }
                }
                Tok::Function => self.function()?,
                _ => {
                    let pattern = if *self.tok() == Tok::LBrace {
                        Pattern::All
                    } else {
                        let a = self.expr()?;
                        if *self.tok() == Tok::Comma {
                            self.advance();
                            self.nls();
                            let b = self.expr()?;
                            self.ranges += 1;
                            Pattern::Range(a, b, self.ranges - 1)
                        } else {
                            Pattern::Expr(a)
                        }
                    };
                    let action = if *self.tok() == Tok::LBrace {
                        Some(self.block()?)
                    } else if matches!(self.tok(), Tok::Newline | Tok::Semi | Tok::Eof) {
                        None
                    } else {
                        return self.unexpected();
                    };
                    prog.rules.push(Rule { pattern, action });
                }
            }
        }
    }

    fn function(&mut self) -> PResult<()> {
        self.advance();
        let name = match self.tok().clone() {
            Tok::Name(n) | Tok::FuncName(n) => n,
            _ => return self.err("function name expected"),
        };
        if SPECIALS.contains(&name.as_str()) || self.globals.contains_key(&name) {
            return self.err(format!("function name `{name}' is already a variable"));
        }
        let fi = self.func_id(&name);
        if self.funcs[fi].is_some() {
            return self.err(format!("function `{name}' defined twice"));
        }
        self.advance();
        self.expect(&Tok::LParen)?;
        let mut params = Vec::new();
        self.nls();
        while let Tok::Name(p) | Tok::FuncName(p) = self.tok().clone() {
            if params.contains(&p) {
                return self.err(format!("duplicate parameter `{p}'"));
            }
            if p == name {
                return self.err(format!(
                    "function `{name}': can't use function name as parameter name"
                ));
            }
            params.push(p);
            self.advance();
            self.nls();
            if *self.tok() == Tok::Comma {
                self.advance();
                self.nls();
                if !matches!(self.tok(), Tok::Name(_) | Tok::FuncName(_)) {
                    return self.err("syntax error: a parameter name expected after `,'");
                }
            } else {
                break;
            }
        }
        self.expect(&Tok::RParen)?;
        self.nls();
        self.locals = Some(params.clone());
        let body = self.block()?;
        self.locals = None;
        self.funcs[fi] = Some(Func {
            name,
            array_param: vec![false; params.len()],
            params,
            body,
            defined: true,
        });
        Ok(())
    }

    fn block(&mut self) -> PResult<Vec<Stmt>> {
        self.expect(&Tok::LBrace)?;
        let mut out = Vec::new();
        loop {
            while matches!(self.tok(), Tok::Newline | Tok::Semi) {
                self.advance();
            }
            if *self.tok() == Tok::RBrace {
                self.advance();
                return Ok(out);
            }
            if *self.tok() == Tok::Eof {
                return self.err("syntax error: unexpected end of program, missing }");
            }
            out.push(self.stmt()?);
        }
    }

    fn end_simple(&mut self) -> PResult<()> {
        match self.tok() {
            Tok::Semi | Tok::Newline => {
                self.advance();
                Ok(())
            }
            Tok::RBrace | Tok::Eof => Ok(()),
            _ => self.unexpected(),
        }
    }

    fn is_end(&self) -> bool {
        matches!(
            self.tok(),
            Tok::Semi | Tok::Newline | Tok::RBrace | Tok::Eof
        )
    }

    /// A statement body (`if`/`while`/`for`): a lone `;` is empty.
    fn body(&mut self) -> PResult<Stmt> {
        if *self.tok() == Tok::Semi {
            self.advance();
            return Ok(Stmt::Block(Vec::new()));
        }
        self.nls();
        self.stmt()
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.depth -= 1;
        r
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        self.ops = 0;
        match self.tok().clone() {
            Tok::LBrace => Ok(Stmt::Block(self.block()?)),
            Tok::If => {
                self.advance();
                self.expect(&Tok::LParen)?;
                let cond = self.expr()?;
                self.expect(&Tok::RParen)?;
                let then = self.body()?;
                let save = self.pos;
                while matches!(self.tok(), Tok::Newline | Tok::Semi) {
                    self.advance();
                }
                if *self.tok() == Tok::Else {
                    self.advance();
                    let other = self.body()?;
                    Ok(Stmt::If(cond, Box::new(then), Some(Box::new(other))))
                } else {
                    self.pos = save;
                    Ok(Stmt::If(cond, Box::new(then), None))
                }
            }
            Tok::While => {
                self.advance();
                self.expect(&Tok::LParen)?;
                let cond = self.expr()?;
                self.expect(&Tok::RParen)?;
                let body = self.body()?;
                Ok(Stmt::While(cond, Box::new(body)))
            }
            Tok::Do => {
                self.advance();
                self.nls();
                let body = self.stmt()?;
                while matches!(self.tok(), Tok::Newline | Tok::Semi) {
                    self.advance();
                }
                self.expect(&Tok::While)?;
                self.expect(&Tok::LParen)?;
                let cond = self.expr()?;
                self.expect(&Tok::RParen)?;
                self.end_simple()?;
                Ok(Stmt::Do(Box::new(body), cond))
            }
            Tok::For => {
                self.advance();
                self.expect(&Tok::LParen)?;
                if let (Tok::Name(k), Tok::In, Tok::Name(a), Tok::RParen) = (
                    self.peek(0).clone(),
                    self.peek(1).clone(),
                    self.peek(2).clone(),
                    self.peek(3).clone(),
                ) {
                    self.pos += 4;
                    let k = self.var(&k)?;
                    let a = self.var(&a)?;
                    let body = self.body()?;
                    return Ok(Stmt::ForIn(k, a, Box::new(body)));
                }
                let init = if *self.tok() == Tok::Semi {
                    None
                } else {
                    Some(Box::new(self.simple()?))
                };
                self.nls();
                self.expect(&Tok::Semi)?;
                self.nls();
                let cond = if *self.tok() == Tok::Semi {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.nls();
                self.expect(&Tok::Semi)?;
                self.nls();
                let step = if *self.tok() == Tok::RParen {
                    None
                } else {
                    Some(Box::new(self.simple()?))
                };
                self.nls();
                self.expect(&Tok::RParen)?;
                let body = self.body()?;
                Ok(Stmt::For(init, cond, step, Box::new(body)))
            }
            Tok::Semi => {
                self.advance();
                Ok(Stmt::Block(Vec::new()))
            }
            _ => {
                let s = self.simple()?;
                self.end_simple()?;
                Ok(s)
            }
        }
    }

    fn simple(&mut self) -> PResult<Stmt> {
        match self.tok().clone() {
            Tok::Print | Tok::Printf => {
                let is_printf = *self.tok() == Tok::Printf;
                self.advance();
                let args = self.print_args()?;
                if is_printf && args.is_empty() {
                    return self.err("printf: no format");
                }
                let redir = match self.tok() {
                    Tok::Gt | Tok::Append | Tok::Pipe => {
                        let t = self.tok().clone();
                        self.advance();
                        let save = self.no_gt;
                        self.no_gt = true;
                        let target = self.concat()?;
                        self.no_gt = save;
                        let is_std = matches!(&target, Expr::Str(s) if matches!(&s[..], b"/dev/stdout" | b"/dev/stderr" | b"/dev/null"));
                        Some(match t {
                            Tok::Gt => {
                                if !is_std {
                                    self.writes = true;
                                    self.truncates = true;
                                }
                                Redirect::File(target)
                            }
                            Tok::Append => {
                                if !is_std {
                                    self.writes = true;
                                }
                                Redirect::Append(target)
                            }
                            _ => Redirect::Pipe(target),
                        })
                    }
                    _ => None,
                };
                Ok(if is_printf {
                    Stmt::Printf(args, redir)
                } else {
                    Stmt::Print(args, redir)
                })
            }
            Tok::Next => {
                self.advance();
                Ok(Stmt::Next)
            }
            Tok::Nextfile => {
                self.advance();
                Ok(Stmt::NextFile)
            }
            Tok::Break => {
                self.advance();
                Ok(Stmt::Break)
            }
            Tok::Continue => {
                self.advance();
                Ok(Stmt::Continue)
            }
            Tok::Exit => {
                self.advance();
                let e = if self.is_end() {
                    None
                } else {
                    Some(self.expr()?)
                };
                Ok(Stmt::Exit(e))
            }
            Tok::Return => {
                if self.locals.is_none() {
                    return self.err("return used outside function context");
                }
                self.advance();
                let e = if self.is_end() {
                    None
                } else {
                    Some(self.expr()?)
                };
                Ok(Stmt::Return(e))
            }
            Tok::Delete => {
                self.advance();
                let paren = *self.tok() == Tok::LParen;
                if paren {
                    self.advance();
                }
                let Tok::Name(n) = self.tok().clone() else {
                    return self.err("delete: array name expected");
                };
                self.advance();
                let r = self.var(&n)?;
                let subs = if *self.tok() == Tok::LBracket {
                    self.advance();
                    let s = self.nested(|p| p.expr_list())?;
                    self.expect(&Tok::RBracket)?;
                    Some(s)
                } else {
                    None
                };
                if paren {
                    self.expect(&Tok::RParen)?;
                }
                Ok(Stmt::Delete(r, subs))
            }
            _ => Ok(Stmt::Expr(self.expr()?)),
        }
    }

    /// `print`'s arguments: a parenthesized list when it is the whole argument list.
    fn print_args(&mut self) -> PResult<Vec<Expr>> {
        if self.is_end() || matches!(self.tok(), Tok::Gt | Tok::Append | Tok::Pipe) {
            return Ok(Vec::new());
        }
        if *self.tok() == Tok::LParen {
            let save = self.pos;
            self.advance();
            let list = self.nested(|p| p.expr_list());
            if let Ok(list) = list
                && *self.tok() == Tok::RParen
            {
                self.advance();
                if self.is_end() || matches!(self.tok(), Tok::Gt | Tok::Append | Tok::Pipe) {
                    return Ok(list);
                }
            }
            self.pos = save;
        }
        let save = self.no_gt;
        self.no_gt = true;
        let r = self.expr_list();
        self.no_gt = save;
        r
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Parser) -> PResult<T>) -> PResult<T> {
        let (g, i) = (self.no_gt, self.no_in);
        self.no_gt = false;
        self.no_in = false;
        let r = f(self);
        self.no_gt = g;
        self.no_in = i;
        r
    }

    fn expr_list(&mut self) -> PResult<Vec<Expr>> {
        let mut v = vec![self.expr()?];
        while *self.tok() == Tok::Comma {
            self.advance();
            self.nls();
            v.push(self.expr()?);
        }
        Ok(v)
    }

    fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.expr_inner();
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self) -> PResult<Expr> {
        let lhs = self.ternary()?;
        if let Some(op) = assign_op(self.tok())
            && lhs.is_lvalue()
        {
            self.advance();
            self.nls();
            let rhs = self.expr()?;
            return Ok(Expr::Assign(op, Box::new(lhs), Box::new(rhs)));
        }
        Ok(lhs)
    }

    fn ternary(&mut self) -> PResult<Expr> {
        let c = self.or()?;
        if *self.tok() == Tok::Question {
            self.advance();
            self.nls();
            let a = self.expr()?;
            self.nls();
            self.expect(&Tok::Colon)?;
            self.nls();
            let b = self.expr()?;
            return Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn or(&mut self) -> PResult<Expr> {
        let mut l = self.and()?;
        while *self.tok() == Tok::Or {
            self.advance();
            self.nls();
            let r = self.and()?;
            l = Expr::Or(Box::new(l), Box::new(r));
            self.grow()?;
        }
        Ok(l)
    }

    fn and(&mut self) -> PResult<Expr> {
        let mut l = self.in_()?;
        while *self.tok() == Tok::And {
            self.advance();
            self.nls();
            let r = self.in_()?;
            l = Expr::And(Box::new(l), Box::new(r));
            self.grow()?;
        }
        Ok(l)
    }

    fn in_(&mut self) -> PResult<Expr> {
        let mut l = self.matching()?;
        while *self.tok() == Tok::In && !self.no_in {
            self.advance();
            let Tok::Name(n) = self.tok().clone() else {
                return self.err("array name expected after `in'");
            };
            self.advance();
            let r = self.var(&n)?;
            l = Expr::In(vec![l], r);
            self.grow()?;
        }
        Ok(l)
    }

    fn matching(&mut self) -> PResult<Expr> {
        let mut l = self.cmp()?;
        while matches!(self.tok(), Tok::Tilde | Tok::NoMatch) {
            let neg = *self.tok() == Tok::NoMatch;
            self.advance();
            let r = self.cmp()?;
            l = Expr::Match(neg, Box::new(l), Box::new(r));
            self.grow()?;
        }
        Ok(l)
    }

    fn cmp(&mut self) -> PResult<Expr> {
        let mut l = self.concat()?;
        loop {
            let op = match self.tok() {
                Tok::Lt => CmpOp::Lt,
                Tok::Le => CmpOp::Le,
                Tok::Ne => CmpOp::Ne,
                Tok::Eq => CmpOp::Eq,
                Tok::Ge => CmpOp::Ge,
                Tok::Gt if !self.no_gt => CmpOp::Gt,
                _ => return Ok(l),
            };
            if matches!(l, Expr::Cmp(..)) {
                return self.err(format!(
                    "syntax error at {}: comparisons do not chain; use parentheses",
                    describe(self.tok())
                ));
            }
            self.advance();
            let r = self.concat()?;
            l = Expr::Cmp(op, Box::new(l), Box::new(r));
            self.grow()?;
        }
    }

    fn starts_operand(&self) -> bool {
        matches!(
            self.tok(),
            Tok::Number(_)
                | Tok::Str(_)
                | Tok::Regex(_)
                | Tok::Name(_)
                | Tok::FuncName(_)
                | Tok::Builtin(_)
                | Tok::Dollar
                | Tok::Not
                | Tok::LParen
                | Tok::Incr
                | Tok::Decr
        )
    }

    fn concat(&mut self) -> PResult<Expr> {
        let mut l = self.additive()?;
        loop {
            if *self.tok() == Tok::Pipe && *self.peek(1) == Tok::Getline {
                self.advance();
                self.advance();
                let var = self.getline_var()?;
                l = Expr::Getline(GetSrc::Cmd(Box::new(l)), var);
                self.grow()?;
                continue;
            }
            if *self.tok() == Tok::In && self.no_in {
                return Ok(l);
            }
            if !self.starts_operand() {
                return Ok(l);
            }
            if *self.tok() == Tok::Not && matches!(self.peek(1), Tok::Eq | Tok::Tilde) {
                return Ok(l);
            }
            let r = self.additive()?;
            l = Expr::Concat(Box::new(l), Box::new(r));
            self.grow()?;
        }
    }

    fn additive(&mut self) -> PResult<Expr> {
        let mut l = self.mul()?;
        loop {
            let op = match self.tok() {
                Tok::Plus => Arith::Add,
                Tok::Minus => Arith::Sub,
                _ => return Ok(l),
            };
            self.advance();
            let r = self.mul()?;
            l = Expr::Arith(op, Box::new(l), Box::new(r));
            self.grow()?;
        }
    }

    fn mul(&mut self) -> PResult<Expr> {
        let mut l = self.unary()?;
        loop {
            let op = match self.tok() {
                Tok::Star => Arith::Mul,
                Tok::Slash => Arith::Div,
                Tok::Percent => Arith::Mod,
                _ => return Ok(l),
            };
            self.advance();
            let r = self.unary()?;
            l = Expr::Arith(op, Box::new(l), Box::new(r));
            self.grow()?;
        }
    }

    fn unary(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        match self.tok() {
            Tok::Not => {
                self.advance();
                let e = self.unary()?;
                Ok(Expr::Not(Box::new(e)))
            }
            Tok::Minus => {
                self.advance();
                let e = self.unary()?;
                Ok(Expr::Neg(Box::new(e)))
            }
            Tok::Plus => {
                self.advance();
                let e = self.unary()?;
                Ok(Expr::Plus(Box::new(e)))
            }
            _ => self.pow(),
        }
    }

    fn pow(&mut self) -> PResult<Expr> {
        let b = self.postfix()?;
        if *self.tok() == Tok::Caret {
            self.advance();
            let e = self.unary()?;
            return Ok(Expr::Arith(Arith::Pow, Box::new(b), Box::new(e)));
        }
        Ok(b)
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let p = self.primary()?;
        if p.is_lvalue() {
            match self.tok() {
                Tok::Incr => {
                    self.advance();
                    return Ok(Expr::Incr(Box::new(p), 1.0, false));
                }
                Tok::Decr => {
                    self.advance();
                    return Ok(Expr::Incr(Box::new(p), -1.0, false));
                }
                _ => {}
            }
        }
        Ok(p)
    }

    fn getline_var(&mut self) -> PResult<Option<Box<Expr>>> {
        if matches!(self.tok(), Tok::Dollar | Tok::Name(_)) {
            let e = self.primary()?;
            if !e.is_lvalue() {
                return self.err("getline: variable expected");
            }
            return Ok(Some(Box::new(e)));
        }
        Ok(None)
    }

    fn primary(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.primary_inner();
        self.depth -= 1;
        r
    }

    fn primary_inner(&mut self) -> PResult<Expr> {
        let t = self.tok().clone();
        match t {
            Tok::Number(n) => {
                self.advance();
                Ok(Expr::Num(n))
            }
            Tok::Str(s) => {
                self.advance();
                Ok(Expr::Str(Rc::new(s)))
            }
            Tok::Regex(r) => {
                self.advance();
                self.regexes.push(r);
                Ok(Expr::Regex(self.regexes.len() - 1))
            }
            Tok::LParen => {
                self.advance();
                let list = self.nested(|p| {
                    let l = p.expr_list()?;
                    p.nls();
                    Ok(l)
                })?;
                self.expect(&Tok::RParen)?;
                if list.len() > 1 {
                    if *self.tok() != Tok::In {
                        return self.err("syntax error: a list in parentheses needs `in'");
                    }
                    self.advance();
                    let Tok::Name(n) = self.tok().clone() else {
                        return self.err("array name expected after `in'");
                    };
                    self.advance();
                    let r = self.var(&n)?;
                    return Ok(Expr::In(list, r));
                }
                let mut list = list;
                Ok(Expr::Group(Box::new(list.remove(0))))
            }
            Tok::Dollar => {
                self.advance();
                let e = match self.tok() {
                    Tok::Incr | Tok::Decr => {
                        let d = if *self.tok() == Tok::Incr { 1.0 } else { -1.0 };
                        self.advance();
                        let lv = self.primary()?;
                        if !lv.is_lvalue() {
                            return self.err("++ or -- needs a variable");
                        }
                        Expr::Incr(Box::new(lv), d, true)
                    }
                    Tok::Minus => {
                        self.advance();
                        Expr::Neg(Box::new(self.primary()?))
                    }
                    Tok::Not => {
                        self.advance();
                        Expr::Not(Box::new(self.primary()?))
                    }
                    _ => self.primary()?,
                };
                Ok(Expr::Field(Box::new(e)))
            }
            Tok::Incr | Tok::Decr => {
                let d = if t == Tok::Incr { 1.0 } else { -1.0 };
                self.advance();
                let lv = self.primary()?;
                if !lv.is_lvalue() {
                    return self.err("++ or -- needs a variable");
                }
                Ok(Expr::Incr(Box::new(lv), d, true))
            }
            Tok::Not | Tok::Minus | Tok::Plus => self.unary(),
            Tok::Name(n) => {
                self.advance();
                if *self.tok() == Tok::LBracket {
                    self.advance();
                    let subs = self.nested(|p| p.expr_list())?;
                    self.expect(&Tok::RBracket)?;
                    let r = self.var(&n)?;
                    return Ok(Expr::Index(r, subs));
                }
                if n == "NF" && self.locals.as_ref().is_none_or(|l| !l.contains(&n)) {
                    return Ok(Expr::Nf);
                }
                Ok(Expr::Var(self.var(&n)?))
            }
            Tok::FuncName(n) => {
                self.advance();
                self.expect(&Tok::LParen)?;
                let args = self.call_args()?;
                let fi = self.func_id(&n);
                Ok(Expr::Call(fi, args))
            }
            Tok::Builtin(b) => {
                self.advance();
                if *self.tok() == Tok::LParen {
                    self.advance();
                    let args = self.call_args()?;
                    self.check_builtin(b, &args)?;
                    return Ok(Expr::Builtin(b, args));
                }
                if b == "length" {
                    return Ok(Expr::Builtin(b, Vec::new()));
                }
                self.err(format!("syntax error: {b} needs `('"))
            }
            Tok::Getline => {
                self.advance();
                let var = self.getline_var()?;
                if *self.tok() == Tok::Lt {
                    self.advance();
                    let f = self.primary()?;
                    return Ok(Expr::Getline(GetSrc::File(Box::new(f)), var));
                }
                Ok(Expr::Getline(GetSrc::Main, var))
            }
            _ => self.unexpected(),
        }
    }

    fn call_args(&mut self) -> PResult<Vec<Expr>> {
        self.nls();
        if *self.tok() == Tok::RParen {
            self.advance();
            return Ok(Vec::new());
        }
        let args = self.nested(|p| p.expr_list())?;
        self.nls();
        self.expect(&Tok::RParen)?;
        Ok(args)
    }

    fn check_builtin(&self, b: &str, args: &[Expr]) -> PResult<()> {
        let (lo, hi) = match b {
            "length" => (0, 1),
            "substr" => (2, 3),
            "index" | "atan2" => (2, 2),
            "split" => (2, 4),
            "sub" | "gsub" => (2, 3),
            "match" => (2, 3),
            "gensub" => (3, 4),
            "asort" | "asorti" => (1, 3),
            "strftime" => (0, 3),
            "systime" => (0, 0),
            "mktime" => (1, 2),
            "and" | "or" | "xor" => (2, usize::MAX),
            "lshift" | "rshift" => (2, 2),
            "compl" | "typeof" | "isarray" | "strtonum" => (1, 1),
            "sprintf" => (1, usize::MAX),
            "sin" | "cos" | "exp" | "log" | "sqrt" | "int" | "tolower" | "toupper" | "system" => {
                (1, 1)
            }
            "rand" => (0, 0),
            "srand" | "fflush" => (0, 1),
            "close" => (1, 2),
            _ => (0, usize::MAX),
        };
        if args.len() < lo || args.len() > hi {
            return self.err(format!("{b}: called with {} arguments", args.len()));
        }
        if matches!(b, "sub" | "gsub") && args.len() == 3 && !strip(&args[2]).is_lvalue() {
            return self.err(format!("{b}: third argument is not a changeable object"));
        }
        if b == "split"
            && args
                .get(3)
                .is_some_and(|a| !matches!(strip(a), Expr::Var(_)))
        {
            return self.err("split: fourth argument is not an array");
        }
        if b == "split" && !matches!(strip(&args[1]), Expr::Var(_)) {
            return self.err("split: second argument is not an array");
        }
        let arrays: &[usize] = match b {
            "asort" | "asorti" => &[0, 1],
            "match" => &[2],
            _ => &[],
        };
        for &j in arrays {
            if args
                .get(j)
                .is_some_and(|a| !matches!(strip(a), Expr::Var(_)))
            {
                return self.err(format!("{b}: argument {} is not an array", j + 1));
            }
        }
        Ok(())
    }
}

/// An expression without enclosing parentheses.
pub fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Group(inner) => strip(inner),
        other => other,
    }
}

/// Decide which variables are arrays, from how they are used and passed.
struct Infer {
    g: Vec<Option<bool>>,
    p: Vec<Vec<Option<bool>>>,
    edges: Vec<(Option<usize>, VarRef, usize, usize)>,
    error: Option<String>,
    used: Vec<bool>,
}

impl Infer {
    fn slot(&mut self, ctx: Option<usize>, r: VarRef) -> &mut Option<bool> {
        match (r, ctx) {
            (VarRef::Global(i), _) => &mut self.g[i as usize],
            (VarRef::Local(j), Some(f)) => &mut self.p[f][j as usize],
            (VarRef::Local(_), None) => &mut self.g[0],
        }
    }
    fn mark(&mut self, ctx: Option<usize>, r: VarRef, array: bool, names: &[String]) {
        if let VarRef::Global(i) = r {
            self.used[i as usize] = true;
        }
        let s = self.slot(ctx, r);
        match *s {
            None => *s = Some(array),
            Some(a) if a != array => {
                let name = match r {
                    VarRef::Global(i) => names[i as usize].clone(),
                    VarRef::Local(_) => "a parameter".to_string(),
                };
                self.error = Some(if array {
                    format!("can't use scalar `{name}' as an array")
                } else {
                    format!("can't use array `{name}' in a scalar context")
                });
            }
            _ => {}
        }
    }
    fn expr(&mut self, ctx: Option<usize>, e: &Expr, names: &[String]) {
        match e {
            Expr::Num(_) | Expr::Str(_) | Expr::Regex(_) | Expr::Nf => {}
            Expr::Var(r) => self.mark(ctx, *r, false, names),
            Expr::Field(x) | Expr::Not(x) | Expr::Neg(x) | Expr::Plus(x) | Expr::Group(x) => {
                self.expr(ctx, x, names);
            }
            Expr::Index(r, subs) | Expr::In(subs, r) => {
                self.mark(ctx, *r, true, names);
                for s in subs {
                    self.expr(ctx, s, names);
                }
            }
            Expr::Assign(_, a, b)
            | Expr::And(a, b)
            | Expr::Or(a, b)
            | Expr::Arith(_, a, b)
            | Expr::Cmp(_, a, b)
            | Expr::Concat(a, b)
            | Expr::Match(_, a, b) => {
                self.expr(ctx, a, names);
                self.expr(ctx, b, names);
            }
            Expr::Incr(a, _, _) => self.expr(ctx, a, names),
            Expr::Cond(a, b, c) => {
                self.expr(ctx, a, names);
                self.expr(ctx, b, names);
                self.expr(ctx, c, names);
            }
            Expr::Call(fi, args) => {
                for (j, a) in args.iter().enumerate() {
                    if let Expr::Var(r) = a {
                        self.edges.push((ctx, *r, *fi, j));
                    } else {
                        self.expr(ctx, a, names);
                    }
                }
            }
            Expr::Builtin(b, args) => {
                for (j, a) in args.iter().enumerate() {
                    let array = match *b {
                        "split" => j == 1 || j == 3,
                        "asort" | "asorti" => j <= 1,
                        "match" => j == 2,
                        _ => false,
                    };
                    if array {
                        if let Expr::Var(r) = strip(a) {
                            self.mark(ctx, *r, true, names);
                        }
                    } else if matches!(*b, "typeof" | "isarray") && j == 0 {
                        // typeof(x) works on both and leaves x untyped.
                        if !matches!(strip(a), Expr::Var(_)) {
                            self.expr(ctx, a, names);
                        }
                    } else if *b == "length" && j == 0 {
                        // length(x) works on both; decided by the other uses.
                        match a {
                            Expr::Var(VarRef::Global(i)) => self.used[*i as usize] = true,
                            Expr::Var(_) => {}
                            _ => self.expr(ctx, a, names),
                        }
                    } else {
                        self.expr(ctx, a, names);
                    }
                }
            }
            Expr::Getline(src, var) => {
                match src {
                    GetSrc::Main => {}
                    GetSrc::File(f) | GetSrc::Cmd(f) => self.expr(ctx, f, names),
                }
                if let Some(v) = var {
                    self.expr(ctx, v, names);
                }
            }
        }
    }
    fn stmt(&mut self, ctx: Option<usize>, s: &Stmt, names: &[String]) {
        match s {
            Stmt::Expr(e) => self.expr(ctx, e, names),
            Stmt::Print(args, r) | Stmt::Printf(args, r) => {
                for a in args {
                    self.expr(ctx, a, names);
                }
                if let Some(Redirect::File(e) | Redirect::Append(e) | Redirect::Pipe(e)) = r {
                    self.expr(ctx, e, names);
                }
            }
            Stmt::If(c, a, b) => {
                self.expr(ctx, c, names);
                self.stmt(ctx, a, names);
                if let Some(b) = b {
                    self.stmt(ctx, b, names);
                }
            }
            Stmt::While(c, b) | Stmt::Do(b, c) => {
                self.expr(ctx, c, names);
                self.stmt(ctx, b, names);
            }
            Stmt::For(i, c, st, b) => {
                if let Some(i) = i {
                    self.stmt(ctx, i, names);
                }
                if let Some(c) = c {
                    self.expr(ctx, c, names);
                }
                if let Some(st) = st {
                    self.stmt(ctx, st, names);
                }
                self.stmt(ctx, b, names);
            }
            Stmt::ForIn(k, a, b) => {
                self.mark(ctx, *k, false, names);
                self.mark(ctx, *a, true, names);
                self.stmt(ctx, b, names);
            }
            Stmt::Block(v) => {
                for s in v {
                    self.stmt(ctx, s, names);
                }
            }
            Stmt::Exit(Some(e)) | Stmt::Return(Some(e)) => self.expr(ctx, e, names),
            Stmt::Delete(r, subs) => {
                self.mark(ctx, *r, true, names);
                for s in subs.iter().flatten() {
                    self.expr(ctx, s, names);
                }
            }
            _ => {}
        }
    }
}

fn infer(prog: &mut Program) -> PResult<()> {
    let mut inf = Infer {
        g: vec![None; prog.globals.len()],
        p: prog
            .funcs
            .iter()
            .map(|f| vec![None; f.params.len()])
            .collect(),
        edges: Vec::new(),
        error: None,
        used: vec![false; prog.globals.len()],
    };
    for (i, s) in SPECIALS.iter().enumerate() {
        let array = matches!(*s, "ENVIRON" | "ARGV") || (!prog.posix && *s == "PROCINFO");
        // Under --posix gawk's special names are ordinary variables.
        inf.g[i] = (i < 16 || !prog.posix).then_some(array);
    }
    let names = prog.globals.clone();
    let blocks = [&prog.begin, &prog.end, &prog.beginfile, &prog.endfile];
    for b in blocks.into_iter().flatten() {
        for s in b {
            inf.stmt(None, s, &names);
        }
    }
    for r in &prog.rules {
        match &r.pattern {
            Pattern::All => {}
            Pattern::Expr(e) => inf.expr(None, e, &names),
            Pattern::Range(a, b, _) => {
                inf.expr(None, a, &names);
                inf.expr(None, b, &names);
            }
        }
        for s in r.action.iter().flatten() {
            inf.stmt(None, s, &names);
        }
    }
    for (fi, f) in prog.funcs.iter().enumerate() {
        for s in &f.body {
            inf.stmt(Some(fi), s, &names);
        }
    }
    inf.edges.retain(|e| prog.funcs[e.2].defined);
    for &(ctx, _, fi, j) in &inf.edges {
        if j >= prog.funcs[fi].params.len() {
            return Err(SyntaxError {
                line: 1,
                col: 1,
                message: format!(
                    "function `{}' called with more arguments than declared",
                    prog.funcs[fi].name
                ),
            });
        }
        let _ = ctx;
    }
    loop {
        let mut changed = false;
        for k in 0..inf.edges.len() {
            let (ctx, r, fi, j) = inf.edges[k];
            let pt = inf.p[fi][j];
            let ct = *inf.slot(ctx, r);
            if pt == Some(true) && ct != Some(true) {
                if ct == Some(false) {
                    inf.mark(ctx, r, true, &names);
                } else {
                    *inf.slot(ctx, r) = Some(true);
                }
                changed = true;
            } else if ct == Some(true) && pt.is_none() {
                inf.p[fi][j] = Some(true);
                changed = true;
            }
        }
        if !changed || inf.error.is_some() {
            break;
        }
    }
    if let Some(e) = inf.error {
        return Err(SyntaxError {
            line: 1,
            col: 1,
            message: e,
        });
    }
    prog.global_array = inf.g.iter().map(|t| *t == Some(true)).collect();
    prog.global_used = inf.used;
    for (fi, f) in prog.funcs.iter_mut().enumerate() {
        f.array_param = inf.p[fi].iter().map(|t| *t == Some(true)).collect();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_reports_position() {
        assert!(parse(b"BEGIN { x = 1; print x }").is_ok());
        assert!(parse(b"function f(a) { a[1] = 2 } BEGIN { f(arr); print arr[1] }").is_ok());
        let e = parse(b"BEGIN {\n  print (1\n}").err();
        assert!(e.is_some_and(|e| e.line >= 2));
        assert!(parse(b"{ print $1 > \"out\" }").is_ok_and(|p| p.truncates_files));
    }
}
