//! Checks made before a WebSocket upgrade, against browser attacks (security.md §1-§2):
//! the `Host` header must name this machine's loopback (DNS rebinding) unless configured
//! otherwise, and an `Origin`, when there is one, must be on the allow-list (cross-site
//! WebSocket hijacking). A request without `Origin` is not from a browser page.

/// Names a loopback listener answers to.
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Whether the `Host` header names an allowed host: loopback, or one of `extra` (the
/// configured listen host, when it is not loopback).
pub fn host_allowed(host: Option<&str>, extra: &[&str]) -> bool {
    let Some(host) = host else {
        return false;
    };
    let name = strip_port(host.trim()).to_ascii_lowercase();
    let name = name.trim_end_matches('.');
    LOOPBACK.contains(&name) || extra.iter().any(|e| e.eq_ignore_ascii_case(name))
}

/// The `allowedOrigins` entry that admits every origin (seed 003).
pub const ANY_ORIGIN: &str = "*";

/// Whether the `Origin` header is acceptable: absent, exactly one of `allowed`, or any
/// origin when `allowed` holds [`ANY_ORIGIN`]. A wildcard leaves the `Host` check and the
/// token as they are: a page from anywhere may connect, and still needs the token.
pub fn origin_allowed(origin: Option<&str>, allowed: &[String]) -> bool {
    match origin {
        None => true,
        Some(o) => allowed
            .iter()
            .any(|a| a.trim() == ANY_ORIGIN || a.eq_ignore_ascii_case(o.trim())),
    }
}

/// `host:port`, `[v6]:port` or `[v6]` → the host part.
fn strip_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) && !h.contains(':') => h,
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use super::{host_allowed, origin_allowed};

    #[test]
    fn hosts() {
        for ok in [
            "localhost:19876",
            "127.0.0.1:19876",
            "[::1]:19876",
            "LOCALHOST",
            "localhost.",
        ] {
            assert!(host_allowed(Some(ok), &[]), "{ok}");
        }
        for bad in [
            "evil.example:19876",
            "127.0.0.1.evil.example",
            "localhost.evil.example",
            "0.0.0.0:19876",
            "",
        ] {
            assert!(!host_allowed(Some(bad), &[]), "{bad}");
        }
        assert!(!host_allowed(None, &[]));
        assert!(host_allowed(Some("devbox:19876"), &["devbox"]));
    }

    #[test]
    fn origins() {
        let allowed = vec!["http://localhost:3000".to_string()];
        assert!(origin_allowed(None, &allowed));
        assert!(origin_allowed(Some("http://localhost:3000"), &allowed));
        assert!(!origin_allowed(Some("http://localhost:3001"), &allowed));
        assert!(!origin_allowed(Some("https://evil.example"), &allowed));
        assert!(!origin_allowed(Some("null"), &allowed));
        assert!(!origin_allowed(Some("https://evil.example"), &[]));
        // `*` is a wildcard, not an origin spelled `*`.
        let any = vec!["*".to_string()];
        for o in ["https://evil.example", "null", "http://localhost:3001"] {
            assert!(origin_allowed(Some(o), &any), "{o}");
        }
        assert!(!origin_allowed(
            Some("https://evil.example"),
            &["https://*".into()]
        ));
    }
}
