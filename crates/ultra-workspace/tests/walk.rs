//! Walks beneath the root: listings in name order with the kinds the directory reports,
//! no way out through symlinks (followed or swapped in), special files and hard links
//! refused as `open_file` refuses them, and listings that never disturb one another.

#![allow(clippy::unwrap_used)]

use std::os::unix::fs::symlink;

use ultra_workspace::root::{Kind, RootOptions};
use ultra_workspace::{RelPath, Root, WsError};

fn tree() -> (tempfile::TempDir, Root) {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
    std::fs::create_dir_all(base.path().join("outside")).unwrap();
    std::fs::write(base.path().join("outside/secret"), "secret").unwrap();
    for name in ["b.txt", "a.txt", "Z.txt", "sub/x.rs", "sub/deeper/y.rs"] {
        std::fs::write(root.join(name), name).unwrap();
    }
    symlink("../outside", root.join("out")).unwrap();
    symlink("sub", root.join("in")).unwrap();
    let r = Root::open(&root, RootOptions::default()).unwrap();
    (base, r)
}

fn rel(r: &Root, p: &str) -> RelPath {
    r.lexical(p).unwrap()
}

#[test]
fn entries_are_sorted_by_name_bytes_with_their_kinds() {
    let (_base, r) = tree();
    let (top, got) = r.walk_dir(&rel(&r, "")).unwrap();
    let names: Vec<_> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Z.txt", "a.txt", "b.txt", "in", "out", "sub"]);
    assert_eq!(got[0].1, Kind::File);
    assert_eq!(got[3].1, Kind::Symlink);
    assert_eq!(got[5].1, Kind::Dir);
    let (sub, _) = top.open_dir("sub").unwrap();
    assert_eq!(sub.rel().as_str(), "sub");
    let (deeper, listed) = sub.open_dir("deeper").unwrap();
    assert_eq!(deeper.rel().as_str(), "sub/deeper");
    assert_eq!(listed, [("y.rs".to_string(), Kind::File)]);
    let (mut f, meta) = r.open_file_in(&deeper, "y.rs").unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut f, &mut text).unwrap();
    assert_eq!((text.as_str(), meta.kind), ("sub/deeper/y.rs", Kind::File));
}

#[test]
fn symlinks_lead_nowhere() {
    let (_base, r) = tree();
    let (top, _) = r.walk_dir(&rel(&r, "")).unwrap();
    // A directory symlink is not a directory to a walk, inside the root or out of it.
    assert!(top.open_dir("in").is_err());
    assert!(top.open_dir("out").is_err());
    assert!(r.open_file_in(&top, "out/secret").is_err());
    assert!(top.open_dir("..").is_err());
    assert!(r.open_file_in(&top, "../outside/secret").is_err());
}

#[test]
fn special_files_and_hard_links_are_refused() {
    let (base, r) = tree();
    let root = base.path().join("root");
    let fifo = std::ffi::CString::new(root.join("fifo").to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    std::fs::hard_link(base.path().join("outside/secret"), root.join("alias")).unwrap();
    let (top, kinds) = r.walk_dir(&rel(&r, "")).unwrap();
    assert!(kinds.contains(&("fifo".to_string(), Kind::Other)));
    // The FIFO is refused at once, not after blocking on a writer.
    assert!(matches!(
        r.open_file_in(&top, "fifo"),
        Err(WsError::NotAFile { .. })
    ));
    assert!(matches!(
        r.open_file_in(&top, "alias"),
        Err(WsError::HardLinked(p)) if p == "alias"
    ));
    assert!(matches!(
        r.open_file_in(&top, "sub"),
        Err(WsError::NotAFile { .. })
    ));
}

#[test]
fn listings_of_one_directory_do_not_disturb_each_other() {
    let (base, r) = tree();
    for i in 0..2000 {
        std::fs::write(base.path().join(format!("root/sub/f{i:04}")), "").unwrap();
    }
    // Interleave two listings of the root and of one subdirectory, from several threads:
    // each must see every entry (a shared directory offset would lose some).
    let r = &r;
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(move || {
                for _ in 0..20 {
                    let (top, listed) = r.walk_dir(&rel(r, "")).unwrap();
                    assert_eq!(listed.len(), 6);
                    let (_, listed) = top.open_dir("sub").unwrap();
                    assert_eq!(listed.len(), 2002);
                    let (_, listed) = r.walk_dir(&rel(r, "sub")).unwrap();
                    assert_eq!(listed.len(), 2002);
                }
            });
        }
    });
}
