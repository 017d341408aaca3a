//! The HTML sanitiser every agent's markup passes through on the server (security.md §2.4):
//! ammonia from an empty allowlist. Kept: text, layout, tables, lists, links, images and
//! form controls with the attributes the page's no-script hooks need (`data-state-scope`,
//! `data-state-key`, `data-command`). Gone: scripts, styles, raw-text elements, SVG and
//! MathML (their content too), every `on*` handler and `style`, any URL that is not `https:`
//! or `mailto:`. `id`, `name` and `for` are prefixed with [`ID_PREFIX`] so agent markup
//! cannot clobber the page's own globals; targets and `{{form.NAME}}` are resolved with the
//! prefix by the page.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// What agent `id`, `name` and `for` values are prefixed with.
pub const ID_PREFIX: &str = "u-";
/// Most bytes of one `data-command` attribute (seed 002).
pub const MAX_DATA_COMMAND: usize = 32 * 1024;
/// Most template tokens (`{{...}}`) in one element's `data-command` (seed 002).
pub const MAX_TEMPLATE_TOKENS: usize = 16;

const TAGS: &[&str] = &[
    "a",
    "abbr",
    "article",
    "aside",
    "b",
    "blockquote",
    "br",
    "button",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "i",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "main",
    "mark",
    "meter",
    "nav",
    "ol",
    "optgroup",
    "option",
    "p",
    "pre",
    "progress",
    "q",
    "s",
    "samp",
    "section",
    "select",
    "small",
    "span",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "u",
    "ul",
    "var",
];

/// Elements removed with everything inside them: code, styles, raw text, foreign content
/// (the mXSS families of security.md H4/H5 live in SVG and MathML).
const DROP_WITH_CONTENT: &[&str] = &[
    "script",
    "style",
    "title",
    "textarea",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
    "noscript",
    "template",
    "svg",
    "math",
    "object",
    "embed",
    "applet",
    "frameset",
    "frame",
];

const GENERIC_ATTRS: &[&str] = &[
    "class",
    "title",
    "role",
    "lang",
    "dir",
    "hidden",
    "id",
    "data-state-scope",
    "data-state-key",
    "data-command",
];

const TAG_ATTRS: &[(&str, &[&str])] = &[
    ("a", &["href"]),
    ("img", &["src", "alt", "width", "height"]),
    (
        "input",
        &[
            "type",
            "name",
            "value",
            "placeholder",
            "checked",
            "disabled",
            "readonly",
            "required",
            "min",
            "max",
            "step",
            "maxlength",
            "size",
        ],
    ),
    ("button", &["type", "name", "value", "disabled"]),
    ("select", &["name", "multiple", "disabled", "required"]),
    ("option", &["value", "selected", "label", "disabled"]),
    ("optgroup", &["label", "disabled"]),
    ("label", &["for"]),
    ("td", &["colspan", "rowspan"]),
    ("th", &["colspan", "rowspan", "scope"]),
    ("col", &["span"]),
    ("colgroup", &["span"]),
    ("ol", &["start", "reversed"]),
    ("details", &["open"]),
    ("progress", &["value", "max"]),
    ("meter", &["value", "min", "max", "low", "high", "optimum"]),
    ("time", &["datetime"]),
    ("fieldset", &["disabled"]),
];

/// A problem with markup that the sanitiser does not silently fix: an over-long or
/// malformed `data-command`, or one with too many template tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkupIssue {
    pub message: String,
}

/// Sanitise `html`. Markup problems (budgets of `data-command`) are returned beside the
/// cleaned text; the attribute at fault is dropped from the text either way.
pub fn clean(html: &str) -> (String, Vec<MarkupIssue>) {
    let issues: Arc<Mutex<Vec<MarkupIssue>>> = Arc::default();
    let found = issues.clone();
    let tags: HashSet<&str> = TAGS.iter().copied().collect();
    let mut b = ammonia::Builder::empty();
    b.tags(tags)
        .clean_content_tags(DROP_WITH_CONTENT.iter().copied().collect())
        .generic_attributes(GENERIC_ATTRS.iter().copied().collect())
        .tag_attributes(
            TAG_ATTRS
                .iter()
                .map(|(t, a)| (*t, a.iter().copied().collect()))
                .collect(),
        )
        .url_schemes(["https", "mailto"].into_iter().collect())
        .url_relative(ammonia::UrlRelative::Deny)
        .link_rel(Some("noopener noreferrer"))
        .strip_comments(true)
        .attribute_filter(move |_element, attribute, value| match attribute {
            "id" | "name" | "for" => {
                let v = value.trim();
                if v.is_empty() {
                    None
                } else {
                    Some(format!("{ID_PREFIX}{v}").into())
                }
            }
            "data-command" => match check_data_command(value) {
                Ok(()) => Some(value.into()),
                Err(message) => {
                    found
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(MarkupIssue { message });
                    None
                }
            },
            _ => Some(value.into()),
        });
    let out = b.clean(html).to_string();
    drop(b);
    let issues = std::mem::take(&mut *issues.lock().unwrap_or_else(|p| p.into_inner()));
    (out, issues)
}

/// A `data-command` is a JSON array of envelopes (or one envelope) within the budgets.
/// Whether each envelope is valid is decided when the page sends it back, like any call.
pub fn check_data_command(value: &str) -> Result<(), String> {
    if value.len() > MAX_DATA_COMMAND {
        return Err(format!(
            "a data-command of {} bytes is over the {MAX_DATA_COMMAND}-byte limit",
            value.len()
        ));
    }
    let tokens = value.matches("{{").count();
    if tokens > MAX_TEMPLATE_TOKENS {
        return Err(format!(
            "a data-command with {tokens} template tokens is over the limit of {MAX_TEMPLATE_TOKENS}"
        ));
    }
    match serde_json::from_str::<Value>(value) {
        Ok(Value::Array(_)) | Ok(Value::Object(_)) => Ok(()),
        Ok(_) => Err("a data-command must be a JSON array of operations".into()),
        Err(e) => Err(format!("a data-command is not JSON: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::clean;

    fn c(s: &str) -> String {
        clean(s).0
    }

    #[test]
    fn keeps_what_pages_need() {
        assert_eq!(c("<b>hi</b>"), "<b>hi</b>");
        assert_eq!(
            c(r#"<input data-state-scope="window" data-state-key="title" name="title">"#),
            r#"<input data-state-scope="window" data-state-key="title" name="u-title">"#
        );
        assert_eq!(
            c(r#"<a href="https://example.com">x</a>"#),
            r#"<a href="https://example.com" rel="noopener noreferrer">x</a>"#
        );
        assert_eq!(
            c(r#"<div id="status">s</div>"#),
            r#"<div id="u-status">s</div>"#
        );
        let cmd = r##"<button data-command='[{"op":"dom.set","params":{"windowId":"w","target":"#s","html":"{{form.t}}"}}]'>Go</button>"##;
        assert!(c(cmd).contains("data-command="), "{}", c(cmd));
    }

    /// security.md H1-H3, H6: handlers, scripts, dangerous URLs, frames, styles.
    #[test]
    fn drops_what_runs() {
        for (dirty, clean_text) in [
            ("<script>alert(1)</script>x", "x"),
            ("<img src=x onerror=alert(1)>", "<img>"),
            ("<svg onload=alert(1)><circle/></svg>y", "y"),
            (
                "<details open ontoggle=alert(1)>d</details>",
                "<details open=\"\">d</details>",
            ),
            (
                r#"<a href="javascript:alert(1)">a</a>"#,
                r#"<a rel="noopener noreferrer">a</a>"#,
            ),
            (
                r#"<a href="JaVaScRiPt:alert(1)">a</a>"#,
                r#"<a rel="noopener noreferrer">a</a>"#,
            ),
            (
                r#"<a href="java&#x09;script:alert(1)">a</a>"#,
                r#"<a rel="noopener noreferrer">a</a>"#,
            ),
            (
                r#"<img src="data:text/html,<script>alert(1)</script>">"#,
                "<img>",
            ),
            (
                r#"<iframe srcdoc="<script>alert(1)</script>"></iframe>z"#,
                "z",
            ),
            (r#"<object data="x"></object><embed src="x">"#, ""),
            (r#"<base href="https://evil.example/">"#, ""),
            (
                r#"<meta http-equiv="refresh" content="0;url=javascript:alert(1)">"#,
                "",
            ),
            (
                r#"<form action="https://evil.example"><button formaction="javascript:alert(1)">b</button></form>"#,
                "<form><button>b</button></form>",
            ),
            (
                r#"<p style="background:url(javascript:alert(1))">p</p>"#,
                "<p>p</p>",
            ),
            ("<style>@import 'x';</style>q", "q"),
        ] {
            assert_eq!(c(dirty), clean_text, "{dirty}");
        }
    }

    /// security.md H4, H5, H7: mutation XSS and parser confusion come out inert, and
    /// cleaning is stable under a second pass (what a reparse in the page would see).
    #[test]
    fn mutation_payloads_are_inert() {
        for dirty in [
            r#"<svg><iframe><a title="</iframe><img src onerror=alert(1)>">"#,
            "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
            r#"<noscript><p title="</noscript><img src=x onerror=alert(1)>">"#,
            "<svg><a><set attributeName=href to=javascript:alert(1)><text>x</text></a></svg>",
            "<math><annotation-xml encoding=\"text/html\"><img src=x onerror=alert(1)></annotation-xml></math>",
            "<scr<script>ipt>alert(1)</script>",
            "<!--><script>alert(1)</script>-->",
            "</title><script>alert(1)</script>",
            "a\0<script>alert(1)</script>",
        ] {
            let once = c(dirty);
            let lower = once.to_ascii_lowercase();
            for bad in [
                "<script",
                "onerror",
                "javascript:",
                "<svg",
                "<math",
                "<iframe",
                "<style",
            ] {
                assert!(!lower.contains(bad), "{dirty} -> {once}");
            }
            assert_eq!(c(&once), once, "{dirty}");
        }
    }

    proptest::proptest! {
        #[test]
        fn cleaning_is_idempotent(s in "(<[a-z]{1,6}( [a-z-]{1,8}=\"[^\"]{0,8}\")?>|</[a-z]{1,6}>|[a-z<>&\"'= ]{0,6}){0,12}") {
            let once = c(&s);
            proptest::prop_assert_eq!(c(&once), once);
        }
    }

    #[test]
    fn data_command_budgets() {
        let long = format!(
            r#"<button data-command='[{{"op":"x","params":{{"h":"{}"}}}}]'>b</button>"#,
            "a".repeat(33 * 1024)
        );
        let (text, issues) = clean(&long);
        assert_eq!(text, "<button>b</button>");
        assert!(issues[0].message.contains("limit"), "{issues:?}");
        let many = format!(
            r#"<button data-command='[{{"op":"x","params":{{"h":"{}"}}}}]'>b</button>"#,
            "{{value}}".repeat(17)
        );
        assert!(clean(&many).1[0].message.contains("template tokens"));
        assert!(
            !clean(r#"<button data-command='nope'>b</button>"#)
                .1
                .is_empty()
        );
    }
}
