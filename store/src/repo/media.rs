//! The media repository: stored images and sounds (generated images, portraits, voice
//! audio) by id, with the resized copies `/media/{id}?w=` serves.

use async_trait::async_trait;

use crate::{StoreError, StoreResult};

/// A stored image or sound, addressed by id and served at `/media/{id}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaObject {
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// The widths `/media/{id}?w=` serves resized copies at (docs/api.md, "Media variants").
pub const MEDIA_VARIANT_WIDTHS: [u32; 5] = [160, 320, 480, 750, 1080];

/// The largest media object kept (callers have their own, smaller limits, such as
/// `image.max_bytes`; this one protects the store from any caller).
pub const MAX_MEDIA_BYTES: usize = 16 * 1024 * 1024;

/// The storage key of a variant: `@` never appears in a public media id (the server
/// accepts letters, digits, `-` and `_`), so a variant cannot be asked for by its key.
pub(crate) fn variant_key(id: &str, width: u32) -> String {
    format!("{id}@w{width}")
}

pub(crate) fn check_media_size(object: &MediaObject) -> StoreResult<()> {
    if object.bytes.len() > MAX_MEDIA_BYTES {
        return Err(StoreError::TooLarge(object.bytes.len()));
    }
    Ok(())
}

#[async_trait]
pub trait MediaRepo: Send + Sync {
    /// Stores or replaces an object; larger than [`MAX_MEDIA_BYTES`] is refused
    /// ([`StoreError::TooLarge`]).
    async fn put(&self, id: &str, object: MediaObject) -> StoreResult<()>;
    async fn get(&self, id: &str) -> StoreResult<Option<MediaObject>>;
    /// Keeps a resized copy of `id`, at most `width` pixels wide.
    async fn put_variant(&self, id: &str, width: u32, object: MediaObject) -> StoreResult<()>;
    async fn get_variant(&self, id: &str, width: u32) -> StoreResult<Option<MediaObject>>;
    /// Removes the object and every variant of it; true when the object was there.
    async fn delete(&self, id: &str) -> StoreResult<bool>;
}
