//! The text index on disk, beside the code index's store: written after a bulk build,
//! read back at start-up, after which a walk compares each file's stamp and reads only
//! what changed. The trigram lists stay in the file (queries read the ones they need).
//!
//! ```text
//! magic    "ultra-text-2\n"
//! files    u32 count, then per file: u32 length and the path's bytes, u8 kind (0 text,
//!          1 binary, 2 unread; plus 16 when `search.findInFiles` searches it),
//!          u8 stamped, u64 length, u128 change time, u64 inode
//! trigrams what `TrigramIndex::save` writes
//! check    the blake3 hash of everything before it
//! ```
//!
//! A file that is cut short, altered or of another version is not read (the index is
//! built again); it is replaced by writing a new one beside it and renaming it over.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use ultra_search::trigram::{Reader, TrigramIndex};

use super::{Entry, Inner, Kind};
use crate::stamp::Stamp;

const MAGIC: &[u8] = b"ultra-text-2\n";
/// Added to a file's kind when `search.findInFiles` searches it.
const SEARCHED: u8 = 16;

/// Write `inner` to `path` (its trigram lists are read from there from now on).
pub(super) fn save(inner: &mut Inner, path: &Path) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut head = Vec::with_capacity(MAGIC.len() + inner.files.len() * 96);
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&(inner.files.len() as u32).to_le_bytes());
    for (p, e) in &inner.files {
        head.extend_from_slice(&(p.len() as u32).to_le_bytes());
        head.extend_from_slice(p.as_bytes());
        let kind = match e.kind {
            Kind::Text => 0,
            Kind::Binary => 1,
            Kind::Unread => 2,
        };
        head.push(kind + if e.searched { SEARCHED } else { 0 });
        let stamp = e.stamp.unwrap_or(Stamp {
            len: 0,
            changed_ns: 0,
        });
        head.push(u8::from(e.stamp.is_some()));
        head.extend_from_slice(&stamp.len.to_le_bytes());
        head.extend_from_slice(&stamp.changed_ns.to_le_bytes());
        head.extend_from_slice(&e.ino.to_le_bytes());
    }
    let mut body = Vec::new();
    let at = inner.grams.save(&mut body)?;
    let mut hash = blake3::Hasher::new();
    hash.update(&head);
    hash.update(&body);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        f.write_all(&head)?;
        f.write_all(&body)?;
        f.write_all(hash.finalize().as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok::<_, std::io::Error>(f)
    })();
    let f = match written {
        Ok(f) => f,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    drop(body);
    inner.grams.attach(f, head.len() as u64 + at);
    Ok(())
}

/// What [`save`] wrote at `path`, when it is whole and of this version.
pub(super) fn load(path: &Path) -> Option<Inner> {
    use std::io::Read;
    // One handle for the check and the lists: a file renamed over this one meanwhile is
    // not mixed in.
    let mut file = std::fs::File::open(path).ok()?;
    let mut data = Vec::new();
    file.read_to_end(&mut data).ok()?;
    let (content, check) = data.split_at_checked(data.len().checked_sub(32)?)?;
    if blake3::hash(content).as_bytes() != check || !content.starts_with(MAGIC) {
        return None;
    }
    let mut r = Reader::new(content);
    r.bytes(MAGIC.len())?;
    let count = r.u32()? as usize;
    let mut files = BTreeMap::new();
    for _ in 0..count {
        let len = r.u32()? as usize;
        let p = std::str::from_utf8(r.bytes(len)?).ok()?.to_string();
        let kind = r.u8()?;
        let searched = kind & SEARCHED != 0;
        let kind = match kind & !SEARCHED {
            0 => Kind::Text,
            1 => Kind::Binary,
            2 => Kind::Unread,
            _ => return None,
        };
        let stamped = r.u8()? == 1;
        let (len, changed_ns, ino) = (r.u64()?, r.u128()?, r.u64()?);
        let stamp = stamped.then_some(Stamp { len, changed_ns });
        files.insert(
            p,
            Entry {
                stamp,
                kind,
                ino,
                searched,
            },
        );
    }
    let at = r.at;
    let (grams, used) = TrigramIndex::load(&content[at..], file, at as u64)?;
    if at + used != content.len() {
        return None;
    }
    // Every file read is in the trigram index, and the other way round.
    let read = files.values().filter(|e| e.kind != Kind::Unread).count();
    let unread = files
        .iter()
        .filter(|(_, e)| e.kind == Kind::Unread)
        .map(|(p, _)| p.clone())
        .collect();
    let searched = files.values().filter(|e| e.searched).count();
    (grams.len() == read).then_some(Inner {
        grams,
        files,
        dirs: Default::default(),
        unread,
        searched,
    })
}
