//! The index kept between runs: one entry per file, with the size and modification time it
//! was indexed at, so a restart on an unchanged tree loads instead of parsing. Two backends:
//! [`Redb`], an embedded file (the default), and [`Redis`], a server several Ultra servers
//! can share. A schema version guards the format: entries of another version are thrown
//! away (the index can always be rebuilt from the files).

use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use redis::ConnectionLike;
use serde::{Deserialize, Serialize};

use crate::model::FileIndex;

/// Bump when [`FileIndex`], an extractor or the encoding changes.
pub const SCHEMA_VERSION: &str = "ultra-index-2";

const META: TableDefinition<&str, &str> = TableDefinition::new("meta");
const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");

/// A stored file: its record and what the disk said when it was indexed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stored {
    pub len: u64,
    pub mtime_ns: u128,
    pub record: FileIndex,
}

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("index store: {0}")]
    Db(String),
}

fn db_err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Db(e.to_string())
}

/// Where records persist.
pub trait Store: Send + Sync {
    /// Every stored file. Entries that do not decode are skipped (they will be reindexed).
    fn load(&self) -> Result<Vec<Stored>, StoreError>;
    /// Write `upserts` (size, mtime, record) and drop `removes`, atomically.
    fn save(
        &self,
        upserts: &[(u64, u128, &FileIndex)],
        removes: &[String],
    ) -> Result<(), StoreError>;
    /// Drop every entry.
    fn clear(&self) -> Result<(), StoreError>;
}

/// The embedded store: one redb file.
pub struct Redb {
    db: Database,
}

impl Redb {
    /// Open (or create) the store at `path`; one of another schema version, or one that
    /// cannot be read, is replaced by an empty one.
    pub fn open(path: &Path) -> Result<Redb, StoreError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(db_err)?;
        }
        let current = match Database::create(path) {
            Ok(db) => Some(db).filter(|db| Self::version(db).as_deref() == Some(SCHEMA_VERSION)),
            // Another process (a running server) has it: use no store rather than take it.
            Err(e @ redb::DatabaseError::DatabaseAlreadyOpen) => return Err(db_err(e)),
            // Unreadable: rebuilt below.
            Err(_) => None,
        };
        let db = match current {
            Some(db) => db,
            None => {
                let _ = std::fs::remove_file(path);
                let db = Database::create(path).map_err(db_err)?;
                let txn = db.begin_write().map_err(db_err)?;
                {
                    let mut meta = txn.open_table(META).map_err(db_err)?;
                    meta.insert("schema", SCHEMA_VERSION).map_err(db_err)?;
                    txn.open_table(FILES).map_err(db_err)?;
                }
                txn.commit().map_err(db_err)?;
                db
            }
        };
        Ok(Redb { db })
    }

    fn version(db: &Database) -> Option<String> {
        let txn = db.begin_read().ok()?;
        let meta = txn.open_table(META).ok()?;
        let v = meta.get("schema").ok()??;
        Some(v.value().to_string())
    }
}

impl Store for Redb {
    fn clear(&self) -> Result<(), StoreError> {
        let txn = self.db.begin_write().map_err(db_err)?;
        txn.delete_table(FILES).map_err(db_err)?;
        txn.open_table(FILES).map_err(db_err)?;
        txn.commit().map_err(db_err)
    }

    fn load(&self) -> Result<Vec<Stored>, StoreError> {
        let txn = self.db.begin_read().map_err(db_err)?;
        let table = txn.open_table(FILES).map_err(db_err)?;
        let mut out = Vec::new();
        for entry in table.iter().map_err(db_err)? {
            let (_, v) = entry.map_err(db_err)?;
            if let Some(s) = decode(v.value()) {
                out.push(s);
            }
        }
        Ok(out)
    }

    fn save(
        &self,
        upserts: &[(u64, u128, &FileIndex)],
        removes: &[String],
    ) -> Result<(), StoreError> {
        if upserts.is_empty() && removes.is_empty() {
            return Ok(());
        }
        let txn = self.db.begin_write().map_err(db_err)?;
        {
            let mut table = txn.open_table(FILES).map_err(db_err)?;
            for (len, mtime, record) in upserts {
                let bytes = encode(*len, *mtime, record).map_err(db_err)?;
                table
                    .insert(record.path.as_str(), bytes.as_slice())
                    .map_err(db_err)?;
            }
            for p in removes {
                table.remove(p.as_str()).map_err(db_err)?;
            }
        }
        txn.commit().map_err(db_err)
    }
}

/// The shared store: a Redis server. Keys are `<namespace>:schema` and
/// `<namespace>:file:<path>`; a save is one MULTI/EXEC transaction.
pub struct Redis {
    client: redis::Client,
    conn: std::sync::Mutex<redis::Connection>,
    prefix: String,
}

impl Redis {
    /// Connect to `url` under `namespace`; entries of another schema version are deleted.
    pub fn open(url: &str, namespace: &str) -> Result<Redis, StoreError> {
        let client = redis::Client::open(url).map_err(db_err)?;
        let mut conn = client
            .get_connection_with_timeout(std::time::Duration::from_secs(5))
            .map_err(db_err)?;
        let prefix = format!("{namespace}:");
        let schema_key = format!("{prefix}schema");
        let current: Option<String> = redis::cmd("GET")
            .arg(&schema_key)
            .query(&mut conn)
            .map_err(db_err)?;
        if current.as_deref() != Some(SCHEMA_VERSION) {
            for chunk in scan_keys(&mut conn, &format!("{prefix}file:*"))?.chunks(500) {
                redis::cmd("DEL")
                    .arg(chunk)
                    .query::<()>(&mut conn)
                    .map_err(db_err)?;
            }
            redis::cmd("SET")
                .arg(&schema_key)
                .arg(SCHEMA_VERSION)
                .query::<()>(&mut conn)
                .map_err(db_err)?;
        }
        Ok(Redis {
            client,
            conn: std::sync::Mutex::new(conn),
            prefix,
        })
    }

    fn conn(&self) -> Result<std::sync::MutexGuard<'_, redis::Connection>, StoreError> {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        // Reconnect once if the server dropped us.
        if !guard.is_open() {
            *guard = self.client.get_connection().map_err(db_err)?;
        }
        Ok(guard)
    }
}

/// Every key matching `pattern` (SCAN, so a big keyspace does not block the server).
fn scan_keys(conn: &mut redis::Connection, pattern: &str) -> Result<Vec<String>, StoreError> {
    let mut cursor: u64 = 0;
    let mut keys = Vec::new();
    loop {
        let (next, batch): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(pattern)
            .arg("COUNT")
            .arg(1000)
            .query(conn)
            .map_err(db_err)?;
        keys.extend(batch);
        if next == 0 {
            return Ok(keys);
        }
        cursor = next;
    }
}

impl Store for Redis {
    fn clear(&self) -> Result<(), StoreError> {
        let mut conn = self.conn()?;
        for chunk in scan_keys(&mut conn, &format!("{}file:*", self.prefix))?.chunks(500) {
            redis::cmd("DEL")
                .arg(chunk)
                .query::<()>(&mut *conn)
                .map_err(db_err)?;
        }
        Ok(())
    }

    fn load(&self) -> Result<Vec<Stored>, StoreError> {
        let mut conn = self.conn()?;
        let keys = scan_keys(&mut conn, &format!("{}file:*", self.prefix))?;
        let mut out = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(256) {
            let values: Vec<Option<Vec<u8>>> = redis::cmd("MGET")
                .arg(chunk)
                .query(&mut *conn)
                .map_err(db_err)?;
            out.extend(values.into_iter().flatten().filter_map(|v| decode(&v)));
        }
        Ok(out)
    }

    fn save(
        &self,
        upserts: &[(u64, u128, &FileIndex)],
        removes: &[String],
    ) -> Result<(), StoreError> {
        if upserts.is_empty() && removes.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        pipe.atomic();
        for (len, mtime, record) in upserts {
            let bytes = encode(*len, *mtime, record).map_err(db_err)?;
            pipe.cmd("SET")
                .arg(format!("{}file:{}", self.prefix, record.path))
                .arg(bytes)
                .ignore();
        }
        for p in removes {
            pipe.cmd("DEL")
                .arg(format!("{}file:{p}", self.prefix))
                .ignore();
        }
        let mut conn = self.conn()?;
        pipe.query::<()>(&mut *conn).map_err(db_err)
    }
}

/// Identifier occurrences are most of a record: they are stored packed (names, then
/// 12 bytes per occurrence) after the rest of the record as JSON.
fn encode(len: u64, mtime_ns: u128, record: &FileIndex) -> Result<Vec<u8>, serde_json::Error> {
    #[derive(Serialize)]
    struct Head<'a> {
        len: u64,
        mtime_ns: u128,
        record: &'a FileIndex,
    }
    let json = serde_json::to_vec(&Head {
        len,
        mtime_ns,
        record,
    })?;
    let (names, occ) = (&record.names, &record.occurrences);
    let mut out = Vec::with_capacity(json.len() + occ.len() * 12 + names.len() * 12 + 12);
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&(names.len() as u32).to_le_bytes());
    for n in names {
        out.extend_from_slice(&(n.len() as u32).to_le_bytes());
        out.extend_from_slice(n.as_bytes());
    }
    out.extend_from_slice(&(occ.len() as u32).to_le_bytes());
    for o in occ {
        out.extend_from_slice(&o.name.to_le_bytes());
        out.extend_from_slice(&o.line.to_le_bytes());
        let col = o.column & 0x7fff_ffff | if o.is_definition { 0x8000_0000 } else { 0 };
        out.extend_from_slice(&col.to_le_bytes());
    }
    Ok(out)
}

/// The inverse of [`encode`]; `None` for anything malformed.
fn decode(bytes: &[u8]) -> Option<Stored> {
    let mut at = 0usize;
    let u32_at = |at: &mut usize| -> Option<u32> {
        let b = bytes.get(*at..*at + 4)?;
        *at += 4;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let json_len = u32_at(&mut at)? as usize;
    let json = bytes.get(at..at + json_len)?;
    at += json_len;
    let mut s: Stored = serde_json::from_slice(json).ok()?;
    let n = u32_at(&mut at)? as usize;
    let mut names = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        let len = u32_at(&mut at)? as usize;
        let name = std::str::from_utf8(bytes.get(at..at + len)?).ok()?;
        at += len;
        names.push(name.to_string());
    }
    let n = u32_at(&mut at)? as usize;
    let mut occ = Vec::with_capacity(n.min(1 << 24));
    for _ in 0..n {
        let name = u32_at(&mut at)?;
        let line = u32_at(&mut at)?;
        let col = u32_at(&mut at)?;
        if name as usize >= names.len() {
            return None;
        }
        occ.push(crate::model::Occurrence {
            name,
            line,
            column: col & 0x7fff_ffff,
            is_definition: col & 0x8000_0000 != 0,
        });
    }
    s.record.names = names;
    s.record.occurrences = occ;
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::{Redb, Store};
    use crate::index_file;

    #[test]
    fn round_trip_and_schema_change() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("idx.redb");
        let record = index_file("a.rs", b"pub fn f() {}\n");
        {
            let s = Redb::open(&path).expect("open");
            s.save(&[(14, 7, &record)], &[]).expect("save");
        }
        let s = Redb::open(&path).expect("reopen");
        let loaded = s.load().expect("load");
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0].record, record);
        assert_eq!(loaded[0].record.occurrences.len(), 1);
        assert_eq!((loaded[0].len, loaded[0].mtime_ns), (14, 7));
        s.save(&[], &["a.rs".to_string()]).expect("remove");
        assert!(s.load().expect("load").is_empty());
        drop(s);
        // Another schema: thrown away.
        {
            let db = redb::Database::create(&path).expect("db");
            let txn = db.begin_write().expect("txn");
            {
                let mut meta = txn.open_table(super::META).expect("meta");
                meta.insert("schema", "old").expect("insert");
            }
            txn.commit().expect("commit");
        }
        let s = Redb::open(&path).expect("rebuilt");
        assert!(s.load().expect("load").is_empty());
    }
}
