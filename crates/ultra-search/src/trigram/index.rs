//! The index proper: file ids by trigram, in a frozen base and recent lists.

use std::borrow::Cow;
use std::collections::HashMap;
use std::os::unix::fs::FileExt;

use super::postings::{Postings, decode};
use super::{Gram, Query, grams};

/// Files by the trigrams they hold.
///
/// Postings live in two parts: a frozen base (every list in one buffer, found by binary
/// search: no hash table, no allocation per list, no growth slack; two fifths of the
/// memory a table of growable lists took on a 188 MB tree) and the lists appended since.
/// Ids only grow, so a trigram's ids are its base list followed by its appended list.
#[derive(Debug, Default)]
pub struct TrigramIndex {
    /// Per id, its file's path, or `None` once the file was replaced or removed.
    pub(super) docs: Vec<Option<Box<str>>>,
    ids: HashMap<Box<str>, u32>,
    pub(super) base: Frozen,
    /// Appended since the base was frozen (foldhash: with the standard SipHash, hashing was
    /// two fifths of a build).
    recent: foldhash::HashMap<Gram, Postings>,
    /// Ids in `recent`'s lists: past the base's, they are frozen in.
    recent_len: usize,
    dead: usize,
    /// The saved lists could not be read back: everything was dropped (see
    /// [`TrigramIndex::lost`]).
    lost: bool,
}

/// Posting lists frozen into one buffer.
#[derive(Debug, Default)]
pub(super) struct Frozen {
    /// Sorted.
    pub(super) grams: Vec<Gram>,
    /// Per gram, where its list starts in the blob (and one more entry: the end).
    pub(super) starts: Vec<u32>,
    /// Per gram, how many ids its list holds.
    pub(super) lens: Vec<u32>,
    /// The sum of `lens`.
    pub(super) total: usize,
    pub(super) blob: Blob,
}

/// Where the frozen lists are (each encoded as [`Postings`] encodes it, one after another).
#[derive(Debug)]
pub(super) enum Blob {
    Memory(Vec<u8>),
    /// In the file the index was saved to, from `at`, `len` bytes: a query reads the lists
    /// it needs, so only the index's directory of lists stays in memory.
    File {
        file: std::fs::File,
        at: u64,
        len: usize,
    },
}

impl Default for Blob {
    fn default() -> Blob {
        Blob::Memory(Vec::new())
    }
}

impl Blob {
    pub(super) fn len(&self) -> usize {
        match self {
            Blob::Memory(b) => b.len(),
            Blob::File { len, .. } => *len,
        }
    }

    /// Bytes `a..b`.
    pub(super) fn read(&self, a: usize, b: usize) -> std::io::Result<Cow<'_, [u8]>> {
        match self {
            Blob::Memory(bytes) => Ok(Cow::Borrowed(&bytes[a..b])),
            Blob::File { file, at, .. } => {
                let mut out = vec![0; b - a];
                file.read_exact_at(&mut out, at + a as u64)?;
                Ok(Cow::Owned(out))
            }
        }
    }
}

impl Frozen {
    fn get(&self, g: Gram) -> std::io::Result<Option<(Cow<'_, [u8]>, u32)>> {
        let Ok(i) = self.grams.binary_search(&g) else {
            return Ok(None);
        };
        let (a, b) = (self.starts[i] as usize, self.starts[i + 1] as usize);
        Ok(Some((self.blob.read(a, b)?, self.lens[i])))
    }
}

/// One trigram's ids: its frozen part, then its recent one.
struct List<'a> {
    base: Cow<'a, [u8]>,
    recent: Option<&'a Postings>,
    len: u32,
}

impl List<'_> {
    fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        decode(&self.base).chain(self.recent.into_iter().flat_map(|p| decode(&p.bytes)))
    }
}

impl TrigramIndex {
    /// An empty index.
    pub fn new() -> TrigramIndex {
        TrigramIndex::default()
    }

    /// An index read back from disk (see `saved.rs`).
    pub(super) fn from_saved(
        docs: Vec<Option<Box<str>>>,
        ids: HashMap<Box<str>, u32>,
        dead: usize,
        base: Frozen,
    ) -> TrigramIndex {
        TrigramIndex {
            docs,
            ids,
            dead,
            base,
            ..TrigramIndex::default()
        }
    }

    pub(super) fn recent_is_empty(&self) -> bool {
        self.recent.is_empty()
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
            self.base.total + self.recent_len,
            self.base.blob.len() + self.recent.values().map(|p| p.bytes.len()).sum::<usize>(),
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
        if self.recent_len > self.base.total.max(1 << 20) {
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
        if !self.recent.is_empty() {
            self.rebuild(Some);
        }
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
    /// order must be kept), and no recent lists. A saved base is read back whole first;
    /// when that fails, everything is dropped and the index is [lost](TrigramIndex::lost).
    fn rebuild(&mut self, map: impl Fn(u32) -> Option<u32>) {
        if let Blob::File { .. } = self.base.blob {
            match self.base.blob.read(0, self.base.blob.len()) {
                Ok(bytes) => self.base.blob = Blob::Memory(bytes.into_owned()),
                Err(_) => {
                    *self = TrigramIndex {
                        lost: true,
                        ..TrigramIndex::default()
                    };
                    return;
                }
            }
        }
        let mut grams: Vec<Gram> = self.base.grams.clone();
        grams.extend(self.recent.keys().copied());
        grams.sort_unstable();
        grams.dedup();
        let mut out = Frozen {
            grams: Vec::with_capacity(grams.len()),
            starts: Vec::with_capacity(grams.len() + 1),
            lens: Vec::with_capacity(grams.len()),
            total: 0,
            blob: Blob::default(),
        };
        let mut bytes = Vec::with_capacity(self.base.blob.len() + self.recent_len);
        for g in grams {
            // In memory now: reading cannot fail.
            let Ok(Some(list)) = self.list(g) else {
                continue;
            };
            let start = bytes.len();
            let mut p = Postings {
                bytes: std::mem::take(&mut bytes),
                last: 0,
                len: 0,
            };
            for id in list.ids().filter_map(&map) {
                p.push(id);
            }
            bytes = p.bytes;
            if p.len > 0 {
                out.grams.push(g);
                out.starts.push(start as u32);
                out.lens.push(p.len);
                out.total += p.len as usize;
            }
        }
        out.starts.push(bytes.len() as u32);
        bytes.shrink_to_fit();
        out.blob = Blob::Memory(bytes);
        self.base = out;
        self.recent = foldhash::HashMap::default();
        self.recent_len = 0;
    }

    /// The saved lists could not be read back, and the index dropped everything: its
    /// owner must index every file again.
    pub fn lost(&self) -> bool {
        self.lost
    }

    fn list(&self, g: Gram) -> std::io::Result<Option<List<'_>>> {
        let (base, base_len) = self.base.get(g)?.unwrap_or((Cow::Borrowed(&[]), 0));
        let recent = self.recent.get(&g);
        let len = base_len + recent.map_or(0, |p| p.len);
        Ok((len > 0).then_some(List { base, recent, len }))
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
                        Ok(Some(list)) => lists.push(list),
                        Ok(None) => return Some(Vec::new()),
                        // A saved list that cannot be read: this part narrows nothing.
                        Err(_) => return None,
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
