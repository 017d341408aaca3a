//! The index on disk: written after a bulk build, read at start-up. Its lists stay in the
//! file (read a list at a time by queries); the paths and the directory of lists are
//! read into memory. All numbers little-endian:
//!
//! ```text
//! docs   u32 count, then per id: u32 length (u32::MAX: a dead id) and the path's bytes
//! grams  u32 count n, n u32 trigrams (ascending), n+1 u32 list starts, n u32 list lengths
//! blob   u64 length, then the lists
//! ```

use std::collections::HashMap;
use std::io::Write;

use super::index::{Blob, Frozen, TrigramIndex};

impl TrigramIndex {
    /// Write the index to `out` (frozen first), returning where its lists begin, relative
    /// to the first byte written (for [`TrigramIndex::attach`]).
    pub fn save(&mut self, out: &mut impl Write) -> std::io::Result<u64> {
        self.freeze();
        let n = std::cell::Cell::new(0u64);
        let put = |out: &mut dyn Write, bytes: &[u8]| -> std::io::Result<()> {
            n.set(n.get() + bytes.len() as u64);
            out.write_all(bytes)
        };
        put(out, &(self.docs.len() as u32).to_le_bytes())?;
        for doc in &self.docs {
            match doc {
                Some(path) => {
                    put(out, &(path.len() as u32).to_le_bytes())?;
                    put(out, path.as_bytes())?;
                }
                None => put(out, &u32::MAX.to_le_bytes())?,
            }
        }
        let base = &self.base;
        put(out, &(base.grams.len() as u32).to_le_bytes())?;
        // A base never frozen has no starts at all, not even the end.
        let end = [base.blob.len() as u32];
        let starts = if base.starts.is_empty() {
            &end[..]
        } else {
            &base.starts[..]
        };
        for list in [&base.grams[..], starts, &base.lens[..]] {
            for v in list {
                put(out, &v.to_le_bytes())?;
            }
        }
        put(out, &(base.blob.len() as u64).to_le_bytes())?;
        let at = n.get();
        put(out, &base.blob.read(0, base.blob.len())?)?;
        Ok(at)
    }

    /// Read the lists from now on from `file`, where [`TrigramIndex::save`] put them at
    /// `at`, instead of memory. False (nothing changed) when the index changed since.
    pub fn attach(&mut self, file: std::fs::File, at: u64) -> bool {
        match &self.base.blob {
            Blob::Memory(bytes) if self.recent_is_empty() => {
                let len = bytes.len();
                self.base.blob = Blob::File { file, at, len };
                true
            }
            _ => false,
        }
    }

    /// An index [`TrigramIndex::save`] wrote: `data` is what it wrote, found at `offset`
    /// in `file` (its lists are read from there). With the bytes it took; `None` when the
    /// data does not hold a well-formed index.
    pub fn load(data: &[u8], file: std::fs::File, offset: u64) -> Option<(TrigramIndex, usize)> {
        let mut r = Reader::new(data);
        let count = r.u32()? as usize;
        let mut docs = Vec::with_capacity(count.min(data.len() / 4));
        let mut ids = HashMap::new();
        let mut dead = 0;
        for id in 0..count {
            let len = r.u32()?;
            if len == u32::MAX {
                docs.push(None);
                dead += 1;
                continue;
            }
            let path: Box<str> = std::str::from_utf8(r.bytes(len as usize)?).ok()?.into();
            ids.insert(path.clone(), id as u32);
            docs.push(Some(path));
        }
        let n = r.u32()? as usize;
        let grams = r.u32s(n)?;
        let starts = r.u32s(n + 1)?;
        let lens = r.u32s(n)?;
        let len = usize::try_from(r.u64()?).ok()?;
        let at = r.at;
        r.bytes(len)?;
        let well_formed = grams.windows(2).all(|w| w[0] < w[1])
            && starts.windows(2).all(|w| w[0] <= w[1])
            && starts.last().is_some_and(|&end| end as usize == len)
            && ids.len() + dead == docs.len();
        if !well_formed {
            return None;
        }
        let total = lens.iter().map(|&l| l as usize).sum();
        let base = Frozen {
            grams,
            starts,
            lens,
            total,
            blob: Blob::File {
                file,
                at: offset + at as u64,
                len,
            },
        };
        Some((TrigramIndex::from_saved(docs, ids, dead, base), r.at))
    }
}

/// Little-endian numbers and byte runs read off a slice, every length checked (`None`
/// past the end): for the index's owner's own sections as well.
pub struct Reader<'a> {
    data: &'a [u8],
    /// Bytes read so far.
    pub at: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `data`.
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, at: 0 }
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let out = self.data.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(out)
    }

    /// The next `u8`.
    pub fn u8(&mut self) -> Option<u8> {
        Some(self.bytes(1)?[0])
    }

    /// The next `u32`.
    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.bytes(4)?.try_into().ok()?))
    }

    /// The next `u64`.
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }

    /// The next `u128`.
    pub fn u128(&mut self) -> Option<u128> {
        Some(u128::from_le_bytes(self.bytes(16)?.try_into().ok()?))
    }

    fn u32s(&mut self, n: usize) -> Option<Vec<u32>> {
        let bytes = self.bytes(n.checked_mul(4)?)?;
        Some(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )
    }
}
