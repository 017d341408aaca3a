//! The built-in commands, one module per family, listed once in [`ALL`].

mod basic;
mod files;

/// Time formatting of `date` and `ls -l`, for commands declared above the shell.
pub use files::format_time;
pub mod opts;
mod text;

use crate::run::Builtin;

/// Every built-in, sorted by name.
pub static ALL: &[&dyn Builtin] = &[
    &text::Basename,
    &basic::Cat,
    &files::Clear,
    &files::Cp,
    &text::Cut,
    &files::Date,
    &files::Diff,
    &text::Dirname,
    &basic::Echo,
    &basic::Env,
    &basic::False,
    &text::Head,
    &files::Ls,
    &files::Mkdir,
    &files::Mv,
    &text::Printf,
    &basic::Pwd,
    &files::Rm,
    &files::Rmdir,
    &text::Seq,
    &text::Sort,
    &files::Stat,
    &text::Tac,
    &text::Tail,
    &files::Tee,
    &files::Touch,
    &text::Tr,
    &files::Tree,
    &basic::True,
    &text::Uniq,
    &text::Wc,
    &files::Which,
    &files::Whoami,
    &files::Xargs,
];

/// Every command the shell runs: the plain built-ins, then the promoted ones.
pub fn every() -> impl Iterator<Item = &'static dyn Builtin> {
    ALL.iter().chain(crate::promoted::CLI.iter()).copied()
}

/// The built-in called `name`.
pub fn lookup(name: &str) -> Option<&'static dyn Builtin> {
    every().find(|b| b.name() == name)
}

/// The names of every built-in.
pub fn names() -> impl Iterator<Item = &'static str> {
    every().map(|b| b.name())
}

/// Up to three built-in names close to an unknown one, for "command not found".
pub fn closest(name: &str) -> Vec<&'static str> {
    let mut scored: Vec<(usize, &'static str)> = names()
        .map(|n| (strsim::levenshtein(name, n), n))
        .filter(|(d, _)| *d <= 2)
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorted_and_unique() {
        let names: Vec<&str> = super::ALL.iter().map(|b| b.name()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        let names: Vec<&str> = crate::promoted::CLI.iter().map(|b| b.name()).collect();
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
