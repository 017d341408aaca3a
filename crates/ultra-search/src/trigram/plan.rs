//! Planning a query: the trigrams every match of a literal or a regular expression must
//! contain, as ANDs and ORs ([`Query`]).

use regex_syntax::hir::{Class, Hir, HirKind};

use super::{Gram, grams};

/// Most strings a planned sub-pattern's exact set may hold before it becomes a query.
const MAX_EXACT: usize = 64;
/// Most characters a class may hold and still count as a choice of literals.
const MAX_CLASS: usize = 8;

/// What a match must contain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// Any file may match (no trigram is required).
    All,
    /// No file can match.
    Nothing,
    /// Every one of these trigrams.
    Grams(Vec<Gram>),
    And(Vec<Query>),
    Or(Vec<Query>),
}

impl Query {
    /// A match contains `lit` (ASCII case aside).
    pub fn literal(lit: &[u8]) -> Query {
        if lit.len() < 3 {
            Query::All
        } else {
            Query::Grams(grams(lit))
        }
    }

    /// What every match of the regular expression `pattern` contains; `None` when it does
    /// not parse (the caller's regex engine reports why).
    pub fn regex(pattern: &str, case_insensitive: bool) -> Option<Query> {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(case_insensitive)
            .utf8(false)
            .build()
            .parse(pattern)
            .ok()?;
        Some(plan(&hir).full())
    }

    /// This query over an index that holds only the trigrams `kept` says yes to: the others
    /// are taken as present (for files indexed that way, as binary files are).
    pub fn keeping(&self, kept: impl Fn(Gram) -> bool + Copy) -> Query {
        match self {
            Query::All => Query::All,
            Query::Nothing => Query::Nothing,
            Query::Grams(gs) => {
                let gs: Vec<Gram> = gs.iter().copied().filter(|g| kept(*g)).collect();
                if gs.is_empty() {
                    Query::All
                } else {
                    Query::Grams(gs)
                }
            }
            Query::And(parts) => Query::and(parts.iter().map(|p| p.keeping(kept)).collect()),
            Query::Or(parts) => Query::or(parts.iter().map(|p| p.keeping(kept)).collect()),
        }
    }

    /// A match of any of `queries`.
    pub fn any_of(queries: Vec<Query>) -> Query {
        Query::or(queries)
    }

    fn and(parts: Vec<Query>) -> Query {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Query::All => {}
                Query::Nothing => return Query::Nothing,
                Query::And(inner) => out.extend(inner),
                p => out.push(p),
            }
        }
        match out.len() {
            0 => Query::All,
            1 => out.pop().unwrap_or(Query::All),
            _ => Query::And(out),
        }
    }

    fn or(parts: Vec<Query>) -> Query {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Query::All => return Query::All,
                Query::Nothing => {}
                Query::Or(inner) => out.extend(inner),
                p => out.push(p),
            }
        }
        match out.len() {
            0 => Query::Nothing,
            1 => out.pop().unwrap_or(Query::Nothing),
            _ => Query::Or(out),
        }
    }
}

/// What a sub-pattern is known to match: the exact strings it matches when they are few,
/// and a query every match satisfies.
struct Info {
    exact: Option<Vec<Vec<u8>>>,
    query: Query,
}

impl Info {
    fn exact(strings: Vec<Vec<u8>>) -> Info {
        Info {
            exact: Some(strings),
            query: Query::All,
        }
    }

    fn any() -> Info {
        Info {
            exact: None,
            query: Query::All,
        }
    }

    /// Everything known, as one query.
    fn full(self) -> Query {
        match self.exact {
            Some(strings) => Query::and(vec![self.query, exact_query(&strings)]),
            None => self.query,
        }
    }
}

/// A match is one of `strings`.
fn exact_query(strings: &[Vec<u8>]) -> Query {
    Query::or(strings.iter().map(|s| Query::literal(s)).collect())
}

fn plan(h: &Hir) -> Info {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => Info::exact(vec![Vec::new()]),
        HirKind::Literal(lit) => Info::exact(vec![lit.0.to_vec()]),
        HirKind::Class(class) => match class_strings(class) {
            Some(strings) if strings.is_empty() => Info {
                exact: None,
                query: Query::Nothing,
            },
            Some(strings) => Info::exact(strings),
            None => Info::any(),
        },
        HirKind::Capture(c) => plan(&c.sub),
        HirKind::Repetition(r) => {
            if r.min == 0 {
                return Info::any();
            }
            let sub = plan(&r.sub);
            if r.min == 1 && r.max == Some(1) {
                return sub;
            }
            // At least one copy of the sub-pattern is in every match.
            Info {
                exact: None,
                query: sub.full(),
            }
        }
        HirKind::Concat(parts) => {
            let mut queries = Vec::new();
            let mut exact: Option<Vec<Vec<u8>>> = Some(vec![Vec::new()]);
            for part in parts {
                let info = plan(part);
                queries.push(info.query);
                exact = match (exact, info.exact) {
                    (Some(left), Some(right)) if left.len() * right.len() <= MAX_EXACT => {
                        Some(cross(&left, &right))
                    }
                    (left, right) => {
                        // The set grew too big or is unknown: what it knew becomes a query.
                        if let Some(left) = left {
                            queries.push(exact_query(&left));
                        }
                        right
                    }
                };
            }
            Info {
                exact,
                query: Query::and(queries),
            }
        }
        HirKind::Alternation(alts) => {
            let infos: Vec<Info> = alts.iter().map(plan).collect();
            let total: Option<usize> = infos.iter().map(|i| i.exact.as_ref().map(Vec::len)).sum();
            let all_plain = infos.iter().all(|i| i.query == Query::All);
            if total.is_some_and(|n| n <= MAX_EXACT) && all_plain {
                let strings = infos.into_iter().flat_map(|i| i.exact.unwrap_or_default());
                return Info::exact(strings.collect());
            }
            Info {
                exact: None,
                query: Query::or(infos.into_iter().map(Info::full).collect()),
            }
        }
    }
}

/// Every string of `left` followed by every string of `right`.
fn cross(left: &[Vec<u8>], right: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = Vec::with_capacity(left.len() * right.len());
    for l in left {
        for r in right {
            let mut s = l.clone();
            s.extend_from_slice(r);
            out.push(s);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The strings a class matches, folded to ASCII lowercase, when they are few.
fn class_strings(class: &Class) -> Option<Vec<Vec<u8>>> {
    // Its ranges as code points (Unicode classes) or bytes, and how one is written.
    let (ranges, unicode): (Vec<(u32, u32)>, bool) = match class {
        Class::Unicode(c) => (
            c.ranges()
                .iter()
                .map(|r| (r.start().into(), r.end().into()))
                .collect(),
            true,
        ),
        Class::Bytes(c) => (
            c.ranges()
                .iter()
                .map(|r| (r.start().into(), r.end().into()))
                .collect(),
            false,
        ),
    };
    let count: u64 = ranges.iter().map(|&(a, b)| u64::from(b - a) + 1).sum();
    if count > MAX_CLASS as u64 * 2 {
        return None;
    }
    let mut out: Vec<Vec<u8>> = Vec::new();
    for v in ranges.into_iter().flat_map(|(a, b)| a..=b) {
        out.push(match char::from_u32(v).filter(|_| unicode) {
            Some(ch) => ch.to_ascii_lowercase().to_string().into_bytes(),
            None => vec![(v as u8).to_ascii_lowercase()],
        });
    }
    out.sort();
    out.dedup();
    (out.len() <= MAX_CLASS).then_some(out)
}
