//! `file://` URIs for paths, and back.

use std::path::{Path, PathBuf};

/// Bytes kept as they are in a URI path; everything else is percent-encoded.
fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/')
}

/// The `file://` URI of an absolute path.
pub fn from_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if plain(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path a `file://` URI names; `None` for another scheme or a bad escape.
pub fn to_path(uri: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let rest = uri.strip_prefix("file://")?;
    // `file://host/path`: only the local host.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let mut bytes = Vec::with_capacity(rest.len());
    let mut it = rest.bytes();
    while let Some(b) = it.next() {
        if b == b'%' {
            let hex = [it.next()?, it.next()?];
            let hex = std::str::from_utf8(&hex).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
        } else {
            bytes.push(b);
        }
    }
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for p in ["/a/b.py", "/tmp/with space/ü #x%.ts", "/"] {
            let u = from_path(Path::new(p));
            assert!(u.starts_with("file:///"), "{u}");
            assert!(!u.contains(' ') && !u.contains('#'), "{u}");
            assert_eq!(to_path(&u).as_deref(), Some(Path::new(p)));
        }
        // Servers may encode the colon or write lowercase escapes.
        assert_eq!(
            to_path("file:///c%3a/x").as_deref(),
            Some(Path::new("/c:/x"))
        );
        assert_eq!(to_path("http://x/y"), None);
        assert_eq!(to_path("file:///bad%2"), None);
    }
}
