//! The real components behind `component.render` (seed 002 had mock ones): table, list,
//! form, code, diff and markdown, rendered on the server into markup the page inserts as
//! is. Every piece of text from props is escaped; nothing from props becomes markup.

use serde_json::Value;

use crate::ops::Invalid;
use crate::sanitize::ID_PREFIX;

/// The component types.
pub const TYPES: &[&str] = &["table", "list", "form", "code", "diff", "markdown"];

/// Escape text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn str_prop<'a>(props: &'a Value, key: &str, at: &str) -> Result<&'a str, Invalid> {
    props
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| Invalid::at(format!("{at}/{key}"), format!("`{key}` must be a string")))
}

fn array_prop<'a>(props: &'a Value, key: &str, at: &str) -> Result<&'a Vec<Value>, Invalid> {
    props
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| Invalid::at(format!("{at}/{key}"), format!("`{key}` must be an array")))
}

/// Render component `kind` with `props`; problems point under `at` (the props' pointer).
pub fn render(kind: &str, props: &Value, at: &str) -> Result<String, Invalid> {
    let body = match kind {
        "table" => table(props, at)?,
        "list" => list(props, at)?,
        "form" => form(props, at)?,
        "code" => code(props, at)?,
        "diff" => diff(props, at)?,
        "markdown" => markdown(str_prop(props, "text", at)?),
        other => {
            return Err(Invalid::at(
                at.trim_end_matches("/props").to_string() + "/type",
                format!(
                    "unknown component type `{other}`; one of: {}",
                    TYPES.join(", ")
                ),
            ));
        }
    };
    Ok(body)
}

/// `{columns: [..], rows: [[..] | {col: ..}]}`.
fn table(props: &Value, at: &str) -> Result<String, Invalid> {
    let columns = array_prop(props, "columns", at)?;
    let rows = array_prop(props, "rows", at)?;
    let names: Vec<String> = columns.iter().map(text).collect();
    let mut h = String::from("<table class=\"uicp-table\"><thead><tr>");
    for n in &names {
        h.push_str(&format!("<th>{}</th>", esc(n)));
    }
    h.push_str("</tr></thead><tbody>");
    for (i, row) in rows.iter().enumerate() {
        h.push_str("<tr>");
        match row {
            Value::Array(cells) => {
                for c in cells {
                    h.push_str(&format!("<td>{}</td>", esc(&text(c))));
                }
            }
            Value::Object(m) => {
                for n in &names {
                    h.push_str(&format!(
                        "<td>{}</td>",
                        esc(&m.get(n).map(text).unwrap_or_default())
                    ));
                }
            }
            _ => {
                return Err(Invalid::at(
                    format!("{at}/rows/{i}"),
                    "a row is an array of cells or an object by column",
                ));
            }
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table>");
    Ok(h)
}

/// `{items: [..], ordered?: bool}`.
fn list(props: &Value, at: &str) -> Result<String, Invalid> {
    let items = array_prop(props, "items", at)?;
    let tag = if props.get("ordered").and_then(Value::as_bool) == Some(true) {
        "ol"
    } else {
        "ul"
    };
    let mut h = format!("<{tag} class=\"uicp-list\">");
    for it in items {
        h.push_str(&format!("<li>{}</li>", esc(&text(it))));
    }
    h.push_str(&format!("</{tag}>"));
    Ok(h)
}

/// `{fields: [{name, label, type?: text|textarea|select|number|checkbox, options?,
/// placeholder?, defaultValue?}], submit?: label, command?: [operations]}`. The submit
/// button carries `command` as its `data-command`, so `{{form.NAME}}` in it reads the
/// fields.
pub fn form(props: &Value, at: &str) -> Result<String, Invalid> {
    let fields = array_prop(props, "fields", at)?;
    let mut h = String::from("<form class=\"uicp-form\">");
    for (i, f) in fields.iter().enumerate() {
        let fat = format!("{at}/fields/{i}");
        let name = str_prop(f, "name", &fat)?;
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(Invalid::at(
                format!("{fat}/name"),
                "a field name is letters, digits, `_` and `-`",
            ));
        }
        let label = f.get("label").map(text).unwrap_or_else(|| name.to_string());
        let kind = f.get("type").and_then(Value::as_str).unwrap_or("text");
        let placeholder = f.get("placeholder").map(text).unwrap_or_default();
        let default = f
            .get("defaultValue")
            .or_else(|| f.get("default_value"))
            .map(text)
            .unwrap_or_default();
        let id = format!("{ID_PREFIX}{name}");
        h.push_str(&format!(
            "<div class=\"uicp-field\"><label for=\"{id}\">{}</label>",
            esc(&label)
        ));
        match kind {
            "select" => {
                let options = array_prop(f, "options", &fat)?;
                h.push_str(&format!("<select id=\"{id}\" name=\"{id}\">"));
                for o in options {
                    let o = text(o);
                    let sel = if o == default { " selected" } else { "" };
                    h.push_str(&format!(
                        "<option value=\"{}\"{sel}>{}</option>",
                        esc(&o),
                        esc(&o)
                    ));
                }
                h.push_str("</select>");
            }
            "textarea" => h.push_str(&format!(
                "<textarea id=\"{id}\" name=\"{id}\" placeholder=\"{}\">{}</textarea>",
                esc(&placeholder),
                esc(&default)
            )),
            "text" | "number" | "checkbox" | "email" | "date" => h.push_str(&format!(
                "<input id=\"{id}\" name=\"{id}\" type=\"{kind}\" placeholder=\"{}\" value=\"{}\">",
                esc(&placeholder),
                esc(&default)
            )),
            other => {
                return Err(Invalid::at(
                    format!("{fat}/type"),
                    format!(
                        "field type `{other}` is not one of text, textarea, select, number, checkbox, email, date"
                    ),
                ));
            }
        }
        h.push_str("</div>");
    }
    let submit = props
        .get("submit")
        .map(text)
        .unwrap_or_else(|| "Submit".into());
    let command = match props.get("command") {
        None | Some(Value::Null) => String::new(),
        Some(c) => {
            let s = c.to_string();
            crate::sanitize::check_data_command(&s)
                .map_err(|m| Invalid::at(format!("{at}/command"), m))?;
            format!(" data-command=\"{}\"", esc(&s))
        }
    };
    h.push_str(&format!(
        "<button type=\"submit\"{command}>{}</button>",
        esc(&submit)
    ));
    if let Some(cancel) = props.get("cancel").and_then(Value::as_str) {
        let cancel_cmd = props
            .get("cancelCommand")
            .map(|c| format!(" data-command=\"{}\"", esc(&c.to_string())))
            .unwrap_or_default();
        h.push_str(&format!(
            "<button type=\"button\" class=\"uicp-cancel\"{cancel_cmd}>{}</button>",
            esc(cancel)
        ));
    }
    h.push_str("</form>");
    Ok(h)
}

/// `{code, language?}`: numbered lines.
fn code(props: &Value, at: &str) -> Result<String, Invalid> {
    let code = str_prop(props, "code", at)?;
    let lang = props.get("language").and_then(Value::as_str).unwrap_or("");
    let mut h = format!(
        "<pre class=\"uicp-code\" data-language=\"{}\"><code>",
        esc(lang)
    );
    for (i, line) in code.lines().enumerate() {
        h.push_str(&format!(
            "<span class=\"ln\">{}</span>{}\n",
            i + 1,
            esc(line)
        ));
    }
    h.push_str("</code></pre>");
    Ok(h)
}

/// `{diff}` (unified text) or `{old, new}`: added, removed and context lines marked.
fn diff(props: &Value, at: &str) -> Result<String, Invalid> {
    let text = match (props.get("diff"), props.get("old"), props.get("new")) {
        (Some(Value::String(d)), _, _) => d.clone(),
        (_, Some(Value::String(a)), Some(Value::String(b))) => line_diff(a, b),
        _ => {
            return Err(Invalid::at(
                format!("{at}/diff"),
                "give `diff` (unified text) or `old` and `new`",
            ));
        }
    };
    let mut h = String::from("<pre class=\"uicp-diff\">");
    for line in text.lines() {
        let class = if line.starts_with("+++") || line.starts_with("---") {
            "file"
        } else if line.starts_with('+') {
            "add"
        } else if line.starts_with('-') {
            "del"
        } else if line.starts_with("@@") {
            "hunk"
        } else {
            "ctx"
        };
        // Each line is a block of its own (see app.css), so no newline between them.
        h.push_str(&format!("<span class=\"{class}\">{}</span>", esc(line)));
    }
    h.push_str("</pre>");
    Ok(h)
}

/// A plain line diff (longest common subsequence on lines; small inputs only).
fn line_diff(a: &str, b: &str) -> String {
    let (x, y): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    if x.len() * y.len() > 4_000_000 {
        return format!("-{}\n+{}", x.join("\n-"), y.join("\n+"));
    }
    let mut lcs = vec![vec![0u32; y.len() + 1]; x.len() + 1];
    for i in (0..x.len()).rev() {
        for j in (0..y.len()).rev() {
            lcs[i][j] = if x[i] == y[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < x.len() || j < y.len() {
        if i < x.len() && j < y.len() && x[i] == y[j] {
            out.push(format!(" {}", x[i]));
            i += 1;
            j += 1;
        } else if j < y.len() && (i == x.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push(format!("+{}", y[j]));
            j += 1;
        } else {
            out.push(format!("-{}", x[i]));
            i += 1;
        }
    }
    out.join("\n")
}

/// A small Markdown subset: headings, paragraphs, lists, fenced code, quotes, rules, and
/// inline code, bold, italics and https links. Everything is escaped first.
pub fn markdown(src: &str) -> String {
    let mut h = String::from("<div class=\"uicp-markdown\">");
    let mut para: Vec<String> = Vec::new();
    let mut list: Option<&str> = None;
    let mut fence: Option<Vec<String>> = None;
    let flush = |h: &mut String, para: &mut Vec<String>| {
        if !para.is_empty() {
            h.push_str(&format!("<p>{}</p>", inline(&para.join(" "))));
            para.clear();
        }
    };
    let close_list = |h: &mut String, list: &mut Option<&str>| {
        if let Some(tag) = list.take() {
            h.push_str(&format!("</{tag}>"));
        }
    };
    for line in src.lines() {
        if let Some(code) = fence.as_mut() {
            if line.trim_start().starts_with("```") {
                h.push_str(&format!(
                    "<pre><code>{}</code></pre>",
                    esc(&code.join("\n"))
                ));
                fence = None;
            } else {
                code.push(line.to_string());
            }
            continue;
        }
        let t = line.trim();
        if t.starts_with("```") {
            flush(&mut h, &mut para);
            close_list(&mut h, &mut list);
            fence = Some(Vec::new());
        } else if t.is_empty() {
            flush(&mut h, &mut para);
            close_list(&mut h, &mut list);
        } else if let Some(level) =
            (1..=6).find(|n| t.starts_with(&"#".repeat(*n)) && t[*n..].starts_with(' '))
        {
            flush(&mut h, &mut para);
            close_list(&mut h, &mut list);
            h.push_str(&format!(
                "<h{level}>{}</h{level}>",
                inline(t[level..].trim())
            ));
        } else if t == "---" || t == "***" {
            flush(&mut h, &mut para);
            close_list(&mut h, &mut list);
            h.push_str("<hr>");
        } else if let Some(item) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
            flush(&mut h, &mut para);
            if list != Some("ul") {
                close_list(&mut h, &mut list);
                h.push_str("<ul>");
                list = Some("ul");
            }
            h.push_str(&format!("<li>{}</li>", inline(item)));
        } else if let Some((n, item)) = t
            .split_once(". ")
            .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        {
            let _ = n;
            flush(&mut h, &mut para);
            if list != Some("ol") {
                close_list(&mut h, &mut list);
                h.push_str("<ol>");
                list = Some("ol");
            }
            h.push_str(&format!("<li>{}</li>", inline(item)));
        } else if let Some(q) = t.strip_prefix("> ") {
            flush(&mut h, &mut para);
            close_list(&mut h, &mut list);
            h.push_str(&format!("<blockquote>{}</blockquote>", inline(q)));
        } else {
            close_list(&mut h, &mut list);
            para.push(t.to_string());
        }
    }
    if let Some(code) = fence {
        h.push_str(&format!(
            "<pre><code>{}</code></pre>",
            esc(&code.join("\n"))
        ));
    }
    flush(&mut h, &mut para);
    close_list(&mut h, &mut list);
    h.push_str("</div>");
    h
}

/// Inline Markdown on escaped text: `code`, **bold**, *italic*, [text](https://...).
fn inline(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('`')
            && let Some(end) = after.find('`')
        {
            out.push_str(&format!("<code>{}</code>", esc(&after[..end])));
            rest = &after[end + 1..];
        } else if let Some(after) = rest.strip_prefix("**")
            && let Some(end) = after.find("**")
        {
            out.push_str(&format!("<strong>{}</strong>", inline(&after[..end])));
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix('*')
            && let Some(end) = after.find('*')
            && end > 0
        {
            out.push_str(&format!("<em>{}</em>", inline(&after[..end])));
            rest = &after[end + 1..];
        } else if let Some(after) = rest.strip_prefix('[')
            && let Some(close) = after.find("](")
            && let Some(end) = after[close + 2..].find(')')
        {
            let label = &after[..close];
            let url = &after[close + 2..close + 2 + end];
            if url.starts_with("https://") && !url.contains(['"', '<', '>', ' ']) {
                out.push_str(&format!(
                    "<a href=\"{}\" rel=\"noopener noreferrer\">{}</a>",
                    esc(url),
                    inline(label)
                ));
            } else {
                out.push_str(&esc(label));
            }
            rest = &after[close + 2 + end + 1..];
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push_str(&esc(&c.to_string()));
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn components_render_and_escape() {
        let t = render(
            "table",
            &json!({"columns": ["a", "b"], "rows": [[1, "<x>"], {"a": "y", "b": null}]}),
            "/p",
        )
        .expect("table");
        assert!(
            t.contains("<th>a</th>") && t.contains("<td>&lt;x&gt;</td>"),
            "{t}"
        );
        assert!(t.contains("<td>y</td><td></td>"), "{t}");
        let l = render("list", &json!({"items": ["one"], "ordered": true}), "/p").expect("list");
        assert_eq!(l, "<ol class=\"uicp-list\"><li>one</li></ol>");
        let f = render(
            "form",
            &json!({"fields": [{"name": "title", "label": "Title"}], "submit": "Save",
                    "command": [{"op": "state.set", "params": {"scope": "global", "key": "t", "value": "{{form.title}}"}}]}),
            "/p",
        )
        .expect("form");
        assert!(
            f.contains("name=\"u-title\"") && f.contains("data-command=\"[{&quot;op"),
            "{f}"
        );
        let d = render("diff", &json!({"old": "a\nb\n", "new": "a\nc\n"}), "/p").expect("diff");
        assert!(
            d.contains("<span class=\"del\">-b</span>")
                && d.contains("<span class=\"add\">+c</span>"),
            "{d}"
        );
        let e = render("form", &json!({"fields": [{"name": "a b"}]}), "/p").expect_err("name");
        assert_eq!(e.pointer, "/p/fields/0/name");
        let e = render("chart", &json!({}), "/x/props").expect_err("type");
        assert_eq!(e.pointer, "/x/type");
    }

    #[test]
    fn markdown_subset() {
        let h = markdown(
            "# Title\n\nSome **bold** and `code` <b>.\n\n- a\n- b\n\n```\nx < y\n```\n[site](https://example.com) [bad](javascript:alert(1))",
        );
        assert!(h.contains("<h1>Title</h1>"), "{h}");
        assert!(
            h.contains("<strong>bold</strong> and <code>code</code> &lt;b&gt;."),
            "{h}"
        );
        assert!(h.contains("<ul><li>a</li><li>b</li></ul>"), "{h}");
        assert!(h.contains("<pre><code>x &lt; y</code></pre>"), "{h}");
        assert!(h.contains("<a href=\"https://example.com\""), "{h}");
        assert!(!h.contains("javascript"), "{h}");
    }
}
