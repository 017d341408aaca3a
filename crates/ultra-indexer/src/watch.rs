//! Following the workspace through inotify, with no window between a write and a query.
//!
//! A query reads the pending events itself before it answers, under the same lock as the
//! background reader: a write that finished before the query was sent has its event queued
//! by then (the kernel queues it during the write), so the answer always reflects it. A
//! reader thread drains the queue in between, so it does not overflow while nobody asks.
//!
//! Directories are watched as the index's walks enter them, each before it is listed, so a
//! file created during a walk is either listed or reported. Only directories the walks enter
//! are watched: ignored and skipped ones (`.git`, `node_modules`, build output) cost no
//! watch and send no events. A changed ignore file asks for a full walk, since it may bring
//! a directory in.

use std::collections::{HashMap, HashSet};
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

use ultra_ignore::IGNORE_FILES;

/// More reported paths than this and the next refresh walks the tree instead.
const MAX_PATHS: usize = 100_000;

/// What a watcher reported since the last refresh.
#[derive(Default)]
pub(crate) struct Changes {
    pub paths: HashSet<String>,
    /// Events were lost (or the rules changed): the next refresh walks the whole tree.
    pub rescan: bool,
}

impl Changes {
    fn report(&mut self, path: String) {
        if self.paths.len() < MAX_PATHS {
            self.paths.insert(path);
        } else {
            self.rescan = true;
        }
    }
}

/// The inotify instance, the directories it watches and what it reported.
pub(crate) struct Watched {
    inotify: Inotify,
    /// Watched directories by watch, workspace-relative ("" is the root).
    dirs: HashMap<WatchDescriptor, String>,
    buf: Vec<u8>,
    pub changes: Changes,
}

fn mask() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MODIFY
        | WatchMask::CLOSE_WRITE
        | WatchMask::ATTRIB
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
        | WatchMask::EXCL_UNLINK
}

impl Watched {
    fn new() -> io::Result<Watched> {
        Ok(Watched {
            inotify: Inotify::init()?,
            dirs: HashMap::new(),
            buf: vec![0; 64 << 10],
            // Nothing is watched until a walk enters the directories.
            changes: Changes {
                rescan: true,
                ..Changes::default()
            },
        })
    }

    /// Watch the directory `rel` under `root` (again: a directory moved keeps its watch,
    /// which then answers to its new path). Fails when the OS refuses a watch (e.g. the
    /// inotify watch limit); a directory that vanished meanwhile is not an error.
    pub fn add(&mut self, root: &Path, rel: &str) -> io::Result<()> {
        let abs = if rel.is_empty() {
            root.to_path_buf()
        } else {
            root.join(rel)
        };
        match self.inotify.watches().add(&abs, mask()) {
            Ok(wd) => {
                self.dirs.insert(wd, rel.to_string());
                Ok(())
            }
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Read every queued event into [`Changes`]. False when the instance failed.
    pub fn drain(&mut self) -> bool {
        loop {
            let events = match self.inotify.read_events(&mut self.buf) {
                Ok(events) => events,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return false,
            };
            let mut moved_dirs = Vec::new();
            let mut gone_watches = Vec::new();
            for ev in events {
                if ev.mask.contains(EventMask::Q_OVERFLOW) {
                    self.changes.rescan = true;
                    continue;
                }
                let Some(dir) = self.dirs.get(&ev.wd) else {
                    continue;
                };
                if ev.mask.contains(EventMask::IGNORED) {
                    // The directory is gone (or moved away and unwatched below).
                    if dir.is_empty() {
                        self.changes.rescan = true;
                    }
                    gone_watches.push(ev.wd.clone());
                    continue;
                }
                let Some(name) = ev.name.map(|n| n.to_str()) else {
                    // The directory itself was deleted or moved: the root means start over.
                    if dir.is_empty() {
                        self.changes.rescan = true;
                    } else {
                        let dir = dir.clone();
                        self.changes.report(dir);
                    }
                    continue;
                };
                // Not a name the index could hold.
                let Some(name) = name else { continue };
                let path = if dir.is_empty() {
                    name.to_string()
                } else {
                    format!("{dir}/{name}")
                };
                if IGNORE_FILES.contains(&name) {
                    self.changes.rescan = true;
                }
                if ev.mask.contains(EventMask::ISDIR) && ev.mask.contains(EventMask::MOVED_FROM) {
                    moved_dirs.push(path.clone());
                }
                self.changes.report(path);
            }
            for wd in gone_watches {
                self.dirs.remove(&wd);
            }
            // A directory moved away takes its watches along, under paths that are no longer
            // true: drop them (the walk of wherever it went watches it again).
            for moved in moved_dirs {
                let prefix = format!("{moved}/");
                let stale: Vec<WatchDescriptor> = self
                    .dirs
                    .iter()
                    .filter(|(_, d)| **d == moved || d.starts_with(&prefix))
                    .map(|(wd, _)| wd.clone())
                    .collect();
                for wd in stale {
                    let _ = self.inotify.watches().remove(wd.clone());
                    self.dirs.remove(&wd);
                }
            }
        }
    }
}

/// What an index that follows the disk keeps of its watcher: the slot (`None` when none
/// runs) and whether a full walk has been done since, after which the watcher's reports
/// stand in for walks.
#[derive(Default)]
pub(crate) struct Follow {
    watched: Mutex<Option<Watched>>,
    walked: AtomicBool,
}

impl Follow {
    /// The watcher's report since the last call (events still queued included), when it
    /// can stand in for a walk.
    pub fn take_changes(&self) -> Option<HashSet<String>> {
        let mut slot = self.watched.lock().unwrap_or_else(|p| p.into_inner());
        let w = slot.as_mut()?;
        if !w.drain() {
            *slot = None;
            return None;
        }
        let report = std::mem::take(&mut w.changes);
        if report.rescan || !self.walked() {
            return None;
        }
        Some(report.paths)
    }

    /// Watch the directory `rel` under `root` as a walk enters it (before it is listed).
    /// When the OS refuses (the watch limit), watching ends and refreshes walk again.
    pub fn watch_dir(&self, root: &Path, rel: &str) {
        let mut slot = self.watched.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(w) = slot.as_mut()
            && w.add(root, rel).is_err()
        {
            *slot = None;
        }
    }

    /// A full walk has been done (and, with a watcher, watches everything it entered).
    pub fn walked(&self) -> bool {
        self.walked.load(Ordering::SeqCst)
    }

    /// Say whether a full walk has been done: false makes the next refresh walk.
    pub fn set_walked(&self, walked: bool) {
        self.walked.store(walked, Ordering::SeqCst);
    }

    /// A watcher runs (it stops for good when the OS refuses a watch or reading fails).
    pub fn watching(&self) -> bool {
        self.watched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }
}

/// An index a watcher reports to.
pub(crate) trait Followed: Send + Sync + 'static {
    fn follow(&self) -> &Follow;
}

/// Keeps a watcher reading: dropping it stops the reader and the watching.
pub struct WatchHandle {
    stop: Option<UnixStream>,
    reader: Option<std::thread::JoinHandle<()>>,
    on_stop: Option<Box<dyn FnOnce() + Send>>,
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        if let Some(f) = self.on_stop.take() {
            f();
        }
        // Closing our end wakes the reader, which then ends.
        drop(self.stop.take());
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

/// Start watching for `owner`: a fresh [`Watched`] in its slot (the next refresh walks the
/// tree, watching what it enters) and a reader thread draining it.
pub(crate) fn start<O: Followed>(owner: &Arc<O>) -> io::Result<WatchHandle> {
    let watched = Watched::new()?;
    // The reader polls a duplicate of the descriptor, valid for as long as it runs.
    let fd = watched.inotify.as_fd().try_clone_to_owned()?;
    let (stop, stopped) = UnixStream::pair()?;
    *owner
        .follow()
        .watched
        .lock()
        .unwrap_or_else(|p| p.into_inner()) = Some(watched);
    let me = Arc::downgrade(owner);
    let reader = std::thread::Builder::new()
        .name("ultra-index-watch".into())
        .spawn(move || read_loop(&fd, &stopped, &me))?;
    let me = Arc::downgrade(owner);
    Ok(WatchHandle {
        stop: Some(stop),
        reader: Some(reader),
        on_stop: Some(Box::new(move || {
            if let Some(me) = me.upgrade() {
                *me.follow()
                    .watched
                    .lock()
                    .unwrap_or_else(|p| p.into_inner()) = None;
            }
        })),
    })
}

/// Wait for events (or the stop), then drain them under the slot's lock.
fn read_loop<O: Followed>(fd: &OwnedFd, stopped: &UnixStream, me: &Weak<O>) {
    loop {
        let mut fds = [
            libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: stopped.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: `fds` is a valid array of two pollfd for the length given, and both
        // descriptors stay open for the call (owned by this thread's borrows).
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
        if n < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        if fds[1].revents != 0 || fds[0].revents & (libc::POLLERR | libc::POLLNVAL) != 0 {
            return;
        }
        let Some(me) = me.upgrade() else { return };
        let mut slot = me
            .follow()
            .watched
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let Some(w) = slot.as_mut() else { return };
        if !w.drain() {
            // Reading failed: watching is over, and refreshes walk again.
            *slot = None;
            return;
        }
    }
}
