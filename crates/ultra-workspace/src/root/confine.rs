//! Confinement: a user's path becomes a [`RelPath`] beneath the root (lexically, then one
//! symlink hop at a time), and protected paths are refused to programs and agents.

use std::collections::VecDeque;
use std::path::{Component, Path};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::{RelPath, Root};
use crate::error::WsError;

const MAX_PATH_BYTES: usize = 4096;
const MAX_COMPONENTS: usize = 255;
const MAX_SYMLINK_HOPS: usize = 40;

/// Paths no program or agent may write, whatever the config says: git internals (hooks and
/// config run code) and Ultra's own config and state (an agent must not edit its guardrails).
const BUILTIN_WRITE_PROTECTED: &[&str] = &["ultra.config.json", ".ultra"];

/// The glob set of `list`; a plain `dir` also covers everything below it.
pub(super) fn globs(list: &[String]) -> Result<GlobSet, WsError> {
    let mut b = GlobSetBuilder::new();
    for g in list {
        let glob = GlobBuilder::new(&g.to_lowercase())
            .literal_separator(false)
            .build()
            .map_err(|e| WsError::InvalidPath {
                path: g.clone(),
                why: format!("bad glob: {e}"),
            })?;
        b.add(glob);
        // `dir` also protects everything below it.
        if !g.contains('*')
            && let Ok(sub) =
                GlobBuilder::new(&format!("{}/**", g.to_lowercase().trim_end_matches('/'))).build()
        {
            b.add(sub);
        }
    }
    b.build().map_err(|e| WsError::InvalidPath {
        path: list.join(","),
        why: e.to_string(),
    })
}

impl Root {
    /// Normalise a user path lexically: absolute paths must lie under the root, `..` may not
    /// climb above it, NUL bytes and absurd lengths are refused.
    pub fn lexical(&self, user: &str) -> Result<RelPath, WsError> {
        let invalid = |why: &str| WsError::InvalidPath {
            path: user.chars().take(200).collect(),
            why: why.into(),
        };
        if user.contains('\0') {
            return Err(invalid("it contains a NUL byte"));
        }
        if user.len() > MAX_PATH_BYTES {
            return Err(invalid("it is longer than 4096 bytes"));
        }
        let p = Path::new(user);
        let rel = if p.is_absolute() {
            match p
                .strip_prefix(&self.canonical)
                .or_else(|_| p.strip_prefix(&self.given))
            {
                Ok(r) => r,
                Err(_) => {
                    return Err(WsError::Outside {
                        path: user.into(),
                        why: String::new(),
                    });
                }
            }
        } else {
            p
        };
        let mut parts: Vec<&str> = Vec::new();
        for c in rel.components() {
            match c {
                Component::Normal(s) => {
                    parts.push(s.to_str().ok_or_else(|| invalid("it is not UTF-8"))?)
                }
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err(WsError::Outside {
                            path: user.into(),
                            why: " (`..` climbs above the root)".into(),
                        });
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(WsError::Outside {
                        path: user.into(),
                        why: String::new(),
                    });
                }
            }
        }
        if parts.len() > MAX_COMPONENTS {
            return Err(invalid("it has more than 255 components"));
        }
        Ok(RelPath(parts.join("/")))
    }

    /// Resolve a user path to the real path beneath the root, following symlinks (each hop
    /// must stay beneath the root). With `follow_last: false` the final component is kept
    /// as is, so delete and rename act on a link rather than its target.
    pub fn resolve(&self, user: &str, follow_last: bool) -> Result<RelPath, WsError> {
        let lexical = self.lexical(user)?;
        let mut todo: VecDeque<String> = lexical
            .0
            .split('/')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let mut done: Vec<String> = Vec::new();
        let mut hops = 0;
        let mut missing = false;
        while let Some(c) = todo.pop_front() {
            if c == "." {
                continue;
            }
            if c == ".." {
                if done.pop().is_none() {
                    return Err(WsError::Outside {
                        path: user.into(),
                        why: " (through a symlink)".into(),
                    });
                }
                continue;
            }
            let is_last = todo.is_empty();
            done.push(c);
            if missing || (is_last && !follow_last) {
                continue;
            }
            let candidate = done.join("/");
            match self.dir.symlink_metadata(&candidate) {
                Ok(m) if m.file_type().is_symlink() => {
                    hops += 1;
                    if hops > MAX_SYMLINK_HOPS {
                        return Err(WsError::InvalidPath {
                            path: user.into(),
                            why: "too many levels of symlinks".into(),
                        });
                    }
                    let target = self
                        .dir
                        .read_link_contents(&candidate)
                        .map_err(|e| WsError::io("read link", &candidate, e))?;
                    if target.is_absolute() {
                        return Err(WsError::Outside {
                            path: user.into(),
                            why: " (through an absolute symlink)".into(),
                        });
                    }
                    done.pop();
                    let mut parts: Vec<String> = Vec::new();
                    for comp in target.components() {
                        match comp {
                            Component::Normal(s) => parts.push(
                                s.to_str()
                                    .ok_or_else(|| WsError::InvalidPath {
                                        path: user.into(),
                                        why: "symlink target is not UTF-8".into(),
                                    })?
                                    .to_string(),
                            ),
                            Component::ParentDir => parts.push("..".into()),
                            _ => {}
                        }
                    }
                    for p in parts.into_iter().rev() {
                        todo.push_front(p);
                    }
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing = true,
                Err(e) => return Err(WsError::io("resolve", &candidate, e)),
            }
        }
        if done.len() > MAX_COMPONENTS {
            return Err(WsError::InvalidPath {
                path: user.into(),
                why: "it has more than 255 components".into(),
            });
        }
        Ok(RelPath(done.join("/")))
    }

    /// Refuse writes to protected paths. People (`human`) may write anywhere in the root;
    /// programs and agents may not touch `.git` internals, Ultra's config and state, or
    /// configured restricted paths. Matching is case-insensitive, so `.GIT/config` is caught
    /// on case-insensitive file systems too.
    pub fn check_writable(&self, rel: &RelPath, human: bool) -> Result<(), WsError> {
        if human {
            return Ok(());
        }
        let lower = rel.0.to_lowercase();
        if lower.split('/').any(|c| c == ".git") {
            return Err(WsError::Restricted {
                path: rel.0.clone(),
                rule: ".git internals".into(),
            });
        }
        let first = lower.split('/').next().unwrap_or("");
        if BUILTIN_WRITE_PROTECTED.contains(&first) {
            return Err(WsError::Restricted {
                path: rel.0.clone(),
                rule: "Ultra's own configuration".into(),
            });
        }
        self.check_readable(rel, human)
    }

    /// Refuse reads of configured restricted paths by programs and agents.
    pub fn check_readable(&self, rel: &RelPath, human: bool) -> Result<(), WsError> {
        if human || self.restricted_list.is_empty() {
            return Ok(());
        }
        let lower = rel.0.to_lowercase();
        if self.restricted.is_match(&lower) {
            return Err(WsError::Restricted {
                path: rel.0.clone(),
                rule: "security.restrictedPaths".into(),
            });
        }
        Ok(())
    }
}
