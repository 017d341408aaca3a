//! The stored form of a record: a compact binary encoding (little-endian integers,
//! length-prefixed strings and lists, fields in declaration order). A warm start decodes
//! every record of the workspace, so this is several times smaller and faster to read than
//! JSON. Decoding checks every length and returns `None` for anything malformed.

use crate::lang::Lang;
use crate::model::{
    Class, Complexity, DefKind, Definition, FileIndex, Function, Import, Method, Names,
    Occurrences, Property, SyntaxError, Todo,
};
use crate::store::Stored;

/// Encode a stored record: its disk stamp (`len`, `changed_ns`) and the record.
pub(crate) fn encode_parts(len: u64, changed_ns: u128, r: &FileIndex) -> Vec<u8> {
    let mut w = Vec::with_capacity(256 + r.occurrences.heap_bytes() + r.names.heap_bytes());
    encode_into(&mut w, len, changed_ns, r);
    w
}

/// [`encode_parts`] into `w` (cleared first): a save reuses one buffer for all its records
/// rather than growing a new one for each.
pub(crate) fn encode_into(w: &mut Vec<u8>, len: u64, changed_ns: u128, r: &FileIndex) {
    w.clear();
    len.enc(w);
    changed_ns.enc(w);
    r.enc(w);
}

/// Decode what [`encode_parts`] wrote; `None` if it is malformed or has bytes left over.
pub(crate) fn decode(bytes: &[u8]) -> Option<Stored> {
    decode_as(bytes, true)
}

/// [`decode`] without the record's functions and classes, which are skipped unread (the
/// record says [`FileIndex::details_stored`]): what loading a whole store needs.
pub(crate) fn decode_slim(bytes: &[u8]) -> Option<Stored> {
    decode_as(bytes, false)
}

fn decode_as(bytes: &[u8], details: bool) -> Option<Stored> {
    let mut r = Reader { b: bytes, at: 0 };
    let s = Stored {
        len: u64::dec(&mut r)?,
        changed_ns: u128::dec(&mut r)?,
        record: file_index(&mut r, details)?,
    };
    (r.at == bytes.len()).then_some(s)
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    fn left(&self) -> usize {
        self.b.len() - self.at
    }
}

trait Enc {
    fn enc(&self, w: &mut Vec<u8>);
}

trait Dec: Sized {
    fn dec(r: &mut Reader<'_>) -> Option<Self>;
}

macro_rules! int {
    ($($t:ty),*) => {$(
        impl Enc for $t {
            fn enc(&self, w: &mut Vec<u8>) {
                w.extend_from_slice(&self.to_le_bytes());
            }
        }
        impl Dec for $t {
            fn dec(r: &mut Reader<'_>) -> Option<Self> {
                let b = r.take(std::mem::size_of::<$t>())?;
                Some(<$t>::from_le_bytes(b.try_into().ok()?))
            }
        }
    )*};
}
int!(u32, u64, u128, f64);

impl Enc for bool {
    fn enc(&self, w: &mut Vec<u8>) {
        w.push(u8::from(*self));
    }
}

impl Dec for bool {
    fn dec(r: &mut Reader<'_>) -> Option<Self> {
        match r.take(1)?[0] {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}

impl Enc for String {
    fn enc(&self, w: &mut Vec<u8>) {
        (self.len() as u32).enc(w);
        w.extend_from_slice(self.as_bytes());
    }
}

impl Dec for String {
    fn dec(r: &mut Reader<'_>) -> Option<Self> {
        let n = u32::dec(r)? as usize;
        Some(std::str::from_utf8(r.take(n)?).ok()?.to_owned())
    }
}

impl<T: Enc> Enc for Option<T> {
    fn enc(&self, w: &mut Vec<u8>) {
        match self {
            None => w.push(0),
            Some(v) => {
                w.push(1);
                v.enc(w);
            }
        }
    }
}

impl<T: Dec> Dec for Option<T> {
    fn dec(r: &mut Reader<'_>) -> Option<Self> {
        match r.take(1)?[0] {
            0 => Some(None),
            1 => Some(Some(T::dec(r)?)),
            _ => None,
        }
    }
}

impl<T: Enc> Enc for Vec<T> {
    fn enc(&self, w: &mut Vec<u8>) {
        (self.len() as u32).enc(w);
        for v in self {
            v.enc(w);
        }
    }
}

impl<T: Dec> Dec for Vec<T> {
    fn dec(r: &mut Reader<'_>) -> Option<Self> {
        let n = u32::dec(r)? as usize;
        // Every element takes at least a byte: a bad count cannot reserve much.
        let mut v = Vec::with_capacity(n.min(r.left()));
        for _ in 0..n {
            v.push(T::dec(r)?);
        }
        Some(v)
    }
}

impl Enc for Lang {
    fn enc(&self, w: &mut Vec<u8>) {
        w.push(Lang::ALL.iter().position(|l| l == self).unwrap_or(0) as u8);
    }
}

impl Dec for Lang {
    fn dec(r: &mut Reader<'_>) -> Option<Self> {
        Lang::ALL.get(r.take(1)?[0] as usize).copied()
    }
}

const KINDS: [DefKind; 11] = [
    DefKind::Function,
    DefKind::Method,
    DefKind::Class,
    DefKind::Struct,
    DefKind::Interface,
    DefKind::Trait,
    DefKind::Enum,
    DefKind::Type,
    DefKind::Variable,
    DefKind::Const,
    DefKind::Module,
];

impl Enc for DefKind {
    fn enc(&self, w: &mut Vec<u8>) {
        w.push(KINDS.iter().position(|k| k == self).unwrap_or(0) as u8);
    }
}

impl Dec for DefKind {
    fn dec(r: &mut Reader<'_>) -> Option<Self> {
        KINDS.get(r.take(1)?[0] as usize).copied()
    }
}

/// Names as their count, their text run together, and where each ends.
impl Enc for Names {
    fn enc(&self, w: &mut Vec<u8>) {
        (self.len() as u32).enc(w);
        let mut text = String::new();
        let mut ends = Vec::with_capacity(self.len());
        for n in self.iter() {
            text.push_str(n);
            ends.push(text.len() as u32);
        }
        text.enc(w);
        for e in ends {
            e.enc(w);
        }
    }
}

impl Dec for Names {
    fn dec(r: &mut Reader<'_>) -> Option<Self> {
        let n = u32::dec(r)? as usize;
        let text = String::dec(r)?;
        let mut names = Vec::with_capacity(n.min(r.left() / 4));
        let mut start = 0;
        for _ in 0..n {
            let end = u32::dec(r)? as usize;
            names.push(text.get(start..end)?);
            start = end;
        }
        (start == text.len()).then(|| names.into_iter().collect())
    }
}

/// Occurrences are most of a record: stored packed as they are held (see [`Occurrences`]).
impl Enc for Occurrences {
    fn enc(&self, w: &mut Vec<u8>) {
        (self.len() as u32).enc(w);
        (self.as_bytes().len() as u32).enc(w);
        w.extend_from_slice(self.as_bytes());
    }
}

impl Dec for Occurrences {
    fn dec(r: &mut Reader<'_>) -> Option<Self> {
        let len = u32::dec(r)?;
        let n = u32::dec(r)? as usize;
        // Name indexes are checked where they are used (`Names::get`).
        Occurrences::from_bytes(r.take(n)?.to_vec(), len)
    }
}

/// A record as its fields in order (whether its details were dropped is not stored: a
/// stored record has them all).
impl Enc for FileIndex {
    fn enc(&self, w: &mut Vec<u8>) {
        let FileIndex {
            path,
            lang,
            hash,
            lines,
            bytes,
            functions,
            classes,
            definitions,
            imports,
            names,
            occurrences,
            complexity,
            todos,
            errors,
            outline,
            details_stored: _,
        } = self;
        path.enc(w);
        lang.enc(w);
        hash.enc(w);
        lines.enc(w);
        bytes.enc(w);
        // The details behind their length, so that a load can skip them.
        let mut details = Vec::new();
        functions.enc(&mut details);
        classes.enc(&mut details);
        (details.len() as u32).enc(w);
        w.extend_from_slice(&details);
        definitions.enc(w);
        imports.enc(w);
        names.enc(w);
        occurrences.enc(w);
        complexity.enc(w);
        todos.enc(w);
        errors.enc(w);
        outline.enc(w);
    }
}

/// A record; with `details` false its functions and classes are skipped.
fn file_index(r: &mut Reader<'_>, details: bool) -> Option<FileIndex> {
    let (path, lang, hash, lines, bytes) = (
        Dec::dec(r)?,
        Dec::dec(r)?,
        Dec::dec(r)?,
        Dec::dec(r)?,
        Dec::dec(r)?,
    );
    let n = u32::dec(r)? as usize;
    let blob = r.take(n)?;
    let (functions, classes) = if details {
        let mut d = Reader { b: blob, at: 0 };
        let parts = (Dec::dec(&mut d)?, Dec::dec(&mut d)?);
        if d.at != blob.len() {
            return None;
        }
        parts
    } else {
        (Vec::new(), Vec::new())
    };
    Some(FileIndex {
        path,
        lang,
        hash,
        lines,
        bytes,
        functions,
        classes,
        definitions: Dec::dec(r)?,
        imports: Dec::dec(r)?,
        names: Dec::dec(r)?,
        occurrences: Dec::dec(r)?,
        complexity: Dec::dec(r)?,
        todos: Dec::dec(r)?,
        errors: Dec::dec(r)?,
        outline: Dec::dec(r)?,
        details_stored: !details,
    })
}

/// Structs as their fields in order (decoding evaluates the initialisers in that order).
macro_rules! fields {
    ($($t:ident { $($f:ident),* })*) => {$(
        impl Enc for $t {
            fn enc(&self, w: &mut Vec<u8>) {
                $(self.$f.enc(w);)*
            }
        }
        impl Dec for $t {
            fn dec(r: &mut Reader<'_>) -> Option<Self> {
                Some($t { $($f: Dec::dec(r)?,)* })
            }
        }
    )*};
}

fields! {
    Function {
        name, qualified, params, is_async, is_exported, return_type, signature, doc,
        line_start, line_end
    }
    Class {
        name, kind, methods, properties, is_abstract, extends, implements, is_exported, doc,
        line_start, line_end
    }
    Method { name, is_static, is_async, params }
    Property { name, is_static, is_readonly }
    Definition { name, kind, line, column, line_end, container }
    Import { source, line, names, resolved }
    Complexity { loc, nesting_depth, cyclomatic, score }
    Todo { line, kind, text, context }
    SyntaxError { line, column, end_line, end_column, message }
}

#[cfg(test)]
mod tests {
    use super::{decode, decode_slim, encode_parts};
    use crate::index_file;

    #[test]
    fn round_trip_and_malformed_input() {
        let src = b"/// Doc.\npub struct S { a: u32 }\nimpl S { pub async fn m(&self, x: u32) -> u32 { x } }\n// TODO: more\nfn broken( {\n";
        let record = index_file("src/a.rs", src);
        assert!(!record.errors.is_empty() && !record.todos.is_empty());
        let bytes = encode_parts(7, 1 << 70, &record);
        let back = decode(&bytes).expect("decodes");
        assert_eq!(back.record, record);
        assert_eq!(back.record.occurrences, record.occurrences);
        assert_eq!(back.record.names, record.names);
        assert_eq!((back.len, back.changed_ns), (7, 1 << 70));
        let slim = decode_slim(&bytes).expect("decodes");
        let mut want = record.clone();
        want.drop_details();
        assert_eq!(slim.record, want);
        assert!(slim.record.details_stored && !record.functions.is_empty());
        // Every truncation, a trailing byte and flipped bytes are refused or decode to
        // something, never panic.
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n]).is_none(), "truncated at {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).is_none());
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            let _ = decode(&b);
        }
    }
}
