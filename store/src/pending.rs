//! The pending-debit journal (issue 28): a debit whose outcome is not stored yet. A row is
//! written before coins or a free message are taken for something made later (an image
//! job, a voice play, a reply), and deleted once the outcome is stored or the debit given
//! back. A node killed in between leaves its rows; another run recovers them once the
//! node that owns them has let its lease lapse (`actors/src/pending.rs`,
//! docs/architecture.md "Pending debits").

use async_trait::async_trait;

use amora_domain::account::UserId;

use crate::StoreResult;

/// One debit whose outcome is not stored yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingDebit {
    /// Unique: the debit's ledger transaction id, or a free message's own id.
    pub debit_id: String,
    pub user_id: UserId,
    /// What it pays for (`images`, `voice`, `reply`), read by the actors.
    pub kind: String,
    /// What recovery needs to settle it, as the actors write it (JSON).
    pub detail: String,
    /// The node run that delivers the outcome; only it settles the row while its lease
    /// ([`PendingDebitRepo::lease`]) holds.
    pub owner: String,
    /// Seconds since the epoch.
    pub created_at: i64,
}

/// The journal of pending debits, and each node run's lease. Every change of a row is
/// atomic (a conditional write on CQL, a statement on SQLite), so of concurrent callers one
/// opens, takes over or closes a row.
#[async_trait]
pub trait PendingDebitRepo: Send + Sync {
    /// Writes the row unless one with its `debit_id` exists; true when it wrote it.
    async fn open_debit(&self, row: PendingDebit) -> StoreResult<bool>;
    async fn pending_debit(&self, debit_id: &str) -> StoreResult<Option<PendingDebit>>;
    /// Pending rows, at most `limit`, in no particular order.
    async fn pending_debits(&self, limit: u32) -> StoreResult<Vec<PendingDebit>>;
    /// Makes `to` the row's owner while `from` still is; true when it did.
    async fn take_over_debit(&self, debit_id: &str, from: &str, to: &str) -> StoreResult<bool>;
    /// Deletes the row; true when this call deleted it (false: gone already).
    async fn close_debit(&self, debit_id: &str) -> StoreResult<bool>;
    /// Node run `owner` is alive until `until` (seconds since the epoch).
    async fn renew_lease(&self, owner: &str, until: i64) -> StoreResult<()>;
    /// Until when node run `owner` said it is alive; `None` when it never did or its lease
    /// was forgotten (a day after it lapsed).
    async fn lease(&self, owner: &str) -> StoreResult<Option<i64>>;
}
