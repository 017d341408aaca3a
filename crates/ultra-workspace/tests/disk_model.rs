//! Model test: open buffers follow the disk whatever writes it.
//!
//! Random interleavings of external operations (in-place write, temp + rename, unlink +
//! create, truncate + write, delete, chmod, a same-size write with its mtime restored, a
//! symlink swap, non-UTF-8 bytes, and on a real repository `git checkout` of a branch,
//! `git stash`, `git reset --hard` and `git checkout -- f.txt`) with reads, agent edits (with the hash they last read),
//! saves, forced saves, batch saves (with a second, dirty file: the journaled
//! all-or-nothing path) and reverts, checked after every step against a model of what the
//! disk and the buffer must hold:
//! - a clean buffer equals the disk at the next read;
//! - a buffer is dirty only if someone edited it;
//! - a dirty buffer whose file changed, appeared, disappeared or was replaced is flagged,
//!   and a save without `force` never writes over the new disk content;
//! - a batch save refused for one file writes none of them.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use proptest::prelude::*;
use ultra_protocol::{Source, SourceKind};
use ultra_workspace::workspace::{EditOp, FileEdits, WorkspaceOptions};
use ultra_workspace::{RelPath, Workspace, WsError, text};

#[derive(Debug, Clone)]
enum Ext {
    InPlace(String),
    TempRename(String),
    UnlinkCreate(String),
    TruncateWrite(String),
    Delete,
    Chmod,
    /// Same length as the disk's content, mtime set back to the old one (`cp -p`).
    SameSizeOldMtime,
    /// The path becomes a symlink to `other.txt`.
    SymlinkSwap,
    NotUtf8,
    /// A git command on the real repository around the file.
    Git(Git),
}

#[derive(Debug, Clone, Copy)]
enum Git {
    /// `git checkout -f` of branch `one` or `two` (their `f.txt` differ).
    Checkout(bool),
    Stash,
    ResetHard,
    CheckoutFile,
}

#[derive(Debug, Clone)]
enum Op {
    Ext(Ext),
    Read,
    /// An agent inserts a line, passing the hash of its last read.
    AgentEdit,
    Save,
    SaveForce,
    /// `save_many` of `f.txt` and `g.txt`, whose buffer is first edited so it is dirty.
    SaveBatch,
    Revert,
}

fn content() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![Just("a"), Just("b\n"), Just("é"), Just("zz\n")],
        0..6,
    )
    .prop_map(|v| v.concat())
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => content().prop_map(|c| Op::Ext(Ext::InPlace(c))),
        2 => content().prop_map(|c| Op::Ext(Ext::TempRename(c))),
        2 => content().prop_map(|c| Op::Ext(Ext::UnlinkCreate(c))),
        1 => content().prop_map(|c| Op::Ext(Ext::TruncateWrite(c))),
        1 => Just(Op::Ext(Ext::Delete)),
        1 => Just(Op::Ext(Ext::Chmod)),
        2 => Just(Op::Ext(Ext::SameSizeOldMtime)),
        1 => Just(Op::Ext(Ext::SymlinkSwap)),
        1 => Just(Op::Ext(Ext::NotUtf8)),
        1 => any::<bool>().prop_map(|b| Op::Ext(Ext::Git(Git::Checkout(b)))),
        1 => Just(Op::Ext(Ext::Git(Git::Stash))),
        1 => Just(Op::Ext(Ext::Git(Git::ResetHard))),
        1 => Just(Op::Ext(Ext::Git(Git::CheckoutFile))),
        4 => Just(Op::Read),
        3 => Just(Op::AgentEdit),
        2 => Just(Op::Save),
        1 => Just(Op::SaveForce),
        2 => Just(Op::SaveBatch),
        1 => Just(Op::Revert),
    ]
}

/// What the path holds.
#[derive(Debug, Clone, PartialEq)]
enum Disk {
    Absent,
    File(Vec<u8>),
    /// A symlink to `other.txt`, which holds these bytes.
    Link(Vec<u8>),
}

impl Disk {
    fn bytes(&self) -> Option<&[u8]> {
        match self {
            Disk::Absent => None,
            Disk::File(b) | Disk::Link(b) => Some(b),
        }
    }
}

/// The model of the buffer: its text and the base (the disk's text when last in step).
struct Model {
    disk: Disk,
    text: String,
    base: Vec<u8>,
    /// The text an agent last read.
    agent_view: Option<String>,
}

impl Model {
    fn dirty(&self) -> bool {
        self.text.as_bytes() != self.base.as_slice()
    }

    /// What a sync does: a clean buffer takes text it can hold.
    fn sync(&mut self) {
        if let Some(b) = self.disk.bytes()
            && b != self.base.as_slice()
            && !self.dirty()
            && let Ok(t) = std::str::from_utf8(b)
        {
            self.text = t.to_string();
            self.base = b.to_vec();
        }
    }

    fn conflict(&self) -> bool {
        match self.disk.bytes() {
            Some(b) => b != self.base.as_slice(),
            None => self.dirty(),
        }
    }
}

fn write_with_old_mtime(path: &Path, bytes: &[u8]) {
    let old = fs::metadata(path).unwrap().modified().unwrap();
    fs::write(path, bytes).unwrap();
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(old).unwrap();
}

fn apply_ext(root: &Path, m: &mut Model, e: &Ext) {
    let p = root.join("f.txt");
    let unlink = |p: &Path| {
        let _ = fs::remove_file(p);
    };
    match e {
        Ext::InPlace(c) => {
            // Through a link this writes its target, as any program would.
            fs::write(&p, c).unwrap();
            m.disk = match &m.disk {
                Disk::Link(_) => Disk::Link(c.clone().into_bytes()),
                _ => Disk::File(c.clone().into_bytes()),
            };
        }
        Ext::TempRename(c) => {
            let tmp = root.join(".f.txt.tmp");
            fs::write(&tmp, c).unwrap();
            fs::rename(&tmp, &p).unwrap();
            m.disk = Disk::File(c.clone().into_bytes());
        }
        Ext::UnlinkCreate(c) => {
            unlink(&p);
            fs::write(&p, c).unwrap();
            m.disk = Disk::File(c.clone().into_bytes());
        }
        Ext::TruncateWrite(c) => {
            if let Disk::Link(_) = m.disk {
                unlink(&p);
            }
            let f = fs::File::options()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&p)
                .unwrap();
            drop(f);
            fs::write(&p, c).unwrap();
            m.disk = Disk::File(c.clone().into_bytes());
        }
        Ext::Delete => {
            unlink(&p);
            m.disk = Disk::Absent;
        }
        Ext::Chmod => {
            if let Disk::File(_) = m.disk {
                use std::os::unix::fs::PermissionsExt;
                let mode = fs::metadata(&p).unwrap().permissions().mode();
                let new = if mode & 0o100 != 0 { 0o644 } else { 0o755 };
                fs::set_permissions(&p, fs::Permissions::from_mode(new)).unwrap();
            }
        }
        Ext::SameSizeOldMtime => {
            if let Disk::File(b) = &m.disk {
                // Same length, different bytes (ASCII rotated; multi-byte chars kept).
                let mut new: Vec<u8> = b
                    .iter()
                    .map(|c| match c {
                        b'a'..=b'y' => c + 1,
                        b'z' => b'a',
                        _ => *c,
                    })
                    .collect();
                if new == *b && !new.is_empty() && new[0] == b'\n' {
                    new[0] = b'x';
                }
                write_with_old_mtime(&p, &new);
                m.disk = Disk::File(new);
            }
        }
        Ext::SymlinkSwap => {
            let other = b"other\n".to_vec();
            fs::write(root.join("other.txt"), &other).unwrap();
            unlink(&p);
            std::os::unix::fs::symlink("other.txt", &p).unwrap();
            m.disk = Disk::Link(other);
        }
        Ext::Git(g) => {
            let args: &[&str] = match g {
                Git::Checkout(true) => &["checkout", "-q", "-f", "one"],
                Git::Checkout(false) => &["checkout", "-q", "-f", "two"],
                Git::Stash => &["stash", "-q"],
                Git::ResetHard => &["reset", "-q", "--hard"],
                Git::CheckoutFile => &["checkout", "-q", "--", "f.txt"],
            };
            // Whatever git leaves (it may refuse, e.g. nothing to stash) is the disk now.
            let _ = git(root, args);
            m.disk = disk_now(root);
        }
        Ext::NotUtf8 => {
            if let Disk::Link(_) = m.disk {
                unlink(&p);
            }
            let bytes = vec![b'o', 0xff, 0xfe, b'\n'];
            fs::write(&p, &bytes).unwrap();
            m.disk = Disk::File(bytes);
        }
    }
}

/// Run git in `root` with no user or system config; whether it succeeded.
fn git(root: &Path, args: &[&str]) -> bool {
    std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Make `root` a repository: branch `one` holds `initial` in `f.txt`, branch `two` other
/// text; `one` is checked out.
fn init_repo(root: &Path, initial: &str) {
    assert!(git(root, &["init", "-q", "-b", "one"]));
    fs::write(root.join("f.txt"), "two\nlines\n").unwrap();
    assert!(git(root, &["add", "f.txt"]));
    assert!(git(root, &["commit", "-q", "-m", "two"]));
    assert!(git(root, &["branch", "two"]));
    fs::write(root.join("f.txt"), initial).unwrap();
    assert!(git(root, &["add", "f.txt"]));
    assert!(git(root, &["commit", "-q", "--allow-empty", "-m", "one"]));
}

fn disk_now(root: &Path) -> Disk {
    let p = root.join("f.txt");
    match fs::symlink_metadata(&p) {
        Err(_) => Disk::Absent,
        Ok(md) if md.file_type().is_symlink() => Disk::Link(fs::read(&p).unwrap()),
        Ok(_) => Disk::File(fs::read(&p).unwrap()),
    }
}

fn run(initial: &str, ops: &[Op]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("f.txt"), initial).unwrap();
    if ops.iter().any(|o| matches!(o, Op::Ext(Ext::Git(_)))) {
        init_repo(root, initial);
    }
    let mut ws = Workspace::open(root, WorkspaceOptions::default()).unwrap();
    let rel: RelPath = ws.resolve_read("f.txt", true).unwrap();
    ws.open_buffer(&rel).unwrap();
    let agent = Source::new(SourceKind::Ai);
    // The batch's second file: nothing outside writes it.
    fs::write(root.join("g.txt"), "g\n").unwrap();
    let grel: RelPath = ws.resolve_read("g.txt", true).unwrap();
    ws.open_buffer(&grel).unwrap();
    let mut g_text = String::from("g\n");
    let mut g_disk = g_text.clone();
    let mut m = Model {
        disk: Disk::File(initial.as_bytes().to_vec()),
        text: initial.to_string(),
        base: initial.as_bytes().to_vec(),
        agent_view: None,
    };
    for (step, op) in ops.iter().enumerate() {
        let at = format!("step {step} ({op:?})");
        match op {
            Op::Ext(e) => apply_ext(root, &mut m, e),
            Op::Read => {
                m.sync();
                let snap = ws.snapshot(&rel).unwrap();
                prop_assert_eq!(snap.rope.to_string(), m.text.clone(), "{}: text", at);
                prop_assert_eq!(snap.dirty, m.dirty(), "{}: dirty", at);
                let buf = ws.buffer(&rel).unwrap();
                prop_assert_eq!(buf.disk_conflict(), m.conflict(), "{}: conflict", at);
                m.agent_view = Some(m.text.clone());
            }
            Op::AgentEdit => {
                let Some(view) = m.agent_view.clone() else {
                    continue;
                };
                m.sync();
                let res = ws.prepare(vec![FileEdits {
                    path: rel.clone(),
                    expected_version: None,
                    expected_hash: Some(text::hash_bytes(view.as_bytes())),
                    edits: vec![EditOp::Chars {
                        start: 0,
                        end: 0,
                        text: "agent\n".into(),
                    }],
                }]);
                if view == m.text {
                    let prepared = res.map_err(|e| TestCaseError::fail(format!("{at}: {e}")))?;
                    ws.commit(prepared, &agent, "test.edit");
                    m.text = format!("agent\n{}", m.text);
                    m.agent_view = Some(m.text.clone());
                } else {
                    let stale = matches!(res, Err(WsError::Stale(_)));
                    prop_assert!(stale, "{}: an edit from a stale read went through", at);
                }
            }
            Op::Save | Op::SaveForce => {
                let force = matches!(op, Op::SaveForce);
                m.sync();
                let before = disk_now(root);
                prop_assert_eq!(&before, &m.disk, "{}: disk model", at);
                let res = ws.save(&rel, force);
                let refused = res.is_err();
                let link = matches!(m.disk, Disk::Link(_));
                if link {
                    prop_assert!(res.is_err(), "{}: saved over a symlink", at);
                } else if !force && m.conflict() {
                    prop_assert!(res.is_err(), "{}: saved over a changed disk", at);
                } else {
                    res.map_err(|e| TestCaseError::fail(format!("{at}: {e}")))?;
                    m.disk = Disk::File(m.text.clone().into_bytes());
                    m.base = m.text.clone().into_bytes();
                }
                if refused {
                    prop_assert_eq!(
                        disk_now(root),
                        before.clone(),
                        "{}: a refused save wrote",
                        at
                    );
                }
                prop_assert_eq!(disk_now(root), m.disk.clone(), "{}: disk after save", at);
            }
            Op::SaveBatch => {
                let edit = ws
                    .prepare(vec![FileEdits {
                        path: grel.clone(),
                        expected_version: None,
                        expected_hash: None,
                        edits: vec![EditOp::All {
                            text: format!("{g_text}g\n"),
                        }],
                    }])
                    .map_err(|e| TestCaseError::fail(format!("{at}: {e}")))?;
                ws.commit(edit, &agent, "test.edit");
                g_text.push_str("g\n");
                m.sync();
                let before = disk_now(root);
                let res = ws.save_many(&[rel.clone(), grel.clone()], false);
                if matches!(m.disk, Disk::Link(_)) || m.conflict() {
                    prop_assert!(res.is_err(), "{}: a batch saved over a changed disk", at);
                    prop_assert_eq!(disk_now(root), before, "{}: a refused batch wrote f", at);
                } else {
                    res.map_err(|e| TestCaseError::fail(format!("{at}: {e}")))?;
                    m.disk = Disk::File(m.text.clone().into_bytes());
                    m.base = m.text.clone().into_bytes();
                    g_disk = g_text.clone();
                }
                prop_assert_eq!(
                    fs::read_to_string(root.join("g.txt")).unwrap(),
                    g_disk.clone(),
                    "{}: g.txt after a batch save",
                    at
                );
            }
            Op::Revert => {
                m.sync();
                let res = ws.revert(&rel, &agent, "test.revert");
                match m
                    .disk
                    .bytes()
                    .map(|b| std::str::from_utf8(b).map(str::to_string))
                {
                    Some(Ok(t)) => {
                        res.map_err(|e| TestCaseError::fail(format!("{at}: {e}")))?;
                        m.base = t.clone().into_bytes();
                        m.text = t;
                    }
                    _ => prop_assert!(res.is_err(), "{}: reverted to nothing", at),
                }
            }
        }
        // A save of a clean buffer may recreate the file, so check the disk model holds.
        prop_assert_eq!(disk_now(root), m.disk.clone(), "{}: disk", at);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn buffers_follow_the_disk(initial in content(), ops in proptest::collection::vec(op(), 1..30)) {
        run(&initial, &ops)?;
    }
}

/// The stat path, past the racy window: a same-size write that restores the mtime is
/// still seen (by its ctime), without a content precondition forcing a read.
#[test]
fn same_size_write_with_old_mtime_is_seen_by_stat() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f.txt");
    fs::write(&p, "alpha\n").unwrap();
    let old = SystemTime::now() - Duration::from_secs(3600);
    fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(old)
        .unwrap();
    std::thread::sleep(Duration::from_millis(150));
    let mut ws = Workspace::open(dir.path(), WorkspaceOptions::default()).unwrap();
    let rel = ws.resolve_read("f.txt", true).unwrap();
    ws.open_buffer(&rel).unwrap();
    std::thread::sleep(Duration::from_millis(150));
    // Let the first racy re-check pass, so the next look trusts the stat.
    ws.snapshot(&rel).unwrap();
    std::thread::sleep(Duration::from_millis(150));
    ws.snapshot(&rel).unwrap();
    write_with_old_mtime(&p, b"gamma\n");
    assert_eq!(ws.snapshot(&rel).unwrap().rope.to_string(), "gamma\n");
}

/// A dirty buffer whose file keeps changing is noticed once per change, not per look.
#[test]
fn a_conflict_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f.txt");
    fs::write(&p, "one\n").unwrap();
    let mut ws = Workspace::open(dir.path(), WorkspaceOptions::default()).unwrap();
    let rel = ws.resolve_read("f.txt", true).unwrap();
    ws.open_buffer(&rel).unwrap();
    let prepared = ws
        .prepare(vec![FileEdits {
            path: rel.clone(),
            expected_version: None,
            expected_hash: None,
            edits: vec![EditOp::Chars {
                start: 0,
                end: 0,
                text: "x".into(),
            }],
        }])
        .unwrap();
    ws.commit(prepared, &Source::new(SourceKind::Human), "t");
    fs::write(&p, "two\n").unwrap();
    for _ in 0..50 {
        ws.sync_disk(&rel).unwrap();
    }
    assert_eq!(ws.take_notices().len(), 1);
    fs::write(&p, [0xffu8, 0xfe]).unwrap();
    for _ in 0..50 {
        ws.sync_disk(&rel).unwrap();
    }
    assert_eq!(ws.take_notices().len(), 1);
    assert!(ws.buffer(&rel).unwrap().disk_conflict());
    let err = ws.save(&rel, false).unwrap_err();
    assert!(
        matches!(&err, WsError::Stale(s) if s.disk_hash.is_some()),
        "{err:?}"
    );
    assert_eq!(fs::read(&p).unwrap(), vec![0xffu8, 0xfe]);
}
