//! A first index of many files parses Rust (and C) in outline (function bodies that declare
//! nothing are left out), through the real binary: symbols are all there, workspace-wide
//! diagnostics say how many files had their bodies unchecked, and one file asked for by
//! path, or changed on disk, is parsed whole.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;
use serde_json::json;

/// More than a bulk index's threshold (`ultra_index::build::BULK`).
const FILES: usize = 260;

fn module(i: usize, body: &str) -> String {
    format!(
        "/// Module {i}.\npub fn work_{i}(x: u32) -> u32 {{\n{body}\n}}\n\npub fn nested_{i}() {{\n    fn inner_{i}() -> u32 {{ let a = 1; let b = 2; let c = 3; a + b + c + 4 + 5 }}\n    inner_{i}();\n}}\n"
    )
}

const GOOD: &str = "    let y = x * 2 + 1;\n    let z = y.wrapping_mul(3) + 7;\n    z";
const BROKEN: &str = "    let y = x * 2 +;\n    let z = y.wrapping_mul(3) + 7;\n    z";

#[test]
fn a_first_index_skips_empty_bodies_and_a_file_asked_for_is_checked_whole() {
    let ws = Ws::new();
    for i in 0..FILES {
        ws.write(&format!("src/m{i:03}.rs"), &module(i, GOOD));
    }
    ws.write("src/m007.rs", &module(7, BROKEN));
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    let ready = c.ok("code.reindex", json!({}));
    assert_eq!(ready["index"]["state"], "ready", "{ready}");

    // Every function is indexed, nested ones included.
    for name in ["work_7", "inner_7", "nested_259", "inner_0"] {
        let d = c.ok("code.findDefinition", json!({"symbol": name}));
        assert_eq!(d["definitions"].as_array().unwrap().len(), 1, "{name}: {d}");
    }

    // The whole workspace: the bodies of every file were left unchecked, and it says so.
    let all = c.ok("state.getDiagnostics", json!({}));
    assert_eq!(all["bodiesUnchecked"], FILES, "{all}");

    // One file by path is parsed whole: the error inside the body is found.
    let one = c.ok("state.getDiagnostics", json!({"path": "src/m007.rs"}));
    assert_eq!(one["total"], 1, "{one}");
    assert_eq!(one["diagnostics"][0]["range"]["start"]["line"], 2, "{one}");
    assert!(one.get("bodiesUnchecked").is_none(), "{one}");

    // A file changed on disk alone is parsed whole: the workspace answer has its error.
    ws.write("src/m007.rs", &format!("// changed\n{}", module(7, BROKEN)));
    let all = c.ok("state.getDiagnostics", json!({}));
    assert_eq!(all["bodiesUnchecked"], FILES - 1, "{all}");
    assert_eq!(all["total"], 1, "{all}");
    assert_eq!(all["diagnostics"][0]["path"], "src/m007.rs", "{all}");
}

#[test]
fn a_small_first_index_is_parsed_whole() {
    let ws = Ws::new();
    for i in 0..10 {
        ws.write(&format!("src/m{i:03}.rs"), &module(i, GOOD));
    }
    ws.write("src/m003.rs", &module(3, BROKEN));
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok("code.reindex", json!({}));
    let all = c.ok("state.getDiagnostics", json!({}));
    assert!(all.get("bodiesUnchecked").is_none(), "{all}");
    assert_eq!(all["total"], 1, "{all}");
}
