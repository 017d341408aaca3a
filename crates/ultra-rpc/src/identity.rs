//! Who a connection's caller is, and what a caller may claim to be.

use ultra_protocol::{CommandError, ErrorCode, PositionEncoding, Source, SourceKind};

/// Longest accepted agent or session id; they end up in every audit entry and event.
pub const MAX_ID_LEN: usize = 256;

/// Who the connection says it is (`session.identify`, or the WebSocket's authentication).
/// Defaults to a plain IPC program.
#[derive(Debug, Clone)]
pub struct Identity {
    pub kind: SourceKind,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    /// How this client counts characters in positions (`session.identify`).
    pub encoding: Option<PositionEncoding>,
}

impl Default for Identity {
    fn default() -> Self {
        Identity::of(SourceKind::Ipc)
    }
}

impl Identity {
    /// A caller of this kind with no ids.
    pub fn of(kind: SourceKind) -> Identity {
        Identity {
            kind,
            agent_id: None,
            session_id: None,
            encoding: None,
        }
    }

    /// The source its calls run with.
    pub fn source(&self) -> Source {
        Source {
            kind: self.kind,
            agent_id: self.agent_id.clone(),
            session_id: self.session_id.clone(),
            extension_id: None,
            position_encoding: self.encoding,
        }
    }
}

/// A claimed source kind, agent id and session id, checked. `internal` cannot be claimed
/// over a socket, and `human` only by a `person` (a client in the foreground of a
/// terminal: the editor attached to a server): both bypass validators and most policy.
pub fn claim(
    kind: Option<SourceKind>,
    agent_id: Option<String>,
    session_id: Option<String>,
    person: bool,
) -> Result<Identity, CommandError> {
    if kind == Some(SourceKind::Human) && person && agent_id.is_none() {
        return Ok(Identity {
            session_id,
            ..Identity::of(SourceKind::Human)
        });
    }
    if let Some(k @ (SourceKind::Human | SourceKind::Internal)) = kind {
        return Err(CommandError::new(
            ErrorCode::SourceNotAllowed,
            format!(
                "a socket client cannot claim to be `{}` (only the editor, in the foreground of a terminal, is a person); use ai, ipc, cli or extension",
                k.as_str()
            ),
        )
        .with_suggestion("identify as `ai` (with an agentId) or leave the source out"));
    }
    for (name, value) in [("agentId", &agent_id), ("sessionId", &session_id)] {
        if value.as_ref().is_some_and(|v| v.len() > MAX_ID_LEN) {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!("{name} is longer than {MAX_ID_LEN} bytes"),
            ));
        }
    }
    let kind = kind.unwrap_or(if agent_id.is_some() {
        SourceKind::Ai
    } else {
        SourceKind::Ipc
    });
    Ok(Identity {
        kind,
        agent_id,
        session_id,
        encoding: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims() {
        assert_eq!(
            claim(None, None, None, false).unwrap().kind,
            SourceKind::Ipc
        );
        assert_eq!(
            claim(None, Some("a".into()), None, false).unwrap().kind,
            SourceKind::Ai
        );
        assert_eq!(
            claim(Some(SourceKind::Cli), Some("a".into()), None, false)
                .unwrap()
                .kind,
            SourceKind::Cli
        );
        assert_eq!(
            claim(Some(SourceKind::Human), None, None, false)
                .unwrap_err()
                .code,
            ErrorCode::SourceNotAllowed
        );
        assert_eq!(
            claim(Some(SourceKind::Internal), None, None, false)
                .unwrap_err()
                .code,
            ErrorCode::SourceNotAllowed
        );
        assert_eq!(
            claim(None, Some("x".repeat(300)), None, false)
                .unwrap_err()
                .code,
            ErrorCode::InvalidArguments
        );
    }

    #[test]
    fn only_a_person_is_human() {
        assert_eq!(
            claim(Some(SourceKind::Human), None, Some("ed".into()), true)
                .unwrap()
                .kind,
            SourceKind::Human
        );
        // A person does not speak for an agent, and nobody is `internal`.
        assert!(claim(Some(SourceKind::Human), Some("claude".into()), None, true).is_err());
        assert!(claim(Some(SourceKind::Internal), None, None, true).is_err());
    }
}
