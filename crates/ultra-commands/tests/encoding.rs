//! Position encodings: a caller that counts UTF-16 code units (LSP, JavaScript) or UTF-8
//! bytes gets positions in its own units, in and out.

#![allow(clippy::unwrap_used)]

use serde_json::json;
use ultra_core::Config;
use ultra_protocol::{PositionEncoding, Source, SourceKind};

fn caller(enc: PositionEncoding) -> Source {
    let mut s = Source::new(SourceKind::Ai);
    s.position_encoding = Some(enc);
    s
}

#[tokio::test]
async fn utf16_and_utf8_callers_address_the_same_character() {
    let dir = tempfile::tempdir().unwrap();
    // "a😀b": 😀 is one scalar value, two UTF-16 units, four UTF-8 bytes.
    std::fs::write(dir.path().join("e.txt"), "a😀b\n").unwrap();
    let mut config = Config::default();
    config.audit.enabled = false;
    let exec = ultra_commands::build(dir.path(), config).unwrap();
    let range = |s: u32, e: u32| json!({"start": {"line": 0, "character": s}, "end": {"line": 0, "character": e}});

    // Replace `b`: UTF-16 columns 3..4.
    let r = exec
        .execute(
            "ultra.edit",
            json!({"path": "e.txt", "range": range(3, 4), "text": "B"}),
            caller(PositionEncoding::Utf16),
        )
        .await;
    assert!(r.success, "{:?}", r.error);
    // Replace the emoji: UTF-8 columns 1..5.
    let r = exec
        .execute(
            "ultra.edit",
            json!({"path": "e.txt", "range": range(1, 5), "text": "-"}),
            caller(PositionEncoding::Utf8),
        )
        .await;
    assert!(r.success, "{:?}", r.error);
    let c = exec
        .execute(
            "ultra.getFileContent",
            json!({"path": "e.txt"}),
            caller(PositionEncoding::Utf32),
        )
        .await;
    assert_eq!(c.data.unwrap()["content"], "a-B\n");

    // Selections come back in the caller's units.
    std::fs::write(dir.path().join("f.txt"), "😀x\n").unwrap();
    exec.execute(
        "ultra.openFile",
        json!({"path": "f.txt"}),
        caller(PositionEncoding::Utf32),
    )
    .await;
    exec.execute(
        "ultra.setSelection",
        json!({"range": range(1, 2)}),
        caller(PositionEncoding::Utf32),
    )
    .await;
    let s16 = exec
        .execute(
            "ultra.getSelection",
            json!({}),
            caller(PositionEncoding::Utf16),
        )
        .await
        .data
        .unwrap();
    assert_eq!(s16["text"], "x");
    assert_eq!(s16["range"]["start"]["character"], 2);
    let s8 = exec
        .execute(
            "ultra.getSelection",
            json!({}),
            caller(PositionEncoding::Utf8),
        )
        .await
        .data
        .unwrap();
    assert_eq!(s8["range"]["start"]["character"], 4);
    assert_eq!(s8["range"]["end"]["character"], 5);
}
