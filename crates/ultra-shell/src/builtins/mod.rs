//! The built-in commands, one module per family, listed once in [`ALL`].

mod basic;
mod files;
mod test;

/// Time formatting of `date` and `ls -l`, for commands declared above the shell.
pub use files::format_time;
mod text;

use crate::command::{Builtin, Commands};

/// Every plain built-in, sorted by name.
pub static ALL: &[&Builtin] = &[
    &test::BRACKET,
    &text::BASENAME,
    &basic::CAT,
    &files::CLEAR,
    &files::CP,
    &text::CUT,
    &files::DATE,
    &files::DIFF,
    &text::DIRNAME,
    &basic::ECHO,
    &basic::ENV,
    &basic::FALSE,
    &text::HEAD,
    &files::LS,
    &files::MKDIR,
    &files::MV,
    &text::PRINTF,
    &basic::PWD,
    &files::RM,
    &files::RMDIR,
    &text::SEQ,
    &text::SORT,
    &files::STAT,
    &text::TAC,
    &text::TAIL,
    &files::TEE,
    &test::TEST,
    &files::TOUCH,
    &text::TR,
    &files::TREE,
    &basic::TRUE,
    &text::UNIQ,
    &text::WC,
    &files::WHICH,
    &files::WHOAMI,
    &files::XARGS,
];

/// This crate's own commands: the plain built-ins, then the promoted ones (what `xargs`
/// and `which` know of).
pub fn own() -> &'static Commands {
    static OWN: std::sync::OnceLock<Commands> = std::sync::OnceLock::new();
    OWN.get_or_init(|| Commands::new(&[ALL, crate::promoted::builtins()]))
}

/// Every command of this crate: the plain built-ins, then the promoted ones.
pub fn every() -> impl Iterator<Item = &'static Builtin> {
    own().iter()
}

/// The built-in called `name`.
pub fn lookup(name: &str) -> Option<&'static Builtin> {
    own().get(name)
}

/// The names of every built-in.
pub fn names() -> impl Iterator<Item = &'static str> {
    every().map(|b| b.name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorted_and_unique() {
        let names: Vec<&str> = super::ALL.iter().map(|b| b.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        let names: Vec<&str> = crate::promoted::builtins().iter().map(|b| b.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        let mut names: Vec<&str> = super::names().collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n, "a name is used twice");
    }
}
