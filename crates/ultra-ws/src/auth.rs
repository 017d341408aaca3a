//! The shared secret of seed 003 §3.3 and the checks around it: where the token comes from
//! (config, `ULTRA_TOKEN`, or a generated one in a private file), nonces, a comparison that
//! takes the same time whatever the guess, and a back-off for peers that keep failing.

use std::collections::HashMap;
use std::io::Write;
use std::net::IpAddr;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::WsError;

/// The file a generated token is kept in, inside the directory given to [`Token::resolve`].
pub const TOKEN_FILE: &str = "ws-token";

/// Where the token came from (said at start; the token itself never is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// `token` in `ultra.config.json`.
    Config,
    /// The `ULTRA_TOKEN` environment variable.
    Env,
    /// A generated 256-bit token in this 0600 file.
    File(PathBuf),
}

/// The secret a client must present.
pub struct Token {
    secret: String,
    /// Where it came from.
    pub source: TokenSource,
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl Token {
    /// The configured token, else `env` (the value of `ULTRA_TOKEN`), else the one in
    /// `dir`/[`TOKEN_FILE`], generated on first use. `dir` is made 0700 and must belong to
    /// this user; the file is created 0600 and refused if anyone else can read it.
    pub fn resolve(config: Option<&str>, env: Option<&str>, dir: &Path) -> Result<Token, WsError> {
        if let Some(t) = config.filter(|t| !t.is_empty()) {
            return Ok(Token::fixed(t, TokenSource::Config));
        }
        if let Some(t) = env.filter(|t| !t.is_empty()) {
            return Ok(Token::fixed(t, TokenSource::Env));
        }
        let err = |what: &str, e: std::io::Error| WsError::Token {
            path: dir.to_path_buf(),
            reason: format!("{what}: {e}"),
        };
        std::fs::create_dir_all(dir).map_err(|e| err("create", e))?;
        let meta = std::fs::symlink_metadata(dir).map_err(|e| err("stat", e))?;
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        if meta.file_type().is_symlink() || !meta.is_dir() || meta.uid() != me {
            return Err(WsError::Token {
                path: dir.to_path_buf(),
                reason: "not a directory of this user".into(),
            });
        }
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| err("chmod", e))?;
        let path = dir.join(TOKEN_FILE);
        match std::fs::symlink_metadata(&path) {
            Ok(m) => {
                if !m.is_file() || m.uid() != me || m.mode() & 0o077 != 0 {
                    return Err(WsError::Token {
                        path,
                        reason: "must be a regular file of this user with mode 0600 (delete it to get a new token)".into(),
                    });
                }
                let secret = std::fs::read_to_string(&path).map_err(|e| err("read", e))?;
                let secret = secret.trim().to_string();
                if secret.len() < 32 {
                    return Err(WsError::Token {
                        path,
                        reason: "too short (delete it to get a new token)".into(),
                    });
                }
                Ok(Token {
                    secret,
                    source: TokenSource::File(path),
                })
            }
            Err(_) => {
                let secret = random_hex(32)?;
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&path)
                    .map_err(|e| err("create the token file", e))?;
                f.write_all(secret.as_bytes())
                    .and_then(|()| f.sync_all())
                    .map_err(|e| err("write the token file", e))?;
                Ok(Token {
                    secret,
                    source: TokenSource::File(path),
                })
            }
        }
    }

    /// A token given as is (tests, config, environment).
    pub fn fixed(secret: &str, source: TokenSource) -> Token {
        Token {
            secret: secret.to_string(),
            source,
        }
    }

    /// Whether `given` is the token, in time that does not depend on where they differ
    /// (BLAKE3 digests compare in constant time).
    pub fn matches(&self, given: &str) -> bool {
        blake3::hash(given.as_bytes()) == blake3::hash(self.secret.as_bytes())
    }

    /// Whether `signature` (hex) is the MAC of `nonce` under the token, for clients that
    /// would rather not send the token itself: BLAKE3 in keyed mode, keyed with the BLAKE3
    /// hash of the token.
    pub fn signed(&self, nonce: &str, signature: &str) -> bool {
        let Ok(given) = blake3::Hash::from_hex(signature.trim()) else {
            return false;
        };
        given == self.mac(nonce)
    }

    /// The MAC of `nonce` that [`Token::signed`] accepts.
    pub fn mac(&self, nonce: &str) -> blake3::Hash {
        let key = blake3::hash(self.secret.as_bytes());
        blake3::keyed_hash(key.as_bytes(), nonce.as_bytes())
    }
}

/// `n` random bytes, hex.
pub(crate) fn random_hex(n: usize) -> Result<String, WsError> {
    let mut b = vec![0u8; n];
    getrandom::fill(&mut b).map_err(|e| WsError::Random(e.to_string()))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Failed authentications per peer address: each one makes that peer wait longer before
/// it hears back (up to [`Backoff::MAX`]), so guessing the token over the network is slow.
#[derive(Default)]
pub(crate) struct Backoff {
    failures: Mutex<HashMap<IpAddr, (u32, Instant)>>,
}

impl Backoff {
    const MAX: Duration = Duration::from_secs(5);
    /// A peer's count is forgotten after this long without failures.
    const FORGET: Duration = Duration::from_secs(600);

    /// Record a failure from `peer`; how long to wait before answering it.
    pub fn fail(&self, peer: IpAddr) -> Duration {
        let mut map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        map.retain(|_, (_, at)| now.duration_since(*at) < Self::FORGET);
        let entry = map.entry(peer).or_insert((0, now));
        entry.0 = entry.0.saturating_add(1);
        entry.1 = now;
        let ms = 100u64.saturating_mul(1 << entry.0.min(6).saturating_sub(1));
        Duration::from_millis(ms).min(Self::MAX)
    }

    /// A success clears the peer's count.
    pub fn succeed(&self, peer: IpAddr) {
        self.failures
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&peer);
    }
}

#[cfg(test)]
mod tests {
    use super::{Backoff, Token, TokenSource};

    #[test]
    fn token_sources_and_file_permissions() {
        let dir = tempfile::tempdir().expect("tempdir");
        let state = dir.path().join("state");
        let t = Token::resolve(Some("from-config"), Some("from-env"), &state).expect("config");
        assert_eq!(t.source, TokenSource::Config);
        assert!(t.matches("from-config") && !t.matches("from-env"));
        let t = Token::resolve(None, Some("from-env"), &state).expect("env");
        assert_eq!(t.source, TokenSource::Env);
        let t = Token::resolve(None, None, &state).expect("generated");
        let TokenSource::File(path) = &t.source else {
            panic!("{:?}", t.source)
        };
        use std::os::unix::fs::PermissionsExt;
        let mode =
            |p: &std::path::Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(path), 0o600);
        assert_eq!(mode(&state), 0o700);
        let secret = std::fs::read_to_string(path).expect("read");
        assert_eq!(secret.len(), 64, "256 bits, hex");
        // The same token next time.
        let again = Token::resolve(None, None, &state).expect("again");
        assert!(again.matches(&secret));
        // A token file others can read is refused.
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(Token::resolve(None, None, &state).is_err());
    }

    #[test]
    fn signatures_and_backoff() {
        let t = Token::fixed("secret", TokenSource::Config);
        let mac = t.mac("nonce-1").to_hex().to_string();
        assert!(t.signed("nonce-1", &mac));
        assert!(!t.signed("nonce-2", &mac));
        assert!(!t.signed("nonce-1", "zz"));
        let b = Backoff::default();
        let ip = "127.0.0.1".parse().expect("ip");
        let waits: Vec<u128> = (0..8).map(|_| b.fail(ip).as_millis()).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1600, 3200, 3200, 3200]);
        b.succeed(ip);
        assert_eq!(b.fail(ip).as_millis(), 100);
    }
}
