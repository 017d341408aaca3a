//! What a complete index holds ([`Totals`]), and the check that lets a warm `ultra index`
//! skip loading it: when every file's stamp matches the store's and the store still has the
//! totals of the last complete index, nothing needs loading or parsing.

use std::collections::HashMap;

use ultra_index::build::{self, MAX_FILE_BYTES};
use ultra_index::store::{StampOf, Totals};
use ultra_workspace::Root;

use crate::{CodeIndex, IndexState, Stamp};

impl CodeIndex {
    /// What the index holds now (the dependency graph is built if it was not).
    pub fn totals(&self) -> Totals {
        let idx = self.read();
        let mut t = Totals {
            files: idx.len(),
            ..Totals::default()
        };
        for f in idx.files() {
            t.definitions += f.definitions.len();
            t.references += f.occurrences.len();
            t.imports += f.imports.len();
        }
        t.dependency_edges = idx.graph().deps.values().map(Vec::len).sum();
        t
    }

    /// Keep `totals` in the store for [`CodeIndex::unchanged`], until the next save.
    pub fn keep_totals(&self, totals: &Totals) {
        let slot = self.store.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(Some(store)) = slot.as_ref() {
            let _ = store.set_totals(totals);
        }
    }

    /// When the tree is as the store last saw it (the same files, each with the size and
    /// change time it was indexed at) and the store kept the totals of a complete
    /// index since: the state and those totals, with nothing loaded or parsed. `None`
    /// when anything differs or the store cannot tell; a refresh then does the work.
    ///
    /// The files a refresh would only count as skipped (too big to index) are counted
    /// the same way here; any other file the store does not know means work.
    pub fn unchanged(&self, root: &Root) -> Option<(IndexState, Totals)> {
        let store = self.open_store()?;
        let allow = crate::readable(root);
        let (found, stored) = std::thread::scope(|s| {
            let walk = s.spawn(|| self.walk_all(&allow));
            let stored = store
                .totals()
                .ok()
                .flatten()
                .and_then(|t| Some((t, store.stamps().ok()??)));
            (walk.join().ok(), stored)
        });
        let (totals, stamps) = stored?;
        let (skipped, hard_links) = same_files(root, found?, &stamps)?;
        Some((
            IndexState {
                state: "ready".into(),
                files: totals.files,
                skipped,
                refreshed: 0,
                progress: None,
                store_error: None,
                skipped_hard_links: hard_links,
            },
            totals,
        ))
    }
}

/// The skipped and hard-linked counts when `found` are exactly the files `stamps` has,
/// each unchanged (besides files too big to index, and hard links refused).
fn same_files(
    root: &Root,
    found: Vec<build::Found>,
    stamps: &HashMap<String, StampOf>,
) -> Option<(usize, usize)> {
    let (mut same, mut skipped, mut hard_links) = (0, 0, 0);
    for f in found {
        let stored = stamps.get(&f.path);
        let refused = root
            .lexical(&f.path)
            .is_ok_and(|r| root.refuses_hardlink(&r, f.nlink));
        if refused {
            // Left out; a record of it would be dropped.
            hard_links += 1;
            if stored.is_some() {
                return None;
            }
            continue;
        }
        match (stored, Stamp::of_found(&f)) {
            (Some(&(len, changed_ns)), Some(now)) if now == Stamp { len, changed_ns } => same += 1,
            (None, _) if f.len > MAX_FILE_BYTES => skipped += 1,
            _ => return None,
        }
    }
    // Every stored file was found.
    (same == stamps.len()).then_some((skipped, hard_links))
}
