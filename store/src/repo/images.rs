//! The image repositories: the gallery of users' generated images and the public feed, and
//! how a message points at one of them.

use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::EntryId;
use async_trait::async_trait;

use crate::{StoreError, StoreResult};

/// A gallery image shown in a conversation; its bytes are the media object
/// [`image_media_id`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageImage {
    pub image_id: EntryId,
    pub width: u32,
    pub height: u32,
}

impl MessageImage {
    /// How every store writes it in one text column: `"<imageId> <width> <height>"`.
    pub fn code(&self) -> String {
        format!("{} {} {}", self.image_id.raw(), self.width, self.height)
    }

    pub fn from_code(code: &str) -> StoreResult<Self> {
        let corrupt = || StoreError::Corrupt(format!("bad message image {code:?}"));
        let mut parts = code.split(' ');
        let mut next = || parts.next().ok_or_else(corrupt);
        let image_id = EntryId::from_raw(next()?.parse().map_err(|_| corrupt())?);
        let width = next()?.parse().map_err(|_| corrupt())?;
        let height = next()?.parse().map_err(|_| corrupt())?;
        Ok(Self { image_id, width, height })
    }
}

/// The media id of a generated image's bytes; it is served only at its capability address
/// ([`media_url::image_media_url`](crate::media_url::image_media_url), `/media/img-<imageId>-<tag>`).
pub fn image_media_id(image_id: EntryId) -> String {
    format!("img-{}", image_id.raw())
}

/// A generated image as the gallery keeps it; its bytes are the media object
/// [`image_media_id`]. Ids are time-ordered (`EntryId`), so the newest sort first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GalleryRecord {
    pub image_id: EntryId,
    pub job_id: EntryId,
    /// The owner; never shown to anyone else.
    pub user_id: UserId,
    pub character_id: Option<CharacterId>,
    /// The character's name when the image was made.
    pub character_name: Option<String>,
    /// The user's own words (empty when only presets were chosen).
    pub prompt: String,
    pub scene: Option<String>,
    pub outfit: Option<String>,
    pub pose: Option<String>,
    pub style: Option<String>,
    pub width: u32,
    pub height: u32,
    /// Made with an explicit preset.
    pub nsfw: bool,
    /// Drawn by the embedded illustrator rather than a photo model.
    pub illustration: bool,
    /// Restricted exposure in the public feed: explicit, or of a restricted character.
    pub restricted: bool,
    /// The feed entry's id while the image is shared (time-ordered: when it was shared).
    pub feed_id: Option<EntryId>,
}

/// An image in the public feed, newest share first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedEntry {
    pub feed_id: EntryId,
    pub image_id: EntryId,
    /// Who shared it: for the operator, never sent to clients.
    pub owner: UserId,
    pub character_id: Option<CharacterId>,
    pub character_name: Option<String>,
    pub prompt: String,
    pub width: u32,
    pub height: u32,
    pub restricted: bool,
}

/// A character the user has images of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GalleryCharacter {
    pub character_id: CharacterId,
    pub count: u64,
    /// The newest image of the character (the list is ordered by it, newest first).
    pub newest_image_id: EntryId,
}

/// Users' generated images, newest first, per user and per user and character, and the
/// public feed of shared ones. Deleting an account deletes its images (`UserRepo::delete`).
#[async_trait]
pub trait GalleryRepo: Send + Sync {
    async fn add(&self, image: GalleryRecord) -> StoreResult<()>;
    async fn get(&self, user_id: &UserId, image_id: EntryId) -> StoreResult<Option<GalleryRecord>>;
    /// Newest first: the user's images (of `character` only, when given) older than
    /// `before`, at most `limit`.
    async fn list(
        &self,
        user_id: &UserId,
        character: Option<&CharacterId>,
        before: Option<EntryId>,
        limit: u32,
    ) -> StoreResult<Vec<GalleryRecord>>;
    /// The characters the user has images of, with how many; the most recent first.
    async fn characters(&self, user_id: &UserId) -> StoreResult<Vec<GalleryCharacter>>;
    /// Shares the image under the new feed id `feed_id`, or (`None`) takes it out of the
    /// feed; the image as it now is, `None` when the user has no such image. Sharing a
    /// shared image keeps its first feed entry.
    async fn set_shared(
        &self,
        user_id: &UserId,
        image_id: EntryId,
        feed_id: Option<EntryId>,
    ) -> StoreResult<Option<GalleryRecord>>;
    /// Deletes the image's record, its feed entry and its bytes (the media object
    /// [`image_media_id`]); false when the user has no such image.
    async fn delete(&self, user_id: &UserId, image_id: EntryId) -> StoreResult<bool>;
    /// The feed, newest share first: entries older than `before` (a feed id), at most
    /// `limit`; restricted entries only when `include_restricted`.
    async fn feed(&self, before: Option<EntryId>, limit: u32, include_restricted: bool) -> StoreResult<Vec<FeedEntry>>;
    /// One feed entry by its id, restricted or hidden or not (the operator's moderation).
    async fn feed_entry(&self, feed_id: EntryId) -> StoreResult<Option<FeedEntry>>;
}
