//! Push detection of external changes: while a server runs, the directories holding open
//! buffers are watched (inotify), and a change to an open file syncs its buffer at once
//! (reload if clean, conflict if dirty) and publishes the event, instead of waiting for the
//! next command to notice.
//!
//! Only parents of open buffers are watched, not the whole tree, so a large repository
//! does not exhaust inotify watches.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use ultra_core::Executor;

use ultra_services::Services;
use ultra_services::util::publish_notices;

/// Stops the watcher thread when dropped.
pub struct WatchHandle {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Start watching. Fails only if the OS refuses a watcher (e.g. inotify unavailable).
pub fn spawn(exec: Arc<Executor<Services>>) -> Result<WatchHandle, notify::Error> {
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(move |res| {
        let _ = tx.send(res);
    })?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let thread = std::thread::Builder::new()
        .name("ultra-watch".into())
        .spawn(move || {
            let root = exec.services().root_path().to_path_buf();
            let mut watched: BTreeSet<PathBuf> = BTreeSet::new();
            while !flag.load(Ordering::SeqCst) {
                // Keep the watched set equal to the parents of open buffers.
                let wanted: BTreeSet<PathBuf> = exec
                    .services()
                    .ws()
                    .buffers()
                    .filter_map(|b| b.path.split().map(|(parent, _)| root.join(parent.as_str())))
                    .collect();
                // A directory that cannot be watched (gone for now) is tried again next round.
                let added: BTreeSet<PathBuf> = wanted
                    .difference(&watched)
                    .filter(|dir| watcher.watch(dir, RecursiveMode::NonRecursive).is_ok())
                    .cloned()
                    .collect();
                if !added.is_empty() {
                    // A change between a buffer's opening and its directory's watch would
                    // otherwise wait for the next read: look once now that it is watched.
                    let mut ws = exec.services().ws();
                    let fresh: Vec<_> = ws
                        .buffers()
                        .filter(|b| {
                            b.path.split().is_some_and(|(parent, _)| {
                                added.contains(&root.join(parent.as_str()))
                            })
                        })
                        .map(|b| b.path.clone())
                        .collect();
                    for rel in fresh {
                        let _ = ws.sync_disk(&rel);
                    }
                    publish_notices(exec.events(), &mut ws);
                }
                for dir in watched.difference(&wanted) {
                    let _ = watcher.unwatch(dir);
                }
                watched = watched
                    .intersection(&wanted)
                    .cloned()
                    .chain(added)
                    .collect();
                let Ok(first) = rx.recv_timeout(Duration::from_millis(200)) else {
                    continue;
                };
                // Drain what arrived together so a burst (write, rename) syncs once.
                let mut paths: BTreeSet<PathBuf> = BTreeSet::new();
                for ev in std::iter::once(first).chain(rx.try_iter()).flatten() {
                    // inotify reports opens and reads too, the sync's own among them: an
                    // event per look would make every look cause another.
                    if is_read(&ev.kind) {
                        continue;
                    }
                    // A watched directory removed (`git checkout` empties and recreates
                    // them) loses its watch: forget it, so the next round watches the new
                    // one and looks at its buffers.
                    if matches!(ev.kind, notify::EventKind::Remove(_)) {
                        for p in &ev.paths {
                            watched.remove(p);
                        }
                    }
                    paths.extend(ev.paths);
                }
                if paths.is_empty() {
                    continue;
                }
                let mut ws = exec.services().ws();
                for p in paths {
                    let Some(s) = p.to_str() else { continue };
                    let Ok(rel) = ws.root().lexical(s) else {
                        continue;
                    };
                    if ws.buffer(&rel).is_some() {
                        let _ = ws.sync_disk(&rel);
                    }
                }
                publish_notices(exec.events(), &mut ws);
            }
        });
    match thread {
        Ok(t) => Ok(WatchHandle {
            stop,
            thread: Some(t),
        }),
        Err(e) => Err(notify::Error::io(e)),
    }
}

/// Whether an event only says a file was opened, read or closed unchanged.
fn is_read(kind: &notify::EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode};
    matches!(kind, notify::EventKind::Access(a) if !matches!(a, AccessKind::Close(AccessMode::Write)))
}
