//! A created character's portrait, drawn by the node's image pipeline from the chosen
//! looks (docs/api.md "Created characters"): the embedded illustrator draws from the
//! illustrator `Look`; prompt-reading backends get the same look in words and the
//! character's seed, so the portrait and the character's later images agree.
//!
//! The builder's previews are the same drawing narrowed to 320 px, sent back as a data URL,
//! cached by looks (an LRU: the same looks cost one drawing) and limited per address. "The
//! same drawing" is exact: a preview and the portrait saved from the same looks are one
//! request (the seed of the looks, [`looks_seed`], and the configured size), so the character
//! saved shows the face the builder showed.

use std::io::Cursor;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use amora_actors::ai::image::{GeneratedImage, ImageRequest, Subject};
use amora_actors::images::{ImageJobSettings, ImageJobs};
use amora_domain::appearance::Look;
use amora_domain::character::CharacterId;
use amora_domain::gender::Gender;
use amora_domain::image::NEGATIVE_PROMPT;
use amora_store::{MediaObject, Store};
use base64::Engine as _;
use hashlink::LruCache;
use serde::Serialize;

use crate::api::ApiError;

/// The width of a preview, in pixels; its height keeps the saved portrait's proportions.
pub const PREVIEW_WIDTH: u32 = 320;
/// Previews kept (a few kilobytes each).
const PREVIEW_CACHE_ENTRIES: usize = 512;
/// The prefix of a portrait's media id: `cp-<characterId>-<random>`; a new drawing gets a
/// new id, so browsers and proxies never show an old one from their cache.
const MEDIA_PREFIX: &str = "cp-";

/// What a portrait is drawn from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortraitSpec {
    pub gender: Gender,
    /// What the embedded illustrator draws.
    pub look: Look,
    /// The looks in words, first in the prompt of backends that read one.
    pub words: String,
    /// Illustrator style key (`photo`, `anime`...), when the builder's style maps to one.
    pub style: Option<String>,
    /// Illustrator outfit key, when the builder's outfit maps to one.
    pub outfit: Option<String>,
}

impl PortraitSpec {
    /// The image request for this portrait at `width` × `height`.
    pub fn request(&self, seed: u64, width: u32, height: u32) -> ImageRequest {
        ImageRequest {
            prompt: format!("{}, head and shoulders portrait, looking at the viewer, soft light", self.words),
            negative_prompt: NEGATIVE_PROMPT.to_owned(),
            seed,
            width,
            height,
            subject: Some(Subject::of(self.gender, &self.look)),
            scene: None,
            outfit: self.outfit.clone(),
            pose: Some("portrait".to_owned()),
            style: self.style.clone(),
            nsfw: false,
            variant: 0,
        }
    }
}

/// The media id a new portrait of `id` is stored under.
pub fn new_media_id(id: &CharacterId) -> String {
    let suffix: String = crate::auth::random_token().chars().filter(char::is_ascii_alphanumeric).take(10).collect();
    format!("{MEDIA_PREFIX}{id}-{suffix}")
}

/// The media id behind a portrait URL this module made (`/media/cp-…`), to delete it;
/// `None` for any other photo (a seeded character's, or an outside URL).
pub fn media_id_of(photo_url: &str) -> Option<&str> {
    photo_url.strip_prefix("/media/").filter(|id| id.starts_with(MEDIA_PREFIX))
}

/// Stores a portrait's bytes under a new media id; answers its URL.
pub async fn store(store: &Store, id: &CharacterId, object: MediaObject) -> Result<String, ApiError> {
    let media_id = new_media_id(id);
    store.media.put(&media_id, object).await?;
    Ok(format!("/media/{media_id}"))
}

/// The seed of a portrait drawn from the builder's looks: from `key`, the looks' names (every
/// field the drawing depends on), so the preview and the saved portrait are the same drawing.
pub fn looks_seed(key: &str) -> u64 {
    amora_domain::appearance::fnv1a(key.as_bytes())
}

/// Draws the portrait of character `id` through the image pipeline (`seed`, the configured
/// size, `image`) and stores it; answers its URL.
pub async fn draw_and_store(
    store: &Store,
    images: &ImageJobs,
    image: &ImageJobSettings,
    id: &CharacterId,
    spec: &PortraitSpec,
    seed: u64,
) -> Result<String, ApiError> {
    let request = spec.request(seed, image.width, image.height);
    let drawn = images.draw(request).await?;
    self::store(store, id, MediaObject { content_type: drawn.content_type, bytes: drawn.bytes }).await
}

/// Deletes a portrait this module stored; other photos are left alone.
pub async fn delete(store: &Store, photo_url: &str) -> Result<(), ApiError> {
    if let Some(media_id) = media_id_of(photo_url) {
        store.media.delete(media_id).await?;
    }
    Ok(())
}

/// `previewPortrait`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(rename = "PortraitPreview")]
pub struct Preview {
    /// `data:image/png;base64,…`
    pub image: String,
    pub width: u32,
    pub height: u32,
}

/// The builder's previews, by looks.
pub struct Previews {
    cache: Mutex<LruCache<String, Arc<Preview>>>,
}

impl Default for Previews {
    fn default() -> Self {
        let entries = NonZeroUsize::new(PREVIEW_CACHE_ENTRIES).map_or(1, NonZeroUsize::get);
        Self { cache: Mutex::new(LruCache::new(entries)) }
    }
}

impl Previews {
    fn cached(&self, key: &str) -> Option<Arc<Preview>> {
        self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get(key).cloned()
    }

    fn keep(&self, key: String, preview: Arc<Preview>) {
        self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).insert(key, preview);
    }

    /// The preview of `spec`, from the cache when the same looks were drawn before. `key`
    /// names the looks (every field the drawing depends on). Drawn as the saved portrait is
    /// (seed and configured size), then narrowed: a backend that draws another picture at
    /// another size would otherwise save a face the builder never showed.
    pub async fn preview(
        &self,
        images: &ImageJobs,
        image: &ImageJobSettings,
        key: String,
        spec: &PortraitSpec,
    ) -> Result<Arc<Preview>, ApiError> {
        if let Some(preview) = self.cached(&key) {
            return Ok(preview);
        }
        let drawn = images.draw(spec.request(looks_seed(&key), image.width, image.height)).await?;
        let png = tokio::task::spawn_blocking(move || preview_png(drawn))
            .await
            .map_err(|e| ApiError::Internal(format!("the preview task stopped: {e}")))??;
        let preview = Arc::new(Preview {
            image: format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(&png.bytes)),
            width: png.width,
            height: png.height,
        });
        self.keep(key, preview.clone());
        Ok(preview)
    }
}

/// The drawing as a PNG at most [`PREVIEW_WIDTH`] wide: as it came when it already is one,
/// else decoded, narrowed and encoded again.
fn preview_png(drawn: GeneratedImage) -> Result<GeneratedImage, ApiError> {
    if drawn.content_type == "image/png" && drawn.width <= PREVIEW_WIDTH {
        return Ok(drawn);
    }
    let picture = image::load_from_memory(&drawn.bytes)
        .map_err(|e| ApiError::Internal(format!("the portrait backend's image cannot be decoded: {e}")))?;
    let picture = if picture.width() > PREVIEW_WIDTH {
        picture.resize(PREVIEW_WIDTH, u32::MAX, image::imageops::FilterType::CatmullRom)
    } else {
        picture
    };
    let mut out = Cursor::new(Vec::new());
    picture
        .write_to(&mut out, image::ImageFormat::Png)
        .map_err(|e| ApiError::Internal(format!("cannot encode the preview: {e}")))?;
    Ok(GeneratedImage {
        content_type: "image/png".into(),
        bytes: out.into_inner(),
        width: picture.width(),
        height: picture.height(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_portraits_made_here_are_deleted_by_url() {
        let id = CharacterId::parse("my-abc").unwrap_or_else(|e| panic!("{e}"));
        let media = new_media_id(&id);
        assert!(media.starts_with("cp-my-abc-") && media.len() <= 100, "{media}");
        assert!(media.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{media}");
        assert_eq!(media_id_of(&format!("/media/{media}")), Some(media.as_str()));
        assert_eq!(media_id_of("/media/gf-001-portrait"), None);
        assert_eq!(media_id_of("https://example.com/cp-x"), None);
    }
}
