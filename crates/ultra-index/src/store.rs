//! The index kept between runs: one entry per file, with the size and change time it was
//! indexed at, so a restart on an unchanged tree loads instead of parsing. Two backends:
//! [`Redb`], an embedded file (the default), and [`Redis`], a server several Ultra servers
//! can share. A schema version guards the format: entries of another version are thrown
//! away (the index can always be rebuilt from the files).
//!
//! Beside the records, each file's stamp is kept on its own ([`Store::stamps`]), and the
//! [`Totals`] of the last complete index until anything is saved again: a check that the
//! tree is unchanged reads neither the records nor the files.

use std::collections::HashMap;
use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use redis::ConnectionLike;

use crate::codec;
use crate::model::FileIndex;

/// Bump when [`FileIndex`], an extractor or the encoding changes.
pub const SCHEMA_VERSION: &str = "ultra-index-7";

/// The redb page cache.
const STORE_CACHE_BYTES: usize = 16 << 20;

const META: TableDefinition<&str, &str> = TableDefinition::new("meta");
const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");
/// Each file's size and change time, for the files in `FILES` and the ones marked
/// without a record (`go.mod`, whose content is read at every start).
const STAMPS: TableDefinition<&str, (u64, u128)> = TableDefinition::new("stamps");
/// The `META` key of the [`Totals`], removed by every save.
const TOTALS_KEY: &str = "totals";

/// A stored file: its record and what the disk said when it was indexed.
#[derive(Debug, Clone)]
pub struct Stored {
    pub len: u64,
    pub changed_ns: u128,
    pub record: FileIndex,
}

/// What a complete index of the tree held, as `ultra index` reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub files: usize,
    pub definitions: usize,
    pub references: usize,
    pub imports: usize,
    pub dependency_edges: usize,
}

/// A file's size and change time in nanoseconds, as when it was indexed.
pub type StampOf = (u64, u128);

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
    /// Every stored file, in batches handed to `sink` on the calling thread while the rest
    /// are still being read and decoded, without its functions and classes (they are
    /// skipped unread; [`Store::get`] has them). Entries that do not decode are skipped
    /// (they will be reindexed).
    fn load(&self, sink: &mut dyn FnMut(Vec<Stored>)) -> Result<(), StoreError>;

    /// One stored file, if there is one (and it decodes).
    fn get(&self, path: &str) -> Result<Option<Stored>, StoreError>;

    /// [`Store::load`] into one list.
    fn load_all(&self) -> Result<Vec<Stored>, StoreError> {
        let mut all = Vec::new();
        self.load(&mut |batch| all.extend(batch))?;
        Ok(all)
    }
    /// Write `upserts` (size, change time, record), the stamps of `marks` (files kept without a
    /// record) and drop `removes`, atomically; the [`Totals`] go.
    fn save(
        &self,
        upserts: &[(u64, u128, &FileIndex)],
        marks: &[(&str, u64, u128)],
        removes: &[String],
    ) -> Result<(), StoreError>;

    /// Every stored file's stamp (records and marks), read without the records; `None`
    /// when this store does not keep them apart.
    fn stamps(&self) -> Result<Option<HashMap<String, StampOf>>, StoreError> {
        Ok(None)
    }

    /// The totals recorded by [`Store::set_totals`], unless a save came after.
    fn totals(&self) -> Result<Option<Totals>, StoreError> {
        Ok(None)
    }

    /// Record what a complete index of the stored files holds.
    fn set_totals(&self, _totals: &Totals) -> Result<(), StoreError> {
        Ok(())
    }
    /// Drop every entry.
    fn clear(&self) -> Result<(), StoreError>;
    /// Make every save so far survive a crash (a store that saves durably has nothing
    /// to do).
    fn sync(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// The embedded store: one redb file.
pub struct Redb {
    db: Database,
    /// Saves, and records in them, committed since the last durable commit (see
    /// [`Redb::save`]).
    lazy: std::sync::Mutex<(u32, usize)>,
}

/// Saves are committed without waiting for the disk until this many saves or records
/// have been committed so since the last durable commit.
const LAZY_SAVES: u32 = 64;
const LAZY_RECORDS: usize = 4096;

impl Redb {
    /// Open (or create) the store at `path`; one of another schema version, or one that
    /// cannot be read, is replaced by an empty one.
    pub fn open(path: &Path) -> Result<Redb, StoreError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(db_err)?;
        }
        let current = match Self::create(path) {
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
                let db = Self::create(path).map_err(db_err)?;
                let txn = db.begin_write().map_err(db_err)?;
                {
                    let mut meta = txn.open_table(META).map_err(db_err)?;
                    meta.insert("schema", SCHEMA_VERSION).map_err(db_err)?;
                    txn.open_table(FILES).map_err(db_err)?;
                    txn.open_table(STAMPS).map_err(db_err)?;
                }
                txn.commit().map_err(db_err)?;
                db
            }
        };
        Ok(Redb {
            db,
            lazy: std::sync::Mutex::new((0, 0)),
        })
    }

    /// The database at `path` with a small page cache. redb caches up to 1 GiB by default,
    /// and the index is read whole once at start and then only written: a big cache would
    /// keep a copy of the store in the server's memory for nothing.
    fn create(path: &Path) -> Result<Database, redb::DatabaseError> {
        redb::Builder::new()
            .set_cache_size(STORE_CACHE_BYTES)
            .create(path)
    }

    fn version(db: &Database) -> Option<String> {
        let txn = db.begin_read().ok()?;
        let meta = txn.open_table(META).ok()?;
        let v = meta.get("schema").ok()??;
        Some(v.value().to_string())
    }
}

impl Drop for Redb {
    /// A clean shutdown makes the lazy saves durable (an empty durable commit persists
    /// the non-durable ones before it).
    fn drop(&mut self) {
        let _ = self.sync();
    }
}

impl Store for Redb {
    /// An empty durable commit persists the non-durable ones before it.
    fn sync(&self) -> Result<(), StoreError> {
        let mut lazy = self.lazy.lock().unwrap_or_else(|p| p.into_inner());
        if lazy.0 > 0 {
            self.db
                .begin_write()
                .map_err(db_err)?
                .commit()
                .map_err(db_err)?;
            *lazy = (0, 0);
        }
        Ok(())
    }

    fn clear(&self) -> Result<(), StoreError> {
        let txn = self.db.begin_write().map_err(db_err)?;
        txn.delete_table(FILES).map_err(db_err)?;
        txn.open_table(FILES).map_err(db_err)?;
        txn.delete_table(STAMPS).map_err(db_err)?;
        txn.open_table(STAMPS).map_err(db_err)?;
        txn.open_table(META)
            .map_err(db_err)?
            .remove(TOTALS_KEY)
            .map_err(db_err)?;
        txn.commit().map_err(db_err)
    }

    fn load(&self, sink: &mut dyn FnMut(Vec<Stored>)) -> Result<(), StoreError> {
        pipeline(
            |emit| {
                let txn = self.db.begin_read().map_err(db_err)?;
                let table = txn.open_table(FILES).map_err(db_err)?;
                for entry in table.iter().map_err(db_err)? {
                    let (_, v) = entry.map_err(db_err)?;
                    emit(v.value().to_vec());
                }
                Ok(())
            },
            sink,
        )
    }

    fn get(&self, path: &str) -> Result<Option<Stored>, StoreError> {
        let txn = self.db.begin_read().map_err(db_err)?;
        let table = txn.open_table(FILES).map_err(db_err)?;
        Ok(table
            .get(path)
            .map_err(db_err)?
            .and_then(|v| codec::decode(v.value())))
    }

    fn save(
        &self,
        upserts: &[(u64, u128, &FileIndex)],
        marks: &[(&str, u64, u128)],
        removes: &[String],
    ) -> Result<(), StoreError> {
        if upserts.is_empty() && marks.is_empty() && removes.is_empty() {
            return Ok(());
        }
        let mut txn = self.db.begin_write().map_err(db_err)?;
        // An edit's reindex is on the path of the query that asked for it, and an fsync
        // there cost 0.2–20 ms; a cold index made 50 of them. The store is a cache of the
        // files: a crash that loses the last saves leaves an older consistent store whose
        // stamps no longer match the disk, so those files are indexed again at the next
        // start.
        {
            let mut lazy = self.lazy.lock().unwrap_or_else(|p| p.into_inner());
            let records = lazy.1 + upserts.len() + removes.len();
            if lazy.0 < LAZY_SAVES
                && records < LAZY_RECORDS
                && txn.set_durability(redb::Durability::None).is_ok()
            {
                *lazy = (lazy.0 + 1, records);
            } else {
                *lazy = (0, 0);
            }
        }
        {
            let mut table = txn.open_table(FILES).map_err(db_err)?;
            let mut stamps = txn.open_table(STAMPS).map_err(db_err)?;
            let mut bytes = Vec::new();
            for (len, changed, record) in upserts {
                codec::encode_into(&mut bytes, *len, *changed, record);
                table
                    .insert(record.path.as_str(), bytes.as_slice())
                    .map_err(db_err)?;
                stamps
                    .insert(record.path.as_str(), (*len, *changed))
                    .map_err(db_err)?;
            }
            for (path, len, changed) in marks {
                stamps.insert(*path, (*len, *changed)).map_err(db_err)?;
            }
            for p in removes {
                table.remove(p.as_str()).map_err(db_err)?;
                stamps.remove(p.as_str()).map_err(db_err)?;
            }
            txn.open_table(META)
                .map_err(db_err)?
                .remove(TOTALS_KEY)
                .map_err(db_err)?;
        }
        txn.commit().map_err(db_err)
    }

    fn stamps(&self) -> Result<Option<HashMap<String, StampOf>>, StoreError> {
        let txn = self.db.begin_read().map_err(db_err)?;
        let table = txn.open_table(STAMPS).map_err(db_err)?;
        let mut out = HashMap::with_capacity(table.len().map_err(db_err)? as usize);
        for entry in table.iter().map_err(db_err)? {
            let (k, v) = entry.map_err(db_err)?;
            out.insert(k.value().to_string(), v.value());
        }
        Ok(Some(out))
    }

    fn totals(&self) -> Result<Option<Totals>, StoreError> {
        let txn = self.db.begin_read().map_err(db_err)?;
        let meta = txn.open_table(META).map_err(db_err)?;
        let Some(v) = meta.get(TOTALS_KEY).map_err(db_err)? else {
            return Ok(None);
        };
        Ok(serde_json::from_str(v.value()).ok())
    }

    fn set_totals(&self, totals: &Totals) -> Result<(), StoreError> {
        let json = serde_json::to_string(totals).map_err(db_err)?;
        let txn = self.db.begin_write().map_err(db_err)?;
        txn.open_table(META)
            .map_err(db_err)?
            .insert(TOTALS_KEY, json.as_str())
            .map_err(db_err)?;
        txn.commit().map_err(db_err)?;
        // A durable commit made the lazy ones before it durable too.
        *self.lazy.lock().unwrap_or_else(|p| p.into_inner()) = (0, 0);
        Ok(())
    }
}

/// The shared store: a Redis server. Keys are `<namespace>:schema`,
/// `<namespace>:file:<path>`, the hash `<namespace>:stamps` and `<namespace>:totals`; a
/// save is one MULTI/EXEC transaction.
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
            redis::cmd("DEL")
                .arg(format!("{prefix}stamps"))
                .arg(format!("{prefix}{TOTALS_KEY}"))
                .query::<()>(&mut conn)
                .map_err(db_err)?;
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

    /// The hash of each file's stamp (`"len changed_ns"` by path).
    fn stamps_key(&self) -> String {
        format!("{}stamps", self.prefix)
    }

    fn totals_key(&self) -> String {
        format!("{}{TOTALS_KEY}", self.prefix)
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
        redis::cmd("DEL")
            .arg(self.stamps_key())
            .arg(self.totals_key())
            .query::<()>(&mut *conn)
            .map_err(db_err)
    }

    fn stamps(&self) -> Result<Option<HashMap<String, StampOf>>, StoreError> {
        let mut conn = self.conn()?;
        let all: HashMap<String, String> = redis::cmd("HGETALL")
            .arg(self.stamps_key())
            .query(&mut *conn)
            .map_err(db_err)?;
        let parse = |v: &str| -> Option<StampOf> {
            let (len, changed) = v.split_once(' ')?;
            Some((len.parse().ok()?, changed.parse().ok()?))
        };
        // An entry that does not read is left out: its file then counts as changed.
        Ok(Some(
            all.into_iter()
                .filter_map(|(k, v)| Some((k, parse(&v)?)))
                .collect(),
        ))
    }

    fn totals(&self) -> Result<Option<Totals>, StoreError> {
        let mut conn = self.conn()?;
        let v: Option<String> = redis::cmd("GET")
            .arg(self.totals_key())
            .query(&mut *conn)
            .map_err(db_err)?;
        Ok(v.and_then(|v| serde_json::from_str(&v).ok()))
    }

    fn set_totals(&self, totals: &Totals) -> Result<(), StoreError> {
        let json = serde_json::to_string(totals).map_err(db_err)?;
        let mut conn = self.conn()?;
        redis::cmd("SET")
            .arg(self.totals_key())
            .arg(json)
            .query::<()>(&mut *conn)
            .map_err(db_err)
    }

    fn load(&self, sink: &mut dyn FnMut(Vec<Stored>)) -> Result<(), StoreError> {
        pipeline(
            |emit| {
                let mut conn = self.conn()?;
                let keys = scan_keys(&mut conn, &format!("{}file:*", self.prefix))?;
                for chunk in keys.chunks(256) {
                    let values: Vec<Option<Vec<u8>>> = redis::cmd("MGET")
                        .arg(chunk)
                        .query(&mut *conn)
                        .map_err(db_err)?;
                    values.into_iter().flatten().for_each(&mut *emit);
                }
                Ok(())
            },
            sink,
        )
    }

    fn get(&self, path: &str) -> Result<Option<Stored>, StoreError> {
        let mut conn = self.conn()?;
        let value: Option<Vec<u8>> = redis::cmd("GET")
            .arg(format!("{}file:{path}", self.prefix))
            .query(&mut *conn)
            .map_err(db_err)?;
        Ok(value.and_then(|v| codec::decode(&v)))
    }

    fn save(
        &self,
        upserts: &[(u64, u128, &FileIndex)],
        marks: &[(&str, u64, u128)],
        removes: &[String],
    ) -> Result<(), StoreError> {
        if upserts.is_empty() && marks.is_empty() && removes.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        pipe.atomic();
        let stamps = self.stamps_key();
        for (len, changed, record) in upserts {
            let bytes = codec::encode_parts(*len, *changed, record);
            pipe.cmd("SET")
                .arg(format!("{}file:{}", self.prefix, record.path))
                .arg(bytes)
                .ignore();
            pipe.cmd("HSET")
                .arg(&stamps)
                .arg(&record.path)
                .arg(format!("{len} {changed}"))
                .ignore();
        }
        for (path, len, changed) in marks {
            pipe.cmd("HSET")
                .arg(&stamps)
                .arg(*path)
                .arg(format!("{len} {changed}"))
                .ignore();
        }
        for p in removes {
            pipe.cmd("DEL")
                .arg(format!("{}file:{p}", self.prefix))
                .ignore();
            pipe.cmd("HDEL").arg(&stamps).arg(p).ignore();
        }
        pipe.cmd("DEL").arg(self.totals_key()).ignore();
        let mut conn = self.conn()?;
        pipe.query::<()>(&mut *conn).map_err(db_err)
    }
}

/// Entries per batch between the reader, the decoders and the sink.
const BATCH: usize = 64;

/// Read entries on one thread (`read` calls `emit` with each), decode them on every core,
/// and hand decoded batches to `sink` on this thread as they come: a warm start's reading,
/// decoding and indexing overlap.
fn pipeline(
    read: impl FnOnce(&mut dyn FnMut(Vec<u8>)) -> Result<(), StoreError> + Send,
    sink: &mut dyn FnMut(Vec<Stored>),
) -> Result<(), StoreError> {
    use std::sync::{Mutex, mpsc};
    let threads = crate::build::cores();
    let (raw_tx, raw_rx) = mpsc::sync_channel::<Vec<Vec<u8>>>(threads * 4);
    let raw_rx = Mutex::new(raw_rx);
    let (out_tx, out_rx) = mpsc::channel::<Vec<Stored>>();
    std::thread::scope(|s| {
        let reader = s.spawn(move || {
            let mut chunk = Vec::with_capacity(BATCH);
            let result = read(&mut |v| {
                chunk.push(v);
                if chunk.len() >= BATCH {
                    let _ = raw_tx.send(std::mem::replace(&mut chunk, Vec::with_capacity(BATCH)));
                }
            });
            if !chunk.is_empty() {
                let _ = raw_tx.send(chunk);
            }
            result
        });
        for _ in 0..threads {
            let (raw_rx, out_tx) = (&raw_rx, out_tx.clone());
            s.spawn(move || {
                loop {
                    let next = raw_rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                    let Ok(chunk) = next else { break };
                    let decoded: Vec<Stored> =
                        chunk.iter().filter_map(|b| codec::decode_slim(b)).collect();
                    if out_tx.send(decoded).is_err() {
                        break;
                    }
                }
            });
        }
        drop(out_tx);
        for batch in out_rx {
            sink(batch);
        }
        reader
            .join()
            .unwrap_or_else(|_| Err(StoreError::Db("the store reader failed".into())))
    })
}

#[cfg(test)]
mod tests {
    use super::{Redb, Store};
    use crate::index_file;

    #[test]
    fn stamps_and_totals_until_the_next_save() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("idx.redb");
        let record = index_file("a.rs", b"pub fn f() {}\n");
        let s = Redb::open(&path).expect("open");
        assert_eq!(s.totals().expect("totals"), None);
        s.save(&[(14, 7, &record)], &[("go.mod", 3, 9)], &[])
            .expect("save");
        let stamps = s.stamps().expect("stamps").expect("kept");
        assert_eq!(stamps.len(), 2);
        assert_eq!(stamps["a.rs"], (14, 7));
        assert_eq!(stamps["go.mod"], (3, 9));
        // A mark has no record.
        assert_eq!(s.load_all().expect("load").len(), 1);
        let totals = super::Totals {
            files: 2,
            definitions: 1,
            ..Default::default()
        };
        s.set_totals(&totals).expect("set");
        drop(s);
        let s = Redb::open(&path).expect("reopen");
        assert_eq!(s.totals().expect("totals"), Some(totals));
        // Any save makes them stale; a removal takes the stamp too.
        s.save(&[], &[], &["go.mod".to_string()]).expect("remove");
        assert_eq!(s.totals().expect("totals"), None);
        assert_eq!(s.stamps().expect("stamps").expect("kept").len(), 1);
        s.set_totals(&totals).expect("set");
        s.clear().expect("clear");
        assert_eq!(s.totals().expect("totals"), None);
        assert!(s.stamps().expect("stamps").expect("kept").is_empty());
    }

    #[test]
    fn round_trip_and_schema_change() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("idx.redb");
        let record = index_file("a.rs", b"pub fn f() {}\n");
        {
            let s = Redb::open(&path).expect("open");
            s.save(&[(14, 7, &record)], &[], &[]).expect("save");
        }
        let s = Redb::open(&path).expect("reopen");
        let loaded = s.load_all().expect("load");
        assert_eq!(loaded.len(), 1);
        // Loaded without its details; `get` has them.
        let mut slim = record.clone();
        slim.drop_details();
        assert_eq!(loaded[0].record, slim);
        assert_eq!(s.get("a.rs").expect("get").expect("stored").record, record);
        assert!(s.get("b.rs").expect("get").is_none());
        assert_eq!(loaded[0].record.occurrences.len(), 1);
        assert_eq!((loaded[0].len, loaded[0].changed_ns), (14, 7));
        s.save(&[], &[], &["a.rs".to_string()]).expect("remove");
        assert!(s.load_all().expect("load").is_empty());
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
        assert!(s.load_all().expect("load").is_empty());
    }
}
