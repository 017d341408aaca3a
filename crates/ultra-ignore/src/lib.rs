//! Whether a walk would leave a path out by its ignore files, for a path reached without a
//! walk (one a file-system watcher reported): the code index and the test watches judge
//! reported paths with it.
//!
//! The walk (ripgrep's `ignore`) never enters an ignored directory and matches each path
//! against the ignore files of every directory above it, the deepest first; a `.ignore`
//! beats a `.gitignore`, which beats `.git/info/exclude`, which beats the global excludes.
//! [`IgnoreRules::ignored`] answers the same way, so that what a watcher reports is indexed
//! exactly when a walk would find it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::Gitignore;

/// The names of the ignore files a walk reads: a change to one changes what is left out.
pub const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

/// The ignore files of the directories asked about, read once each.
pub struct IgnoreRules {
    root: PathBuf,
    global: Gitignore,
    dirs: HashMap<PathBuf, DirRules>,
}

/// One directory's ignore files, in the order they take precedence.
struct DirRules {
    ignore: Option<Gitignore>,
    git: Option<Gitignore>,
    exclude: Option<Gitignore>,
}

fn read(path: PathBuf) -> Option<Gitignore> {
    if !path.is_file() {
        return None;
    }
    let (gi, _) = Gitignore::new(path);
    (!gi.is_empty()).then_some(gi)
}

impl IgnoreRules {
    /// Rules for the workspace at `root` (the directories above it count too, as in a walk).
    pub fn new(root: &Path) -> IgnoreRules {
        IgnoreRules {
            root: root.to_path_buf(),
            global: Gitignore::global().0,
            dirs: HashMap::new(),
        }
    }

    fn rules(&mut self, dir: &Path) -> &DirRules {
        self.dirs
            .entry(dir.to_path_buf())
            .or_insert_with(|| DirRules {
                ignore: read(dir.join(".ignore")),
                git: read(dir.join(".gitignore")),
                exclude: read(dir.join(".git/info/exclude")),
            })
    }

    /// Whether the path alone matches an ignore rule of a directory above it.
    fn matched(&mut self, abs: &Path, is_dir: bool) -> bool {
        let (mut ignore, mut git, mut exclude) = (Match::None, Match::None, Match::None);
        for dir in abs.ancestors().skip(1) {
            let r = self.rules(dir);
            let m = |g: &Option<Gitignore>| {
                g.as_ref()
                    .map_or(Match::None, |g| g.matched(abs, is_dir).map(|_| ()))
            };
            if ignore.is_none() {
                ignore = m(&r.ignore);
            }
            if git.is_none() {
                git = m(&r.git);
            }
            if exclude.is_none() {
                exclude = m(&r.exclude);
            }
        }
        let global = self.global.matched(abs, is_dir).map(|_| ());
        ignore.or(git).or(exclude).or(global).is_ignore()
    }

    /// Whether a walk of the workspace leaves out `rel` (a file, or a directory when
    /// `is_dir`): it or a directory on its way is ignored.
    pub fn ignored(&mut self, rel: &str, is_dir: bool) -> bool {
        let abs = self.root.join(rel);
        let mut dirs: Vec<&Path> = abs
            .ancestors()
            .skip(1)
            .take_while(|d| d.starts_with(&self.root) && *d != self.root)
            .collect();
        dirs.reverse();
        let dirs: Vec<PathBuf> = dirs.into_iter().map(Path::to_path_buf).collect();
        dirs.iter().any(|d| self.matched(d, true)) || self.matched(&abs, is_dir)
    }
}

#[cfg(test)]
mod tests {
    use super::IgnoreRules;

    #[test]
    fn deeper_and_dot_ignore_files_win() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let root = tmp.path();
        let w = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap_or(root)).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(p, text).unwrap_or_else(|e| panic!("{e}"));
        };
        w(".gitignore", "*.gen.py\nout/\n");
        w("sub/.gitignore", "gen/\n!keep.gen.py\n");
        w("sub/deep/.ignore", "!*.gen.py\n");
        let mut r = IgnoreRules::new(root);
        assert!(r.ignored("a.gen.py", false));
        assert!(!r.ignored("a.py", false));
        assert!(r.ignored("out", true));
        assert!(r.ignored("out/x/y.py", false));
        assert!(
            !r.ignored("x/out", false),
            "a file named out is not the directory"
        );
        assert!(r.ignored("sub/gen/a.py", false));
        assert!(r.ignored("sub/gen/deeper", true));
        assert!(
            !r.ignored("sub/keep.gen.py", false),
            "a deeper whitelist wins"
        );
        assert!(r.ignored("sub/other.gen.py", false));
        assert!(
            !r.ignored("sub/deep/z.gen.py", false),
            ".ignore beats .gitignore"
        );
    }
}
