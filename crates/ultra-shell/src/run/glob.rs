//! Pathname expansion for unquoted `*`, `?` and `[...]`, beneath the working directory.
//!
//! Like bash: matches are sorted, `*` and `?` do not match a leading `.`, and a pattern
//! that matches nothing stays as written.

use ultra_workspace::RelPath;
use ultra_workspace::root::Kind;

use super::fs::ShellFs;

/// One character of a pattern: a glob metacharacter (from unquoted text) or a literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatChar {
    /// A literal character (quoted, or not special).
    Lit(char),
    /// A metacharacter from unquoted text: `*`, `?`, `[`, `]`, `!`, `^`, `-` inside brackets.
    Meta(char),
}

/// Whether `name` matches the pattern segment.
pub fn matches(pat: &[PatChar], name: &[char]) -> bool {
    match pat.first() {
        None => name.is_empty(),
        Some(PatChar::Meta('*')) => (0..=name.len()).any(|i| matches(&pat[1..], &name[i..])),
        Some(PatChar::Meta('?')) => !name.is_empty() && matches(&pat[1..], &name[1..]),
        Some(PatChar::Meta('[')) => match bracket(&pat[1..]) {
            Some((set, negate, used)) => {
                let Some(&c) = name.first() else { return false };
                let hit = set.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                hit != negate && matches(&pat[1 + used..], &name[1..])
            }
            None => name.first() == Some(&'[') && matches(&pat[1..], &name[1..]),
        },
        Some(PatChar::Meta(c)) | Some(PatChar::Lit(c)) => {
            name.first() == Some(c) && matches(&pat[1..], &name[1..])
        }
    }
}

/// [`matches`] in O(pattern × text) steps whatever the pattern (the classic
/// back-to-the-last-star walk), for text that is not a file name: `${X%pattern}` on a
/// long value must not take exponential time.
pub fn matches_linear(pat: &[PatChar], text: &[char]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        let step = match pat.get(p) {
            Some(PatChar::Meta('*')) => {
                star = Some((p, t));
                p += 1;
                continue;
            }
            Some(PatChar::Meta('?')) => Some(1),
            Some(PatChar::Meta('[')) => match bracket(&pat[p + 1..]) {
                Some((set, negate, used)) => {
                    let c = text[t];
                    let hit = set.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                    (hit != negate).then_some(1 + used)
                }
                None => (text[t] == '[').then_some(1),
            },
            Some(PatChar::Meta(c)) | Some(PatChar::Lit(c)) => (text[t] == *c).then_some(1),
            None => None,
        };
        match (step, star) {
            (Some(n), _) => {
                p += n;
                t += 1;
            }
            (None, Some((sp, st))) => {
                p = sp + 1;
                t = st + 1;
                star = Some((sp, st + 1));
            }
            (None, None) => return false,
        }
    }
    pat[p..].iter().all(|c| *c == PatChar::Meta('*'))
}

/// Parse a bracket expression after `[`: ranges, negation, and how many pattern chars it used.
/// A bracket expression: its ranges, whether it is negated, and the pattern chars it used.
type Bracket = (Vec<(char, char)>, bool, usize);

fn bracket(pat: &[PatChar]) -> Option<Bracket> {
    let ch = |p: &PatChar| match p {
        PatChar::Lit(c) | PatChar::Meta(c) => *c,
    };
    let mut i = 0;
    let negate = matches!(pat.first(), Some(PatChar::Meta('!' | '^')));
    if negate {
        i += 1;
    }
    let mut set = Vec::new();
    let mut first = true;
    while i < pat.len() {
        let c = ch(&pat[i]);
        if c == ']' && !first {
            return Some((set, negate, i + 1));
        }
        first = false;
        if i + 2 < pat.len() && ch(&pat[i + 1]) == '-' && ch(&pat[i + 2]) != ']' {
            set.push((c, ch(&pat[i + 2])));
            i += 3;
        } else {
            set.push((c, c));
            i += 1;
        }
    }
    None
}

fn has_meta(seg: &[PatChar]) -> bool {
    seg.iter()
        .any(|p| matches!(p, PatChar::Meta('*' | '?' | '[')))
}

fn text(seg: &[PatChar]) -> String {
    seg.iter()
        .map(|p| match p {
            PatChar::Lit(c) | PatChar::Meta(c) => *c,
        })
        .collect()
}

/// Expand a pattern relative to `cwd`. Returns the matches (as the user would write them,
/// relative to `cwd` or absolute when the pattern was), sorted; empty when nothing matches.
pub fn expand(fs: &ShellFs, cwd: &RelPath, pattern: &[PatChar], limit: usize) -> Vec<String> {
    let segs: Vec<&[PatChar]> = pattern
        .split(|p| *p == PatChar::Lit('/') || *p == PatChar::Meta('/'))
        .collect();
    let absolute = pattern
        .first()
        .is_some_and(|p| matches!(p, PatChar::Lit('/') | PatChar::Meta('/')));
    // Candidates: (display prefix, shell path to list)
    let mut current: Vec<String> = vec![if absolute {
        "/".to_string()
    } else {
        String::new()
    }];
    for (i, seg) in segs.iter().enumerate() {
        if seg.is_empty() {
            continue;
        }
        let last = i + 1 == segs.len();
        let mut next = Vec::new();
        for base in &current {
            if !has_meta(seg) {
                let p = join(base, &text(seg));
                // A literal segment: keep it if it exists (and, before the end, is a directory).
                let keep = match fs.stat(cwd, &p) {
                    Ok(m) => last || m.kind == Kind::Dir,
                    Err(_) => false,
                };
                if keep {
                    next.push(p);
                }
                continue;
            }
            let dir = if base.is_empty() { "." } else { base.as_str() };
            let Ok(entries) = fs.list(cwd, dir) else {
                continue;
            };
            let hidden_ok = matches!(seg.first(), Some(PatChar::Lit('.')));
            for e in entries {
                if e.name.starts_with('.') && !hidden_ok {
                    continue;
                }
                let name: Vec<char> = e.name.chars().collect();
                if matches(seg, &name) && (last || e.meta.kind == Kind::Dir) {
                    next.push(join(base, &e.name));
                }
                if next.len() > limit {
                    break;
                }
            }
        }
        current = next;
        if current.is_empty() {
            return Vec::new();
        }
    }
    current.sort();
    current.truncate(limit);
    // `*/` matches directories, and the matches keep the slash.
    if segs.len() > 1 && segs.last().is_some_and(|s| s.is_empty()) {
        for m in &mut current {
            m.push('/');
        }
    }
    current
}

fn join(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_string()
    } else if base.ends_with('/') {
        format!("{base}{name}")
    } else {
        format!("{base}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(s: &str) -> Vec<PatChar> {
        s.chars()
            .map(|c| {
                if "*?[]!^-".contains(c) {
                    PatChar::Meta(c)
                } else {
                    PatChar::Lit(c)
                }
            })
            .collect()
    }

    #[test]
    fn linear_matching_agrees() {
        let names = ["", "a", "ab", "abc", "a.txt", "x/y.rs", "aaab", "[x", "b-c"];
        let pats = [
            "", "*", "a*", "*c", "a?c", "*.txt", "*/*", "a*a*b", "[ab]*", "[!a]*", "[", "*[a-c]",
            "?-?",
        ];
        for p in pats {
            for n in names {
                let n: Vec<char> = n.chars().collect();
                assert_eq!(
                    matches_linear(&pat(p), &n),
                    matches(&pat(p), &n),
                    "{p} {n:?}"
                );
            }
        }
        // No blow-up on what takes the recursive matcher exponential time.
        let long: Vec<char> = "a".repeat(5000).chars().collect();
        assert!(!matches_linear(&pat("*a*a*a*a*a*a*a*b"), &long));
    }

    #[test]
    fn wildcard_matching() {
        let m = |p: &str, n: &str| matches(&pat(p), &n.chars().collect::<Vec<_>>());
        assert!(m("*.rs", "main.rs"));
        assert!(!m("*.rs", "main.rsx"));
        assert!(m("a?c", "abc"));
        assert!(m("[a-c]x", "bx"));
        assert!(!m("[!a-c]x", "bx"));
        assert!(m("[]]", "]"));
        assert!(m("*", ""));
        assert!(m("[", "["));
    }
}
