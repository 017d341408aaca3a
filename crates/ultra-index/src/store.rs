//! The index on disk (redb): one entry per file, with the size and modification time it
//! was indexed at, so a restart on an unchanged tree loads instead of parsing. A schema
//! version guards the format: a store of another version is thrown away and rebuilt (the
//! index can always be rebuilt from the files).

use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};

use crate::model::FileIndex;

/// Bump when [`FileIndex`] or an extractor changes what it records.
pub const SCHEMA_VERSION: &str = "ultra-index-1";

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

/// The on-disk index.
pub struct Store {
    db: Database,
}

impl Store {
    /// Open (or create) the store at `path`; one of another schema version, or one that
    /// cannot be read, is replaced by an empty one.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
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
        Ok(Store { db })
    }

    fn version(db: &Database) -> Option<String> {
        let txn = db.begin_read().ok()?;
        let meta = txn.open_table(META).ok()?;
        let v = meta.get("schema").ok()??;
        Some(v.value().to_string())
    }

    /// Every stored file. Entries that do not decode are skipped (they will be reindexed).
    pub fn load(&self) -> Result<Vec<Stored>, StoreError> {
        let txn = self.db.begin_read().map_err(db_err)?;
        let table = txn.open_table(FILES).map_err(db_err)?;
        let mut out = Vec::new();
        for entry in table.iter().map_err(db_err)? {
            let (_, v) = entry.map_err(db_err)?;
            if let Ok(s) = serde_json::from_slice::<Stored>(v.value()) {
                out.push(s);
            }
        }
        Ok(out)
    }

    /// Write `upserts` and drop `removes`, in one transaction.
    pub fn save(&self, upserts: &[Stored], removes: &[String]) -> Result<(), StoreError> {
        if upserts.is_empty() && removes.is_empty() {
            return Ok(());
        }
        let txn = self.db.begin_write().map_err(db_err)?;
        {
            let mut table = txn.open_table(FILES).map_err(db_err)?;
            for s in upserts {
                let bytes = serde_json::to_vec(s).map_err(db_err)?;
                table
                    .insert(s.record.path.as_str(), bytes.as_slice())
                    .map_err(db_err)?;
            }
            for p in removes {
                table.remove(p.as_str()).map_err(db_err)?;
            }
        }
        txn.commit().map_err(db_err)
    }
}

#[cfg(test)]
mod tests {
    use super::{Store, Stored};
    use crate::index_file;

    #[test]
    fn round_trip_and_schema_change() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("idx.redb");
        let record = index_file("a.rs", b"pub fn f() {}\n");
        {
            let s = Store::open(&path).expect("open");
            s.save(
                &[Stored {
                    len: 14,
                    mtime_ns: 7,
                    record: record.clone(),
                }],
                &[],
            )
            .expect("save");
        }
        let s = Store::open(&path).expect("reopen");
        let loaded = s.load().expect("load");
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0].record, record);
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
        let s = Store::open(&path).expect("rebuilt");
        assert!(s.load().expect("load").is_empty());
    }
}
