//! Pending confirmations: calls parked until a person approves or denies them, and (in
//! [`deferred`]) calls refused for want of a person that one can approve for a retry.

pub mod deferred;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use schemars::JsonSchema;
use serde::Serialize;
use tokio::sync::oneshot;
use ultra_protocol::Source;

/// A person's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Approved,
    Denied,
}

/// What a pending call looks like to the person asked.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingInfo {
    pub id: String,
    pub command: String,
    pub args: serde_json::Value,
    pub source: Source,
    /// `destructive`, `openWorld`, `write` or a command rule.
    pub reason: String,
    /// Milliseconds since the epoch after which the call is denied.
    pub expires_at: u128,
    /// What the call would do, when the command can show it (a diff, content to lose).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

struct Pending {
    info: PendingInfo,
    reply: oneshot::Sender<Decision>,
}

/// The table of parked calls.
#[derive(Default)]
pub struct Confirmations {
    next: AtomicU64,
    /// Seed 001's auto-apply (see `Executor::set_auto_apply`).
    auto_apply: std::sync::atomic::AtomicBool,
    pending: Mutex<BTreeMap<String, Pending>>,
}

impl Confirmations {
    /// Turn auto-apply on or off.
    pub fn set_auto_apply(&self, on: bool) {
        self.auto_apply.store(on, Ordering::SeqCst);
    }

    /// Whether auto-apply is on.
    pub fn auto_apply(&self) -> bool {
        self.auto_apply.load(Ordering::SeqCst)
    }

    /// Park a call; the receiver yields the decision.
    pub fn park(&self, mut info: PendingInfo) -> (String, oneshot::Receiver<Decision>) {
        let id = format!("confirm-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        info.id = id.clone();
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id.clone(), Pending { info, reply: tx });
        (id, rx)
    }

    /// Resolve a parked call. Returns false when no call has this id (already resolved or
    /// timed out).
    pub fn resolve(&self, id: &str, decision: Decision) -> bool {
        match self.lock().remove(id) {
            Some(p) => p.reply.send(decision).is_ok(),
            None => false,
        }
    }

    /// Forget a call that timed out.
    pub fn expire(&self, id: &str) {
        self.lock().remove(id);
    }

    /// The calls waiting now, oldest first.
    pub fn list(&self) -> Vec<PendingInfo> {
        self.lock().values().map(|p| p.info.clone()).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Pending>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }
}
