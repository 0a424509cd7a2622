//! Amora's storage: one repository trait per aggregate, so that the embedded store (a
//! single SQLite file, the default) and a ScyllaDB store can stand behind the same calls.
//!
//! Traits are shaped with a wide-column store in mind: every read names its partition
//! (a gender's catalogue, one media id, one user) and lists come back in clustering order.
//!
//! The traits live in `repo/`, one file per feature (the names the server's folders use);
//! they are all re-exported here, so callers name them `amora_store::UserRepo` and so on.

use std::sync::Arc;

use async_trait::async_trait;

pub mod cql;
pub mod embedded;
pub mod listing;
pub mod media_url;
pub mod pending;
pub mod repo;
pub mod seed;

pub use media_url::{image_media_url, load_media_url_key, media_id_for_url};
pub use pending::{PendingDebit, PendingDebitRepo};
pub use repo::auth::*;
pub use repo::catalogue::*;
pub use repo::chat::*;
pub use repo::content::*;
pub use repo::creation::*;
pub use repo::images::*;
pub use repo::media::*;
pub use repo::memories::*;
pub use repo::moderation::*;
pub use repo::operators::*;
pub use repo::payments::*;
pub use repo::telemetry::*;
pub use repo::voice::*;
pub use repo::webhooks::*;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or answered with an error.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// Stored data could not be read back into a domain value.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// A unique field (named) already holds this value.
    #[error("{0} is already taken")]
    Conflict(&'static str),
    /// A media object larger than [`MAX_MEDIA_BYTES`] (its size).
    #[error("a media object of {0} bytes is larger than the store keeps")]
    TooLarge(usize),
}

impl StoreError {
    /// The database is briefly away (unreachable, timed out): the call may be tried again,
    /// and the caller answers "try again" rather than reporting a fault.
    pub fn is_temporary(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// Whether the store answers at all; `/readyz` asks this.
#[async_trait]
pub trait Health: Send + Sync {
    async fn ping(&self) -> StoreResult<()>;
    /// Round trips to the database so far (reads and writes), for benchmarks that count
    /// what a chat turn costs the store.
    fn round_trips(&self) -> u64;
}

/// Every repository of one store implementation, shared across the server: one pointer
/// to them all, so that the clone every actor holds is 8 bytes, not thirty fat pointers
/// (480 bytes of every idle user actor, issue 35). The repositories are reached through it
/// as fields (`store.users`).
#[derive(Clone)]
pub struct Store(Arc<Repositories>);

impl std::ops::Deref for Store {
    type Target = Repositories;

    fn deref(&self) -> &Repositories {
        &self.0
    }
}

/// The repositories of one store implementation.
pub struct Repositories {
    pub characters: Arc<dyn CharacterRepo>,
    /// Characters users created (My AI, review); the same rows as `characters`.
    pub created: Arc<dyn CreatedCharacterRepo>,
    pub media: Arc<dyn MediaRepo>,
    pub voice_clips: Arc<dyn VoiceClipRepo>,
    pub telemetry: Arc<dyn TelemetryRepo>,
    pub users: Arc<dyn UserRepo>,
    pub sessions: Arc<dyn SessionRepo>,
    pub sign_in_links: Arc<dyn SignInLinkRepo>,
    pub deletion_blocks: Arc<dyn DeletionBlockRepo>,
    pub suspensions: Arc<dyn SuspensionRepo>,
    pub ledger: Arc<dyn LedgerRepo>,
    pub conversations: Arc<dyn ConversationRepo>,
    /// Reply versions (swipes), by the message they answer.
    pub alternatives: Arc<dyn ReplyAlternativeRepo>,
    pub memories: Arc<dyn MemoryRepo>,
    /// The user's personas (issue 18).
    pub personas: Arc<dyn PersonaRepo>,
    /// Group chats and their messages (issue 31).
    pub groups: Arc<dyn GroupRepo>,
    /// The recall index over the user's messages and the pair's memories.
    pub recall: Arc<dyn RecallRepo>,
    pub message_credits: Arc<dyn MessageCreditRepo>,
    pub blog: Arc<dyn BlogRepo>,
    pub reports: Arc<dyn ReportRepo>,
    /// What moderation refused (issue 27), for the operator.
    pub moderation_log: Arc<dyn ModerationLogRepo>,
    pub orders: Arc<dyn OrderRepo>,
    pub subscriptions: Arc<dyn SubscriptionRepo>,
    pub gallery: Arc<dyn GalleryRepo>,
    /// Reports and holds of feed images (issue 27).
    pub feed_moderation: Arc<dyn FeedModerationRepo>,
    /// Debits whose outcome is not stored yet, and node leases (issue 28).
    pub pending: Arc<dyn PendingDebitRepo>,
    /// Operator accounts, their sessions and the audit log (issue 33).
    pub operators: Arc<dyn OperatorRepo>,
    /// Published versions of the legal texts (issue 33).
    pub legal: Arc<dyn LegalTextRepo>,
    /// Payment notifications that failed after verification, for replay (issue 33).
    pub webhooks: Arc<dyn WebhookRepo>,
    pub health: Arc<dyn Health>,
}

impl Store {
    /// Every repository served by one implementation that has them all.
    pub fn from_one<T>(shared: Arc<T>) -> Self
    where
        T: CharacterRepo
            + CreatedCharacterRepo
            + MediaRepo
            + VoiceClipRepo
            + TelemetryRepo
            + UserRepo
            + SessionRepo
            + SignInLinkRepo
            + DeletionBlockRepo
            + SuspensionRepo
            + LedgerRepo
            + ConversationRepo
            + ReplyAlternativeRepo
            + MemoryRepo
            + PersonaRepo
            + GroupRepo
            + RecallRepo
            + MessageCreditRepo
            + BlogRepo
            + ReportRepo
            + ModerationLogRepo
            + OrderRepo
            + SubscriptionRepo
            + GalleryRepo
            + FeedModerationRepo
            + PendingDebitRepo
            + OperatorRepo
            + LegalTextRepo
            + WebhookRepo
            + Health
            + 'static,
    {
        Store(Arc::new(Repositories {
            characters: shared.clone(),
            created: shared.clone(),
            media: shared.clone(),
            voice_clips: shared.clone(),
            telemetry: shared.clone(),
            users: shared.clone(),
            sessions: shared.clone(),
            sign_in_links: shared.clone(),
            deletion_blocks: shared.clone(),
            suspensions: shared.clone(),
            ledger: shared.clone(),
            conversations: shared.clone(),
            alternatives: shared.clone(),
            memories: shared.clone(),
            personas: shared.clone(),
            groups: shared.clone(),
            recall: shared.clone(),
            message_credits: shared.clone(),
            blog: shared.clone(),
            reports: shared.clone(),
            moderation_log: shared.clone(),
            orders: shared.clone(),
            subscriptions: shared.clone(),
            gallery: shared.clone(),
            feed_moderation: shared.clone(),
            pending: shared.clone(),
            operators: shared.clone(),
            legal: shared.clone(),
            webhooks: shared.clone(),
            health: shared,
        }))
    }
}
