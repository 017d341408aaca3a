//! The built-in commands, one module per family, listed once in [`ALL`].

mod basic;
mod files;
mod opts;
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

/// The built-in called `name`.
pub fn lookup(name: &str) -> Option<&'static dyn Builtin> {
    ALL.iter().copied().find(|b| b.name() == name)
}

/// The names of every built-in.
pub fn names() -> impl Iterator<Item = &'static str> {
    ALL.iter().map(|b| b.name())
}

/// Up to three built-in names close to an unknown one, for "command not found".
pub fn closest(name: &str) -> Vec<&'static str> {
    let mut scored: Vec<(usize, &'static str)> = names()
        .map(|n| (distance(name, n), n))
        .filter(|(d, _)| *d <= 2)
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorted_and_unique() {
        let names: Vec<&str> = super::names().collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(names, sorted);
    }
}
