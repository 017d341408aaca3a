//! The model: windows, content budgets, idempotency, state, components and intents.

use super::*;
use crate::ops::parse_batch;

fn apply(ui: &mut Ui, v: Value) -> Result<Outcome, Invalid> {
    ui.apply(&parse_batch(v)?, 1_000)
}

#[test]
fn windows_content_and_the_safety_net() {
    let mut ui = Ui::default();
    let out = apply(
        &mut ui,
        json!([
            {"op": "window.create", "params": {"id": "w1", "title": "One", "size": "sm"}},
            {"op": "dom.set", "params": {"windowId": "w1", "target": "root", "html": "<p id=s>hi</p><script>x</script>"}},
            {"op": "dom.append", "params": {"windowId": "ghost", "target": "root", "html": "<b>b</b>"}},
        ]),
    )
    .expect("applies");
    assert_eq!(out.results.len(), 3);
    let w = ui.window("w1").expect("w1");
    assert_eq!((w.width, w.height), (360, 260));
    assert_eq!(w.content[0].html, "<p id=\"u-s\">hi</p>");
    let ghost = ui.window("ghost").expect("made by the safety net");
    assert_eq!(ghost.content.len(), 1);
    assert!(out.mutations.iter().any(|m| matches!(
        m,
        Mutation::WindowOpen {
            synthetic: true,
            ..
        }
    )));
    // Replaying the mutations gives the same screen.
    let mut replay = Ui::default();
    for m in &out.mutations {
        replay.mutate(m);
    }
    assert_eq!(replay.windows(), ui.windows());
    // A set supersedes earlier content of its target.
    apply(
        &mut ui,
        json!([{"op": "dom.set", "params": {"windowId": "w1", "target": "root", "html": "new"}}]),
    )
    .expect("set");
    assert_eq!(ui.window("w1").expect("w1").content.len(), 1);
}

#[test]
fn content_is_bounded() {
    let mut ui = Ui::default();
    let piece = "x".repeat(60 * 1024);
    apply(
        &mut ui,
        json!([{"op": "window.create", "params": {"id": "w", "title": "T"}}]),
    )
    .expect("w");
    // Sets of distinct targets add up like appends.
    let mut refused = None;
    for i in 0..40 {
        let r = apply(
            &mut ui,
            json!([{"op": "dom.set", "params": {"windowId": "w", "target": format!("#t{i}"), "html": piece}}]),
        );
        if let Err(e) = r {
            refused = Some(i);
            assert!(e.message.contains("too much"), "{}", e.message);
            break;
        }
    }
    assert_eq!(refused, Some(17), "1 MB per window");
    // Setting a target again replaces it, so it still fits.
    apply(
        &mut ui,
        json!([{"op": "dom.set", "params": {"windowId": "w", "target": "#t0", "html": piece}}]),
    )
    .expect("replace");
    // And setting the root starts over.
    apply(
        &mut ui,
        json!([{"op": "dom.set", "params": {"windowId": "w", "target": "root", "html": "ok"}}]),
    )
    .expect("root");
    assert_eq!(ui.window("w").expect("w").content.len(), 1);
}

#[test]
fn a_refused_batch_changes_nothing() {
    let mut ui = Ui::default();
    let e = apply(
        &mut ui,
        json!([
            {"op": "window.create", "params": {"id": "w1", "title": "One"}},
            {"op": "window.close", "params": {"id": "nope"}},
        ]),
    )
    .expect_err("unknown window");
    assert_eq!(e.pointer, "/1/params/id");
    assert!(ui.windows().is_empty());
}

#[test]
fn idempotency_state_components_and_txns() {
    let mut ui = Ui::default();
    let b = json!([{"op": "window.create", "idempotencyKey": "k", "params": {"id": "w", "title": "T"}}]);
    apply(&mut ui, b.clone()).expect("first");
    let again = apply(&mut ui, b).expect("repeat");
    assert_eq!(again.results[0]["duplicate"], true);
    assert_eq!(ui.windows().len(), 1);

    apply(&mut ui, json!([{"op": "state.set", "params": {"scope": "window", "windowId": "w", "key": "k", "value": 5, "ttlMs": 10}}])).expect("set");
    let got = ui.apply(&parse_batch(json!([{"op": "state.get", "params": {"scope": "window", "windowId": "w", "key": "k"}}])).expect("p"), 1_005).expect("get");
    assert_eq!(got.results[0]["value"], 5);
    let gone = ui.apply(&parse_batch(json!([{"op": "state.get", "params": {"scope": "window", "windowId": "w", "key": "k"}}])).expect("p"), 1_011).expect("get");
    assert_eq!(gone.results[0]["found"], false);

    let out = apply(&mut ui, json!([{"op": "component.render", "params": {"id": "t", "windowId": "w", "target": "root", "type": "list", "props": {"items": ["a"]}}}])).expect("render");
    assert_eq!(out.results[0]["componentId"], "t");
    apply(
        &mut ui,
        json!([{"op": "component.update", "params": {"id": "t", "props": {"items": ["b"]}}}]),
    )
    .expect("update");
    let piece = &ui.window("w").expect("w").content[0];
    assert!(piece.html.contains("<li>b</li>"), "{}", piece.html);
    apply(
        &mut ui,
        json!([{"op": "component.destroy", "params": {"id": "t"}}]),
    )
    .expect("destroy");
    assert!(ui.window("w").expect("w").content.is_empty());

    apply(
        &mut ui,
        json!([{"op": "txn.cancel", "params": {"id": "t1"}}]),
    )
    .expect("cancel");
    let c = apply(
        &mut ui,
        json!([{"op": "window.create", "txnId": "t1", "params": {"id": "late", "title": "L"}}]),
    )
    .expect("cancelled");
    assert_eq!(c.results[0]["cancelled"], true);
    assert!(ui.window("late").is_none());
}

#[test]
fn intents_and_clarifiers() {
    let mut ui = Ui::default();
    let out = apply(&mut ui, json!([{"op": "api.call", "params": {"method": "POST", "url": "uicp://intent", "body": {"text": "more detail"}}}])).expect("intent");
    assert!(matches!(&out.effects[0], Effect::Intent(v) if v["text"] == "more detail"));
    let out = apply(&mut ui, json!([{"op": "api.call", "params": {"method": "POST", "url": "uicp://intent",
        "body": {"title": "Clarify", "text_prompt": "Which?", "fields": [{"name": "answer", "label": "Answer"}], "submit": "Go"}}}])).expect("clarifier");
    let id = out.results[0]["windowId"]
        .as_str()
        .expect("window")
        .to_string();
    let html = &ui.window(&id).expect("form window").content[0].html;
    assert!(
        html.contains("Which?")
            && html.contains("name=\"u-answer\"")
            && html.contains("{{form.answer}}"),
        "{html}"
    );
    let e = apply(&mut ui, json!([{"op": "api.call", "params": {"url": "uicp://intent", "body": {"text": "x", "fields": []}}}])).expect_err("both");
    assert_eq!(e.pointer, "/0/params/body/text");
    let out = apply(
        &mut ui,
        json!([{"op": "api.call", "params": {"url": "gopher://x"}}]),
    )
    .expect("no-op");
    assert_eq!(out.results[0]["ignored"], true);
}
