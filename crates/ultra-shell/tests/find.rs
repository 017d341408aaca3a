//! `find` compared with GNU find (output sorted: GNU lists in directory order, Ultra in
//! name order), plus refusals and structured errors.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;

fn ws() -> Ws {
    let ws = Ws::new();
    ws.add("src/main.rs", "fn main() {}\n");
    ws.add("src/lib.rs", &"x".repeat(3000));
    ws.add("src/util/Mod.RS", "");
    ws.add("src/util/helpers.ts", "export {}\n");
    ws.add("docs/readme.md", "# hi\n");
    ws.add(".hidden/cfg.toml", "a = 1\n");
    ws.add("node_modules/pkg/index.js", "module.exports = 1\n");
    ws.add("empty.txt", "");
    std::fs::create_dir_all(ws.dir.path().join("root/emptydir")).unwrap();
    std::os::unix::fs::symlink("src/main.rs", ws.dir.path().join("root/link.rs")).unwrap();
    ws
}

const CASES: &[&str] = &[
    "find . | sort",
    "find src | sort",
    "find src/ | sort",
    "find . -name '*.rs' | sort",
    "find . -iname '*.rs' | sort",
    "find . -name '*.rs' -o -name '*.ts' | sort",
    "find . -type f | sort",
    "find . -type d | sort",
    "find . -type l",
    "find . -type f,l -name '*.rs' | sort",
    "find . -maxdepth 1 | sort",
    "find . -maxdepth 1 -type d | sort",
    "find . -mindepth 2 -type f | sort",
    "find . -mindepth 1 -maxdepth 2 -type d | sort",
    "find src -maxdepth 0",
    "find . -path './src/*' | sort",
    "find . -path '*util*' -type f | sort",
    "find . -type f -not -path './node_modules/*' | sort",
    "find . -type f ! -name '*.rs' | sort",
    "find . -empty | sort",
    "find . -type f -empty | sort",
    "find . -type d -empty | sort",
    "find . -size +2k | sort",
    "find . -type f -size -1 | sort",
    "find . -size 6c",
    "find . -type f -size +100c | sort",
    "find src docs -name '*.md'",
    "find missing; echo $?",
    "find src missing -name '*.ts'; echo $?",
    "find . -name '*.rs' -print | sort",
    "find . -name '*.md' -print0 | tr '\\0' '\\n'",
    "find . -name 'cfg*'",
    "find . -name '[mh]*' | sort",
    "find . -name 'main.?s'",
    "find src -type f | wc -l",
    "find . -type f -name '*.js' | head -1",
    "find . -xdev -name '*.rs' | sort",
    "find . -mount -maxdepth 1 -type d | sort",
];

#[test]
fn matches_gnu() {
    common::differential(&mut ws(), CASES);
}

#[test]
fn newer_compares_modification_times() {
    let mut ws = ws();
    let old = ws.dir.path().join("root/docs/readme.md");
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(t)
        .unwrap();
    let (out, err, st) = ws.run("find docs src -newer docs/readme.md -type f | sort");
    assert_eq!((err.as_str(), st), ("", 0));
    assert_eq!(
        out,
        "src/lib.rs\nsrc/main.rs\nsrc/util/Mod.RS\nsrc/util/helpers.ts\n"
    );
}

#[test]
fn exec_and_delete_are_refused_with_a_structured_error() {
    let mut ws = ws();
    for script in ["find . -name '*.rs' -delete", "find . -exec rm {} ;"] {
        let (out, err, st) = ws.run(script);
        assert_eq!((out.as_str(), st), ("", 1), "{script}");
        let v: serde_json::Value = serde_json::from_str(&err).unwrap();
        assert_eq!(v["error"], "invalid_arguments");
        assert_eq!(v["issues"][0]["code"], "unsupported_flag", "{err}");
        assert!(
            v["issues"][0]["message"]
                .as_str()
                .unwrap()
                .contains("xargs")
        );
    }
    assert!(ws.dir.path().join("root/src/main.rs").exists());
    let (_, err, st) = ws.run("find . -size 3q");
    assert_eq!(st, 1);
    assert!(err.contains("\"path\": \"size\""), "{err}");
    let (_, err, st) = ws.run("find . -frob");
    assert_eq!(st, 1);
    assert!(err.contains("unknown_flag"), "{err}");
    let (_, err, _) = ws.run("find ../..");
    assert!(err.contains("find: '../..'"), "{err}");
}
