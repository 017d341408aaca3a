//! awk's syntax tree: a program of rules and functions, statements and expressions with every
//! variable already resolved to a global or local slot.

/// A variable slot: a global (index into the globals) or a function's parameter/local.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarRef {
    Global(u32),
    Local(u32),
}

/// Binary arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// Where `getline` reads.
#[derive(Debug, Clone)]
pub enum GetSrc {
    /// The main input.
    Main,
    /// `getline < file`.
    File(Box<Expr>),
    /// `cmd | getline` (refused at run time).
    Cmd(Box<Expr>),
}

/// An expression.
#[derive(Debug, Clone)]
pub enum Expr {
    Num(f64),
    Str(super::value::Str),
    /// A regex literal: alone it matches `$0`.
    Regex(usize),
    Var(VarRef),
    /// `NF` (reading it splits the record).
    Nf,
    Field(Box<Expr>),
    Index(VarRef, Vec<Expr>),
    /// `lvalue op= value` (`None`: plain `=`).
    Assign(Option<Arith>, Box<Expr>, Box<Expr>),
    /// `++x`/`--x` (pre) or `x++`/`x--`: target, delta, whether the new value is returned.
    Incr(Box<Expr>, f64, bool),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Plus(Box<Expr>),
    Arith(Arith, Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    Concat(Box<Expr>, Box<Expr>),
    /// `lhs ~ rhs` (negated for `!~`).
    Match(bool, Box<Expr>, Box<Expr>),
    In(Vec<Expr>, VarRef),
    Call(usize, Vec<Expr>),
    Builtin(&'static str, Vec<Expr>),
    Getline(GetSrc, Option<Box<Expr>>),
    /// A parenthesized expression (kept so `print (a) > "f"` parses; evaluates as its inner).
    Group(Box<Expr>),
}

impl Expr {
    /// Whether this can be assigned to.
    pub fn is_lvalue(&self) -> bool {
        matches!(
            self,
            Expr::Var(_) | Expr::Nf | Expr::Field(_) | Expr::Index(..)
        )
    }
}

/// Output redirection of `print`/`printf`.
#[derive(Debug, Clone)]
pub enum Redirect {
    File(Expr),
    Append(Expr),
    Pipe(Expr),
}

/// A statement.
#[derive(Debug, Clone)]
pub enum Stmt {
    Expr(Expr),
    Print(Vec<Expr>, Option<Redirect>),
    Printf(Vec<Expr>, Option<Redirect>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    Do(Box<Stmt>, Expr),
    For(
        Option<Box<Stmt>>,
        Option<Expr>,
        Option<Box<Stmt>>,
        Box<Stmt>,
    ),
    ForIn(VarRef, VarRef, Box<Stmt>),
    Block(Vec<Stmt>),
    Next,
    NextFile,
    Exit(Option<Expr>),
    Return(Option<Expr>),
    Break,
    Continue,
    Delete(VarRef, Option<Vec<Expr>>),
}

/// A rule's pattern.
#[derive(Debug, Clone)]
pub enum Pattern {
    All,
    Expr(Expr),
    /// `a, b` with the index of its on/off state.
    Range(Expr, Expr, usize),
}

/// `pattern { action }` (no action: print `$0`).
#[derive(Debug, Clone)]
pub struct Rule {
    pub pattern: Pattern,
    pub action: Option<Vec<Stmt>>,
}

/// A user function.
#[derive(Debug, Clone)]
pub struct Func {
    pub name: String,
    pub params: Vec<String>,
    /// Which parameters are arrays (inferred from use).
    pub array_param: Vec<bool>,
    pub body: Vec<Stmt>,
    /// False for a function called but never defined: fatal when a call is reached, as
    /// in gawk.
    pub defined: bool,
}

/// A parsed program.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub begin: Vec<Vec<Stmt>>,
    pub end: Vec<Vec<Stmt>>,
    /// gawk's `BEGINFILE` and `ENDFILE` actions.
    pub beginfile: Vec<Vec<Stmt>>,
    pub endfile: Vec<Vec<Stmt>>,
    pub rules: Vec<Rule>,
    pub funcs: Vec<Func>,
    /// Global names, by slot.
    pub globals: Vec<String>,
    /// Which globals are arrays.
    pub global_array: Vec<bool>,
    /// Regex literals, by index (awk syntax, escapes kept).
    pub regexes: Vec<Vec<u8>>,
    pub ranges: usize,
    /// Whether the program writes files with `>` / `>>`.
    pub writes_files: bool,
    pub truncates_files: bool,
    /// `--posix`: gawk's extensions are off.
    pub posix: bool,
    /// Globals used other than as `typeof`'s argument (gawk's "untyped" otherwise).
    pub global_used: Vec<bool>,
}

/// The special variables, in their fixed global slots.
pub const SPECIALS: &[&str] = &[
    "NR",
    "FNR",
    "NF",
    "FS",
    "OFS",
    "ORS",
    "RS",
    "SUBSEP",
    "CONVFMT",
    "OFMT",
    "RSTART",
    "RLENGTH",
    "FILENAME",
    "ENVIRON",
    "ARGC",
    "ARGV",
    "IGNORECASE",
    "FPAT",
    "PROCINFO",
];
pub const G_NR: u32 = 0;
pub const G_FNR: u32 = 1;
pub const G_NF: u32 = 2;
pub const G_FS: u32 = 3;
pub const G_OFS: u32 = 4;
pub const G_ORS: u32 = 5;
pub const G_RS: u32 = 6;
pub const G_SUBSEP: u32 = 7;
pub const G_CONVFMT: u32 = 8;
pub const G_OFMT: u32 = 9;
pub const G_RSTART: u32 = 10;
pub const G_RLENGTH: u32 = 11;
pub const G_FILENAME: u32 = 12;
pub const G_ENVIRON: u32 = 13;
pub const G_ARGC: u32 = 14;
pub const G_ARGV: u32 = 15;
pub const G_IGNORECASE: u32 = 16;
pub const G_FPAT: u32 = 17;
pub const G_PROCINFO: u32 = 18;
