//! Pending debits (issue 28): every debit taken for something made later (an image job, a
//! voice play, a reply paid with a free message) has a row in the store's journal
//! (`store.pending`) from before the debit until its outcome is stored or it is given
//! back. A node killed in between leaves rows behind; `Recovery` settles them: each row's
//! made part is kept and the rest given back, exactly once (docs/architecture.md,
//! "Pending debits").
//!
//! Which node settles a row: the row names its owner, one run of one node (the event
//! bus's node id, new at every start). Each run renews a lease in the store every third of
//! `lease`; a row is settled by another run only once its owner's lease has lapsed (or, for
//! an owner that never wrote one, once the row is older than `lease`), after taking the row
//! over by compare-and-set, so of several recovering nodes one settles it. Coins go back
//! through the user's actor under the same transaction ids the live paths refund with
//! (`image-refund:<imageId>`, `voice-refund:…`), so a refund the dying node made, or a
//! second recovery after a crash mid-recovery, is replayed by the ledger, never paid twice.
//! A free message is not a ledger row: its row is deleted first (one caller wins) and the
//! message given back only by the caller that deleted it.

use std::time::Duration;

use actix::Addr;
use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, MessageId};
use amora_domain::code::ApiCode;
use amora_domain::money::{Coins, TxnId};
use amora_store::{LedgerOutcome, PendingDebit, Store, StoreError, VoiceClipKey, VoiceClipState};
use serde::{Deserialize, Serialize};

use crate::bus::EventBus;
use crate::registry::Registry;
use crate::user::UserAddr;
use crate::user::{Credit, GiveBackFreeMessage, utc_day};
use crate::wire::events::ServerEvent;
use crate::wire::images::ImageFailure;

/// What a pending debit pays for, with what recovery needs to settle it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Owed {
    /// A job's images, paid in one debit; each not in the gallery is refunded by its own row.
    #[serde(rename_all = "camelCase")]
    Images { job_id: i64, image_ids: Vec<i64>, per_image: i64 },
    /// One attempt at speaking a message; refunded unless all its parts were stored.
    #[serde(rename_all = "camelCase")]
    Voice { character_id: String, message_id: i64, attempt: u32, parts: u32, price: i64, refund_txn: String },
    /// A free message taken for a reply (on UTC day `day`).
    #[serde(rename_all = "camelCase")]
    Reply { day: i64 },
}

impl Owed {
    fn kind(&self) -> &'static str {
        match self {
            Owed::Images { .. } => "images",
            Owed::Voice { .. } => "voice",
            Owed::Reply { .. } => "reply",
        }
    }
}

/// The journal as the live paths use it: rows owned by this node's run.
#[derive(Clone)]
pub struct Journal {
    store: Store,
    owner: String,
}

impl Journal {
    /// The journal of the run whose event bus is `bus`.
    pub fn new(store: Store, bus: &EventBus) -> Self {
        Self { store, owner: bus.node_id().to_owned() }
    }

    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Writes the row for `debit_id` before the debit. Another caller's row of the same
    /// debit (concurrent plays of one voice attempt share theirs) stands: false then.
    pub async fn open(&self, debit_id: &str, user_id: &UserId, owed: &Owed) -> Result<bool, StoreError> {
        let detail = serde_json::to_string(owed).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let row = PendingDebit {
            debit_id: debit_id.to_owned(),
            user_id: user_id.clone(),
            kind: owed.kind().to_owned(),
            detail,
            owner: self.owner.clone(),
            created_at: now_secs(),
        };
        self.store.pending.open_debit(row).await
    }

    /// Makes this run the row's owner (the play that won a voice clip's claim, whoever
    /// opened the row); false when the row is gone or another run took it first.
    pub async fn own(&self, debit_id: &str) -> Result<bool, StoreError> {
        match self.store.pending.pending_debit(debit_id).await? {
            Some(row) if row.owner == self.owner => Ok(true),
            Some(row) => self.store.pending.take_over_debit(debit_id, &row.owner, &self.owner).await,
            None => Ok(false),
        }
    }

    /// Whether this run still owns the row: false once a recovery took it over (this
    /// node's lease lapsed, its store unreachable), and then the outcome is not ours to make.
    pub async fn still_owns(&self, debit_id: &str) -> bool {
        match self.store.pending.pending_debit(debit_id).await {
            Ok(Some(row)) => row.owner == self.owner,
            Ok(None) => false,
            // Unknown: the outcome's own write will fail the same way if the store is down.
            Err(_) => true,
        }
    }

    /// The outcome is stored or the debit given back: the row goes. True when this call
    /// deleted it. Failures are logged: the row then waits for a recovery, which finds
    /// the outcome and changes nothing.
    pub async fn close(&self, debit_id: &str) -> bool {
        match self.store.pending.close_debit(debit_id).await {
            Ok(closed) => closed,
            Err(error) => {
                tracing::error!(%error, debit = debit_id, "a pending debit could not be closed");
                false
            }
        }
    }
}

/// The ledger id of an image job's debit.
pub fn image_debit_txn(job_id: EntryId) -> TxnId {
    TxnId::derived("image", &[job_id.raw().to_string().as_str()])
}

/// The ledger id of one image's refund.
pub fn image_refund_txn(image_id: EntryId) -> TxnId {
    TxnId::derived("image-refund", &[image_id.raw().to_string().as_str()])
}

/// A free message's journal id: its own, as it has no ledger row.
pub fn free_message_id(user_id: &UserId, nonce: EntryId) -> String {
    TxnId::derived("free", &[user_id.as_str(), nonce.raw().to_string().as_str()]).to_string()
}

/// Settles the rows of runs that died: at start and every third of the lease after, while
/// this run renews its own lease.
pub struct Recovery {
    journal: Journal,
    registry: Addr<Registry>,
    bus: EventBus,
    lease: Duration,
}

/// What one pass settled.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Settled {
    pub rows: usize,
    pub refunded: Coins,
    pub free_messages: u32,
}

impl Recovery {
    pub fn new(store: Store, bus: EventBus, registry: Addr<Registry>, lease: Duration) -> Self {
        let lease = lease.max(Duration::from_secs(1));
        Self { journal: Journal::new(store, &bus), registry, bus, lease }
    }

    /// Writes this run's first lease; the node serves only after it (a row of this run
    /// is then never taken for a dead one's).
    pub async fn renew(&self) -> Result<(), StoreError> {
        let until = now_secs() + self.lease.as_secs() as i64;
        self.journal.store.pending.renew_lease(&self.journal.owner, until).await
    }

    /// Renews the lease and settles lapsed rows, forever (a task of the node).
    pub async fn run(self) {
        let every = (self.lease / 3).max(Duration::from_millis(300));
        loop {
            if let Err(error) = self.renew().await {
                tracing::error!(%error, "this node's lease could not be renewed");
            }
            match self.pass().await {
                Ok(settled) if settled.rows > 0 => tracing::info!(
                    rows = settled.rows,
                    refunded = settled.refunded.units(),
                    free_messages = settled.free_messages,
                    "pending debits of a stopped node settled"
                ),
                Ok(_) => {}
                Err(error) => tracing::error!(%error, "pending debits could not be read"),
            }
            tokio::time::sleep(every).await;
        }
    }

    /// One pass: every row whose owner's lease lapsed is taken over and settled.
    pub async fn pass(&self) -> Result<Settled, StoreError> {
        let store = &self.journal.store;
        let now = now_secs();
        let mut settled = Settled::default();
        for row in store.pending.pending_debits(1_000).await? {
            if row.owner == self.journal.owner {
                continue;
            }
            let lapsed = match store.pending.lease(&row.owner).await? {
                Some(until) => until < now,
                None => row.created_at + (self.lease.as_secs() as i64) < now,
            };
            if !lapsed || !store.pending.take_over_debit(&row.debit_id, &row.owner, &self.journal.owner).await? {
                continue;
            }
            match self.settle(&row, &mut settled).await {
                Ok(()) => settled.rows += 1,
                // Left owned by this run: the next run settles it (every step repeats safely).
                Err(error) => tracing::error!(%error, debit = %row.debit_id, "a pending debit could not be settled"),
            }
        }
        Ok(settled)
    }

    async fn settle(&self, row: &PendingDebit, settled: &mut Settled) -> Result<(), String> {
        let owed: Owed = serde_json::from_str(&row.detail).map_err(|e| format!("unreadable detail: {e}"))?;
        let user = &row.user_id;
        let store = &self.journal.store;
        match owed {
            Owed::Reply { day } => {
                // Deleted first: of two recoveries one gives the message back.
                if store.pending.close_debit(&row.debit_id).await.map_err(|e| e.to_string())? && day == utc_day() {
                    let actor = self.registry.send(UserAddr(user.clone())).await.map_err(|e| e.to_string())?;
                    actor.send(GiveBackFreeMessage).await.map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
                    settled.free_messages += 1;
                }
                return Ok(());
            }
            Owed::Images { job_id, image_ids, per_image } => {
                if self.debited(user, &row.debit_id).await? {
                    let job_id = EntryId::from_raw(job_id);
                    for image_id in image_ids.into_iter().map(EntryId::from_raw) {
                        if store.gallery.get(user, image_id).await.map_err(|e| e.to_string())?.is_some() {
                            continue;
                        }
                        let amount = Coins::stored(per_image);
                        self.refund(user, amount, "image refund", image_refund_txn(image_id)).await?;
                        settled.refunded = Coins::stored(settled.refunded.units() + per_image);
                        let event = ServerEvent::ImageFailed {
                            job_id,
                            image_id,
                            reason: ImageFailure::Failed,
                            code: Some(ApiCode::ServerError.value()),
                            msg: "The image could not be made. Your coins were refunded.".into(),
                            refunded: amount,
                        };
                        self.bus.publish(user, event).await;
                    }
                }
            }
            Owed::Voice { character_id, message_id, attempt, parts, price, refund_txn } => {
                if self.debited(user, &row.debit_id).await? {
                    let character_id = CharacterId::parse(&character_id).map_err(|e| e.to_string())?;
                    let key = VoiceClipKey {
                        user_id: user.clone(),
                        character_id: character_id.clone(),
                        message_id: MessageId::from_raw(message_id),
                    };
                    let clip = store.voice_clips.clip(&key).await.map_err(|e| e.to_string())?;
                    let ours = clip.as_ref().filter(|clip| clip.attempt == attempt);
                    let whole = ours.is_some_and(|clip| {
                        clip.state == VoiceClipState::Complete
                            || (clip.state == VoiceClipState::Speaking && clip.parts.len() as u32 >= parts)
                    });
                    if whole {
                        // Every part was stored: the play was delivered; only the mark was lost.
                        let _ = store.voice_clips.finish_clip(&key, attempt, VoiceClipState::Complete).await;
                    } else {
                        // Marked failed first, so the next play starts a new attempt at once
                        // instead of waiting for a speaker that died.
                        if ours.is_some() {
                            store
                                .voice_clips
                                .finish_clip(&key, attempt, VoiceClipState::Failed)
                                .await
                                .map_err(|e| e.to_string())?;
                        }
                        let txn = TxnId::parse(&refund_txn).map_err(|e| e.to_string())?;
                        self.refund(user, Coins::stored(price), "voice refund", txn).await?;
                        settled.refunded = Coins::stored(settled.refunded.units() + price);
                        let event = ServerEvent::VoiceFailed {
                            character_id,
                            message_id: MessageId::from_raw(message_id),
                            code: ApiCode::ServerError.value(),
                            msg: "The voice could not be made; the tokens went back.".into(),
                            refunded: Coins::stored(price),
                        };
                        self.bus.publish(user, event).await;
                    }
                }
            }
        }
        store.pending.close_debit(&row.debit_id).await.map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Whether the row's debit reached the ledger: a node may die between writing the row
    /// and the debit, or the debit may have been refused; then nothing is owed back.
    async fn debited(&self, user: &UserId, debit_id: &str) -> Result<bool, String> {
        let rows = self.journal.store.ledger.rows(user).await.map_err(|e| e.to_string())?;
        Ok(rows.iter().any(|row| row.txn_id.as_str() == debit_id && row.delta.units() < 0))
    }

    async fn refund(&self, user: &UserId, amount: Coins, reason: &str, txn_id: TxnId) -> Result<(), String> {
        let actor = self.registry.send(UserAddr(user.clone())).await.map_err(|e| e.to_string())?;
        let credit = Credit { amount, reason: reason.into(), txn_id };
        match actor.send(credit).await.map_err(|e| e.to_string())?.map_err(|e| e.to_string())? {
            LedgerOutcome::Applied { .. } | LedgerOutcome::Replayed { .. } | LedgerOutcome::NoAccount => Ok(()),
            other => Err(format!("the refund was not applied: {other:?}")),
        }
    }
}

fn now_secs() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}
