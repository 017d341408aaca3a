//! Property: whatever path a client sends, the resolver answers with a path beneath the
//! root (which, if it exists, really is beneath the root on disk) or an error. Never a
//! panic, never an escape, whatever mix of `..`, `.`, slashes, absolute prefixes and
//! symlinks (inside, outside, chained, looping) the path walks through.

#![allow(clippy::unwrap_used)]

use std::os::unix::fs::symlink;
use std::path::Path;

use proptest::prelude::*;
use ultra_workspace::Root;
use ultra_workspace::root::RootOptions;

fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        Just("..".to_string()),
        Just(".".to_string()),
        Just("".to_string()),
        Just("in".to_string()),
        Just("out".to_string()),
        Just("up".to_string()),
        Just("loop".to_string()),
        Just("abs".to_string()),
        Just("sibling_evil".to_string()),
        Just("f.txt".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn resolve_never_escapes(parts in proptest::collection::vec(component(), 0..12), absolute in any::<bool>(), follow in any::<bool>()) {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("root");
        let outside = base.path().join("outside");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(base.path().join("root_evil")).unwrap();
        std::fs::write(root.join("a/f.txt"), "x").unwrap();
        std::fs::write(outside.join("f.txt"), "secret").unwrap();
        symlink("a", root.join("in")).unwrap();
        symlink("../outside", root.join("out")).unwrap();
        symlink("../../..", root.join("a/up")).unwrap();
        symlink("loop", root.join("loop")).unwrap();
        symlink(&outside, root.join("abs")).unwrap();
        symlink("../root_evil", root.join("sibling_evil")).unwrap();

        let r = Root::open(&root, RootOptions::default()).unwrap();
        let joined = parts.join("/");
        let user = if absolute { format!("{}/{joined}", root.display()) } else { joined };
        if let Ok(rel) = r.resolve(&user, follow) {
            prop_assert!(!rel.as_str().split('/').any(|c| c == ".." || c == "."), "{rel} has dot components");
            let full = root.join(rel.as_str());
            if let Ok(real) = std::fs::canonicalize(&full) {
                let real_root = std::fs::canonicalize(&root).unwrap();
                // The final component may be a symlink left unfollowed (follow = false);
                // its parent must still be beneath the root.
                let check = if follow || rel.as_str().is_empty() { real.as_path().to_path_buf() } else {
                    std::fs::canonicalize(full.parent().unwrap_or(Path::new("/"))).unwrap_or(real.clone())
                };
                prop_assert!(check.starts_with(&real_root), "{user} resolved to {rel}, which is {check:?}");
            }
            // Reading through the resolved path never yields the outside secret.
            if let Ok((bytes, _)) = r.read(&rel) {
                prop_assert_ne!(bytes, b"secret".to_vec());
            }
        }
    }
}
