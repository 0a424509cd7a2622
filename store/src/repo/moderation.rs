//! The moderation repositories (issue 27): the log of texts moderation refused, and
//! reports and holds of images in the public feed.

use amora_domain::account::UserId;
use amora_domain::chat::EntryId;
use amora_domain::report::ReportReason;
use async_trait::async_trait;

use crate::{FeedEntry, StoreResult};

/// One text that moderation refused: where, under which rule, for whom (issue 27). The
/// operator reads the newest of them; the text is kept cut to [`MODERATION_EXCERPT_CHARS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModerationEvent {
    /// Unique and time-ordered (newest is greatest).
    pub event_id: EntryId,
    /// Seconds since the epoch.
    pub at: i64,
    /// The user whose text it was; `None` for a visitor or the system.
    pub user_id: Option<UserId>,
    /// Where the text came from: a surface's code, such as `imagePrompt` or `cardField`.
    pub surface: String,
    /// The policy's code (`domain::moderation::Policy::code`).
    pub policy: String,
    /// The refusal's code (`domain::moderation::Refusal::code`).
    pub refusal: String,
    /// Which layer refused: `rules` or `classifier`.
    pub layer: String,
    /// The start of the refused text.
    pub excerpt: String,
}

/// How much of a refused text the moderation log keeps.
pub const MODERATION_EXCERPT_CHARS: usize = 300;

/// The moderation log: what was refused, newest first.
#[async_trait]
pub trait ModerationLogRepo: Send + Sync {
    async fn record(&self, event: ModerationEvent) -> StoreResult<()>;
    /// The newest first: events older than `before`, at most `limit`.
    async fn recent(&self, before: Option<EntryId>, limit: u32) -> StoreResult<Vec<ModerationEvent>>;
}

/// A user's report of an image in the public feed (issue 27). One per reporter and image:
/// a reporter's later report of the same image replaces their earlier one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedReport {
    /// Time-ordered, as message ids are; a reporter's later report replaces it.
    pub report_id: EntryId,
    /// The image's owner and id: reports follow the image, not one share of it, so that
    /// taking an image out of the feed and sharing it again does not shed them.
    pub owner: UserId,
    pub image_id: EntryId,
    pub reporter_id: UserId,
    pub reason: ReportReason,
    pub note: String,
    /// Seconds since the epoch.
    pub created_at: i64,
}

/// A feed entry as the operator moderates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeratedFeedEntry {
    pub entry: FeedEntry,
    /// Distinct reporters since the operator last restored the image.
    pub reports: u32,
    /// When it was taken out of the feed (seconds), while it is.
    pub hidden_at: Option<i64>,
}

/// Which feed entries the operator lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedFilter {
    All,
    /// Reported or hidden: what awaits the operator's decision.
    Flagged,
    Hidden,
}

/// Reports of feed images and the hold that keeps an image out of the feed until the
/// operator decides (issue 27). A held image is in no page of `GalleryRepo::feed`,
/// whoever reads it, shared again or not; `GalleryRepo::delete` and deleting its owner's
/// account take its reports and hold with it.
#[async_trait]
pub trait FeedModerationRepo: Send + Sync {
    /// Records the report; answers how many distinct reporters the image now has (the
    /// same reporter twice counts once).
    async fn report(&self, report: FeedReport) -> StoreResult<u32>;
    /// Takes the image out of the feed (again: no change) until `restore`.
    async fn hide(&self, owner: &UserId, image_id: EntryId, at: i64) -> StoreResult<()>;
    /// The operator's "keep it": the image is back in the feed (if still shared) and its
    /// reports are cleared, so that hiding it again takes as many new reporters.
    async fn restore(&self, owner: &UserId, image_id: EntryId) -> StoreResult<()>;
    /// Whether the image is held out of the feed.
    async fn is_hidden(&self, owner: &UserId, image_id: EntryId) -> StoreResult<bool>;
    /// The feed as the operator sees it, newest share first: entries older than `before`
    /// (a feed id), at most `limit`, restricted and hidden ones included, with their
    /// reports and hold; only flagged or hidden ones when `filter` says so.
    async fn list(
        &self,
        before: Option<EntryId>,
        limit: u32,
        filter: FeedFilter,
    ) -> StoreResult<Vec<ModeratedFeedEntry>>;
}
