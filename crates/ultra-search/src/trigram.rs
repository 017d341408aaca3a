//! A trigram index of text files, as code-search engines keep one (Russ Cox, "Regular
//! Expression Matching with a Trigram Index"; zoekt, livegrep): for every three-byte
//! sequence, the files that hold it. A query is planned into the trigrams every match must
//! contain (ANDs and ORs of them, [`Query`]); only the files that hold them are candidates,
//! and a caller searches those alone. A candidate is not a match: it is always verified.
//!
//! Trigrams are taken of ASCII-lowercased text, so one index serves case-sensitive and
//! case-insensitive queries alike (fewer distinct trigrams, and a case-insensitive literal
//! needs no expansion).
//!
//! A file's new version gets a fresh id and its old id is marked dead, so no other file's
//! postings are touched: ids only grow, and a posting list stays sorted by appending. Dead
//! ids are dropped from the postings once they are a quarter of all ids.

use std::collections::HashMap;

use regex_syntax::hir::{Class, Hir, HirKind};

/// Three bytes, folded to ASCII lowercase, as `a << 16 | b << 8 | c`.
pub type Gram = u32;

/// Most strings a planned sub-pattern's exact set may hold before it becomes a query.
const MAX_EXACT: usize = 64;
/// Most characters a class may hold and still count as a choice of literals.
const MAX_CLASS: usize = 8;

fn gram(w: &[u8]) -> Gram {
    u32::from(w[0].to_ascii_lowercase()) << 16
        | u32::from(w[1].to_ascii_lowercase()) << 8
        | u32::from(w[2].to_ascii_lowercase())
}

thread_local! {
    /// One bit per possible trigram, all clear between calls: [`grams`] dedups in one pass
    /// with it (sorting every window of a file cost several times more).
    static SEEN: std::cell::RefCell<Vec<u64>> = std::cell::RefCell::new(vec![0; 1 << 18]);
}

/// The distinct trigrams of `text`, folded, sorted.
pub fn grams(text: &[u8]) -> Vec<Gram> {
    let mut out: Vec<Gram> = Vec::new();
    SEEN.with(|seen| {
        let seen = &mut *seen.borrow_mut();
        for w in text.windows(3) {
            let g = gram(w);
            let (word, bit) = ((g >> 6) as usize, 1u64 << (g & 63));
            if seen[word] & bit == 0 {
                seen[word] |= bit;
                out.push(g);
            }
        }
        for &g in &out {
            seen[(g >> 6) as usize] = 0;
        }
    });
    out.sort_unstable();
    out
}

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

/// Files by the trigrams they hold.
///
/// Postings live in two parts: a frozen base (every list in one buffer, found by binary
/// search: no hash table, no allocation per list, no growth slack; two fifths of the
/// memory a table of growable lists took on a 188 MB tree) and the lists appended since.
/// Ids only grow, so a trigram's ids are its base list followed by its appended list.
#[derive(Debug, Default)]
pub struct TrigramIndex {
    /// Per id, its file's path, or `None` once the file was replaced or removed.
    docs: Vec<Option<Box<str>>>,
    ids: HashMap<Box<str>, u32>,
    base: Frozen,
    /// Appended since the base was frozen (foldhash: with the standard SipHash, hashing was
    /// two fifths of a build).
    recent: foldhash::HashMap<Gram, Postings>,
    /// Ids in `recent`'s lists: past the base's, they are frozen in.
    recent_len: usize,
    dead: usize,
}

/// Posting lists frozen into one buffer.
#[derive(Debug, Default)]
struct Frozen {
    /// Sorted.
    grams: Vec<Gram>,
    /// Per gram, where its list starts in `bytes` (and one more entry: the end).
    starts: Vec<u32>,
    /// Per gram, how many ids its list holds.
    lens: Vec<u32>,
    /// Each list encoded as [`Postings`] encodes it.
    bytes: Vec<u8>,
}

impl Frozen {
    fn get(&self, g: Gram) -> Option<(&[u8], u32)> {
        let i = self.grams.binary_search(&g).ok()?;
        let (a, b) = (self.starts[i] as usize, self.starts[i + 1] as usize);
        Some((&self.bytes[a..b], self.lens[i]))
    }

    fn len(&self) -> usize {
        self.lens.iter().map(|&l| l as usize).sum()
    }
}

/// One trigram's ids: its frozen part, then its recent one.
struct List<'a> {
    base: &'a [u8],
    recent: Option<&'a Postings>,
    len: u32,
}

impl List<'_> {
    fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        decode(self.base).chain(self.recent.into_iter().flat_map(|p| decode(&p.bytes)))
    }
}

impl TrigramIndex {
    /// An empty index.
    pub fn new() -> TrigramIndex {
        TrigramIndex::default()
    }

    /// Files indexed.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// No file is indexed.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Distinct trigrams, postings (file ids, dead ones included) over all of them, and
    /// the bytes they take encoded.
    pub fn stats(&self) -> (usize, usize, usize) {
        let recent_new = self
            .recent
            .keys()
            .filter(|g| self.base.grams.binary_search(g).is_err())
            .count();
        (
            self.base.grams.len() + recent_new,
            self.base.len() + self.recent_len,
            self.base.bytes.len() + self.recent.values().map(|p| p.bytes.len()).sum::<usize>(),
        )
    }

    /// Index `text` as the content of `path`, replacing what it had.
    pub fn upsert(&mut self, path: &str, text: &[u8]) {
        self.upsert_grams(path, &grams(text));
    }

    /// [`TrigramIndex::upsert`] of a text whose [`grams`] are `grams` (computed beforehand,
    /// outside whatever lock guards the index).
    pub fn upsert_grams(&mut self, path: &str, grams: &[Gram]) {
        self.remove(path);
        let id = self.docs.len() as u32;
        self.docs.push(Some(path.into()));
        self.ids.insert(path.into(), id);
        for &g in grams {
            self.recent.entry(g).or_default().push(id);
        }
        self.recent_len += grams.len();
        // Past the base's size (a rebuild costs about the base: doubling keeps the total
        // cost of a build of many files to about twice its postings).
        if self.recent_len > self.base.len().max(1 << 20) {
            self.freeze();
        }
    }

    /// Forget `path`.
    pub fn remove(&mut self, path: &str) {
        if let Some(id) = self.ids.remove(path) {
            self.docs[id as usize] = None;
            self.dead += 1;
            if self.dead * 4 > self.docs.len() {
                self.compact();
            }
        }
    }

    /// Move the recent lists into the frozen base (after a bulk build, so that the index
    /// takes no more memory than its postings).
    pub fn freeze(&mut self) {
        self.rebuild(Some);
    }

    /// Drop dead ids: live ones are renumbered in order, so postings stay sorted.
    fn compact(&mut self) {
        let mut new_id = vec![u32::MAX; self.docs.len()];
        let mut docs = Vec::with_capacity(self.ids.len());
        for (old, doc) in std::mem::take(&mut self.docs).into_iter().enumerate() {
            if let Some(path) = doc {
                new_id[old] = docs.len() as u32;
                docs.push(Some(path));
            }
        }
        for id in self.ids.values_mut() {
            *id = new_id[*id as usize];
        }
        self.docs = docs;
        self.dead = 0;
        self.rebuild(|id| Some(new_id[id as usize]).filter(|&n| n != u32::MAX));
    }

    /// A new frozen base of every list, each id mapped by `map` (`None`: dropped; the
    /// order must be kept), and no recent lists.
    fn rebuild(&mut self, map: impl Fn(u32) -> Option<u32>) {
        let mut grams: Vec<Gram> = self.base.grams.clone();
        grams.extend(self.recent.keys().copied());
        grams.sort_unstable();
        grams.dedup();
        let mut out = Frozen {
            grams: Vec::with_capacity(grams.len()),
            starts: Vec::with_capacity(grams.len() + 1),
            lens: Vec::with_capacity(grams.len()),
            bytes: Vec::with_capacity(self.base.bytes.len() + self.recent_len),
        };
        for g in grams {
            let Some(list) = self.list(g) else { continue };
            let start = out.bytes.len();
            let mut p = Postings {
                bytes: std::mem::take(&mut out.bytes),
                last: 0,
                len: 0,
            };
            for id in list.ids().filter_map(&map) {
                p.push(id);
            }
            out.bytes = p.bytes;
            if p.len > 0 {
                out.grams.push(g);
                out.starts.push(start as u32);
                out.lens.push(p.len);
            }
        }
        out.starts.push(out.bytes.len() as u32);
        out.bytes.shrink_to_fit();
        self.base = out;
        self.recent = foldhash::HashMap::default();
        self.recent_len = 0;
    }

    fn list(&self, g: Gram) -> Option<List<'_>> {
        let (base, base_len) = self.base.get(g).unwrap_or((&[], 0));
        let recent = self.recent.get(&g);
        let len = base_len + recent.map_or(0, |p| p.len);
        (len > 0).then_some(List { base, recent, len })
    }

    /// The files a match of `q` may be in, sorted by path; `None` when the query requires
    /// no trigram (every file is a candidate).
    pub fn candidates(&self, q: &Query) -> Option<Vec<&str>> {
        let ids = self.eval(q)?;
        let mut paths: Vec<&str> = ids
            .into_iter()
            .filter_map(|id| self.docs[id as usize].as_deref())
            .collect();
        paths.sort_unstable();
        Some(paths)
    }

    /// The ids (live or dead) that satisfy `q`, sorted; `None` for every id.
    fn eval(&self, q: &Query) -> Option<Vec<u32>> {
        match q {
            Query::All => None,
            Query::Nothing => Some(Vec::new()),
            Query::Grams(gs) => {
                let mut lists: Vec<List<'_>> = Vec::with_capacity(gs.len());
                for &g in gs {
                    match self.list(g) {
                        Some(list) => lists.push(list),
                        None => return Some(Vec::new()),
                    }
                }
                lists.sort_by_key(|l| l.len);
                let mut out: Vec<u32> =
                    lists.first().map(|l| l.ids().collect()).unwrap_or_default();
                for l in &lists[1..] {
                    if out.is_empty() {
                        break;
                    }
                    out = intersect_list(&out, l);
                }
                Some(out)
            }
            Query::And(parts) => {
                let mut out: Option<Vec<u32>> = None;
                for p in parts {
                    if let Some(ids) = self.eval(p) {
                        out = Some(match out {
                            Some(o) => intersect(&o, &ids),
                            None => ids,
                        });
                    }
                }
                out
            }
            Query::Or(parts) => {
                let mut out = Vec::new();
                for p in parts {
                    out = union(&out, &self.eval(p)?);
                }
                Some(out)
            }
        }
    }
}

/// The ids of `a` (sorted) that `list` holds, decoding the list as it goes (no vector of it).
fn intersect_list(a: &[u32], list: &List<'_>) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len());
    let mut ids = list.ids().peekable();
    for &x in a {
        while ids.next_if(|&y| y < x).is_some() {}
        match ids.peek() {
            Some(&y) if y == x => out.push(x),
            Some(_) => {}
            None => break,
        }
    }
    out
}

/// One trigram's file ids, ascending, as LEB128 varints of their differences (about a
/// quarter of the size of `u32`s on a real tree).
#[derive(Debug, Default)]
struct Postings {
    bytes: Vec<u8>,
    last: u32,
    len: u32,
}

impl Postings {
    /// Append `id`, greater than every id already in.
    fn push(&mut self, id: u32) {
        let mut d = if self.len == 0 { id } else { id - self.last };
        while d >= 0x80 {
            self.bytes.push((d as u8) | 0x80);
            d >>= 7;
        }
        self.bytes.push(d as u8);
        self.last = id;
        self.len += 1;
    }

    #[cfg(test)]
    fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        decode(&self.bytes)
    }
}

/// The ids a [`Postings`] encoding holds.
fn decode(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    let mut at = 0;
    let mut id = 0u32;
    std::iter::from_fn(move || {
        let mut d = 0u32;
        let mut shift = 0;
        loop {
            let b = *bytes.get(at)?;
            at += 1;
            d |= u32::from(b & 0x7f) << shift;
            if b < 0x80 {
                break;
            }
            shift += 7;
        }
        id = id.wrapping_add(d);
        Some(id)
    })
}

fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len().min(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x <= y => {
                i += 1;
                if x == y {
                    j += 1;
                }
                x
            }
            (_, Some(&y)) => {
                j += 1;
                y
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (None, None) => break,
        };
        out.push(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Texts over a small alphabet, so that trigrams repeat and queries hit.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("a"),
                Just("b"),
                Just("A"),
                Just("B"),
                Just("é"),
                Just("É"),
                Just("\n"),
                Just("ab"),
                Just("ba")
            ],
            0..40,
        )
        .prop_map(|v| v.concat())
    }

    /// Regular expressions over the same alphabet.
    fn pattern() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("a".to_string()),
            Just("b".to_string()),
            Just("A".to_string()),
            Just("é".to_string()),
            Just("ab".to_string()),
            Just("aba".to_string()),
            Just("bab".to_string()),
            Just("[ab]".to_string()),
            Just("[aé]".to_string()),
            Just("[^a]".to_string()),
            Just(".".to_string()),
            Just("\\w".to_string()),
            Just("^".to_string()),
            Just("$".to_string()),
            Just("\\b".to_string()),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 1..5).prop_map(|v| v.concat()),
                proptest::collection::vec(inner.clone(), 2..4)
                    .prop_map(|v| format!("(?:{})", v.join("|"))),
                (
                    inner.clone(),
                    prop_oneof![Just("*"), Just("+"), Just("?"), Just("{2}"), Just("{1,3}")]
                )
                    .prop_map(|(p, r)| format!("(?:{p}){r}")),
                inner.prop_map(|p| format!("({p})")),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Every file a regex matches is a candidate, case-sensitive or not, after any
        /// sequence of writes and removals.
        #[test]
        fn candidates_never_miss_a_match(
            writes in proptest::collection::vec(
                (0..6usize, proptest::option::weighted(0.8, text()), proptest::bool::weighted(0.2)),
                1..30,
            ),
            pat in pattern(),
            ci in any::<bool>(),
        ) {
            let mut idx = TrigramIndex::new();
            let mut model: BTreeMap<String, String> = BTreeMap::new();
            for (f, w, freeze) in writes {
                if freeze {
                    idx.freeze();
                }
                let path = format!("f{f}");
                match w {
                    Some(t) => {
                        idx.upsert(&path, t.as_bytes());
                        model.insert(path, t);
                    }
                    None => {
                        idx.remove(&path);
                        model.remove(&path);
                    }
                }
            }
            prop_assert_eq!(idx.len(), model.len());
            let re = regex::bytes::RegexBuilder::new(&pat).case_insensitive(ci).build().unwrap();
            let q = Query::regex(&pat, ci).unwrap();
            let cands = idx.candidates(&q);
            for (path, t) in &model {
                if re.is_match(t.as_bytes()) {
                    prop_assert!(
                        cands.as_ref().is_none_or(|c| c.contains(&path.as_str())),
                        "{} matches {:?} but {:?} left it out ({:?})", pat, t, q, cands
                    );
                }
            }
            // Removed files are never candidates.
            for c in cands.unwrap_or_default() {
                prop_assert!(model.contains_key(c));
            }
        }

        /// A literal's candidates are exactly the files holding all its trigrams.
        #[test]
        fn a_literal_selects_the_files_with_all_its_trigrams(
            texts in proptest::collection::vec(text(), 1..12),
            lit in text(),
        ) {
            let mut idx = TrigramIndex::new();
            for (i, t) in texts.iter().enumerate() {
                idx.upsert(&format!("f{i:02}"), t.as_bytes());
            }
            let want = grams(lit.as_bytes());
            let cands = idx.candidates(&Query::literal(lit.as_bytes()));
            if lit.len() < 3 {
                prop_assert!(cands.is_none());
            } else {
                let expected: Vec<String> = texts
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| {
                        let have = grams(t.as_bytes());
                        want.iter().all(|g| have.binary_search(g).is_ok())
                    })
                    .map(|(i, _)| format!("f{i:02}"))
                    .collect();
                prop_assert_eq!(cands.unwrap(), expected);
            }
        }
    }

    #[test]
    fn postings_read_back_what_was_pushed() {
        let ids = [0, 1, 127, 128, 300, 16_384, 70_000, 2_097_152, u32::MAX - 1];
        let mut p = Postings::default();
        for id in ids {
            p.push(id);
        }
        assert_eq!(p.ids().collect::<Vec<_>>(), ids);
        assert_eq!(p.len as usize, ids.len());
    }

    #[test]
    fn a_regex_with_a_required_literal_narrows_the_files() {
        let mut idx = TrigramIndex::new();
        idx.upsert("a.rs", b"fn spawn_blocking() {}");
        idx.upsert("b.rs", b"fn other() {}");
        idx.upsert("c.rs", b"let x = SPAWN;");
        let q = Query::regex(r"spawn_\w+\(", false).unwrap();
        assert_eq!(idx.candidates(&q), Some(vec!["a.rs"]));
        // Case-insensitive: the folded trigrams find both.
        let q = Query::regex("spawn", true).unwrap();
        assert_eq!(idx.candidates(&q), Some(vec!["a.rs", "c.rs"]));
        // An alternation: either side.
        let q = Query::regex("other|spawn_b", false).unwrap();
        assert_eq!(idx.candidates(&q), Some(vec!["a.rs", "b.rs"]));
        // Nothing required: every file.
        assert_eq!(idx.candidates(&Query::regex(r"\w+", false).unwrap()), None);
        // Replacing and removing.
        idx.upsert("b.rs", b"spawn_blocking again");
        idx.remove("a.rs");
        let q = Query::regex(r"spawn_\w+", false).unwrap();
        assert_eq!(idx.candidates(&q), Some(vec!["b.rs"]));
    }
}
