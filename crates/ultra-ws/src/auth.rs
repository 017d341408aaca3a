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

use hmac::{Hmac, Mac};
use sha2::Sha256;

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

    /// Whether `signature` (hex) is HMAC-SHA256 of `nonce` keyed with the token, for
    /// clients that would rather not send the token itself. Python:
    /// `hmac.new(token.encode(), nonce.encode(), "sha256").hexdigest()`; Node:
    /// `createHmac("sha256", token).update(nonce).digest("hex")`. Compared in constant time.
    pub fn signed(&self, nonce: &str, signature: &str) -> bool {
        let Some(given) = from_hex(signature.trim()) else {
            return false;
        };
        self.hmac(nonce).verify_slice(&given).is_ok()
    }

    /// The signature of `nonce` that [`Token::signed`] accepts, hex.
    pub fn mac(&self, nonce: &str) -> String {
        let bytes = self.hmac(nonce).finalize().into_bytes();
        bytes.iter().map(|x| format!("{x:02x}")).collect()
    }

    fn hmac(&self, nonce: &str) -> Hmac<Sha256> {
        // HMAC takes a key of any length.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(self.secret.as_bytes())
            .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
        mac.update(nonce.as_bytes());
        mac
    }
}

fn from_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

/// `n` random bytes, hex.
pub(crate) fn random_hex(n: usize) -> Result<String, WsError> {
    let mut b = vec![0u8; n];
    getrandom::fill(&mut b).map_err(|e| WsError::Random(e.to_string()))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Failed authentications per peer address. Once a peer has failed, each of its attempts
/// is answered (success or not) only after a delay that doubles with its failures, up to
/// [`Backoff::MAX`]; and its attempts are answered one after another, so opening many
/// connections at once does not guess faster, nor does hanging up early: a quick answer
/// says nothing. A peer whose queue is already [`Backoff::QUEUE`] long is turned away
/// without its secret being looked at.
#[derive(Default)]
pub(crate) struct Backoff {
    peers: Mutex<HashMap<IpAddr, Peer>>,
}

struct Peer {
    failures: u32,
    /// Attempts admitted and not yet resolved; each counts as a likely failure.
    in_flight: u32,
    last: Instant,
    /// When the peer's latest admitted attempt will be answered.
    busy_until: Instant,
}

impl Backoff {
    const MAX: Duration = Duration::from_secs(5);
    /// The longest an attempt may wait for its turn.
    const QUEUE: Duration = Duration::from_secs(30);
    /// A peer's count is forgotten after this long without failures.
    const FORGET: Duration = Duration::from_secs(600);

    fn delay(failures: u32) -> Duration {
        if failures == 0 {
            return Duration::ZERO;
        }
        let ms = 100u64.saturating_mul(1 << failures.min(7).saturating_sub(1));
        Duration::from_millis(ms).min(Self::MAX)
    }

    /// Before a secret from `peer` is checked: how long to wait before checking and
    /// answering it, or `Err(retry_after)` when the peer has too many attempts waiting.
    pub fn admit(&self, peer: IpAddr) -> Result<Duration, Duration> {
        let mut map = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        map.retain(|_, p| now.duration_since(p.last) < Self::FORGET);
        let Some(p) = map.get_mut(&peer) else {
            return Ok(Duration::ZERO);
        };
        let answer_at = p.busy_until.max(now) + Self::delay(p.failures + p.in_flight);
        let wait = answer_at.duration_since(now);
        if wait > Self::QUEUE {
            return Err(p.busy_until.duration_since(now));
        }
        p.busy_until = answer_at;
        p.in_flight += 1;
        Ok(wait)
    }

    /// Record a failure from `peer`.
    pub fn fail(&self, peer: IpAddr) {
        let mut map = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        let p = map.entry(peer).or_insert(Peer {
            failures: 0,
            in_flight: 0,
            last: now,
            busy_until: now,
        });
        p.failures = p.failures.saturating_add(1);
        p.in_flight = p.in_flight.saturating_sub(1);
        p.last = now;
    }

    /// A success clears the peer's count.
    pub fn succeed(&self, peer: IpAddr) {
        self.peers
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
        // So is a planted symlink, even to a private file (A4).
        let elsewhere = dir.path().join("planted");
        std::fs::write(&elsewhere, "a".repeat(64)).expect("write");
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o600))
            .expect("chmod");
        std::fs::remove_file(path).expect("rm");
        std::os::unix::fs::symlink(&elsewhere, path).expect("symlink");
        assert!(Token::resolve(None, None, &state).is_err());
        // And a state directory that is a symlink.
        let linked = dir.path().join("linked");
        std::os::unix::fs::symlink(&state, &linked).expect("symlink");
        assert!(Token::resolve(None, None, &linked).is_err());
    }

    #[test]
    fn signatures_and_backoff() {
        let t = Token::fixed("secret", TokenSource::Config);
        // The value Python computes: hmac.new(b"secret", b"nonce-1", "sha256").hexdigest().
        assert_eq!(
            t.mac("nonce-1"),
            "51eb24cbb21c81f432ebe34898ee49d5619702516b8ab13108d7d0d3f31571e1"
        );
        let mac = t.mac("nonce-1");
        assert!(t.signed("nonce-1", &mac));
        assert!(t.signed("nonce-1", &mac.to_uppercase()));
        assert!(!t.signed("nonce-2", &mac));
        assert!(!t.signed("nonce-1", "zz"));
        assert!(!t.signed("nonce-1", &mac[..62]));

        let b = Backoff::default();
        let ip = "127.0.0.1".parse().expect("ip");
        let ms =
            |r: Result<std::time::Duration, std::time::Duration>| r.expect("admitted").as_millis();
        // A fresh peer is answered at once.
        assert_eq!(ms(b.admit(ip)), 0);
        b.fail(ip);
        // Attempts in flight together queue behind each other, each further back.
        let queued: Vec<u128> = (0..4).map(|_| ms(b.admit(ip))).collect();
        let gaps: Vec<u128> = queued.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(
            queued[0] >= 99 && gaps.windows(2).all(|g| g[1] > g[0]),
            "{queued:?}"
        );
        // Soon the queue is full: turned away unchecked.
        let admitted = (0..20).take_while(|_| b.admit(ip).is_ok()).count();
        assert!(admitted < 10, "{admitted}");
        // Another peer is not slowed by this one.
        assert_eq!(ms(b.admit("10.0.0.1".parse().expect("ip"))), 0);
        b.succeed(ip);
        assert_eq!(ms(b.admit(ip)), 0);
    }
}
